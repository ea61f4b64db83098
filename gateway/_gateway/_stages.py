"""
The stages of one review, in the order `Gateway.review` runs them.

1. `Stages.open` — the door: the call is checked (`gateway._review._intake`),
   its review span opened and its state (`ReviewState`) begun;
2. `Stages.decide` — the verdict: given again from an identical call
   (`gateway._gateway._replay`), or reached afresh (`gateway._gateway._deciding`)
   under ``[gateway] review-timeout``; an allow is then confined as the caller
   can run it (`gateway._review._confining`);
3. `Stages.record` — the record: the verdict is published and released only
   once the required sinks have written it (`gateway._gateway._recording`);
4. `Stages.close` — the end: the span says the verdict, the metrics and the
   tally count it, and shadow mode defers it.

`Stages.failed` stands in for 2 and 3 when either raises.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import anyio

from gateway._calls._confinement import Confining
from gateway._calls._verdicts import Verdict
from gateway._gateway._deciding import Decider
from gateway._gateway._parts import Parts, deferred
from gateway._gateway._readings import Readings
from gateway._gateway._recording import Recorder, ReviewState, decline
from gateway._gateway._replay import Replays
from gateway._observe._telemetry import (
    ATTR_CONVERSATION_ID,
    ATTR_TOOL_CALL_ID,
    ATTR_TOOL_NAME,
    REVIEW_ATTRIBUTES,
    SPAN_REVIEW,
    SpanScope,
    verdict_attributes,
)
from gateway._record._bus import EventBus
from gateway._review._confining import confined, confinement
from gateway._review._intake import Admitted, admit, refused_call_id

__all__ = ["Reviewing", "Stages"]


class Reviewing:
    """One review between its stages: the call as the door found it, its span, and its state."""

    __slots__ = ("admitted", "bus", "quiet", "refusal", "scope", "span", "started", "state")

    def __init__(
        self,
        admitted: Admitted | str,
        *,
        bus: EventBus,
        started: float,
        quiet: bool,
        scope: SpanScope,
        span: Any,
        state: ReviewState,
        refusal: str | None,
    ) -> None:
        self.admitted = admitted
        self.bus = bus
        self.started = started
        self.quiet = quiet
        self.scope = scope
        self.span = span
        self.state = state
        self.refusal = refusal


def _review_attributes(admitted: Admitted | str, tool: object) -> dict[str, str | int | bool]:
    """What a review span carries from its start."""
    attributes: dict[str, str | int | bool] = dict(REVIEW_ATTRIBUTES)
    if isinstance(admitted, Admitted):
        call = admitted.call
        attributes[ATTR_TOOL_NAME] = call.tool
        attributes[ATTR_TOOL_CALL_ID] = call.call_id or ""
        if call.session_id:
            attributes[ATTR_CONVERSATION_ID] = call.session_id
    elif isinstance(tool, str) and len(tool) <= 256 and tool.isprintable():
        attributes[ATTR_TOOL_NAME] = tool
    return attributes


class Stages:
    """The stages of one gateway's reviews."""

    def __init__(
        self,
        parts: Parts,
        readings: Readings,
        replays: Replays,
        decider: Decider,
        recorder: Recorder,
    ) -> None:
        self._parts = parts
        self._readings = readings
        self._replays = replays
        self._decider = decider
        self._recorder = recorder

    def open(self, call: Any) -> Reviewing:
        """
        The door: check the call, open its review span, begin its state.

        Raises:
            RuntimeError: The gateway is not open.
        """
        parts = self._parts
        bus = parts.opened_bus()
        parts.counts.reviews += 1
        admitted = admit(call, self._readings.cache)
        tool = getattr(call, "tool", None)
        started = time.perf_counter()
        telemetry = parts.telemetry
        # Without a provider that records, no attribute is built.
        quiet = telemetry.quiet
        attributes = None if quiet else _review_attributes(admitted, tool)
        scope = telemetry.span(SPAN_REVIEW, attributes, quiet=quiet)
        span = scope.__enter__()
        try:
            trace_id, span_id = telemetry.ids(span)
            ids: dict[str, str | None] = {"trace_id": trace_id, "span_id": span_id}
            refusal = (
                None
                if isinstance(admitted, Admitted)
                else f"The call cannot be reviewed: {admitted}."
            )
            if isinstance(admitted, Admitted):
                state = ReviewState(admitted.call.call_id or "", admitted.call, ids)
            else:
                state = ReviewState(refused_call_id(call), {"refused": refusal}, ids)
        except BaseException:
            scope.__exit__(None, None, None)
            raise
        return Reviewing(
            admitted,
            bus=bus,
            started=started,
            quiet=quiet,
            scope=scope,
            span=span,
            state=state,
            refusal=refusal,
        )

    async def decide(self, review: Reviewing, confining: Confining | None) -> Verdict:
        """The verdict, as the caller can run it: given again, reached afresh, or the door's decline."""
        admitted = review.admitted
        state = review.state
        if not isinstance(admitted, Admitted):
            return decline(state, review.refusal or "The call cannot be reviewed.")
        bus = review.bus
        span = review.span
        replays = self._replays
        replay = replays.find(admitted, bus)
        if replay is not None and not bus.pressed:
            # An identical call was read and answered by deterministic
            # approvers alone: its answer is given again, and nothing
            # can wait, so no deadline is armed.
            verdict = replays.give(admitted, state, span, replay, bus)
            if bus.recording:
                await replays.publish_again(state, replay, bus)
        else:
            section = self._parts.config.gateway
            state.until = anyio.current_time() + section.review_timeout
            decide_by = state.until - 2 * section.audit_timeout
            with anyio.CancelScope(deadline=decide_by) as scope:
                if replay is not None:
                    # The same, but a sink is behind: publishing may wait.
                    verdict = replays.give(admitted, state, span, replay, bus)
                    if bus.recording:
                        await replays.publish_again(state, replay, bus)
                else:
                    verdict = await self._decider.decide(admitted, state, span, decide_by)
            if scope.cancelled_caught:
                verdict = Verdict(
                    decision="decline",
                    reason=f"The review did not reach a verdict within {section.review_timeout:g} s, and the gateway fails closed.",
                    digest=state.digest,
                    call_id=state.call_id,
                )
        return confined(verdict, admitted.call, confining, partial(confinement, self._parts.config))

    async def record(self, review: Reviewing, verdict: Verdict) -> Verdict:
        """Record the verdict, and release it once the required sinks have written it (`Recorder.conclude`)."""
        recorder = self._recorder
        # Without a required sink nothing is awaited: no coroutine is made for it.
        seq = recorder.record_verdict(verdict, review.state)
        if seq is not None:
            verdict = await recorder.released(verdict, review.state, seq)
        return verdict

    async def failed(self, error: BaseException, review: Reviewing) -> Verdict:
        """The decline of a review that raised, recorded (`Recorder.failed`); what must go on goes on, its span ended."""
        try:
            return await self._recorder.failed(error, review.state, review.span)
        except BaseException:
            review.scope.__exit__(None, None, None)
            raise

    def close(self, review: Reviewing, verdict: Verdict) -> Verdict:
        """The end: the span says the verdict and ends, the metrics and tally count it; what the caller is told."""
        parts = self._parts
        telemetry = parts.telemetry
        admitted = review.admitted
        try:
            if not review.quiet:
                telemetry.set(review.span, verdict_attributes(verdict, parts.mode))
            if isinstance(admitted, Admitted) and review.state.ids["trace_id"] is not None:
                # A span without ids (one that does not record, with no parent) is not remembered.
                telemetry.reviewed(admitted.call.call_id, admitted.call.tool, review.span)
        finally:
            review.scope.__exit__(None, None, None)
        mode = parts.mode
        metrics = parts.metrics
        if not metrics.quiet:
            metrics.reviewed(
                time.perf_counter() - review.started,
                verdict.decision,
                verdict.rule,
                verdict.approver,
                mode,
            )
        parts.counts.count(verdict)
        return deferred(verdict) if mode == "shadow" else verdict
