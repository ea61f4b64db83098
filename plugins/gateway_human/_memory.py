"""
The in-memory board: questions wait in the process that reviews them.

The default board, for one ``gateway serve`` (or any embedding). Everything
runs in the gateway's event loop, and between checking that a question still
waits and claiming it `MemoryBoard.decide` never awaits: the first valid
decision wins, every later one is refused.

Memory is bounded: at most ``max-pending`` questions wait (more are declined
at once) and the last ``history`` decisions are kept. A restart loses what
waits (the reviews are declined as the service stops); the broker-backed
board of ``gateway_nats`` does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import anyio

from gateway import ReviewRequest
from gateway_human._board import BoardBase, BoardStatistics
from gateway_human._records import DecisionRecord, Scope, WaitingCall

__all__ = ["MemoryBoard"]


class _Slot:
    def __init__(self, item: WaitingCall) -> None:
        self.item = item
        self.claimed: DecisionRecord | None = None
        self.closed: DecisionRecord | None = None
        self.woken = anyio.Event()
        self.finished = anyio.Event()
        self.final: DecisionRecord | None = None


class MemoryBoard(BoardBase):
    """
    Questions waiting for a person in this process, and the last decisions made.

    Args:
        services: The gateway's shared services (the rules approver is looked
            up there, as ``services["rules"]``, to offer and save remembered
            approvals).
        history: Decisions kept.
        max_pending: Questions that may wait at once; more are declined.
    """

    def __init__(
        self,
        services: dict[str, Any] | None = None,
        *,
        history: int = 500,
        max_pending: int = 1000,
    ) -> None:
        super().__init__(services, history=history, max_pending=max_pending)
        self._pending: dict[str, _Slot] = {}

    # ── reading ──

    def pending(self) -> list[WaitingCall]:
        """The questions waiting, oldest first."""
        return [slot.item for slot in self._pending.values()]

    def get(self, board_id: str) -> tuple[WaitingCall, DecisionRecord | None] | None:
        """A waiting or recently decided question by its board id."""
        slot = self._pending.get(board_id)
        if slot is not None:
            return slot.item, None
        return self._history.get(board_id)

    def statistics(self) -> BoardStatistics:
        """How many questions wait and how many decisions are kept."""
        return BoardStatistics(pending=len(self._pending), history=len(self._history))

    # ── parking ──

    async def park(self, request: ReviewRequest, timeout: float) -> DecisionRecord:  # noqa: ASYNC109 -- the wait is the person's time, reported in the reason
        """
        Wait until a person decides this question, or ``timeout`` seconds pass.

        Returns the decision; nobody deciding in time, too many questions
        waiting, the same id already waiting, the board closing or the wait
        being cancelled is a decline that says so.
        """
        item = self._item(request, timeout)
        refusal = self._refusal(item, len(self._pending), taken=item.id in self._pending)
        if refusal is not None:
            return refusal
        slot = _Slot(item)
        self._pending[item.id] = slot
        self._tell(item, None)
        try:
            async with anyio.create_task_group() as notices:
                notices.start_soon(self._announce, item)
                with anyio.move_on_after(timeout):
                    await slot.woken.wait()
                notices.cancel_scope.cancel()  # A notice still on its way is not needed now.
            if slot.claimed is None and slot.closed is None:
                slot.closed = self._timed_out(item)
            if slot.claimed is not None:
                slot.final = await self._remember(item, slot.claimed)
            else:
                slot.final = slot.closed
        finally:
            if slot.final is None:
                slot.final = slot.claimed or self._cancelled(item)
            if slot.claimed is None:
                slot.closed = slot.final
            del self._pending[item.id]
            self._file(item, slot.final)
            slot.finished.set()
            self._tell(item, slot.final)
        return slot.final

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
            raise self._taken(board_id, earlier)
        record = self._accept(
            slot.item,
            decision=decision,
            digest=digest,
            scope=scope,
            prefix=prefix,
            note=note,
            decided_by=decided_by,
        )
        # No await between the check above and this claim: nothing else runs.
        slot.claimed = record
        slot.woken.set()
        return record

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
                slot.closed = self._closing(slot.item, why)
                slot.woken.set()
