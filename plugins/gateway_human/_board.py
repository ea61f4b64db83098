"""
The board: the interface every board of waiting questions offers, and what all boards share.

A board holds the questions the ``human`` approver parks until a person
decides, and the last decisions made. `Board` is the seam: the approval
service and the approver use nothing else. Two implementations exist: the
in-memory `MemoryBoard` (one process; the default) and the JetStream-backed
board of the ``gateway_nats`` plugin (every replica of the service shows
every waiting question, and a decision on any replica releases the review
waiting on another).

`BoardBase` carries what does not depend on where questions live: the
watchers, the attached services, the bounded history, the checks a decision
must pass, the sentences of every record, and remembering an approval
through the rules approver. A board built on it only stores and claims.

Reading (`Board.pending`, `Board.get`, …) is synchronous, over what the board
holds in memory (for a broker-backed board: a mirror kept current by a
watch). Parking and deciding are asynchronous: a broker-backed board claims a
question with a compare-and-set on the broker, so the first valid decision
wins across every replica, and every later one is refused.
"""

from __future__ import annotations

import inspect
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal, NamedTuple, Protocol, runtime_checkable
from urllib.parse import quote

import anyio
import anyio.to_thread
import msgspec

from gateway import ReviewRequest
from gateway.fleet import NOTIFY_TIMEOUT, Notice, Notifier
from gateway.text import error_detail
from gateway_human._records import (
    NOTE_LIMIT,
    DecidedBy,
    DecisionRecord,
    DecisionRefused,
    Offer,
    Scope,
    WaitingCall,
    shown,
)

__all__ = [
    "REMEMBER_TIMEOUT",
    "SERVICE_KEY",
    "Board",
    "BoardBase",
    "BoardStatistics",
    "Watcher",
    "board_id",
    "iso",
    "now",
    "remembered_as",
    "subject",
]

SERVICE_KEY: Final = "human"
"""Where the board lives in a gateway's ``services``."""

REMEMBER_TIMEOUT: Final = 20.0
"""Seconds saving a remembered approval may take before the decision goes on without it."""

_log = logging.getLogger("gateway_human")


class BoardStatistics(NamedTuple):
    """How many questions wait, and how many decisions are kept."""

    pending: int
    history: int


Watcher = Callable[[WaitingCall, DecisionRecord | None], None]
"""Told of every question parked (record ``None``) and every question decided."""


@runtime_checkable
class Board(Protocol):
    """
    Where questions wait for a person: the interface the approver and the service use.

    Attributes:
        services: The gateway's shared services (the rules approver is found
            there, as ``services["rules"]``, to offer and save remembered
            approvals); set by `gateway_human.shared_board`.
        max_pending: Questions that may wait at once; more are declined.
        notifiers: Told when a question starts waiting here (never in the way of the wait).
        link_base: The page's address, for the link in each notice.
    """

    services: dict[str, Any]
    max_pending: int
    notifiers: tuple[Notifier, ...]
    link_base: str

    @property
    def attached(self) -> bool:
        """Whether an approval service shows this board to people (else nobody could decide)."""

    def attach(self) -> Callable[[], None]:
        """Say that a service shows the board; returns the function that says it stopped."""

    @property
    def remembers(self) -> bool:
        """Whether a rules approver is there to save remembered approvals."""

    def pending(self) -> list[WaitingCall]:
        """The questions waiting, oldest first."""

    def decided(self, limit: int | None = None) -> list[tuple[WaitingCall, DecisionRecord]]:
        """The last decisions, newest first."""

    def get(self, board_id: str) -> tuple[WaitingCall, DecisionRecord | None] | None:
        """A waiting or recently decided question by its board id."""

    def decision_for(self, call_id: str, digest: str) -> DecisionRecord | None:
        """The decision on the ``call`` question of a call, if one was made for this digest."""

    def statistics(self) -> BoardStatistics:
        """How many questions wait and how many decisions are kept."""

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Call ``watcher`` for every question parked and decided; returns the function that stops it."""

    async def park(self, request: ReviewRequest, timeout: float) -> DecisionRecord:  # noqa: ASYNC109 -- the wait is the person's time, reported in the reason
        """
        Wait until a person decides this question, or ``timeout`` seconds pass.

        Never raises: nobody deciding in time, too many questions waiting,
        the same id already waiting, the board closing, the broker failing
        or the wait being cancelled is a decline that says so.
        """

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
        Take a person's decision on a waiting question (the first valid one wins).

        Raises:
            DecisionRefused: No such question (404); it was decided already,
                timed out, or ``digest`` is not its plan digest (409); the
                scope cannot be remembered for it (422); the broker cannot
                be reached (503).
        """

    async def wait_decided(self, board_id: str, timeout: float) -> DecisionRecord | None:  # noqa: ASYNC109 -- bounded by the caller's budget
        """The final record of a question once it is filed (with what was remembered), within ``timeout``."""

    def close(self, why: str) -> None:
        """Decline every question this board holds for its reviews, and every later one."""


def now() -> datetime:
    """The time now, in UTC."""
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """A moment as ISO 8601, to the second."""
    return moment.isoformat(timespec="seconds")


def subject(request: ReviewRequest) -> str:
    """What a question is about, shortened and made safe for a one-line reason."""
    if request.kind == "hole" and request.hole is not None:
        return shown(request.hole.source)
    if request.kind == "body":
        return "the heredoc body"
    if request.plan is not None:
        return shown(request.plan.source)
    return shown(f"{request.call.tool} {msgspec.json.encode(request.call.input).decode()}")


def board_id(request: ReviewRequest) -> str:
    """The board id of a question: the call id, with the hole or body it asks about."""
    call_id = request.call.call_id or ""
    question = request.question
    if request.kind == "hole" and question is not None:
        return f"{call_id}/hole/{question.statement}.{question.heredoc}.{question.hole}"
    if request.kind == "body" and question is not None:
        return f"{call_id}/body/{question.statement}.{question.heredoc}"
    return call_id


def remembered_as(saved: Any, record: DecisionRecord) -> str:
    """What a decision record says was remembered: the approval's description, and its id when it has one."""
    description = getattr(saved, "description", None)
    text = str(description) if description else f"Remembered ({record.scope})."
    memory = getattr(saved, "id", None)
    return f"{text} (remembered.{memory})" if isinstance(memory, str) else text


class BoardBase:
    """
    What every board shares: watchers, attachment, history, decision checks and records.

    Args:
        services: The gateway's shared services (replaced by the approver's
            when it adopts the board).
        history: Decisions kept.
        max_pending: Questions that may wait at once; more are declined.
        replica: The name of the service replica this board serves (``None``
            for one process).
    """

    def __init__(
        self,
        services: dict[str, Any] | None = None,
        *,
        history: int = 500,
        max_pending: int = 1000,
        replica: str | None = None,
    ) -> None:
        self.services: dict[str, Any] = services if services is not None else {}
        self.max_pending = max(1, max_pending)
        self.replica = replica
        self._history_size = max(1, history)
        self._history: OrderedDict[str, tuple[WaitingCall, DecisionRecord]] = OrderedDict()
        self._watchers: dict[int, Watcher] = {}
        self._next_watcher = 0
        self._closed: str | None = None
        self._services_attached = 0
        self.notifiers: tuple[Notifier, ...] = ()
        self.link_base = ""

    # ── the service that shows the board ──

    @property
    def attached(self) -> bool:
        """Whether an approval service shows this board to people (else nobody could decide)."""
        return self._services_attached > 0

    def attach(self) -> Callable[[], None]:
        """Say that a service shows the board; returns the function that says it stopped."""
        self._services_attached += 1
        done = False

        def detach() -> None:
            nonlocal done
            if not done:
                done = True
                self._services_attached -= 1

        return detach

    # ── watching ──

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Call ``watcher`` for every question parked and decided; returns the function that stops it."""
        key = self._next_watcher
        self._next_watcher += 1
        self._watchers[key] = watcher

        def stop() -> None:
            self._watchers.pop(key, None)

        return stop

    def _tell(self, item: WaitingCall, record: DecisionRecord | None) -> None:
        for watcher in list(self._watchers.values()):
            try:
                watcher(item, record)
            except Exception:  # noqa: BLE001 -- one watcher's bug must not stop the others or the board
                _log.exception("A board watcher failed on %r", item.id)

    # ── history ──

    def decided(self, limit: int | None = None) -> list[tuple[WaitingCall, DecisionRecord]]:
        """The last decisions, newest first."""
        items = list(reversed(self._history.values()))
        return items if limit is None else items[:limit]

    def decision_for(self, call_id: str, digest: str) -> DecisionRecord | None:
        """The decision on the ``call`` question of a call, if one was made for this digest."""
        entry = self._history.get(call_id)
        if entry is None or entry[1].digest != digest or entry[0].kind != "call":
            return None
        return entry[1]

    def _file(self, item: WaitingCall, record: DecisionRecord) -> None:
        self._history[item.id] = (item, record)
        self._history.move_to_end(item.id)
        while len(self._history) > self._history_size:
            self._history.popitem(last=False)

    # ── parking ──

    @property
    def remembers(self) -> bool:
        """Whether a rules approver is there to save remembered approvals."""
        return callable(getattr(self.services.get("rules"), "remember", None))

    def _offers(self, request: ReviewRequest) -> tuple[Offer, ...]:
        offers = getattr(self.services.get("rules"), "offers", None)
        if not callable(offers) or request.kind != "call":
            return ()
        try:
            found = offers(request)
            return tuple(
                Offer(
                    scope=str(offer.scope),
                    description=str(offer.description),
                    program=getattr(offer, "program", None),
                    prefix=tuple(getattr(offer, "prefix", ()) or ()),
                    covers=tuple(str(clause) for clause in getattr(offer, "covers", ()) or ()),
                )
                for offer in found
            )
        except Exception:  # noqa: BLE001 -- a plugin's failure to offer only means nothing is offered
            return ()

    def _item(self, request: ReviewRequest, timeout: float) -> WaitingCall:
        created = now()
        return WaitingCall(
            id=board_id(request),
            call_id=request.call.call_id or "",
            kind=request.kind,
            digest=request.digest,
            created=iso(created),
            deadline=iso(created + timedelta(seconds=timeout)),
            timeout=timeout,
            request=request,
            offers=self._offers(request),
            replica=self.replica,
        )

    def _notice(self, item: WaitingCall) -> Notice:
        call = item.request.call
        link = None
        if self.link_base:
            link = f"{self.link_base.rstrip('/')}/#call={quote(item.id, safe='')}"
        return Notice(
            id=item.id,
            call_id=item.call_id,
            kind=item.kind,
            summary=subject(item.request),
            tool=call.tool,
            digest=item.digest,
            created=item.created,
            deadline=item.deadline,
            link=link,
            session_id=call.session_id,
            agent_id=call.agent_id,
            host=call.host,
            replica=item.replica,
        )

    async def _announce(self, item: WaitingCall) -> None:
        """Tell every notifier that ``item`` waits; never raises, each bounded by `NOTIFY_TIMEOUT`."""
        if not self.notifiers:
            return
        notice = self._notice(item)

        async def one(notifier: Notifier) -> None:
            try:
                with anyio.move_on_after(NOTIFY_TIMEOUT) as scope:
                    await notifier.notify(notice)
                if scope.cancelled_caught:
                    _log.warning(
                        "Notifier %r took longer than %g s.", notifier.name, NOTIFY_TIMEOUT
                    )
            except Exception as error:  # noqa: BLE001 -- a notifier's failure must not touch the call
                _log.warning("Notifier %r failed (%s).", notifier.name, type(error).__name__)

        async with anyio.create_task_group() as group:
            for notifier in self.notifiers:
                group.start_soon(one, notifier)

    def _refusal(self, item: WaitingCall, waiting: int, *, taken: bool) -> DecisionRecord | None:
        """The decline for a question that cannot be parked, or ``None`` when it can."""
        about = subject(item.request)
        reason: str | None = None
        if self._closed is not None:
            reason = f"Declined `{about}`: {self._closed}, so no person can decide."
        elif taken:
            reason = f"Declined `{about}`: another call with id {shown(item.id)!r} already waits for a person, and ids must be unique."
        elif waiting >= self.max_pending:
            reason = f"Declined `{about}`: {self.max_pending} calls already wait for a person, and the gateway fails closed."
        if reason is None:
            return None
        return self._record(item, decision="decline", by="overload", reason=reason)

    def _record(
        self,
        item: WaitingCall,
        *,
        decision: Literal["allow", "decline"],
        by: DecidedBy,
        reason: str,
        **fields: Any,
    ) -> DecisionRecord:
        return DecisionRecord(
            id=item.id,
            call_id=item.call_id,
            decision=decision,
            by=by,
            digest=item.digest,
            reason=reason,
            decided=iso(now()),
            **fields,
        )

    def _timed_out(self, item: WaitingCall) -> DecisionRecord:
        return self._record(
            item,
            decision="decline",
            by="timeout",
            reason=f"Declined `{subject(item.request)}`: no person decided within {item.timeout:g} s, and the gateway fails closed.",
        )

    def _cancelled(self, item: WaitingCall) -> DecisionRecord:
        return self._record(
            item,
            decision="decline",
            by="cancelled",
            reason=f"Declined `{subject(item.request)}`: the review was cancelled before a person decided.",
        )

    def _closing(self, item: WaitingCall, why: str) -> DecisionRecord:
        return self._record(
            item,
            decision="decline",
            by="closed",
            reason=f"Declined `{subject(item.request)}`: {why}, so no person can decide.",
        )

    # ── deciding ──

    @staticmethod
    def _taken(board_id: str, earlier: DecisionRecord | None) -> DecisionRefused:
        """The refusal of a decision on a question that no longer waits (or never did)."""
        if earlier is None:
            return DecisionRefused(
                404,
                f"No call with id {shown(board_id)!r} waits for a person or was decided recently.",
            )
        if earlier.by == "person":
            who = f" by {shown(earlier.decided_by, 40)}" if earlier.decided_by else ""
            return DecisionRefused(
                409,
                f"Call {shown(board_id)!r} was already decided ({earlier.decision}{who}, at {earlier.decided}); the first decision stands.",
            )
        return DecisionRefused(409, f"Call {shown(board_id)!r} no longer waits: {earlier.reason}")

    def _accept(
        self,
        item: WaitingCall,
        *,
        decision: Literal["allow", "decline"],
        digest: str,
        scope: Scope | None,
        prefix: Sequence[str] | None,
        note: str | None,
        decided_by: str | None,
    ) -> DecisionRecord:
        """
        Check a person's decision on a waiting question and build its record.

        Raises:
            DecisionRefused: The digest differs (409), or the note, scope or
                prefix cannot be taken (422).
        """
        if digest != item.digest:
            raise DecisionRefused(
                409,
                f"The digest {shown(digest, 24)!r} is not the plan digest of call {shown(item.id)!r} ({item.digest[:19]}…); reload the call and decide on what it shows now.",
            )
        if note is not None and len(note) > NOTE_LIMIT:
            raise DecisionRefused(422, f"The note is longer than {NOTE_LIMIT} characters.")
        if scope == "once":
            scope = None
        if scope is None and prefix is not None:
            raise DecisionRefused(422, "A prefix is only meaningful with the scope 'prefix'.")
        if scope is not None:
            if decision != "allow":
                raise DecisionRefused(
                    422, "Only an allow can be remembered; decline without a scope."
                )
            self._check_scope(item, scope, prefix)
        about = subject(item.request)
        note_text = f"; their note: {shown(note, 200)}" if note and note.strip() else ""
        who = "a person" if not decided_by else f"a person ({shown(decided_by, 40)})"
        if decision == "allow":
            asked = "" if scope is None else f", asking to remember it ({scope})"
            reason = f"Allowed `{about}`: {who} allowed it{asked}{note_text}."
        else:
            reason = f"Declined `{about}`: {who} declined it{note_text}."
        return self._record(
            item,
            decision=decision,
            by="person",
            reason=reason,
            decided_by=decided_by,
            scope=scope,
            prefix=None if prefix is None else tuple(prefix),
            note=note,
        )

    def _check_scope(self, item: WaitingCall, scope: Scope, prefix: Sequence[str] | None) -> None:
        if item.kind != "call":
            raise DecisionRefused(
                422, "Only a whole call can be remembered, not a hole or a heredoc body."
            )
        if scope == "session" and not item.request.call.session_id:
            raise DecisionRefused(422, "The call has no session to scope the approval to.")
        propose = getattr(self.services.get("rules"), "propose", None)
        if not callable(propose):
            return  # Nothing will be saved; the record says so.
        try:
            propose(item.request, scope, prefix)
        except Exception as error:  # noqa: BLE001 -- the rules approver's refusal becomes the person's answer
            raise DecisionRefused(
                422, f"The approval cannot be remembered that way: {error_detail(error)}."
            ) from None

    async def _remember(self, item: WaitingCall, record: DecisionRecord) -> DecisionRecord:
        """Save what a person asked to remember through the rules approver; the record says how it went."""
        if record.scope is None:
            return record
        rules = self.services.get("rules")
        remember = getattr(rules, "remember", None)
        if not callable(remember):
            return msgspec.structs.replace(
                record,
                remember_error="No rules approver is running, so the approval is not remembered.",
            )
        request = item.request

        def save() -> Any:
            return remember(
                request,
                record.scope,
                prefix=record.prefix,
                note=record.note,
                decided_by=record.decided_by,
            )

        try:
            with anyio.fail_after(REMEMBER_TIMEOUT):
                saved = await anyio.to_thread.run_sync(save, abandon_on_cancel=True)
                if inspect.isawaitable(saved):
                    saved = await saved
        except Exception as error:  # noqa: BLE001 -- a failed save must not undo the person's decision
            return msgspec.structs.replace(
                record,
                remember_error=f"The rules approver could not save the approval ({type(error).__name__}).",
            )
        return msgspec.structs.replace(record, remembered=remembered_as(saved, record))
