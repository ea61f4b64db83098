"""
The gateway in LangChain v1 agents: an agent middleware that reviews every tool call.

`GatewayMiddleware` goes in ``create_agent(..., middleware=[...])``. Its
``awrap_tool_call`` runs before each tool:

* ``allow`` runs the tool;
* ``decline`` does not run it, and answers with an error `ToolMessage`
  (``status="error"``) carrying the gateway's reason, which the model sees;
* ``ask`` goes to the ``ask`` callback when one was given; otherwise, when the
  agent has a checkpointer, the run pauses with a LangGraph ``interrupt()``
  whose value describes the call (a person resumes it with
  ``Command(resume={"decision": "allow"})`` or ``{"decision": "decline"}``);
  with neither, the call is declined.

Verdicts are remembered by tool-call id, so when a resumed run replays the
tool step the gateway is not asked again and the interrupt receives the
person's answer. A gateway that crashes or hangs past ``timeout`` declines.
Only the async path (``ainvoke`` / ``astream``) is supported: the gateway is
asynchronous, and the synchronous path raises rather than run a tool
unreviewed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from gateway_guard import (
    DEFAULT_TIMEOUT,
    AskPerson,
    Reviewer,
    VerdictMemory,
    ask_person,
    guarded_outcome,
)
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command, interrupt

from gateway import ToolCall, Verdict

__all__ = ["HOST", "INTERRUPT_KIND", "GatewayMiddleware"]

HOST: Final = "langchain"
INTERRUPT_KIND: Final = "agent_gateway.ask"
"""The ``kind`` of the interrupt value the middleware raises for an ``ask``."""

# LangGraph puts the run's checkpointer in the config under this key (its
# public re-export is deprecated); without one an interrupt could never resume.
_CHECKPOINTER_KEY: Final = "__pregel_checkpointer"
_NO_PERSON: Final = " No person could be asked (no ask callback, no checkpointer to pause the run), so it was not run."


def _has_checkpointer(request: ToolCallRequest) -> bool:
    config = getattr(request.runtime, "config", None) or {}
    configurable = config.get("configurable") or {}
    return configurable.get(_CHECKPOINTER_KEY) is not None


class GatewayMiddleware(AgentMiddleware):
    """
    Reviews every tool call of a LangChain agent through the gateway.

    Args:
        gateway: The gateway (or any `gateway_guard.Reviewer`).
        ask: Asks a person about calls the approvers leave to a human (instead
            of pausing the run).
        timeout: Seconds to wait for a verdict (and for the person) before declining.
        interrupt_on_ask: Pause the run with ``interrupt()`` for ``ask``;
            ``None`` (the default) pauses only when the agent has a checkpointer.
        remember: Verdicts kept by tool-call id so a replayed call is not reviewed again.
    """

    def __init__(
        self,
        gateway: Reviewer,
        *,
        ask: AskPerson | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        interrupt_on_ask: bool | None = None,
        remember: int = 4096,
    ) -> None:
        super().__init__()
        self.gateway = gateway
        self.ask = ask
        self.timeout = timeout
        self.interrupt_on_ask = interrupt_on_ask
        self._memory = VerdictMemory(remember)

    async def review(self, request: ToolCallRequest) -> tuple[ToolCall, Verdict]:
        """The verdict for the request's tool call, reviewed once per tool-call id."""
        tool_call = request.tool_call
        call_id = tool_call.get("id") or None
        args: Any = tool_call.get("args")  # a dict by type; a misbehaving model may send otherwise
        call = ToolCall(
            tool_call["name"],
            dict(args) if isinstance(args, Mapping) else {"args": args},
            call_id=call_id,
            host=HOST,
        )
        return await self._memory.review(self.gateway, call, within=self.timeout)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Run the tool only if the gateway (or a person it defers to) allows it."""
        call, verdict = await self.review(request)
        if verdict.decision == "ask":
            allowed, reason = await self._ask(request, call, verdict)
        else:
            allowed, reason = verdict.decision == "allow", verdict.reason
        if not allowed:
            return ToolMessage(
                content=reason,
                tool_call_id=request.tool_call.get("id") or "",
                name=call.tool,
                status="error",
            )
        try:
            result = await handler(request)
        except Exception as error:
            await guarded_outcome(self.gateway, call.call_id, "failed", type(error).__name__)
            raise
        failed = isinstance(result, ToolMessage) and result.status == "error"
        await guarded_outcome(self.gateway, call.call_id, "failed" if failed else "succeeded")
        return result

    async def _ask(
        self, request: ToolCallRequest, call: ToolCall, verdict: Verdict
    ) -> tuple[bool, str]:
        if self.ask is not None:
            allowed = await ask_person(self.ask, call, verdict, within=self.timeout)
            return allowed, verdict.reason
        pause = self.interrupt_on_ask
        if pause is None:
            pause = _has_checkpointer(request)
        if not pause:
            return False, verdict.reason + _NO_PERSON
        # Raises GraphInterrupt the first time (it must propagate); on resume it
        # returns the person's answer.
        answer = interrupt(
            {
                "kind": INTERRUPT_KIND,
                "tool": call.tool,
                "input": call.input,
                "call_id": call.call_id,
                "reason": verdict.reason,
                "digest": verdict.digest,
            }
        )
        return self._accepts(answer, verdict)

    @staticmethod
    def _accepts(answer: Any, verdict: Verdict) -> tuple[bool, str]:
        """Whether a resume value allows the call: ``{"decision": "allow"}``, bound to the digest if it names one."""
        if not isinstance(answer, Mapping) or answer.get("decision") != "allow":
            note = answer.get("note") if isinstance(answer, Mapping) else None
            return False, str(note) if note else "A person declined the call."
        digest = answer.get("digest")
        if digest is not None and digest != verdict.digest:
            return (
                False,
                "The approval names a different plan digest than the call's, so it was not run.",
            )
        return True, "A person allowed the call."
