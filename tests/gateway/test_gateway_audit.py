"""
The audit log's sinks: one writer at a time, continuing after any crash, never saying more than callers were told.

Real `JsonLinesSink` and `MessagePackSink` on real files: the lock each holds
from opening to closing, the torn tail a crash leaves (set aside, recorded,
the chain continues), a log that is not a log (refused in one sentence), a
disk that fills mid-write (the partial record taken back), a sink too slow
for a verdict (fenced: the log cut right after the last verdict released),
and two required sinks of which one fails (the other records the withdrawal).
"""

from __future__ import annotations

import errno
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.from_thread
import gateway_audit
import msgspec
import pytest
from gateway_audit import JsonLinesSink, MessagePackSink
from gateway_support import BOUND, anyio_backend as anyio_backend, config, of_call, tags

from gateway import Gateway, PluginLoadError, SinkFailure, Verdict, default_config
from gateway._record._bus import EventBus
from gateway._record._sinks import resolve_sink
from gateway.audit import lock_path, log_writer, read_audit_log, read_tail, verify_audit_log
from gateway.config import SinkConfig
from gateway.events import CallOutcome, ChainGenesis, LogRecovered, VerdictReached, VerdictWithdrawn
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio

FORMATS: Final = [pytest.param("jsonl", id="jsonl"), pytest.param("msgpack", id="msgpack")]

RUN: Final = 60.0
"""Seconds one gateway's whole run may take here: it starts a worker process, which a busy machine makes slow."""


def _sink(path: Path, plugin: str, **options: Any) -> Any:
    kind = JsonLinesSink if plugin == "jsonl" else MessagePackSink
    return kind(SinkConfig(plugin=plugin, path=str(path), required=True, options=options))


async def _run(path: Path, plugin: str, commands: list[str], **options: Any) -> list[Any]:
    verdicts = []
    with anyio.fail_after(RUN):
        async with Gateway(
            approvers=[StaticApprover("allow")], sinks={"audit": _sink(path, plugin, **options)}
        ) as gateway:
            for index, command in enumerate(commands):
                verdicts.append(
                    await gateway.review(make_call(command, call_id=f"{path.stem}{index}"))
                )
    return verdicts


@pytest.mark.parametrize(
    ("plugin", "name", "sentence"),
    [
        (
            "jsonl",
            "audit.msgpack",
            "the jsonl sink cannot write 'audit.msgpack': a name like that is read as MessagePack; "
            "name the file *.jsonl or use the msgpack sink",
        ),
        (
            "msgpack",
            "audit.jsonl",
            "the msgpack sink cannot write 'audit.jsonl': a name like that is read as JSON lines; "
            "name the file *.msgpack or use the jsonl sink",
        ),
    ],
    ids=["jsonl-on-msgpack", "msgpack-on-jsonl"],
)
async def test_a_sink_refuses_a_file_its_name_says_is_the_other_format(
    plugin: str, name: str, sentence: str
) -> None:
    settings = config(sinks={"audit": SinkConfig(plugin=plugin, path=name, required=True)})
    with pytest.raises(PluginLoadError) as caught:
        async with Gateway(settings):
            pass
    assert str(caught.value) == (
        f"The sink plugin {plugin!r} could not be built for sink 'audit': {sentence}"
    )


# ── one writer at a time ──


async def test_a_second_gateway_waits_for_the_log_and_gives_up_in_one_sentence(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"a": _sink(path, "jsonl")}):
            with pytest.raises(SinkFailure) as caught:
                async with Gateway(
                    approvers=[StaticApprover("allow")],
                    sinks={"b": _sink(path, "jsonl", **{"lock-timeout": 0.2})},
                ):
                    pass
        # Once the first is closed, the log is free.
        async with Gateway(
            approvers=[StaticApprover("allow")], sinks={"c": _sink(path, "jsonl")}
        ) as gateway:
            assert (await gateway.review(make_call("ls"))).allowed
    assert str(caught.value) == (
        f"The audit log {str(path)!r} stayed locked by another gateway (process {os.getpid()}) "
        "for 0.2 s; only one may write it at a time."
    )
    assert verify_audit_log(path) is None


async def test_the_lock_names_its_holder_and_is_not_rewritten_when_it_already_does(
    tmp_path: Path,
) -> None:
    """A process that opens the log again (the warm hook worker, per burst) finds its own id."""
    path = tmp_path / "audit.jsonl"
    lock = lock_path(path)
    lock.write_bytes(b"999999999\n")  # a writer that has gone
    await _run(path, "jsonl", ["ls"])
    assert lock.read_bytes() == f"{os.getpid()}\n".encode()
    os.utime(lock, ns=(10**18, 10**18))
    await _run(path, "jsonl", ["ls"])
    assert lock.stat().st_mtime_ns == 10**18
    assert lock.read_bytes() == f"{os.getpid()}\n".encode()
    assert verify_audit_log(path) is None


async def test_writers_that_take_turns_keep_one_unbroken_chain(tmp_path: Path) -> None:
    """Ten gateways open the same log at once; each waits its turn; one chain results."""
    path = tmp_path / "audit.jsonl"
    with anyio.fail_after(BOUND * 3):
        async with anyio.create_task_group() as group:
            for index in range(10):
                group.start_soon(_run, path, "jsonl", [f"echo {index}"])
    events = list(read_audit_log(path))
    assert verify_audit_log(path) is None
    assert tags(events).count("gateway.started") == 10
    assert tags(events).count("chain.genesis") == 1


# ── continuing after a crash ──


@pytest.mark.parametrize("plugin", FORMATS)
async def test_opening_reads_only_the_ends_of_the_log(
    tmp_path: Path, plugin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Continuing a log never reads every record (a hook opens it once per call)."""
    path = tmp_path / f"audit.{plugin}"
    await _run(path, plugin, ["ls"] * 20)
    import gateway._record._auditlog as auditlog

    def refuse(*arguments: Any) -> Any:
        raise AssertionError("the whole log was read")

    monkeypatch.setattr(auditlog, "iter_records", refuse)
    monkeypatch.setattr(auditlog, "read_audit_log", refuse)
    await _run(path, plugin, ["pwd"])
    monkeypatch.undo()
    assert verify_audit_log(path) is None


@pytest.mark.parametrize("plugin", FORMATS)
async def test_a_torn_last_record_is_set_aside_recorded_and_the_chain_goes_on(
    tmp_path: Path, plugin: str
) -> None:
    path = tmp_path / f"audit.{plugin}"
    await _run(path, plugin, ["ls", "pwd"])
    whole = path.read_bytes()
    last = list(read_audit_log(path))[-1]
    torn = b'{"event":"call.proposed","seq":99' if plugin == "jsonl" else b"\x00\x00\x01\x00\x82"
    path.write_bytes(whole + torn)  # what a crash mid-write leaves
    verdicts = await _run(path, plugin, ["whoami"])
    events = list(read_audit_log(path))
    recovered = [e for e in events if isinstance(e, LogRecovered)]
    aside = sorted(tmp_path.glob(f"audit.{plugin}.torn-*"))  # noqa: ASYNC240 -- the test's own directory
    assert verdicts[0].allowed
    assert verify_audit_log(path) is None
    assert len(recovered) == 1
    assert recovered[0].torn_bytes == len(torn)
    assert recovered[0].last_seq == last.seq
    assert recovered[0].set_aside == str(aside[0])
    assert recovered[0].found.startswith(
        f"The log ended in {len(torn)} bytes that are not a whole record, after the record "
        f"with sequence number {last.seq}:"
    )
    assert aside[0].read_bytes() == torn
    assert path.read_bytes().startswith(whole)


async def test_a_log_that_ends_without_its_closing_record_says_so_on_restart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    await _run(path, "jsonl", ["ls"])
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))  # killed between two writes
    await _run(path, "jsonl", ["pwd"])
    recovered = [e for e in read_audit_log(path) if isinstance(e, LogRecovered)]
    assert verify_audit_log(path) is None
    assert [r.found for r in recovered] == [
        f"The log ended after the record with sequence number {len(lines) - 2} without its "
        "gateway's closing record: the gateway that wrote it crashed or was killed."
    ]
    assert recovered[0].torn_bytes == 0


@pytest.mark.parametrize(
    "content",
    [b"this is not an audit log\n" * 10, b"\x00" * 4096, b'{"event":"gateway.started"}\n'],
    ids=["text", "zeros", "not-a-record"],
)
async def test_a_file_that_is_no_log_is_refused_in_one_sentence(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_bytes(content)
    with anyio.fail_after(BOUND), pytest.raises(SinkFailure) as caught:
        await _run(path, "jsonl", ["ls"])
    assert str(caught.value).startswith(f"The audit log {str(path)!r} cannot be continued: ")
    assert str(caught.value).endswith("check it with `gateway verify`.")
    assert path.read_bytes() == content  # nothing was changed


async def test_a_disk_that_fills_mid_write_leaves_no_partial_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write is cut short by ENOSPC: the part that reached the file is taken back."""
    path = tmp_path / "audit.jsonl"
    await _run(path, "jsonl", ["ls"])
    size = path.stat().st_size
    real = os.write

    def full(descriptor: int, data: Any) -> int:
        if descriptor > 2 and len(data) > 20:
            real(descriptor, bytes(data[:10]))  # part of it lands, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(descriptor, data)

    # Every write of the process goes through it; only the log's batches are large.
    monkeypatch.setattr(os, "write", full)
    verdicts = await _run(path, "jsonl", ["pwd", "whoami"])
    monkeypatch.undo()
    assert [v.decision for v in verdicts] == ["decline", "decline"]
    assert path.stat().st_size == size  # nothing of the failed session stayed
    assert read_tail(path).torn == 0
    assert verify_audit_log(path, allow_open=True) is None


# ── where the writes are made ──


class _Counting(JsonLinesSink):
    """The real log sink, counting the batches it writes through the worker thread."""

    def __init__(self, path: Path, **options: Any) -> None:
        super().__init__(SinkConfig(plugin="jsonl", path=str(path), required=True, options=options))
        self.threaded = 0

    def _append(self, data: bytes, ends: list[tuple[int, int]]) -> None:
        self.threaded += 1
        super()._append(data, ends)


async def _review_all(sink: JsonLinesSink, commands: list[str]) -> list[Any]:
    with anyio.fail_after(RUN):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"audit": sink}) as gateway:
            return [
                await gateway.review(make_call(command, call_id=f"c{index}"))
                for index, command in enumerate(commands)
            ]


async def test_small_batches_to_a_local_file_are_written_without_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log in memory without fsync takes small batches from the loop; every record is there before its verdict."""
    # A busy machine may pause any write: here no pause sends the writes away.
    monkeypatch.setattr(gateway_audit, "INLINE_STRIKES", 1_000_000)
    monkeypatch.setattr(gateway_audit, "_filesystem", lambda device: "tmpfs")
    path = tmp_path / "audit.jsonl"
    sink = _Counting(path)
    verdicts = await _review_all(sink, ["ls", "pwd", "whoami"])
    assert [v.decision for v in verdicts] == ["allow"] * 3
    assert sink.inline
    assert sink.threaded == 0
    released = {
        event.call_id: event.verdict.decision
        for event in read_audit_log(path)
        if isinstance(event, VerdictReached)
    }
    assert released == {"c0": "allow", "c1": "allow", "c2": "allow"}
    assert verify_audit_log(path) is None


@pytest.mark.parametrize(
    "options",
    [pytest.param({"fsync": True}, id="fsync"), pytest.param({"inline": False}, id="inline-off")],
)
async def test_a_log_that_syncs_or_says_so_is_written_in_the_thread(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    """With ``fsync = true`` (a sync may wait on the disk) or ``inline = false``, every batch goes to the thread."""
    path = tmp_path / "audit.jsonl"
    sink = _Counting(path, **options)
    verdicts = await _review_all(sink, ["ls", "pwd"])
    assert [v.decision for v in verdicts] == ["allow"] * 2
    assert not sink.inline
    assert sink.threaded >= 2
    assert verify_audit_log(path) is None


@pytest.mark.parametrize("filesystem", ["nfs4", "ext4", "xfs", "fuse", None])
async def test_a_log_on_a_filesystem_not_held_in_memory_is_written_in_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filesystem: str | None
) -> None:
    """A disk, network or user-space filesystem (or one the mount table does not name) may block: the thread writes."""
    monkeypatch.setattr(gateway_audit, "_filesystem", lambda device: filesystem)
    path = tmp_path / "audit.jsonl"
    sink = _Counting(path)
    await _review_all(sink, ["ls"])
    assert not sink.inline
    assert sink.threaded >= 1


async def test_slow_inline_writes_send_the_next_ones_to_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory that answers slowly, write after write: the loop stops writing after a few and leaves it to the thread."""
    monkeypatch.setattr(gateway_audit, "_filesystem", lambda device: "tmpfs")
    path = tmp_path / "audit.jsonl"
    sink = _Counting(path)
    real = os.write

    def slow(descriptor: int, data: Any) -> int:
        if (
            descriptor > 2
            and len(data) > 20
            and threading.current_thread() is threading.main_thread()
        ):
            time.sleep(gateway_audit.INLINE_SLOW * 2)
        return real(descriptor, data)

    monkeypatch.setattr(os, "write", slow)
    commands = [f"echo {index}" for index in range(gateway_audit.INLINE_STRIKES + 3)]
    verdicts = await _review_all(sink, commands)
    monkeypatch.undo()
    assert [v.decision for v in verdicts] == ["allow"] * len(commands)
    assert sink.threaded >= 2  # after the strikes, the rest went to the thread
    assert verify_audit_log(path) is None


# ── never more than callers were told ──


class _SlowLog(JsonLinesSink):
    """
    A log whose writes block (a hung disk) once `slow` is set: they land after the verdict gave up.

    Its writes go through the worker thread (``inline = false``), as every
    write that may wait does: a sync, a disk that is not local, a large batch.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(
            SinkConfig(plugin="jsonl", path=str(path), required=True, options={"inline": False})
        )
        self.slow = threading.Event()
        self.landed = threading.Event()

    def _append(self, data: bytes, ends: list[tuple[int, int]]) -> None:
        if self.slow.is_set():
            time.sleep(0.5)  # the audit timeout passes meanwhile
        try:
            super()._append(data, ends)
        finally:
            if self.slow.is_set():
                self.landed.set()


async def test_a_verdict_whose_record_lands_too_late_is_declined_and_the_late_record_taken_back(
    tmp_path: Path,
) -> None:
    """
    The record of an allow reaches the disk after the audit timeout: the caller
    was told decline, so the fence cuts the log right after the last verdict
    released, and the log never says allow for it.
    """
    path = tmp_path / "audit.jsonl"
    sink = _SlowLog(path)
    with anyio.fail_after(BOUND):
        async with Gateway(
            config(audit_timeout=0.1), approvers=[StaticApprover("allow")], sinks={"audit": sink}
        ) as gateway:
            first = await gateway.review(make_call("ls", call_id="first"))
            sink.slow.set()
            late = await gateway.review(make_call("pwd", call_id="late"))
            after = await gateway.review(make_call("whoami", call_id="after"))
            halted = gateway.statistics().halted
        await anyio.to_thread.run_sync(sink.landed.wait, BOUND)
        for _ in range(100):  # the fence truncates in the background
            if not of_call(read_audit_log(path), "late"):
                break
            await anyio.sleep(0.02)
    assert first.allowed
    assert late.decision == after.decision == "decline"
    assert late.reason.startswith(
        "The audit record could not be written (sink 'audit' did not write"
    )
    assert halted is not None
    events = list(read_audit_log(path))
    assert of_call(events, "late") == []
    assert of_call(events, "after") == []
    assert tags(of_call(events, "first"))[-1] == "verdict.reached"
    assert verify_audit_log(path, allow_open=True) is None


async def test_when_one_of_two_required_sinks_fails_the_other_records_the_withdrawal() -> None:
    good, bad = MemorySink(), MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")], sinks={"good": good, "bad": bad}
        ) as gateway:
            assert (await gateway.review(make_call("ls", call_id="a"))).allowed
            bad.fail = True
            verdict = await gateway.review(make_call("pwd", call_id="b"))
    assert verdict.decision == "decline"
    events = of_call(good.events, "b")
    assert tags(events)[-2:] == ["verdict.reached", "verdict.withdrawn"]
    reached, withdrawn = events[-2], events[-1]
    assert isinstance(reached, VerdictReached)
    assert isinstance(withdrawn, VerdictWithdrawn)
    assert reached.verdict.decision == "allow"
    assert withdrawn.withdrawn == reached.seq
    assert withdrawn.released == verdict
    assert withdrawn.reason == verdict.reason


def _last_word(events: list[Any], call_id: str) -> str:
    """What the log says a call was told: its verdict record, unless a withdrawal followed; none is decline."""
    said = "decline"
    for event in of_call(events, call_id):
        if isinstance(event, VerdictReached) and event.question is None:
            said = event.verdict.decision
        elif isinstance(event, VerdictWithdrawn) and event.question is None:
            said = event.released.decision
    return said


def _allowing(sink: JsonLinesSink, timeout: float) -> Gateway:
    """A gateway that allows every call, recorded in ``sink`` alone, with the audit timeout ``timeout``."""
    return Gateway(
        config(audit_timeout=timeout), approvers=[StaticApprover("allow")], sinks={"audit": sink}
    )


class _StalledLoop(JsonLinesSink):
    """
    A log whose write of one call's verdict lands while the event loop is blocked past the audit timeout.

    The record reaches the disk in the worker thread; meanwhile `blocker`
    holds the loop (as an approver that claims to share it and sleeps does)
    until after the verdict's deadline, so when the loop runs again the
    thread's answer and the deadline are due together. Every write after that
    one never lands (a disk that hangs): whatever the gateway writes next — a
    withdrawal — cannot be what makes the log right.
    """

    def __init__(self, path: Path, call_id: str, stall: float) -> None:
        super().__init__(
            SinkConfig(plugin="jsonl", path=str(path), required=True, options={"inline": False})
        )
        self.call_id = call_id
        self.stall = stall
        self.writing = anyio.Event()
        self.holding = threading.Event()
        self.landed = threading.Event()
        self.frozen = False
        self.loop: anyio.lowlevel.EventLoopToken | None = None

    async def write_batch(self, events: Any) -> None:
        if self.frozen:
            await anyio.sleep_forever()
        self.frozen = any(
            isinstance(e, VerdictReached) and e.call_id == self.call_id for e in events
        )
        self.loop = anyio.lowlevel.current_token()
        await super().write_batch(events)

    def _append(self, data: bytes, ends: list[tuple[int, int]]) -> None:
        if not self.frozen:
            super()._append(data, ends)
            return
        anyio.from_thread.run_sync(self.writing.set, token=self.loop)  # the thread has the batch
        super()._append(data, ends)
        self.holding.wait(BOUND)  # the answer goes back only once the loop is held
        self.landed.set()

    async def blocker(self) -> None:
        await self.writing.wait()
        self.holding.set()
        self.landed.wait(BOUND)  # the loop is held until the record is on the disk...
        time.sleep(self.stall)  # noqa: ASYNC251 -- ...and then past the verdict's deadline


async def test_a_record_that_lands_while_the_loop_is_blocked_past_its_deadline_is_never_left_contradicting_the_verdict(
    tmp_path: Path,
) -> None:
    """
    The record of an allow is on the disk, but the loop sees it only after the
    audit deadline passed: the caller must be told what the log keeps. Here
    the log cannot take a withdrawal, so a decline must come with the record
    taken back, never with the allow left standing.
    """
    path = tmp_path / "audit.jsonl"
    timeout = 0.2
    sink = _StalledLoop(path, "late", stall=timeout * 2)
    with anyio.fail_after(RUN):
        async with _allowing(sink, timeout) as gateway:
            first = await gateway.review(make_call("ls", call_id="first"))
            async with anyio.create_task_group() as group:
                group.start_soon(sink.blocker)
                late = await gateway.review(make_call("pwd", call_id="late"))
            halted = gateway.statistics().halted
        for _ in range(100):  # the fence truncates in the background
            if _last_word(list(read_audit_log(path)), "late") == late.decision:
                break
            await anyio.sleep(0.02)
    events = list(read_audit_log(path))
    assert first.allowed
    assert _last_word(events, "first") == "allow"
    assert _last_word(events, "late") == late.decision
    if not late.allowed:
        assert halted is not None
    assert verify_audit_log(path, allow_open=True) is None


class _BusyLoop(JsonLinesSink):
    """
    A sound log on a loop too busy to see it: the writer thread writes one
    call's verdict record at once, then the loop is held (thousands of
    reviews' work at once) past the audit timeout before it sees the answer.
    """

    def __init__(self, path: Path, call_id: str, stall: float) -> None:
        super().__init__(
            SinkConfig(plugin="jsonl", path=str(path), required=True, options={"inline": False})
        )
        self.call_id = call_id
        self.stall = stall
        self.held = False
        self.holding = threading.Event()
        self.loop: anyio.lowlevel.EventLoopToken | None = None

    async def write_batch(self, events: Any) -> None:
        self.loop = anyio.lowlevel.current_token()
        await super().write_batch(events)

    def _append(self, data: bytes, ends: list[tuple[int, int]]) -> None:
        super()._append(data, ends)
        if not self.held and f'"{self.call_id}"'.encode() in data and b"verdict.reached" in data:
            # On the disk: the writer returns only once the loop is busy, for
            # longer than the audit timeout, so the loop sees the answer late.
            self.held = True
            threading.Thread(
                target=anyio.from_thread.run_sync, args=(self._hold,), kwargs={"token": self.loop}
            ).start()
            self.holding.wait(BOUND)

    def _hold(self) -> None:
        self.holding.set()
        time.sleep(self.stall)


async def test_a_sound_log_behind_a_busy_loop_is_not_failed_and_its_verdicts_stand(
    tmp_path: Path,
) -> None:
    """
    The record of an allow is on the disk at once, but the loop sees that
    only after the audit timeout (it was busy, not the disk): the log's own
    writer says it wrote the batch, so the sink is not fenced, the gateway
    does not halt, and the allow stands, recorded — rather than every log of
    a burst cut back and every verdict after it declined.
    """
    path = tmp_path / "audit.jsonl"
    timeout = 0.2
    sink = _BusyLoop(path, "busy", stall=timeout * 3)
    with anyio.fail_after(RUN):
        async with _allowing(sink, timeout) as gateway:
            busy = await gateway.review(make_call("pwd", call_id="busy"))
            after = await gateway.review(make_call("ls", call_id="after"))
            halted = gateway.statistics().halted
    events = list(read_audit_log(path))
    assert sink.held
    assert halted is None
    assert busy.allowed
    assert after.allowed
    assert _last_word(events, "busy") == _last_word(events, "after") == "allow"
    assert tags(events)[-1] == "gateway.stopped"
    assert verify_audit_log(path) is None


class _HoldsOne(MemorySink):
    """A required sink that never writes one call's verdict record (a broker that went away)."""

    def __init__(self, call_id: str) -> None:
        super().__init__()
        self.call_id = call_id

    async def write(self, event: Any) -> None:
        if isinstance(event, VerdictReached) and event.call_id == self.call_id:
            await anyio.sleep_forever()
        await super().write(event)


class _RefusesWithdrawals(JsonLinesSink):
    """A log that writes everything but a withdrawal, on which it hangs (a disk that stalls then)."""

    async def write_batch(self, events: Any) -> None:
        if any(isinstance(e, VerdictWithdrawn) for e in events):
            await anyio.sleep_forever()
        await super().write_batch(events)


async def test_a_verdict_whose_withdrawal_cannot_be_written_is_taken_back_with_it(
    tmp_path: Path,
) -> None:
    """
    Of two required sinks, one never writes the record of ``b``'s allow; the
    log wrote it in time, so ``b`` is declined and the allow withdrawn — but
    the log cannot write the withdrawal either. Its fence must then cut the
    log before ``b``'s allow (no verdict after it was released), not right
    after it, or the log would say allow for a call that was told decline.
    """
    path = tmp_path / "audit.jsonl"
    log = _RefusesWithdrawals(SinkConfig(plugin="jsonl", path=str(path), required=True))
    with anyio.fail_after(RUN):
        async with Gateway(
            config(audit_timeout=0.2),
            approvers=[StaticApprover("allow")],
            sinks={"log": log, "other": _HoldsOne("b")},
        ) as gateway:
            first = await gateway.review(make_call("ls", call_id="a"))
            declined = await gateway.review(make_call("pwd", call_id="b"))
            halted = gateway.statistics().halted
        for _ in range(100):  # the fence truncates in the background
            if _last_word(list(read_audit_log(path)), "b") == "decline":
                break
            await anyio.sleep(0.02)
    events = list(read_audit_log(path))
    assert first.allowed
    assert declined.decision == "decline"
    assert halted is not None
    assert _last_word(events, "a") == "allow"
    assert _last_word(events, "b") == "decline"
    assert "verdict.reached" not in tags(of_call(events, "b"))
    assert verify_audit_log(path, allow_open=True) is None


class _Fails(MemorySink):
    """Writes the events after the first once `gate` is set; fails on the event numbered `fail_at`."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.gate = anyio.Event()
        self.writing = anyio.Event()
        self.fail_at = fail_at
        self.fenced: list[int] = []

    async def write(self, event: Any) -> None:
        if event.seq > 0 and not self.gate.is_set():
            self.writing.set()
            await self.gate.wait()  # (once set, no checkpoint: the failure comes in the same step)
        if event.seq == self.fail_at:
            raise OSError("the disk is gone")
        await super().write(event)

    def fence(self, keep_through: int) -> None:
        self.fenced.append(keep_through)


async def test_a_verdict_written_in_time_is_not_released_once_a_fence_took_it_back() -> None:
    """
    ``z``'s record is written in time; before its review runs again, the sink
    fails on the withdrawal of an earlier verdict ``s``. The fence takes both
    back (nothing after ``s`` was released), so ``z``'s review must decline
    rather than release a verdict the log no longer holds.
    """
    sink = _Fails(fail_at=3)
    bus = EventBus(clock=lambda: "now", buffer=64, sink_timeout=BOUND)
    bus.add_sink(resolve_sink("log", sink, required=True))
    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            bus.start(group)
            genesis = bus.publish_nowait(ChainGenesis(chain="c", algorithm="none"))
            await bus.wait_written(genesis, BOUND)
            verdict = Verdict(decision="allow", reason="Fine.", digest="d")
            s = bus.publish_nowait(VerdictReached(call_id="x", verdict=verdict))
            z = bus.publish_nowait(VerdictReached(call_id="z", verdict=verdict))
            outcome: list[str] = []
            done = anyio.Event()

            async def release_z(*, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
                task_status.started()
                try:
                    await bus.wait_written(z, BOUND)
                    outcome.append("released")
                except SinkFailure:
                    outcome.append("declined")
                finally:
                    done.set()

            await group.start(release_z)
            await sink.writing.wait()  # the sink has s and z in hand
            # x is declined instead: its allow is withdrawn, in a record queued behind z's.
            bus.withdrawing(s)
            withdrawal = bus.publish_nowait(
                VerdictWithdrawn(call_id="x", withdrawn=s, reason="No.", released=verdict)
            )
            assert withdrawal == sink.fail_at
            sink.gate.set()
            await done.wait()
            await bus.close()
            group.cancel_scope.cancel()
    assert outcome == ["declined"]
    assert sink.fenced == [s - 1]
    assert bus.halted is not None


class _NotYet:
    """A thread that has not run yet when it is needed (a busy machine schedules it late)."""

    def __init__(self, **_: Any) -> None:
        pass

    def start(self) -> None:
        pass


async def test_a_fence_whose_cut_has_not_run_yet_is_made_when_the_log_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fence cuts the log from a thread; if the log closes first, closing cuts it."""
    path = tmp_path / "audit.jsonl"
    sink = _sink(path, "jsonl", inline=False)
    with anyio.fail_after(BOUND):
        await sink.open()
        for seq in range(3):
            await sink.write_batch(
                [CallOutcome(seq=seq, time="now", call_id=f"c{seq}", outcome="succeeded")]
            )
        monkeypatch.setattr(threading, "Thread", _NotYet)
        sink.fence(0)
        monkeypatch.undo()
        await sink.aclose()
    assert [event.call_id for event in read_audit_log(path)] == ["c0"]


# ── the writer thread ──


class _StuckLog(JsonLinesSink):
    """A log on a disk that freezes once `stuck` is set: a write blocks in its thread until `release`."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            SinkConfig(plugin="jsonl", path=str(path), required=True, options={"inline": False})
        )
        self.stuck = threading.Event()
        self.blocked = threading.Event()
        self.release = threading.Event()

    def _append(self, data: bytes, ends: list[tuple[int, int]]) -> None:
        if self.stuck.is_set():
            self.blocked.set()
            self.release.wait(BOUND)
        super()._append(data, ends)


def _writer_thread(sink: JsonLinesSink) -> threading.Thread:
    thread = sink._writer.thread if sink._writer is not None else None
    assert thread is not None
    return thread


def _is_open(sink: JsonLinesSink) -> bool:
    return sink._fd is not None


async def test_a_write_stuck_past_the_audit_timeout_declines_while_the_loop_goes_on(
    tmp_path: Path,
) -> None:
    """
    The disk freezes under an allow's record: the review is declined at the
    audit timeout while the write is still stuck (so the loop never waited on
    it), the gateway halts, and once the disk thaws the late record is cut.
    """
    path = tmp_path / "audit.jsonl"
    sink = _StuckLog(path)
    try:
        with anyio.fail_after(BOUND):
            async with Gateway(
                config(audit_timeout=0.2),
                approvers=[StaticApprover("allow")],
                sinks={"audit": sink},
            ) as gateway:
                assert (await gateway.review(make_call("ls", call_id="first"))).allowed
                sink.stuck.set()
                late = await gateway.review(make_call("pwd", call_id="late"))
                still_blocked = sink.blocked.is_set() and not sink.release.is_set()
                after = await gateway.review(make_call("whoami", call_id="after"))
                halted = gateway.statistics().halted
    finally:
        sink.release.set()
    await anyio.to_thread.run_sync(_writer_thread(sink).join, BOUND)
    assert still_blocked
    assert late.decision == after.decision == "decline"
    assert late.reason.startswith(
        "The audit record could not be written (sink 'audit' did not write"
    )
    assert halted is not None
    for _ in range(100):  # the fence truncates in the background
        if not of_call(read_audit_log(path), "late"):
            break
        await anyio.sleep(0.02)
    events = list(read_audit_log(path))
    assert of_call(events, "late") == []
    assert tags(of_call(events, "first"))[-1] == "verdict.reached"
    assert verify_audit_log(path, allow_open=True) is None


async def test_closing_with_a_writer_stuck_in_a_write_is_bounded_and_the_log_closes_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway stops while its log's write is stuck: closing returns; the writer closes the log when the write does."""
    monkeypatch.setattr(gateway_audit, "CLOSE_PATIENCE", 0.2)
    path = tmp_path / "audit.jsonl"
    sink = _StuckLog(path)
    try:
        with anyio.fail_after(BOUND):
            async with Gateway(
                config(audit_timeout=0.2),
                approvers=[StaticApprover("allow")],
                sinks={"audit": sink},
            ) as gateway:
                assert (await gateway.review(make_call("ls", call_id="first"))).allowed
                sink.stuck.set()
                assert (await gateway.review(make_call("pwd", call_id="late"))).decision == (
                    "decline"
                )
        thread = _writer_thread(sink)
        assert thread.is_alive()  # still in the write: abandoned, not waited for
        assert _is_open(sink)  # the log stays open under the stuck write
    finally:
        sink.release.set()
    await anyio.to_thread.run_sync(thread.join, BOUND)
    assert not thread.is_alive()
    assert not _is_open(sink)  # closed by the writer once the write returned
    with pytest.raises(SinkFailure, match="the sink is closed"):
        await sink.write_batch([])


async def test_closing_joins_the_writer_thread(tmp_path: Path) -> None:
    """A log closed in the ordinary way leaves no thread behind."""
    path = tmp_path / "audit.jsonl"
    sink = _Counting(path, inline=False)
    await _review_all(sink, ["ls"])
    assert sink.threaded >= 1
    assert not _writer_thread(sink).is_alive()
    assert not _is_open(sink)
    assert verify_audit_log(path) is None


async def test_a_full_disk_in_the_writer_thread_fails_the_sink_with_the_disk_s_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC raised in the writer thread reaches the review: declined, with the error, and the gateway halts."""
    path = tmp_path / "audit.jsonl"
    sink = _Counting(path, inline=False)
    real = os.write
    filled = threading.Event()

    def full(descriptor: int, data: Any) -> int:
        if filled.is_set() and threading.current_thread() is _writer_thread(sink):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(descriptor, data)

    monkeypatch.setattr(os, "write", full)
    with anyio.fail_after(RUN):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"audit": sink}) as gateway:
            first = await gateway.review(make_call("ls", call_id="first"))
            filled.set()
            second = await gateway.review(make_call("pwd", call_id="second"))
            halted = gateway.statistics().halted
    monkeypatch.undo()
    assert first.allowed
    assert second.decision == "decline"
    reason = "sink 'audit' failed to write (OSError: [Errno 28] No space left on device)"
    assert second.reason == (
        f"The audit record could not be written ({reason}), and there is no action without audit."
    )
    assert halted == reason
    assert not _writer_thread(sink).is_alive()
    assert of_call(list(read_audit_log(path)), "second") == []
    assert verify_audit_log(path, allow_open=True) is None


def test_a_forked_child_does_not_write_its_parent_s_log(tmp_path: Path) -> None:
    """After a fork the writer thread is the parent's: the child's sink refuses to write, and closes only its copies."""
    path = tmp_path / "audit.jsonl"
    sink = _Counting(path, inline=False)

    async def child() -> str:
        try:
            await sink.write_batch([])
        except SinkFailure as failure:
            await sink.aclose()
            return str(failure)
        return "written"

    anyio.run(sink.open)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        os.close(read)
        try:
            said = anyio.run(child)
        except BaseException as error:  # noqa: BLE001 -- reported to the parent
            said = repr(error)
        os.write(write, said.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        said = answer.read().decode()
    os.waitpid(pid, 0)
    assert said.startswith("the sink is closed, or belongs to the process that opened it")
    assert _writer_thread(sink).is_alive()  # the parent's writer is untouched
    anyio.run(sink.aclose)
    assert not _writer_thread(sink).is_alive()
    assert not _is_open(sink)


async def test_verify_tells_a_log_its_gateway_is_writing_from_one_cut_short(
    tmp_path: Path,
) -> None:
    """
    While its gateway runs, a log ends without its closing record: `gateway
    verify` (another process) says a running gateway is writing it, naming
    the process, rather than calling it broken. The same open end with no
    gateway holding the log is a crash or a cut, and says so.
    """
    path = tmp_path / "audit.jsonl"
    with anyio.fail_after(RUN):
        async with Gateway(
            approvers=[StaticApprover("allow")], sinks={"audit": _sink(path, "jsonl")}
        ) as gateway:
            assert (await gateway.review(make_call("ls", call_id="live"))).allowed
            assert log_writer(path) == os.getpid()
            live = await _verify_cli(path)
            opened = await _verify_cli(path, "--open")
    assert (live["intact"], live["kind"], live["writer"]) == (False, "live", os.getpid())
    assert live["verdict"].startswith("The log is intact so far, ")
    assert f"process {os.getpid()} is writing it" in live["verdict"]
    assert (opened["intact"], opened["writer"]) == (True, os.getpid())
    assert opened["verdict"].endswith(f"; process {os.getpid()} is writing it.")

    assert log_writer(path) is None
    assert (await _verify_cli(path))["intact"]
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))  # the closing record cut off
    cut = await _verify_cli(path)
    assert (cut["intact"], cut["kind"], cut["writer"]) == (False, "unfinished", None)
    assert "no gateway is writing it" in cut["verdict"]
    accepted = await _verify_cli(path, "--open")
    assert accepted["intact"]
    assert accepted["verdict"].endswith("no gateway is writing it.")


async def _verify_cli(path: Path, *flags: str) -> Any:
    """`gateway verify --json` as a user runs it, in a process of its own; its report."""
    with anyio.fail_after(BOUND):
        result = await anyio.run_process(
            [sys.executable, "-m", "gateway._cli", "verify", str(path), "--json", *flags],
            check=False,
        )
    report = json.loads(result.stdout)
    assert result.returncode == (0 if report["intact"] else 1)
    return report


async def test_the_default_log_lives_in_the_state_directory_out_of_the_agent_s_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """
    The default config's relative log path puts the log in the state
    directory, never in the workspace the gateway runs in (where `ls`, `git
    status` and `grep` would show it to the model); `gateway verify` finds it
    by that name from the workspace; and the default policy treats it as a
    persistence point: an agent's write to it is declined, its deletion
    never allowed.
    """
    home = tmp_path / "home"
    workspace = home / "project"
    workspace.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.chdir(workspace)
    log = home / ".local" / "state" / "agent-gateway" / "gateway-audit.jsonl"
    embedded = default_config()
    default = embedded.sinks["audit"]
    assert default.path == "gateway-audit.jsonl"
    # Signed and witnessed as the embedded default does: `gateway verify` checks both.
    settings = msgspec.structs.replace(
        config(sinks={"audit": default}), audit=embedded.audit, witnesses=embedded.witnesses
    )
    with anyio.fail_after(RUN):
        async with Gateway(settings, approvers=[StaticApprover("allow")]) as gateway:
            assert (await gateway.review(make_call("ls", call_id="where"))).allowed
    assert list(workspace.iterdir()) == []
    assert of_call(read_audit_log(log), "where")
    report = await _verify_cli(Path("gateway-audit.jsonl"))
    assert (report["intact"], report["file"]) == (True, str(log))

    calls = "".join(
        json.dumps({"id": name, "cmd": command}) + "\n"
        for name, command in [
            ("truncate", f": > {log}"),
            ("append", "echo forged >> ~/.local/state/agent-gateway/gateway-audit.jsonl"),
            ("rewrite", f"sed -i 1d {log}"),
            ("delete", "rm ~/.local/state/agent-gateway/gateway-audit.jsonl"),
        ]
    )
    with anyio.fail_after(BOUND):
        result = await anyio.run_process(
            [sys.executable, "-m", "gateway._cli", "check"], input=calls.encode(), check=False
        )
    verdicts = {row["id"]: row["decision"] for row in map(json.loads, result.stdout.splitlines())}
    assert {verdicts[name] for name in ("truncate", "append", "rewrite")} == {"decline"}
    assert verdicts["delete"] != "allow"
