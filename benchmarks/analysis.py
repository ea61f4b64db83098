"""
How many times a review reads the call's text, and what reading it costs.

Run: ``.venv/bin/python benchmarks/analysis.py [--limit N]``.

(1) **Reads per review.** A *read* is one full consensus reading of a text by
the shell reader (tree-sitter and bashlex, compared); the script counts them
by wrapping the tree-sitter half, which every reading starts with. A review
reads in a worker process, where a wrapper here would see nothing, so while
counting the worker pool runs each task in this process instead. For a few
call shapes it prints the reads of one uncached `Gateway.review`, of the same
review again (a plan-cache hit), and of `Gateway.answer` for a heredoc hole.
One reading per call is expected: a review reads the call's text once and
nothing after it reads the text again (nested shell text, such as the
``'…'`` of ``bash -c '…'``, is a different text and read once more).

(2) **Plan cost.** Over the first ``--limit`` distinct commands of the agent
corpus it prints p50/p99 of an uncached review (no sinks, one approver that
allows, so the time is the planning), and of `plan_program` alone.

Nothing here is asserted: speed is measured here, never in unit tests.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

import anyio
from _corpus import load

import gateway._read._treesitter as treesitter
from gateway import Gateway, GatewayConfig, ToolCall
from gateway._work._bounded import BoundedFailure, BoundedPool, BoundedTask
from gateway.plans import plan_program
from gateway.testing import StaticApprover

SHAPES: Final = (
    ("a pipeline", "ls -la | wc -l"),
    ("an and-chain with cd", "cd src && timeout 60 pytest -x 2>&1 | tee log.txt"),
    ("a literal secret", "mysql -u root -pS3cretPassw0rd db -e 'select 1'"),
    ("bash -lc 'TEXT'", "bash -lc 'git status && git diff --stat'"),
    (
        "three heredocs, each with a hole",
        "cat <<A\n$(date)\nA\ncat <<B\n$(id -u)\nB\ncat <<C\n$(hostname)\nC",
    ),
)


class Counter:
    """Counts full readings of shell text while installed."""

    def __init__(self) -> None:
        self.reads = 0
        self._original: Callable[..., Any] = treesitter.read_with_tree_sitter

    @contextmanager
    def installed(self) -> Iterator[Counter]:
        original = self._original

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.reads += 1
            return original(*args, **kwargs)

        async def here(
            pool: BoundedPool,
            task: BoundedTask[Any, Any],
            argument: Any,
            *,
            timeout: float,  # noqa: ASYNC109 -- the pool's own signature
        ) -> Any | BoundedFailure:
            return task(argument)  # In this process, so that `counting` sees the worker's reads.

        run = BoundedPool.run
        treesitter.read_with_tree_sitter = counting
        BoundedPool.run = here  # type: ignore[method-assign,assignment]
        try:
            yield self
        finally:
            treesitter.read_with_tree_sitter = original
            BoundedPool.run = run  # type: ignore[method-assign]

    def take(self) -> int:
        """The reads counted since the last call."""
        reads, self.reads = self.reads, 0
        return reads


def percentile(sorted_values: Sequence[int], fraction: float) -> float:
    """The nearest-rank percentile of sorted nanosecond values, in microseconds."""
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index] / 1_000


def describe(label: str, nanoseconds: list[int]) -> None:
    """Print one labelled line of p50/p99/mean in microseconds."""
    values = sorted(nanoseconds)
    mean = statistics.fmean(values) / 1_000 if values else float("nan")
    print(
        f"  {label:<36} p50 {percentile(values, 0.50):>9.1f} µs   "
        f"p99 {percentile(values, 0.99):>9.1f} µs   mean {mean:>9.1f} µs   (n={len(values)})"
    )


def config() -> GatewayConfig:
    """No sinks, and a cache big enough that a repeated call is always a hit."""
    return GatewayConfig()


async def reads_per_review() -> None:
    """Print the reads of one review, a repeated review and an answer, per call shape."""
    counter = Counter()
    print("reads of the call's text (full consensus readings):")
    print(f"  {'call':<36} {'review':>7} {'again':>7} {'answer':>7}")
    with counter.installed():
        async with Gateway(config(), approvers=[StaticApprover("allow")]) as gateway:
            for number, (label, source) in enumerate(SHAPES):
                counter.take()
                call = ToolCall("Bash", {"command": source}, call_id=f"shape-{number}")
                await gateway.review(call)
                first = counter.take()
                await gateway.review(ToolCall("Bash", {"command": source}))
                again = counter.take()
                answered = "-"
                if "<<" in source:
                    await gateway.answer(f"shape-{number}", 0, 0, {0: "1700000000\n"})
                    answered = str(counter.take())
                print(f"  {label:<36} {first:>7} {again:>7} {answered:>7}")


async def plan_cost(commands: list[str]) -> None:
    """Print the cost of uncached reviews and of `plan_program` on ``commands``."""
    reviews: list[int] = []
    async with Gateway(config(), approvers=[StaticApprover("allow")]) as gateway:
        for command in commands[:5]:  # warm up imports, parser tables and the worker threads
            await gateway.review(ToolCall("Bash", {"command": command + " # warm"}))
        for command in commands:
            start = time.perf_counter_ns()
            await gateway.review(ToolCall("Bash", {"command": command}))
            reviews.append(time.perf_counter_ns() - start)
    plans: list[int] = []
    for command in commands:
        start = time.perf_counter_ns()
        plan_program(command)
        plans.append(time.perf_counter_ns() - start)
    print(f"plan cost on {len(commands)} distinct agent commands:")
    describe("review, uncached (planning)", reviews)
    describe("plan_program alone", plans)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=500, help="commands of the agent corpus")
    arguments = parser.parse_args()
    commands = list(dict.fromkeys(load("agent")))[: arguments.limit]
    anyio.run(reads_per_review)
    anyio.run(plan_cost, commands)


if __name__ == "__main__":
    main()
