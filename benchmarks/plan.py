"""
How fast `plan_program` is on real traffic, against bashlex parsing alone.

Run: ``.venv/bin/python benchmarks/plan.py [--limit N]``.

For every command of the three corpora (``tests/data/corpus``; the first N of
each with ``--limit``) it times, interleaved command by command so that drift
in CPU speed hits all of them alike: (a) ``bashlex.parse`` alone (the project's
pinned, repaired bashlex; a raise is timed like a success), (b) the consensus
shell reader ``read_shell``, and (c) ``plan_program``. It prints p50/p99 in
microseconds per call and the ratio (c)/(a). The project's target is a ratio
of at most 1.0 at p50 on the agent corpus: planning a command costs no more
than bashlex parsing it alone. Most agent commands are plain (words, quotes,
``|``, ``&&``, ``;``, ``>``, newlines) and are read without bashlex
(docs/parsing.md, "Reading without bashlex").

Nothing here is asserted: speed is measured here, never in unit tests.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from _corpus import CORPORA, load

from gateway._read import read_shell
from gateway._read._bashlex import parse_only as bashlex_parse
from gateway.plans import plan_program

TARGET_RATIO = 1.0


def percentile(sorted_values: Sequence[int], fraction: float) -> float:
    """The nearest-rank percentile of sorted nanosecond values, in microseconds."""
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index] / 1_000


def timed(run: Callable[[str], object], command: str) -> tuple[int, bool]:
    """Nanoseconds one call took, and whether it raised."""
    started = time.perf_counter_ns()
    try:
        run(command)
    except Exception:  # noqa: BLE001 -- bashlex raising is data here, timed like a success
        return time.perf_counter_ns() - started, True
    return time.perf_counter_ns() - started, False


class Row(NamedTuple):
    name: str
    commands: int
    measured: int
    bashlex: list[int]
    bashlex_failures: int
    reader: list[int]
    plan: list[int]


def measure(name: str, commands: Sequence[str]) -> Row:
    bashlex: list[int] = []
    reader: list[int] = []
    plan: list[int] = []
    failures = 0
    measured = 0
    for command in commands:
        took, failed = timed(bashlex_parse, command)
        bashlex.append(took)
        failures += failed
        reader.append(timed(read_shell, command)[0])
        started = time.perf_counter_ns()
        result = plan_program(command)
        plan.append(time.perf_counter_ns() - started)
        measured += result.status == "measured"
    return Row(name, len(commands), measured, bashlex, failures, reader, plan)


def report(row: Row) -> str:
    bashlex, reader, plan = sorted(row.bashlex), sorted(row.reader), sorted(row.plan)
    b50, b99 = percentile(bashlex, 0.5), percentile(bashlex, 0.99)
    r50, r99 = percentile(reader, 0.5), percentile(reader, 0.99)
    p50, p99 = percentile(plan, 0.5), percentile(plan, 0.99)
    return (
        f"{row.name:<8} {row.commands:>8} {100 * row.measured / max(row.commands, 1):>8.2f}%"
        f" {b50:>10.1f} {b99:>10.1f} {row.bashlex_failures:>8}"
        f" {r50:>10.1f} {r99:>10.1f} {p50:>10.1f} {p99:>10.1f}"
        f" {p50 / b50:>8.2f} {p99 / b99:>8.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N commands of each corpus")
    arguments = parser.parse_args()

    # Warm up imports, parser tables and the first worker process.
    for command in ("ls -la | wc -l", "cat <<'EOF'\nx\nEOF", "for f in *; do echo $f; done"):
        bashlex_parse(command)
        plan_program(command)

    print("plan_program against bashlex.parse alone, µs per call (nearest-rank percentiles)")
    print(
        f"{'corpus':<8} {'commands':>8} {'measured':>9}"
        f" {'bashlex50':>10} {'bashlex99':>10} {'bl-raise':>8}"
        f" {'reader50':>10} {'reader99':>10} {'plan50':>10} {'plan99':>10}"
        f" {'ratio50':>8} {'ratio99':>8}"
    )
    rows = [measure(name, load(name, arguments.limit)) for name in CORPORA]
    for row in rows:
        print(report(row))
    total = Row(
        "all",
        sum(r.commands for r in rows),
        sum(r.measured for r in rows),
        [t for r in rows for t in r.bashlex],
        sum(r.bashlex_failures for r in rows),
        [t for r in rows for t in r.reader],
        [t for r in rows for t in r.plan],
    )
    print(report(total))
    agent = next(row for row in rows if row.name == "agent")
    ratio = percentile(sorted(agent.plan), 0.5) / percentile(sorted(agent.bashlex), 0.5)
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    print(
        f"target: plan_program / bashlex.parse at p50 on the agent corpus <= {TARGET_RATIO}:"
        f" {ratio:.2f} ({verdict})"
    )
    print(
        "columns: bl-raise = commands bashlex.parse raised on (timed anyway); reader = read_shell,"
        " the reading plan_program starts with (both parsers, or tree-sitter and the plain-word"
        " reader for plain text)"
    )


if __name__ == "__main__":
    main()
