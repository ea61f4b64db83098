"""
Deciding: from a call admitted at the door to its verdict, within the review's budgets.

`Decider.decide` reads the call (`gateway._gateway._readings`) under the
review's CPU budget, masks the user's request, publishes what the call is
(``call.proposed``, ``plan.ready``, a ``hole.question`` for each heredoc
hole) with the digest every later decision is bound to, and asks the
approver chain about the call and each hole (`gateway._approvers`). Its
answer is kept to give again to an identical call
(`gateway._gateway._replay`).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Final

import msgspec

from gateway._approvers import Outcome, Record, ReviewRequest, combine
from gateway._calls._calls import ToolCall
from gateway._calls._events import CallProposed, HoleQuestion, HoleRef, PlanReady
from gateway._calls._verdicts import Verdict
from gateway._gateway._parts import Parts
from gateway._gateway._readings import Busy, Prepared, Readings, count_unmeasured
from gateway._gateway._recording import ReviewState, decline
from gateway._gateway._replay import Replays
from gateway._observe._telemetry import (
    ATTR_COMMANDS,
    ATTR_HOLES,
    ATTR_PLAN_DIGEST,
    ATTR_QUESTION,
    SPAN_HOLE,
    SPAN_PLAN,
    plan_attributes,
)
from gateway._review._confining import confinement
from gateway._review._intake import Admitted
from gateway._review._masking import RequestMasks
from gateway._work._bounded import BoundedFailure, cpu_account, cpu_left

__all__ = ["Decider"]

_SHELL_FIELD_ERROR: Final = "The command of a shell tool must be a string or a list of strings."


class Decider:
    """Everything one gateway does to a call up to its verdict."""

    def __init__(
        self, parts: Parts, readings: Readings, masks: RequestMasks, replays: Replays
    ) -> None:
        self._parts = parts
        self._readings = readings
        self._masks = masks
        self._replays = replays

    async def decide(
        self, admitted: Admitted, state: ReviewState, span: Any, deadline: float
    ) -> Verdict:
        """
        Everything up to the verdict, within the review's CPU budget (``[gateway] review-cpu``).

        Every call to a worker the review makes — its reading, planning and
        the judging of approvers that use the pool — shares the one budget.
        """
        with cpu_account(self._parts.config.gateway.review_cpu):
            return await self._decide_within(admitted, state, span, deadline)

    async def _decide_within(
        self, admitted: Admitted, state: ReviewState, span: Any, deadline: float
    ) -> Verdict:
        """Everything up to the verdict: read the call, publish what it is, ask the approvers."""
        parts = self._parts
        bus = parts.opened_bus()
        telemetry = parts.telemetry
        readings = self._readings
        call = admitted.call
        call_id = state.call_id
        ids = state.ids
        trace_id, span_id = ids["trace_id"], ids["span_id"]
        halted = bus.halted
        if halted is not None:
            return decline(
                state,
                f"The audit log failed ({halted}), so until the gateway restarts every call is declined: there is no action without audit.",
            )
        if readings.shell_tool(call) is not None:
            with telemetry.span(SPAN_PLAN) as plan_span:
                prepared = await readings.prepare(admitted, deadline)
                if isinstance(prepared, BoundedFailure):
                    telemetry.error(plan_span, prepared.reason, prepared.kind)
                elif isinstance(prepared, Busy):
                    telemetry.error(plan_span, prepared.reason, "busy")
                elif prepared.plan is not None:
                    telemetry.set(plan_span, plan_attributes(prepared.plan))
        else:
            prepared = await readings.prepare(admitted, deadline)
        if isinstance(prepared, Busy):
            return decline(state, prepared.reason)
        if isinstance(prepared, BoundedFailure):
            return decline(
                state,
                f"The call could not be read safely ({prepared.reason}), and the gateway fails closed.",
            )
        plan = prepared.plan
        holes = prepared.holes
        state.digest = prepared.digest
        masked_call = msgspec.structs.replace(
            call,
            input=prepared.masked,
            user_request=await self._masks.mask(call.user_request, prepared.secrets, deadline),
        )
        count_unmeasured(parts, plan)
        attributes: dict[str, str | int | bool | None] = {
            **(plan_attributes(plan) if plan is not None else {}),
            ATTR_PLAN_DIGEST: prepared.digest,
            ATTR_COMMANDS: prepared.commands,
            ATTR_HOLES: len(holes),
        }
        telemetry.set(span, attributes)
        record = Record()
        record.drafts.append(
            CallProposed(
                tool=call.tool,
                input=prepared.masked,
                session_id=call.session_id,
                agent_id=call.agent_id,
                cwd=call.cwd,
                host=call.host,
            )
        )
        record.drafts.append(
            PlanReady(
                shell=prepared.is_shell,
                plan_digest=prepared.digest,
                plan=plan,
                sequence=prepared.sequence,
                commands=prepared.commands,
                holes=len(holes),
                effects=prepared.effects,
            )
        )
        if not prepared.is_shell or prepared.source is not None:
            record.drafts.extend(HoleQuestion(ref=ref, hole=hole) for ref, hole in holes)
        # Nobody records or watches: the events are numbered, not built.
        for draft in record.drafts:
            if bus.recording:
                await bus.publish(
                    msgspec.structs.replace(
                        draft, call_id=call_id, trace_id=trace_id, span_id=span_id
                    )
                )
            else:
                bus.count()
        self._replays.remember(call, prepared, masked_call.user_request)
        if prepared.is_shell and prepared.source is None:
            return decline(state, _SHELL_FIELD_ERROR)
        request = self._request(prepared, masked_call)
        situation = (call.session_id, call.agent_id, call.host, masked_call.user_request)
        memo = prepared.memo.setdefault(situation, {})
        chain = parts.chain
        generations = chain.generations()
        ask = chain.ask
        outcomes: list[tuple[HoleRef | None, Outcome]] = [
            (
                None,
                await ask(request, bus=bus, ids=ids, deadline=deadline, memo=memo, record=record),
            )
        ]
        if parts.config.gateway.ask_holes:
            for ref, hole in holes:
                left = cpu_left()
                if left is not None and left <= 0:
                    # Each question costs the review CPU time: once it is spent, no more are asked.
                    outcomes.append((ref, Outcome("ask", self._spent_on_holes(), None, None)))
                    break
                with telemetry.span(
                    SPAN_HOLE, {ATTR_QUESTION: f"{ref.statement}.{ref.heredoc}.{ref.hole}"}
                ):
                    question = msgspec.structs.replace(
                        request, kind="hole", question=ref, hole=hole
                    )
                    outcome = await ask(
                        question, bus=bus, ids=ids, deadline=deadline, memo=memo, record=record
                    )
                    outcomes.append((ref, outcome))
        verdict = combine(
            outcomes,
            digest=prepared.digest,
            call_id=None,
            plan=plan,
            holes=len(holes),
            confine=partial(confinement, parts.config, call),
        )
        self._replays.keep(prepared, situation, generations, record, verdict, attributes)
        return msgspec.structs.replace(verdict, call_id=call_id)

    def _spent_on_holes(self) -> str:
        """Why the heredoc holes left were not asked: the review's CPU time ran out."""
        return (
            f"The review used all the {self._parts.config.gateway.review_cpu:g} s of CPU time it may use"
            " before every heredoc hole was judged, so a person must decide."
        )

    @staticmethod
    def _request(prepared: Prepared, masked_call: ToolCall) -> ReviewRequest:
        analysis = prepared.analysis
        return ReviewRequest(
            kind="call",
            call=masked_call,
            digest=prepared.digest,
            plan=prepared.plan,
            positions=prepared.positions,
            holes=tuple(ref for ref, _ in prepared.holes),
            sequence=prepared.sequence,
            effects=prepared.effects + (analysis.effects if analysis is not None else ()),
        )
