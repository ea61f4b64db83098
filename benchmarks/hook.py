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

(d) four of (b) started at once, as a host runs the hooks of parallel tool
    calls, and (e) four of (c) at once: when each of the four finishes
    (first to last), from the moment all four were started;
(f) ``gateway-hook claude-code --in-process`` with a config whose audit log
    is the running service's own, beside that service: whether it answers,
    and how long it takes (the two writers share one log);

and prints p50/p99 in milliseconds, and each against (a), side by side in
one table. Every run's answer is checked to be the same (no decision for
``ls -la``: an allow the plan does not found is left to Claude Code); a run
that blocks the call (exit 2) is counted and reported, not hidden. Nothing
here is asserted: speed is measured here, never in unit tests; the machine's
load shows in the numbers.
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


def together(
    argv: list[str], width: int, rounds: int, env: dict[str, str], stdin: bytes, cwd: Path
) -> list[list[float]]:
    """
    Milliseconds until each of ``width`` runs of ``argv`` started at once finishes, per position.

    Returns one list per position (the first to finish, the second …), each
    with one value per round. Every run must exit 0.
    """
    finished: list[list[float]] = [[] for _ in range(width)]
    for _ in range(rounds):
        start = time.perf_counter()
        processes = [
            subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=cwd,
            )
            for _ in range(width)
        ]
        for process in processes:
            assert process.stdin is not None
            process.stdin.write(stdin)
            process.stdin.close()
        ends: list[float] = []
        pending = list(processes)
        while pending:
            for process in list(pending):
                if process.poll() is not None:
                    ends.append((time.perf_counter() - start) * 1000)
                    pending.remove(process)
                    assert process.stdout is not None
                    assert process.stderr is not None
                    process.stdout.close()
                    err = process.stderr.read()
                    process.stderr.close()
                    if process.returncode != 0:
                        raise SystemExit(
                            f"{argv[0]} exited {process.returncode}: {err.decode()[-500:]}"
                        )
            time.sleep(0.002)
        for position, end in enumerate(sorted(ends)):
            finished[position].append(end)
    return finished


def beside(
    argv: list[str], runs: int, env: dict[str, str], stdin: bytes, cwd: Path
) -> tuple[list[float], int]:
    """Milliseconds per run of ``argv`` and how many runs blocked the call (exit 2)."""
    times = []
    blocked = 0
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            argv, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=120, check=False
        )
        times.append((time.perf_counter() - start) * 1000)
        if done.returncode == 2:
            blocked += 1
        elif done.returncode != 0:
            raise SystemExit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return times, blocked


def main(argv: Sequence[str] | None = None) -> int:
    """Run the three measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="runs of (a) and (b)")
    parser.add_argument("--standalone-runs", type=int, default=30, help="runs of (c)")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of (d) and (e)")
    parser.add_argument("--beside-runs", type=int, default=3, help="runs of (f)")
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
        serve_audit = root / "serve-audit.jsonl"
        shared = root / "shared.toml"
        shared.write_text(
            f'[sinks.audit]\nplugin = "jsonl"\npath = "{serve_audit}"\nrequired = true\n'
        )
        bare = timed([sys.executable, "-c", "pass"], arguments.runs, env, b"", root)
        hook = [str(BIN / "gateway-hook"), "claude-code"]
        with gateway_serve(
            "--socket",
            str(socket_path),
            "--audit",
            str(serve_audit),
            cwd=root,
            env=env,
            program=INSTALLED,
        ):
            # Warm the service's plan cache, then measure.
            timed([*hook, "--require-service"], 5, env, EVENT, root)
            forwarded = timed([*hook, "--require-service"], arguments.runs, env, EVENT, root)
            forwarded_four = together(
                [*hook, "--require-service"], 4, arguments.rounds, env, EVENT, root
            )
            shared_hook = [*hook, "--in-process", "--config", str(shared)]
            with_service, blocked = beside(shared_hook, arguments.beside_runs, env, EVENT, root)
        timed([*hook, "--in-process"], 1, env, EVENT, root)  # the rules' examples, checked once
        standalone = timed([*hook, "--in-process"], arguments.standalone_runs, env, EVENT, root)
        standalone_four = together(
            [*hook, "--in-process"], 4, max(1, arguments.rounds // 2), env, EVENT, root
        )
    floor = statistics.median(bare)
    rows: list[tuple[str, list[float]]] = [
        ("(a) python -c pass", bare),
        ("(b) gateway-hook, forwarded over the socket", forwarded),
        ("(c) gateway-hook --in-process", standalone),
    ]
    rows += [(f"(d) 4 forwarded at once: #{n + 1} done", v) for n, v in enumerate(forwarded_four)]
    rows += [(f"(e) 4 in-process at once: #{n + 1} done", v) for n, v in enumerate(standalone_four)]
    rows.append((f"(f) in-process beside serve, one log ({blocked} blocked)", with_service))
    print(f"machine load (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'measurement':<52} {'runs':>5} {'p50 ms':>8} {'p99 ms':>8} {'p50 / bare':>11}")
    for name, values in rows:
        p50 = percentile(values, 0.5)
        print(
            f"{name:<52} {len(values):>5} {p50:>8.1f} {percentile(values, 0.99):>8.1f} {p50 / floor:>10.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
