"""
Editing hosts' hook settings: find the gateway's own hooks, add them once, take them out.

Claude Code, Codex (``hooks.json``) and Gemini CLI share one shape: each
event maps to a list of *matcher groups*, ``{"matcher": …, "hooks": [handler,
…]}``, and a handler runs ``command``. The gateway's handlers are recognised
by their command (`is_gateway_hook`: ``…/gateway-hook HOST …``, ``…/gateway
hook HOST …`` or ``…/python -m gateway_relay HOST …``), wherever the program lives, so a reinstall replaces an older
one in place and an uninstall takes every one out; everything else in the
file is left as it was.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, Literal

__all__ = [
    "HookScope",
    "gateway_commands",
    "gateway_handlers",
    "install_events",
    "is_gateway_hook",
    "matcher_groups_install",
    "matcher_groups_uninstall",
    "read_settings",
    "settings_findings",
    "uninstall_events",
]

HookScope = Literal["project", "user"]
"""Where a hook is installed: for one project (its settings file) or for the user (all projects)."""


def is_gateway_hook(command: object, host: str) -> bool:
    """Whether a handler's ``command`` runs the gateway's hook for ``host``."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words:
        return False
    program = PurePath(words[0]).name
    if program == "gateway-hook":
        return words[1:2] == [host]
    if program == "gateway":
        return words[1:3] == ["hook", host]
    if program.startswith("python"):
        return words[1:4] == ["-m", "gateway_relay", host]
    return False


def _ours(handler: object, host: str) -> bool:
    return isinstance(handler, Mapping) and is_gateway_hook(handler.get("command"), host)


def matcher_groups_uninstall(groups: object, host: str) -> list[Any]:
    """One event's matcher groups without the gateway's handlers (groups left empty are dropped)."""
    if not isinstance(groups, Sequence) or isinstance(groups, str):
        return []
    kept: list[Any] = []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, Mapping) else None
        if not isinstance(handlers, list) or not any(_ours(h, host) for h in handlers):
            kept.append(group)
            continue
        rest = [handler for handler in handlers if not _ours(handler, host)]
        if rest:
            kept.append({**group, "hooks": rest})
    return kept


def matcher_groups_install(groups: object, group: dict[str, Any], host: str) -> list[Any]:
    """
    One event's matcher groups with ``group`` (the gateway's) in them exactly once.

    It takes the place of the first group that held a gateway handler, so
    installing twice changes nothing; without one it is appended.
    """
    existing = groups if isinstance(groups, Sequence) and not isinstance(groups, str) else []
    result: list[Any] = []
    placed = False
    for item in existing:
        handlers = item.get("hooks") if isinstance(item, Mapping) else None
        if isinstance(handlers, list) and any(_ours(h, host) for h in handlers):
            if not placed:
                result.append(group)
                placed = True
            rest = [handler for handler in handlers if not _ours(handler, host)]
            if rest:
                result.append({**item, "hooks": rest})
            continue
        result.append(item)
    if not placed:
        result.append(group)
    return result


def install_events(
    settings: Mapping[str, Any], groups: Mapping[str, dict[str, Any]], host: str
) -> dict[str, Any]:
    """``settings`` with the gateway's matcher group for each event of ``groups`` (under ``hooks``)."""
    hooks = settings.get("hooks")
    table: dict[str, Any] = dict(hooks) if isinstance(hooks, Mapping) else {}
    for event, group in groups.items():
        table[event] = matcher_groups_install(table.get(event), group, host)
    return {**settings, "hooks": table}


def uninstall_events(settings: Mapping[str, Any], host: str) -> dict[str, Any]:
    """``settings`` without the gateway's handlers for ``host`` in any event (empty ones dropped)."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, Mapping):
        return dict(settings)
    table: dict[str, Any] = {}
    for event, groups in hooks.items():
        kept = matcher_groups_uninstall(groups, host)
        if kept or not isinstance(groups, Sequence) or isinstance(groups, str):
            table[event] = kept or groups
    result = dict(settings)
    if table:
        result["hooks"] = table
    else:
        result.pop("hooks", None)
    return result


def gateway_commands(settings: Mapping[str, Any], host: str) -> tuple[str, ...]:
    """Every gateway hook command for ``host`` in matcher-group ``settings``, each once, in order."""
    found: list[str] = []
    hooks = settings.get("hooks")
    for groups in hooks.values() if isinstance(hooks, Mapping) else ():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, Mapping) else None
            for handler in handlers if isinstance(handlers, list) else ():
                if _ours(handler, host) and handler["command"] not in found:
                    found.append(handler["command"])
    return tuple(found)


def gateway_handlers(settings: Mapping[str, Any], event: str, host: str) -> list[Mapping[str, Any]]:
    """The gateway's handlers for ``host`` under one event of matcher-group ``settings``."""
    hooks = settings.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, Mapping) else None
    handlers: list[Mapping[str, Any]] = []
    for group in groups if isinstance(groups, list) else ():
        inner = group.get("hooks") if isinstance(group, Mapping) else None
        handlers.extend(h for h in (inner if isinstance(inner, list) else ()) if _ours(h, host))
    return handlers


def read_settings(path: Path) -> tuple[dict[str, Any], bool]:
    """
    A settings file's JSON object, and whether the file exists.

    Raises:
        ValueError: It exists but is not a JSON object (one sentence: it is never overwritten).
    """
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}, False
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8"
        raise ValueError(f"Cannot read {str(path)!r} ({reason}); it was left as it is.") from None
    if not text.strip():
        return {}, True
    try:
        value = json.loads(text)
    except ValueError as error:
        raise ValueError(
            f"{str(path)!r} is not valid JSON ({error}); fix it first, it was left as it is."
        ) from None
    if not isinstance(value, dict):
        raise ValueError(f"{str(path)!r} does not hold a JSON object; it was left as it is.")  # noqa: TRY004 -- a bad file, not a bad argument
    return value, True


def settings_findings(
    paths: Sequence[Path],
    check: Callable[[Path, Mapping[str, Any]], Sequence[str]],
    fine: str,
) -> list[tuple[bool, str]]:
    """
    What ``check`` finds wrong in each settings file that exists (a file that cannot be read counts too).

    Each finding is ``(False, sentence)``; with none, ``[(True, fine)]``
    (the form of `gateway_hooks.HookHost.consulted`).
    """
    findings: list[tuple[bool, str]] = []
    for path in paths:
        try:
            settings, _ = read_settings(path)
        except ValueError as error:
            findings.append((False, str(error)))
            continue
        findings.extend((False, sentence) for sentence in check(path, settings))
    return findings or [(True, fine)]
