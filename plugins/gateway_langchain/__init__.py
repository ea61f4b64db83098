"""
The gateway in LangChain v1 agents: an agent middleware that reviews every tool call.

`GatewayMiddleware` goes in ``create_agent(..., middleware=[...])``. Its
``awrap_tool_call`` runs before each tool:

* ``allow`` runs the tool (LangChain has no permission checks of its own, so
  an allow the plan does not found runs too, as the tool would without the
  gateway);
* ``decline`` does not run it, and answers with an error `ToolMessage`
  (``status="error"``) carrying the gateway's reason, which the model sees;
* ``ask`` goes to the ``ask`` callback when one was given; otherwise, when the
  agent has a checkpointer, the run pauses with LangChain's own
  human-in-the-loop interrupt, one per call, as ``HumanInTheLoopMiddleware``
  raises it in ``per_call`` mode: the value is a ``ToolApprovalRequest``
  (``{"type": "tool_approval", "tool_call_id", "name", "args",
  "description"}``, the description being the rule's reason), answered with
  an ``approve`` or ``reject`` decision keyed by the interrupt's id. Several
  calls of one turn pause together; resume them all at once::

      result = await agent.ainvoke(inputs, config)
      while result.get("__interrupt__"):
          decisions = {i.id: {"type": "approve"} for i in result["__interrupt__"]}
          result = await agent.ainvoke(Command(resume=decisions), config)

  With neither, the call is declined.

Verdicts are remembered by tool-call id, so when a resumed run replays the
tool step the gateway is not asked again and the interrupt receives the
person's answer, which is recorded in the audit log (``host.decided``) with
every outcome. A gateway that crashes or hangs past ``timeout`` declines.
Only the async path (``ainvoke`` / ``astream``) is supported: the gateway is
asynchronous, and the synchronous path raises rather than run a tool
unreviewed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, Final, Union

from gateway_guard import (
    DEFAULT_TIMEOUT,
    AskPerson,
    Reviewer,
    VerdictMemory,
    ask_and_record,
    guarded_decision,
    guarded_outcome,
    host_decision,
)
from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.human_in_the_loop import (
    ApproveDecision,
    RejectDecision,
    ToolApprovalRequest,
)
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command, interrupt
from pydantic import Discriminator

from gateway import ToolCall, Verdict

__all__ = ["DECISION_SCHEMA", "HOST", "GatewayMiddleware"]

HOST: Final = "langchain"

DECISION_SCHEMA: Final[Any] = Annotated[
    Union[ApproveDecision, RejectDecision],  # noqa: UP007 -- a discriminated union of TypedDicts
    Discriminator("type"),
]
"""
What a person may answer an interrupt with: ``{"type": "approve"}`` or
``{"type": "reject", "message": …}``. No ``edit``: an edited call is not the
call the gateway reviewed. LangGraph checks the answer against it.
"""

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
        decision = host_decision(verdict)
        if decision == "ask":
            allowed, reason = await self._ask(request, call, verdict)
        else:
            # LangChain has no checks of its own: what is left to the host runs.
            allowed, reason = decision in ("allow", "host"), verdict.reason
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
            allowed = await ask_and_record(
                self.ask, self.gateway, call, verdict, within=self.timeout
            )
            return allowed, verdict.reason
        pause = self.interrupt_on_ask
        if pause is None:
            pause = _has_checkpointer(request)
        if not pause:
            # Nobody to ask: recorded as such.
            await ask_and_record(None, self.gateway, call, verdict, within=self.timeout)
            return False, verdict.reason + _NO_PERSON
        tool_call = request.tool_call
        value = ToolApprovalRequest(
            type="tool_approval",
            tool_call_id=tool_call.get("id") or "",
            name=call.tool,
            args=dict(call.input),
            description=verdict.reason,
        )
        # Raises GraphInterrupt the first time (it must propagate); on resume it
        # returns the person's answer, which LangGraph checked against the schema.
        answer = interrupt(value, response_schema=DECISION_SCHEMA)
        allowed, reason = self._accepts(answer, verdict)
        note = answer.get("message") if isinstance(answer, Mapping) else None
        await guarded_decision(
            self.gateway,
            call.call_id,
            "allow" if allowed else "decline",
            by="person",
            host=HOST,
            detail=note if isinstance(note, str) else None,
        )
        return allowed, reason

    @staticmethod
    def _accepts(answer: Any, verdict: Verdict) -> tuple[bool, str]:
        """Whether a person's decision lets the call run: only ``{"type": "approve"}``."""
        if isinstance(answer, Mapping) and answer.get("type") == "approve":
            return True, "A person allowed the call."
        message = answer.get("message") if isinstance(answer, Mapping) else None
        if isinstance(message, str) and message.strip():
            return False, f"A person declined the call: {message.strip()}"
        return False, "A person declined the call."
