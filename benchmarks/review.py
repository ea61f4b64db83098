"""
What `Gateway.review` costs: latency of new and identical calls, and reviews per CPU-second.

Run: ``.venv/bin/python benchmarks/review.py [--limit N] [--total N] [--backend asyncio|trio] [--profile]``.

On the first ``--limit`` distinct commands of the agent corpus it measures,
with the real ``rules`` approver (its default policy) and, where said, the
``jsonl`` audit sink required (every batch of events written and flushed
before the verdict is released):

(a) ``plan_program`` alone, in this process (the reading a worker does);
(b) review of a call never seen (read in a worker process, then the rules,
    then the audit write);
(c) review of the same call again (the reading and the rules' answer reused);
(d) (c) without any sink;

and where the rules judged the new calls of (b): inline, when their question
is small by the rules' budget (with the most CPU time one took on the event
loop), or in a worker process under the approver's deadline.

as p50/p99 of wall time, and CPU time per review (this process and its
worker processes together — the machine this runs on may be shared, and CPU
time is what a review costs wherever it runs). Then reviews per CPU-second
and per wall-second with 1, 100 and 1000 identical-call reviews in flight,
with the audit log on. ``--profile`` prints where the CPU of (c) goes.
(e) what telemetry costs: identical calls without a sink, with the
OpenTelemetry API alone (no SDK: no span is made and nothing measured), with the
SDK's tracer and meter providers (spans batched to an exporter that drops
them, metrics aggregated in memory), and with the SDK sampling nothing, in
three rounds taken in turn (a busy spell of a shared machine then falls on
every set-up).

``--targets`` measures instead the review path's targets, interleaved in one
run, each round on a fresh gateway with the audit log, and prints each
round and the median of the rounds (``--rounds``, at least 3):

* plan / bashlex at p50 on agent traffic and on NL2Bash (a sample spread over
  each corpus, timed command by command as ``benchmarks/plan.py`` does);
* a new-call review against its plan: p50 of reviews of calls never seen
  against p50 of ``plan_program`` of the same commands in this process;
* new-call reviews per CPU-second with the audit log (this process and its
  workers);
* a repeated call with the audit log: p50 wall time one at a time, and CPU
  per review with 100 in flight (batched writes);
* growth: CPU of a new-call review of 1, 4, 16 and 64 KiB of agent commands
  (one per line), and the factor from each size to the next (4 is linear).

Nothing here is asserted: speed is measured here, never in unit tests.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.metadata
import itertools
import os
import pstats
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
from _corpus import load
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON
from plan import measure as measure_plans

from gateway import Approver, Gateway, GatewayConfig, ToolCall, default_config
from gateway.audit import verify_audit_log
from gateway.config import AuditSection, SinkConfig, WitnessConfig
from gateway.plans import plan_program
from gateway.testing import StaticApprover

CONCURRENCY: Final = (1, 100, 1000)
_TICK: Final = os.sysconf("SC_CLK_TCK")


def percentile(sorted_values: Sequence[int], fraction: float) -> float:
    """The nearest-rank percentile of already sorted nanosecond values, in microseconds."""
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index] / 1_000


def describe(label: str, nanoseconds: list[int], cpu_per_review: float) -> None:
    """Print one labelled line: p50/p99/mean wall time and CPU per review, in microseconds."""
    values = sorted(nanoseconds)
    mean = statistics.fmean(values) / 1_000 if values else float("nan")
    print(
        f"  {label:<42} p50 {percentile(values, 0.50):>8.1f}   p99 {percentile(values, 0.99):>8.1f}"
        f"   mean {mean:>8.1f}   cpu {cpu_per_review:>8.1f} µs/review   (n={len(values)})"
    )


def rules_installed() -> bool:
    """Whether the first-party rules approver is installed (entry point ``rules``)."""
    return any(
        e.name == "rules" for e in importlib.metadata.entry_points(group="gateway.approvers")
    )


def gateway_config(audit: Path | None, *, rules: bool, cache: int) -> GatewayConfig:
    """The default config (its policy), with only the rules approver and, optionally, an audit log (signed, witnessed)."""
    base = default_config()
    section = msgspec.structs.replace(
        base.gateway, approvers=("rules",) if rules else (), plan_cache_size=cache
    )
    if audit is None:
        return msgspec.structs.replace(
            base, gateway=section, sinks={}, audit=AuditSection(), witnesses={}
        )
    # Signed and witnessed as by default, with the key and the witness beside
    # the log (not in the state directory of whoever runs this).
    return msgspec.structs.replace(
        base,
        gateway=section,
        sinks={"audit": SinkConfig(plugin="jsonl", path=str(audit), required=True)},
        audit=msgspec.structs.replace(
            base.audit, signing_key=str(audit.with_name("audit-key.pem")), create_key=True
        ),
        witnesses={
            "local": WitnessConfig(plugin="file", path=str(audit.with_name("witness.jsonl")))
        },
    )


def _worker_cpu(gateway: Gateway) -> float:
    """CPU seconds the gateway's live worker processes have used (from /proc)."""
    pool = gateway._pool
    total = 0.0
    workers = [*pool._idle, *(spawn.worker for spawn in pool._fresh if spawn.worker is not None)]
    for worker in workers:
        try:
            fields = Path(f"/proc/{worker.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / _TICK
    return total


def cpu(gateway: Gateway) -> float:
    """CPU seconds of this process (every thread) and the gateway's workers."""
    return time.process_time() + _worker_cpu(gateway)


def timed_plans(commands: list[str]) -> tuple[list[int], float]:
    """Nanoseconds of `plan_program` per command, and CPU per command in microseconds."""
    out: list[int] = []
    start = time.process_time()
    for command in commands:
        begin = time.perf_counter_ns()
        plan_program(command)
        out.append(time.perf_counter_ns() - begin)
    return out, (time.process_time() - start) / len(commands) * 1e6


async def timed_reviews(
    gateway: Gateway, commands: list[str], tag: str, decisions: Counter[str]
) -> tuple[list[int], float]:
    """Nanoseconds of `Gateway.review` per command, one at a time, and CPU per review in microseconds."""
    out: list[int] = []
    start = cpu(gateway)
    for index, command in enumerate(commands):
        call = ToolCall("Bash", {"command": command}, call_id=f"{tag}-{index}", session_id="bench")
        begin = time.perf_counter_ns()
        verdict = await gateway.review(call)
        out.append(time.perf_counter_ns() - begin)
        decisions[verdict.decision] += 1
    return out, (cpu(gateway) - start) / len(commands) * 1e6


async def throughput(
    gateway: Gateway, commands: list[str], concurrency: int, total: int
) -> tuple[float, float]:
    """Reviews per CPU-second and per wall-second with ``concurrency`` in flight until ``total`` are done."""
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < total:
            index = next_index
            next_index += 1
            command = commands[index % len(commands)]
            await gateway.review(
                ToolCall(
                    "Bash",
                    {"command": command},
                    call_id=f"t{concurrency}-{index}",
                    session_id="bench",
                )
            )

    wall = time.perf_counter()
    start = cpu(gateway)
    async with anyio.create_task_group() as group:
        for _ in range(concurrency):
            group.start_soon(worker)
    return total / (cpu(gateway) - start), total / (time.perf_counter() - wall)


async def run(limit: int, total: int, *, profile: bool) -> None:
    """Measure and print everything."""
    commands = list(dict.fromkeys(load("agent")))[:limit]
    rules = rules_installed()
    approvers: list[Approver] | None = None if rules else [StaticApprover("allow")]
    cache = max(1024, 2 * len(commands))
    profiler = cProfile.Profile()
    with tempfile.TemporaryDirectory(prefix="gateway-bench-") as directory:
        audit = Path(directory) / "audit.jsonl"
        print(f"review benchmark: {len(commands)} distinct commands of the agent corpus")
        print(
            "  approver: "
            + (
                "rules (the default policy)"
                if rules
                else "StaticApprover('allow') — rules not installed"
            )
        )
        print(f"  audit sink: jsonl, required (one write + flush per batch) at {audit.name}")
        print(f"  CPUs: {os.cpu_count()}, load average now: {os.getloadavg()[0]:.1f}")
        print()
        print("latency (wall, µs) and CPU per review (this process + its workers, µs)")
        plans, plan_cpu = timed_plans(commands)
        describe("(a) plan_program alone", plans, plan_cpu)
        misses: Counter[str] = Counter()
        async with Gateway(
            gateway_config(audit, rules=rules, cache=cache), approvers=approvers
        ) as gateway:
            first, first_cpu = await timed_reviews(gateway, commands, "miss", misses)
            again, again_cpu = await timed_reviews(gateway, commands, "hit", Counter())
            describe("(b) review, new call (read in a worker)", first, first_cpu)
            describe("(c) review, identical call, audit log on", again, again_cpu)
            stats = gateway.statistics()
            print(
                f"  reading cache: {stats.plan_cache_misses} misses, {stats.plan_cache_hits} hits; "
                f"verdicts of new calls: {dict(sorted(misses.items()))}"
            )
            judging(gateway)
            if profile:
                profiler.enable()
                await timed_reviews(gateway, commands * 3, "profile", Counter())
                profiler.disable()
            print()
            print(f"throughput with the audit log, identical calls ({total} reviews per level)")
            for concurrency in CONCURRENCY:
                per_cpu, per_wall = await throughput(gateway, commands, concurrency, total)
                print(
                    f"  {concurrency:>5} in flight: {per_cpu:>9.0f} reviews per CPU-second"
                    f"   {per_wall:>9.0f} reviews per second (wall)"
                )
            batches = gateway.bus.statistics().batches
            published = gateway.bus.statistics().published
        async with Gateway(
            gateway_config(None, rules=rules, cache=cache), approvers=approvers
        ) as gateway:
            await timed_reviews(gateway, commands, "warm", Counter())
            bare, bare_cpu = await timed_reviews(gateway, commands, "bare", Counter())
        print()
        describe("(d) review, identical call, no sink", bare, bare_cpu)
        await telemetry_cost(gateway_config(None, rules=rules, cache=cache), approvers, commands)
        broken = verify_audit_log(audit)
        records = sum(1 for _ in audit.open("rb"))
        print()
        print(
            f"audit log: {records} records in {batches} writes "
            f"({published / max(batches, 1):.1f} events a write), chain "
            f"{'intact' if broken is None else broken}"
        )
        if profile:
            print()
            print("where the CPU of (c) goes (cProfile, this process):")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


def judging(gateway: Gateway) -> None:
    """Where the rules judged the new calls: inline (small, by their budget) or in a worker."""
    rules = gateway.services.get("rules")
    statistics = getattr(rules, "judging_statistics", None)
    if statistics is None:
        return
    judged = statistics()
    print(
        f"  rules judging of new calls: {judged.inline} inline (the longest "
        f"{judged.longest_inline * 1e3:.2f} ms of CPU on the event loop), {judged.in_workers} in workers "
        f"({judged.failed} without an answer)"
    )


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
    cpus: dict[str, list[float]] = {label: [] for label, _, _ in setups}
    for round_number in range(TELEMETRY_ROUNDS):
        for label, sdk, sampled in setups:
            tracer, meter = _providers(sampled=sampled) if sdk else (None, None)
            async with Gateway(
                settings, approvers=approvers, tracer_provider=tracer, meter_provider=meter
            ) as gateway:
                await timed_reviews(gateway, commands, f"warm{round_number}", Counter())
                wall, cpu_per_review = await timed_reviews(
                    gateway, commands, f"tele{round_number}", Counter()
                )
                timings[label] += wall
                cpus[label].append(cpu_per_review)
            if tracer is not None and meter is not None:
                tracer.shutdown()
                meter.shutdown()
    for label, values in timings.items():
        describe(label, values, statistics.fmean(cpus[label]))
    base = percentile(sorted(timings[setups[0][0]]), 0.50)
    for label, values in timings.items():
        print(
            f"  {label:<44} p50 {percentile(sorted(values), 0.50) / base:.2f} times the API alone"
        )


TARGETS: Final = {
    "plan/bashlex p50, agent": 1.0,
    "plan/bashlex p50, NL2Bash": 1.0,
    "new-call review / its plan, p50": 2.0,
    "new-call reviews per CPU-second": 2000.0,
    "repeated call with the log, p50 µs": 30.0,
    "repeated call with the log, 100 in flight, CPU µs": 30.0,
}
"""The review path's targets; a rate is met at or above, everything else at or below."""

GROWTH_SIZES: Final = (1024, 4096, 16384, 65536)
"""Bytes of the texts whose review cost growth is measured (each 4 times the one before)."""

GROWTH_TARGET: Final = 4.0
"""Linear growth: a review of 4 times the text costs at most 4 times the CPU."""


def spread(commands: list[str], count: int) -> list[str]:
    """``count`` commands taken at an even stride over the whole list (a sample of all of it)."""
    step = max(1, len(commands) // max(count, 1))
    return commands[::step][:count]


def text_of(commands: list[str], start: int, size: int) -> str:
    """Commands from ``start`` on (round the list), one per line, up to ``size`` bytes (whole lines)."""
    lines: list[str] = []
    used = 0
    for command in itertools.islice(itertools.cycle(commands), start, start + len(commands)):
        cost = len(command.encode()) + 1
        if used + cost > size:
            break
        lines.append(command)
        used += cost
    return "\n".join(lines)


async def new_call_cost(gateway: Gateway, text: str, tag: str) -> tuple[float, str]:
    """CPU seconds (this process and its workers) of one new-call review, and its decision."""
    start = cpu(gateway)
    verdict = await gateway.review(
        ToolCall("Bash", {"command": text}, call_id=tag, session_id="bench")
    )
    return cpu(gateway) - start, verdict.decision


async def target_round(
    number: int, audit: Path, sample: int, calls: list[str], growth: list[str]
) -> dict[str, float]:
    """One round of every target measure, in turn; the values by target name (and growth lines)."""
    values: dict[str, float] = {}
    for name, label in (("agent", "agent"), ("nl2bash", "NL2Bash")):
        row = measure_plans(label, spread(load(name), sample))
        values[f"plan/bashlex p50, {label}"] = percentile(sorted(row.plan), 0.5) / percentile(
            sorted(row.bashlex), 0.5
        )
    plans, _ = timed_plans(calls)
    rules = rules_installed()
    approvers: list[Approver] | None = None if rules else [StaticApprover("allow")]
    settings = gateway_config(audit, rules=rules, cache=max(1024, 4 * len(calls)))
    decisions: Counter[str] = Counter()
    async with Gateway(settings, approvers=approvers) as gateway:
        # The workers are started and warm before anything is timed.
        await timed_reviews(gateway, ["true", "ls -la | wc -l"], f"warm{number}", Counter())
        first, first_cpu = await timed_reviews(gateway, calls, f"new{number}", decisions)
        again, again_cpu = await timed_reviews(gateway, calls, f"again{number}", Counter())
        per_cpu, _ = await throughput(gateway, calls, 100, 20 * len(calls))
        values["new-call review / its plan, p50"] = percentile(sorted(first), 0.5) / percentile(
            sorted(plans), 0.5
        )
        values["new-call reviews per CPU-second"] = 1e6 / first_cpu
        values["repeated call with the log, p50 µs"] = percentile(sorted(again), 0.5)
        values["repeated call, log on disk, CPU µs"] = again_cpu
        values["repeated call with the log, 100 in flight, CPU µs"] = 1e6 / per_cpu
        sizes: list[float] = []
        for size in GROWTH_SIZES:
            texts = [text_of(growth, (3 * number + index) * 101, size) for index in range(3)]
            costs = []
            for index, text in enumerate(texts):
                used, decision = await new_call_cost(gateway, text, f"grow{number}-{size}-{index}")
                costs.append(used)
                decisions[f"{size // 1024} KiB {decision}"] += 1
            sizes.append(statistics.median(costs))
            values[f"growth: {size // 1024} KiB review, CPU ms"] = sizes[-1] * 1e3
        for smaller, larger, size in zip(sizes, sizes[1:], GROWTH_SIZES[1:], strict=False):
            values[f"growth: {size // 4096} to {size // 1024} KiB, factor"] = larger / smaller
    values.update(await where_it_goes(number, calls, settings, approvers))
    print(f"round {number}: verdicts {dict(sorted(decisions.items()))}")
    for name, value in values.items():
        print(f"  {name:<52} {value:>10.2f}")
    return values


MEMORY: Final = Path("/dev/shm")  # noqa: S108 -- a private directory is made in it
"""A filesystem held in memory (tmpfs), where the log is written from the event loop."""


async def where_it_goes(
    number: int, calls: list[str], settings: GatewayConfig, approvers: list[Approver] | None
) -> dict[str, float]:
    """
    CPU per repeated call, one at a time and 100 in flight, with no sink and with the log in memory.

    Beside the log on disk (written by its writer thread, one hand-off per
    batch), these show what the records cost (in memory, the log is written
    from the loop) and what the hand-off costs.
    """
    values: dict[str, float] = {}
    setups: list[tuple[str, Path | None]] = [("no sink", None)]
    if MEMORY.is_dir() and os.access(MEMORY, os.W_OK):
        setups.append(("log in memory", MEMORY))
    for label, where in setups:
        with tempfile.TemporaryDirectory(prefix="gateway-bench-", dir=where) as directory:
            audit = None if where is None else Path(directory) / "audit.jsonl"
            section = msgspec.structs.replace(
                settings,
                sinks={} if audit is None else gateway_config(audit, rules=False, cache=1).sinks,
            )
            async with Gateway(section, approvers=approvers) as gateway:
                await timed_reviews(gateway, calls, f"{label}-new{number}", Counter())
                _, one = await timed_reviews(gateway, calls, f"{label}-again{number}", Counter())
                per_cpu, _ = await throughput(gateway, calls, 100, 20 * len(calls))
        values[f"repeated call, {label}, CPU µs"] = one
        values[f"repeated call, {label}, 100 in flight, CPU µs"] = 1e6 / per_cpu
    return values


async def run_targets(rounds: int, sample: int, calls: int) -> None:
    """Measure the review path's targets in ``rounds`` rounds; print each round and the medians."""
    agent = list(dict.fromkeys(load("agent")))
    print(
        f"review path targets: {rounds} rounds; plan/bashlex on {sample} commands spread over "
        f"each corpus; {calls} new calls a round; load average now {os.getloadavg()[0]:.1f}"
    )
    # Every round reviews calls no earlier round saw; growth texts come from the end of the corpus.
    growth = agent[len(agent) // 2 :]
    results: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="gateway-bench-") as directory:
        for number in range(rounds):
            audit = Path(directory) / f"audit-{number}.jsonl"
            round_calls = agent[number * calls : (number + 1) * calls]
            results.append(await target_round(number + 1, audit, sample, round_calls, growth))
            broken = verify_audit_log(audit)
            if broken is not None:
                print(f"  the audit log of round {number + 1} does not verify: {broken}")
    print()
    print(f"medians of {rounds} rounds (load average now {os.getloadavg()[0]:.1f})")
    for name in results[0]:
        median = statistics.median(result[name] for result in results)
        target = TARGETS.get(name)
        if target is None and name.endswith("factor"):
            target = GROWTH_TARGET
        if target is None:
            verdict = ""
        else:
            met = median >= target if "per CPU-second" in name else median <= target
            verdict = f"target {'≥' if 'per CPU-second' in name else '≤'} {target:g}: " + (
                "met" if met else "NOT met"
            )
        print(f"  {name:<52} {median:>10.2f}   {verdict}")


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--limit", type=int, default=500, help="distinct corpus commands to use")
    parser.add_argument(
        "--total", type=int, default=5000, help="reviews per concurrency level for throughput"
    )
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    parser.add_argument("--profile", action="store_true", help="profile the identical-call path")
    parser.add_argument(
        "--targets", action="store_true", help="measure the review path's targets instead"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --targets (at least 3)")
    parser.add_argument(
        "--sample", type=int, default=1500, help="commands per corpus for plan/bashlex in --targets"
    )
    parser.add_argument("--calls", type=int, default=300, help="new calls a round in --targets")
    arguments = parser.parse_args(argv)
    if arguments.targets:
        anyio.run(
            lambda: run_targets(
                max(3, arguments.rounds), max(1, arguments.sample), max(1, arguments.calls)
            ),
            backend=arguments.backend,
        )
        return 0
    anyio.run(
        lambda: run(max(1, arguments.limit), max(1, arguments.total), profile=arguments.profile),
        backend=arguments.backend,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
