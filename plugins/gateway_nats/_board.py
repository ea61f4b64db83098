"""
The JetStream board: calls that wait for a person live in a key-value bucket every replica shares.

Each question is one key of the calls bucket (``c.`` and its board id in
URL-safe base64). Its value is a `BoardEntry`: the waiting call, the replica
holding the review that waits for it, and — once decided — the decision.
Every change is a compare-and-set on the key's revision (JetStream's
``Nats-Expected-Last-Subject-Sequence``), so exactly one of any number of
simultaneous changes wins, on however many replicas:

* parking creates the key (``create`` fails when it exists): two replicas
  cannot park the same id;
* a person's decision updates the pending entry at the revision the
  deciding replica read, after checking the plan digest in that entry: a
  second decision, a decision racing the timeout, and a decision on a call
  that changed under the same id all fail, and are refused (409);
* the waiting review's timeout, cancellation or closing is recorded the
  same way, so a person's decision and the timeout never both count;
* the review that waited marks the decision ``delivered`` once it has it:
  a decision is consumed once.

Every replica watches the bucket and keeps a mirror of it, so
`JetStreamBoard.pending` and `JetStreamBoard.get` read memory, every page
shows every waiting call, and a decision taken on replica B wakes the review
waiting on replica A within one round trip.

A replica that stops without closing (killed) leaves its calls pending. Its
heartbeat expires after ``[broker] lease`` seconds; then a client that
retries the same call (same id, same plan digest) on another replica picks
the call up there — still waiting until its first deadline, or at once with
the decision a person took meanwhile — and once a call's deadline has
passed by a lease, any replica records the timeout. Nothing is ever allowed
that no person allowed.

When the broker cannot be reached, parking declines at once (``by`` is
``unreachable``), a decision is refused with 503 and nothing is decided, and
a review that was waiting times out as usual (its record is written when the
broker is back, by whichever replica notices first).
"""

from __future__ import annotations

import base64
import hashlib
import heapq
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final, Literal

import anyio
import msgspec
import nats.js.errors
from anyio.abc import TaskStatus
from gateway_human import (
    BoardBase,
    BoardStatistics,
    DecisionRecord,
    DecisionRefused,
    Scope,
    WaitingCall,
    remembered_as,
    subject,
)
from nats.js.kv import KeyValue

from gateway import ReviewRequest
from gateway_nats._broker import BROKER_ERRORS, Broker, BrokerError, mirror
from gateway_nats._remembered import SharedApprovals

__all__ = ["BoardEntry", "JetStreamBoard", "key_of"]

_log = logging.getLogger("gateway_nats")

CLAIM_ATTEMPTS: Final = 4
"""Compare-and-set attempts before a park or a decision gives up on a key others keep changing."""

_DECODER: Final = msgspec.json.Decoder()


class BoardEntry(msgspec.Struct, frozen=True, kw_only=True):
    """
    One question in the calls bucket.

    Attributes:
        item: The waiting call (its ``replica`` is the holder's).
        owner: The replica whose review waits for it.
        state: ``pending`` until a decision (or the end of the wait) is
            recorded, then ``decided``.
        record: The decision, once ``decided``.
        delivered: The waiting review got the decision (and ``record`` then
            says what was remembered): a later review with the same id starts
            a new wait.
    """

    item: WaitingCall
    owner: str
    state: Literal["pending", "decided"]
    record: DecisionRecord | None = None
    delivered: bool = False


_ENTRY: Final = msgspec.json.Decoder(BoardEntry)
_ENCODE: Final = msgspec.json.Encoder().encode


def key_of(board_id: str) -> str:
    """The bucket key of a board id (URL-safe base64; a digest for very long ids)."""
    raw = board_id.encode("utf-8", "surrogatepass")
    text = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    if len(text) > 200:
        return "h." + hashlib.sha256(raw).hexdigest()
    return "c." + (text or "-")


def _moment(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return datetime.now(UTC)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _seconds_until(text: str) -> float:
    return (_moment(text) - datetime.now(UTC)).total_seconds()


class _Conflict(Exception):
    """Someone else changed the key between reading and writing it."""


class _Waiter:
    def __init__(self, key: str) -> None:
        self.key = key
        self.changed = anyio.Event()
        self.closing: str | None = None

    def wake(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()


class JetStreamBoard(BoardBase):
    """
    A board in the broker's calls bucket, shared by every replica of the approval service.

    Run `JetStreamBoard.run` in a task group before anything parks: it
    fills the mirror and keeps it current, and records the timeouts of calls
    whose replica stopped.

    Args:
        broker: The open broker.
        history: Decisions kept in the mirror for the page.
        max_pending: Questions that may wait at once, across the fleet.
        approvals: Where remembered approvals are shared (``None``: through
            the rules approver's own memory file).
    """

    def __init__(
        self,
        broker: Broker,
        *,
        history: int = 500,
        max_pending: int = 1000,
        approvals: SharedApprovals | None = None,
    ) -> None:
        super().__init__(None, history=history, max_pending=max_pending, replica=broker.replica)
        self.broker = broker
        self.approvals = approvals
        self._kv: KeyValue = broker.calls
        self._pending: dict[str, tuple[BoardEntry, int]] = {}
        self._revisions: dict[str, int] = {}
        self._filling: list[tuple[str, str]] = []
        self._waiters: dict[str, list[_Waiter]] = {}
        self._synced = anyio.Event()

    # ── the mirror ──

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Mirror the bucket (started once the mirror holds what the bucket holds) and sweep."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._sweep)
            await group.start(mirror, self._kv, self._on_entry)
            self._order_history()
            self._synced.set()
            task_status.started()

    def _on_entry(self, entry: KeyValue.Entry) -> None:
        self._on_update(entry.key, entry.value, entry.revision, entry.operation)

    def _on_update(
        self, key: str, value: bytes | None, revision: int | None, operation: str | None
    ) -> None:
        if operation is not None or value is None or revision is None:
            for board_id in list(self._pending):
                if key_of(board_id) == key:
                    del self._pending[board_id]
                    self._wake(board_id)
            return
        try:
            entry = _ENTRY.decode(value)
        except (msgspec.DecodeError, msgspec.ValidationError):
            _log.warning("Ignoring a malformed entry in the calls bucket (%s).", key)
            return
        if key_of(entry.item.id) != key:
            _log.warning("Ignoring an entry filed under the wrong key (%s).", key)
            return
        self._apply(entry, revision)

    def _apply(self, entry: BoardEntry, revision: int) -> None:
        """Take one entry into the mirror (newer revisions only), and tell whoever cares."""
        board_id = entry.item.id
        if self._revisions.get(board_id, 0) >= revision:
            return  # An echo of what this replica wrote, or older than what it knows.
        self._revisions[board_id] = revision
        known = self._pending.get(board_id)
        if entry.state == "pending":
            self._pending[board_id] = (entry, revision)
            if known is None or known[0].item.created != entry.item.created:
                self._tell(entry.item, None)
        else:
            self._pending.pop(board_id, None)
            if entry.record is not None:
                self._file(entry.item, entry.record)
                if known is not None:
                    self._tell(entry.item, entry.record)
        self._wake(board_id)
        if len(self._revisions) > 2 * (self._history_size + len(self._pending)) + 64:
            self._revisions = {
                board: seen
                for board, seen in self._revisions.items()
                if board in self._pending or board in self._history
            }

    def _file(self, item: WaitingCall, record: DecisionRecord) -> None:
        if self._synced.is_set():
            super()._file(item, record)
            return
        # While the mirror fills, the bucket hands its keys back in key order,
        # not in the order they were decided: keep the newest decisions, then
        # put them in order.
        self._history[item.id] = (item, record)
        heapq.heappush(self._filling, (record.decided, item.id))
        while len(self._history) > self._history_size and self._filling:
            decided, oldest = heapq.heappop(self._filling)
            kept = self._history.get(oldest)
            if kept is not None and kept[1].decided == decided:
                del self._history[oldest]

    def _order_history(self) -> None:
        self._filling.clear()
        ordered = sorted(self._history.items(), key=lambda kept: kept[1][1].decided)
        self._history.clear()
        self._history.update(ordered)

    def _wake(self, board_id: str) -> None:
        for waiter in self._waiters.get(board_id, ()):
            waiter.wake()

    def _waiter(self, board_id: str) -> _Waiter:
        waiter = _Waiter(key_of(board_id))
        self._waiters.setdefault(board_id, []).append(waiter)
        return waiter

    def _drop(self, board_id: str, waiter: _Waiter) -> None:
        waiters = self._waiters.get(board_id, [])
        if waiter in waiters:
            waiters.remove(waiter)
        if not waiters:
            self._waiters.pop(board_id, None)

    # ── reading ──

    def pending(self) -> list[WaitingCall]:
        """Every question waiting, on every replica, oldest first."""
        items = [entry.item for entry, _ in self._pending.values()]
        return sorted(items, key=lambda item: item.created)

    def get(self, board_id: str) -> tuple[WaitingCall, DecisionRecord | None] | None:
        """A waiting or recently decided question by its board id (from the mirror)."""
        found = self._pending.get(board_id)
        if found is not None:
            return found[0].item, None
        return self._history.get(board_id)

    def statistics(self) -> BoardStatistics:
        """How many questions wait in the fleet, and how many decisions the mirror keeps."""
        return BoardStatistics(pending=len(self._pending), history=len(self._history))

    # ── the bucket ──

    async def _fetch(self, key: str) -> tuple[BoardEntry | None, int]:
        try:
            found = await self._kv.get(key)
        except nats.js.errors.KeyDeletedError as deleted:
            return None, int(deleted.entry.revision or 0) if deleted.entry is not None else 0
        except nats.js.errors.KeyNotFoundError:
            return None, 0
        if found.value is None or found.revision is None:
            return None, int(found.revision or 0)
        try:
            return _ENTRY.decode(found.value), found.revision
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None, found.revision

    async def _write(self, key: str, entry: BoardEntry, last: int) -> int:
        """Compare-and-set: write ``entry`` only if the key is still at revision ``last``."""
        try:
            if last == 0:
                revision = await self._kv.create(key, _ENCODE(entry))
            else:
                revision = await self._kv.update(key, _ENCODE(entry), last=last)
        except nats.js.errors.KeyWrongLastSequenceError:
            raise _Conflict from None
        self._apply(entry, revision)
        return revision

    # ── parking ──

    async def _claim(self, item: WaitingCall, key: str) -> tuple[BoardEntry, int] | None:
        """
        Put a question on the bucket, or pick up the same call a stopped replica held.

        Returns the entry now held (and its revision), or ``None`` when the id
        is taken by a call another live review waits for.
        """
        fresh = BoardEntry(item=item, owner=self.replica or "", state="pending")
        for _ in range(CLAIM_ATTEMPTS):
            existing, revision = await self._fetch(key)
            try:
                if existing is None:
                    return fresh, await self._write(key, fresh, revision)
                mine = existing.owner == self.replica
                gone = not mine and not await self.broker.alive(existing.owner)
                same = existing.item.digest == item.digest and existing.item.kind == item.kind
                if existing.state == "pending":
                    if not gone:
                        return None
                    if not same:
                        # A different call under the id of one whose replica
                        # stopped: the new one takes the id.
                        return fresh, await self._write(key, fresh, revision)
                    taken = msgspec.structs.replace(
                        existing,
                        owner=self.replica or "",
                        item=msgspec.structs.replace(existing.item, replica=self.replica),
                    )
                    return taken, await self._write(key, taken, revision)
                record = existing.record
                undelivered = not existing.delivered and record is not None
                if undelivered and not gone and not mine:
                    return None  # Its review is about to get the decision.
                if undelivered and gone and same and record is not None and record.by == "person":
                    # The call a person decided while its replica was gone,
                    # retried here: the decision is delivered here, once.
                    taken = msgspec.structs.replace(existing, owner=self.replica or "")
                    return taken, await self._write(key, taken, revision)
                return fresh, await self._write(key, fresh, revision)
            except _Conflict:
                continue
        return None

    def _unreachable(self, item: WaitingCall, error: BaseException) -> DecisionRecord:
        return self._record(
            item,
            decision="decline",
            by="unreachable",
            reason=f"Declined `{subject(item.request)}`: {self.broker.unreachable(error)}, so no person can be asked, and the gateway fails closed.",
        )

    async def park(self, request: ReviewRequest, timeout: float) -> DecisionRecord:  # noqa: ASYNC109 -- the wait is the person's time, reported in the reason
        """
        Wait until a person decides this question on any replica, or ``timeout`` seconds pass.

        Never raises: the id being taken, too many questions waiting in the
        fleet, the board closing, the broker failing or the wait being
        cancelled is a decline that says so.
        """
        item = self._item(request, timeout)
        refusal = self._refusal(item, len(self._pending), taken=False)
        if refusal is not None:
            return refusal
        key = key_of(item.id)
        try:
            self.broker.require_connected()
            with anyio.fail_after(self.broker.section.request_timeout * CLAIM_ATTEMPTS):
                claimed = await self._claim(item, key)
        except (*BROKER_ERRORS, BrokerError) as error:
            return self._unreachable(item, error)
        if claimed is None:
            refusal = self._refusal(item, 0, taken=True)
            if refusal is None:  # pragma: no cover -- `taken` always refuses
                raise AssertionError("a taken id must be refused")
            return refusal
        entry, revision = claimed
        waiter = self._waiter(item.id)
        final: list[DecisionRecord] = []
        try:
            async with anyio.create_task_group() as notices:
                if entry.state == "pending" and entry.item.created == item.created:
                    notices.start_soon(self._announce, entry.item)
                final.append(await self._wait(entry, revision, waiter))
                notices.cancel_scope.cancel()  # A notice still on its way is not needed now.
        finally:
            if not final:
                with anyio.CancelScope(shield=True):
                    final.append(
                        await self._end(entry.item, self._cancelled(entry.item), waiter, revision)
                    )
            self._drop(item.id, waiter)
        return final[0]

    async def _wait(self, entry: BoardEntry, revision: int, waiter: _Waiter) -> DecisionRecord:
        item = entry.item
        while True:
            current = self._pending.get(item.id)
            if current is not None and current[0].owner != self.replica:
                return self._lost(item, current[0].owner)
            if current is not None and current[0].item.created == item.created:
                revision = current[1]
            elif current is None:
                decided = self._history.get(item.id)
                if decided is not None and decided[0].created == item.created:
                    return await self._deliver(item, decided[1], waiter)
            if entry.state == "decided" and entry.record is not None:
                # Picked up decided: deliver what the person decided.
                return await self._deliver(item, entry.record, waiter)
            if waiter.closing is not None:
                return await self._end(item, self._closing(item, waiter.closing), waiter, revision)
            remaining = _seconds_until(item.deadline)
            if remaining <= 0:
                return await self._end(item, self._timed_out(item), waiter, revision)
            changed = waiter.changed
            with anyio.move_on_after(remaining):
                await changed.wait()

    async def _end(
        self, item: WaitingCall, ending: DecisionRecord, waiter: _Waiter, revision: int
    ) -> DecisionRecord:
        """
        Record why a wait ended without a person (timeout, cancelled, closing), unless a person won.

        The compare-and-set decides between this ending and a person's
        decision taken at the same moment: whichever was written first counts.
        """
        key = waiter.key
        with anyio.move_on_after(self.broker.section.request_timeout * 2):
            for _ in range(CLAIM_ATTEMPTS):
                try:
                    existing, last = await self._fetch(key)
                    if (
                        existing is None
                        or existing.item.created != item.created
                        or existing.owner != self.replica
                    ):
                        return ending  # Not ours any more (taken over): nothing to record.
                    if existing.state == "decided" and existing.record is not None:
                        if existing.record.by == "person" and ending.by != "cancelled":
                            return await self._deliver(item, existing.record, waiter)
                        await self._write(
                            key, msgspec.structs.replace(existing, delivered=True), last
                        )
                        return existing.record if ending.by != "cancelled" else ending
                    done = msgspec.structs.replace(
                        existing, state="decided", record=ending, delivered=True
                    )
                    await self._write(key, done, last)
                except _Conflict:
                    continue
                except BROKER_ERRORS:
                    break
                else:
                    return ending
        _log.warning("Could not record the end of the wait for %r; the broker is away.", item.id)
        return ending

    def _lost(self, item: WaitingCall, holder: str) -> DecisionRecord:
        return self._record(
            item,
            decision="decline",
            by="closed",
            reason=f"Declined `{subject(item.request)}`: replica {holder!r} took the call over while this one could not reach the broker, so its decision goes there.",
        )

    async def _deliver(
        self, item: WaitingCall, record: DecisionRecord, waiter: _Waiter
    ) -> DecisionRecord:
        """
        A person decided: remember what they asked, mark the decision delivered, and return it.

        The decision counts here only while this replica holds the call: one
        that another replica took over (this one was cut off from the broker
        for longer than a lease) is declined here and delivered there.
        """
        final = await self._remember(item, record) if record.by == "person" else record
        with anyio.move_on_after(self.broker.section.request_timeout * 2):
            for _ in range(CLAIM_ATTEMPTS):
                try:
                    existing, last = await self._fetch(waiter.key)
                    if existing is None or existing.item.created != item.created:
                        break
                    if existing.owner != self.replica:
                        return self._lost(item, existing.owner)
                    if existing.delivered:
                        break
                    await self._write(
                        waiter.key,
                        msgspec.structs.replace(existing, record=final, delivered=True),
                        last,
                    )
                    break
                except _Conflict:
                    continue
                except BROKER_ERRORS:
                    break
        return final

    async def _remember(self, item: WaitingCall, record: DecisionRecord) -> DecisionRecord:
        if self.approvals is None or record.scope is None:
            return await super()._remember(item, record)
        rules = self.services.get("rules")
        propose = getattr(rules, "propose", None)
        if not callable(propose):
            return msgspec.structs.replace(
                record,
                remember_error="No rules approver is running, so the approval is not remembered.",
            )
        try:
            approval = propose(item.request, record.scope, record.prefix)
            saved = await self.approvals.save(approval, note=record.note, by=record.decided_by)
        except (*BROKER_ERRORS, BrokerError) as error:
            return msgspec.structs.replace(
                record,
                remember_error=f"The approval could not be shared through the broker ({type(error).__name__}).",
            )
        except Exception as error:  # noqa: BLE001 -- a failed save must not undo the person's decision
            return msgspec.structs.replace(
                record,
                remember_error=f"The rules approver could not save the approval ({type(error).__name__}).",
            )
        return msgspec.structs.replace(record, remembered=remembered_as(saved, record))

    # ── deciding ──

    async def decide(
        self,
        board_id: str,
        *,
        decision: Literal["allow", "decline"],
        digest: str,
        scope: Scope | None = None,
        prefix: Sequence[str] | None = None,
        note: str | None = None,
        decided_by: str | None = None,
    ) -> DecisionRecord:
        """
        Take a person's decision on a question waiting anywhere in the fleet (the first valid one wins).

        Raises:
            DecisionRefused: No such question (404); it was decided already,
                timed out, or ``digest`` is not its plan digest (409); the
                scope cannot be remembered for it (422); the broker cannot
                be reached (503: nothing was decided).
        """
        key = key_of(board_id)
        known = self._pending.get(board_id)
        if known is None:
            earlier = self._history.get(board_id)
            raise self._taken(board_id, None if earlier is None else earlier[1])
        entry, revision = known
        try:
            self.broker.require_connected()
        except BrokerError as error:
            raise DecisionRefused(
                503, f"Nothing was decided: {error}; retry when it is back."
            ) from None
        try:
            with anyio.fail_after(self.broker.section.request_timeout * CLAIM_ATTEMPTS):
                for _ in range(CLAIM_ATTEMPTS):
                    record = self._accept(
                        entry.item,
                        decision=decision,
                        digest=digest,
                        scope=scope,
                        prefix=prefix,
                        note=note,
                        decided_by=decided_by,
                    )
                    decided = msgspec.structs.replace(entry, state="decided", record=record)
                    try:
                        await self._write(key, decided, revision)
                    except _Conflict:
                        fresh, revision = await self._fetch(key)
                        if (
                            fresh is None
                            or fresh.state != "pending"
                            or fresh.item.created != entry.item.created
                        ):
                            raise self._taken(
                                board_id, None if fresh is None else fresh.record
                            ) from None
                        entry = fresh  # The mirror was behind: decide on what is there.
                    else:
                        return record
        except (*BROKER_ERRORS, BrokerError) as error:
            # Sent, but not confirmed: the broker may still apply it (once,
            # and only if the call still waits), so the person is told to look.
            raise DecisionRefused(
                503,
                f"The decision was not confirmed: {self.broker.unreachable(error)}; reload the call to see whether it counted.",
            ) from None
        raise DecisionRefused(
            409,
            f"Call {board_id[:100]!r} kept changing while deciding; reload it and decide again.",
        )

    async def wait_decided(self, board_id: str, timeout: float) -> DecisionRecord | None:  # noqa: ASYNC109 -- bounded by the caller's budget
        """The final record of a question once its review has it (with what was remembered), within ``timeout``."""
        waiter = self._waiter(board_id)
        try:
            with anyio.move_on_after(timeout):
                while True:
                    found = self._history.get(board_id)
                    if found is not None and board_id not in self._pending:
                        record = found[1]
                        if record.by != "person" or record.scope is None or _final(record):
                            return record
                    changed = waiter.changed
                    await changed.wait()
        finally:
            self._drop(board_id, waiter)
        found = self._history.get(board_id)
        return None if found is None else found[1]

    def close(self, why: str) -> None:
        """Decline every question this replica's reviews wait for, and every later one."""
        self._closed = why
        for waiters in self._waiters.values():
            for waiter in waiters:
                waiter.closing = why
                waiter.wake()

    # ── calls whose replica stopped ──

    async def _sweep(self) -> None:
        """Record the timeout of calls whose deadline passed a lease ago (their replica stopped)."""
        lease = self.broker.section.lease
        while True:
            await anyio.sleep(max(0.5, lease / 3))
            for board_id, (entry, revision) in list(self._pending.items()):
                if _seconds_until(entry.item.deadline) > -lease:
                    continue
                if entry.owner == self.replica and board_id in self._waiters:
                    continue  # Its review here records its own timeout.
                ended = msgspec.structs.replace(
                    entry, state="decided", record=self._timed_out(entry.item), delivered=True
                )
                try:
                    with anyio.fail_after(self.broker.section.request_timeout):
                        await self._write(key_of(board_id), ended, revision)
                except (_Conflict, *BROKER_ERRORS):
                    continue

    # ── for tests and tools ──

    async def synced(self) -> None:
        """Wait until the mirror holds what the bucket held when `run` started."""
        await self._synced.wait()

    def entry(self, board_id: str) -> Any:
        """The mirrored entry of a waiting question, or ``None``."""
        found = self._pending.get(board_id)
        return None if found is None else found[0]


def _final(record: DecisionRecord) -> bool:
    """Whether a person's record already says what was remembered."""
    return record.remembered is not None or record.remember_error is not None
