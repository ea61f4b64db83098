"""
Helpers for testing code that uses the gateway (and for the gateway's own tests).

`StaticApprover` answers every question the same way (optionally after a
delay, or by raising, or by returning garbage); `MemorySink` keeps events in a
list; `make_call` builds a shell tool call.
"""

from __future__ import annotations

from typing import Any, Literal

import anyio

from gateway._approvers import ApproverRole, ReviewRequest
from gateway._calls._calls import ToolCall
from gateway._calls._events import Event
from gateway._calls._verdicts import Abstain, Allow, Answer, Decline
from gateway._record._sinks import ChainTip

__all__ = ["MemorySink", "StaticApprover", "make_call"]


class StaticApprover:
    """
    An approver that always gives the same answer.

    Args:
        decision: ``allow``, ``decline`` or ``abstain``.
        name: Its name in events and verdicts.
        delay: Seconds to wait before answering.
        raises: An exception to raise instead of answering.
        returns: A value to return instead of a proper answer (to test garbage).
        reviews_raw_text: Whether its allow counts for unmeasured plans.
        shares_loop: Whether it runs on the gateway's event loop (it never
            blocks it); ``False`` runs it on a loop and a thread of its own,
            as an approver that does not say so is run.
        deterministic: Whether identical calls may reuse its answers.
        role: What its answers rest on (``policy``, ``delegate`` or ``person``).
    """

    def __init__(
        self,
        decision: Literal["allow", "decline", "abstain"] = "allow",
        *,
        name: str | None = None,
        delay: float = 0.0,
        raises: BaseException | None = None,
        returns: Any = None,
        reviews_raw_text: bool = False,
        shares_loop: bool = True,
        deterministic: bool = False,
        role: ApproverRole = "policy",
    ) -> None:
        self.name = name or f"static-{decision}"
        self.decision = decision
        self.delay = delay
        self.raises = raises
        self.returns = returns
        self.reviews_raw_text = reviews_raw_text
        self.shares_loop = shares_loop
        self.deterministic = deterministic
        self.role = role
        self.requests: list[ReviewRequest] = []

    async def review(self, request: ReviewRequest) -> Answer:
        """Answer after ``delay``, as configured."""
        self.requests.append(request)
        if self.delay:
            await anyio.sleep(self.delay)
        if self.raises is not None:
            raise self.raises
        if self.returns is not None:
            return self.returns  # type: ignore[no-any-return]
        if self.decision == "allow":
            return Allow(reason=f"{self.name} allows everything.", rule="static")
        if self.decision == "decline":
            return Decline(reason=f"{self.name} declines everything.", rule="static")
        return Abstain(reason=f"{self.name} never decides.")


class MemorySink:
    """A sink that keeps every event in `events` (optionally failing or blocking, for fault tests)."""

    # It never blocks the loop (a blocked one awaits forever), and fault
    # tests share anyio objects with it.
    shares_loop = True

    def __init__(self, *, fail: bool = False, block: bool = False) -> None:
        self.events: list[Event] = []
        self.fail = fail
        self.block = block
        self.closed = False

    async def open(self) -> ChainTip | None:
        """Nothing to open; no chain to continue."""
        return None

    async def write(self, event: Event) -> None:
        """Keep the event (or fail, or block forever)."""
        if self.block:
            await anyio.sleep_forever()
        if self.fail:
            raise OSError("the disk is full")
        self.events.append(event)

    async def aclose(self) -> None:
        """Mark closed."""
        self.closed = True


def make_call(command: str, **fields: Any) -> ToolCall:
    """A ``Bash`` tool call for ``command`` (extra fields: call_id, session_id, cwd…)."""
    return ToolCall("Bash", {"command": command}, **fields)
