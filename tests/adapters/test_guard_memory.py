"""`gateway_guard.VerdictMemory`: each call reviewed once per call id, never for another call."""

from __future__ import annotations

import pytest
from gateway_guard import VerdictMemory

from adapters.scripted import CrashingGateway
from gateway import ToolCall, Verdict

pytestmark = pytest.mark.anyio


class CountingReviewer:
    """Allows everything and counts the reviews it was asked for."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    async def review(self, call: ToolCall) -> Verdict:
        self.calls.append(call)
        return Verdict(
            decision="allow", reason=f"Review {len(self.calls)}.", digest="", call_id=call.call_id
        )


def bash(command: str, call_id: str | None) -> ToolCall:
    return ToolCall("Bash", {"command": command}, call_id=call_id)


async def test_the_same_call_asked_twice_is_reviewed_once() -> None:
    reviewer, memory = CountingReviewer(), VerdictMemory()
    first = await memory.review(reviewer, bash("ls", "c-1"))
    again = await memory.review(reviewer, bash("ls", "c-1"))
    assert again == first
    assert len(reviewer.calls) == 1


async def test_a_known_id_with_other_input_is_reviewed_again() -> None:
    # A call id must not let a different command ride on an earlier allow.
    reviewer, memory = CountingReviewer(), VerdictMemory()
    await memory.review(reviewer, bash("ls", "c-1"))
    call, verdict = await memory.review(reviewer, bash("rm -rf ~", "c-1"))
    assert call.input == {"command": "rm -rf ~"}
    assert verdict.reason == "Review 2."
    other_tool = ToolCall("Write", {"command": "rm -rf ~"}, call_id="c-1")
    assert (await memory.review(reviewer, other_tool))[1].reason == "Review 3."


async def test_calls_without_an_id_are_always_reviewed() -> None:
    reviewer, memory = CountingReviewer(), VerdictMemory()
    for call_id in (None, "", None):
        await memory.review(reviewer, bash("ls", call_id))
    assert len(reviewer.calls) == 3
    assert len(memory) == 0


async def test_the_oldest_id_is_forgotten_beyond_the_size() -> None:
    reviewer, memory = CountingReviewer(), VerdictMemory(size=2)
    for call_id in ("a", "b", "c"):
        await memory.review(reviewer, bash("ls", call_id))
    assert len(memory) == 2
    await memory.review(reviewer, bash("ls", "c"))
    await memory.review(reviewer, bash("ls", "b"))
    assert len(reviewer.calls) == 3
    await memory.review(reviewer, bash("ls", "a"))  # forgotten: reviewed again
    assert len(reviewer.calls) == 4


async def test_a_failing_reviewer_is_a_decline() -> None:
    call, verdict = await VerdictMemory().review(CrashingGateway(), bash("ls", "c-1"))
    assert verdict.decision == "decline"
    assert "RuntimeError" in verdict.reason
    assert call.call_id == "c-1"
