"""
What the nouns of one gateway share: its configuration, workers, approvers, bus, traces and tally.

A `Gateway` is a façade over a few nouns — its lifecycle, the stages of a
review, the reading of calls, the replay of identical ones, the record, the
answers people give — and each of them holds this one `Parts`, never the
gateway itself. The lifecycle fills in what exists only while the gateway is
open (its approver chain, its bus).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Final

from gateway._approvers import ApproverChain
from gateway._calls._verdicts import DECISION_VERBS, Verdict, as_ask
from gateway._gateway._statistics import Counts
from gateway._observe._metrics import Metrics
from gateway._observe._telemetry import Telemetry
from gateway._record._bus import EventBus
from gateway._review._admission import Admission
from gateway._settings._config import GatewayConfig, Mode
from gateway._work._bounded import BoundedPool

__all__ = ["Parts", "deferred", "now"]

_MIB: Final = 1024 * 1024
_PRELOAD: Final = ("gateway._review._reading:warm_up",)


@lru_cache(maxsize=2)
def _second(seconds: int) -> str:
    """``YYYY-MM-DDTHH:MM:SS`` of a whole second since the epoch, in UTC, as `datetime.isoformat` writes it."""
    return datetime.fromtimestamp(seconds, UTC).isoformat()[:19]


def now() -> str:
    """
    The UTC time now, to the microsecond, as ``datetime.now(UTC).isoformat(timespec="microseconds")`` writes it.

    Every event is stamped with it, so it is built from the clock's
    microseconds and the text of the current second, made once a second:
    `datetime.now` with a time zone costs three times as much.
    """
    seconds, micro = divmod(time.time_ns() // 1000, 1_000_000)
    return f"{_second(seconds)}.{micro:06d}+00:00"


class Parts:
    """
    The parts of one gateway its nouns share.

    Attributes:
        config: The configuration.
        telemetry: Where spans go.
        metrics: Where metrics go.
        clock: Gives event timestamps.
        pool: The bounded worker processes every reading runs in.
        chain: The approver chain (an empty one until the gateway opens).
        bus: The event bus, while the gateway is open or once it was.
        open: Whether the gateway is open.
        counts: The tally of reviews.
        admission: Whether a new call can be read in time.
    """

    __slots__ = (
        "admission",
        "bus",
        "chain",
        "clock",
        "config",
        "counts",
        "metrics",
        "open",
        "pool",
        "telemetry",
    )

    def __init__(
        self,
        config: GatewayConfig,
        *,
        telemetry: Telemetry,
        metrics: Metrics,
        clock: Callable[[], str],
    ) -> None:
        section = config.gateway
        self.config = config
        self.telemetry = telemetry
        self.metrics = metrics
        self.clock = clock
        self.pool = BoundedPool(
            workers=section.workers, memory=section.worker_memory * _MIB, preload=_PRELOAD
        )
        self.chain = ApproverChain(
            (),
            approver_timeout=section.approver_timeout,
            telemetry=telemetry,
            metrics=metrics,
        )
        self.bus: EventBus | None = None
        self.open = False
        self.counts = Counts()
        self.admission = Admission(wait=section.admission_wait, parallel=section.workers)

    def opened_bus(self) -> EventBus:
        """
        The event bus, while the gateway is open.

        Raises:
            RuntimeError: The gateway is not open.
        """
        if self.bus is None or not self.open:
            raise RuntimeError(
                "The gateway is not open; use it as `async with Gateway(...) as gateway`."
            )
        return self.bus

    @property
    def mode(self) -> Mode:
        """The gateway's mode (``[gateway] mode``)."""
        return self.config.gateway.mode


def deferred(verdict: Verdict) -> Verdict:
    """What shadow mode returns: the host decides; the verdict it would have had is recorded."""
    would = DECISION_VERBS[verdict.decision].lower()
    return as_ask(
        verdict,
        f"Shadow mode: the gateway would have {would} this call ({verdict.reason.rstrip('.')}); the host decides.",
        defer=True,
    )
