"""
The approval service's state: the event history, the watchers, and the board.

One task (`ApprovalService.run`) watches the gateway's events; each event is
encoded once, kept in a bounded history (for ``Last-Event-ID`` resume and for
the events of one call), and handed to every watcher (an open event stream).
Handing on and registering a watcher both happen without an await, so a
watcher that starts from a sequence number gets every later event exactly
once: the ones already kept from the history, the rest live.

A watcher that falls behind is cut off (its stream ends); it reconnects with
the last sequence number it saw. Nothing here grows without bound.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any, Final, Literal, NamedTuple

import anyio
import msgspec
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from gateway_human import Board, DecisionRecord, Offer, WaitingCall

from gateway import Gateway
from gateway.config import ServeSection
from gateway.effects import summarise_effects
from gateway.events import Event, VerdictReached
from gateway_web._archive import CallSeen, archived, decided_item
from gateway_web._history import (
    HistoryPage,
    HistoryQuery,
    Kept,
    call_text,
    history_item,
    history_page,
)

__all__ = ["ApprovalService", "CallEntry", "Message", "Watch"]

WATCH_BUFFER: Final = 4096
"""Messages a watcher may fall behind before it is cut off."""

CALL_EVENTS: Final = 256
"""Events kept per call for its details (the rest are still in the history)."""

SEEN_CALLS: Final = 4096
"""Calls followed at once for the history (a call's few events come within moments)."""

_ENCODER: Final = msgspec.json.Encoder()


class Message(NamedTuple):
    """
    One message of an event stream.

    ``kind`` is ``event`` (a gateway event: ``seq`` is its sequence number),
    ``pending`` (a call now waits for a person), ``decided`` (a waiting call
    was decided), ``snapshot`` (what waits when the stream opens) or ``gap``
    (events the stream cannot deliver any more).
    """

    kind: Literal["event", "pending", "decided", "snapshot", "gap"]
    seq: int | None
    call_id: str | None
    data: bytes


class CallEntry(msgspec.Struct, frozen=True, kw_only=True):
    """
    A call (or a question of a call) as the page shows it.

    Attributes:
        id: The board id (the call id for a whole call).
        call_id: The call.
        kind: ``call``, ``hole`` or ``body``.
        state: ``pending`` or ``decided``.
        digest: The plan digest a decision must name.
        created: When it started waiting.
        deadline: When it is declined if nobody decides.
        timeout: Seconds it waits.
        request: What the person is asked (the call with secrets masked, its
            redacted plan, program positions, holes, sequence plan).
        offers: Approvals the rules approver offers to remember.
        decision: How it was decided, once it was.
        events: The gateway's events for the call so far (as published by
            this replica; a call waiting on another replica of a fleet has
            its events in the fleet's audit stream).
        replica: The replica of a fleet whose review waits for it (``None``
            without a broker).
        summary: What the call would do, in one sentence, writes first
            (`gateway.effects.summarise_effects` of its effects).
    """

    id: str
    call_id: str
    kind: str
    state: Literal["pending", "decided"]
    digest: str
    created: str
    deadline: str
    timeout: float
    request: Any
    offers: tuple[Offer, ...]
    decision: DecisionRecord | None
    events: tuple[msgspec.Raw, ...]
    replica: str | None = None
    summary: str = ""


class _Kept(NamedTuple):
    seq: int
    call_id: str | None
    data: bytes


class Watch(NamedTuple):
    """A registered watcher: the messages kept for it so far, then its live stream."""

    backlog: list[Message]
    stream: MemoryObjectReceiveStream[Message]
    stop: Callable[[], None]


class ApprovalService:
    """
    The state behind the HTTP API: the gateway, its board, the event history and the watchers.

    Args:
        gateway: An open gateway.
        board: The human approver's board (``None`` when no ``human``
            approver is in the chain: then no call ever waits for a person).
        settings: The ``[serve]`` table.
        audit_path: The audit log to serve read-only, if there is one.

    Attributes:
        instance: A random id of this run of the service: a page that sees it
            change knows the service restarted (what it showed is gone).
    """

    def __init__(
        self,
        gateway: Gateway,
        board: Board | None,
        settings: ServeSection,
        *,
        audit_path: str | None = None,
    ) -> None:
        self.gateway = gateway
        self.board = board
        self.settings = settings
        self.audit_path = audit_path
        self.instance = secrets.token_hex(8)
        # Decided questions as the history shows them, with their full text,
        # made once per decision (before the call's events leave the history).
        self._decided: OrderedDict[tuple[str, str], Kept] = OrderedDict()
        # What people decided in earlier runs, read back from the audit log at start.
        self._archive: list[Kept] = []
        # The calls seen lately (their events so far), and those an approval a
        # person remembered allowed, as the history shows them.
        self._seen: OrderedDict[str, CallSeen] = OrderedDict()
        self._remembered: OrderedDict[str, Kept] = OrderedDict()
        self._history: deque[_Kept] = deque()
        self._by_call: dict[str, deque[_Kept]] = {}
        self._last_seq = -1
        self._first_seq: int | None = None
        self._watchers: dict[
            int,
            tuple[str | None, MemoryObjectSendStream[Message], MemoryObjectReceiveStream[Message]],
        ] = {}
        # The watchers that came without the token: the first to go when a
        # watcher with it finds every place taken.
        self._anonymous: list[int] = []
        self._next_watcher = 0
        self._closed = False
        self._stop_board: Callable[[], None] | None = None

    # ── the recorder ──

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Keep and hand on the gateway's events until the service closes."""
        if self.audit_path is not None and self.board is not None:
            self._archive = await anyio.to_thread.run_sync(
                archived, self.audit_path, self.settings.history
            )
        if self.board is not None:
            stop_watching = self.board.watch(self._board_changed)
            detach = self.board.attach()

            def stop() -> None:
                stop_watching()
                detach()

            self._stop_board = stop
        started = False
        while not self._closed:
            try:
                async with self.gateway.subscribe(
                    max(WATCH_BUFFER, self.settings.event_history)
                ) as stream:
                    if not started:
                        started = True
                        task_status.started()
                    async for event in stream:
                        self._keep(event)
            except RuntimeError:
                return  # The gateway closed.
            # Cut off by the bus (this task fell behind): subscribe again; the
            # next event kept does not follow the last, and watchers are told.

    def _keep(self, event: Event) -> None:
        data = _ENCODER.encode(event)
        kept = _Kept(event.seq, event.call_id, data)
        if self._last_seq >= 0 and event.seq != self._last_seq + 1:
            # Events were missed: the history before them can no longer be
            # resumed from without a gap, so it is dropped, and watchers are told.
            self._history.clear()
            self._by_call.clear()
            self._first_seq = None
            self._broadcast(
                Message("gap", None, None, _gap(self._last_seq + 1, event.seq - 1)), None
            )
        if self._first_seq is None:
            self._first_seq = event.seq
        self._history.append(kept)
        if event.call_id is not None:
            calls = self._by_call.get(event.call_id)
            if calls is None:
                calls = self._by_call[event.call_id] = deque(maxlen=CALL_EVENTS)
            calls.append(kept)
        while len(self._history) > self.settings.event_history:
            old = self._history.popleft()
            self._first_seq = self._history[0].seq
            if old.call_id is not None:
                calls = self._by_call.get(old.call_id)
                if calls and calls[0] is old:
                    calls.popleft()
                if calls is not None and not calls:
                    del self._by_call[old.call_id]
        self._last_seq = event.seq
        self._broadcast(Message("event", event.seq, event.call_id, data), event.call_id)
        if event.call_id is not None:
            self._see(event.call_id, event)

    def _see(self, call_id: str, event: Event) -> None:
        """Follow a call's events; keep it for the history when an approval a person remembered allowed it."""
        if isinstance(event, VerdictReached) and event.question is None:
            self._seen.pop(call_id, None)  # The call is decided: its plan need not be kept.
            return
        seen = self._seen.get(call_id)
        if seen is None:
            seen = self._seen[call_id] = CallSeen()
            while len(self._seen) > SEEN_CALLS:
                self._seen.popitem(last=False)
        if not seen.see(event) or seen.decided is None or seen.decided.decided_by is not None:
            return  # A person's decision comes from the board.
        made = decided_item(call_id, seen, 1)
        if made is not None:
            self._remembered[call_id] = made
            while len(self._remembered) > max(1, self.settings.history):
                self._remembered.popitem(last=False)

    def _board_changed(self, item: WaitingCall, record: DecisionRecord | None) -> None:
        if record is None:
            data = _ENCODER.encode(self.entry(item, None))
            self._broadcast(Message("pending", None, item.call_id, data), item.call_id)
        else:
            self._history_item(item, record)
            data = _ENCODER.encode({"id": item.id, "call_id": item.call_id, "decision": record})
            self._broadcast(Message("decided", None, item.call_id, data), item.call_id)

    def _broadcast(self, message: Message, call_id: str | None) -> None:
        for key, (wanted, send, _) in list(self._watchers.items()):
            if wanted is not None and wanted != call_id:
                continue
            try:
                send.send_nowait(message)
            except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                # Fallen behind: cut off; it resumes from its last sequence number.
                del self._watchers[key]
                send.close()

    # ── watching ──

    @property
    def last_seq(self) -> int:
        """The sequence number of the last event kept (-1 before the first)."""
        return self._last_seq

    @property
    def watchers(self) -> int:
        """How many event streams are open."""
        return len(self._watchers)

    def watch(self, after: int | None, call_id: str | None, *, authorized: bool = False) -> Watch:
        """
        Register a watcher; the snapshot and the events kept after ``after`` come first.

        When every place is taken, a watcher with the token (``authorized``)
        ends the oldest stream opened without it; one without the token is
        refused. So streams opened without the token cannot lock a page out.

        Raises:
            RuntimeError: The service is closed, or too many streams are open.
        """
        if self._closed:
            raise RuntimeError("The approval service is stopping.")
        if len(self._watchers) >= self.settings.max_watchers:
            anonymous = next((key for key in self._anonymous if key in self._watchers), None)
            if not authorized or anonymous is None:
                raise RuntimeError(
                    f"{self.settings.max_watchers} event streams are open already; close one and retry."
                )
            _, evicted, _ = self._watchers.pop(anonymous)
            self._anonymous.remove(anonymous)
            evicted.close()
        backlog: list[Message] = []
        pending = [
            self.entry(item, None)
            for item in (self.board.pending() if self.board is not None else [])
            if call_id is None or item.call_id == call_id
        ]
        backlog.append(
            Message(
                "snapshot",
                None,
                None,
                _ENCODER.encode(
                    {"seq": self._last_seq, "instance": self.instance, "pending": pending}
                ),
            )
        )
        if after is not None and after < self._last_seq:
            first = self._first_seq if self._first_seq is not None else self._last_seq + 1
            if after + 1 < first:
                backlog.append(Message("gap", None, None, _gap(after + 1, first - 1)))
            source = self._by_call.get(call_id, ()) if call_id is not None else self._history
            backlog.extend(
                Message("event", kept.seq, kept.call_id, kept.data)
                for kept in source
                if kept.seq > after
            )
        send, receive = anyio.create_memory_object_stream[Message](WATCH_BUFFER)
        key = self._next_watcher
        self._next_watcher += 1
        self._watchers[key] = (call_id, send, receive)
        if not authorized:
            self._anonymous.append(key)

        def stop() -> None:
            self._watchers.pop(key, None)
            if key in self._anonymous:
                self._anonymous.remove(key)
            send.close()
            receive.close()

        return Watch(backlog, receive, stop)

    # ── calls ──

    def events_of(self, call_id: str) -> tuple[msgspec.Raw, ...]:
        """The kept events of one call, in order."""
        return tuple(msgspec.Raw(kept.data) for kept in self._by_call.get(call_id, ()))

    def entry(self, item: WaitingCall, record: DecisionRecord | None) -> CallEntry:
        """A call on the board, with its events, as the API shows it."""
        return CallEntry(
            id=item.id,
            call_id=item.call_id,
            kind=item.kind,
            state="pending" if record is None else "decided",
            digest=item.digest,
            created=item.created,
            deadline=item.deadline,
            timeout=item.timeout,
            request=item.request,
            offers=item.offers,
            decision=record,
            events=self.events_of(item.call_id),
            replica=item.replica,
            summary=summarise_effects(item.request.effects),
        )

    def _history_item(self, item: WaitingCall, record: DecisionRecord) -> Kept:
        key = (item.id, record.decided)
        made = self._decided.get(key)
        if made is None:
            made = self._decided[key] = Kept(
                history_item(item, record, self.events_of(item.call_id)), call_text(item), 1
            )
            while len(self._decided) > max(1, self.settings.history):
                self._decided.popitem(last=False)
        return made

    def history(self, query: HistoryQuery) -> HistoryPage:
        """A page of the decisions the board keeps, for ``query`` (see `gateway_web._history`)."""
        kept = (
            [self._history_item(item, record) for item, record in self.board.decided()]
            if self.board is not None
            else []
        )
        ids = {one.item.id for one in kept}
        kept.extend(one for one in self._remembered.values() if one.item.id not in ids)
        ids.update(self._remembered)
        kept.extend(one for one in self._archive if one.item.id not in ids)
        return history_page(self.instance, kept, query)

    def close(self) -> None:
        """End every event stream (the service is stopping)."""
        self._closed = True
        if self._stop_board is not None:
            self._stop_board()
        for _, send, _ in self._watchers.values():
            send.close()  # Its stream ends once drained (the handler closes its end).
        self._watchers.clear()


def _gap(first: int, last: int) -> bytes:
    return _ENCODER.encode({"first": first, "last": last})
