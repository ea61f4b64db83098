"""
Replay: an identical recent call's answer given again, and the calls a gateway remembers.

When a call is read exactly as one before it (the same tool, input and
situation) and that one was answered by deterministic approvers alone, with
the approvers unchanged since, its verdict and everything it published are
given again for the new call (`Replays.find`, `Replays.give`,
`Replays.publish_again`) instead of asking again. Separately, the last
``[gateway] recent-calls`` calls are remembered by id, so that a host can
answer their heredoc holes later (`gateway._gateway._answers`).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NamedTuple

import msgspec

from gateway._approvers import Record
from gateway._calls._calls import ToolCall
from gateway._calls._events import Event
from gateway._calls._plans import ProgramPlan
from gateway._calls._verdicts import Verdict
from gateway._gateway._parts import Parts
from gateway._gateway._readings import Prepared, Readings, Situation, count_unmeasured
from gateway._gateway._recording import ReviewState
from gateway._record._bus import EventBus
from gateway._review._analysis import CallAnalysis
from gateway._review._intake import Admitted
from gateway._review._masking import RequestMasks

__all__ = ["Recent", "Replay", "Replays"]


class Replay(NamedTuple):
    """What an identical call published and was told, to give again (see `Replays.find`)."""

    prepared: Prepared
    generations: tuple[tuple[int | None, str | None], ...]
    drafts: tuple[Event, ...]
    verdict: Verdict
    attributes: dict[str, str | int | bool | None]


class Recent(NamedTuple):
    """A call the gateway remembers by its id, as it was proposed and read."""

    call: ToolCall  # as proposed; approvers see it with `masked` as its input
    prepared: Prepared
    user_request: str | None  # masked

    @property
    def source(self) -> str | None:
        return self.prepared.source

    @property
    def plan(self) -> ProgramPlan | None:
        return self.prepared.plan

    @property
    def analysis(self) -> CallAnalysis | None:
        return self.prepared.analysis

    @property
    def digest(self) -> str:
        return self.prepared.digest

    @property
    def masked(self) -> ToolCall:
        """The call as approvers see it: its secrets masked."""
        return msgspec.structs.replace(
            self.call, input=self.prepared.masked, user_request=self.user_request
        )


class Replays:
    """
    The answers of identical calls, kept with their readings, and the recent calls by id.

    Attributes:
        recent: The last ``[gateway] recent-calls`` calls by id, the oldest first out.
    """

    def __init__(self, parts: Parts, readings: Readings, masks: RequestMasks) -> None:
        self._parts = parts
        self._readings = readings
        self._masks = masks
        self.recent: OrderedDict[str, Recent] = OrderedDict()

    def find(self, admitted: Admitted, bus: EventBus) -> Replay | None:
        """What an identical call got, if it can be given again now (nothing changed, nothing would wait)."""
        cache = self._readings.cache
        # The door already found the entry when the input matched it.
        prepared = admitted.known or cache.get(admitted.key)
        call = admitted.call
        if (
            prepared is None
            or not prepared.replays
            or (prepared is not admitted.known and prepared.input != call.input)
            or bus.halted is not None
        ):
            return None
        user_request = None
        if call.user_request is not None:
            user_request = self._masks.get(call.user_request, prepared.secrets)
            if user_request is None:
                return None
        replay = prepared.replays.get((call.session_id, call.agent_id, call.host, user_request))
        if replay is None or replay.generations != self._parts.chain.generations():
            return None
        cache.move_to_end(admitted.key)
        self._parts.counts.hits += 1
        return replay

    def give(
        self, admitted: Admitted, state: ReviewState, span: Any, replay: Replay, bus: EventBus
    ) -> Verdict:
        """
        Give an identical call's answer again, for this call; its verdict.

        What that call published is published again by `publish_again` —
        when someone records or watches; else it is only numbered, here, so
        that a review without sinks awaits nothing. ``bus`` is the one
        the review read, with nothing awaited since: the gateway is still open.
        """
        call = admitted.call
        prepared = replay.prepared
        state.digest = prepared.digest
        self.remember(
            call,
            prepared,
            self._masks.get(call.user_request, prepared.secrets)
            if call.user_request is not None
            else None,
        )
        self._parts.telemetry.set(span, replay.attributes)
        count_unmeasured(self._parts, prepared.plan)
        if not bus.recording:
            bus.count(len(replay.drafts))
        return msgspec.structs.replace(replay.verdict, call_id=state.call_id)

    @staticmethod
    async def publish_again(state: ReviewState, replay: Replay, bus: EventBus) -> None:
        """Publish what an identical call published, for this call (after `give`, when ``bus.recording``)."""
        ids = state.ids
        for draft in replay.drafts:
            await bus.publish(
                msgspec.structs.replace(
                    draft, call_id=state.call_id, trace_id=ids["trace_id"], span_id=ids["span_id"]
                )
            )

    def keep(
        self,
        prepared: Prepared,
        situation: Situation,
        generations: tuple[tuple[int | None, str | None], ...],
        record: Record,
        verdict: Verdict,
        attributes: dict[str, str | int | bool | None],
    ) -> None:
        """Keep a call's answer to give again, when only deterministic approvers gave it and none changed meanwhile."""
        if record.replayable and generations == self._parts.chain.generations():
            prepared.replays[situation] = Replay(
                prepared,
                generations,
                tuple(
                    msgspec.structs.replace(draft, call_id=None, trace_id=None, span_id=None)
                    for draft in record.drafts
                ),
                verdict,
                attributes,
            )

    def remember(self, call: ToolCall, prepared: Prepared, user_request: str | None) -> None:
        """Remember a call by its id (a call without one is not remembered)."""
        if call.call_id is None:
            return
        self.recent[call.call_id] = Recent(call, prepared, user_request)
        self.recent.move_to_end(call.call_id)
        while len(self.recent) > self._parts.config.gateway.recent_calls:
            self.recent.popitem(last=False)
