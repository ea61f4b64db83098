"""
How long one hook call takes, as a host pays it: a whole process per tool call.

Run: ``.venv/bin/python benchmarks/hook.py [--runs N] [--standalone-runs N]``.

It times, wall clock from start to exit, each of

(a) a bare ``python -c pass`` (the floor: starting the interpreter);
(b) ``gateway-hook claude-code`` forwarding a ``PreToolUse`` event for
    ``ls -la`` to a running ``gateway serve`` (default policy, audit log on)
    over its Unix socket;
(c) ``gateway-hook claude-code --in-process`` answering the same event with a
    gateway started in the hook process (default policy, audit log on; the
    rules' examples already checked once, as after a first call);

and prints p50/p99 in milliseconds, and each against (a). Every run's answer
is checked to be the same (no decision for ``ls -la``: an allow the plan does
not found is left to Claude Code). Nothing here is asserted: speed is
measured here, never in unit tests; the machine's load shows in the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

BIN: Final = Path(sys.executable).parent
ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from serving import INSTALLED, gateway_serve  # noqa: E402 -- after the path to the test helpers

EVENT: Final = json.dumps(
    {
        "session_id": "bench",
        "cwd": "/home/u/project",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la", "description": "List"},
        "tool_use_id": "toolu_bench",
    }
).encode()


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of some values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def timed(argv: list[str], runs: int, env: dict[str, str], stdin: bytes, cwd: Path) -> list[float]:
    """Milliseconds per run of ``argv``; every run must exit 0 with no output but the answer."""
    times = []
    expected: bytes | None = None
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            argv, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=120, check=False
        )
        times.append((time.perf_counter() - start) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
        if expected is None:
            expected = done.stdout
        elif done.stdout != expected:
            raise SystemExit(f"{argv[0]} answered differently: {done.stdout!r} after {expected!r}")
    return times


def main(argv: Sequence[str] | None = None) -> int:
    """Run the three measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="runs of (a) and (b)")
    parser.add_argument("--standalone-runs", type=int, default=30, help="runs of (c)")
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gateway-hook-bench-") as scratch:
        root = Path(scratch)
        env = {
            **os.environ,
            "HOME": str(root),
            "XDG_STATE_HOME": str(root / "state"),
            "XDG_CACHE_HOME": str(root / "cache"),
        }
        socket_path = root / "state" / "agent-gateway" / "gateway.sock"
        bare = timed([sys.executable, "-c", "pass"], arguments.runs, env, b"", root)
        with gateway_serve(
            "--socket",
            str(socket_path),
            "--audit",
            str(root / "serve-audit.jsonl"),
            cwd=root,
            env=env,
            program=INSTALLED,
        ):
            hook = [str(BIN / "gateway-hook"), "claude-code"]
            # Warm the service's plan cache, then measure.
            timed([*hook, "--require-service"], 5, env, EVENT, root)
            forwarded = timed([*hook, "--require-service"], arguments.runs, env, EVENT, root)
        timed([*hook, "--in-process"], 1, env, EVENT, root)  # the rules' examples, checked once
        standalone = timed([*hook, "--in-process"], arguments.standalone_runs, env, EVENT, root)
    floor = statistics.median(bare)
    print(f"machine load (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'measurement':<44} {'runs':>5} {'p50 ms':>8} {'p99 ms':>8} {'p50 / bare':>11}")
    for name, values in (
        ("(a) python -c pass", bare),
        ("(b) gateway-hook, forwarded over the socket", forwarded),
        ("(c) gateway-hook --in-process", standalone),
    ):
        p50 = percentile(values, 0.5)
        print(
            f"{name:<44} {len(values):>5} {p50:>8.1f} {percentile(values, 0.99):>8.1f} {p50 / floor:>10.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
