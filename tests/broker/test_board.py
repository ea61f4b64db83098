"""
The JetStream board against a real nats-server: two replicas, one queue, consume-once decisions.

Each replica here is a `JetStreamBoard` on a connection of its own, as two
``gateway serve`` processes would have; the subprocess tests
(``test_replicas.py``) run the real thing end to end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager

import anyio
import msgspec
import pytest
from gateway_human import DecisionRecord, DecisionRefused
from gateway_nats import BoardEntry, Broker, JetStreamBoard, key_of, open_broker

from broker.nats_server import NatsServer
from gateway import ReviewRequest, ToolCall
from gateway.config import BrokerSection

pytestmark = pytest.mark.anyio

WAIT = 30.0


@pytest.fixture
def anyio_backend() -> str:
    """nats-py runs under asyncio only."""
    return "asyncio"


def section(server: NatsServer, prefix: str, **fields: object) -> BrokerSection:
    return msgspec.convert(
        {"url": server.url, "prefix": prefix, "lease": 2.0, **fields}, BrokerSection
    )


def request(call_id: str, command: str = "make deploy", digest: str | None = None) -> ReviewRequest:
    return ReviewRequest(
        kind="call",
        call=ToolCall("Bash", {"command": command}, call_id=call_id),
        digest=digest or f"sha256:{call_id:0>64}"[:71],
        plan=None,
    )


@asynccontextmanager
async def replica(
    server: NatsServer, prefix: str, name: str, *, heartbeat: bool = True
) -> AsyncIterator[tuple[Broker, JetStreamBoard]]:
    async with (
        open_broker(section(server, prefix), replica=name, heartbeat=heartbeat) as broker,
        anyio.create_task_group() as group,
    ):
        board = JetStreamBoard(broker, history=50, max_pending=20)
        await group.start(board.run)
        board.attach()
        try:
            yield broker, board
        finally:
            board.close("the test is over")
            group.cancel_scope.cancel()


async def until(predicate: Callable[[], bool]) -> None:
    """Wait (bounded) until the mirror of a board shows what ``predicate`` looks for."""
    with anyio.fail_after(WAIT):
        while not predicate():  # noqa: ASYNC110 -- polls a mirror that another connection fills
            await anyio.sleep(0.01)


async def until_pending(board: JetStreamBoard, board_id: str) -> None:
    await until(lambda: (found := board.get(board_id)) is not None and found[1] is None)


async def test_a_call_parked_on_one_replica_is_decided_on_the_other(
    nats_server: NatsServer, prefix: str
) -> None:
    async with AsyncExitStack() as stack:
        _, a = await stack.enter_async_context(replica(nats_server, prefix, "a"))
        _, b = await stack.enter_async_context(replica(nats_server, prefix, "b"))
        results: list[DecisionRecord] = []
        async with anyio.create_task_group() as group:

            async def wait() -> None:
                results.append(await a.park(request("c-1"), WAIT))

            group.start_soon(wait)
            await until_pending(b, "c-1")
            item = b.pending()[0]
            assert (item.id, item.replica) == ("c-1", "a")
            record = await b.decide(
                "c-1", decision="allow", digest=item.digest, decided_by="alice", note="ok"
            )
            assert record.decided_by == "alice"
        [released] = results
        assert (released.decision, released.by, released.decided_by) == ("allow", "person", "alice")
        assert (
            released.reason
            == 'Allowed `Bash {"command":"make deploy"}`: a person (alice) allowed it; their note: ok.'
        )
        for board in (a, b):
            with pytest.raises(DecisionRefused) as refused:
                await board.decide("c-1", decision="decline", digest=item.digest)
            assert refused.value.status == 409
            assert "already decided (allow by alice" in refused.value.message
        assert a.pending() == b.pending() == []


async def test_two_people_deciding_at_once_on_two_replicas_yield_one_decision(
    nats_server: NatsServer, prefix: str
) -> None:
    async with AsyncExitStack() as stack:
        _, a = await stack.enter_async_context(replica(nats_server, prefix, "a"))
        _, b = await stack.enter_async_context(replica(nats_server, prefix, "b"))
        for round_ in range(5):
            outcomes, released = await _race(a, b, f"race-{round_}")
            assert sorted(outcomes).count("refused") == 1, outcomes
            winner = next(o for o in outcomes if o != "refused")
            assert released.decided_by == winner
            assert released.decision == ("allow" if winner == "alice" else "decline")


async def _race(
    a: JetStreamBoard, b: JetStreamBoard, board_id: str
) -> tuple[list[str], DecisionRecord]:
    """Park on A; decide on A (alice, allow) and B (bob, decline) at the same moment."""
    outcomes: list[str] = []
    released: list[DecisionRecord] = []

    async def wait() -> None:
        released.append(await a.park(request(board_id), WAIT))

    async def decide(board: JetStreamBoard, who: str, allow: bool, digest: str) -> None:
        try:
            await board.decide(
                board_id,
                decision="allow" if allow else "decline",
                digest=digest,
                decided_by=who,
            )
        except DecisionRefused as refusal:
            outcomes.append("refused" if refusal.status == 409 else f"status {refusal.status}")
        else:
            outcomes.append(who)

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        await until_pending(a, board_id)
        await until_pending(b, board_id)
        digest = a.pending()[0].digest
        group.start_soon(decide, a, "alice", True, digest)
        group.start_soon(decide, b, "bob", False, digest)
    return outcomes, released[0]


async def test_a_decision_on_another_digest_is_refused_and_the_call_keeps_waiting(
    nats_server: NatsServer, prefix: str
) -> None:
    async with AsyncExitStack() as stack:
        _, a = await stack.enter_async_context(replica(nats_server, prefix, "a"))
        _, b = await stack.enter_async_context(replica(nats_server, prefix, "b"))
        released: list[DecisionRecord] = []
        async with anyio.create_task_group() as group:

            async def wait() -> None:
                released.append(await a.park(request("dg"), WAIT))

            group.start_soon(wait)
            await until_pending(b, "dg")
            with pytest.raises(DecisionRefused) as refused:
                await b.decide("dg", decision="allow", digest="sha256:" + "f" * 64)
            assert refused.value.status == 409
            assert "is not the plan digest" in refused.value.message
            assert [item.id for item in b.pending()] == ["dg"]
            await b.decide("dg", decision="decline", digest=b.pending()[0].digest)
        assert released[0].decision == "decline"


async def test_nobody_deciding_is_a_timeout_decline_and_a_late_decision_is_refused(
    nats_server: NatsServer, prefix: str
) -> None:
    async with AsyncExitStack() as stack:
        _, a = await stack.enter_async_context(replica(nats_server, prefix, "a"))
        _, b = await stack.enter_async_context(replica(nats_server, prefix, "b"))
        record = await a.park(request("late"), 0.5)
        assert (record.decision, record.by) == ("decline", "timeout")
        await until(lambda: (found := b.get("late")) is not None and found[1] is not None)
        with pytest.raises(DecisionRefused) as refused:
            await b.decide("late", decision="allow", digest=record.digest)
        assert refused.value.status == 409
        assert "no longer waits: Declined" in refused.value.message


async def test_an_id_that_waits_on_a_live_replica_cannot_be_parked_again(
    nats_server: NatsServer, prefix: str
) -> None:
    async with AsyncExitStack() as stack:
        _, a = await stack.enter_async_context(replica(nats_server, prefix, "a"))
        _, b = await stack.enter_async_context(replica(nats_server, prefix, "b"))
        async with anyio.create_task_group() as group:
            group.start_soon(a.park, request("dup"), WAIT)
            await until_pending(b, "dup")
            second = await b.park(request("dup"), WAIT)
            assert (second.decision, second.by) == ("decline", "overload")
            assert "already waits for a person, and ids must be unique" in second.reason
            await b.decide("dup", decision="decline", digest=b.pending()[0].digest)


async def test_a_call_whose_replica_stopped_is_picked_up_when_the_client_retries(
    nats_server: NatsServer, prefix: str
) -> None:
    """The replica that held the call is gone (no heartbeat): the retry on B waits there, and B's decision releases it."""
    async with AsyncExitStack() as stack:
        gone, _ = await stack.enter_async_context(
            replica(nats_server, prefix, "gone", heartbeat=False)
        )
        _, b = await stack.enter_async_context(replica(nats_server, prefix, "b"))
        item = b._item(request("orphan"), WAIT)
        item = msgspec.structs.replace(item, replica="gone")
        entry = BoardEntry(item=item, owner="gone", state="pending")
        await gone.calls.create(key_of("orphan"), msgspec.json.encode(entry))
        await until_pending(b, "orphan")
        released: list[DecisionRecord] = []
        async with anyio.create_task_group() as group:

            async def retry() -> None:
                released.append(await b.park(request("orphan"), WAIT))

            group.start_soon(retry)
            await until(lambda: b.pending()[0].replica == "b")
            assert b.pending()[0].created == item.created  # the same wait, not a new one
            await b.decide("orphan", decision="allow", digest=item.digest, decided_by="carol")
        assert (released[0].decision, released[0].decided_by) == ("allow", "carol")


async def test_a_decision_taken_while_the_replica_was_gone_is_delivered_once_to_the_retry(
    nats_server: NatsServer, prefix: str
) -> None:
    async with AsyncExitStack() as stack:
        gone, _ = await stack.enter_async_context(
            replica(nats_server, prefix, "gone", heartbeat=False)
        )
        _, b = await stack.enter_async_context(replica(nats_server, prefix, "b"))
        item = msgspec.structs.replace(b._item(request("taken"), WAIT), replica="gone")
        await gone.calls.create(
            key_of("taken"),
            msgspec.json.encode(BoardEntry(item=item, owner="gone", state="pending")),
        )
        await until_pending(b, "taken")
        await b.decide("taken", decision="allow", digest=item.digest, decided_by="dave")
        first = await b.park(request("taken"), WAIT)
        assert (first.decision, first.decided_by) == ("allow", "dave")
        # Delivered: the same id again is a new wait, not the old allow.
        second = await b.park(request("taken"), 0.3)
        assert (second.decision, second.by) == ("decline", "timeout")


async def test_a_call_of_a_stopped_replica_is_timed_out_by_another_after_its_deadline(
    nats_server: NatsServer, prefix: str
) -> None:
    async with AsyncExitStack() as stack:
        gone, _ = await stack.enter_async_context(
            replica(nats_server, prefix, "gone", heartbeat=False)
        )
        _, b = await stack.enter_async_context(replica(nats_server, prefix, "b"))
        item = msgspec.structs.replace(b._item(request("swept"), 0.1), replica="gone")
        await gone.calls.create(
            key_of("swept"),
            msgspec.json.encode(BoardEntry(item=item, owner="gone", state="pending")),
        )
        await until(lambda: (found := b.get("swept")) is not None and found[1] is not None)
        record = b.get("swept")[1]  # type: ignore[index]
        assert record is not None
        assert (record.decision, record.by) == ("decline", "timeout")


async def test_when_the_broker_cannot_be_reached_parking_declines_and_deciding_is_refused(
    own_nats: NatsServer, prefix: str
) -> None:
    async with replica(own_nats, prefix, "a") as (_, a):
        own_nats.stop()
        with anyio.fail_after(WAIT):
            record = await a.park(request("down"), WAIT)
        assert (record.decision, record.by) == ("decline", "unreachable")
        assert record.reason.startswith("Declined `Bash {")
        assert "did not answer" in record.reason
        assert record.reason.endswith("so no person can be asked, and the gateway fails closed.")


async def test_a_replica_that_starts_later_keeps_the_newest_decisions_in_order(
    nats_server: NatsServer, prefix: str
) -> None:
    """The bucket hands keys back in key order; the page's history is the newest decisions, newest first."""
    async with open_broker(section(nats_server, prefix), replica="w") as broker:
        seed = JetStreamBoard(broker)
        for index in (5, 1, 9, 3, 7, 2, 8):
            item = seed._item(request(f"h-{index}"), WAIT)
            record = msgspec.structs.replace(
                seed._timed_out(item), decided=f"2026-01-01T00:00:0{index}+00:00"
            )
            entry = BoardEntry(item=item, owner="w", state="decided", record=record, delivered=True)
            await broker.calls.create(key_of(item.id), msgspec.json.encode(entry))
    async with (
        open_broker(section(nats_server, prefix), replica="late") as broker,
        anyio.create_task_group() as group,
    ):
        board = JetStreamBoard(broker, history=3)
        await group.start(board.run)
        assert [item.id for item, _ in board.decided()] == ["h-9", "h-8", "h-7"]
        group.cancel_scope.cancel()
