"""
The event bus: orders events into one hash chain and hands them to sinks and watchers.

Publishing is serialised: each event gets the next sequence number and the
digest of the one before it. Sinks (the audit log…) each read from a bounded
stream; when one falls ``buffer`` events behind, publishers wait for it —
back-pressure, never unbounded memory — and a sink that stays blocked past the
audit timeout is marked failed rather than stalling the gateway. Watchers
(live pages) never slow publishers: a watcher that falls behind is cut off and
must resume from a sequence number (the approval service keeps a history).

A required sink acknowledges each event once it has durably written it;
`EventBus.wait_written` lets a review hold its verdict until then.
"""

from __future__ import annotations

import heapq
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, NamedTuple

import anyio
import msgspec
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from gateway._errors import SinkFailure
from gateway._events import GENESIS, Event, event_digest
from gateway._sinks import Sink

__all__ = ["BusStatistics", "EventBus"]


class BusStatistics(NamedTuple):
    """How the bus is doing."""

    published: int
    last_seq: int
    watchers: int
    failed_sinks: tuple[str, ...]


class _SinkRunner:
    def __init__(self, name: str, sink: Sink, *, required: bool, buffer: int) -> None:
        self.name = name
        self.sink = sink
        self.required = required
        self.send: MemoryObjectSendStream[Event]
        self.receive: MemoryObjectReceiveStream[Event]
        self.send, self.receive = anyio.create_memory_object_stream[Event](buffer)
        self.written = -1
        self.failure: str | None = None
        # Reviews waiting for an event to be written, by sequence number: a
        # write wakes only those it satisfies, not every waiting review.
        self.waiters: list[tuple[int, int, anyio.Event]] = []
        self._tie = 0
        # Lets `EventBus.close` stop a sink that stays blocked in `write`: without
        # it, the gateway's task group (and so `async with Gateway`) never exits.
        self.scope = anyio.CancelScope()
        self.done = anyio.Event()

    def waiter(self, seq: int) -> anyio.Event:
        """An event set once ``seq`` is written or the sink fails."""
        event = anyio.Event()
        if self.written >= seq or self.failure is not None:
            event.set()
            return event
        self._tie += 1
        heapq.heappush(self.waiters, (seq, self._tie, event))
        return event

    def _wake(self) -> None:
        while self.waiters and (self.failure is not None or self.waiters[0][0] <= self.written):
            heapq.heappop(self.waiters)[2].set()

    def fail(self, reason: str) -> None:
        if self.failure is None:
            self.failure = reason
        self._wake()

    async def run(self) -> None:
        try:
            with self.scope:
                await self._drain()
        finally:
            self.done.set()

    async def _drain(self) -> None:
        async with self.receive:
            async for event in self.receive:
                if self.failure is not None:
                    continue
                try:
                    await self.sink.write(event)
                except Exception as error:  # noqa: BLE001 -- a plugin failure: the sink is marked failed, the gateway goes on
                    self.fail(
                        f"sink {self.name!r} failed to write ({type(error).__name__}: {error})"
                    )
                    continue
                self.written = event.seq
                self._wake()


class EventBus:
    """Orders, chains and distributes a gateway's events."""

    def __init__(
        self,
        *,
        clock: Callable[[], str],
        buffer: int,
        sink_timeout: float,
        start_seq: int = 0,
        previous: str = GENESIS,
    ) -> None:
        self._clock = clock
        self._buffer = buffer
        self._sink_timeout = sink_timeout
        self._lock = anyio.Lock()
        self._seq = start_seq
        self._previous = previous
        self._runners: list[_SinkRunner] = []
        self._watchers: dict[int, MemoryObjectSendStream[Event]] = {}
        self._next_watcher = 0
        self._published = 0

    def add_sink(self, name: str, sink: Sink, *, required: bool) -> None:
        """Register a sink (before `start`)."""
        self._runners.append(_SinkRunner(name, sink, required=required, buffer=self._buffer))

    def start(self, task_group: TaskGroup) -> None:
        """Start one task per sink in ``task_group``."""
        for runner in self._runners:
            task_group.start_soon(runner.run, name=f"gateway sink {runner.name}")

    async def close(self) -> None:
        """Let the sinks drain (at most the sink timeout) and stop."""
        for runner in self._runners:
            await runner.send.aclose()
        for send in self._watchers.values():
            await send.aclose()
        self._watchers.clear()
        # A sink blocked in `write` would never see its stream close: a failed
        # sink is stopped at once, a healthy one gets the sink timeout to drain.
        for runner in self._runners:
            if runner.failure is not None:
                runner.scope.cancel()
        with anyio.move_on_after(self._sink_timeout):
            for runner in self._runners:
                await runner.done.wait()
        for runner in self._runners:
            if not runner.done.is_set():
                runner.fail(f"sink {runner.name!r} did not finish writing when the gateway closed")
                runner.scope.cancel()

    @property
    def required_sinks(self) -> tuple[str, ...]:
        """The names of the sinks whose writes a verdict waits for."""
        return tuple(r.name for r in self._runners if r.required)

    async def publish(self, kind: type[Event], call_id: str | None, **fields: Any) -> Event:
        """
        Build, chain and send one event; return it.

        Waits while a sink is ``buffer`` events behind (back-pressure), at most
        the sink timeout, after which that sink is marked failed.
        """
        async with self._lock:
            draft = kind(
                seq=self._seq,
                time=self._clock(),
                call_id=call_id,
                previous=self._previous,
                digest="",
                **fields,
            )
            event = msgspec.structs.replace(draft, digest=event_digest(draft))
            self._seq += 1
            self._previous = event.digest
            self._published += 1
            for runner in self._runners:
                if runner.failure is not None:
                    continue
                # The event is already in the chain: a send cut short by the
                # caller's cancellation would leave a gap in the sink's log that
                # later events skip over. So the send is shielded, still bounded
                # by the sink timeout (after which the sink is marked failed).
                with (
                    anyio.CancelScope(shield=True),
                    anyio.move_on_after(self._sink_timeout) as scope,
                ):
                    try:
                        await runner.send.send(event)
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                        runner.fail(f"sink {runner.name!r} stopped reading events")
                if scope.cancelled_caught:
                    runner.fail(f"sink {runner.name!r} stayed blocked for {self._sink_timeout:g} s")
            for key, send in list(self._watchers.items()):
                try:
                    send.send_nowait(event)
                except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    # A slow watcher is cut off; it resumes by sequence number.
                    del self._watchers[key]
                    send.close()
            return event

    async def wait_written(self, seq: int, timeout: float) -> None:  # noqa: ASYNC109 -- the timeout is the audit budget, reported in the failure
        """
        Wait until every required sink has written event ``seq``.

        Raises:
            SinkFailure: A required sink failed, or did not write it within ``timeout``.
        """
        with anyio.move_on_after(timeout):
            for runner in self._runners:
                if not runner.required:
                    continue
                if runner.written < seq:
                    await runner.waiter(seq).wait()
                if runner.written < seq:
                    raise SinkFailure(runner.failure or f"sink {runner.name!r} stopped")
            return
        slow = next((r.name for r in self._runners if r.required and r.written < seq), "?")
        raise SinkFailure(f"sink {slow!r} did not write the events within {timeout:g} s")

    @asynccontextmanager
    async def subscribe(
        self, buffer: int = 1024
    ) -> AsyncIterator[MemoryObjectReceiveStream[Event]]:
        """Watch events as they are published; a watcher that falls ``buffer`` behind is cut off."""
        send, receive = anyio.create_memory_object_stream[Event](max(buffer, 1))
        key = self._next_watcher
        self._next_watcher += 1
        self._watchers[key] = send
        try:
            async with receive:
                yield receive
        finally:
            self._watchers.pop(key, None)
            send.close()

    def statistics(self) -> BusStatistics:
        """Counters for monitoring."""
        return BusStatistics(
            published=self._published,
            last_seq=self._seq - 1,
            watchers=len(self._watchers),
            failed_sinks=tuple(r.name for r in self._runners if r.failure is not None),
        )
