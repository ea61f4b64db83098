"""
bashlex on large sources: a task of the bounded worker pool, under a hard CPU-time cap.

bashlex is pure Python, slow on some inputs (quadratic on nested ``$( )``,
tens of microseconds a byte on long words), and a thread cannot interrupt it.
Sources over `INPROCESS_MAX_BYTES` are therefore read by `read_bashlex`, a
`gateway._work._bounded` task, in one of that pool's worker processes: a memory cap
(`WORKER_MEMORY_BYTES`), a CPU-time cap the kernel enforces (``ITIMER_PROF``:
once the worker has used the reading's CPU budget and `CPU_GRACE_SECONDS`
more, it is ended even inside C code) and the wall-clock backstop, past which
the pool kills it. The worker runs only the project's own reader code on the
text it is sent; it never runs the text.

Inside a bounded worker (where the gateway reads every call) the reading is
already a killable process under a deadline and a memory cap, so bashlex runs
there in-process instead of starting a worker of its own (`gateway._read`).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Final

import anyio
import msgspec

from gateway._read._limits import (
    WORKER_MEMORY_BYTES,
    WORKER_START_SECONDS,
    ReadingBudget,
)
from gateway._read._masks import Mask
from gateway._read._tree import Program
from gateway._work._bounded import BoundedFailure, BoundedPool, bounded_task, in_worker

__all__ = ["CPU_GRACE_SECONDS", "WorkerRequest", "WorkerResult", "read_bashlex", "read_in_worker"]

CPU_GRACE_SECONDS: Final = 1.0
"""CPU seconds past the reading's budget after which the kernel ends the worker.

The reader stops itself when its budget is spent (it looks at its clock every
64 tokens); the kernel's cap is for work between two looks that never ends."""

_MAX_WORKERS: Final = 4
_SLOTS: Final = threading.BoundedSemaphore(_MAX_WORKERS)
_PRELOAD: Final = ("gateway._read._bashlex",)


class WorkerRequest(msgspec.Struct, frozen=True, kw_only=True):
    """
    What the worker is asked: a text, the masks to read it with, and what is left of its budget.

    ``stated``: the reading's whole CPU and wall-clock bounds, which the worker's sentences name.
    """

    text: str
    masks: tuple[Mask, ...]
    cpu_seconds: float
    wall_seconds: float
    stated: tuple[float, float]


class WorkerResult(msgspec.Struct, frozen=True, kw_only=True):
    """What the worker answers: the bashlex reading, or why there is none."""

    program: Program | None
    reason: str | None
    offset: int = 0


@contextlib.contextmanager
def _cpu_cap(seconds: float) -> Iterator[None]:
    """In a bounded worker: have the kernel end the process once it used ``seconds`` of CPU time."""
    if not in_worker():
        yield
        return
    signal.signal(signal.SIGPROF, signal.SIG_DFL)  # the default action ends the process
    signal.setitimer(signal.ITIMER_PROF, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


@bounded_task
def read_bashlex(request: WorkerRequest) -> WorkerResult:
    """Read a text with bashlex within what is left of its budget: the program, or why there is none."""
    from gateway._read._bashlex import read_with_bashlex
    from gateway._read._source import Source
    from gateway._read._words import Unreadable

    budget = ReadingBudget(request.cpu_seconds, request.wall_seconds, stated=request.stated)
    with _cpu_cap(request.cpu_seconds + CPU_GRACE_SECONDS):
        try:
            program = read_with_bashlex(Source(request.text), request.masks, budget)
        except Unreadable as unreadable:
            return WorkerResult(program=None, reason=unreadable.reason, offset=unreadable.offset)
        except MemoryError:
            return WorkerResult(program=None, reason="bashlex ran out of its memory budget")
        except RecursionError:
            return WorkerResult(program=None, reason="bashlex ran out of recursion depth")
    return WorkerResult(program=program, reason=None)


def _failure(failure: BoundedFailure, budget: ReadingBudget) -> WorkerResult:
    if failure.kind == "timeout":
        reason = f"bashlex ran past the {budget.wall_stated:g} s wall-clock bound"
    elif failure.kind == "crashed" and "SIGPROF" in failure.reason:
        reason = f"bashlex used more than its {budget.cpu_stated:g} s of CPU time"
    elif failure.kind == "memory":
        reason = "bashlex ran out of its memory budget"
    else:
        reason = f"the bashlex worker failed: {failure.reason}"
    return WorkerResult(program=None, reason=reason)


def read_in_worker(text: str, masks: tuple[Mask, ...], budget: ReadingBudget) -> WorkerResult:
    """
    Read ``text`` with bashlex in a bounded worker; the answer, or a reason.

    Callable from any thread, inside an event loop or not: the call runs on an
    event loop of its own in a thread of its own, with a pool of one worker
    (a worker left idle serves the next call). Starting a worker is not the
    text's cost: it is bounded by `WORKER_START_SECONDS` on its own.
    """
    request = WorkerRequest(
        text=text,
        masks=masks,
        cpu_seconds=max(budget.cpu_left(), 0.0),
        wall_seconds=max(budget.wall_left(), 0.001),
        stated=(budget.cpu_stated, budget.wall_stated),
    )
    if not _SLOTS.acquire(timeout=request.wall_seconds):
        return WorkerResult(program=None, reason="no bashlex worker became free within the budget")
    try:
        answer: list[WorkerResult | BoundedFailure] = []

        async def call() -> None:
            pool = BoundedPool(
                workers=1,
                memory=WORKER_MEMORY_BYTES,
                preload=_PRELOAD,
                start_timeout=WORKER_START_SECONDS,
            )
            try:
                outcome = await pool.run(read_bashlex, request, timeout=request.wall_seconds)
                answer.append(outcome)
            finally:
                await pool.aclose()

        thread = threading.Thread(target=anyio.run, args=(call,), name="bashlex reading")
        thread.start()
        thread.join(WORKER_START_SECONDS + request.wall_seconds + CPU_GRACE_SECONDS)
    finally:
        _SLOTS.release()
    if not answer:
        return WorkerResult(program=None, reason="the bashlex worker gave no answer")
    outcome = answer[0]
    if isinstance(outcome, BoundedFailure):
        return _failure(outcome, budget)
    return outcome
