"""
Approvers that block their thread, answer late, or raise what no approver should: deadlines hold.

An approver that does not declare ``shares_loop`` runs on a loop and a thread
of its own, so even ``time.sleep`` in its ``review`` cannot stop the gateway's
timers; an answer after the deadline — from any approver, however it got
there — never counts; any exception, BaseException included, is a decline.
The optional members are read once, when an approver is loaded, and a wrong
one stops the start with one sentence. Bounds are generous: nothing here
asserts how fast anything is, only what was counted.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Final

import anyio
import pytest
from gateway_support import BOUND, anyio_backend as anyio_backend, config, of_call, tags

from gateway import Allow, Gateway, PluginLoadError, ReviewRequest
from gateway.events import ApproverDecided, ApproverFailed
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio

FAST: Final = 0.2


class Sleeper:
    """Blocks its thread with `time.sleep` past its timeout, then allows: the late allow."""

    name = "sleeper"
    timeout = FAST

    def __init__(self, seconds: float, *, shares_loop: bool = False) -> None:
        self.seconds = seconds
        self.shares_loop = shares_loop
        self.asked = 0

    async def review(self, request: ReviewRequest) -> Any:
        self.asked += 1
        time.sleep(self.seconds)  # noqa: ASYNC251 -- the point: a plugin that blocks its thread
        return Allow(reason="Allowed, too late.")


async def _ticks_while(work: Any) -> tuple[Any, int]:
    """Run ``work()`` while counting ticks of a 10 ms timer on this loop."""
    ticks = 0
    result: list[Any] = []

    async def tick() -> None:
        nonlocal ticks
        while True:
            await anyio.sleep(0.01)
            ticks += 1

    async with anyio.create_task_group() as group:
        group.start_soon(tick)
        result.append(await work())
        group.cancel_scope.cancel()
    return result[0], ticks


async def test_an_approver_that_blocks_its_thread_cannot_stop_the_gateways_timers() -> None:
    """`time.sleep(2)` in an isolated approver: declined at its deadline while this loop keeps ticking."""
    sleeper = Sleeper(2.0)
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[sleeper]) as gateway:
            started = time.monotonic()
            verdict, ticks = await _ticks_while(lambda: gateway.review(make_call("ls")))
            took = time.monotonic() - started
    assert verdict.decision == "decline"
    assert verdict.reason == (
        "Approver 'sleeper' did not answer within 0.2 s, and the gateway fails closed."
    )
    assert took < 2.0  # it did not wait for the sleeping thread
    assert ticks >= 5


@pytest.mark.parametrize("shares_loop", [False, True], ids=["isolated", "on-the-loop"])
async def test_ten_late_allows_are_ten_declines(shares_loop: bool) -> None:
    """
    An allow that comes after the deadline never counts — even from an
    approver that blocked the loop itself, so no timer could fire in time.
    """
    sleeper = Sleeper(FAST * 2, shares_loop=shares_loop)
    sink = MemorySink()
    with anyio.fail_after(BOUND * 4):
        async with Gateway(approvers=[sleeper], sinks={"memory": sink}) as gateway:
            verdicts = [await gateway.review(make_call("ls", call_id=f"c{i}")) for i in range(10)]
    assert [v.decision for v in verdicts] == ["decline"] * 10
    # On the loop it was asked every time; on its own thread, calls queued
    # behind the one it slept through (each still cut off at its deadline).
    assert sleeper.asked == 10 if shares_loop else 1 <= sleeper.asked <= 10
    failures = [e for e in sink.events if isinstance(e, ApproverFailed)]
    assert len(failures) == 10
    assert not [e for e in sink.events if isinstance(e, ApproverDecided)]


class Raiser:
    """Raises whatever it is given, from its review."""

    name = "raiser"

    def __init__(self, error: BaseException, *, shares_loop: bool) -> None:
        self.error = error
        self.shares_loop = shares_loop

    async def review(self, request: ReviewRequest) -> Any:
        raise self.error


class _Custom(BaseException):
    """A BaseException of a plugin's own."""


@pytest.mark.parametrize("shares_loop", [True, False], ids=["on-the-loop", "isolated"])
@pytest.mark.parametrize(
    "error",
    [
        KeyboardInterrupt(),
        SystemExit(3),
        GeneratorExit(),
        _Custom(),
        RuntimeError("boom"),
        MemoryError(),
        RecursionError(),
    ],
    ids=[
        "keyboard-interrupt",
        "system-exit",
        "generator-exit",
        "custom",
        "runtime",
        "memory",
        "recursion",
    ],
)
async def test_whatever_an_approver_raises_is_a_decline(
    error: BaseException, shares_loop: bool
) -> None:
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[Raiser(error, shares_loop=shares_loop)], sinks={"memory": sink}
        ) as gateway:
            verdict = await gateway.review(make_call("ls", call_id="x"))
            after = await gateway.review(make_call("pwd", call_id="y"))
    assert verdict.decision == "decline"
    assert verdict.reason == (
        f"Approver 'raiser' failed ({type(error).__name__}), and the gateway fails closed."
    )
    assert after.decision == "decline"
    assert tags(of_call(sink.events, "x"))[-2:] == ["approver.failed", "verdict.reached"]


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # only asyncio lets code make one
async def test_a_cancellation_an_approver_raises_itself_is_a_decline() -> None:
    """An approver raising CancelledError that nobody asked for is a failure, not the caller's cancellation."""
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[Raiser(asyncio.CancelledError(), shares_loop=True)]
        ) as gateway:
            verdict = await gateway.review(make_call("ls"))
    assert verdict.reason == (
        "Approver 'raiser' failed (CancelledError), and the gateway fails closed."
    )


async def test_an_isolated_approver_answers_like_any_other() -> None:
    approver = StaticApprover("allow", shares_loop=False, delay=0.01)
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver]) as gateway:
            verdicts = [await gateway.review(make_call("ls", call_id=f"c{i}")) for i in range(5)]
    assert [v.decision for v in verdicts] == ["allow"] * 5
    assert len(approver.requests) == 5


# ── optional members, read once ──


class Misspelt:
    name = "misspelt"
    review_raw_text = True  # meant: reviews_raw_text

    async def review(self, request: ReviewRequest) -> Any:
        return Allow(reason="Fine.")


@pytest.mark.parametrize(
    ("attribute", "value", "message"),
    [
        (
            "shares_loop",
            "yes",
            "The approver 'odd' says shares_loop = 'yes', which is not True or False.",
        ),
        (
            "deterministic",
            1,
            "The approver 'odd' says deterministic = 1, which is not True or False.",
        ),
        (
            "reviews_raw_text",
            None,
            "The approver 'odd' says reviews_raw_text = None, which is not True or False.",
        ),
        (
            "generation",
            "v2",
            "The approver 'odd' says generation = 'v2', which is not a whole number.",
        ),
        (
            "role",
            "boss",
            "The approver 'odd' says role = 'boss'; it must be 'policy', 'delegate' or 'person'.",
        ),
    ],
    ids=["shares-loop", "deterministic", "raw-text", "generation", "role"],
)
async def test_an_optional_member_of_the_wrong_type_stops_the_start(
    attribute: str, value: object, message: str
) -> None:
    approver = StaticApprover("allow", name="odd")
    setattr(approver, attribute, value)
    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError) as caught:
        async with Gateway(approvers=[approver]):
            pass
    assert str(caught.value) == message


async def test_a_misspelt_optional_member_stops_the_start_naming_it() -> None:
    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError) as caught:
        async with Gateway(approvers=[Misspelt()]):
            pass
    assert str(caught.value) == (
        "The approver 'misspelt' has an attribute 'review_raw_text'; did you mean 'reviews_raw_text'?"
    )


async def test_a_synchronous_review_or_aclose_stops_the_start() -> None:
    class Sync:
        name = "sync"

        def review(self, request: ReviewRequest) -> Any:
            return Allow(reason="Fine.")

    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError, match="not an async method"):
        async with Gateway(approvers=[Sync()]):
            pass


# ── answers given again ──


class Counting(StaticApprover):
    """A deterministic approver whose knowledge (`generation`) a test changes."""

    def __init__(self) -> None:
        super().__init__("allow", name="counting", deterministic=True)
        self.generation = 0


async def test_a_deterministic_approver_is_not_asked_again_about_an_identical_call() -> None:
    counting = Counting()
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[counting], sinks={"memory": sink}) as gateway:
            for index in range(3):
                await gateway.review(make_call("ls", call_id=f"c{index}", session_id="s"))
            asked_before = len(counting.requests)
            counting.generation = 1  # what it knows changed
            await gateway.review(make_call("ls", call_id="after", session_id="s"))
            await gateway.review(make_call("ls", call_id="other", session_id="t"))
    assert asked_before == 1
    assert len(counting.requests) == 3  # asked again after the change, and in another session
    decided = [e for e in sink.events if isinstance(e, ApproverDecided)]
    assert [(e.call_id, e.reused) for e in decided] == [
        ("c0", False),
        ("c1", True),
        ("c2", True),
        ("after", False),
        ("other", False),
    ]
    # Every call still has its own full record.
    for call_id in ("c0", "c1", "c2", "after"):
        assert tags(of_call(sink.events, call_id)) == [
            "call.proposed",
            "plan.ready",
            "approver.decided",
            "verdict.reached",
        ]


async def test_an_approver_that_does_not_say_it_is_deterministic_is_asked_every_time() -> None:
    approver = StaticApprover("allow")
    with anyio.fail_after(BOUND):
        async with Gateway(config(), approvers=[approver]) as gateway:
            for index in range(3):
                await gateway.review(make_call("ls", call_id=f"c{index}"))
    assert len(approver.requests) == 3
