"""
What a model may allow: the effects of a call, held against the terms the config names.

A model's allow stands only on facts the plan states. The gateway states a
call's effects (reads, writes, executions, network, bindings, lifetime over
classified paths; see the effects vocabulary in `gateway`); this module reads
them in their wire form — the document every delegate is sent — and says
which one, if any, lies outside what ``may-allow`` lets a model allow. A call
whose effects are not stated, an effect the planner calls opaque, code only
known when it runs, or an effect of a kind this module does not know: all
outside, whatever the config says. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from gateway.effects import PATH_CLASSES
from gateway.text import shorten

__all__ = [
    "DEFAULT_MAY_ALLOW",
    "KIND_TERMS",
    "PATH_TERMS",
    "check_terms",
    "outside",
    "unknown_term_message",
]

PATH_TERMS: Final[tuple[str, ...]] = tuple(name for name in PATH_CLASSES if name != "outside")
"""
Path classes: a read, write or change of directory is allowed only when every
class of its path is named. Not ``outside``: a policy adds it, a plan never
carries it, so a model's document never shows it.
"""

KIND_TERMS: Final = (
    "read",
    "write",
    "delete",
    "cwd",
    "execute",
    "bind",
    "lifetime",
    "network",
    "environment",
    "privilege",
)
"""
Effect kinds. ``environment``: reading the whole environment, as ``env``
does. ``delete``: a write that deletes or moves a path, or reaches everything
below one (``rm``, ``mv``, ``chmod -R``); it needs ``write`` too.
``privilege``: running as another user or with privilege (``sudo``).
"""

DEFAULT_MAY_ALLOW: Final = (
    "workspace",
    "temp",
    "home",
    "stream",
    "other",
    "read",
    "write",
    "cwd",
    "execute",
    "bind",
    "lifetime",
)
"""
No ``secret``, ``persistence``, ``system`` or ``unknown`` path, no deleting,
no network, no reading the whole environment, no privilege.
"""

_PATH_EFFECTS: Final = {"read": "reads", "write": "writes", "cwd": "moves into"}
_DELETING: Final = frozenset({"delete", "move"})
"""Write actions that take a path away: they need ``delete`` as well as ``write``."""
_SHOWN: Final = 60


def check_terms(terms: Iterable[str]) -> str | None:
    """The first term that is neither a path class nor an effect kind, if any."""
    known = {*PATH_TERMS, *KIND_TERMS}
    return next((term for term in terms if term not in known), None)


def unknown_term_message(term: str, table: str) -> str:
    """The sentence that refuses ``term`` in ``may-allow``, naming every term there is."""
    return (
        f"Invalid [{table}] options: {term!r} in `may-allow` is neither a path class "
        f"({', '.join(PATH_TERMS)}) nor an effect kind ({', '.join(KIND_TERMS)})."
    )


def outside(effects: Sequence[Any] | None, may_allow: frozenset[str]) -> str | None:
    """
    The first effect a model may not allow, as a clause (``it writes `~/.bashrc`,
    a persistence path``), or ``None`` when every effect is allowed.

    Args:
        effects: The document's ``effects`` (``None``: the gateway stated none).
        may_allow: The terms the config names.
    """
    if effects is None:
        return "the gateway states no effects for it to be checked against"
    for effect in effects:
        clause = _outside(effect, may_allow)
        if clause is not None:
            return clause
    return None


def _shown(value: Any, limit: int = _SHOWN) -> str:
    return shorten(str(value), limit)


def _outside(effect: Any, may_allow: frozenset[str]) -> str | None:
    if not isinstance(effect, dict):
        return "it has an effect of a shape the model approver does not know"
    tag = effect.get("effect")
    via = _shown(effect.get("via", ""))
    if tag in _PATH_EFFECTS:
        path = effect.get("path")
        classes = path.get("classes") if isinstance(path, dict) else None
        if not isinstance(path, dict) or not isinstance(classes, list | tuple):
            return "it has an effect of a shape the model approver does not know"
        verb = _PATH_EFFECTS[tag]
        written = _shown(path.get("written", "?"))
        if tag not in may_allow:
            return f"it {verb} `{written}` (through `{via}`), and `{tag}` is not in may-allow"
        outside_classes = [c for c in classes if c not in may_allow]
        if outside_classes or not classes:
            kind = outside_classes[0] if outside_classes else "unknown"
            return f"it {verb} `{written}`, a `{kind}` path"
        deletes = tag == "write" and (
            effect.get("action") in _DELETING or effect.get("recursive") is True
        )
        if deletes and "delete" not in may_allow:
            action = str(effect.get("action"))
            what = {"delete": "deletes", "move": "moves"}.get(action, "changes all below")
            return f"it {what} `{written}` (through `{via}`), and `delete` is not in may-allow"
        return None
    if tag == "execute":
        if "execute" not in may_allow:
            return f"it runs code through `{via}`, and `execute` is not in may-allow"
        if effect.get("origin") not in ("literal", "call_bound"):
            return f"it runs code through `{via}` that is only known when it runs"
        return None
    if tag == "network":
        if "network" in may_allow:
            return None
        target = effect.get("target")
        where = f" with `{_shown(target)}`" if target else ""
        return f"it talks over the network{where} (through `{via}`)"
    if tag == "read.environment":
        if "environment" in may_allow:
            return None
        return f"it reads the whole environment (through `{via}`)"
    if tag == "privilege":
        if "privilege" in may_allow:
            return None
        user = effect.get("user")
        who = (
            f"as `{_shown(user)}`" if isinstance(user, str) else "as a user only known when it runs"
        )
        return f"it runs {who} (through `{via}`), and `privilege` is not in may-allow"
    if tag in ("bind", "lifetime"):
        if tag in may_allow:
            return None
        return f"it has a `{tag}` effect (through `{via}`), and `{tag}` is not in may-allow"
    if tag == "opaque":
        return f"its effects are not all known ({_shown(effect.get('reason', 'unstated'), 160)})"
    return f"it has an effect the model approver does not know (`{_shown(tag)}`)"
