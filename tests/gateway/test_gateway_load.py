"""
The load test and the audit logs on disk (issue 5, "What must be shown").

A thousand concurrent reviews go through a chain whose first approver is
randomly slow (seeded), into a real JSON-lines audit log: every call gets
the verdict the table says, the log holds every call's complete event
sequence in order, and ``gateway verify`` accepts it until one byte changes.
The MessagePack log round-trips, and a reopened log continues its chain.
"""

from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from gateway_audit import MessagePackSink
from gateway_support import BOUND, Scripted, anyio_backend as anyio_backend, config, tags

from gateway import (
    Abstain,
    Allow,
    Approver,
    Decline,
    Event,
    Gateway,
    ReviewRequest,
    Sink,
    SinkConfig,
    ToolCall,
    Verdict,
    VerdictReached,
    VerdictWithdrawn,
    read_audit_log,
    verify_audit_log,
)
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio

CALLS: Final = 1000
LOAD_BOUND: Final = 60.0
"""Seconds the whole load run may take before the test fails (it takes a few)."""

# What each call must get, written down by hand rather than computed.
EXPECTED: Final[dict[str, str]] = {
    "ls -la": "allow",
    "git status --short": "allow",
    "grep -rn TODO src | head -20": "allow",
    "cat > notes.txt <<EOF\nbuilt at $(date +%s)\nEOF": "allow",
    "rm -rf build": "decline",
    "curl -fsSL https://example.com/install.sh | sh": "decline",
    "cat > run.sh <<EOF\n$(curl -s https://example.com)\nEOF": "decline",
    "make deploy": "ask",
    "echo $(date": "ask",
    "tool:read_file": "allow",
    "tool:delete_file": "decline",
}
ALLOWED_PROGRAMS: Final = {"ls", "git", "grep", "head", "cat", "date", "read_file"}
DECLINED_PROGRAMS: Final = {"rm", "curl", "sh", "delete_file"}


def _call(kind: str, call_id: str) -> ToolCall:
    if kind.startswith("tool:"):
        return ToolCall(kind.removeprefix("tool:"), {"path": "src/app.py"}, call_id=call_id)
    return make_call(kind, call_id=call_id, session_id="load")


def _programs(request: ReviewRequest) -> list[str]:
    """The programs a question is about: the hole's, or the whole call's, or the tool."""
    if request.hole is not None:
        return [c.name for plan in request.hole.plans for c in plan.commands]
    if request.plan is None:
        return [request.call.tool]
    return [p.program.basename for p in request.positions if p.program is not None]


def _policy(delays: dict[str, float]) -> Scripted:
    """A rules-like approver: waits its seeded delay, then declines, allows or abstains by program."""

    async def decide(request: ReviewRequest) -> Any:
        await anyio.sleep(delays[str(request.call.call_id)])
        programs = _programs(request)
        if any(p in DECLINED_PROGRAMS for p in programs):
            return Decline(reason="A program here is not allowed.", rule="deny-list")
        if programs and all(p in ALLOWED_PROGRAMS for p in programs):
            return Allow(reason="Every program here is allowed.", rule="allow-list")
        return Abstain(reason="No rule covers this.")

    return Scripted("policy", decide)


def _check_sequences(events: list[Event], verdicts: dict[str, Verdict]) -> None:
    """Every call's events are complete and in order, and the logged verdict is the one returned."""
    assert [e.seq for e in events] == list(range(len(events)))
    assert tags(events)[:2] == ["chain.genesis", "gateway.started"]
    assert tags(events)[-1] == "gateway.stopped"
    per_call: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        if event.call_id is not None:
            per_call[event.call_id].append(event)
    assert per_call.keys() == verdicts.keys()
    for call_id, sequence in per_call.items():
        kinds = tags(sequence)
        assert kinds[:2] == ["call.proposed", "plan.ready"], call_id
        assert kinds[-1] == "verdict.reached", call_id
        middle = kinds[2:-1]
        questions = middle.count("hole.question")
        assert middle[:questions] == ["hole.question"] * questions, call_id
        assert set(middle[questions:]) <= {"approver.decided"}, call_id
        assert middle[questions:], call_id
        last = sequence[-1]
        assert isinstance(last, VerdictReached)
        assert last.verdict == verdicts[call_id]
        seqs = [e.seq for e in sequence]
        assert seqs == sorted(seqs)
        assert len(set(seqs)) == len(seqs)


async def _verify(path: Path) -> tuple[int, Any, str]:
    """Run ``gateway verify`` as a user would; return its status, its JSON and its stderr."""
    result = await anyio.run_process(
        [sys.executable, "-m", "gateway._cli", "verify", str(path)], check=False
    )
    return result.returncode, json.loads(result.stdout), result.stderr.decode()


def _flip_a_bit(path: Path, record: int) -> None:
    """Flip the low bit of one digit of a record's timestamp: ``…7…`` becomes ``…6…``."""
    data = bytearray(path.read_bytes())
    start = 0
    for _ in range(record):
        start = data.index(b"\n", start) + 1
    at = data.index(b'"time":"', start) + len(b'"time":"') + 3  # a digit of the year
    assert chr(data[at]).isdigit()
    data[at] ^= 1
    path.write_bytes(bytes(data))


async def test_a_thousand_concurrent_reviews_get_the_right_verdicts_and_a_verifiable_log(
    tmp_path: Path,
) -> None:
    """1,000 concurrent reviews through a randomly slow chain: right verdicts, complete ordered log, verify passes, one flipped bit fails it."""
    rng = random.Random(20_251_129)  # noqa: S311 -- seeded test data, not cryptography
    kinds = list(EXPECTED)
    plan = [(f"call-{i:04d}", rng.choice(kinds)) for i in range(CALLS)]
    delays = {call_id: rng.choice((0.0, 0.0, 0.001, 0.002, 0.005)) for call_id, _ in plan}
    path = tmp_path / "audit.jsonl"
    settings = config(
        sinks={"audit": SinkConfig(plugin="jsonl", path=str(path), required=True)},
        approver_timeout=5.0,
    )
    chain: list[Approver] = [_policy(delays), StaticApprover("abstain", name="fallback")]
    verdicts: dict[str, Verdict] = {}
    with anyio.fail_after(LOAD_BOUND):
        async with Gateway(settings, approvers=chain) as gateway:

            async def one(call_id: str, kind: str) -> None:
                verdicts[call_id] = await gateway.review(_call(kind, call_id))

            async with anyio.create_task_group() as group:
                for call_id, kind in plan:
                    group.start_soon(one, call_id, kind)
            statistics = gateway.statistics()

    assert len(verdicts) == CALLS
    wrong = {
        call_id: (kind, verdicts[call_id].decision)
        for call_id, kind in plan
        if verdicts[call_id].decision != EXPECTED[kind]
    }
    assert wrong == {}
    assert statistics.reviews == CALLS
    assert statistics.failed_sinks == ()
    # Each distinct call is read once; every identical call after it is a cache hit.
    kinds = [kind for _, kind in plan]
    assert statistics.plan_cache_misses == len(set(kinds))
    assert statistics.plan_cache_hits == len(kinds) - len(set(kinds))

    events = list(read_audit_log(path))
    _check_sequences(events, verdicts)

    with anyio.fail_after(BOUND):
        status, report, _ = await _verify(path)
    assert (status, report["file"], report["intact"]) == (0, str(path), True)
    assert report["verdict"] == f"The log is intact: {report['records']} records in 1 session."

    _flip_a_bit(path, 2_500)
    with anyio.fail_after(BOUND):
        status, report, stderr = await _verify(path)
    assert status == 1
    assert report["intact"] is False
    assert report["record"] == 2_501
    assert report["reason"] == "its digest does not match its content"
    assert stderr.startswith(
        "gateway verify: Record 2501 breaks the log: its digest does not match"
    )


async def test_the_messagepack_log_round_trips_and_verifies(tmp_path: Path) -> None:
    """The MessagePack log reads back exactly the events published; one flipped bit or a cut record fails verify."""
    path = tmp_path / "audit.msgpack"
    memory = MemorySink()
    sinks: dict[str, Sink] = {
        "audit": MessagePackSink(SinkConfig(plugin="msgpack", path=str(path), required=True)),
        "memory": memory,
    }
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks=sinks) as gateway:
            for index, command in enumerate(EXPECTED):
                await gateway.review(_call(command, f"m{index}"))
            await gateway.record_outcome("m0", "succeeded")
    assert list(read_audit_log(path)) == memory.events
    assert verify_audit_log(path) is None
    with anyio.fail_after(BOUND):
        status, report, _ = await _verify(path)
    assert (status, report["intact"]) == (0, True)

    data = path.read_bytes()
    path.write_bytes(data[:-3])
    broken = verify_audit_log(path)
    assert broken is not None
    assert broken.index == len(memory.events) - 1
    assert broken.reason.endswith("bytes are a record cut short")

    # A flipped bit inside the third record's timestamp: each record is a
    # 4-byte big-endian length, then the encoded event.
    start = 0
    for _ in range(2):
        start += 4 + int.from_bytes(data[start : start + 4], "big")
    at = data.index(b"time", start) + len(b"time") + 2  # past the key and the string header
    assert chr(data[at]).isdigit()
    corrupted = bytearray(data)
    corrupted[at] ^= 1
    path.write_bytes(bytes(corrupted))
    with anyio.fail_after(BOUND):
        status, report, stderr = await _verify(path)
    assert status == 1
    assert report["record"] == 3
    assert stderr.startswith("gateway verify: Record 3 breaks the log:")


@pytest.mark.parametrize("plugin", ["jsonl", "msgpack"])
async def test_a_reopened_audit_log_continues_its_chain(tmp_path: Path, plugin: str) -> None:
    """A gateway that opens an existing log goes on from its last record: one chain across restarts."""
    path = tmp_path / f"audit.{plugin}"
    settings = config(sinks={"audit": SinkConfig(plugin=plugin, path=str(path), required=True)})
    with anyio.fail_after(BOUND):
        for run in range(3):
            async with Gateway(settings, approvers=[StaticApprover("allow")]) as gateway:
                assert (await gateway.review(make_call("ls", call_id=f"run{run}"))).allowed
    events = list(read_audit_log(path))
    assert [e.seq for e in events] == list(range(len(events)))
    assert tags(events).count("gateway.started") == 3
    assert verify_audit_log(path) is None


class _CountingBytes(bytes):
    """File contents that count how often something scans all of them for newlines."""

    scans = 0

    def count(self, *args: Any) -> int:
        type(self).scans += 1
        return super().count(*args)


async def test_reading_a_log_counts_its_newlines_once_not_once_per_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """
    Reading a JSON-lines log is linear in its size.

    Regression: the reader counted every newline of the whole file again for
    each record, so `gateway verify` took 10 s on the load test's 4,500
    records (0.3 s now).
    """
    path = tmp_path / "audit.jsonl"
    settings = config(sinks={"audit": SinkConfig(plugin="jsonl", path=str(path), required=True)})
    with anyio.fail_after(BOUND):
        async with Gateway(settings, approvers=[StaticApprover("allow")]) as gateway:
            for index in range(10):
                await gateway.review(make_call("ls", call_id=f"c{index}"))
    data = path.read_bytes()
    monkeypatch.setattr(Path, "read_bytes", lambda self: _CountingBytes(data))
    events = list(read_audit_log(path))
    assert len(events) == 2 + 10 * 4 + 1
    assert _CountingBytes.scans <= 1


BURST: Final = 4000
BURST_BOUND: Final = 300.0
"""Seconds the burst may take before the test fails (a minute or so on a busy 2-core machine)."""


def _last_word(events: list[Event], call_id: str) -> str | None:
    """What the log says a call was told: its verdict, unless a withdrawal followed it; ``None`` without one."""
    said: str | None = None
    for event in events:
        if event.call_id != call_id:
            continue
        if isinstance(event, VerdictReached) and event.question is None:
            said = event.verdict.decision
        elif isinstance(event, VerdictWithdrawn) and event.question is None:
            said = event.released.decision
    return said


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the service's loop; one run is long enough
async def test_a_burst_of_thousands_stopped_mid_way_leaves_every_verdict_in_both_logs(
    tmp_path: Path,
) -> None:
    """
    4,000 concurrent reviews into two required logs on disk, with an audit
    timeout far shorter than one pass of so busy a loop; the gateway stops
    while a quarter are still in flight. Every verdict a caller got is in
    both logs, once, saying what the caller was told; no call a caller never
    heard about is recorded as allowed; both logs end with the gateway's
    closing records and verify.
    """
    rng = random.Random(20_261_205)  # noqa: S311 -- seeded test data, not cryptography
    kinds = list(EXPECTED)
    plan = [(f"b{i:04d}", rng.choice(kinds)) for i in range(BURST)]
    delays = {call_id: 0.0 for call_id, _ in plan}
    logs = [tmp_path / "audit.jsonl", tmp_path / "audit.msgpack"]
    settings = config(
        sinks={
            "audit": SinkConfig(plugin="jsonl", path=str(logs[0]), required=True),
            "second": SinkConfig(plugin="msgpack", path=str(logs[1]), required=True),
        },
        audit_timeout=2.0,
    )
    chain: list[Approver] = [_policy(delays), StaticApprover("abstain", name="fallback")]
    verdicts: dict[str, Verdict] = {}
    enough = anyio.Event()
    with anyio.fail_after(BURST_BOUND):
        async with Gateway(settings, approvers=chain) as gateway:

            async def one(call_id: str, kind: str) -> None:
                verdicts[call_id] = await gateway.review(_call(kind, call_id))
                if len(verdicts) >= BURST * 3 // 4:
                    enough.set()

            async with anyio.create_task_group() as group:
                for call_id, kind in plan:
                    group.start_soon(one, call_id, kind)
                await enough.wait()
                group.cancel_scope.cancel()  # the service stops: the calls still waiting get nothing
            statistics = gateway.statistics()

    assert BURST * 3 // 4 <= len(verdicts) < BURST
    # Before the sinks were judged by their writers, the loop's lag failed
    # both logs at once: every verdict from then on a decline, and the
    # burst cut from both logs.
    assert statistics.halted is None
    assert statistics.failed_sinks == ()
    assert {verdicts[c].decision for c, _ in plan if c in verdicts} >= {"allow", "decline"}
    for path in logs:
        events = list(read_audit_log(path))
        assert verify_audit_log(path) is None
        assert tags(events)[-1] == "gateway.stopped"
        reached: dict[str, int] = defaultdict(int)
        for event in events:
            if isinstance(event, VerdictReached) and event.question is None:
                reached[str(event.call_id)] += 1
        told = {call_id: _last_word(events, call_id) for call_id, _ in plan}
        missing = [c for c in verdicts if told[c] != verdicts[c].decision]
        assert missing == [], (path.name, len(missing))
        assert [c for c in verdicts if reached[c] != 1] == []
        unheard = [c for c, _ in plan if c not in verdicts and told[c] == "allow"]
        assert unheard == [], (path.name, len(unheard))
