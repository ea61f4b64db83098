"""
How long `Gateway.review` takes, against planning alone, and how many reviews a second it serves.

Run: ``.venv/bin/python benchmarks/review.py [--limit N] [--backend asyncio|trio]``.

On the first ``--limit`` distinct commands of ``tests/data/corpus/agent.jsonl``
it prints, per command, p50/p99 in microseconds of

(a) ``plan_program`` alone (synchronous, no gateway);
(b) ``review`` of a call whose text the gateway has not seen (a plan-cache
    miss: planning in a worker thread, then the approvers, then the audit
    write);
(c) ``review`` of the same call again (a plan-cache hit);

with the real ``rules`` approver when it is installed (else
``StaticApprover("allow")``, and the output says so) and the ``jsonl`` audit
sink on, writing and flushing every event to a temporary file before each
verdict is released. Then it prints reviews per second with 1, 10 and 100
calls in flight at once (cache warm), and (d) repeated calls with no sink at
all, to show what the audit write costs; and (e) what telemetry costs: the
same repeated calls without a sink, with the OpenTelemetry API alone (no SDK:
every span and instrument a no-op), with the SDK's tracer and meter providers
(spans batched to an exporter that drops them, metrics aggregated in memory),
and with the SDK sampling nothing, in three rounds taken in turn (a busy
spell of a shared machine then falls on every set-up).

Nothing here is asserted: speed is measured here, never in unit tests.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import anyio
import msgspec
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON

from gateway import (
    Approver,
    Gateway,
    GatewayConfig,
    SinkConfig,
    ToolCall,
    default_config,
    plan_program,
    verify_audit_log,
)
from gateway.testing import StaticApprover

ROOT: Final = Path(__file__).resolve().parents[1]
CORPUS: Final = ROOT / "tests" / "data" / "corpus" / "agent.jsonl"
CONCURRENCY: Final = (1, 10, 100)


def percentile(sorted_values: Sequence[int], fraction: float) -> float:
    """The nearest-rank percentile of already sorted nanosecond values, in microseconds."""
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index] / 1_000


def describe(label: str, nanoseconds: list[int]) -> None:
    """Print one labelled line of p50/p99/mean in microseconds."""
    values = sorted(nanoseconds)
    mean = statistics.fmean(values) / 1_000 if values else float("nan")
    print(
        f"  {label:<44} p50 {percentile(values, 0.50):>9.1f} µs   "
        f"p99 {percentile(values, 0.99):>9.1f} µs   mean {mean:>9.1f} µs   (n={len(values)})"
    )


def sample(limit: int) -> list[str]:
    """The first ``limit`` distinct commands of the agent corpus, in corpus order."""
    seen: dict[str, None] = {}
    with CORPUS.open(encoding="utf-8") as lines:
        for line in lines:
            command = json.loads(line)["cmd"]
            if command not in seen:
                seen[command] = None
                if len(seen) == limit:
                    break
    return list(seen)


def rules_installed() -> bool:
    """Whether the first-party rules approver is installed (entry point ``rules``)."""
    return any(
        e.name == "rules" for e in importlib.metadata.entry_points(group="gateway.approvers")
    )


def gateway_config(audit: Path, *, rules: bool, cache: int) -> GatewayConfig:
    """The default config (its policy), with only the rules approver and an audit log at ``audit``."""
    base = default_config()
    section = msgspec.structs.replace(
        base.gateway,
        approvers=("rules",) if rules else (),
        plan_cache_size=cache,
    )
    sinks = {"audit": SinkConfig(plugin="jsonl", path=str(audit), required=True)}
    return msgspec.structs.replace(base, gateway=section, sinks=sinks)


def timed_plans(commands: list[str]) -> list[int]:
    """Nanoseconds of `plan_program` per command."""
    out: list[int] = []
    for command in commands:
        start = time.perf_counter_ns()
        plan_program(command)
        out.append(time.perf_counter_ns() - start)
    return out


async def timed_reviews(
    gateway: Gateway, commands: list[str], tag: str, decisions: Counter[str]
) -> list[int]:
    """Nanoseconds of `Gateway.review` per command, one at a time."""
    out: list[int] = []
    for index, command in enumerate(commands):
        call = ToolCall("Bash", {"command": command}, call_id=f"{tag}-{index}", session_id="bench")
        start = time.perf_counter_ns()
        verdict = await gateway.review(call)
        out.append(time.perf_counter_ns() - start)
        decisions[verdict.decision] += 1
    return out


async def throughput(gateway: Gateway, commands: list[str], concurrency: int, total: int) -> float:
    """Reviews per second with ``concurrency`` calls in flight until ``total`` are done."""
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < total:
            index = next_index
            next_index += 1
            command = commands[index % len(commands)]
            await gateway.review(
                ToolCall("Bash", {"command": command}, call_id=f"t{concurrency}-{index}")
            )

    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(concurrency):
            group.start_soon(worker)
    return total / (time.perf_counter() - start)


async def run(limit: int, total: int) -> None:
    """Measure and print everything."""
    commands = sample(limit)
    rules = rules_installed()
    with tempfile.TemporaryDirectory(prefix="gateway-bench-") as directory:
        audit = Path(directory) / "audit.jsonl"
        settings = gateway_config(audit, rules=rules, cache=max(1024, 2 * len(commands)))
        approvers: list[Approver] | None = None if rules else [StaticApprover("allow")]
        print(f"review benchmark: {len(commands)} distinct commands of {CORPUS.name}")
        print(
            "  approver: "
            + (
                "rules (the default policy)"
                if rules
                else "StaticApprover('allow') — rules not installed"
            )
        )
        print(f"  audit sink: jsonl, required (write + flush per event) at {audit.name}")
        print()
        print("latency per call")
        describe("(a) plan_program alone", timed_plans(commands))
        misses: Counter[str] = Counter()
        hits: Counter[str] = Counter()
        async with Gateway(settings, approvers=approvers) as gateway:
            first = await timed_reviews(gateway, commands, "miss", misses)
            again = await timed_reviews(gateway, commands, "hit", hits)
            describe("(b) review, first time (plan-cache miss)", first)
            describe("(c) review, repeated call (plan-cache hit)", again)
            stats = gateway.statistics()
            print(
                f"  plan cache: {stats.plan_cache_misses} misses, {stats.plan_cache_hits} hits; "
                f"verdicts (first pass): {dict(sorted(misses.items()))}"
            )
            print()
            print(f"throughput, cache warm ({total} reviews per level)")
            for concurrency in CONCURRENCY:
                rate = await throughput(gateway, commands, concurrency, total)
                print(f"  {concurrency:>3} in flight: {rate:>9.0f} reviews/s")
        # The same repeated calls without any sink: what the audit write costs.
        quiet = msgspec.structs.replace(settings, sinks={})
        async with Gateway(quiet, approvers=approvers) as gateway:
            await timed_reviews(gateway, commands, "warm", Counter())
            bare = await timed_reviews(gateway, commands, "bare", Counter())
        print()
        print("for comparison")
        describe("(d) review, repeated call, no audit sink", bare)
        await telemetry_cost(quiet, approvers, commands)
        broken = verify_audit_log(audit)
        records = sum(1 for _ in audit.open("rb"))
        print()
        print(f"audit log: {records} records, chain {'intact' if broken is None else broken}")


class _Dropped(SpanExporter):
    """An exporter that drops what it is given: the SDK's work without the network's."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def _providers(*, sampled: bool) -> tuple[TracerProvider, MeterProvider]:
    tracer = TracerProvider(sampler=ALWAYS_ON if sampled else ALWAYS_OFF)
    tracer.add_span_processor(BatchSpanProcessor(_Dropped()))
    meter = MeterProvider(metric_readers=[InMemoryMetricReader()])
    return tracer, meter


TELEMETRY_ROUNDS: Final = 3
"""Rounds of the telemetry set-ups, taken in turn, so a busy spell of the machine falls on all of them."""


async def telemetry_cost(
    settings: GatewayConfig, approvers: list[Approver] | None, commands: list[str]
) -> None:
    """(e) Repeated calls, no sink: the API alone, the SDK recording, the SDK sampling nothing."""
    print()
    print(f"telemetry cost (repeated call, no audit sink; {TELEMETRY_ROUNDS} rounds taken in turn)")
    setups = (
        ("(e1) API only, no SDK provider", False, False),
        ("(e2) SDK tracer + meter providers", True, True),
        ("(e3) SDK providers, sampling nothing", True, False),
    )
    timings: dict[str, list[int]] = {label: [] for label, _, _ in setups}
    for round_number in range(TELEMETRY_ROUNDS):
        for label, sdk, sampled in setups:
            tracer, meter = _providers(sampled=sampled) if sdk else (None, None)
            async with Gateway(
                settings, approvers=approvers, tracer_provider=tracer, meter_provider=meter
            ) as gateway:
                await timed_reviews(gateway, commands, f"warm{round_number}", Counter())
                timings[label] += await timed_reviews(
                    gateway, commands, f"tele{round_number}", Counter()
                )
            if tracer is not None and meter is not None:
                tracer.shutdown()
                meter.shutdown()
    for label, values in timings.items():
        describe(label, values)
    base = percentile(sorted(timings[setups[0][0]]), 0.50)
    for label, values in timings.items():
        print(
            f"  {label:<44} p50 {percentile(sorted(values), 0.50) / base:.2f} times the API alone"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--limit", type=int, default=1000, help="distinct corpus commands to use")
    parser.add_argument(
        "--total", type=int, default=3000, help="reviews per concurrency level for throughput"
    )
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    arguments = parser.parse_args(argv)
    anyio.run(run, max(1, arguments.limit), max(1, arguments.total), backend=arguments.backend)
    return 0


if __name__ == "__main__":
    sys.exit(main())
