"""
Effect conditions: what a rule says about the effects a command has, and how an effect fits.

A condition is a list of *tokens* for one kind of effect. Each token belongs
to a *dimension* of that effect (a path's classes, an execution's origin, a
network target…); an effect fits the condition when, in every dimension the
condition names, it fits one of that dimension's tokens.

========== ==================== =================================================
condition  effect               tokens (by dimension)
========== ==================== =================================================
reads      read,                path: a class (``workspace`` ``temp`` ``home``
           read.environment     ``secret`` ``persistence`` ``system`` ``stream``
                                ``other`` ``unknown``), a glob of the resolved
                                path (``~/.ssh/**``, ``**/.env``, ``/etc/*``);
                                ``environment``: the whole environment
writes     write                path: as for reads, and ``workspace-root`` (the
                                workspace itself, or a directory above it)
executes   execute              kind: ``program`` ``shell_text`` ``code``
                                ``number`` ``expansion`` ``configured``;
                                origin: ``literal`` ``call_bound`` ``unknown``
network    network              kind: ``connect`` ``listen`` ``resolve``;
                                target: an address class (``public``
                                ``private`` ``loopback`` ``link_local``
                                ``unknown``) or a host glob (``*.example.com``)
binds      bind                 how: ``assignment`` ``prefix`` ``export``
                                ``declare`` ``read`` ``printf`` ``default``
                                ``set`` ``shopt`` ``trap`` ``alias``
                                ``function``… (the bind forms); name: a glob
                                (``LD_*``; ``name:set`` for a name that is
                                also a form)
lifetime   lifetime             kind: ``background`` ``detached`` ``unbounded``
                                ``loop``
========== ==================== =================================================

Every condition also takes ``via:GLOB``, matched against the planner's label
of how the effect comes about (``via:/dev/tcp``, ``via:trap``).

Two readings, one per decision:

* `Condition.hits` (``decline``, ``ask``): the path dimension holds when
  **any** class of the path is listed, a glob matches its value, or it is a
  workspace root and ``workspace-root`` is listed.
* `Condition.permits` (``allow``): the path dimension holds when **every**
  class of the path is listed, or a glob matches a value that is known, is not
  itself a pattern, and is not ``unknown``. An allow can only stand on facts
  the plan states.

Matching is linear in the text: globs are `gateway_rules._glob` automata.
"""

from __future__ import annotations

import typing
from collections.abc import Collection, Mapping, Sequence
from typing import Final

from gateway.effects import (
    PATH_CLASSES,
    WRITE_VERBS,
    AddressClass,
    Bind,
    BindVia,
    ChangeDirectory,
    Effect,
    EffectPath,
    Execute,
    ExecuteKind,
    Lifetime,
    LifetimeKind,
    Network,
    NetworkKind,
    Opaque,
    Origin,
    Privilege,
    Read,
    ReadEnvironment,
    Write,
    WriteAction,
)
from gateway.text import shorten_quoted
from gateway_rules._glob import Glob, compile_glob

__all__ = [
    "CONDITIONS",
    "Condition",
    "compile_condition",
    "condition_for",
    "condition_problem",
    "describe",
    "path_shown",
]

CONDITIONS: Final = ("reads", "writes", "executes", "network", "binds", "lifetime")
"""The effect conditions a rule may give, in the order they are checked."""

_PATH_CLASSES: Final = frozenset(PATH_CLASSES)
_ROOT: Final = "workspace-root"
_ENVIRONMENT: Final = "environment"
_EXECUTE_KINDS: Final = frozenset(typing.get_args(ExecuteKind))
_ORIGINS: Final = frozenset(typing.get_args(Origin))
_NETWORK_KINDS: Final = frozenset(typing.get_args(NetworkKind))
_ADDRESSES: Final = frozenset(typing.get_args(AddressClass))
_BIND_FORMS: Final = frozenset(typing.get_args(BindVia))
_LIFETIMES: Final = frozenset(typing.get_args(LifetimeKind))
_NAME_CHARACTERS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*?[]!^-@#$"
)
_PATH_STARTS: Final = ("/", "~", "./", "**")

_CONDITION_OF: Final[Mapping[type, str]] = {
    Read: "reads",
    ReadEnvironment: "reads",
    Write: "writes",
    Execute: "executes",
    Bind: "binds",
    Network: "network",
    Lifetime: "lifetime",
}


def condition_for(effect: Effect) -> str | None:
    """The condition that judges ``effect`` (``binds`` for a bind…), or ``None`` when none can."""
    return _CONDITION_OF.get(type(effect))


def _token_problem(condition: str, token: str, *, decision: str) -> str | None:
    """Why ``token`` means nothing in ``condition``, as a clause, or ``None``."""
    if token.startswith("via:"):
        return None if token[4:] else f"its {condition} token {token!r} names no label"
    if condition in ("reads", "writes"):
        if token in _PATH_CLASSES:
            return None
        if token == _ENVIRONMENT:
            return (
                None if condition == "reads" else "`environment` is only something a command reads"
            )
        if token == _ROOT:
            if condition != "writes":
                return "`workspace-root` is only a condition on writes"
            if decision == "allow":
                return "`workspace-root` cannot allow (it only singles out the workspace itself)"
            return None
        if token.startswith(_PATH_STARTS):
            return None
        return (
            f"its {condition} token {token!r} is neither a path class "
            f"({', '.join(PATH_CLASSES)}) nor a glob of a resolved path "
            "(which starts with `/`, `~`, `./` or `**/`)"
        )
    if condition == "executes":
        if token in _EXECUTE_KINDS or token in _ORIGINS:
            return None
        return f"its executes token {token!r} is neither a kind ({', '.join(sorted(_EXECUTE_KINDS))}) nor an origin ({', '.join(sorted(_ORIGINS))})"
    if condition == "network":
        return None  # kinds, address classes, and any other token is a host glob
    if condition == "binds":
        name = token.removeprefix("name:")
        if token in _BIND_FORMS or (name and set(name) <= _NAME_CHARACTERS):
            return None
        return f"its binds token {token!r} is neither a bind form nor a glob of names"
    if token in _LIFETIMES:
        return None
    return f"its lifetime token {token!r} is not one of {', '.join(sorted(_LIFETIMES))}"


def condition_problem(condition: str, tokens: Sequence[str], *, decision: str) -> str | None:
    """The problem with a condition's tokens, as a clause, or ``None``."""
    for token in tokens:
        problem = _token_problem(condition, token, decision=decision)
        if problem is not None:
            return problem
    return None


class _Paths:
    """The path dimension of ``reads`` / ``writes``."""

    __slots__ = ("classes", "globs", "root")

    def __init__(self, classes: frozenset[str], globs: tuple[Glob, ...], *, root: bool) -> None:
        self.classes = classes
        self.globs = globs
        self.root = root

    def __bool__(self) -> bool:
        return bool(self.classes or self.globs or self.root)

    def hits(self, path: EffectPath, roots: Collection[str]) -> bool:
        if self.classes.intersection(path.classes):
            return True
        if self.root and path.value is not None and _is_root(path.value, roots):
            return True
        return path.value is not None and any(glob.matches(path.value) for glob in self.globs)

    def permits(self, path: EffectPath) -> bool:
        if set(path.classes) <= self.classes:
            return True
        if path.value is None or path.pattern or "unknown" in path.classes:
            return False
        return any(glob.matches(path.value) for glob in self.globs)


def _is_root(value: str, roots: Collection[str]) -> bool:
    """True when ``value`` is a workspace root or a directory above one."""
    if value in (".", "./", "/", "~"):
        return True
    stem = value.rstrip("/")
    return any(root == stem or root.startswith(stem + "/") for root in roots)


class Condition:
    """
    One effect condition of one rule, compiled.

    Attributes:
        name: ``reads``, ``writes``, ``executes``, ``network``, ``binds`` or ``lifetime``.
        tokens: The tokens as written.
    """

    __slots__ = (
        "_actions",
        "_environment",
        "_kinds",
        "_names",
        "_origins",
        "_paths",
        "_recursive",
        "_targets",
        "_vias",
        "name",
        "tokens",
    )

    def __init__(
        self,
        name: str,
        tokens: Sequence[str],
        *,
        actions: Collection[WriteAction] = (),
        recursive: bool | None = None,
    ) -> None:
        self.name = name
        self.tokens = tuple(tokens)
        self._actions = frozenset(actions)
        self._recursive = recursive
        self._vias = tuple(compile_glob(t[4:], path=False) for t in tokens if t.startswith("via:"))
        plain = [t for t in tokens if not t.startswith("via:")]
        self._environment = name == "reads" and _ENVIRONMENT in plain
        self._paths = _Paths(frozenset(), (), root=False)
        self._kinds: frozenset[str] = frozenset()
        self._origins: frozenset[str] = frozenset()
        self._targets: frozenset[str] = frozenset()
        self._names: tuple[Glob, ...] = ()
        if name in ("reads", "writes"):
            self._paths = _Paths(
                frozenset(t for t in plain if t in _PATH_CLASSES),
                tuple(compile_glob(t, path=True) for t in plain if t.startswith(_PATH_STARTS)),
                root=_ROOT in plain,
            )
        elif name == "executes":
            self._kinds = frozenset(t for t in plain if t in _EXECUTE_KINDS)
            self._origins = frozenset(t for t in plain if t in _ORIGINS)
        elif name == "network":
            self._kinds = frozenset(t for t in plain if t in _NETWORK_KINDS)
            self._targets = frozenset(t for t in plain if t in _ADDRESSES)
            self._names = tuple(
                compile_glob(t.lower(), path=False)
                for t in plain
                if t not in _NETWORK_KINDS and t not in _ADDRESSES
            )
        elif name == "binds":
            self._kinds = frozenset(t for t in plain if t in _BIND_FORMS)
            self._names = tuple(
                compile_glob(t.removeprefix("name:"), path=False)
                for t in plain
                if t not in _BIND_FORMS
            )
        else:
            self._kinds = frozenset(t for t in plain if t in _LIFETIMES)

    def __repr__(self) -> str:
        return f"Condition({self.name!r}, {list(self.tokens)!r})"

    def _via(self, via: str) -> bool:
        return not self._vias or any(glob.matches(via) for glob in self._vias)

    def _fits(self, effect: Effect, roots: Collection[str], *, every: bool) -> bool:
        """Whether ``effect`` fits in every dimension this condition names."""
        if _CONDITION_OF.get(type(effect)) != self.name:
            return False
        if isinstance(effect, ReadEnvironment):
            return self._environment and self._via(effect.via)
        if isinstance(effect, Read | Write):
            if not self._paths or not self._via(effect.via):
                return False
            if isinstance(effect, Write):
                if self._actions and effect.action not in self._actions:
                    return False
                if self._recursive is not None and effect.recursive != self._recursive:
                    return False
            return (
                self._paths.permits(effect.path) if every else self._paths.hits(effect.path, roots)
            )
        if isinstance(effect, Opaque) or not self._via(effect.via):
            return False  # what is not known fits no condition
        if isinstance(effect, Execute):
            return (not self._kinds or effect.kind in self._kinds) and (
                not self._origins or effect.origin in self._origins
            )
        if isinstance(effect, Network):
            if self._kinds and effect.kind not in self._kinds:
                return False
            if not (self._targets or self._names):
                return True
            if effect.address in self._targets:
                return True
            host = _host(effect.target)
            return host is not None and any(glob.matches(host) for glob in self._names)
        if isinstance(effect, Lifetime):
            return not self._kinds or effect.kind in self._kinds
        if isinstance(effect, Bind):
            if self._kinds and effect.via not in self._kinds:
                return False
            if not self._names:
                return True
            return effect.name is not None and any(
                glob.matches(effect.name) for glob in self._names
            )
        return False

    def hits(self, effect: Effect, roots: Collection[str] = ()) -> bool:
        """For ``decline`` and ``ask``: the effect is of this kind and fits (any class counts)."""
        return self._fits(effect, roots, every=False)

    def permits(self, effect: Effect) -> bool:
        """For ``allow``: the effect is of this kind and every fact it rests on is listed."""
        return self._fits(effect, (), every=True)


def compile_condition(
    name: str,
    tokens: Sequence[str],
    *,
    actions: Collection[WriteAction] = (),
    recursive: bool | None = None,
) -> Condition:
    """Compile one condition's tokens (validated first with `condition_problem`)."""
    return Condition(name, tokens, actions=actions, recursive=recursive)


def _host(target: str | None) -> str | None:
    """The host of a network target (``https://user@Host:443/x`` → ``host``), lower-cased."""
    if target is None:
        return None
    text = target
    if "://" in text:
        text = text.split("://", 1)[1]
    text = text.split("/", 1)[0].rsplit("@", 1)[-1]
    if text.startswith("["):
        return text[1:].split("]", 1)[0].lower()
    if text.count(":") == 1:
        text = text.split(":", 1)[0]
    return text.lower() or None


# ───────────────────────── describing effects ─────────────────────────


def path_shown(path: EffectPath) -> str:
    """A path for a sentence: its value (or what was written), and its classes."""
    shown = path.value if path.value is not None else path.written
    if not shown:
        # Named by no argument (a program's own directory, only known when it runs).
        return f"a place only known when it runs ({', '.join(path.classes)})"
    return f"`{shorten_quoted(shown)}` ({', '.join(path.classes)})"


_EXECUTE_WORDS: Final[Mapping[str, str]] = {
    "program": "runs a program",
    "shell_text": "runs shell text",
    "code": "runs code",
    "expansion": "expands text a second time, which runs any expansion in it",
    "configured": "may run code its configuration names",
}
_LIFETIME_WORDS: Final[Mapping[str, str]] = {
    "background": "runs in the background",
    "detached": "detaches from the call",
    "unbounded": "may never end",
    "loop": "runs commands in a loop",
}


def describe(effect: Effect) -> str:
    """
    What an effect does, as a clause without a subject ("writes `~/.bashrc` (home, persistence)").

    Examples:
        >>> from gateway.effects import Lifetime
        >>> describe(Lifetime(kind="background", via="&"))
        'runs in the background (`&`)'
    """
    if isinstance(effect, Read):
        what = "reads the names in" if effect.metadata else "reads"
        below = " and everything below it" if effect.recursive else ""
        return f"{what} {path_shown(effect.path)}{below}"
    if isinstance(effect, ReadEnvironment):
        if effect.variable is not None:
            return f"reads `${shorten_quoted(effect.variable)}`, a variable from outside that is not declared harmless to show"
        return f"reads the whole environment (`{shorten_quoted(effect.via)}`)"
    if isinstance(effect, Write):
        below = " and everything below it" if effect.recursive else ""
        return f"{WRITE_VERBS.get(effect.action, 'writes')} {path_shown(effect.path)}{below}"
    if isinstance(effect, Execute):
        if effect.kind == "number":
            value = f"`{shorten_quoted(effect.text)}`" if effect.text is not None else "a value"
            origin = {
                "literal": "written in the call",
                "call_bound": "set by the call",
                "unknown": "only known when it runs",
            }[effect.origin]
            return f"evaluates {value} as a number (`{effect.via}`), a value {origin}"
        text = f": `{shorten_quoted(effect.text)}`" if effect.text is not None else ""
        return f"{_EXECUTE_WORDS[effect.kind]} (`{shorten_quoted(effect.via)}`){text}"
    if isinstance(effect, Network):
        target = (
            f"`{shorten_quoted(effect.target)}`"
            if effect.target is not None
            else "a target only known when it runs"
        )
        verb = {"connect": "connects to", "listen": "listens on", "resolve": "looks up"}[
            effect.kind
        ]
        return (
            f"{verb} {target} ({effect.address.replace('_', '-')}, `{shorten_quoted(effect.via)}`)"
        )
    if isinstance(effect, Lifetime):
        return f"{_LIFETIME_WORDS[effect.kind]} (`{shorten_quoted(effect.via)}`)"
    if isinstance(effect, Privilege):
        user = f"`{effect.user}`" if effect.user is not None else "a user only known when it runs"
        return f"runs as {user} (`{effect.via}`)"
    if isinstance(effect, ChangeDirectory):
        return f"moves to {path_shown(effect.path)} (`{effect.via}`)"
    if isinstance(effect, Opaque):
        return effect.reason
    name = f"`{effect.name}`" if effect.name is not None else "a name only known when it runs"
    kinds = {
        "set": "the shell option",
        "shopt": "the shell option",
        "trap": "a trap on",
        "alias": "the alias",
        "function": "the function",
        "setting": "the program's setting",
    }
    what = kinds.get(effect.via, "")
    return f"sets {what + ' ' if what else ''}{name} (`{effect.via}`)"
