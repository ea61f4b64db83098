"""
The board: questions waiting for a person, and the decisions people made.

One board per gateway, shared through ``services["human"]`` between the
``human`` approver (which parks questions on it) and the approval service
(which shows them and hands decisions in). Everything runs in the gateway's
event loop; `HumanBoard.decide` is synchronous, so between checking that a
question still waits and claiming it nothing else can run: the first valid
decision wins, every later one is refused.

Memory is bounded: at most ``max-pending`` questions wait (more are declined
at once) and the last ``history`` decisions are kept.
"""

from __future__ import annotations

import inspect
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

import anyio
import anyio.to_thread
import msgspec

from gateway import GatewayConfig, ReviewRequest

__all__ = [
    "SERVICE_KEY",
    "DecisionRecord",
    "DecisionRefused",
    "HumanBoard",
    "Offer",
    "Scope",
    "WaitingCall",
]

SERVICE_KEY: Final = "human"
"""Where the board lives in a gateway's ``services``."""

REMEMBER_TIMEOUT: Final = 20.0
"""Seconds saving a remembered approval may take before the decision goes on without it."""

NOTE_LIMIT: Final = 1000
"""Characters a person's note may have."""

Scope = Literal["once", "digest", "session", "prefix"]
"""How far an approval reaches: this call only, this exact plan anywhere, in this session, or a program prefix."""

DecidedBy = Literal["person", "timeout", "cancelled", "closed", "overload"]


class Offer(msgspec.Struct, frozen=True, kw_only=True):
    """
    An approval the rules approver offers to remember, shown before it is saved.

    Attributes:
        scope: ``digest``, ``session`` or ``prefix``.
        description: What would be allowed again, in one sentence.
        program: The program, for ``prefix``.
        prefix: The leading arguments, for ``prefix``.
    """

    scope: str
    description: str
    program: str | None = None
    prefix: tuple[str, ...] = ()


class WaitingCall(msgspec.Struct, frozen=True, kw_only=True):
    """
    One question on the board.

    Attributes:
        id: The board's id: the call id for a ``call`` question, with
            ``/hole/S.H.I`` or ``/body/S.H`` appended for the others.
        call_id: The call it belongs to.
        kind: ``call``, ``hole`` or ``body``.
        digest: The plan digest a decision must name.
        created: When it was parked (UTC, ISO 8601).
        deadline: When it is declined if nobody decides (UTC, ISO 8601).
        timeout: Seconds it waits.
        request: What the approver was asked (secrets masked, plan redacted).
        offers: The approvals that could be remembered with an allow.
    """

    id: str
    call_id: str
    kind: Literal["call", "hole", "body"]
    digest: str
    created: str
    deadline: str
    timeout: float
    request: ReviewRequest
    offers: tuple[Offer, ...] = ()


class DecisionRecord(msgspec.Struct, frozen=True, kw_only=True):
    """
    How a question was decided.

    Attributes:
        id: The question's board id.
        call_id: The call it belongs to.
        decision: ``allow`` or ``decline``.
        by: ``person``; or why nobody did: ``timeout``, ``cancelled`` (the
            review was abandoned), ``closed`` (the service stopped) or
            ``overload`` (too many questions waited).
        digest: The plan digest the decision is bound to.
        reason: One sentence, as the verdict gives it.
        decided: When (UTC, ISO 8601).
        scope: What the person asked to remember (``once`` or none: nothing).
        prefix: The argument prefix, for a ``prefix`` scope.
        note: The person's note.
        remembered: What was saved, as the rules approver describes it.
        remember_error: Why nothing was saved although a scope was asked.
    """

    id: str
    call_id: str
    decision: Literal["allow", "decline"]
    by: DecidedBy
    digest: str
    reason: str
    decided: str
    scope: Scope | None = None
    prefix: tuple[str, ...] | None = None
    note: str | None = None
    remembered: str | None = None
    remember_error: str | None = None


class DecisionRefused(Exception):
    """
    A decision cannot be taken; the message is one sentence for the person.

    Attributes:
        status: The HTTP status that says why: 404 (no such question), 409
            (decided already, timed out, or the digest differs) or 422 (the
            scope cannot be remembered).
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


Watcher = Callable[[WaitingCall, DecisionRecord | None], None]
"""Told of every question parked (record ``None``) and every question decided."""


class _Slot:
    def __init__(self, item: WaitingCall) -> None:
        self.item = item
        self.claimed: DecisionRecord | None = None
        self.closed: DecisionRecord | None = None
        self.woken = anyio.Event()
        self.finished = anyio.Event()
        self.final: DecisionRecord | None = None


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


_BLANKS: Final = re.compile(r"[ \t\n]+")
_INVISIBLE: Final = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})


def shown(text: str, limit: int = 60) -> str:
    """
    Text made safe to quote in a one-line reason.

    Runs of spaces, tabs and newlines become one space; every other control
    character (``\\r`` too), format (bidi, zero-width),
    private and unassigned characters become ``\\u{…}`` escapes, so a reason
    can never reorder or hide what a terminal or page shows around it.
    """
    parts: list[str] = []
    for char in _BLANKS.sub(" ", text).strip(" "):
        if unicodedata.category(char) in _INVISIBLE or (
            unicodedata.category(char) == "Zs" and char != " "
        ):
            parts.append(f"\\u{{{ord(char):04X}}}")
        else:
            parts.append(char)
    result = "".join(parts)
    return result if len(result) <= limit else result[: limit - 1] + "…"


def _subject(request: ReviewRequest) -> str:
    if request.kind == "hole" and request.hole is not None:
        return shown(request.hole.source)
    if request.kind == "body":
        return "the heredoc body"
    if request.plan is not None:
        return shown(request.plan.source)
    return shown(f"{request.call.tool} {msgspec.json.encode(request.call.input).decode()}")


def _board_id(request: ReviewRequest) -> str:
    call_id = request.call.call_id or ""
    question = request.question
    if request.kind == "hole" and question is not None:
        return f"{call_id}/hole/{question.statement}.{question.heredoc}.{question.hole}"
    if request.kind == "body" and question is not None:
        return f"{call_id}/body/{question.statement}.{question.heredoc}"
    return call_id


class HumanBoard:
    """
    Questions waiting for a person, and the last decisions made.

    Args:
        services: The gateway's shared services (the rules approver is looked
            up there, as ``services["rules"]``, to offer and save remembered
            approvals).
        history: Decisions kept.
        max_pending: Questions that may wait at once; more are declined.
    """

    def __init__(
        self, services: dict[str, Any] | None = None, *, history: int = 500, max_pending: int = 1000
    ) -> None:
        self._services = services if services is not None else {}
        self._history_size = max(1, history)
        self.max_pending = max(1, max_pending)
        self._pending: dict[str, _Slot] = {}
        self._history: OrderedDict[str, tuple[WaitingCall, DecisionRecord]] = OrderedDict()
        self._watchers: dict[int, Watcher] = {}
        self._next_watcher = 0
        self._closed: str | None = None
        self._services_attached = 0

    @classmethod
    def shared(cls, services: dict[str, Any], config: GatewayConfig) -> HumanBoard:
        """The board in ``services``, made (from the ``[serve]`` table) if there is none yet."""
        board = services.get(SERVICE_KEY)
        if not isinstance(board, HumanBoard):
            board = cls(
                services, history=config.serve.history, max_pending=config.serve.max_pending
            )
            services[SERVICE_KEY] = board
        return board

    # ── reading ──

    def pending(self) -> list[WaitingCall]:
        """The questions waiting, oldest first."""
        return [slot.item for slot in self._pending.values()]

    def decided(self, limit: int | None = None) -> list[tuple[WaitingCall, DecisionRecord]]:
        """The last decisions, newest first."""
        items = list(reversed(self._history.values()))
        return items if limit is None else items[:limit]

    def get(self, board_id: str) -> tuple[WaitingCall, DecisionRecord | None] | None:
        """A waiting or recently decided question by its board id."""
        slot = self._pending.get(board_id)
        if slot is not None:
            return slot.item, None
        return self._history.get(board_id)

    def decision_for(self, call_id: str, digest: str) -> DecisionRecord | None:
        """The decision on the ``call`` question of a call, if one was made for this digest."""
        entry = self._history.get(call_id)
        if entry is None or entry[1].digest != digest or entry[0].kind != "call":
            return None
        return entry[1]

    @property
    def remembers(self) -> bool:
        """Whether a rules approver is there to save remembered approvals."""
        return callable(getattr(self._services.get("rules"), "remember", None))

    def statistics(self) -> dict[str, int]:
        """How many questions wait and how many decisions are kept."""
        return {"pending": len(self._pending), "history": len(self._history)}

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
            watcher(item, record)

    # ── parking ──

    def _offers(self, request: ReviewRequest) -> tuple[Offer, ...]:
        offers = getattr(self._services.get("rules"), "offers", None)
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
                )
                for offer in found
            )
        except Exception:  # noqa: BLE001 -- a plugin's failure to offer only means nothing is offered
            return ()

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
            decided=_iso(_now()),
            **fields,
        )

    def _file(self, item: WaitingCall, record: DecisionRecord) -> None:
        self._history[item.id] = (item, record)
        self._history.move_to_end(item.id)
        while len(self._history) > self._history_size:
            self._history.popitem(last=False)

    async def park(self, request: ReviewRequest, timeout: float) -> DecisionRecord:  # noqa: ASYNC109 -- the wait is the person's time, reported in the reason
        """
        Wait until a person decides this question, or ``timeout`` seconds pass.

        Returns the decision; nobody deciding in time, too many questions
        waiting, the same id already waiting, the board closing or the wait
        being cancelled is a decline that says so.
        """
        created = _now()
        item = WaitingCall(
            id=_board_id(request),
            call_id=request.call.call_id or "",
            kind=request.kind,
            digest=request.digest,
            created=_iso(created),
            deadline=_iso(created + timedelta(seconds=timeout)),
            timeout=timeout,
            request=request,
            offers=self._offers(request),
        )
        subject = _subject(request)
        refusal: str | None = None
        if self._closed is not None:
            refusal = f"Declined `{subject}`: {self._closed}, so no person can decide."
        elif item.id in self._pending:
            refusal = f"Declined `{subject}`: another call with id {shown(item.id)!r} already waits for a person, and ids must be unique."
        elif len(self._pending) >= self.max_pending:
            refusal = f"Declined `{subject}`: {self.max_pending} calls already wait for a person, and the gateway fails closed."
        if refusal is not None:
            record = self._record(item, decision="decline", by="overload", reason=refusal)
            return record
        slot = _Slot(item)
        self._pending[item.id] = slot
        self._tell(item, None)
        try:
            with anyio.move_on_after(timeout):
                await slot.woken.wait()
            if slot.claimed is None and slot.closed is None:
                slot.closed = self._record(
                    item,
                    decision="decline",
                    by="timeout",
                    reason=f"Declined `{subject}`: no person decided within {timeout:g} s, and the gateway fails closed.",
                )
            if slot.claimed is not None:
                slot.final = await self._remember(slot, slot.claimed)
            else:
                slot.final = slot.closed
        finally:
            if slot.final is None:
                slot.final = slot.claimed or self._record(
                    item,
                    decision="decline",
                    by="cancelled",
                    reason=f"Declined `{subject}`: the review was cancelled before a person decided.",
                )
            if slot.claimed is None:
                slot.closed = slot.final
            del self._pending[item.id]
            self._file(item, slot.final)
            slot.finished.set()
            self._tell(item, slot.final)
        return slot.final

    # ── deciding ──

    def decide(
        self,
        board_id: str,
        *,
        decision: Literal["allow", "decline"],
        digest: str,
        scope: Scope | None = None,
        prefix: Sequence[str] | None = None,
        note: str | None = None,
    ) -> DecisionRecord:
        """
        Take a person's decision on a waiting question (the first valid one wins).

        Returns:
            The decision as accepted (what is remembered is added once saved:
            see `wait_decided`).

        Raises:
            DecisionRefused: No such question (404); it was decided already,
                timed out, or ``digest`` is not its plan digest (409); the
                scope cannot be remembered for it (422).
        """
        slot = self._pending.get(board_id)
        if slot is None or slot.claimed is not None or slot.closed is not None:
            earlier = (
                slot.claimed or slot.closed
                if slot is not None
                else (self._history[board_id][1] if board_id in self._history else None)
            )
            if earlier is None:
                raise DecisionRefused(
                    404,
                    f"No call with id {shown(board_id)!r} waits for a person or was decided recently.",
                )
            if earlier.by == "person":
                raise DecisionRefused(
                    409,
                    f"Call {shown(board_id)!r} was already decided ({earlier.decision}, at {earlier.decided}); the first decision stands.",
                )
            raise DecisionRefused(
                409, f"Call {shown(board_id)!r} no longer waits: {earlier.reason}"
            )
        item = slot.item
        if digest != item.digest:
            raise DecisionRefused(
                409,
                f"The digest {shown(digest, 24)!r} is not the plan digest of call {shown(board_id)!r} ({item.digest[:19]}…); reload the call and decide on what it shows now.",
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
        subject = _subject(item.request)
        note_text = f"; their note: {shown(note, 200)}" if note and note.strip() else ""
        if decision == "allow":
            asked = "" if scope is None else f", asking to remember it ({scope})"
            reason = f"Allowed `{subject}`: a person allowed it{asked}{note_text}."
        else:
            reason = f"Declined `{subject}`: a person declined it{note_text}."
        record = self._record(
            item,
            decision=decision,
            by="person",
            reason=reason,
            scope=scope,
            prefix=None if prefix is None else tuple(prefix),
            note=note,
        )
        slot.claimed = record
        slot.woken.set()
        return record

    def _check_scope(self, item: WaitingCall, scope: Scope, prefix: Sequence[str] | None) -> None:
        if item.kind != "call":
            raise DecisionRefused(
                422, "Only a whole call can be remembered, not a hole or a heredoc body."
            )
        if scope == "session" and not item.request.call.session_id:
            raise DecisionRefused(422, "The call has no session to scope the approval to.")
        propose = getattr(self._services.get("rules"), "propose", None)
        if not callable(propose):
            return  # Nothing will be saved; the record says so.
        try:
            propose(item.request, scope, prefix)
        except Exception as error:  # noqa: BLE001 -- the rules approver's refusal becomes the person's answer
            message = " ".join(str(error).split()) or type(error).__name__
            raise DecisionRefused(
                422, f"The approval cannot be remembered that way: {message.rstrip('.')}."
            ) from None

    async def _remember(self, slot: _Slot, record: DecisionRecord) -> DecisionRecord:
        if record.scope is None:
            return record
        rules = self._services.get("rules")
        remember = getattr(rules, "remember", None)
        if not callable(remember):
            return msgspec.structs.replace(
                record,
                remember_error="No rules approver is running, so the approval is not remembered.",
            )
        request = slot.item.request

        def save() -> Any:
            return remember(request, record.scope, prefix=record.prefix, note=record.note)

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
        description = getattr(saved, "description", None)
        return msgspec.structs.replace(
            record,
            remembered=str(description) if description else f"Remembered ({record.scope}).",
        )

    async def wait_decided(self, board_id: str, timeout: float) -> DecisionRecord | None:  # noqa: ASYNC109 -- bounded by the caller's budget
        """The final record of a question once it is filed (with what was remembered), within ``timeout``."""
        slot = self._pending.get(board_id)
        if slot is None:
            entry = self._history.get(board_id)
            return None if entry is None else entry[1]
        with anyio.move_on_after(timeout):
            await slot.finished.wait()
        return slot.final

    def close(self, why: str) -> None:
        """Decline every waiting question and every later one (``why`` says what happened)."""
        self._closed = why
        for slot in list(self._pending.values()):
            if slot.claimed is None and slot.closed is None:
                slot.closed = self._record(
                    slot.item,
                    decision="decline",
                    by="closed",
                    reason=f"Declined `{_subject(slot.item.request)}`: {why}, so no person can decide.",
                )
                slot.woken.set()
