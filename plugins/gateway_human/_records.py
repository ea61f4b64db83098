"""
What a board holds: questions waiting for a person, and how each was decided.

Plain data, shared by every board (in memory or in a broker) and by the
approval service that shows them. A record is never changed in place: a
decision is a new record, and a board keeps exactly one final record per
question it parked.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final, Literal

import msgspec

from gateway import ReviewRequest

__all__ = [
    "NOTE_LIMIT",
    "DecidedBy",
    "DecisionRecord",
    "DecisionRefused",
    "Offer",
    "Scope",
    "WaitingCall",
    "shown",
]

NOTE_LIMIT: Final = 1000
"""Characters a person's note may have."""

Scope = Literal["once", "digest", "session", "prefix"]
"""How far an approval reaches: this call only, this exact plan anywhere, in this session, or a program prefix."""

DecidedBy = Literal[
    "person", "remembered", "timeout", "cancelled", "closed", "overload", "unreachable"
]
"""Who or what ended a wait: a person, an approval a person remembered, or why nobody did."""


class Offer(msgspec.Struct, frozen=True, kw_only=True):
    """
    An approval the rules approver offers to remember, shown before it is saved.

    Attributes:
        scope: ``digest``, ``session`` or ``prefix``.
        description: What would be allowed again, in one sentence.
        program: The program, for ``prefix``.
        prefix: The leading arguments, for ``prefix``.
        covers: What it would cover and what it never would, clause by clause.
    """

    scope: str
    description: str
    program: str | None = None
    prefix: tuple[str, ...] = ()
    covers: tuple[str, ...] = ()


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
        replica: Which replica of the approval service holds the waiting
            review (``None`` for a board of one process).
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
    replica: str | None = None


class DecisionRecord(msgspec.Struct, frozen=True, kw_only=True):
    """
    How a question was decided.

    Attributes:
        id: The question's board id.
        call_id: The call it belongs to.
        decision: ``allow`` or ``decline``.
        by: ``person``; ``remembered`` (an approval a person asked to
            remember allowed the call, so nobody was asked: the history
            shows these too); or why nobody did: ``timeout``, ``cancelled`` (the
            review was abandoned), ``closed`` (the service stopped),
            ``overload`` (too many questions waited, or the id was taken) or
            ``unreachable`` (the broker holding the board could not be reached).
        digest: The plan digest the decision is bound to.
        reason: One sentence, as the verdict gives it.
        decided: When (UTC, ISO 8601).
        decided_by: The name of the person's token, for ``by == "person"``
            (``owner`` for the token ``gateway serve`` prints at start).
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
    decided_by: str | None = None
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
            (decided already, timed out, or the digest differs), 422 (the
            scope cannot be remembered) or 503 (the broker that holds the
            board cannot be reached: nothing was decided).
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


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
