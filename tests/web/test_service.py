"""
The service's event history and watchers, without HTTP: bounded memory, cut-off, resume, gaps.
"""

from __future__ import annotations

import anyio
import pytest
from gateway_web import ApprovalService
from gateway_web._service import WATCH_BUFFER

from gateway import Gateway, GatewayConfig
from gateway.config import ServeSection
from gateway.events import CallOutcome

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """The service runs on asyncio (uvicorn)."""
    return "asyncio"


def _service(**serve: int) -> ApprovalService:
    settings = ServeSection(**serve)  # type: ignore[arg-type]
    return ApprovalService(Gateway(GatewayConfig(serve=settings)), None, settings)


def _event(seq: int, call_id: str = "c") -> CallOutcome:
    return CallOutcome(
        seq=seq, time="t", call_id=call_id, previous="p", digest=f"d{seq}", outcome="succeeded"
    )


async def test_the_history_and_the_events_per_call_stay_bounded() -> None:
    service = _service(event_history=10)
    for seq in range(1, 101):
        service._keep(_event(seq, f"call-{seq % 3}"))
    assert len(service._history) == 10
    assert [k.seq for k in service._history] == list(range(91, 101))
    assert sum(len(kept) for kept in service._by_call.values()) == 10
    assert [e["seq"] for e in map(_decode, service.events_of("call-1"))] == [91, 94, 97, 100]


async def test_a_watcher_resumes_from_the_history_then_live_without_duplicates() -> None:
    service = _service(event_history=100)
    for seq in range(1, 6):
        service._keep(_event(seq))
    watch = service.watch(after=2, call_id=None)
    service._keep(_event(6))
    live = [watch.stream.receive_nowait()]
    watch.stop()
    assert [m.kind for m in watch.backlog] == ["snapshot", "event", "event", "event"]
    assert [m.seq for m in watch.backlog[1:]] == [3, 4, 5]
    assert [m.seq for m in live] == [6]


async def test_resuming_from_before_the_history_is_a_gap() -> None:
    service = _service(event_history=3)
    for seq in range(1, 11):
        service._keep(_event(seq))
    watch = service.watch(after=2, call_id=None)
    watch.stop()
    assert [m.kind for m in watch.backlog] == ["snapshot", "gap", "event", "event", "event"]
    assert watch.backlog[1].data == b'{"first":3,"last":7}'


async def test_missed_events_drop_the_history_and_tell_the_watchers() -> None:
    service = _service()
    service._keep(_event(1))
    watch = service.watch(after=None, call_id=None)
    service._keep(_event(5))
    gap = watch.stream.receive_nowait()
    event = watch.stream.receive_nowait()
    resumed = service.watch(after=1, call_id=None)
    watch.stop()
    resumed.stop()
    assert gap.kind == "gap"
    assert gap.data == b'{"first":2,"last":4}'
    assert event.seq == 5
    assert [m.kind for m in resumed.backlog] == ["snapshot", "gap", "event"]


async def test_a_watcher_that_falls_behind_is_cut_off() -> None:
    service = _service(event_history=10)
    slow = service.watch(after=None, call_id=None)
    for seq in range(1, WATCH_BUFFER + 2):
        service._keep(_event(seq))
    received = 0
    with anyio.fail_after(10):
        async with slow.stream:
            async for _ in slow.stream:
                received += 1
    assert received == WATCH_BUFFER
    assert service.watchers == 0


async def test_too_many_watchers_are_refused_and_closing_ends_them() -> None:
    service = _service(max_watchers=2)
    first = service.watch(after=None, call_id=None)
    second = service.watch(after=None, call_id="x")
    with pytest.raises(RuntimeError, match="2 event streams are open already"):
        service.watch(after=None, call_id=None)
    service.close()
    with pytest.raises(anyio.EndOfStream):
        first.stream.receive_nowait()
    with pytest.raises(RuntimeError, match="stopping"):
        service.watch(after=None, call_id=None)
    first.stop()
    second.stop()


def _decode(raw: object) -> dict[str, int]:
    import msgspec

    decoded: dict[str, int] = msgspec.json.decode(raw)  # type: ignore[call-overload]
    return decoded
