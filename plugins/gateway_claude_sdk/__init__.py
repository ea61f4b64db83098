"""
The gateway in the Claude Agent SDK (``claude-agent-sdk``): a permission callback and hooks.

`ClaudeAgentGuard` wraps a `gateway.Gateway` and hands the SDK what it asks for:

* `ClaudeAgentGuard.hooks`, the ``hooks`` option: a ``PreToolUse`` hook that
  answers every call before the permission flow, in Claude Code's own format
  (``gateway_claude_code``): ``deny`` with the rule's reason, ``ask`` with it,
  ``allow`` only for a founded allow (`gateway.Verdict.founded`), and no
  decision otherwise, so that Claude Code's own checks still run (reading
  ``~/.ssh`` stays blocked). It is registered with ``on_failure="block"``:
  a hook that raises or times out blocks the call. ``PostToolUse`` /
  ``PostToolUseFailure`` hooks record the outcome.
* `ClaudeAgentGuard.can_use_tool`, the ``can_use_tool`` callback: the CLI calls
  it when it would otherwise ask the user (the hook said ``ask``, or Claude
  Code's own rule asks). ``decline`` is `PermissionResultDeny` with the reason;
  a founded ``allow`` is `PermissionResultAllow`; everything else is put to the
  ``ask`` callback (a person), whose answer is recorded in the audit log
  (``host.decided``), and denied when there is nobody to ask.

A call is reviewed once per ``tool_use_id``: when the hook says ``ask`` and the
CLI then calls ``can_use_tool`` for the same call, the verdict is reused. Every
failure of the gateway — a crash, a hang past ``timeout`` — is a deny.

Usage::

    guard = ClaudeAgentGuard(gateway, ask=ask_on_the_terminal)
    options = ClaudeAgentOptions(can_use_tool=guard.can_use_tool, hooks=guard.hooks())
    async with ClaudeSDKClient(options) as client:
        ...
"""

from __future__ import annotations

import json
from typing import Any, Final, cast

from claude_agent_sdk import (
    HookContext,
    HookInput,
    HookJSONOutput,
    HookMatcher,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from claude_agent_sdk.types import HookEvent
from gateway_claude_code import pre_tool_use_output
from gateway_guard import (
    DEFAULT_TIMEOUT,
    AskPerson,
    Reviewer,
    VerdictMemory,
    allow_mode_of,
    ask_and_record,
    guarded_outcome,
    host_decision,
)

from gateway import ToolCall, Verdict
from gateway.config import AllowMode

__all__ = ["HOST", "ClaudeAgentGuard"]

HOST: Final = "claude-agent-sdk"
_NOBODY_TO_ASK: Final = " No person was asked, so the call is denied."


class ClaudeAgentGuard:
    """
    Reviews every tool call of a Claude Agent SDK session through the gateway.

    Args:
        gateway: The gateway (or any `gateway_guard.Reviewer`).
        ask: Asks a person about calls the approvers leave to a human; without
            it, such calls are denied.
        timeout: Seconds to wait for a verdict (and for the person) before denying.
        remember: Verdicts kept by ``tool_use_id`` so a call is reviewed once.
        allow: ``[hosts] allow``: ``founded`` or ``host`` (default: the
            gateway's config, else ``founded``).
        shadow: Record every verdict, and let Claude Code decide every call.
    """

    def __init__(
        self,
        gateway: Reviewer,
        *,
        ask: AskPerson | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        remember: int = 1024,
        allow: AllowMode | None = None,
        shadow: bool = False,
    ) -> None:
        self.gateway = gateway
        self.ask = ask
        self.timeout = timeout
        self.allow = allow_mode_of(gateway, allow)
        self.shadow = shadow
        self._memory = VerdictMemory(remember)

    async def review(
        self,
        tool_name: str,
        tool_input: dict[str, Any],
        tool_use_id: str | None,
        *,
        session_id: str | None = None,
        cwd: str | None = None,
    ) -> tuple[ToolCall, Verdict]:
        """The verdict for one call, reviewed once per ``tool_use_id``."""
        call = ToolCall(
            tool_name,
            dict(tool_input),
            call_id=tool_use_id,
            session_id=session_id,
            cwd=cwd,
            host=HOST,
        )
        return await self._memory.review(self.gateway, call, within=self.timeout)

    async def can_use_tool(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        """
        The SDK's ``can_use_tool`` callback: the CLI is about to ask its user.

        A decline is denied with its reason and a founded allow allowed; any
        other call is what the CLI wanted a person for, so it goes to the
        ``ask`` callback (denied when there is none).
        """
        call, verdict = await self.review(tool_name, tool_input, context.tool_use_id)
        decision = host_decision(verdict, allow=self.allow, shadow=self.shadow)
        if decision == "decline":
            return PermissionResultDeny(message=verdict.reason)
        if decision == "allow":
            return PermissionResultAllow()
        if await ask_and_record(self.ask, self.gateway, call, verdict, within=self.timeout):
            return PermissionResultAllow()
        message = verdict.reason if self.ask is not None else verdict.reason + _NOBODY_TO_ASK
        return PermissionResultDeny(message=message)

    async def pre_tool_use(
        self, hook_input: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        """The ``PreToolUse`` hook: ``deny``, ``ask``, a founded ``allow``, or no decision (Claude Code's checks)."""
        data = cast("dict[str, Any]", hook_input)
        tool_input = data.get("tool_input")
        _, verdict = await self.review(
            str(data.get("tool_name", "")),
            tool_input if isinstance(tool_input, dict) else {},
            tool_use_id or data.get("tool_use_id"),
            session_id=data.get("session_id"),
            cwd=data.get("cwd"),
        )
        decision = host_decision(verdict, allow=self.allow, shadow=self.shadow)
        if decision == "host":
            return {}
        return cast("HookJSONOutput", json.loads(pre_tool_use_output(decision, verdict.reason)))

    async def post_tool_use(
        self, hook_input: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        """The ``PostToolUse`` / ``PostToolUseFailure`` hook: record the outcome; no decision."""
        data = cast("dict[str, Any]", hook_input)
        failed = data.get("hook_event_name") == "PostToolUseFailure"
        error = data.get("error")
        await guarded_outcome(
            self.gateway,
            tool_use_id or data.get("tool_use_id"),
            "failed" if failed else "succeeded",
            error if failed and isinstance(error, str) else None,
        )
        return {}

    def hooks(self, matcher: str | None = None) -> dict[HookEvent, list[HookMatcher]]:
        """
        The ``hooks`` option: review before every matching tool, record after.

        The ``PreToolUse`` matcher blocks on failure (``on_failure="block"``), and
        the CLI's own hook timeout is set a little past the guard's, so that the
        guard's deny, not the CLI's timeout, normally answers.

        Args:
            matcher: Which tools (``"Bash"``, ``"Bash|Write|Edit"``); ``None`` for all.
        """
        cli_timeout = self.timeout + 5.0
        return {
            "PreToolUse": [
                HookMatcher(
                    matcher=matcher,
                    hooks=[self.pre_tool_use],
                    timeout=cli_timeout,
                    on_failure="block",
                )
            ],
            "PostToolUse": [HookMatcher(matcher=matcher, hooks=[self.post_tool_use])],
            "PostToolUseFailure": [HookMatcher(matcher=matcher, hooks=[self.post_tool_use])],
        }
