"""
Admission: a new call is read only when its reading can start and end within the admission wait.

Past what the gateway can read in time, a call that waits only grows every
other call's wait, until every host's own timeout acts first. So each call
that must be read afresh (not one answered from the cache of identical calls)
asks `Admission.enter` first. The wait a newcomer would have is estimated by
Little's law: the readings in progress, the newcomer included, divided by the
rate at which readings end while the gateway is busy (measured in each busy
spell, from its first ends up to now; before that, the last spell's). Past
``[gateway] admission-wait`` the call is declined at once ("busy, retry")
and nothing of it is read. Until a busy spell has been measured, a reading
is assumed to take 10 ms per worker (a few times what one takes).

The rate is measured, not configured: it is what this machine, as loaded as
it is, sustains — the workers, the event loop and whatever else runs here.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Final

import anyio

__all__ = ["Admission", "worker_timeout"]

_SAMPLES: Final = 128
"""Readings' ends the rate is measured over (those that ended while others were in progress)."""
_FEWEST: Final = 8
"""Ends needed before a busy spell's rate is trusted."""
_FLOOR_PER_WORKER: Final = 8
"""Readings per worker always admitted, however slow readings are: a light load is never refused."""
_ASSUMED: Final = 0.01
"""Seconds a reading is assumed to take per worker until a busy spell is measured (agent commands take 2 to 4 ms)."""


class Admission:
    """
    How many readings are in progress, how fast they end when busy, and whether one more fits.

    Args:
        wait: Seconds a newcomer may expect to wait for its reading to end.
        parallel: Readings that run at once (the workers).
        clock: Seconds, monotonic (a test's own clock).

    The rate is measured from the readings that end while more than
    ``parallel`` are in progress (a queue: they end as fast as the gateway
    reads, the event loop's share of each review included), over the
    current busy spell up to now; between spells, and before a spell has
    given `_FEWEST` ends, it is the rate the last spell ended with; before
    any spell was measured, one reading per worker every `_ASSUMED` seconds.
    However slow the readings, `floor` of them are admitted at once.

    Examples:
        >>> now = [0.0]
        >>> admission = Admission(wait=2.0, parallel=1, clock=lambda: now[0])
        >>> [admission.enter() for _ in range(300)].count(True)  # nothing measured: 10 ms a reading
        200
        >>> for _ in range(20):  # they end every 0.125 s, with a queue behind them
        ...     now[0] += 0.125
        ...     admission.leave()
        >>> admission.rate, admission.in_progress
        (8.0, 180)
        >>> admission.enter()  # 181 readings at 8 a second take 22.6 s
        False
    """

    def __init__(self, *, wait: float, parallel: int, clock: Callable[[], float] = time.monotonic):
        self.wait = wait
        self.parallel = parallel
        self.floor = _FLOOR_PER_WORKER * parallel
        self.in_progress = 0
        self.refused = 0
        self._clock = clock
        self._ends: deque[float] = deque(maxlen=_SAMPLES)
        self._last: float | None = None

    @property
    def rate(self) -> float:
        """Readings that end per second while the gateway is busy (assumed until measured)."""
        ends = self._ends
        if len(ends) >= _FEWEST:
            # Up to now, not to the last end: readings that stop ending slow the rate down.
            span = self._clock() - ends[0]
            if span > 0:
                return (len(ends) - 1) / span
        return self.parallel / _ASSUMED if self._last is None else self._last

    def expected_wait(self) -> float:
        """Seconds a newcomer's reading would take to end."""
        return (self.in_progress + 1) / self.rate

    def enter(self) -> bool:
        """Count one more reading in progress, if it fits; ``False`` (nothing counted) when it does not."""
        if self.in_progress >= self.floor and self.expected_wait() > self.wait:
            self.refused += 1
            return False
        self.in_progress += 1
        return True

    def leave(self) -> None:
        """One reading that `enter` let in ended (read, failed or cancelled)."""
        ends = self._ends
        if self.in_progress > self.parallel:
            # A queue: this end measures how fast the busy gateway reads.
            ends.append(self._clock())
        self.in_progress -= 1
        if self.in_progress <= self.parallel and len(ends) >= _FEWEST:
            # The queue is gone: the spell's rate is kept for the next burst.
            span = ends[-1] - ends[0]
            if span > 0:
                self._last = (len(ends) - 1) / span
            ends.clear()

    def busy_reason(self) -> str:
        """Why a call was refused, as one sentence."""
        expected = self.expected_wait()
        ahead = (
            f"{self.in_progress} calls are being read"
            if self.in_progress != 1
            else "1 call is being read"
        )
        return (
            f"The gateway is busy: {ahead}, about {expected:.1f} s of reading, more than it reads within"
            f" {self.wait:g} s, so it declines this call at once; retry it shortly."
        )


def worker_timeout(plan_timeout: float, deadline: float) -> float:
    """
    The seconds one reading in a worker may take: ``[gateway] plan-timeout``, cut short by the loop time ``deadline``.

    Never quite zero, so that a reading asked for past its deadline fails in
    its worker as overrunning rather than not being tried at all.
    """
    return max(min(plan_timeout, max(0.0, deadline - anyio.current_time())), 0.001)
