"""
Claude Code's hook contract: its events in, its answers out, and where its hooks are installed.

Registered in the ``gateway.hosts`` entry-point group as ``claude-code``; the
hook command (``gateway-hook claude-code``), the approval service
(``POST /hooks/claude-code``) and the Claude Agent SDK adapter all answer
Claude Code through this module, so they cannot disagree.

Events (one JSON object on the hook's standard input):

* ``PreToolUse`` (a review): answered ``allow`` / ``deny`` / ``ask`` with the
  rule's reason, or with **no decision** (empty output), which leaves the call
  to Claude Code's own permission checks: what an allow the plan does not found
  gets (`gateway.Verdict.founded`). Claude Code's ``defer`` is not that: it
  parks the call and stops the run for a later resume. A hook installed with
  ``--confine`` answers an allowed ``Bash`` call with ``allow`` and an
  ``updatedInput`` whose command runs the reviewed text through ``gateway
  run``, inside the boundary (`gateway_hooks.Routing`).
* ``PermissionRequest`` (Claude Code is about to ask its user; the event has
  no ``tool_use_id``): linked to its ``PreToolUse`` review by session, tool and
  input; a decline is denied again, anything else left to the dialog.
* ``PostToolUse``, ``PostToolUseFailure``: the outcome is recorded.

Exit 2 blocks a ``PreToolUse`` call with standard error as the reason; any
other failure lets the call run unless the handler has ``"onFailure":
"block"``, which the installer always writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import msgspec
from gateway_hooks import (
    HookAnswer,
    HookEvent,
    HookKind,
    HookReply,
    HookScope,
    gateway_commands,
    gateway_handlers,
    install_events,
    read_event,
    settings_findings,
    uninstall_events,
)

from gateway import ToolCall

__all__ = [
    "EVENTS",
    "HOST",
    "MANAGED_SETTINGS",
    "ClaudeCode",
    "ClaudeCodeEvent",
    "PermissionDecision",
    "PermissionRequestOutput",
    "PreToolUseOutput",
    "claude_code_call",
    "pre_tool_use_output",
]

EVENTS: Final[Mapping[str, HookKind]] = {
    "PreToolUse": "review",
    "PermissionRequest": "permission",
    "PostToolUse": "outcome",
    "PostToolUseFailure": "outcome",
}
"""The events the hook answers, and what each asks."""

_DECISION: Final[Mapping[str, Literal["allow", "deny", "ask"]]] = {
    "allow": "allow",
    "ask": "ask",
    "decline": "deny",
}


class ClaudeCodeEvent(msgspec.Struct, frozen=True, kw_only=True):
    """
    A Claude Code hook event, as its hook reads it.

    Unknown fields are accepted and ignored: Claude Code adds fields over
    time, and a hook that rejected them would block every call.
    """

    hook_event_name: str
    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    permission_mode: str | None = None
    tool_name: str
    tool_input: dict[str, Any] = msgspec.field(default_factory=dict)
    tool_use_id: str | None = None
    tool_response: Any = None
    error: Any = None


class PreToolUseOutput(
    msgspec.Struct, frozen=True, kw_only=True, rename="camel", omit_defaults=True
):
    """
    The ``hookSpecificOutput`` of a ``PreToolUse`` answer.

    ``updated_input`` (``updatedInput``) replaces the tool's whole input; it
    is sent only with ``allow``, for a call routed through ``gateway run``.
    """

    hook_event_name: Literal["PreToolUse"]
    permission_decision: Literal["allow", "deny", "ask"]
    permission_decision_reason: str
    updated_input: dict[str, Any] | None = None


class PermissionDecision(
    msgspec.Struct, frozen=True, kw_only=True, rename="camel", omit_defaults=True
):
    """What a ``PermissionRequest`` answer decides: ``allow``, or ``deny`` with a message."""

    behavior: Literal["allow", "deny"]
    message: str | None = None


class PermissionRequestOutput(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The ``hookSpecificOutput`` of a ``PermissionRequest`` answer."""

    hook_event_name: Literal["PermissionRequest"]
    decision: PermissionDecision


class _Output(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    hook_specific_output: PreToolUseOutput | PermissionRequestOutput


_ENCODER: Final = msgspec.json.Encoder()

MANAGED_SETTINGS: Final = Path("/etc/claude-code/managed-settings.json")
"""Claude Code's managed (administrator's) settings file on Linux; it wins over every other."""


def _json(output: PreToolUseOutput | PermissionRequestOutput) -> str:
    return _ENCODER.encode(_Output(hook_specific_output=output)).decode()


def claude_code_call(event: ClaudeCodeEvent, host: str = "claude-code") -> ToolCall:
    """The tool call a Claude Code hook event proposes."""
    return ToolCall(
        event.tool_name,
        dict(event.tool_input),
        call_id=event.tool_use_id,
        session_id=event.session_id,
        cwd=event.cwd,
        host=host,
    )


def _outcome(event: ClaudeCodeEvent) -> tuple[Literal["succeeded", "failed"], str | None]:
    if event.hook_event_name == "PostToolUseFailure":
        return "failed", event.error if isinstance(event.error, str) else None
    response = event.tool_response
    if isinstance(response, dict) and response.get("interrupted") is True:
        return "failed", "interrupted"
    return "succeeded", None


def pre_tool_use_output(
    decision: str, reason: str, updated_input: dict[str, Any] | None = None
) -> str:
    """
    The ``PreToolUse`` answer for ``allow``, ``ask`` or ``decline`` (``deny``; so is anything else), as JSON text.

    ``updated_input`` goes only with an ``allow``: the input the tool runs with instead.
    """
    permission = _DECISION.get(decision, "deny")
    return _json(
        PreToolUseOutput(
            hook_event_name="PreToolUse",
            permission_decision=permission,
            permission_decision_reason=reason,
            updated_input=updated_input if permission == "allow" else None,
        )
    )


class ClaudeCode:
    """
    Claude Code's hook format (``claude-code``).

    Args:
        name: The host's name (the Claude Agent SDK reuses the format as ``claude-agent-sdk``).
        events: The events installed and answered.
    """

    title = "Claude Code"

    def __init__(self, name: str = "claude-code", events: Mapping[str, HookKind] = EVENTS) -> None:
        self.name = name
        self.events = dict(events)

    # ── answering ──

    def read(self, event: Mapping[str, Any]) -> HookEvent:
        """The gateway's view of one Claude Code event."""
        kind, typed = read_event(event, self.events, ClaudeCodeEvent)
        call = claude_code_call(typed, self.name)
        if kind == "outcome":
            outcome, detail_text = _outcome(typed)
            return HookEvent(
                name=typed.hook_event_name,
                kind=kind,
                call=call,
                outcome=outcome,
                detail=detail_text,
            )
        return HookEvent(name=typed.hook_event_name, kind=kind, call=call)

    def reply(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        """Claude Code's answer: its JSON, or no output (no decision: Claude Code's own checks)."""
        decision = answer.decision
        if event.kind == "outcome" or decision == "host":
            return HookReply()
        if event.kind == "review":
            return HookReply(
                stdout=pre_tool_use_output(decision, answer.reason, answer.updated_input)
            )
        if decision == "allow":
            behavior = PermissionDecision(behavior="allow")
        elif decision == "decline":
            behavior = PermissionDecision(behavior="deny", message=answer.reason)
        else:
            return HookReply()  # ask: Claude Code's own dialog asks the person
        return HookReply(
            stdout=_json(
                PermissionRequestOutput(hook_event_name="PermissionRequest", decision=behavior)
            )
        )

    def denial(self, name: str, reason: str) -> str | None:
        """A ``deny`` for ``PreToolUse`` or ``PermissionRequest`` (for the ``http`` hook type)."""
        if name == "PreToolUse":
            return pre_tool_use_output("decline", reason)
        if name == "PermissionRequest":
            return _json(
                PermissionRequestOutput(
                    hook_event_name="PermissionRequest",
                    decision=PermissionDecision(behavior="deny", message=reason),
                )
            )
        return None

    # ── installing ──

    def settings_file(self, scope: HookScope, project: Path, home: Path) -> Path:
        """``.claude/settings.json`` of the project, or ``~/.claude/settings.json``."""
        return (project if scope == "project" else home) / ".claude" / "settings.json"

    def install(self, settings: dict[str, Any], command: str, timeout: float) -> dict[str, Any]:
        """
        A ``PreToolUse`` hook for every tool that blocks on failure, and outcome hooks.

        ``PermissionRequest`` is not hooked: every call's ``PreToolUse``
        already decided, and the dialog Claude Code then shows is its own.
        """
        guard = {"type": "command", "command": command, "timeout": timeout, "onFailure": "block"}
        record = {"type": "command", "command": command, "timeout": 30}
        groups = {
            "PreToolUse": {"matcher": "*", "hooks": [guard]},
            "PostToolUse": {"matcher": "*", "hooks": [record]},
            "PostToolUseFailure": {"matcher": "*", "hooks": [record]},
        }
        return install_events(settings, groups, self.name)

    def uninstall(self, settings: dict[str, Any]) -> dict[str, Any]:
        """The settings without the gateway's hooks."""
        return uninstall_events(settings, self.name)

    def commands(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """The gateway's hook commands in the settings."""
        return gateway_commands(settings, self.name)

    def problems(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """``PreToolUse`` handlers that would let a call through when the hook cannot start."""
        found = [
            'A PreToolUse hook has no "onFailure": "block": if it cannot start or times out, Claude Code runs the call.'
            for handler in gateway_handlers(settings, "PreToolUse", self.name)
            if handler.get("onFailure") != "block"
        ]
        if not gateway_handlers(settings, "PreToolUse", self.name):
            found.append(
                "No PreToolUse hook runs the gateway, so calls are not reviewed before they run."
            )
        return tuple(dict.fromkeys(found))

    def consulted(
        self, project: Path, home: Path, commands: Sequence[str]
    ) -> list[tuple[bool, str]]:
        """
        Settings that make Claude Code run no hook (``disableAllHooks``) or only managed ones.

        Read from every settings file Claude Code merges: the user's, the
        project's, the project's local one and the managed one
        (`MANAGED_SETTINGS`, where ``allowManagedHooksOnly`` counts).
        """
        files = (
            home / ".claude" / "settings.json",
            project / ".claude" / "settings.json",
            project / ".claude" / "settings.local.json",
            MANAGED_SETTINGS,
        )

        def check(path: Path, settings: Mapping[str, Any]) -> list[str]:
            found = []
            if settings.get("disableAllHooks") is True:
                found.append(
                    f'{path} sets "disableAllHooks": true, so Claude Code runs no hook and '
                    "calls run unreviewed; remove it."
                )
            if path == MANAGED_SETTINGS and settings.get("allowManagedHooksOnly") is True:
                found.append(
                    f'{path} sets "allowManagedHooksOnly": true, so Claude Code skips the '
                    "gateway's hook; add the hook to the managed settings."
                )
            return found

        return settings_findings(files, check, "no settings file turns Claude Code's hooks off.")

    def probe(self, cwd: str) -> dict[str, Any]:
        """A ``PreToolUse`` event for ``ls``."""
        return {
            "session_id": "gateway-doctor",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls", "description": "gateway doctor"},
            "tool_use_id": "gateway-doctor",
        }

    def notes(self) -> tuple[str, ...]:
        """What to know after installing."""
        return (
            "Claude Code reads its hooks when a session starts: restart running sessions.",
            "Every allow the plan does not found (reads outside the project, tools Claude Code gates by path) "
            'is left to Claude Code\'s own checks; set [hosts] allow = "host" to leave every allow to them.',
        )


HOST: Final = ClaudeCode()
"""Claude Code, as the ``claude-code`` entry point of the ``gateway.hosts`` group."""
