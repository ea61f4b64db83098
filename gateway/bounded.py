"""
Bounded work: run a pure function on agent text in a worker process, under a hard deadline.

A namespace of the public API (like ``trio.lowlevel``), for plugins whose own
work on agent text could be slow — an approver judging rules, say. Wrap a
module-level function of one msgspec-serialisable argument with
`bounded_task`, and run it with the gateway's pool, which every approver
factory receives as ``context.bounded``::

    @bounded_task
    def judge(request: JudgeRequest) -> JudgeResult: ...

    result = await context.bounded.run(judge, request, timeout=2.0)
    if isinstance(result, BoundedFailure):
        return Abstain(reason=f"The rules could not be applied in time ({result.reason}).")

Within a review, every call a plugin makes to the pool shares the review's
CPU budget (``[gateway] review-cpu``): a task that uses it up gets a
`CpuSpent` raised inside it, and the call a ``cpu`` failure; work the plugin
does in its own process for the review is taken off with `charge`, measured
with `thread_cpu_seconds` (``time.thread_time`` can take milliseconds on a
loaded virtual machine).

See `gateway._work._bounded` for how the workers are run.
"""

from gateway._work._bounded import (
    BoundedFailure as BoundedFailure,
    BoundedPool as BoundedPool,
    BoundedStatistics as BoundedStatistics,
    BoundedTask as BoundedTask,
    CpuSpent as CpuSpent,
    bounded_task as bounded_task,
    charge as charge,
    cpu_left as cpu_left,
    in_worker as in_worker,
    thread_cpu_seconds as thread_cpu_seconds,
)

__all__ = [
    "BoundedFailure",
    "BoundedPool",
    "BoundedStatistics",
    "BoundedTask",
    "CpuSpent",
    "bounded_task",
    "charge",
    "cpu_left",
    "in_worker",
    "thread_cpu_seconds",
]
