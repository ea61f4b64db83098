"""
Answers from people: the output of heredoc holes the host ran, and the body they complete.

A call whose unquoted heredoc holds holes (``$(…)`` the gateway will not
guess) may be answered later: the host runs the holes and hands back their
output (`Answers.answer`). The body is expanded with the answers in a worker
— verbatim, never re-scanned — and put to the approvers as a question of its
own, under the same deadline, record and shadow mode as any review.
"""

from __future__ import annotations

from collections.abc import Mapping

import anyio

from gateway._approvers import ReviewRequest
from gateway._calls._digest import digest_of
from gateway._calls._events import HoleAnswered, HoleRef
from gateway._calls._verdicts import Verdict, unconfined
from gateway._gateway._parts import Parts, deferred
from gateway._gateway._readings import Readings
from gateway._gateway._recording import Recorder, ReviewState, decline
from gateway._gateway._replay import Recent, Replays
from gateway._observe._telemetry import ATTR_TOOL_CALL_ID, SPAN_HOLE
from gateway._review._admission import worker_timeout
from gateway._review._reading import BodyText, read_body
from gateway._work._bounded import BoundedFailure

__all__ = ["Answers"]


class Answers:
    """The reviews of heredoc bodies completed by the answers a host hands back."""

    def __init__(
        self, parts: Parts, readings: Readings, replays: Replays, recorder: Recorder
    ) -> None:
        self._parts = parts
        self._readings = readings
        self._replays = replays
        self._recorder = recorder

    async def answer(
        self, call_id: str, statement: int, heredoc: int, answers: Mapping[int, str]
    ) -> Verdict:
        """The completed heredoc body of a remembered call, reviewed: `Gateway.answer`."""
        parts = self._parts
        parts.opened_bus()  # raises when the gateway is not open
        recent = self._replays.recent[call_id]
        if recent.source is None or recent.analysis is None:
            raise KeyError(call_id)
        section = parts.config.gateway
        until = anyio.current_time() + section.review_timeout
        decide_by = until - 2 * section.audit_timeout
        telemetry = parts.telemetry
        with telemetry.span(SPAN_HOLE, {ATTR_TOOL_CALL_ID: call_id}) as span:
            trace_id, span_id = telemetry.ids(span)
            ids: dict[str, str | None] = {"trace_id": trace_id, "span_id": span_id}
            state = ReviewState(call_id, None, ids)
            state.until = until
            state.digest = recent.digest
            state.question = HoleRef(statement=statement, heredoc=heredoc, hole=-1)
            try:
                with anyio.CancelScope(deadline=decide_by) as scope:
                    verdict = await self._decide_body(recent, state, answers, decide_by)
                if scope.cancelled_caught:
                    verdict = decline(
                        state,
                        f"The heredoc body was not judged within {section.review_timeout:g} s, and the gateway fails closed.",
                    )
                verdict = await self._recorder.conclude(verdict, state)
                return deferred(verdict) if parts.mode == "shadow" else verdict
            except BaseException as error:  # noqa: BLE001 -- failed records it, and re-raises what must go on
                return await self._recorder.failed(error, state, span)

    async def _decide_body(
        self, recent: Recent, state: ReviewState, answers: Mapping[int, str], deadline: float
    ) -> Verdict:
        parts = self._parts
        bus = parts.opened_bus()
        call_id = state.call_id
        ids = state.ids
        question = state.question
        assert question is not None  # noqa: S101 -- set by answer()
        analysis = recent.analysis
        if recent.source is None or analysis is None:  # pragma: no cover - checked by answer()
            raise KeyError(call_id)
        valid = {
            index: text
            for index, text in answers.items()
            if type(index) is int and isinstance(text, str)
        }
        if len(valid) != len(answers):
            return decline(state, "The answers must map hole numbers to text.")
        for index, text in sorted(valid.items()):
            ref = HoleRef(statement=question.statement, heredoc=question.heredoc, hole=index)
            await bus.publish(
                HoleAnswered(
                    call_id=call_id,
                    ref=ref,
                    answer_digest=digest_of(text),
                    length=len(text),
                    trace_id=ids["trace_id"],
                    span_id=ids["span_id"],
                )
            )
        if not analysis.measured:
            return decline(state, analysis.plan.reason or "The source could not be read.")
        statements = analysis.plan.statements
        reader = (
            statements[question.statement].plan.commands
            if 0 <= question.statement < len(statements)
            else ()
        )
        owner = next((c for c in reader for h in c.heredocs if h.index == question.heredoc), None)
        config = parts.config
        reading = await parts.pool.run(
            read_body,
            BodyText(
                source=recent.source,
                fragments=analysis.fragments,
                statement=question.statement,
                heredoc=question.heredoc,
                answers=valid,
                shell=owner is not None and owner.position.runs_shell,
                cwd=recent.call.cwd,
                start=recent.prepared.start,
                paths=config.paths,
                home=self._readings.home,
                programs=config.programs,
            ),
            timeout=worker_timeout(config.gateway.plan_timeout, deadline),
        )
        if isinstance(reading, BoundedFailure):
            return decline(
                state,
                f"The heredoc body could not be read safely ({reading.reason}), and the gateway fails closed.",
            )
        if reading.error is not None:
            return decline(state, reading.error)
        if reading.blocked or reading.body is None:
            return Verdict(
                decision="ask",
                reason="The heredoc body is still blocked by unanswered holes; a person must decide.",
                digest=recent.digest,
                call_id=call_id,
            )
        request = ReviewRequest(
            kind="body",
            call=recent.masked,
            digest=recent.digest,
            plan=recent.plan,
            question=question,
            body=reading.body,
            body_plan=reading.body_plan,
        )
        outcome = await parts.chain.ask(request, bus=bus, ids=ids, deadline=deadline)
        verdict = Verdict(
            decision=outcome.decision,
            reason=outcome.reason,
            digest=recent.digest,
            approver=outcome.approver,
            rule=outcome.rule,
            call_id=call_id,
            decided_by=outcome.decided_by,
            policy=outcome.policy,
        )
        if verdict.decision == "allow" and outcome.within is not None:
            # The host runs the completed call as it is: nothing confines it.
            return unconfined(verdict, "a completed heredoc body is run by the host, unconfined")
        return verdict
