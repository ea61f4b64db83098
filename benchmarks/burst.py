"""
A burst of new calls at once: admission (``[gateway] admission-wait``) against queueing them all.

Run: ``.venv/bin/python benchmarks/burst.py [--calls N ...] [--rounds N] [--wait S]``.

Each round opens a gateway with the default config (the ``rules`` approver,
its default policy, the ``jsonl`` audit log required), warms it with a
first burst of 200 new calls (its workers start, and the rate it reads at
when busy is measured), then starts ``--calls`` reviews at once, each of a call never seen (a
command of the agent corpus with a numbered comment, so none is read from
the cache), and times each from its start to its verdict. It does so with
admission as configured (``--wait``, default the config's 2 s) and with
admission off (a wait of a day: every call queues), in turn, ``--rounds``
times, and prints per setting: the share declined as busy, p50/p99/max
seconds to a verdict of the calls read, and of those declined, and the
whole burst's duration. Then it checks the audit log holds a verdict for
every call reviewed. Nothing here is asserted: the machine's load shows in
the numbers.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
import msgspec
from _corpus import load

from gateway import Gateway, GatewayConfig, ToolCall, default_config
from gateway.audit import read_audit_log
from gateway.config import SinkConfig
from gateway.events import VerdictReached

OFF = 86_400.0
WARM = 200


def settings(audit: Path, wait: float) -> GatewayConfig:
    """The default config with the audit log required and the given admission wait."""
    base = default_config()
    section = msgspec.structs.replace(base.gateway, approvers=("rules",), admission_wait=wait)
    sinks = {"audit": SinkConfig(plugin="jsonl", path=str(audit), required=True)}
    return msgspec.structs.replace(base, gateway=section, sinks=sinks)


def quantile(values: list[float], fraction: float) -> float:
    """The nearest-rank quantile (NaN for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


async def burst(commands: list[str], calls: int, wait: float, tag: str) -> dict[str, float]:
    """One burst of ``calls`` new calls; its numbers."""
    with tempfile.TemporaryDirectory() as directory:
        audit = Path(directory) / "audit.jsonl"
        read: list[float] = []
        busy: list[float] = []
        ids: set[str] = set()
        async with Gateway(settings(audit, wait)) as gateway:
            texts = itertools.cycle(commands)

            async def review(index: int, *, timed: bool = True) -> None:
                call_id = f"{tag}-{index}" if timed else f"{tag}-warm-{index}"
                ids.add(call_id)
                call = ToolCall("Bash", {"command": f"{next(texts)} # {call_id}"}, call_id=call_id)
                start = time.perf_counter()
                verdict = await gateway.review(call)
                took = time.perf_counter() - start
                if timed:
                    is_busy = verdict.reason.startswith("The gateway is busy")
                    (busy if is_busy else read).append(took)

            # A first burst, not timed: the workers started, the rules loaded,
            # and the rate a busy gateway reads at measured, as in a service
            # that has been running.
            async with anyio.create_task_group() as group:
                for index in range(WARM):
                    group.start_soon(functools.partial(review, index, timed=False))
            start = time.perf_counter()
            async with anyio.create_task_group() as group:
                for index in range(calls):
                    group.start_soon(review, index)
            whole = time.perf_counter() - start
        recorded = {
            event.call_id for event in read_audit_log(audit) if isinstance(event, VerdictReached)
        }
    return {
        "busy": len(busy) / calls,
        "read_p50": quantile(read, 0.5),
        "read_p99": quantile(read, 0.99),
        "read_max": max(read, default=float("nan")),
        "busy_p50": quantile(busy, 0.5),
        "busy_p99": quantile(busy, 0.99),
        "whole": whole,
        "unrecorded": len(ids - recorded),
    }


async def main(arguments: argparse.Namespace) -> None:
    commands = load("agent")
    print(f"{len(commands)} agent commands; the config's admission wait against none")
    for calls in arguments.calls:
        results: dict[str, list[dict[str, float]]] = {"admission": [], "queued": []}
        for round_ in range(arguments.rounds):
            for name, wait in (("admission", arguments.wait), ("queued", OFF)):
                results[name].append(await burst(commands, calls, wait, f"{name}{round_}"))
        for name, rows in results.items():
            median = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
            print(
                f"  {calls:>5} at once, {name:<9}  busy {median['busy']:6.1%}"
                f"   read p50 {median['read_p50']:6.2f} s  p99 {median['read_p99']:6.2f} s"
                f"  max {median['read_max']:6.2f} s"
                f"   busy p50 {median['busy_p50']:6.3f} s  p99 {median['busy_p99']:6.3f} s"
                f"   burst {median['whole']:6.2f} s   without a record: {int(median['unrecorded'])}"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--wait", type=float, default=default_config().gateway.admission_wait)
    anyio.run(main, parser.parse_args())
