"""
Load: 200 concurrent reviews wait for people and are decided through the API; none lost, none twice.

Three rounds of 200 run against one service. Every review must come back
with exactly the decision a person made (none lost, none changed), every
second decision must be refused (none decided twice), and memory must not
grow round over round beyond what the bounded history holds. The numbers are
written to ``test-artifacts/load.json``; the bounds asserted are generous
limits, not timings.
"""

from __future__ import annotations

import gc
import json
import os
import time
import tracemalloc
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from web.support import Served, bash, config, events, serve

pytestmark = pytest.mark.anyio

CALLS = 200
ROUNDS = 3
LOAD_WAIT = 900.0
"""How long any one wait of this test may take: generous, so a machine busy with other work
slows the test down without failing it (it asserts counts, never times)."""
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn, httpx and the service run on asyncio."""
    return "asyncio"


def _rss() -> int:
    """The resident set size of this process, in bytes (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


async def _round(
    served: Served, client: httpx.AsyncClient, pool: list[httpx.AsyncClient], round_number: int
) -> dict[str, Any]:
    prefix = f"r{round_number}"
    wanted = {f"{prefix}-{i}": ("allow" if i % 3 else "decline") for i in range(CALLS)}
    verdicts: dict[str, dict[str, Any]] = {}
    accepted: list[str] = []
    conflicts: list[str] = []
    started = time.perf_counter()
    async with events(client) as stream:
        await stream.until("snapshot")
        async with anyio.create_task_group() as group:

            async def review(call_id: str, index: int) -> None:
                response = await pool[index % len(pool)].post(
                    "/v1/review", json=bash(f"deploy --shard {index}", call_id)
                )
                assert response.status_code == 200, response.text
                verdict = response.json()
                # Fails the round at once (the wait for its pending call with
                # it): a review answered by anyone but a person was never parked.
                assert verdict["approver"] == "human", verdict
                assert call_id not in verdicts, f"{call_id} answered twice"
                verdicts[call_id] = verdict

            for index, call_id in enumerate(wanted):
                group.start_soon(review, call_id, index)
            digests: dict[str, str] = {}
            with anyio.fail_after(LOAD_WAIT):
                while len(digests) < CALLS:
                    message = await stream.until("pending")
                    entry = message.json()
                    digests[entry["id"]] = entry["digest"]
            parked = time.perf_counter()

            async def decide(call_id: str, index: int) -> None:
                body = {"decision": wanted[call_id], "digest": digests[call_id]}
                first, second = await _twice(pool[index % len(pool)], call_id, body)
                if first.status_code == 200:
                    accepted.append(call_id)
                # Refused: 409 while the first decision is still in the bounded
                # history, 404 once the history has moved past it.
                if second.status_code in (404, 409):
                    conflicts.append(call_id)

            async with anyio.create_task_group() as deciders:
                for index, call_id in enumerate(wanted):
                    deciders.start_soon(decide, call_id, index)
    finished = time.perf_counter()
    assert sorted(accepted) == sorted(wanted), "a decision was refused"
    assert sorted(conflicts) == sorted(wanted), "a second decision was accepted"
    assert sorted(verdicts) == sorted(wanted), "a review was lost"
    for call_id, verdict in verdicts.items():
        assert verdict["decision"] == wanted[call_id]
        assert verdict["call_id"] == call_id
        assert verdict["digest"] == digests[call_id]
        assert verdict["approver"] == "human"
    board = served.running.board
    assert board is not None
    assert board.statistics().pending == 0
    return {
        "round": round_number,
        "parked_seconds": round(parked - started, 3),
        "decided_seconds": round(finished - parked, 3),
    }


async def _twice(
    client: httpx.AsyncClient, call_id: str, body: dict[str, Any]
) -> tuple[httpx.Response, httpx.Response]:
    first = await client.post(f"/v1/calls/{call_id}/decision", json=body)
    second = await client.post(f"/v1/calls/{call_id}/decision", json=body)
    return first, second


async def test_200_concurrent_reviews_waiting_on_people_are_all_decided_once() -> None:
    # Several small clients: one connection pool of hundreds of connections
    # costs the client more than the whole service (httpcore scans its pool).
    limits = httpx.Limits(max_connections=CALLS // 10 + 10)
    tracemalloc.start()
    try:
        with serve(
            # Admission may not decline a call of the burst as busy: this
            # measures people's decisions, not how fast this machine reads.
            config(
                history=100,
                event_history=2000,
                human_timeout=LOAD_WAIT,
                gateway={"admission_wait": LOAD_WAIT},
            ),
            human=True,
        ) as served:
            async with AsyncExitStack() as stack:
                timeout = httpx.Timeout(LOAD_WAIT)
                client = await stack.enter_async_context(
                    served.client(headers=served.auth, timeout=timeout)
                )
                pool = [
                    await stack.enter_async_context(
                        served.client(headers=served.auth, limits=limits, timeout=timeout)
                    )
                    for _ in range(10)
                ]
                rounds = []
                memory = []
                for number in range(ROUNDS):
                    rounds.append(await _round(served, client, pool, number))
                    gc.collect()
                    memory.append({"traced": tracemalloc.get_traced_memory()[0], "rss": _rss()})
                board = served.running.board
                assert board is not None
                history = board.statistics().history
                calls = (await client.get("/v1/calls?state=decided")).json()["calls"]
                events_kept = len(served.running.service._history)
    finally:
        tracemalloc.stop()
    growth = memory[-1]["traced"] - memory[0]["traced"]
    rss_growth = memory[-1]["rss"] - memory[0]["rss"]
    report = {
        "calls_per_round": CALLS,
        "rounds": rounds,
        "memory": memory,
        "traced_growth_after_first_round": growth,
        "rss_growth_after_first_round": rss_growth,
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "load.json").write_text(json.dumps(report, indent=2))
    assert history == 100
    assert len(calls) == 100
    assert events_kept == 2000
    # Bounded: after the first round fills the history, two more rounds of 200
    # may not keep more than a few megabytes (a leak of one request per call
    # would exceed it many times over).
    assert growth < 8 * 1024 * 1024, report
    assert rss_growth < 64 * 1024 * 1024, report
