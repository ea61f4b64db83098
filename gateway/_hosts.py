"""
Host formats: what agent hosts send and expect, mapped to and from the gateway's vocabulary.

The one place the Claude Code hook format is spelled, shared by the
``gateway hook claude-code`` command and the approval service's
``POST /hooks/claude-code`` endpoint, so the two can never disagree.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from gateway._calls import ToolCall
from gateway._verdicts import Verdict

__all__ = [
    "ClaudeCodeEvent",
    "claude_code_call",
    "claude_code_permission_response",
    "claude_code_pre_tool_use_response",
]

_CLAUDE_DECISION: Final = {"allow": "allow", "ask": "ask", "decline": "deny"}


class ClaudeCodeEvent(msgspec.Struct, frozen=True, kw_only=True):
    """
    A Claude Code hook event (``PreToolUse``, ``PermissionRequest``, ``PostToolUse``).

    Unknown fields are accepted and ignored: Claude Code adds fields over time,
    and a hook that rejected them would block every call.
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


def claude_code_call(event: ClaudeCodeEvent) -> ToolCall:
    """The tool call a Claude Code hook event proposes."""
    return ToolCall(
        event.tool_name,
        dict(event.tool_input),
        call_id=event.tool_use_id,
        session_id=event.session_id,
        cwd=event.cwd,
        host="claude-code",
    )


def claude_code_pre_tool_use_response(verdict: Verdict) -> dict[str, Any]:
    """
    The ``PreToolUse`` hook output for a verdict (``decline`` becomes ``deny``).

    A deferred verdict (shadow mode) is no decision at all, an empty output:
    Claude Code then applies its own permission rules, as without the gateway.
    """
    if verdict.defer:
        return {}
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": _CLAUDE_DECISION[verdict.decision],
            "permissionDecisionReason": verdict.reason,
        }
    }


def claude_code_permission_response(verdict: Verdict) -> dict[str, Any]:
    """
    The ``PermissionRequest`` hook output for a verdict.

    Claude Code asks this hook when it would show its own permission dialog:
    ``allow`` and ``decline`` answer it; ``ask`` leaves the dialog to the user
    (an empty output), and so does a deferred verdict (shadow mode).
    """
    if verdict.defer:
        return {}
    decision: Literal["allow", "deny"] | None = (
        "allow"
        if verdict.decision == "allow"
        else "deny"
        if verdict.decision == "decline"
        else None
    )
    if decision is None:
        return {}
    body: dict[str, Any] = {"behavior": decision}
    if decision == "deny":
        body["message"] = verdict.reason
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": body}}
