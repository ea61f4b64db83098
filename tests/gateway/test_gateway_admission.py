"""
Admission: past what the gateway can read in time, a new call is declined at once, with its record.

The burst is of distinct calls, all started at once, with an admission wait
of a millisecond, so which are admitted hardly depends on how fast this
machine is: the few readings per worker always let in are read (one more for
each that ends before the burst is in), and every other call is declined as
busy, recorded like any verdict. Nothing asserts how fast anything is.
"""

from __future__ import annotations

from typing import Final

import anyio
import pytest
from gateway_support import BOUND, anyio_backend as anyio_backend, config, of_call, tags

from gateway import Gateway, Verdict
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio

BURST: Final = 60
FLOOR: Final = 8
"""Readings per worker always let in (`gateway._admission.Admission.floor`): with a wait of 1 ms, no more."""


async def test_a_burst_past_the_floor_is_declined_at_once_and_recorded() -> None:
    sink = MemorySink()
    gateway = Gateway(
        config(workers=1, admission_wait=0.001),
        approvers=[StaticApprover("allow")],
        sinks={"memory": sink},
    )
    verdicts: dict[str, Verdict] = {}
    async with gateway:

        async def review(index: int) -> None:
            call = make_call(f"echo burst {index}", call_id=f"c{index}")
            verdicts[f"c{index}"] = await gateway.review(call)

        with anyio.fail_after(BOUND):
            async with anyio.create_task_group() as group:
                for index in range(BURST):
                    group.start_soon(review, index)
            # Once the burst is over, a new call is read again.
            after = await gateway.review(make_call("echo after", call_id="after"))
        statistics = gateway.statistics()
    busy = {call_id for call_id, verdict in verdicts.items() if "busy" in verdict.reason}
    read = BURST - len(busy)
    # At least the floor is read; more only where a reading ended before the burst was in.
    assert FLOOR <= read < BURST // 2
    assert statistics.busy == len(busy)
    assert statistics.plan_cache_misses == read + 1
    for call_id, verdict in verdicts.items():
        if call_id in busy:
            assert verdict.decision == "decline"
            assert verdict.reason.startswith("The gateway is busy: ")
            assert verdict.reason.endswith("retry it shortly.")
            # Declined before any reading: proposed, then the verdict — never an answer without its record.
            assert tags(of_call(sink.events, call_id))[-1] == "verdict.reached"
        else:
            assert verdict.decision == "allow"
    assert after.decision == "allow"
