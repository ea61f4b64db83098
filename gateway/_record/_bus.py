"""
The event bus: orders events into one hash chain and hands them to sinks and watchers.

Publishing takes a draft (``CallProposed(call_id=…, tool=…)``) and gives it
the next sequence number, the time, the digest of the event before it and
its own digest, without waiting: the chain is built in the order events are
published. Each sink reads from a bounded queue in batches (one write, one
flush for all the events that arrived while it was writing), so a review does
not cost a thread hop per event. When a sink falls ``buffer`` events behind,
publishers wait for it — back-pressure, never unbounded memory — and a sink
that stays blocked past the audit timeout is marked failed rather than
stalling the gateway. Watchers (live pages) never slow publishers: a watcher
that falls behind is cut off and must resume from a sequence number.

A required sink acknowledges each event once it has durably written it;
`EventBus.wait_written` lets a review hold its verdict until then. The review
that waits first commits what is queued itself, in one write and without a
task switch, when the sink can write it at once (group commit: one write, one
flush for every record queued by then). How long a verdict may wait depends
on what the sink can say about itself. A sink that measures its own writes
(``finished``: the log's writer thread) has failed only once a batch stays
unwritten for the audit timeout after it was handed over; a loop too busy to see its writes in time
(thousands of reviews at once) is not held against it — its verdicts wait,
until the review's own deadline. A sink that cannot say is judged by the
wait: a write that lands after the deadline of a verdict waiting on it does
not count — wherever the loop was meanwhile (an approver that blocked it) —
and the sink has failed. A sink that fails is *fenced*: the bus stops
waiting for it and tells it to take back every record it had not confirmed
in time, and every record from a verdict on whose withdrawal it did not
confirm (if no verdict after it was released), so that what a log says
never disagrees with what a caller was told.

Closing drains: every event published is written before the sinks close,
for as long as each sink makes progress (one that writes nothing for the
audit timeout has failed).

With a signer, the bus signs every ``chain.genesis`` and ``chain.checkpoint``
draft, and publishes a checkpoint itself every ``checkpoint_every`` events or
``checkpoint_interval`` seconds while events arrive.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import NamedTuple

import anyio
import msgspec
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from gateway._calls._errors import SinkFailure
from gateway._calls._events import (
    GENESIS,
    ChainCheckpoint,
    ChainGenesis,
    Event,
    SinkFailed,
    event_digest,
    signed_digest,
)
from gateway._record._signing import Signer
from gateway._record._sinks import SinkSlot
from gateway._work._isolation import LoopThread, call_isolated

__all__ = ["BusStatistics", "EventBus"]

_BATCH = 512
"""Events a sink is handed at most in one write."""


class BusStatistics(NamedTuple):
    """How the bus is doing."""

    published: int
    last_seq: int
    watchers: int
    failed_sinks: tuple[str, ...]
    checkpoints: int
    batches: int


def _is_cancellation(error: BaseException) -> bool:
    return isinstance(error, anyio.get_cancelled_exc_class())


def _too_slow(name: str, timeout: float) -> str:
    return f"sink {name!r} did not write the events within {timeout:g} s"


def _too_late(name: str) -> str:
    return f"sink {name!r} had not written the record when the review's time ran out"


class _Waiter:
    """
    A review waiting for a sink to write one event: set once it is written, or the sink failed.

    ``in_time`` says whether the write was seen before ``deadline``; a write
    seen after it, while the review still waits (`waiting`), fails the sink.
    """

    __slots__ = ("deadline", "event", "in_time", "timeout", "waiting")

    def __init__(self, deadline: float, timeout: float) -> None:
        self.event = anyio.Event()
        self.deadline = deadline
        self.timeout = timeout
        self.in_time = False
        self.waiting = True


class _SinkRunner:
    def __init__(self, slot: SinkSlot, *, buffer: int, thread: LoopThread | None) -> None:
        self.slot = slot
        self.name = slot.name
        self.required = slot.required
        self.buffer = buffer
        self.queue: deque[Event] = deque()
        self.wake = anyio.Event()
        # What publishers held back by a full queue wait on: made only when
        # one is (`room`), not for every batch.
        self._space: anyio.Event | None = None
        # The last event the sink wrote and keeps (a fence may take some back).
        self.written = -1
        self.failure: str | None = None
        # Reviews waiting for an event to be written, by sequence number: a
        # write wakes only those it satisfies, not every waiting review.
        self.waiters: list[tuple[int, int, _Waiter]] = []
        self._tie = 0
        # Lets the bus stop a sink that stays blocked in `write`: without it,
        # the gateway's task group (and so `async with Gateway`) never exits.
        self.scope = anyio.CancelScope()
        self.done = anyio.Event()
        # The loop of its own a sink that may block runs on: the one it was
        # opened on (its connections belong to that loop), closed by its owner.
        self.thread = thread
        self.batches = 0
        # Whether `_drain` is writing a batch (a commit from a review must
        # not overtake it) and since when (``time.monotonic()``, the clock
        # the sink's writer answers `finished` in), and whether that writer
        # judges the sink.
        self.writing = False
        self.began = 0.0
        self.judged_by_writer = slot.finished is not None

    def waiter(self, seq: int, deadline: float = math.inf, timeout: float = math.inf) -> _Waiter:
        """A waiter set once ``seq`` is written or the sink fails; a write after ``deadline`` fails the sink."""
        waiter = _Waiter(deadline, timeout)
        if self.written >= seq or self.failure is not None:
            waiter.in_time = self.written >= seq
            waiter.event.set()
            return waiter
        self._tie += 1
        heapq.heappush(self.waiters, (seq, self._tie, waiter))
        return waiter

    def wake_waiters(self) -> None:
        """Set every waiter, once the sink failed."""
        while self.waiters:
            heapq.heappop(self.waiters)[2].event.set()

    def confirm(self, seq: int) -> bool:
        """
        Count the events through ``seq`` as written, now; whether they count.

        If that is after the deadline of a review still waiting for one of
        them, it does not count: whatever held the loop, the review is past
        its deadline and must decline, and the write must be taken back — so
        the sink has failed (unless it catches up: then it is only late).
        """
        due: list[_Waiter] = []
        while self.waiters and self.waiters[0][0] <= seq:
            due.append(heapq.heappop(self.waiters)[2])
        now = anyio.current_time()
        late = next((w for w in due if w.waiting and w.deadline <= now), None)
        # A sink judged by its writer that is late for a review's deadline is
        # behind a busy loop, not broken: the review declines, the sink goes on.
        counts = late is None or self.slot.catches_up or self.judged_by_writer
        if late is not None and not counts:
            self.on_failure(_too_slow(self.name, late.timeout))
        else:
            self.written = seq
            for waiter in due:
                waiter.in_time = waiter.deadline > now
        for waiter in due:
            waiter.event.set()
        return counts

    @property
    def failed(self) -> bool:
        """Whether the sink failed (it is never written to again)."""
        return self.failure is not None

    def enqueue(self, event: Event) -> None:
        self.queue.append(event)
        self.wake.set()

    def room(self) -> anyio.Event:
        """An event set once the sink takes events off its queue, or fails: what a held-back publisher waits on."""
        if self._space is None:
            self._space = anyio.Event()
        return self._space

    def made_room(self) -> None:
        """Wake the publishers waiting for `room`."""
        if self._space is not None:
            self._space.set()
            self._space = None

    async def run(self) -> None:
        try:
            with self.scope:
                await self._drain()
        finally:
            self.done.set()

    async def _write(self, batch: list[Event]) -> None:
        slot = self.slot
        if slot.write_batch is not None:
            function, arguments = slot.write_batch, (batch,)
            if self.thread is None:
                await function(*arguments)
                return
            outcome = await call_isolated(self.thread, function, *arguments)
            if outcome.error is not None:
                raise outcome.error
            return
        for event in batch:
            if self.thread is None:
                await slot.sink.write(event)
                continue
            result = await call_isolated(self.thread, slot.sink.write, event)
            if result.error is not None:
                raise result.error

    def _failed_to_write(self, error: BaseException) -> None:
        # A plugin failure, whatever it raised: the sink is marked failed,
        # the gateway goes on.
        self.on_failure(f"sink {self.name!r} failed to write ({type(error).__name__}: {error})")

    def commit(self) -> None:
        """
        Write what is queued at once, from the caller, when the sink can (``write_now``).

        Only between the batches `_drain` writes, so records stay in order;
        a sink that cannot write them at once now leaves them to `_drain`.
        """
        write_now = self.slot.write_now
        queue = self.queue
        if write_now is None or self.writing or self.failure is not None or not queue:
            return
        batch = list(queue) if len(queue) <= _BATCH else list(itertools.islice(queue, _BATCH))
        try:
            written = write_now(batch)
        except Exception as error:  # noqa: BLE001 -- a plugin's failure fails the sink
            self._failed_to_write(error)
            return
        if not written or self.failed:
            return
        for _ in range(len(batch)):
            queue.popleft()
        self.made_room()
        if self.confirm(batch[-1].seq):
            self.batches += 1

    async def _drain(self) -> None:
        while self.failure is None:
            if not self.queue:
                self.wake = anyio.Event()
                await self.wake.wait()
                continue
            queue = self.queue
            if len(queue) <= _BATCH:
                batch = list(queue)
                queue.clear()
            else:
                batch = [queue.popleft() for _ in range(_BATCH)]
            self.made_room()
            self.writing = True
            self.began = time.monotonic()
            try:
                await self._write(batch)
            except BaseException as error:
                if _is_cancellation(error):
                    raise
                self._failed_to_write(error)
                return
            finally:
                self.writing = False
            if self.failed:
                return  # fenced while it wrote: the write does not count
            if not self.confirm(batch[-1].seq):
                return  # too late for a review waiting on it
            self.batches += 1

    def stalled_for(self, timeout: float) -> float | None:
        """
        For a sink judged by its writer: how long to wait before asking again, or ``None`` once it stalled for ``timeout``.

        It stalled when the batch `_drain` handed it ``timeout`` seconds ago
        (by the clock, however late the loop) is not written yet — neither
        in its writer, which finished nothing since, nor held on the loop by
        the plugin. A batch its writer finished, waiting only for the loop to
        see it, is not held against it; nor is a queue `_drain` has not come
        back for. A sink whose ``finished`` raises has stalled. For a sink not
        judged by its writer: ``None`` (the wait itself judges it).
        """
        finished = self.slot.finished
        if finished is None:
            return None
        if not self.writing:
            return timeout
        try:
            done = float(finished())
        except Exception:  # noqa: BLE001 -- a sink that cannot say how its write goes has failed
            return None
        if done >= self.began:
            return timeout  # written: the loop is what is behind
        age = time.monotonic() - self.began
        if not age < timeout:  # NaN or more: stalled
            return None
        return max(timeout - age, 0.01)

    # Set by the bus: how a runner reports its own failure.
    on_failure: Callable[[str], None]


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
        genesis: str | None = None,
        signer: Signer | None = None,
        checkpoint_every: int = 1000,
        checkpoint_interval: float = 60.0,
    ) -> None:
        self._clock = clock
        self._buffer = buffer
        self._sink_timeout = sink_timeout
        self._seq = start_seq
        self._previous = previous
        self._genesis = genesis
        self._signer = signer
        self._every = checkpoint_every
        self._interval = checkpoint_interval
        self._since = 0
        self._runners: list[_SinkRunner] = []
        self._threads: list[LoopThread] = []
        self._required: tuple[str, ...] = ()
        self._required_runners: tuple[_SinkRunner, ...] = ()
        self._watchers: dict[int, MemoryObjectSendStream[Event]] = {}
        self._next_watcher = 0
        self._published = 0
        self._checkpoints = 0
        self._attested: list[Callable[[ChainGenesis | ChainCheckpoint], None]] = []
        self._closing = False
        # The last event a review released its verdict on (`wait_written`),
        # and the verdict records being withdrawn after it: a fence keeps the
        # one, and takes back the others whose withdrawal it did not write.
        self._released = -1
        self._withdrawn: list[int] = []

    # ── set-up ──

    def add_sink(self, slot: SinkSlot, thread: LoopThread | None = None) -> None:
        """
        Register a sink (before `start`).

        A sink that does not share the gateway's loop is written on ``thread``
        (the `LoopThread` it was opened on; the caller closes it after the
        sink's ``aclose``), or on a thread of its own the bus closes.
        """
        if thread is None and not slot.shares_loop:
            thread = LoopThread(slot.name)
            self._threads.append(thread)
        runner = _SinkRunner(slot, buffer=self._buffer, thread=thread)
        runner.on_failure = lambda reason: self._fail(runner, reason)
        self._runners.append(runner)
        self._required_runners = tuple(r for r in self._runners if r.required)
        self._required = tuple(r.name for r in self._required_runners)

    def on_attested(self, callback: Callable[[ChainGenesis | ChainCheckpoint], None]) -> None:
        """Call ``callback`` with every genesis and checkpoint record as it is published (for witnesses)."""
        self._attested.append(callback)

    def start(self, task_group: TaskGroup) -> None:
        """Start one task per sink, and the checkpoint timer when there is a signer, in ``task_group``."""
        for runner in self._runners:
            task_group.start_soon(runner.run, name=f"gateway sink {runner.name}")
        if self._signer is not None and self._runners:
            task_group.start_soon(self._tick, name="gateway checkpoints")

    async def _tick(self) -> None:
        while not self._closing:
            await anyio.sleep(self._interval)
            if self._since and not self._closing:
                self.checkpoint()

    @property
    def required_sinks(self) -> tuple[str, ...]:
        """The names of the sinks whose writes a verdict waits for."""
        return self._required

    @property
    def recording(self) -> bool:
        """Whether anyone records or watches events (else they are numbered, not built)."""
        return bool(self._runners or self._watchers)

    @property
    def pressed(self) -> bool:
        """Whether publishing would wait now (a sink is ``buffer`` events behind)."""
        for runner in self._runners:
            if runner.failure is None and len(runner.queue) >= runner.buffer:
                return True
        return False

    def count(self, events: int = 1) -> int:
        """Number ``events`` events nobody records or watches, without building them; the first one's sequence number."""
        seq = self._seq
        self._seq += events
        self._published += events
        return seq

    @property
    def halted(self) -> str | None:
        """Why verdicts can no longer be released (a required sink failed), or ``None``."""
        for runner in self._runners:
            if runner.required and runner.failure:
                return runner.failure
        return None

    # ── publishing ──

    def _chain(self, draft: Event) -> Event:
        """Put a draft in the chain: number, time, link and digest (and a signature for chain records)."""
        event = msgspec.structs.replace(
            draft, seq=self._seq, time=self._clock(), previous=self._previous, digest=""
        )
        if isinstance(event, ChainGenesis | ChainCheckpoint) and self._signer is not None:
            event = msgspec.structs.replace(
                event,
                algorithm=self._signer.algorithm,
                key=self._signer.key_id,
                signature="",
            )
            event = msgspec.structs.replace(
                event, signature=self._signer.sign(signed_digest(event).encode())
            )
        event = msgspec.structs.replace(event, digest=event_digest(event))
        self._seq += 1
        self._previous = event.digest
        self._published += 1
        return event

    def _hand_on(self, event: Event) -> None:
        for runner in self._runners:
            if runner.failure is None:
                runner.enqueue(event)
        if self._watchers:
            for key, send in list(self._watchers.items()):
                try:
                    send.send_nowait(event)
                except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    # A slow watcher is cut off; it resumes by sequence number.
                    del self._watchers[key]
                    send.close()
        if isinstance(event, ChainGenesis | ChainCheckpoint):
            if isinstance(event, ChainGenesis):
                self._genesis = event.digest
            for callback in self._attested:
                callback(event)

    def publish_nowait(self, draft: Event) -> int:
        """
        Chain and hand on one event at once, past any back-pressure; its sequence number.

        For the gateway's own records that must not wait (a sink's failure, a
        checkpoint); everything else goes through `publish`.
        """
        if not self._runners and not self._watchers:
            return self.count()  # nobody records or watches: numbered, not built
        event = self._chain(draft)
        self._hand_on(event)
        if not isinstance(event, ChainCheckpoint):
            self._since += 1
            if self._signer is not None and self._since >= self._every:
                self.checkpoint()
        return event.seq

    async def publish(self, draft: Event) -> int:
        """
        Chain and hand on one event; return its sequence number.

        Waits first while a sink is ``buffer`` events behind (back-pressure),
        at most the sink timeout, after which that sink is marked failed. The
        chain is extended only after the wait, so a publisher cancelled while
        it waits leaves no gap.
        """
        for runner in self._runners:
            patience = self._sink_timeout
            while runner.failure is None and len(runner.queue) >= runner.buffer:
                with anyio.move_on_after(patience) as scope:
                    await runner.room().wait()
                if scope.cancelled_caught:
                    again = runner.stalled_for(self._sink_timeout)
                    if again is not None:
                        patience = again  # its writer writes: the loop is what is behind
                        continue
                    self._fail(
                        runner, f"sink {runner.name!r} stayed blocked for {self._sink_timeout:g} s"
                    )
        return self.publish_nowait(draft)

    def checkpoint(self, *, final: bool = False) -> int | None:
        """Publish a signed checkpoint of the chain so far (when there is a signer); its sequence number."""
        if self._signer is None or not self._runners:
            return None
        self._since = 0
        self._checkpoints += 1
        return self.publish_nowait(
            ChainCheckpoint(
                genesis=self._genesis or "",
                covered=self._seq,
                algorithm=self._signer.algorithm,
                final=final,
            )
        )

    # ── releasing verdicts ──

    async def wait_written(
        self,
        seq: int,
        timeout: float,  # noqa: ASYNC109 -- the timeout is the audit budget, reported in the failure
        *,
        late_fails: bool = True,
        until: float | None = None,
    ) -> None:
        """
        Wait until every required sink has written event ``seq``.

        Returning means the verdict may be released on it: every required sink
        wrote it, saw it written in time, and keeps it. What is queued is
        first committed from here when a sink can write it at once (group
        commit), so a review whose record that writes returns without waiting.

        In time means: for a sink judged by its writer (`SinkSlot.finished`),
        before ``until`` (the review's deadline, a loop time; at least
        ``timeout`` from now), while no batch stays unwritten in it for
        ``timeout`` (then it has failed); for another sink, within
        ``timeout`` — a sink that does not write it by then, or writes it only
        after (``late_fails``: for a record a verdict is released on; a
        withdrawal that lands late still says what the caller was told), has
        failed. A failed sink is fenced and the gateway halted: no verdict is
        released without its record. A sink only late (it catches up, or its
        writer is sound and the loop is behind) is left writing: this
        verdict is not released, later ones are once it has written theirs.

        Raises:
            SinkFailure: A required sink failed, or did not write it in time.
        """
        runners = self._required_runners
        for runner in runners:
            if runner.written < seq:
                runner.commit()
        if all(runner.written >= seq for runner in runners):
            self._released = max(self._released, seq)
            return
        now = anyio.current_time()
        deadline = now + timeout
        last = deadline if until is None else max(until, deadline)
        waiting = [
            (
                runner,
                runner.waiter(
                    seq,
                    (last if runner.judged_by_writer else deadline) if late_fails else math.inf,
                    timeout,
                ),
                last if runner.judged_by_writer else deadline,
            )
            for runner in runners
        ]
        try:
            for runner, waiter, end in waiting:
                await self._wait(runner, waiter, timeout, end)
                if not (waiter.in_time and runner.written >= seq):
                    break  # failed, or late: the verdict cannot be released
        finally:
            for _, waiter, _ in waiting:
                waiter.waiting = False
        for runner, waiter, _ in waiting:
            if not (waiter.in_time and runner.written >= seq):
                # Failed, late or not written — or written in time and taken back since by a fence.
                raise SinkFailure(
                    runner.failure
                    or (
                        _too_late(runner.name)
                        if runner.judged_by_writer
                        else _too_slow(runner.name, timeout)
                    )
                )
        self._released = max(self._released, seq)

    async def _wait(
        self,
        runner: _SinkRunner,
        waiter: _Waiter,
        timeout: float,  # noqa: ASYNC109 -- the audit budget, which judges the sink
        end: float,
    ) -> None:
        """
        Wait for ``waiter`` until the loop time ``end``; fail a sink that stalls or, not judged by its writer, is too slow.

        A sink judged by its writer is asked how long its write has been
        under way whenever that could have reached ``timeout``; one that only
        runs out of ``end`` is late, not failed (nor is one that catches up).
        """
        while not waiter.event.is_set():
            now = anyio.current_time()
            again = runner.stalled_for(timeout) if runner.judged_by_writer else None
            if runner.judged_by_writer and again is None:
                self._fail(runner, _too_slow(runner.name, timeout))
                return
            if now >= end:
                if not (runner.judged_by_writer or runner.slot.catches_up):
                    self._fail(runner, _too_slow(runner.name, timeout))
                return
            wake = end if again is None else min(end, now + again)
            with anyio.CancelScope(deadline=wake):
                await waiter.event.wait()

    def withdrawing(self, seq: int) -> None:
        """
        Say that the verdict recorded at ``seq`` is being withdrawn: a decline is released instead.

        Until the withdrawal is written, the record would say more than the
        caller was told: a sink fenced before then takes it back too, if no
        verdict after it was released (else the record stays, and so does
        the disagreement — the withdrawal is then all that can right it).
        """
        self._withdrawn = [s for s in self._withdrawn if s > self._released]
        if seq > self._released:
            self._withdrawn.append(seq)

    def _fail(self, runner: _SinkRunner, reason: str) -> None:
        if runner.failure is not None:
            return
        runner.failure = reason
        # Everything the sink confirmed in time stays (a review may already be
        # releasing a verdict on it), but a verdict being withdrawn, and what
        # follows it, may go: nothing after it was released.
        taken_back = [s for s in self._withdrawn if s > self._released]
        if taken_back:
            runner.written = min(runner.written, min(taken_back) - 1)
        runner.wake_waiters()
        runner.made_room()
        runner.wake.set()
        runner.scope.cancel()
        runner.queue.clear()
        if runner.slot.fence is not None:
            with contextlib.suppress(Exception):
                runner.slot.fence(runner.written)
        if not self._closing:
            self.publish_nowait(SinkFailed(sink=runner.name, reason=reason))

    # ── closing ──

    async def close(self) -> None:
        """
        Let the sinks drain and stop.

        Every event published is written first, for as long as each sink
        makes progress: one that writes nothing for the sink timeout has
        failed (and is fenced), however long the whole drain takes.
        """
        self._closing = True
        for send in self._watchers.values():
            send.close()
        self._watchers.clear()
        last = self._seq - 1
        for runner in self._runners:
            while runner.failure is None and runner.written < last:
                before = runner.written
                runner.commit()
                if runner.written > before:
                    continue
                waiter = runner.waiter(before + 1)
                with anyio.move_on_after(self._sink_timeout):
                    await waiter.event.wait()
                waiter.waiting = False
                if runner.written <= before:
                    break  # nothing written for the sink timeout: it has failed
        for runner in self._runners:
            if runner.failure is None and runner.written < self._seq - 1:
                self._fail(
                    runner, f"sink {runner.name!r} did not finish writing when the gateway closed"
                )
            runner.scope.cancel()
        for thread in self._threads:
            thread.close()

    # ── watching ──

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
            checkpoints=self._checkpoints,
            batches=sum(r.batches for r in self._runners),
        )
