"""
The reading budget: CPU time, not the wall clock; and bashlex on large sources in a bounded worker.

No assertion here depends on how busy the machine is: a budget is spent by
work done (a thread's CPU time), and the wall-clock bound is tested only with
texts that take far longer than it on any machine.
"""

from __future__ import annotations

import re
import time

import anyio
import pytest

import gateway._read
import gateway._work._bounded
from gateway._read import read_shell
from gateway._read._limits import INPROCESS_MAX_BYTES, ReadingBudget
from gateway._read._worker import (
    WorkerRequest,
    WorkerResult,
    _cpu_cap,
    read_bashlex,
    read_in_worker,
)
from gateway._work._bounded import BoundedFailure, BoundedPool, bounded_task

# Over `INPROCESS_MAX_BYTES`, so the reader sends it to a worker; about a second
# of bashlex's CPU time (far more than the wall-clock bounds used below).
LARGE = "echo " + " ".join(f"w{i} $(ls d{i})" for i in range(2_000))
LARGE_AND_CHEAP = "echo " + " ".join(f"w{i}" for i in range(4_000)) + " $(ls d)"
"""Past the in-process limit, yet read in a fraction of the reading budget on a busy machine."""


def _spend_cpu(seconds: float) -> None:
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


def test_a_budget_is_spent_by_cpu_time_not_by_waiting() -> None:
    budget = ReadingBudget(0.05, 3_600.0)
    time.sleep(0.2)  # four times the budget on the wall clock, and no CPU time
    assert budget.overrun() is None
    _spend_cpu(0.06)
    assert budget.overrun() == "used more than its 0.05 s of CPU time"


def test_a_budget_past_its_wall_clock_bound_is_spent_however_little_cpu_it_used() -> None:
    budget = ReadingBudget(3_600.0, 0.01)
    time.sleep(0.05)
    assert budget.overrun() == "ran past the 0.01 s wall-clock bound"


def test_a_budget_left_of_another_names_the_bounds_of_the_whole() -> None:
    wall = ReadingBudget(3_600.0, 0.001, stated=(60.0, 0.05))
    time.sleep(0.01)
    assert wall.overrun() == "ran past the 0.05 s wall-clock bound"
    cpu = ReadingBudget(0.0, 3_600.0, stated=(0.05, 600.0))
    _spend_cpu(0.01)
    assert cpu.overrun() == "used more than its 0.05 s of CPU time"


def test_the_worker_names_the_readings_bound_not_what_was_left_of_it() -> None:
    # What a worker started late is given: a sliver of the wall-clock bound.
    request = WorkerRequest(
        text=LARGE, masks=(), cpu_seconds=600.0, wall_seconds=0.001, stated=(600.0, 0.05)
    )
    result = read_bashlex(request)  # in this process: the worker's own budget stops it
    assert result.program is None
    assert result.reason == "bashlex ran past the 0.05 s wall-clock bound"


def test_a_reading_that_spent_its_cpu_budget_is_unmeasured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gateway._read, "PARSE_BUDGET_SECONDS", 0.0)
    reading = read_shell("echo " + "a " * 2_000)
    assert reading.reason is not None
    assert "of CPU time" in reading.reason


def test_a_large_source_is_read_by_bashlex_in_a_bounded_worker() -> None:
    assert len(LARGE) > INPROCESS_MAX_BYTES
    result = read_in_worker(LARGE, (), ReadingBudget(60.0, 600.0))
    assert result.program is not None, result.reason
    assert len(result.program.statements) == 1


def test_a_worker_that_spent_the_cpu_budget_stops_and_the_next_reading_is_read() -> None:
    spent = read_in_worker(LARGE, (), ReadingBudget(0.0, 600.0))
    assert spent == WorkerResult(
        program=None, reason="bashlex used more than its 0 s of CPU time", offset=0
    )
    again = read_in_worker("echo hi", (), ReadingBudget(60.0, 600.0))
    assert again.program is not None


def test_a_worker_past_the_wall_clock_bound_is_killed() -> None:
    result = read_in_worker(LARGE, (), ReadingBudget(600.0, 0.05))
    assert result.program is None
    assert result.reason == "bashlex ran past the 0.05 s wall-clock bound"


@bounded_task
def _backtrack(text: str) -> bool:
    """Catastrophic backtracking: one call into C that never looks at a clock."""
    with _cpu_cap(0.2):
        return re.fullmatch(r"(a|aa)+$", text) is not None


def test_the_kernel_ends_a_worker_whose_work_never_looks_at_its_budget() -> None:
    async def main() -> bool | BoundedFailure:
        pool = BoundedPool(workers=1)
        try:
            return await pool.run(_backtrack, "a" * 60 + "b", timeout=600.0)
        finally:
            await pool.aclose()

    failure = anyio.run(main)
    assert isinstance(failure, BoundedFailure)
    assert failure.kind == "crashed"
    assert "SIGPROF" in failure.reason


def test_inside_a_bounded_worker_a_large_source_is_read_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bounded worker is itself killable under a deadline and a memory cap: no second worker."""

    def refuse(*_: object) -> WorkerResult:
        raise AssertionError("a second worker was started")

    monkeypatch.setattr(gateway._work._bounded, "_IN_WORKER", True)
    monkeypatch.setattr("gateway._read._worker.read_in_worker", refuse)
    assert len(LARGE_AND_CHEAP) > INPROCESS_MAX_BYTES
    assert read_shell(LARGE_AND_CHEAP).measured
