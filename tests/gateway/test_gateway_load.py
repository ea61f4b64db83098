"""
The load test and the audit logs on disk (issue 5, "What must be shown").

A thousand concurrent reviews go through a chain whose first approver is
randomly slow (seeded), into a real JSON-lines audit log: every call gets
the verdict the table says, the log holds every call's complete event
sequence in order, and ``gateway verify`` accepts it until one byte changes.
The MessagePack log round-trips, and a reopened log continues its chain.
Bursts of 4,000 concurrent reviews, in process and through a real ``gateway
serve`` (HTTP and the hook socket), stopped mid-way, leave every verdict a
caller got in the log, once.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import resource
import signal
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import anyio
import pytest
from gateway_audit import MessagePackSink
from gateway_guard import host_decision
from gateway_relay import Reply, check_reply, request_line
from gateway_support import BOUND, Scripted, anyio_backend as anyio_backend, config, tags
from serving import gateway_serve

from gateway import (
    Abstain,
    Allow,
    Approver,
    Decline,
    Gateway,
    ReviewRequest,
    Sink,
    ToolCall,
    Verdict,
)
from gateway.audit import read_audit_log, verify_audit_log
from gateway.config import SinkConfig
from gateway.events import Event, VerdictReached, VerdictWithdrawn
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


def _released(events: list[Event]) -> dict[str, Verdict]:
    """What the log says each call was told: its verdict, unless a withdrawal followed it."""
    said: dict[str, Verdict] = {}
    for event in events:
        if event.call_id is None:
            continue
        if isinstance(event, VerdictReached) and event.question is None:
            said[event.call_id] = event.verdict
        elif isinstance(event, VerdictWithdrawn) and event.question is None:
            said[event.call_id] = event.released
    return said


def _check_burst_log(
    path: Path,
    calls: list[str],
    told: dict[str, str],
    word: Callable[[str, Verdict], str] = lambda _, verdict: verdict.decision,
) -> dict[str, Verdict]:
    """
    A burst's log after a stop: it verifies and ends with ``gateway.stopped``;
    every call a client was told about (``told``) has exactly one verdict
    record, which ``word`` turns into what that client was told; no call
    that no client heard about is recorded as allowed. Returns what the log
    says each call was told.
    """
    events = list(read_audit_log(path))
    assert verify_audit_log(path) is None
    assert tags(events)[-1] == "gateway.stopped"
    reached: Counter[str] = Counter(
        str(event.call_id)
        for event in events
        if isinstance(event, VerdictReached) and event.question is None
    )
    released = _released(events)
    unrecorded = [c for c in told if c not in released]
    assert unrecorded == [], (path.name, len(unrecorded), unrecorded[:5])
    differing = [c for c in told if word(c, released[c]) != told[c]]
    assert differing == [], (path.name, len(differing), differing[:5])
    assert [c for c in told if reached[c] != 1] == []
    unheard = [c for c in calls if c not in told and c in released and released[c].allowed]
    assert unheard == [], (path.name, len(unheard))
    return released


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
        _check_burst_log(
            path, [c for c, _ in plan], {c: verdict.decision for c, verdict in verdicts.items()}
        )


SERVED_BURST: Final = 4000
"""Reviews sent at once to a real ``gateway serve``: half over HTTP, half over the hook socket."""
SERVED_BOUND: Final = 600.0
"""Seconds the whole served burst may take before the test fails: only a hang (a minute or two on a busy 2-core machine)."""
SERVE_CONFIG: Final = """
[gateway]
approvers = ["rules"]

[serve]
max-connections = 8192
"""
SERVED_COMMANDS: Final = (
    "ls -la src/d{i}",
    "rm -rf build/d{i}",
    "make deploy-{i}",
    "cat notes/n{i}.txt",
)
"""Distinct texts per call (``{i}``), so no answer comes from the cache."""
HOOK_WORDS: Final = {"allow": "allow", "deny": "decline", "ask": "ask"}
"""Claude Code's ``permissionDecision`` as the gateway's decision."""


def _told_by_hook(reply: Reply) -> str:
    """What a Claude Code hook's answer tells the host: a decision, ``host`` (its own checks), or ``decline`` (a block)."""
    if reply.status == 2:
        return "decline"
    if not reply.stdout:
        return "host"
    output = json.loads(reply.stdout)["hookSpecificOutput"]
    return HOOK_WORDS[output["permissionDecision"]]


async def _over_http(port: int, token: str, call_id: str, command: str) -> str | None:
    """``POST /v1/review`` on a connection of its own; the decision, or ``None`` without a verdict."""
    body = json.dumps({"tool": "Bash", "input": {"command": command}, "call_id": call_id}).encode()
    head = (
        f"POST /v1/review HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return None
    try:
        writer.write(head + body)
        await writer.drain()
        answer = await reader.read()
    except OSError:
        return None
    finally:
        writer.close()
    status_line, _, rest = answer.partition(b"\r\n")
    if not status_line.startswith(b"HTTP/1.1 200 "):
        return None
    decision: str = json.loads(rest.partition(b"\r\n\r\n")[2])["decision"]
    return decision


async def _over_socket(path: str, call_id: str, command: str, cwd: str) -> str | None:
    """A Claude Code ``PreToolUse`` event over the hook socket; what the answer tells the host, or ``None`` without one."""
    event = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "session_id": "load",
            "cwd": cwd,
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": call_id,
        }
    ).encode()
    try:
        reader, writer = await asyncio.open_unix_connection(path)
    except OSError:
        return None
    try:
        writer.write(request_line("claude-code", len(event)) + event)
        await writer.drain()
        answer = (
            await reader.read()
        )  # the service closes after its answer; the hook never half-closes
    except OSError:
        return None
    finally:
        writer.close()
    if not answer:
        return None
    return _told_by_hook(check_reply(answer))


def _enough_descriptors(needed: int) -> None:
    """Raise this process's soft limit on open files (its children inherit it) to ``needed``, if below."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        assert hard == resource.RLIM_INFINITY or hard >= needed, f"only {hard} files may be open"
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # raw asyncio connections
async def test_thousands_of_reviews_over_http_and_the_hook_socket_of_gateway_serve_stopped_by_sigterm(
    tmp_path: Path,
) -> None:
    """
    4,000 distinct reviews at once to a real ``gateway serve`` on loopback,
    half over HTTP, half as Claude Code hook events over its socket; SIGTERM
    once three quarters are answered. The service ends by itself, and its
    log verifies, ends with ``gateway.stopped``, and holds every verdict a
    client got exactly once, saying what that client was told (busy
    declines too); no call a client never heard about is recorded as allowed.
    """
    _enough_descriptors(4 * SERVED_BURST + 1024)  # both ends of every connection, and the rest
    state = tmp_path / "state"
    log = tmp_path / "audit.jsonl"
    config_file = tmp_path / "gateway.toml"
    config_file.write_text(SERVE_CONFIG)
    hook_socket = state / "gateway.sock"
    env = {**os.environ, "XDG_STATE_HOME": str(state), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    calls = [f"s{i:04d}" for i in range(SERVED_BURST)]
    told: dict[str, str] = {}
    over_socket = {c for i, c in enumerate(calls) if i % 2}
    enough = anyio.Event()
    started = time.monotonic()
    with anyio.fail_after(SERVED_BOUND):
        with gateway_serve(
            "--config",
            str(config_file),
            "--audit",
            str(log),
            "--socket",
            str(hook_socket),
            "--token-file",
            str(state / "token"),
            cwd=tmp_path,
            env=env,
            wait=SERVED_BOUND / 4,
        ) as served:

            async def one(index: int, call_id: str) -> None:
                command = SERVED_COMMANDS[index // 2 % len(SERVED_COMMANDS)].format(i=index)
                if call_id in over_socket:
                    said = await _over_socket(str(hook_socket), call_id, command, str(tmp_path))
                else:
                    said = await _over_http(served.port, served.token, call_id, command)
                if said is not None:
                    told[call_id] = said
                if len(told) >= SERVED_BURST * 3 // 4:
                    enough.set()

            async with anyio.create_task_group() as group:
                for index, call_id in enumerate(calls):
                    group.start_soon(one, index, call_id)
                await enough.wait()
                served.process.send_signal(signal.SIGTERM)
            ended = functools.partial(served.process.wait, timeout=SERVED_BOUND / 4)
            status = await anyio.to_thread.run_sync(ended)  # it stops by itself, or fails the test
    elapsed = time.monotonic() - started
    assert status == 0
    with anyio.fail_after(BOUND):
        verified, report, _ = await _verify(log)
    assert (verified, report["intact"]) == (0, True)

    released = _check_burst_log(
        log,
        calls,
        told,
        lambda call_id, verdict: (
            host_decision(verdict) if call_id in over_socket else verdict.decision
        ),
    )
    busy = [c for c in told if released[c].reason.startswith("The gateway is busy: ")]
    decisions = Counter(released[c].decision for c in told)
    seen = (len(told), len(busy), dict(decisions), round(elapsed, 1))  # shown when one fails
    assert len(told) >= SERVED_BURST * 3 // 4, seen
    assert {c in over_socket for c in told} == {True, False}, seen
    assert decisions["allow"] > 0, seen
