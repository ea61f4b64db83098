"""
The audit log on disk: its two formats, reading it, continuing it after a crash, and checking it.

Two formats, chosen by the file's name, so that every tool reads a log the
same way: JSON lines (``.jsonl``; one event per line) and MessagePack
(``.msgpack`` or ``.mpk``; each event a 4-byte big-endian length, then the
encoded event). A record is exactly the bytes `encode_event` gives: anything
else in its place — a reordered or duplicated key, extra spaces, another
escape — is not a record the gateway wrote, and `check_audit_log` says so.

`read_tail` is what a sink needs to continue a log: its first record (the
chain's start), its last whole record (the tip), and how many bytes after it
a crash left torn. It reads the ends of the file, not the whole of it.

`check_audit_log` checks what an outsider can: every digest, link and
sequence number; that the log starts where its chain starts; with the key,
every signature and that every record is covered by a signed checkpoint;
with a witness's copy of the checkpoints, that the log was not cut short
after one of them. Its verdict is one sentence.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Final, Literal, NamedTuple

import msgspec

from gateway._calls._errors import AuditLogError
from gateway._calls._events import (
    GENESIS,
    ChainBreak,
    ChainCheckpoint,
    ChainGenesis,
    Event,
    GatewayStarted,
    GatewayStopped,
    LogRecovered,
    event_digest,
    signed_digest,
)
from gateway._calls._text import error_detail
from gateway._record._signing import Verifier

__all__ = [
    "AuditFormat",
    "AuditReport",
    "LogTail",
    "Record",
    "audit_format",
    "check_audit_log",
    "encode_event",
    "ended_cleanly",
    "iter_records",
    "read_audit_log",
    "read_tail",
    "verify_audit_log",
]

AuditFormat = Literal["jsonl", "msgpack"]

_FRAME: Final = struct.Struct(">I")
_JSON: Final = msgspec.json.Encoder()
_MSGPACK: Final = msgspec.msgpack.Encoder()
_JSON_DECODER: Final = msgspec.json.Decoder(Event)
_MSGPACK_DECODER: Final = msgspec.msgpack.Decoder(Event)
_CHECKPOINTS: Final = msgspec.json.Decoder(ChainGenesis | ChainCheckpoint)

TAIL_WINDOW: Final = 16 * 1024 * 1024
"""Bytes at the end of a log searched for its last whole record (more than any one write)."""

_CHUNK: Final = 1 << 20


def audit_format(path: str | Path) -> AuditFormat:
    """The log format of a file, by its name: ``.msgpack``/``.mpk`` is MessagePack, else JSON lines."""
    return "msgpack" if str(path).endswith((".msgpack", ".mpk")) else "jsonl"


def encode_event(event: Event, audit_format: str) -> bytes:
    """Encode one event as a record of the given log format (``jsonl`` or ``msgpack``)."""
    if audit_format == "jsonl":
        return _JSON.encode(event) + b"\n"
    payload = _MSGPACK.encode(event)
    return _FRAME.pack(len(payload)) + payload


class Record(msgspec.Struct, frozen=True):
    """
    One record of a log as read: where it is, its bytes, and its event or what is wrong with it.

    ``torn`` marks the last bytes of a file that end before the record does
    (a write cut short).
    """

    index: int
    offset: int
    data: bytes
    event: Event | None
    problem: str | None
    torn: bool = False


def _decode(data: bytes, fmt: AuditFormat) -> tuple[Event | None, str | None]:
    """The event a record holds, or why it holds none (undecodable, or not as the gateway writes it)."""
    try:
        event = _JSON_DECODER.decode(data) if fmt == "jsonl" else _MSGPACK_DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        detail = error_detail(error)
        return None, f"it is not a gateway event ({detail})"
    canonical = _JSON.encode(event) if fmt == "jsonl" else _MSGPACK.encode(event)
    if canonical != data:
        return event, (
            "its bytes are not the gateway's encoding of what it says "
            "(a key repeated, reordered or respelt, or spacing changed)"
        )
    return event, None


def _split(data: bytes, fmt: AuditFormat, base: int = 0) -> Iterator[tuple[int, bytes, bool]]:
    """``(offset, payload, torn)`` of each record in ``data`` (offsets from ``base``)."""
    if fmt == "jsonl":
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            if end < 0:
                yield base + start, data[start:], True
                return
            yield base + start, data[start:end], False
            start = end + 1
        return
    offset = 0
    while offset < len(data):
        if offset + _FRAME.size > len(data):
            yield base + offset, data[offset:], True
            return
        (size,) = _FRAME.unpack_from(data, offset)
        start = offset + _FRAME.size
        if start + size > len(data):
            yield base + offset, data[offset:], True
            return
        yield base + offset, data[start : start + size], False
        offset = start + size


def iter_records(path: str | Path) -> Iterator[Record]:
    """
    Every record of a log, in order, with its event or its problem (nothing is raised for a bad record).

    Raises:
        OSError: The file cannot be read.
    """
    fmt = audit_format(path)
    data = Path(path).read_bytes()
    for index, (offset, payload, torn) in enumerate(_split(data, fmt)):
        if torn:
            yield Record(index, offset, payload, None, "the record is cut short", torn=True)
            return
        event, problem = _decode(payload, fmt)
        yield Record(index, offset, payload, event, problem)


def read_audit_log(path: str | Path) -> Iterator[Event]:
    """
    Read the events of an audit log, in order.

    Raises:
        AuditLogError: A record is malformed, not as the gateway writes it, or
            cut short (names the record).
        OSError: The file cannot be read.
    """
    for record in iter_records(path):
        if record.problem is not None or record.event is None:
            raise AuditLogError(record.index, record.problem or "it holds no event")
        yield record.event


# ── continuing a log ──


class LogTail(NamedTuple):
    """
    The ends of a log: what a sink needs to continue its chain.

    Attributes:
        first: The first record (``None`` for an empty log).
        last: The last whole record that holds a valid event.
        end: The byte offset just after ``last`` (0 for an empty log).
        size: The file's size.
    """

    first: Event | None
    last: Event | None
    end: int
    size: int

    @property
    def torn(self) -> int:
        """Bytes after the last whole record (a write cut short, or garbage)."""
        return self.size - self.end


def _valid(event: Event | None, problem: str | None) -> bool:
    return event is not None and problem is None and event_digest(event) == event.digest


def read_tail(path: str | Path) -> LogTail:
    """
    The first and last whole records of a log, reading only its ends (JSON lines).

    A MessagePack log has no way back from its end, so its record headers are
    walked from the start (each payload skipped, only the candidates decoded).

    Raises:
        AuditLogError: The file holds bytes but no whole record near its end
            (it is not a log a crash left behind: check it with ``gateway verify``).
        OSError: The file cannot be read.
    """
    fmt = audit_format(path)
    with open(path, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        if size == 0:
            return LogTail(None, None, 0, 0)
        first = _first_record(stream, fmt)
        found = _last_jsonl(stream, size) if fmt == "jsonl" else _last_msgpack(stream, size)
    if found is None:
        raise AuditLogError(
            0,
            f"no whole record was found in its last {min(size, TAIL_WINDOW)} bytes, so it was "
            "not cut short by a crash; check it with `gateway verify`",
        )
    last, end = found
    return LogTail(first, last, end, size)


def _first_record(stream: BinaryIO, fmt: AuditFormat) -> Event | None:
    read = stream.read
    stream.seek(0)
    head = read(_CHUNK)
    while fmt == "jsonl" and b"\n" not in head and len(head) < TAIL_WINDOW:
        more = read(_CHUNK)
        if not more:
            break
        head += more
    for _, payload, torn in _split(head, fmt):
        if torn:
            return None
        event, problem = _decode(payload, fmt)
        return event if problem is None else None
    return None


def _last_jsonl(stream: BinaryIO, size: int) -> tuple[Event, int] | None:
    window = min(size, TAIL_WINDOW)
    stream.seek(size - window)
    data = stream.read(window)
    base = size - window
    end = len(data)
    # Walk back over newline-terminated lines: the last one that holds a
    # valid event is the tip; everything after it is what a crash tore.
    cut = data.rfind(b"\n", 0, end)
    while cut >= 0:
        start = data.rfind(b"\n", 0, cut) + 1
        if start == 0 and base > 0:
            return None  # the line may begin before the window: not a crash's tail
        event, problem = _decode(data[start:cut], "jsonl")
        if _valid(event, problem) and event is not None:
            return event, base + cut + 1
        cut = start - 1
    return None


def _last_msgpack(stream: BinaryIO, size: int) -> tuple[Event, int] | None:
    offsets: list[tuple[int, int]] = []
    offset = 0
    read = stream.read
    while offset + _FRAME.size <= size:
        stream.seek(offset)
        header = read(_FRAME.size)
        (length,) = _FRAME.unpack(header)
        if offset + _FRAME.size + length > size:
            break
        offsets.append((offset, length))
        offset += _FRAME.size + length
    for start, length in reversed(offsets):
        if size - start > TAIL_WINDOW:
            return None
        stream.seek(start + _FRAME.size)
        event, problem = _decode(read(length), "msgpack")
        if _valid(event, problem) and event is not None:
            return event, start + _FRAME.size + length
    return None


def ended_cleanly(event: Event | None) -> bool:
    """Whether a log whose last record is ``event`` was closed by its gateway (or is empty)."""
    return (
        event is None
        or isinstance(event, GatewayStopped)
        or (isinstance(event, ChainCheckpoint) and event.final)
    )


# ── checking a log ──


def lock_path(path: str | Path) -> Path:
    """The lock beside a log (``<log>.lock``) its writer holds from opening it to closing it."""
    return Path(f"{path}.lock")


def log_writer(path: str | Path) -> int | None:
    """
    The process id of the gateway writing the log now (holding its lock), or ``None`` when none is.

    Asked without waiting and without taking the lock from a writer: a
    shared lock that cannot be had means an exclusive one is held. The id
    is what the writer wrote into the lock (0 when it wrote none).
    """
    try:
        descriptor = os.open(lock_path(path), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None  # no lock: no gateway ever wrote it, or not one that locks
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip()
            return int(holder) if holder.isdigit() else 0
        except OSError:
            return None
        with contextlib.suppress(OSError):
            fcntl.flock(descriptor, fcntl.LOCK_UN)
        return None
    finally:
        os.close(descriptor)


BreakKind = Literal["tampered", "torn", "unfinished", "truncated", "unsigned", "empty", "live"]

AuditCheck = Literal["chain", "signature", "witness"]
"""
Which check found a problem: ``chain`` (the encoding, digests, links,
sequence numbers and closing record anyone can recompute), ``signature`` (the
key's signatures and what they cover), ``witness`` (the checkpoints a witness kept).
"""


class AuditReport(msgspec.Struct, frozen=True, kw_only=True):
    """
    What `check_audit_log` found.

    Attributes:
        intact: Whether the log passed every check asked for.
        verdict: One sentence saying so, or naming the first problem and what it means.
        records: Records read.
        sessions: Gateways that wrote to it (``gateway.started`` records).
        checkpoints: Signed checkpoints whose signature holds (with a key).
        recoveries: ``log.recovered`` records: crashes the next gateway recovered from.
        key: The id of the key the signatures were checked with, if any.
        problem: The first problem, if any, with its kind: ``tampered``
            (edited, reordered, recomputed, records dropped or added),
            ``torn`` (the last record was cut short by a crash mid-write),
            ``unfinished`` (it ends without its gateway's closing record:
            a crash, a gateway still running, or its end cut off),
            ``truncated`` (a witness holds a checkpoint the log no longer
            has), ``unsigned`` (records no signature of the key covers),
            ``empty``, ``live`` (its end is open because a running gateway
            is writing it: intact so far, not broken).
        kind: The problem's kind, or ``None``.
        check: Which check found it (`AuditCheck`), or ``None``.
        witness: How many of this log's genesis and checkpoint records the
            witness holds, every one found in the log (``None`` without a witness).
        writer: The process id of the gateway writing the log as it was
            checked (`log_writer`), or ``None`` when none was.
    """

    intact: bool
    verdict: str
    records: int
    sessions: int
    checkpoints: int
    recoveries: int
    key: str | None = None
    problem: ChainBreak | None = None
    kind: BreakKind | None = None
    check: AuditCheck | None = None
    witness: int | None = None
    writer: int | None = None


class _Checker:
    def __init__(self, verifier: Verifier | None) -> None:
        self.verifier = verifier
        self.previous: Event | None = None
        self.first: Event | None = None
        self.sessions = 0
        self.checkpoints = 0
        self.recoveries = 0
        self.covered = -1  # index of the last record a valid checkpoint covers
        self.seen: dict[int, str] = {}
        # Which check the problem `check` returned last comes from.
        self.by: AuditCheck = "chain"

    def signature_problem(self, record: ChainGenesis | ChainCheckpoint) -> str | None:
        verifier = self.verifier
        if verifier is None:
            return None
        self.by = "signature"
        if record.algorithm != verifier.algorithm or record.key != verifier.key_id:
            return (
                f"it is signed by {record.key or 'no key'} ({record.algorithm}), "
                f"not by the key given ({verifier.key_id})"
            )
        if not verifier.verify(signed_digest(record).encode(), record.signature):
            return (
                "its signature does not hold: it was changed, or the chain before it was recomputed"
            )
        return None

    def check(self, index: int, event: Event) -> str | None:
        """The problem with this record given the ones before it, if any (found by `by`)."""
        self.by = "chain"
        if event_digest(event) != event.digest:
            return "its digest does not match its content"
        previous = self.previous
        if previous is None:
            if event.previous != GENESIS:
                return (
                    "it is the first record but names an earlier one: "
                    "the records before it were deleted"
                )
        else:
            if event.previous != previous.digest:
                return "it does not name the digest of the event before it"
            if event.seq != previous.seq + 1:
                return f"its sequence number follows {previous.seq} but is {event.seq}"
        if isinstance(event, ChainGenesis):
            if previous is not None:
                return "a chain.genesis record stands in the middle of the log"
            if self.verifier is not None:
                problem = self.signature_problem(event)
                if problem is not None:
                    return problem
                self.covered = index
        elif previous is None and self.verifier is not None:
            self.by = "signature"
            return "the log does not start with a signed chain.genesis record: its head was deleted or replaced"
        if isinstance(event, ChainCheckpoint):
            first = self.first if self.first is not None else event
            if event.genesis != first.digest:
                return "it belongs to another chain (its genesis is not this log's first record)"
            if event.covered != index:
                return f"it says {event.covered} records come before it, but {index} do"
            if self.verifier is not None:
                problem = self.signature_problem(event)
                if problem is not None:
                    return problem
                self.checkpoints += 1
                self.covered = index
        if isinstance(event, GatewayStarted):
            self.sessions += 1
        if isinstance(event, LogRecovered):
            self.recoveries += 1
        if self.first is None:
            self.first = event
        self.previous = event
        if isinstance(event, ChainGenesis | ChainCheckpoint):
            self.seen[event.seq] = event.digest
        return None


def _witnessed(path: str | Path, first: Event | None) -> list[ChainGenesis | ChainCheckpoint]:
    """
    The genesis and checkpoint records a file witness holds of the chain ``first`` starts, in order.

    A witness file may be shared by several chains (other logs, or a log that
    was started anew): only this chain's records are this log's to hold.
    """
    found: list[ChainGenesis | ChainCheckpoint] = []
    start = None if first is None else first.digest
    for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            held = _CHECKPOINTS.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise AuditLogError(
                number - 1, "the witness file holds a line that is not a checkpoint"
            ) from None
        chain = held.digest if isinstance(held, ChainGenesis) else held.genesis
        if chain == start:
            found.append(held)
    return found


def check_audit_log(
    path: str | Path,
    *,
    verifier: Verifier | None = None,
    witness: str | Path | None = None,
    allow_open: bool = False,
) -> AuditReport:
    """
    Check an audit log as an outsider can; the verdict is one sentence.

    Without a key: every record is exactly as the gateway writes it, hashes to
    its digest, names the digest of the one before it and carries the next
    sequence number; the first record starts the chain; the log ends with its
    gateway's closing record (unless ``allow_open``: its gateway still runs).
    With ``verifier``: the log starts with a ``chain.genesis`` that key signed,
    every checkpoint's signature holds, and every record is covered by one
    (unless ``allow_open``: then the records after the last checkpoint are
    only chained). With ``witness`` (a file a ``file`` witness wrote): every
    checkpoint the witness holds is in the log, unchanged.

    Raises:
        OSError: A file cannot be read.
        AuditLogError: The witness file is not a witness file.
    """
    checker = _Checker(verifier)
    count = 0
    witnessed: int | None = None
    last: Event | None = None
    key = verifier.key_id if verifier is not None else None
    writer = log_writer(path)
    writing = f"process {writer}" if writer else "a process"

    def report(
        kind: BreakKind,
        index: int,
        seq: int | None,
        reason: str,
        verdict: str,
        check: AuditCheck = "chain",
    ) -> AuditReport:
        return AuditReport(
            intact=False,
            verdict=verdict,
            records=count,
            sessions=checker.sessions,
            checkpoints=checker.checkpoints,
            recoveries=checker.recoveries,
            key=key,
            problem=ChainBreak(index=index, seq=seq, reason=reason),
            kind=kind,
            check=check,
            witness=witnessed,
            writer=writer,
        )

    for record in iter_records(path):
        count = record.index + 1
        if record.torn:
            return report(
                "torn",
                record.index,
                None,
                f"the last {len(record.data)} bytes are a record cut short",
                f"The log is intact up to record {record.index}, and its last "
                f"{len(record.data)} bytes are a record cut short: its gateway was killed "
                "or the disk filled while writing (the next gateway to open it sets them aside).",
            )
        event = record.event
        problem = record.problem
        if event is not None and problem is None:
            problem = checker.check(record.index, event)
        if problem is not None or event is None:
            reason = problem or "it holds no event"
            by = checker.by if record.problem is None else "chain"
            return report(
                "tampered",
                record.index,
                event.seq if event is not None else None,
                reason,
                f"Record {record.index + 1} breaks the log: {reason}; the log was changed after "
                f"it was written (found by the {by} check).",
                by,
            )
        last = event
    if last is None:
        return report("empty", 0, None, "the log holds no events", "The log holds no events.")
    if witness is not None:
        by_seq = checker.seen
        witnessed = 0
        kept = _witnessed(witness, checker.first)
        if not kept:
            return report(
                "tampered",
                0,
                None,
                "the witness holds no record of this log's chain",
                "The witness holds no record of this log's chain: the log was replaced by "
                "another, or it is not a log this witness keeps (found by the witness check).",
                "witness",
            )
        for held in kept:
            if held.seq not in by_seq:
                return report(
                    "truncated",
                    count,
                    held.seq,
                    f"the witness holds record {held.seq} but the log ends at {last.seq}",
                    f"The log was cut short: the witness holds a checkpoint at sequence number "
                    f"{held.seq}, beyond the log's last record ({last.seq}) (found by the witness check).",
                    "witness",
                )
            if by_seq[held.seq] != held.digest:
                return report(
                    "tampered",
                    held.seq,
                    held.seq,
                    "it is not the record the witness holds",
                    f"The record with sequence number {held.seq} is not the one the witness holds: "
                    "the log was rewritten (found by the witness check).",
                    "witness",
                )
            witnessed += 1
    unattested = count - 1 - checker.covered
    if (
        writer is not None
        and not allow_open
        and (not ended_cleanly(last) or (verifier is not None and unattested > 0))
    ):
        return report(
            "live",
            count,
            last.seq,
            f"{writing} is writing it: its end is still open",
            f"The log is intact so far, {count} records, and {writing} is writing it (a running "
            "gateway holds its lock): its end is still open, not cut; pass --open to accept that.",
        )
    if verifier is not None and unattested > 0 and not allow_open:
        return report(
            "unsigned" if checker.checkpoints == 0 and checker.covered < 0 else "unfinished",
            checker.covered + 1,
            None,
            f"the last {unattested} records are not covered by a signed checkpoint",
            f"The last {unattested} records are not covered by a checkpoint the key signed, and "
            "no gateway is writing the log: the gateway crashed, or records were cut off or "
            "appended (found by the signature check).",
            "signature",
        )
    if not allow_open and not ended_cleanly(last):
        return report(
            "unfinished",
            count,
            last.seq,
            "the log ends without a gateway.stopped record and no gateway is writing it",
            "The log ends without its gateway's closing record and no gateway is writing it: "
            "the gateway crashed or was killed, or the log's end was cut off.",
        )
    signed = ""
    if verifier is not None:
        signed = (
            f", every one covered by a checkpoint signed by {key}"
            if unattested <= 0
            else f", the first {checker.covered + 1} covered by a signature of {key}"
        )
    if witnessed is not None:
        plural = "s" if witnessed != 1 else ""
        signed += f", matching the {witnessed} record{plural} the witness keeps"
    crashes = (
        f"; {checker.recoveries} crash{'es were' if checker.recoveries != 1 else ' was'} recovered"
        if checker.recoveries
        else ""
    )
    sessions = f"{checker.sessions} session{'s' if checker.sessions != 1 else ''}"
    still = ""
    if not ended_cleanly(last):
        still = (
            f"; {writing} is writing it"
            if writer is not None
            else "; it ends without its closing record and no gateway is writing it"
        )
    return AuditReport(
        intact=True,
        verdict=f"The log is intact: {count} records in {sessions}{signed}{crashes}{still}.",
        records=count,
        sessions=checker.sessions,
        checkpoints=checker.checkpoints,
        recoveries=checker.recoveries,
        key=key,
        witness=witnessed,
        writer=writer,
    )


def verify_audit_log(path: str | Path, *, allow_open: bool = False) -> ChainBreak | None:
    """
    Verify an audit log's hash chain; ``None`` when intact, else the first break.

    The checks of `check_audit_log` without a key: every record decodes, is
    exactly as the gateway writes it, hashes to its digest, names the digest
    of the record before it and carries the next sequence number; the first
    record starts the chain; unless ``allow_open``, the log ends with its
    gateway's closing record.
    """
    return check_audit_log(path, allow_open=allow_open).problem
