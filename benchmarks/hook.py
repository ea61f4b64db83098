"""
How long one hook call takes, as a host pays it: a whole process per tool call.

Run: ``.venv/bin/python benchmarks/hook.py [--runs N] [--standalone-runs N]``.

It times, wall clock from start to exit, each of

(a) a bare ``python3 -c pass`` (the floor: starting the interpreter);
(b) ``gateway-hook claude-code`` forwarding a ``PreToolUse`` event for
    ``ls -la`` to a running ``gateway serve`` (default policy, audit log on)
    over its Unix socket;
(c) ``gateway-hook claude-code --no-worker`` answering the same event with a
    gateway started in the hook process (cold: default policy, audit log on;
    the rules' examples already checked once, as after a first call);
(d) ``gateway-hook claude-code`` without a service, answered by the warm
    worker it started on an earlier call (the worker kept loaded), back to
    back; (d2) the same a second apart, as an agent's calls come: the worker
    has let the audit log go and opens it again for each call;
(e) the first call of (d): the hook starts the worker and waits for it
    (the worker stopped before each run);

(f) four of (b) started at once, as a host runs the hooks of parallel tool
    calls, (g) four of (c) at once, and (h) four of (d) at once: when each
    of the four finishes (first to last), from the moment all four were
    started;
(i) ``gateway-hook claude-code --in-process --no-worker`` with a config
    whose audit log is the running service's own, beside that service: it
    refuses at once (the service holds the log) — how long that takes, and
    how many runs blocked;

and prints p50/p90 in milliseconds, and each p50 against (a), side by side
in one table. Each run of (b), (c), (d) and (d2) is followed by a bare
start, so the machine's load falls on both alike: their ratio is the p50 of
each run's own ratio to the bare start beside it (the other rows are
against the p50 of every bare start). (a) is every bare start of the run. Every run's answer is checked to be the same; a run that
blocks the call (exit 2) where it should not stops the benchmark. Nothing
here is asserted: speed is measured here, never in unit tests; the
machine's load shows in the numbers.
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

from gateway_relay import worker_pid  # noqa: E402 -- grouped with the test helpers
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


BARE: Final = [sys.executable, "-c", "pass"]


def timed(
    argv: list[str],
    runs: int,
    env: dict[str, str],
    stdin: bytes,
    cwd: Path,
    *,
    bare: list[float] | None = None,
    spacing: float = 0.0,
) -> list[float]:
    """
    Milliseconds per run of ``argv``; every run must exit 0 with no output but the answer.

    With ``bare``, each run is followed by a bare start, its time appended
    there (one per run, in order); with ``spacing``, each run waits that
    many seconds first.
    """
    times = []
    expected: bytes | None = None
    for _ in range(runs):
        time.sleep(spacing)
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
        if bare is not None:
            bare += timed(BARE, 1, env, b"", cwd)
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


def stop_workers(env: dict[str, str]) -> None:
    """Stop this state directory's warm workers and wait until they are gone."""
    subprocess.run([str(BIN / "gateway-hook"), "--stop-workers"], env=env, check=True, timeout=60)
    lock_dir = Path(env["XDG_STATE_HOME"]) / "agent-gateway" / "workers"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(
        worker_pid(str(lock)) for lock in lock_dir.glob("*.lock")
    ):
        time.sleep(0.05)


def first_calls(
    argv: list[str], runs: int, env: dict[str, str], stdin: bytes, cwd: Path
) -> list[float]:
    """Milliseconds of a call that starts the warm worker (stopped before each run)."""
    times: list[float] = []
    for _ in range(runs):
        stop_workers(env)
        times += timed(argv, 1, env, stdin, cwd)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    """Run the measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="runs of (a), (b) and (d)")
    parser.add_argument("--standalone-runs", type=int, default=30, help="runs of (c)")
    parser.add_argument("--spaced-runs", type=int, default=20, help="runs of (d2)")
    parser.add_argument("--start-runs", type=int, default=5, help="runs of (e)")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of (f), (g) and (h)")
    parser.add_argument("--beside-runs", type=int, default=3, help="runs of (i)")
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gateway-hook-bench-") as scratch:
        root = Path(scratch)
        env = {
            **os.environ,
            "HOME": str(root),
            "XDG_STATE_HOME": str(root / "state"),
            "XDG_CACHE_HOME": str(root / "cache"),
            "GATEWAY_HOOK_WORKER": "on",
        }
        socket_path = root / "state" / "agent-gateway" / "gateway.sock"
        serve_audit = root / "serve-audit.jsonl"
        shared = root / "shared.toml"
        shared.write_text(
            f'[sinks.audit]\nplugin = "jsonl"\npath = "{serve_audit}"\nrequired = true\n'
        )
        bare = timed(BARE, arguments.runs, env, b"", root)
        beside_bare: dict[str, list[float]] = {name: [] for name in ("b", "c", "d", "d2")}
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
            forwarded = timed(
                [*hook, "--require-service"],
                arguments.runs,
                env,
                EVENT,
                root,
                bare=beside_bare["b"],
            )
            forwarded_four = together(
                [*hook, "--require-service"], 4, arguments.rounds, env, EVENT, root
            )
            shared_hook = [*hook, "--in-process", "--no-worker", "--config", str(shared)]
            with_service, blocked = beside(shared_hook, arguments.beside_runs, env, EVENT, root)
        cold = [*hook, "--no-worker"]
        timed(cold, 1, env, EVENT, root)  # the rules' examples, checked once
        standalone = timed(cold, arguments.standalone_runs, env, EVENT, root, bare=beside_bare["c"])
        standalone_four = together(cold, 4, max(1, arguments.rounds // 2), env, EVENT, root)
        starting = first_calls(hook, arguments.start_runs, env, EVENT, root)
        timed(hook, 3, env, EVENT, root)  # the worker started and warm
        warm = timed(hook, arguments.runs, env, EVENT, root, bare=beside_bare["d"])
        warm_spaced = timed(
            hook, arguments.spaced_runs, env, EVENT, root, bare=beside_bare["d2"], spacing=1.0
        )
        warm_four = together(hook, 4, arguments.rounds, env, EVENT, root)
        stop_workers(env)
    bare += [value for values in beside_bare.values() for value in values]
    floor = statistics.median(bare)
    paired = {
        "(b)": (forwarded, beside_bare["b"]),
        "(c)": (standalone, beside_bare["c"]),
        "(d)": (warm, beside_bare["d"]),
        "(d2)": (warm_spaced, beside_bare["d2"]),
    }
    rows: list[tuple[str, list[float]]] = [
        ("(a) python3 -c pass", bare),
        ("(b) forwarded to gateway serve", forwarded),
        ("(c) in-process, cold (--no-worker)", standalone),
        ("(d) warm worker, back to back", warm),
        ("(d2) warm worker, a second apart", warm_spaced),
        ("(e) first call: starts the worker", starting),
    ]
    rows += [(f"(f) 4 forwarded at once: #{n + 1} done", v) for n, v in enumerate(forwarded_four)]
    rows += [(f"(g) 4 in-process at once: #{n + 1} done", v) for n, v in enumerate(standalone_four)]
    rows += [(f"(h) 4 warm worker at once: #{n + 1} done", v) for n, v in enumerate(warm_four)]
    rows.append((f"(i) in-process beside serve, one log ({blocked} blocked)", with_service))
    print(f"machine load (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'measurement':<52} {'runs':>5} {'p50 ms':>8} {'p90 ms':>8} {'p50 / bare':>11}")
    for name, values in rows:
        p50 = percentile(values, 0.5)
        pair = paired.get(name.split(" ", 1)[0])
        ratio = (
            percentile([run / beside for run, beside in zip(*pair, strict=True)], 0.5)
            if pair is not None
            else p50 / floor
        )
        print(
            f"{name:<52} {len(values):>5} {p50:>8.1f} {percentile(values, 0.9):>8.1f} {ratio:>10.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
