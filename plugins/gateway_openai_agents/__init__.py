"""
The gateway in the OpenAI Agents SDK (``openai-agents``): guardrails, shell approvals, interruptions.

`OpenAIAgentsGuard` wraps a `gateway.Gateway` and hands the SDK the three hooks
it has for deciding whether a tool may run:

* **Function tools** — `OpenAIAgentsGuard.guard` adds a tool input guardrail
  (`OpenAIAgentsGuard.input_guardrail`) and a ``needs_approval`` function to a
  `FunctionTool`. ``allow`` runs the tool; ``decline`` rejects the call with
  the gateway's reason, which the model sees instead of the tool's output;
  ``ask`` makes ``needs_approval`` true, so the run stops with an interruption
  a person resolves (``RunState.approve`` / ``reject``).
* **The shell tool** — `OpenAIAgentsGuard.shell_tool` builds a `ShellTool` whose
  ``needs_approval`` reviews the commands of the shell *action* (they are not
  tool arguments) and whose ``on_approval`` rejects a declined call at once;
  an ``ask`` becomes an interruption (or goes to the ``ask`` callback).
* **Interruptions** — `OpenAIAgentsGuard.resolve_interruptions` approves or
  rejects the pending calls of a ``RunState`` from gateway verdicts and
  returns those only a person can decide.

A call is reviewed once per call id. Every failure of the gateway — a crash, a
hang past ``timeout`` — is a decline, and a guardrail that raises stops the
run; nothing fails open.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from agents import (
    FunctionTool,
    RunContextWrapper,
    RunState,
    ShellActionRequest,
    ShellExecutor,
    ShellTool,
    ToolApprovalItem,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)
from agents.tool import ShellOnApprovalFunction
from gateway_guard import DEFAULT_TIMEOUT, AskPerson, Reviewer, VerdictMemory, ask_person

from gateway import ToolCall, Verdict, strictness

__all__ = ["HOST", "OpenAIAgentsGuard", "shell_commands"]

HOST: Final = "openai-agents"
_NOBODY_TO_ASK: Final = " No person was asked, so the call is rejected."


def shell_commands(raw_item: Any) -> list[str]:
    """The commands of a shell call's action (a model output item, as object or dict)."""
    action = (
        raw_item.get("action")
        if isinstance(raw_item, Mapping)
        else getattr(raw_item, "action", None)
    )
    commands = (
        action.get("commands") if isinstance(action, Mapping) else getattr(action, "commands", None)
    )
    if isinstance(commands, str) or not isinstance(commands, Sequence):
        return []
    return [str(command) for command in commands if command is not None]


def _arguments(text: str | None) -> dict[str, Any]:
    """A function call's arguments as an object; anything else is kept whole under ``arguments``."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"arguments": text}
    return value if isinstance(value, dict) else {"arguments": value}


class OpenAIAgentsGuard:
    """
    Reviews the tool calls of an OpenAI Agents SDK run through the gateway.

    Args:
        gateway: The gateway (or any `gateway_guard.Reviewer`).
        ask: Asks a person about calls the approvers leave to a human. Without
            it, those calls interrupt the run (``needs_approval``) and a
            guardrail that meets one unapproved rejects it.
        timeout: Seconds to wait for a verdict (and for the person) before declining.
        remember: Verdicts kept by call id so a call is reviewed once.
    """

    def __init__(
        self,
        gateway: Reviewer,
        *,
        ask: AskPerson | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        remember: int = 1024,
    ) -> None:
        self.gateway = gateway
        self.ask = ask
        self.timeout = timeout
        self._memory = VerdictMemory(remember)

    # ── reviewing ──

    async def review(
        self, tool: str, tool_input: dict[str, Any], call_id: str
    ) -> tuple[ToolCall, Verdict]:
        """The verdict for one call, reviewed once per call id (and per input)."""
        call = ToolCall(tool, tool_input, call_id=call_id or None, host=HOST)
        return await self._memory.review(self.gateway, call, within=self.timeout)

    async def review_shell(
        self, tool: str, commands: Sequence[str], call_id: str
    ) -> tuple[ToolCall, Verdict]:
        """
        The verdict for a shell action: each command reviewed as its own call, the strictest wins.

        The commands run one after another, each on its own, so each is planned
        on its own (joining them could read one command's text as part of the
        next). An action without commands is declined.
        """
        if not commands:
            call = ToolCall(tool, {"command": ""}, call_id=call_id or None, host=HOST)
            return call, Verdict(
                decision="decline",
                reason="The shell action has no commands, so there is nothing to review.",
                digest="",
                call_id=call.call_id,
            )
        results = [
            await self.review(
                tool,
                {"command": command},
                call_id if len(commands) == 1 or not call_id else f"{call_id}#{index}",
            )
            for index, command in enumerate(commands)
        ]
        return max(results, key=lambda result: strictness(result[1].decision))

    async def review_item(self, item: ToolApprovalItem) -> tuple[ToolCall, Verdict]:
        """The verdict for a pending approval (a function or shell call)."""
        name = item.name or ""
        call_id = item.call_id or ""
        commands = shell_commands(item.raw_item)
        if commands:
            return await self.review_shell(name, commands, call_id)
        return await self.review(name, _arguments(item.arguments), call_id)

    # ── function tools ──

    async def _input_guardrail(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        context = data.context
        call, verdict = await self.review(
            context.tool_name, _arguments(context.tool_arguments), context.tool_call_id
        )
        if verdict.decision == "allow":
            return ToolGuardrailFunctionOutput.allow(output_info=verdict)
        if verdict.decision == "ask":
            if context.is_tool_approved(context.tool_name, context.tool_call_id):
                return ToolGuardrailFunctionOutput.allow(output_info=verdict)
            if await ask_person(self.ask, call, verdict, within=self.timeout):
                return ToolGuardrailFunctionOutput.allow(output_info=verdict)
            reason = verdict.reason if self.ask is not None else verdict.reason + _NOBODY_TO_ASK
            return ToolGuardrailFunctionOutput.reject_content(reason, output_info=verdict)
        return ToolGuardrailFunctionOutput.reject_content(verdict.reason, output_info=verdict)

    @property
    def input_guardrail(self) -> ToolInputGuardrail[Any]:
        """
        A tool input guardrail for function tools.

        ``allow`` lets the tool run; ``decline`` rejects it with the gateway's
        reason (the model sees it instead of the output); ``ask`` lets it run
        only if a person already approved the call (``RunState.approve``) or
        the ``ask`` callback says yes.
        """
        return ToolInputGuardrail(guardrail_function=self._input_guardrail, name="agent-gateway")

    def guard(self, tool: FunctionTool) -> FunctionTool:
        """
        A copy of ``tool`` that the gateway reviews before every call.

        Adds the input guardrail, and a ``needs_approval`` that interrupts the
        run when the verdict is ``ask`` and there is no ``ask`` callback (a
        person then approves or rejects through ``RunState``).
        """

        async def needs_approval(
            context: RunContextWrapper[Any], arguments: dict[str, Any], call_id: str
        ) -> bool:
            if self.ask is not None:
                return False
            _, verdict = await self.review(tool.name, dict(arguments), call_id)
            return verdict.decision == "ask"

        return dataclasses.replace(
            tool,
            tool_input_guardrails=[*(tool.tool_input_guardrails or []), self.input_guardrail],
            needs_approval=needs_approval,
        )

    # ── the shell tool ──

    async def shell_needs_approval(
        self,
        context: RunContextWrapper[Any],
        action: ShellActionRequest,
        call_id: str,
        *,
        tool: str = "shell",
    ) -> bool:
        """The shell tool's ``needs_approval``: true unless the gateway allows every command."""
        _, verdict = await self.review_shell(tool, action.commands, call_id)
        return verdict.decision != "allow"

    async def shell_on_approval(
        self, context: RunContextWrapper[Any], item: ToolApprovalItem
    ) -> Mapping[str, Any]:
        """
        The shell tool's ``on_approval``: reject a decline at once; an ``ask`` goes to a person.

        When there is no ``ask`` callback, the answer names no decision, and the
        SDK keeps the call pending: the run ends with it in ``interruptions``.
        """
        call, verdict = await self.review_item(item)
        if verdict.decision == "allow":
            return {"approve": True}
        if verdict.decision == "decline":
            return {"approve": False, "reason": verdict.reason}
        if self.ask is None:
            return {}
        if await ask_person(self.ask, call, verdict, within=self.timeout):
            return {"approve": True}
        return {"approve": False, "reason": verdict.reason}

    def shell_tool(self, executor: ShellExecutor, *, name: str = "shell") -> ShellTool:
        """
        A local `ShellTool` whose every action the gateway reviews before ``executor`` runs it.

        The gateway must treat ``name`` as a shell tool whose command is in the
        ``command`` field (``shell`` is one by default: ``[[shell-tools]]``).
        """

        async def needs_approval(
            context: RunContextWrapper[Any], action: ShellActionRequest, call_id: str
        ) -> bool:
            return await self.shell_needs_approval(context, action, call_id, tool=name)

        on_approval = cast("ShellOnApprovalFunction", self.shell_on_approval)
        return ShellTool(
            executor=executor, name=name, needs_approval=needs_approval, on_approval=on_approval
        )

    # ── interruptions ──

    async def resolve_interruptions(self, state: RunState[Any]) -> list[ToolApprovalItem]:
        """
        Approve or reject the run's pending calls from gateway verdicts.

        ``allow`` approves and ``decline`` rejects (with the gateway's reason as
        the message the model sees). An ``ask`` goes to the ``ask`` callback
        when there is one (yes approves, anything else rejects); otherwise it
        stays pending and is returned, for a person to decide before the run is
        resumed with ``Runner.run(agent, state)``.

        Returns:
            The calls still pending.
        """
        pending: list[ToolApprovalItem] = []
        for item in state.get_interruptions():
            call, verdict = await self.review_item(item)
            if verdict.decision == "allow":
                state.approve(item)
            elif verdict.decision == "decline":
                state.reject(item, rejection_message=verdict.reason)
            elif self.ask is None:
                pending.append(item)
            elif await ask_person(self.ask, call, verdict, within=self.timeout):
                state.approve(item)
            else:
                state.reject(item, rejection_message=verdict.reason)
        return pending
