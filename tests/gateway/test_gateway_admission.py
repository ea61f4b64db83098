"""
Admission: past what the gateway can read in time, a new call is declined at once, with its record.

The burst is of distinct calls, all started at once, with an admission wait
of a millisecond, while the worker is stopped (SIGSTOP): no reading can end
before the whole burst has asked, however the machine schedules the worker
(on a loaded machine a worker woken by a request often answers before its
caller reads the pipe, so readings would end one by one). Exactly the few
readings per worker always let in are read, and every other call is
declined as busy, recorded like any verdict. Nothing asserts how fast
anything is.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import anyio
import pytest
from gateway_support import BOUND, anyio_backend as anyio_backend, config, of_call, tags

from gateway import Gateway, Verdict
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio

BURST: Final = 60
FLOOR: Final = 8
"""Readings per worker always let in (`gateway._review._admission.Admission.floor`): with a wait of 1 ms, no more."""


@contextmanager
def workers_stopped() -> Iterator[None]:
    """Stop this process's worker processes (its children) until the block ends."""
    children = [
        int(pid)
        for listing in Path("/proc/self/task").glob("*/children")
        for pid in listing.read_text().split()
    ]
    assert children, "the gateway has no worker to stop"
    try:
        for child in children:
            os.kill(child, signal.SIGSTOP)
        yield
    finally:
        for child in children:
            os.kill(child, signal.SIGCONT)


async def test_a_burst_past_the_floor_is_declined_at_once_and_recorded() -> None:
    sink = MemorySink()
    gateway = Gateway(
        config(workers=1, admission_wait=0.001),
        approvers=[StaticApprover("allow")],
        sinks={"memory": sink},
    )
    verdicts: dict[str, Verdict] = {}
    busy: list[int] = []
    refused = anyio.Event()  # every call past the floor was declined
    async with gateway:

        async def review(index: int) -> None:
            call = make_call(f"echo burst {index}", call_id=f"c{index}")
            verdict = verdicts[f"c{index}"] = await gateway.review(call)
            if "busy" in verdict.reason:
                busy.append(index)
                if len(busy) == BURST - FLOOR:
                    refused.set()

        with anyio.fail_after(BOUND):
            # The worker is started (and this call read) before the burst.
            assert (await gateway.review(make_call("echo before"))).decision == "allow"
            async with anyio.create_task_group() as group:
                with workers_stopped():
                    for index in range(BURST):
                        group.start_soon(review, index)
                    await refused.wait()
            # Once the burst is over, a new call is read again.
            after = await gateway.review(make_call("echo after", call_id="after"))
        statistics = gateway.statistics()
    read = BURST - len(busy)
    assert read == FLOOR
    assert statistics.busy == len(busy)
    assert statistics.plan_cache_misses == read + 2
    for call_id, verdict in verdicts.items():
        if int(call_id[1:]) in busy:
            assert verdict.decision == "decline"
            assert verdict.reason.startswith("The gateway is busy: ")
            assert verdict.reason.endswith("retry it shortly.")
            # Declined before any reading: proposed, then the verdict — never an answer without its record.
            assert tags(of_call(sink.events, call_id))[-1] == "verdict.reached"
        else:
            assert verdict.decision == "allow"
    assert after.decision == "allow"
