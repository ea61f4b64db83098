"""
The ``human`` approver: a call waits on a board until a person decides, or its time runs out.

Registered in the ``gateway.approvers`` entry-point group as ``human`` and
loaded like any third-party approver, usually last in the chain (after the
``rules`` approver has abstained). Each question it is asked is parked on a
`Board` shared through ``context.services["human"]`` (in memory by default;
in a broker with ``gateway serve --broker``); the approval
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

from gateway import Abstain, Allow, Answer, ApproverContext, Decline, GatewayConfig, ReviewRequest
from gateway.config import MAX_SECONDS
from gateway.fleet import load_notifier
from gateway_human._board import (
    SERVICE_KEY,
    Board,
    BoardBase,
    BoardStatistics,
    Watcher,
    board_id,
    remembered_as,
    subject,
)
from gateway_human._memory import MemoryBoard
from gateway_human._records import (
    DecidedBy,
    DecisionRecord,
    DecisionRefused,
    Offer,
    Scope,
    WaitingCall,
    shown,
)

__all__ = [
    "NO_SERVICE",
    "SERVICE_KEY",
    "SHADOW",
    "Board",
    "BoardBase",
    "BoardStatistics",
    "DecidedBy",
    "DecisionRecord",
    "DecisionRefused",
    "HumanApprover",
    "HumanBoard",
    "HumanOptions",
    "MemoryBoard",
    "Offer",
    "Scope",
    "WaitingCall",
    "Watcher",
    "board_id",
    "remembered_as",
    "shared_board",
    "shown",
    "subject",
]

HumanBoard = MemoryBoard
"""The in-memory board, by the name it had before boards had an interface."""

NO_SERVICE: Final = (
    "No approval service (`gateway serve`) is running, so no person can be asked here."
)

SHADOW: Final = "Shadow mode: the host decides, so no person is asked here; the gateway records what it would have done."

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


def shared_board(services: dict[str, Any], config: GatewayConfig) -> Board:
    """
    The board in ``services``, made (an in-memory one, from the ``[serve]`` table) if there is none yet.

    A board put there beforehand (the broker-backed board of ``gateway serve
    --broker``) is adopted: it is told the gateway's services, so it finds the
    rules approver to offer and save remembered approvals. The notifiers the
    config names (``[notifiers.NAME]``) are loaded for it, and the link in
    their notices points at ``[serve] public-url`` (or, when the service
    knows its own address, there).

    Raises:
        PluginLoadError: A notifier is not installed or cannot be built.
    """
    board = services.get(SERVICE_KEY)
    if isinstance(board, Board):
        board.services = services
    else:
        board = MemoryBoard(
            services, history=config.serve.history, max_pending=config.serve.max_pending
        )
        services[SERVICE_KEY] = board
    if not board.notifiers:
        board.notifiers = tuple(
            load_notifier(name, notifier) for name, notifier in config.notifiers.items()
        )
    if not board.link_base:
        board.link_base = config.serve.public_url
    return board


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
        role: ``person``: the chain does not ask it once a delegate has allowed.
        reviews_raw_text: True: a person's allow counts for a plan that
            could not be measured (they see its raw text, escaped).
        shares_loop: True: it waits on the board, on the gateway's loop.
        timeout: What the gateway allows this approver: the wait plus a grace.
        board: Where questions wait.
        shadow: Whether the gateway runs in shadow mode (then it abstains at
            once: the host decides).
    """

    name = "human"
    # A person is not asked about a call a delegate has already allowed.
    role = "person"
    # A person reads the raw text (the page shows it, hidden characters
    # escaped, with the reason it could not be measured): their allow counts.
    reviews_raw_text = True
    # It only waits on the board, which lives on the gateway's loop with the
    # approval service: it must run there, and never blocks it.
    shares_loop = True

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
        self.board = shared_board(context.services, context.config)
        self.shadow = context.config.gateway.mode == "shadow"

    async def review(self, request: ReviewRequest) -> Answer:
        """Wait for a person's decision on this question (bounded by the timeout)."""
        if self.shadow:
            # The host decides every call in shadow mode: a person waiting on
            # the board would only delay an answer nobody uses.
            return Abstain(reason=SHADOW)
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
        return Allow(reason=reason, rule=rule, decided_by=record.decided_by)
    return Decline(
        reason=reason,
        rule=None if record.by != "person" else rule,
        decided_by=record.decided_by,
    )
