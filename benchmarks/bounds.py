"""
What hostile shapes cost a whole review: CPU (this process and its workers) and worker memory.

Run: ``.venv/bin/python benchmarks/bounds.py [--shape NAME ...] [--sizes 4096,16384,65536]``.

Every shape of ``tests/budgets/shapes.py`` is reviewed by a `Gateway` with
the default config and no person (as ``gateway check`` reviews), at each size
(the largest instance of at most that many bytes). For each review it prints
the verdict, the CPU seconds it took in this process and in the workers
together (a worker killed at its bound counts through ``RUSAGE_CHILDREN``
once reaped), the peak resident memory of the worker that read it (reset
before each review), and the growth of CPU from one size to the next. The
issue's bound: at most 0.5 s of CPU and 256 MiB per review up to 64 KiB, and
no worker crash.

Nothing here is asserted: speed is measured here, never in unit tests (the
tests check the same shapes end, with no crash, under generous bounds).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import anyio
import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from budgets.shapes import LIMIT, SHAPES  # noqa: E402

from gateway import Gateway, ToolCall, default_config  # noqa: E402
from gateway._cli._check import without_person  # noqa: E402

_TICK: Final = os.sysconf("SC_CLK_TCK")
_PAGE: Final = os.sysconf("SC_PAGE_SIZE")
CPU_BOUND: Final = 0.5
MEMORY_BOUND: Final = 256 * 1024 * 1024


def _workers(gateway: Gateway) -> list[int]:
    pool = gateway._pool
    found = [*pool._idle, *(spawn.worker for spawn in pool._fresh if spawn.worker is not None)]
    return [worker.process.pid for worker in found]


def _cpu_of(pid: int) -> float:
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    return 0.0


def _peak_of(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _reset_peak(pid: int) -> None:
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def review_one(gateway: Gateway, text: str, tag: str) -> tuple[str, str, float, int, float]:
    """The verdict, its reason, CPU seconds, worker peak bytes and wall seconds of one review."""
    before = _workers(gateway)
    for pid in before:
        _reset_peak(pid)
    cpu = time.process_time() + _children_cpu() + sum(_cpu_of(pid) for pid in before)
    wall = time.perf_counter()
    verdict = await gateway.review(ToolCall("Bash", {"command": text}, call_id=tag))
    wall = time.perf_counter() - wall
    after = _workers(gateway)
    peak = max((_peak_of(pid) for pid in after), default=0)
    # Let killed workers be reaped, so that their CPU time is counted.
    await anyio.sleep(0.05)
    used = (
        time.process_time()
        + _children_cpu()
        + sum(_cpu_of(pid) for pid in set(after) | set(before))
        - cpu
    )
    return verdict.decision, verdict.reason, used, peak, wall


async def run(names: Sequence[str], sizes: Sequence[int]) -> None:
    config = without_person(msgspec.structs.replace(default_config(), sinks={}))
    shapes = [s for s in SHAPES if not names or s.name in names]
    print(
        f"hostile shapes: {len(shapes)}, sizes {list(sizes)} bytes; bound {CPU_BOUND} s CPU, 256 MiB"
    )
    print(
        f"{'shape':<28} {'bytes':>6} {'cpu s':>7} {'wall s':>7} {'peak MiB':>8} {'growth':>7}  verdict"
    )
    worst = 0.0
    over: list[str] = []
    async with Gateway(config) as gateway:
        await gateway.review(ToolCall("Bash", {"command": "ls"}, call_id="warm"))
        for shape in shapes:
            previous: float | None = None
            for size in sizes:
                text = shape.at_most(size)
                decision, reason, used, peak, wall = await review_one(gateway, text, shape.name)
                growth = "" if previous is None or previous <= 0.01 else f"{used / previous:.1f}x"
                previous = used
                worst = max(worst, used)
                length = len(text.encode("utf-8", "surrogatepass"))
                print(
                    f"{shape.name:<28} {length:>6} {used:>7.3f} {wall:>7.3f} {peak / 2**20:>8.1f}"
                    f" {growth:>7}  {decision}: {reason[:90]}"
                )
                if used > CPU_BOUND or peak > MEMORY_BOUND:
                    over.append(f"{shape.name}@{length}")
    print(f"worst CPU {worst:.3f} s; over the bound: {over or 'none'}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--shape", action="append", default=[], help="only this shape (repeatable)")
    parser.add_argument(
        "--sizes", default=f"1024,{LIMIT // 16},{LIMIT // 4},{LIMIT}", help="bytes, comma-separated"
    )
    arguments = parser.parse_args(argv)
    sizes = [int(size) for size in arguments.sizes.split(",")]
    anyio.run(run, arguments.shape, sizes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
