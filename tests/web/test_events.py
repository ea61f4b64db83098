"""
``GET /v1/events``: every gateway event, in order, resumable after a disconnect without gaps.
"""

from __future__ import annotations

import anyio
import anyio.to_thread
import httpx
import pytest

from gateway.events import Event, VerdictReached, verify_chain
from gateway.testing import StaticApprover
from web.support import WAIT, Served, Sse, SseMessage, bash, config, events, serve

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn, httpx and the service run on asyncio."""
    return "asyncio"


async def _reviews(client: httpx.AsyncClient, count: int, prefix: str) -> None:
    for index in range(count):
        response = await client.post("/v1/review", json=bash(f"echo {index}", f"{prefix}-{index}"))
        assert response.status_code == 200


async def _collect(stream_messages: list[SseMessage], sse: object, verdicts: int) -> None:
    seen = 0
    while seen < verdicts:
        message = await sse.next()  # type: ignore[attr-defined]
        stream_messages.append(message)
        if message.kind == "message" and message.json()["event"] == "verdict.reached":
            seen += 1


def _events(messages: list[SseMessage]) -> list[Event]:
    return [m.event() for m in messages if m.kind == "message"]


async def test_every_event_arrives_in_order_with_its_sequence_number_as_id() -> None:
    with serve(approvers=[StaticApprover("allow")]) as served:
        async with served.client(headers=served.auth) as client, events(client) as stream:
            snapshot = await stream.next()
            await _reviews(client, 5, "o")
            messages: list[SseMessage] = []
            with anyio.fail_after(WAIT):
                await _collect(messages, stream, 5)
    assert snapshot.kind == "snapshot"
    assert snapshot.json()["pending"] == []
    received = _events(messages)
    assert [m.id for m in messages if m.kind == "message"] == [str(e.seq) for e in received]
    assert [e.seq for e in received] == list(
        range(received[0].seq, received[0].seq + len(received))
    )
    assert verify_chain(received) is None
    assert [type(e).__struct_config__.tag for e in received[:4]] == [
        "call.proposed",
        "plan.ready",
        "approver.decided",
        "verdict.reached",
    ]
    assert sum(isinstance(e, VerdictReached) for e in received) == 5


async def test_a_reconnecting_watcher_resumes_from_its_last_id_without_gaps() -> None:
    with serve(approvers=[StaticApprover("allow")]) as served:
        async with served.client(headers=served.auth) as client:
            first: list[SseMessage] = []
            async with events(client) as stream:
                await stream.until("snapshot")
                await _reviews(client, 3, "before")
                with anyio.fail_after(WAIT):
                    await _collect(first, stream, 3)
            last = [m for m in first if m.kind == "message"][-1].id
            assert last is not None
            # Disconnected: these happen while nobody watches.
            await _reviews(client, 4, "while-away")
            second: list[SseMessage] = []
            async with events(client, headers={"Last-Event-ID": last}) as stream:
                await _reviews(client, 2, "after")
                with anyio.fail_after(WAIT):
                    await _collect(second, stream, 6)
            third: list[SseMessage] = []
            async with events(client, f"?after={last}") as stream:
                with anyio.fail_after(WAIT):
                    await _collect(third, stream, 6)
    before, resumed = _events(first), _events(second)
    combined = before + resumed
    assert [e.seq for e in combined] == list(range(combined[0].seq, combined[-1].seq + 1))
    assert verify_chain(combined) is None
    assert resumed[0].seq == int(last) + 1
    assert [e.seq for e in _events(third)] == [e.seq for e in resumed]


async def test_the_call_filter_keeps_one_call() -> None:
    with serve(approvers=[StaticApprover("allow")]) as served:
        async with (
            served.client(headers=served.auth) as client,
            events(client, "?call=f-1") as stream,
        ):
            await stream.until("snapshot")
            await _reviews(client, 3, "f")
            messages: list[SseMessage] = []
            with anyio.fail_after(WAIT):
                await _collect(messages, stream, 1)
    received = _events(messages)
    assert {e.call_id for e in received} == {"f-1"}
    assert len(received) == 4


async def test_resuming_from_before_the_kept_history_is_told_the_gap() -> None:
    with serve(config(event_history=5), approvers=[StaticApprover("allow")]) as served:
        async with served.client(headers=served.auth) as client:
            await _reviews(client, 4, "g")
            async with events(client, headers={"Last-Event-ID": "0"}) as stream:
                snapshot = await stream.next()
                gap = await stream.next()
                kept = [await stream.next() for _ in range(5)]
    assert snapshot.kind == "snapshot"
    assert gap.kind == "gap"
    first_kept = kept[0].event().seq
    assert gap.json() == {"first": 1, "last": first_kept - 1}
    assert [m.event().seq for m in kept] == list(range(first_kept, first_kept + 5))


async def test_the_snapshot_names_what_waits_when_the_stream_opens() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client, anyio.create_task_group() as group:

            async def review() -> None:
                await client.post("/v1/review", json=bash("make install", "snap"))

            async with events(client, "?call=snap") as stream:
                await stream.until("snapshot")
                group.start_soon(review)
                with anyio.fail_after(WAIT):
                    pending = (await stream.until("pending")).json()
            async with events(client) as stream:
                snapshot = (await stream.until("snapshot")).json()
            await client.post(
                "/v1/calls/snap/decision", json={"decision": "allow", "digest": pending["digest"]}
            )
    assert [entry["id"] for entry in snapshot["pending"]] == ["snap"]
    assert snapshot["pending"][0]["digest"] == pending["digest"]
    kinds = [event["event"] for event in snapshot["pending"][0]["events"]]
    assert kinds[:2] == ["call.proposed", "plan.ready"]


async def test_stopping_the_service_ends_open_streams() -> None:
    with serve() as served:
        async with served.client(headers=served.auth) as client, events(client) as stream:
            await stream.until("snapshot")
            await anyio.to_thread.run_sync(served.portal.call, _close, served)
            with anyio.fail_after(WAIT), pytest.raises(EOFError):
                await _drain(stream)


async def _drain(stream: Sse) -> None:
    while True:
        await stream.next()


async def _close(served: Served) -> None:
    served.running.service.close()
