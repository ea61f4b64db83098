"""
The record of a review, and of what the host reports after it.

`Recorder.record_verdict` publishes the one ``verdict.reached`` record of a
review; `Recorder.released` gives the verdict back only once every required
sink has written it ("no audit, no action"), and a decline (with a
``verdict.withdrawn`` record) when one cannot. A review that ends abnormally
— cancelled, or failing — still leaves its record (`Recorder.end`,
`Recorder.failed`). After the review, the host's outcome, a confined run's
changes and a person's answer inside the host are recorded too.
"""

from __future__ import annotations

import time
from contextlib import suppress
from typing import Any, Final, Literal

import anyio
import msgspec

from gateway._approvers import caller_cancelled
from gateway._calls._calls import ToolCall
from gateway._calls._digest import digest_of
from gateway._calls._errors import SinkFailure
from gateway._calls._events import (
    CallOutcome,
    Event,
    HoleRef,
    HostDecided,
    RunChanged,
    VerdictReached,
    VerdictWithdrawn,
)
from gateway._calls._text import shorten
from gateway._calls._verdicts import Verdict
from gateway._gateway._parts import Parts
from gateway._review._reading import mask_value

__all__ = ["Recorder", "ReviewState", "decline"]

_OUTCOMES: Final[dict[str, Literal["succeeded", "failed", "denied", "unknown"]]] = {
    "succeeded": "succeeded",
    "failed": "failed",
    "denied": "denied",
}
_DECIDERS: Final[dict[str, Literal["person", "timeout", "failed", "nobody"]]] = {
    "person": "person",
    "timeout": "timeout",
    "failed": "failed",
    "nobody": "nobody",
}


class ReviewState:
    """What a review has done so far, so that any way it ends still leaves the right record."""

    __slots__ = ("_digest", "_of", "call_id", "ids", "question", "until", "verdict_seq")

    def __init__(self, call_id: str, of: Any, ids: dict[str, str | None]) -> None:
        self.call_id = call_id
        self._of = of
        self._digest: str | None = None
        self.ids = ids
        self.question: HoleRef | None = None
        self.verdict_seq: int | None = None
        # The loop time by which the review must be over (its record written):
        # what a sink judged by its writer may take when the loop is behind.
        self.until: float | None = None

    @property
    def digest(self) -> str:
        """The digest a decline is bound to: the plan's once there is one, else of what was proposed."""
        if self._digest is None:
            of = self._of
            # A call admitted at the door is bound by its tool and input, built
            # only when a decline needs it (a replayed call is bound by its plan).
            if isinstance(of, ToolCall):
                of = {"tool": of.tool, "input": of.input}
            self._digest = digest_of(of)
        return self._digest

    @digest.setter
    def digest(self, value: str) -> None:
        self._digest = value


def decline(state: ReviewState, reason: str) -> Verdict:
    """A decline of the review, bound to its digest."""
    return Verdict(decision="decline", reason=reason, digest=state.digest, call_id=state.call_id)


class Recorder:
    """The records one gateway publishes of its reviews and of what follows them."""

    def __init__(self, parts: Parts) -> None:
        self._parts = parts

    async def conclude(self, verdict: Verdict, state: ReviewState) -> Verdict:
        """
        Record the verdict, then release it — only once the required sinks have written it.

        When they cannot, the caller gets a decline, and a ``verdict.withdrawn``
        record says so wherever the first record was written; the failed sink
        is fenced, and the gateway halts (no action without audit). Bounded
        by twice the audit timeout.
        """
        seq = self.record_verdict(verdict, state)
        return verdict if seq is None else await self.released(verdict, state, seq)

    def verdict_record(self, verdict: Verdict, state: ReviewState) -> VerdictReached:
        """The record of the verdict a review released."""
        return VerdictReached(
            call_id=verdict.call_id,
            verdict=verdict,
            question=state.question,
            mode=self._parts.mode,
            trace_id=state.ids["trace_id"],
            span_id=state.ids["span_id"],
        )

    def record_verdict(self, verdict: Verdict, state: ReviewState) -> int | None:
        """
        Publish the record of the verdict (the first half of `conclude`).

        Returns:
            Its sequence number when a required sink must write it before the
            verdict is released (`released`), else ``None``.
        """
        bus = self._parts.opened_bus()
        # Past any back-pressure: the verdict's record is never kept waiting
        # behind the events it concludes. Numbered only, when nobody records.
        seq = state.verdict_seq = (
            bus.publish_nowait(self.verdict_record(verdict, state))
            if bus.recording
            else bus.count()
        )
        return seq if bus.required_sinks else None

    async def released(self, verdict: Verdict, state: ReviewState, seq: int) -> Verdict:
        """The verdict once every required sink has written record ``seq``, or the decline that replaces it (the second half of `conclude`)."""
        parts = self._parts
        bus = parts.opened_bus()
        writing = time.perf_counter()
        try:
            await bus.wait_written(seq, parts.config.gateway.audit_timeout, until=state.until)
        except SinkFailure as failure:
            parts.metrics.audit_written(time.perf_counter() - writing, written=False)
            if verdict.decision == "decline":
                return verdict
            declined = decline(
                state,
                f"The audit record could not be written ({failure}), and there is no action without audit.",
            )
            await self.end(state, declined.reason)
            return declined
        parts.metrics.audit_written(time.perf_counter() - writing, written=True)
        return verdict

    async def end(self, state: ReviewState, reason: str) -> None:
        """Record the decline of a review that ended abnormally: its verdict, or the withdrawal of one already recorded."""
        bus = self._parts.opened_bus()
        released = decline(state, reason)
        if state.verdict_seq is None:
            draft: Event = self.verdict_record(released, state)
        else:
            bus.withdrawing(state.verdict_seq)
            draft = VerdictWithdrawn(
                call_id=state.call_id,
                withdrawn=state.verdict_seq,
                reason=reason,
                released=released,
                question=state.question,
                trace_id=state.ids["trace_id"],
                span_id=state.ids["span_id"],
            )
        seq = bus.publish_nowait(draft)
        if state.verdict_seq is None:
            state.verdict_seq = seq
        if bus.required_sinks:
            with suppress(SinkFailure):
                # A decline that lands late still says what the caller was told.
                await bus.wait_written(
                    seq,
                    self._parts.config.gateway.audit_timeout,
                    late_fails=False,
                    until=state.until,
                )

    async def failed(self, error: BaseException, state: ReviewState, span: Any) -> Verdict:
        """
        End a review that raised, in its record first.

        A caller's cancellation is recorded as such and goes on. Anything else
        (a bug, a BaseException that is not ours to let through) ends in a
        recorded decline; a process being stopped goes on once it is recorded.
        """
        audit_timeout = self._parts.config.gateway.audit_timeout
        if isinstance(error, anyio.get_cancelled_exc_class()) and caller_cancelled():
            with anyio.CancelScope(shield=True), anyio.move_on_after(audit_timeout):
                await self.end(
                    state,
                    "The review was cancelled before a verdict was released, so nothing may run.",
                )
            raise error
        self._parts.telemetry.error(span, type(error).__name__, type(error).__name__)
        verdict = decline(
            state,
            f"The gateway failed while reviewing ({type(error).__name__}), and it fails closed.",
        )
        with anyio.CancelScope(shield=True), anyio.move_on_after(audit_timeout):
            await self.end(state, verdict.reason)
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise error
        return verdict

    async def outcome(self, call_id: str | None, outcome: str, detail: str | None = None) -> None:
        """Record what happened when the host ran (or did not run) a call."""
        value = _OUTCOMES.get(outcome, "unknown") if type(outcome) is str else "unknown"
        shown = None
        if isinstance(detail, str):
            # Cut before masking: the scan is bounded by what is shown (and
            # a little more, so a secret cut at the edge is still found).
            shown = shorten(str(mask_value(detail[:2000])), 500)
        call_id = call_id if isinstance(call_id, str) else None
        bus = self._parts.opened_bus()
        telemetry = self._parts.telemetry
        with telemetry.outcome(call_id, value) as span:
            trace_id, span_id = telemetry.ids(span)
            await bus.publish(
                CallOutcome(
                    call_id=call_id,
                    outcome=value,
                    detail=shown,
                    trace_id=trace_id,
                    span_id=span_id,
                )
            )

    async def changes(self, call_id: str | None, changes: RunChanged) -> None:
        """``run.changed`` for a call: `Gateway.record_changes`."""
        await self._parts.opened_bus().publish(
            msgspec.structs.replace(changes, call_id=call_id if isinstance(call_id, str) else None)
        )

    async def decision(
        self,
        call_id: str | None,
        decision: str,
        *,
        by: str = "person",
        host: str | None = None,
        detail: str | None = None,
    ) -> None:
        """``host.decided`` for a call: `Gateway.record_decision` says what is recorded."""
        shown = None
        if isinstance(detail, str):
            shown = shorten(str(mask_value(detail[:2000])), 500)
        call_id = call_id if isinstance(call_id, str) else None
        value: Literal["allow", "decline"] = "allow" if decision == "allow" else "decline"
        who = _DECIDERS.get(by, "failed") if type(by) is str else "failed"
        named = shorten(host, 200) if isinstance(host, str) else None
        bus = self._parts.opened_bus()
        telemetry = self._parts.telemetry
        with telemetry.host_decision(call_id, value, who, named) as span:
            trace_id, span_id = telemetry.ids(span)
            await bus.publish(
                HostDecided(
                    call_id=call_id,
                    decision=value,
                    by=who,
                    host=named,
                    detail=shown,
                    trace_id=trace_id,
                    span_id=span_id,
                )
            )
