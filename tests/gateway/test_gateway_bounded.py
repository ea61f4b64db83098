"""
Bounded work (`gateway.bounded`): tasks run in worker processes under a deadline that holds.

Each misbehaving task of `gateway_tasks` is run for real, in a real worker:
the answer is a typed failure with one clause, the worker is replaced, the
next call is served, and the caller's event loop keeps its timers all along.
Bounds are generous; nothing asserts how fast anything is.
"""

from __future__ import annotations

import gc
import time
from typing import Any, Final

import anyio
import gateway_tasks as tasks
import pytest
from gateway_support import BOUND, anyio_backend as anyio_backend, config

from gateway import Gateway, ToolCall
from gateway._work._bounded import cpu_account
from gateway.bounded import (
    BoundedFailure,
    BoundedPool,
    bounded_task,
    charge,
    cpu_left,
    in_worker,
    thread_cpu_seconds,
)
from gateway.testing import StaticApprover

pytestmark = pytest.mark.anyio

START: Final = 60.0
"""Seconds a test allows for a worker to start on a busy machine."""


@pytest.fixture
async def pool() -> Any:
    bounded = BoundedPool(workers=1, memory=256 * 1024 * 1024)
    try:
        yield bounded
    finally:
        await bounded.aclose()


async def test_a_task_answers_from_a_worker(pool: BoundedPool) -> None:
    with anyio.fail_after(START):
        assert await pool.run(tasks.echo, "hello", timeout=BOUND) == "hello"
        assert await pool.run(tasks.where, 0, timeout=BOUND) is True
    assert in_worker() is False
    assert tasks.echo("here") == "here"  # called directly, it runs in this process


async def test_work_past_its_deadline_is_killed_and_the_next_call_is_served(
    pool: BoundedPool,
) -> None:
    """Pure-Python spinning past the deadline: a timeout failure, a new worker, a good answer after."""
    with anyio.fail_after(START):
        await pool.run(tasks.echo, "warm", timeout=BOUND)
        failed = await pool.run(tasks.spin, 3600.0, timeout=0.2)
        after = await pool.run(tasks.echo, "again", timeout=BOUND)
    assert failed == BoundedFailure(
        kind="timeout", reason="the work did not finish within 0.2 s", task="gateway_tasks:spin"
    )
    assert after == "again"
    assert pool.statistics().killed == 1


# ── CPU budgets ──


async def test_work_past_its_cpu_budget_is_a_cpu_failure_and_the_worker_lives_on(
    pool: BoundedPool,
) -> None:
    """Pure Python past the CPU seconds of its account: stopped inside the worker, which serves the next call."""
    with anyio.fail_after(START):
        await pool.run(tasks.echo, "warm", timeout=BOUND)
        with cpu_account(0.2) as account:
            failed = await pool.run(tasks.spin, 3600.0, timeout=BOUND)
            left = cpu_left()
            # Nothing is left: the next call of the same account is refused without a worker.
            refused = await pool.run(tasks.echo, "more", timeout=BOUND)
        after = await pool.run(tasks.echo, "again", timeout=BOUND)
    reason = "the work used more than the 0.2 s of CPU time it may use"
    assert failed == BoundedFailure(kind="cpu", reason=reason, task="gateway_tasks:spin")
    assert refused == BoundedFailure(kind="cpu", reason=reason, task="gateway_tasks:echo")
    assert left is not None
    assert left <= 0
    assert account.left == left
    assert cpu_left() is None
    assert after == "again"
    assert pool.statistics().killed == 0


async def test_a_task_may_answer_with_what_it_knows_when_its_cpu_is_spent(
    pool: BoundedPool,
) -> None:
    with anyio.fail_after(START), cpu_account(0.1):
        answer = await pool.run(tasks.spin_then_answer, 3600.0, timeout=BOUND)
    assert answer == "stopped after 0.1 s"
    assert pool.statistics().killed == 0


async def test_work_past_its_cpu_time_that_the_timer_missed_is_told_at_its_end(
    pool: BoundedPool,
) -> None:
    """The timer fires at a scheduler tick: a task that asks at its end learns what it used."""
    with anyio.fail_after(START):
        with cpu_account(0.01):
            spent = await pool.run(tasks.burn_between_ticks, 0.05, timeout=BOUND)
        with cpu_account(1.0):
            within = await pool.run(tasks.burn_between_ticks, 0.01, timeout=BOUND)
    assert (spent, within) == ("spent 0.01", "within")


async def test_c_code_past_its_cpu_budget_is_ended_by_the_kernel(pool: BoundedPool) -> None:
    """A key derivation never returns to Python: the kernel ends the worker `CPU_GRACE` later."""
    with anyio.fail_after(START):
        await pool.run(tasks.echo, "warm", timeout=BOUND)
        with cpu_account(0.1):
            failed = await pool.run(tasks.stretch, 10**9, timeout=BOUND)
        after = await pool.run(tasks.echo, "again", timeout=BOUND)
    assert failed == BoundedFailure(
        kind="cpu",
        reason="the work used more than the 0.1 s of CPU time it may use",
        task="gateway_tasks:stretch",
    )
    assert after == "again"
    assert pool.statistics().killed == 1


def test_the_review_clock_leaves_out_full_collections_and_keeps_the_work() -> None:
    """`thread_cpu_seconds` counts a thread's own work, not the full collections of the heap it ran into."""
    heap = [[number] for number in range(500_000)]
    started, raw = thread_cpu_seconds(), time.thread_time()
    for _ in range(10):
        gc.collect()
    collected, charged = time.thread_time() - raw, thread_cpu_seconds() - started
    assert len(heap) == 500_000
    assert charged < collected / 4, (charged, collected)
    started, raw = thread_cpu_seconds(), time.thread_time()
    while time.thread_time() - raw < 0.05:  # work of its own: counted
        pass
    assert thread_cpu_seconds() - started >= 0.04


async def test_calls_of_one_account_share_its_budget(pool: BoundedPool) -> None:
    """Each call gets what is left and gives back what it used; work done here is charged too."""
    with anyio.fail_after(START):
        await pool.run(tasks.echo, "warm", timeout=BOUND)
        with cpu_account(5.0) as account:
            await pool.run(tasks.spin, 0.05, timeout=BOUND)
            after_one = account.left
            charge(1.0)
            assert account.left == after_one - 1.0
            await pool.run(tasks.spin, 0.05, timeout=BOUND)
    assert 0 < 5.0 - after_one < 1.0
    assert account.left < after_one - 1.0


async def test_a_regular_expression_that_never_lets_go_cannot_stop_the_callers_timers(
    pool: BoundedPool,
) -> None:
    """
    A catastrophic regex holds the interpreter in C code: in a thread it would
    stop this loop too; in a worker, this loop's timers keep firing.
    """
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await anyio.sleep(0.01)
            ticks += 1

    with anyio.fail_after(START):
        await pool.run(tasks.echo, "warm", timeout=BOUND)
        async with anyio.create_task_group() as group:
            group.start_soon(tick)
            failed = await pool.run(tasks.regex, 64, timeout=0.5)
            group.cancel_scope.cancel()
    assert isinstance(failed, BoundedFailure)
    assert failed.kind == "timeout"
    assert ticks >= 5  # the loop ran while the worker was stuck


async def test_memory_past_the_cap_is_a_memory_failure(pool: BoundedPool) -> None:
    with anyio.fail_after(START):
        failed = await pool.run(tasks.hog, 4 * 1024 * 1024 * 1024, timeout=BOUND)
        after = await pool.run(tasks.echo, "still here", timeout=BOUND)
    assert isinstance(failed, BoundedFailure)
    assert (failed.kind, failed.reason) == (
        "memory",
        "the work needed more memory than a worker may have",
    )
    assert after == "still here"


@pytest.mark.parametrize(
    ("task", "argument", "kind", "reason"),
    [
        (tasks.boom, 1, "error", "the work failed (ValueError)"),
        (tasks.die, 3, "crashed", "the worker died while working"),
    ],
    ids=["raises", "exits"],
)
async def test_a_task_that_raises_or_exits_is_a_typed_failure(
    pool: BoundedPool, task: Any, argument: int, kind: str, reason: str
) -> None:
    with anyio.fail_after(START):
        failed = await pool.run(task, argument, timeout=BOUND)
        after = await pool.run(tasks.echo, "next", timeout=BOUND)
    assert failed == BoundedFailure(kind=kind, reason=reason, task=task.name)  # type: ignore[arg-type]
    assert after == "next"


async def test_what_a_task_prints_never_corrupts_an_answer(pool: BoundedPool) -> None:
    with anyio.fail_after(START):
        assert await pool.run(tasks.chatter, "x", timeout=BOUND) == "x"
        assert await pool.run(tasks.echo, "y", timeout=BOUND) == "y"


async def test_a_task_may_use_the_public_api(pool: BoundedPool) -> None:
    """The worker starts without the package's public names and loads them when a task asks."""
    with anyio.fail_after(START):
        assert await pool.run(tasks.public, "Bash", timeout=BOUND * 3) == "Bash"


async def test_an_argument_that_cannot_be_encoded_is_an_error_without_a_worker(
    pool: BoundedPool,
) -> None:
    failed = await pool.run(tasks.echo, object(), timeout=BOUND)  # type: ignore[misc]
    assert isinstance(failed, BoundedFailure)
    assert failed.kind == "error"
    assert failed.reason.startswith("its argument cannot be encoded")
    assert pool.statistics().started == 0


async def test_a_caller_cancelled_mid_work_kills_the_worker(pool: BoundedPool) -> None:
    with anyio.fail_after(START):
        await pool.run(tasks.echo, "warm", timeout=BOUND)
        with anyio.move_on_after(0.2):
            await pool.run(tasks.spin, 3600.0, timeout=3600.0)
        after = await pool.run(tasks.echo, "served", timeout=BOUND)
    assert after == "served"
    assert pool.statistics().killed == 1


async def test_calls_beyond_the_pool_size_wait_their_turn() -> None:
    bounded = BoundedPool(workers=2)
    results: list[str] = []
    try:
        with anyio.fail_after(START):
            async with anyio.create_task_group() as group:
                for index in range(12):

                    async def one(index: int = index) -> None:
                        answer = await bounded.run(tasks.echo, f"n{index}", timeout=BOUND)
                        assert isinstance(answer, str)
                        results.append(answer)

                    group.start_soon(one)
        assert bounded.statistics().workers <= 2
    finally:
        await bounded.aclose()
    assert sorted(results) == sorted(f"n{index}" for index in range(12))


async def test_a_closed_pool_refuses_and_hands_its_workers_to_the_next() -> None:
    first = BoundedPool(workers=1)
    with anyio.fail_after(START):
        assert await first.run(tasks.echo, "a", timeout=BOUND) == "a"
        await first.aclose()
        refused = await first.run(tasks.echo, "b", timeout=BOUND)
        second = BoundedPool(workers=1)
        try:
            assert await second.run(tasks.echo, "c", timeout=BOUND) == "c"
            started = second.statistics().started
        finally:
            await second.aclose()
    assert isinstance(refused, BoundedFailure)
    assert (refused.kind, refused.reason) == ("unavailable", "the pool of workers is closed")
    assert started == 0  # the first pool's idle worker served it


def test_a_task_must_be_a_module_level_function_of_one_annotated_argument() -> None:
    def inner(text: str) -> str:
        return text

    with pytest.raises(TypeError, match="module-level function"):
        bounded_task(inner)

    def two(a: str, b: str) -> str:
        return a + b

    two.__qualname__ = "two"
    with pytest.raises(TypeError, match="one annotated argument"):
        bounded_task(two)  # type: ignore[arg-type]


# ── the gateway's reading, bounded ──


async def test_a_call_that_cannot_be_read_in_time_is_declined_in_one_sentence() -> None:
    """The reading of the call overruns plan-timeout: the worker is killed, the call declined, the next served."""
    approver = StaticApprover("allow")
    long = " && ".join(
        f"echo {index} $(date)" for index in range(2000)
    )  # far more than 1 ms of reading
    with anyio.fail_after(START):
        async with Gateway(config(plan_timeout=0.001), approvers=[approver]) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": long}, call_id="x"))
            killed = gateway.statistics().workers_killed
    assert verdict.decision == "decline"
    assert verdict.reason == (
        "The call could not be read safely (the work did not finish within 0.001 s), "
        "and the gateway fails closed."
    )
    assert approver.requests == []
    assert killed >= 1
