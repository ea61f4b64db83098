"""
Cursor's hook contract: shell commands, MCP tool calls and file reads, in Cursor's own format.

Registered in the ``gateway.hosts`` entry-point group as ``cursor``. Cursor
reads ``hooks.json`` (``.cursor/hooks.json`` of a project, ``~/.cursor/hooks.json``):
``{"version": 1, "hooks": {EVENT: [{"command": …}]}}``, and sends one event
on standard input:

* ``beforeShellExecution`` (``command``, ``cwd``): reviewed as the shell tool
  ``Shell``;
* ``beforeMCPExecution`` (``tool_name``, ``tool_input`` as an object or as
  JSON text, and the server's ``url`` or ``command``): reviewed as the MCP tool
  by its own name, so the common MCP shell servers' tools are planned as
  shells (``[[shell-tools]]``);
* ``beforeReadFile`` (``file_path``): reviewed as ``Read``;
* ``afterShellExecution``, ``afterMCPExecution``: the outcome is recorded.

The answer is ``{"permission": "allow" | "deny" | "ask", "user_message": …,
"agent_message": …}`` (``beforeReadFile``: ``allow`` or ``deny`` only). An
allow the plan does not found is answered ``ask`` for shell commands and MCP
calls (Cursor has no "no decision"; asking is never weaker than Cursor's own
rules), and ``allow`` for a file read (Cursor reads files without asking, so
that is its own behaviour). The installer writes ``"failClosed": true``.

The Cursor agent is not distributed through a package registry, so this
format is checked against Cursor's published hooks reference, not against a
running Cursor (see ``docs/hosts/cursor.md``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import msgspec
from gateway_hooks import (
    HookAnswer,
    HookError,
    HookEvent,
    HookKind,
    HookReply,
    HookScope,
    is_gateway_hook,
    read_event,
)

from gateway import ToolCall

__all__ = ["EVENTS", "HOST", "SHELL_TOOL", "Cursor", "CursorEvent", "PermissionOutput"]

SHELL_TOOL: Final = "Shell"
"""The tool name a Cursor shell command is reviewed as (a ``[[shell-tools]]`` entry by default)."""

EVENTS: Final[Mapping[str, HookKind]] = {
    "beforeShellExecution": "review",
    "beforeMCPExecution": "review",
    "beforeReadFile": "review",
    "afterShellExecution": "outcome",
    "afterMCPExecution": "outcome",
}
"""The events the hook answers, and what each asks."""


class CursorEvent(msgspec.Struct, frozen=True, kw_only=True):
    """A Cursor hook event (unknown fields accepted: Cursor adds fields over time)."""

    hook_event_name: str
    conversation_id: str | None = None
    generation_id: str | None = None
    workspace_roots: tuple[str, ...] = ()
    command: str | None = None
    cwd: str | None = None
    tool_name: str | None = None
    tool_input: Any = None
    url: str | None = None
    file_path: str | None = None


class PermissionOutput(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Cursor's answer to a ``before…`` event."""

    permission: Literal["allow", "deny", "ask"]
    user_message: str | None = None
    agent_message: str | None = None


_ENCODER: Final = msgspec.json.Encoder()


def _mcp_input(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise HookError("The beforeMCPExecution event's tool_input is not JSON.") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise HookError("The beforeMCPExecution event's tool_input is not a JSON object.")
    return value


def _call(event: CursorEvent, host: str) -> ToolCall:
    cwd = event.cwd or (event.workspace_roots[0] if event.workspace_roots else None)
    session = event.conversation_id
    name = event.hook_event_name
    if name in ("beforeShellExecution", "afterShellExecution"):
        if event.command is None:
            raise HookError(f"The {name} event has no command.")
        return ToolCall(
            SHELL_TOOL, {"command": event.command}, session_id=session, cwd=cwd, host=host
        )
    if name in ("beforeMCPExecution", "afterMCPExecution"):
        if not event.tool_name:
            raise HookError(f"The {name} event has no tool_name.")
        return ToolCall(
            event.tool_name, _mcp_input(event.tool_input), session_id=session, cwd=cwd, host=host
        )
    if not event.file_path:
        raise HookError(f"The {name} event has no file_path.")
    return ToolCall("Read", {"file_path": event.file_path}, session_id=session, cwd=cwd, host=host)


class Cursor:
    """Cursor's hook format (``cursor``)."""

    name = "cursor"
    title = "Cursor"

    def read(self, event: Mapping[str, Any]) -> HookEvent:
        """The gateway's view of one Cursor event."""
        kind, typed = read_event(event, EVENTS, CursorEvent)
        call = _call(typed, self.name)
        if kind == "outcome":
            return HookEvent(name=typed.hook_event_name, kind=kind, call=call, outcome="succeeded")
        return HookEvent(name=typed.hook_event_name, kind=kind, call=call)

    def reply(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        """Cursor's ``permission`` answer (empty for outcomes)."""
        if event.kind != "review":
            return HookReply()
        reads = event.name == "beforeReadFile"
        decision = answer.decision
        if decision == "decline":
            output = PermissionOutput(
                permission="deny", user_message=answer.reason, agent_message=answer.reason
            )
        elif decision == "allow" or (reads and decision == "host"):
            output = PermissionOutput(permission="allow")
        elif reads:
            # beforeReadFile cannot ask: a read the policy wants a person for is refused.
            reason = f"{answer.reason.rstrip('.')}; Cursor cannot ask about a file read, so it is refused."
            output = PermissionOutput(permission="deny", user_message=reason, agent_message=reason)
        else:
            output = PermissionOutput(
                permission="ask", user_message=answer.reason, agent_message=answer.reason
            )
        return HookReply(stdout=_ENCODER.encode(output).decode())

    def denial(self, name: str, reason: str) -> str | None:
        """A ``deny`` for any ``before…`` event."""
        if not name.startswith("before"):
            return None
        return _ENCODER.encode(
            PermissionOutput(permission="deny", user_message=reason, agent_message=reason)
        ).decode()

    def settings_file(self, scope: HookScope, project: Path, home: Path) -> Path:
        """``.cursor/hooks.json`` of the project, or ``~/.cursor/hooks.json``."""
        return (project if scope == "project" else home) / ".cursor" / "hooks.json"

    def _handlers(self, settings: Mapping[str, Any], event: str) -> list[Mapping[str, Any]]:
        hooks = settings.get("hooks")
        entries = hooks.get(event) if isinstance(hooks, Mapping) else None
        return [
            entry
            for entry in (entries if isinstance(entries, list) else [])
            if isinstance(entry, Mapping) and is_gateway_hook(entry.get("command"), self.name)
        ]

    def install(self, settings: dict[str, Any], command: str, timeout: float) -> dict[str, Any]:
        """The gateway's hook for every event it answers, once, blocking when it fails."""
        hooks = settings.get("hooks")
        table: dict[str, Any] = dict(hooks) if isinstance(hooks, Mapping) else {}
        for event, kind in EVENTS.items():
            entry: dict[str, Any] = {
                "command": command,
                "timeout": int(timeout if kind == "review" else 30),
            }
            if kind == "review":
                entry["failClosed"] = True
            existing = table.get(event)
            result: list[Any] = []
            placed = False
            for item in existing if isinstance(existing, list) else []:
                if isinstance(item, Mapping) and is_gateway_hook(item.get("command"), self.name):
                    if (
                        not placed
                    ):  # the first of ours is replaced in place: installing twice changes nothing
                        result.append(entry)
                        placed = True
                    continue
                result.append(item)
            if not placed:
                result.append(entry)
            table[event] = result
        return {"version": settings.get("version", 1), **settings, "hooks": table}

    def uninstall(self, settings: dict[str, Any]) -> dict[str, Any]:
        """The settings without the gateway's hooks."""
        hooks = settings.get("hooks")
        if not isinstance(hooks, Mapping):
            return dict(settings)
        table: dict[str, Any] = {}
        for event, entries in hooks.items():
            if not isinstance(entries, list):
                table[event] = entries
                continue
            kept = [
                e
                for e in entries
                if not (isinstance(e, Mapping) and is_gateway_hook(e.get("command"), self.name))
            ]
            if kept:
                table[event] = kept
        result = dict(settings)
        if table:
            result["hooks"] = table
        else:
            result.pop("hooks", None)
        return result

    def commands(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """The gateway's hook commands in the settings."""
        found: dict[str, None] = {}
        for event in EVENTS:
            for entry in self._handlers(settings, event):
                found[str(entry["command"])] = None
        return tuple(found)

    def problems(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """Review hooks that are missing or would let a call through when they fail."""
        found = []
        for event, kind in EVENTS.items():
            if kind != "review":
                continue
            handlers = self._handlers(settings, event)
            if not handlers:
                found.append(f"No {event} hook runs the gateway, so those calls are not reviewed.")
            elif any(h.get("failClosed") is not True for h in handlers):
                found.append(
                    f'A {event} hook has no "failClosed": true: if it fails, Cursor runs the call.'
                )
        return tuple(found)

    def consulted(
        self, project: Path, home: Path, commands: Sequence[str]
    ) -> list[tuple[bool, str]]:
        """Nothing to read: Cursor runs every hook in its hooks file (its agent could not be checked here)."""
        return []

    def probe(self, cwd: str) -> dict[str, Any]:
        """A ``beforeShellExecution`` event for ``ls``."""
        return {
            "hook_event_name": "beforeShellExecution",
            "conversation_id": "gateway-doctor",
            "generation_id": "gateway-doctor",
            "workspace_roots": [cwd],
            "command": "ls",
            "cwd": cwd,
        }

    def notes(self) -> tuple[str, ...]:
        """What to know after installing."""
        return ("Cursor reads hooks.json when it starts: restart Cursor.",)


HOST: Final = Cursor()
"""Cursor, as the ``cursor`` entry point of the ``gateway.hosts`` group."""
