"""
The ``human`` approver: a call waits on a board until a person decides, or its time runs out.

Registered in the ``gateway.approvers`` entry-point group as ``human`` and
loaded like any third-party approver, usually last in the chain (after the
``rules`` approver has abstained). Each question it is asked is parked on a
`HumanBoard` shared through ``context.services["human"]``; the approval
service (``gateway serve``) shows the board to people and hands their
decisions to it. Nobody deciding within the timeout (``[serve] human-timeout``)
is a decline with that reason: the gateway fails closed.

Decisions are bound to the plan digest of the call they answer: a decision
naming any other digest is refused, as is every decision after the first.

Options (``[approver.human]``)::

    [approver.human]
    timeout = 300        # seconds; default: [serve] human-timeout

This package imports only the gateway's public API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final

import msgspec

from gateway import MAX_SECONDS, Abstain, Allow, Answer, ApproverContext, Decline, ReviewRequest
from gateway_human._board import (
    SERVICE_KEY,
    DecisionRecord,
    DecisionRefused,
    HumanBoard,
    Offer,
    Scope,
    WaitingCall,
)

__all__ = [
    "NO_SERVICE",
    "SERVICE_KEY",
    "DecisionRecord",
    "DecisionRefused",
    "HumanApprover",
    "HumanBoard",
    "HumanOptions",
    "Offer",
    "Scope",
    "WaitingCall",
]

NO_SERVICE: Final = (
    "No approval service (`gateway serve`) is running, so no person can be asked here."
)

REMEMBER_GRACE: Final = 30.0
"""Seconds past the human timeout the gateway allows this approver (to save a remembered approval)."""


class HumanOptions(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[approver.human]`` table.

    Attributes:
        timeout: Seconds a question waits for a person (default: ``[serve] human-timeout``).
    """

    timeout: Annotated[float, msgspec.Meta(gt=0, le=MAX_SECONDS - REMEMBER_GRACE)] | None = None


class HumanApprover:
    """
    Asks a person, through the board, and answers what they decided.

    When no approval service shows the board (the chain runs in-process, in
    ``gateway check`` or a standalone hook), nobody could decide: it abstains
    at once, and the verdict stays ``ask``. A ``call`` question is parked until a person decides. A ``hole`` question
    of a call a person already decided (the page shows a call's holes with
    it) gets that same decision; otherwise it is parked too, as is every
    ``body`` question (its text is new).

    Args:
        options: The ``[approver.human]`` table.
        context: The gateway's context; the board is taken from (or put into)
            ``context.services["human"]``.

    Attributes:
        name: ``human``.
        reviews_raw_text: True: a person's allow counts for a plan that
            could not be measured (they see its raw text, escaped).
        timeout: What the gateway allows this approver: the wait plus a grace.
        board: Where questions wait.
    """

    name = "human"
    # A person reads the raw text (the page shows it, hidden characters
    # escaped, with the reason it could not be measured): their allow counts.
    reviews_raw_text = True

    def __init__(self, options: Mapping[str, Any], context: ApproverContext) -> None:
        try:
            parsed = msgspec.convert(dict(options), HumanOptions)
        except msgspec.ValidationError as error:
            raise ValueError(f"invalid [approver.human] options: {error}") from None
        self.wait = (
            parsed.timeout if parsed.timeout is not None else context.config.serve.human_timeout
        )
        # The grace is this plugin's own knowledge: the core only caps every
        # duration at MAX_SECONDS, so a person's wait is clipped to leave it.
        self.wait = min(self.wait, MAX_SECONDS - REMEMBER_GRACE)
        self.timeout = self.wait + REMEMBER_GRACE
        self.board = HumanBoard.shared(context.services, context.config)

    async def review(self, request: ReviewRequest) -> Answer:
        """Wait for a person's decision on this question (bounded by the timeout)."""
        if request.kind == "hole":
            earlier = self.board.decision_for(request.call.call_id or "", request.digest)
            if earlier is not None:
                return _answer(earlier, hole=True)
        if not self.board.attached:
            # In-process uses of the default chain (`gateway check`, a standalone
            # hook) have no page: waiting would only delay the same `ask`.
            return Abstain(reason=NO_SERVICE)
        record = await self.board.park(request, self.wait)
        return _answer(record, hole=False)

    async def aclose(self) -> None:
        """Decline whatever still waits: the gateway is closing."""
        self.board.close("the gateway is closing")


def _answer(record: DecisionRecord, *, hole: bool) -> Answer:
    reason = record.reason
    if hole:
        verb = "allowed" if record.decision == "allow" else "declined"
        reason = f"A person {verb} the call with this hole shown ({record.reason.rstrip('.')})."
    rule = "human" if record.scope in (None, "once") else f"human.{record.scope}"
    if record.decision == "allow":
        return Allow(reason=reason, rule=rule, person=record.by == "person")
    return Decline(reason=reason, rule=None if record.by != "person" else rule)
