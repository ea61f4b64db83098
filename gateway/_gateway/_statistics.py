"""
A gateway's counters: what `Gateway.statistics` reports, and the tally reviews keep.

The tally (`Counts`) is kept by the stages of a review as they go; the bus,
the workers and the admission keep their own, and `statistics` reads them all
into one `GatewayStatistics`.
"""

from __future__ import annotations

import msgspec

from gateway._calls._verdicts import Verdict
from gateway._record._bus import EventBus
from gateway._review._admission import Admission
from gateway._work._bounded import BoundedPool

__all__ = ["Counts", "GatewayStatistics", "statistics"]


class GatewayStatistics(msgspec.Struct, frozen=True, kw_only=True):
    """
    Counters for monitoring a gateway.

    Attributes:
        reviews: Reviews started.
        allowed: Verdicts ``allow`` released.
        asked: Verdicts ``ask`` released.
        declined: Verdicts ``decline`` released.
        plan_cache_hits: Calls read from the cache of identical calls.
        plan_cache_misses: Calls read afresh (in a worker).
        events: Events published.
        failed_sinks: Sinks that failed.
        halted: Why the gateway releases no verdict but decline, if it does not.
        workers_killed: Workers killed for overrunning their deadline (or dying).
        checkpoints: Signed checkpoints published.
        busy: Calls declined at once because the gateway could not read them
            within ``[gateway] admission-wait``.
    """

    reviews: int
    allowed: int
    asked: int
    declined: int
    plan_cache_hits: int
    plan_cache_misses: int
    events: int
    failed_sinks: tuple[str, ...]
    halted: str | None = None
    workers_killed: int = 0
    checkpoints: int = 0
    busy: int = 0


class Counts:
    """The tally of a gateway's reviews: started, released by decision, read from the cache or afresh."""

    __slots__ = ("allow", "ask", "decline", "hits", "misses", "reviews")

    def __init__(self) -> None:
        self.reviews = self.allow = self.ask = self.decline = self.hits = self.misses = 0

    def count(self, verdict: Verdict) -> None:
        decision = verdict.decision
        if decision == "allow":
            self.allow += 1
        elif decision == "ask":
            self.ask += 1
        else:
            self.decline += 1


def statistics(
    counts: Counts, bus: EventBus | None, pool: BoundedPool, admission: Admission
) -> GatewayStatistics:
    """The counters of a gateway, from its tally, its bus (``None`` before it opens), its workers and its admission."""
    published = bus.statistics() if bus is not None else None
    return GatewayStatistics(
        reviews=counts.reviews,
        allowed=counts.allow,
        asked=counts.ask,
        declined=counts.decline,
        plan_cache_hits=counts.hits,
        plan_cache_misses=counts.misses,
        events=0 if published is None else published.published,
        failed_sinks=() if published is None else published.failed_sinks,
        halted=None if bus is None else bus.halted,
        workers_killed=pool.statistics().killed,
        checkpoints=0 if published is None else published.checkpoints,
        busy=admission.refused,
    )
