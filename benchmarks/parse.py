"""
How fast the shell reader is, how much it measures, and what hostile input costs.

Run: ``.venv/bin/python benchmarks/parse.py [--limit N]``.

On the three corpora (``tests/data/corpus``) it times, per command,
(a) bashlex alone, (b) tree-sitter alone and (c) the whole consensus reader
``read_shell``, and prints p50/p99 in microseconds and the ratio (c)/(a). It
prints each corpus's measured rate, its top unmeasured reasons (offsets and
other numbers normalised to ``N``), the share of commands ``bash -n`` accepts
and the measured rate among those. Then it reads the hostile table of
``tests/shell/test_hostile.py`` and prints the worst wall time and the peak
memory: Python allocations in this process (tracemalloc), this process's peak
RSS and that of the bashlex worker processes it started.

Nothing here is asserted: speed is measured here, never in unit tests.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

# The corpora, the bash -n check and the hostile table are the tests' own.
from shell.test_corpus import CORPORA, commands, is_valid_bash  # noqa: E402
from shell.test_hostile import ROWS  # noqa: E402

from gateway._read import read_shell  # noqa: E402 -- after the path set-up
from gateway._read._bashlex import parse_only as bashlex_parse  # noqa: E402
from gateway._read._treesitter import parse_only as tree_sitter_parse  # noqa: E402

_NUMBER = re.compile(r"\d+")


class Timings(NamedTuple):
    p50: float
    p99: float
    failures: int


def percentile(sorted_values: Sequence[int], fraction: float) -> float:
    """The nearest-rank percentile of already sorted nanosecond values, in microseconds."""
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index] / 1_000


def time_each(corpus: Sequence[str], run: Callable[[str], object]) -> Timings:
    """Time ``run`` once per command with perf_counter_ns; exceptions count as failures."""
    durations: list[int] = []
    failures = 0
    for command in corpus:
        started = time.perf_counter_ns()
        try:
            run(command)
        except Exception:  # noqa: BLE001 -- a parser failing is data here, timed like a success
            failures += 1
        durations.append(time.perf_counter_ns() - started)
    durations.sort()
    return Timings(percentile(durations, 0.50), percentile(durations, 0.99), failures)


def worker_peak_rss_kib() -> int | None:
    """The largest peak RSS (VmHWM) among live child processes (the bashlex workers), Linux only."""
    me = os.getpid()
    peak: int | None = None
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent != me:
                continue
            for line in Path(f"/proc/{entry}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    kib = int(line.split()[1])
                    peak = kib if peak is None else max(peak, kib)
        except (OSError, ValueError, IndexError):
            continue
    return peak


def bench_corpus(name: str, limit: int | None) -> None:
    corpus = commands(name)[:limit] if limit else commands(name)
    print(f"\n== {name}: {len(corpus)} commands ==")
    bashlex = time_each(corpus, bashlex_parse)
    tree_sitter = time_each(corpus, lambda c: tree_sitter_parse(c.encode("utf-8")))
    readings = []
    durations: list[int] = []
    for command in corpus:
        started = time.perf_counter_ns()
        readings.append(read_shell(command))
        durations.append(time.perf_counter_ns() - started)
    durations.sort()
    full = Timings(percentile(durations, 0.50), percentile(durations, 0.99), 0)
    print(f"  {'reader':<26}{'p50 µs':>10}{'p99 µs':>10}  raised")
    print(
        f"  {'(a) bashlex parse only':<26}{bashlex.p50:>10.1f}{bashlex.p99:>10.1f}  {bashlex.failures}"
    )
    print(
        f"  {'(b) tree-sitter parse only':<26}{tree_sitter.p50:>10.1f}{tree_sitter.p99:>10.1f}  {tree_sitter.failures}"
    )
    print(f"  {'(c) read_shell (consensus)':<26}{full.p50:>10.1f}{full.p99:>10.1f}  0")
    print(f"  ratio (c)/(a): p50 {full.p50 / bashlex.p50:.2f}, p99 {full.p99 / bashlex.p99:.2f}")

    measured = [r.status == "measured" for r in readings]
    count = sum(measured)
    print(f"  measured: {count}/{len(corpus)} = {100 * count / len(corpus):.2f} %")
    reasons = Counter(_NUMBER.sub("N", r.reason or "") for r in readings if r.reason)
    for reason, times in reasons.most_common(8):
        print(f"    {times:6d}  {reason}")

    with ThreadPoolExecutor(max_workers=8) as pool:
        valid = list(pool.map(is_valid_bash, corpus))
    valid_count = sum(valid)
    measured_valid = sum(m for m, v in zip(measured, valid, strict=True) if v)
    print(
        f"  valid bash (bash -n): {valid_count}/{len(corpus)} = {100 * valid_count / len(corpus):.2f} %"
    )
    print(
        f"  measured among valid: {measured_valid}/{valid_count} = "
        f"{100 * measured_valid / max(valid_count, 1):.2f} %"
    )


def bench_hostile() -> None:
    print(f"\n== hostile inputs: {len(ROWS)} rows of tests/shell/test_hostile.py ==")
    worst: list[tuple[float, str, str]] = []
    for row in ROWS:
        started = time.perf_counter_ns()
        reading = read_shell(row.source)
        elapsed = (time.perf_counter_ns() - started) / 1e6
        worst.append((elapsed, row.id, reading.status))
    worst.sort(reverse=True)
    print(f"  worst wall time: {worst[0][0]:.1f} ms ({worst[0][1]}, {worst[0][2]})")
    for elapsed, row_id, status in worst[1:5]:
        print(f"    next: {elapsed:.1f} ms ({row_id}, {status})")

    tracemalloc.start()
    peak_row = ("", 0)
    for row in ROWS:
        tracemalloc.reset_peak()
        read_shell(row.source)
        _, peak = tracemalloc.get_traced_memory()
        if peak > peak_row[1]:
            peak_row = (row.id, peak)
    tracemalloc.stop()
    print(
        f"  peak Python allocations (tracemalloc, one row): {peak_row[1] / 2**20:.1f} MiB ({peak_row[0]})"
    )
    self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"  peak RSS of this process (whole run): {self_rss / 1024:.1f} MiB")
    worker = worker_peak_rss_kib()
    if worker is None:
        print("  peak RSS of a bashlex worker: no live worker (or not Linux)")
    else:
        print(f"  peak RSS of a bashlex worker: {worker / 1024:.1f} MiB")
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        f"  peak RSS of finished child processes (killed workers, bash -n): {children / 1024:.1f} MiB"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument(
        "--limit", type=int, default=None, help="read only the first N commands of each corpus"
    )
    arguments = parser.parse_args(argv)
    started = time.perf_counter_ns()
    for name in CORPORA:
        bench_corpus(name, arguments.limit)
    bench_hostile()
    print(f"\ntotal run time: {(time.perf_counter_ns() - started) / 1e9:.1f} s")


if __name__ == "__main__":
    main()
