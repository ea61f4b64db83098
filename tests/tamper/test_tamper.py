"""
The tamper suite: every way to change an audit log after it was written is caught.

Real gateways write a signed log (three sessions, heredoc holes, declines,
checkpoints every few events) and a file witness keeps its checkpoints. Then
each row changes a copy of the log the way someone who can write the file
but holds no key could: an edited field, with or without recomputing digests
and links; records or whole sessions deleted, duplicated, moved or forged;
the head cut off, the end cut off at a record or session boundary; the same
content re-encoded (a repeated key, reordered keys, spaces, escapes, another
number form); another chain spliced in. `check_audit_log` with the public key
and the witness must call every one of them not intact, with a verdict of
one sentence, and for some rows it must also say what kind of break it was
(a crash's torn record is not an edit). Every row is distinct; none is
skipped.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple

import anyio
import msgspec
import pytest

from gateway import Gateway, GatewayConfig
from gateway._calls._events import GENESIS, event_digest
from gateway.audit import Verifier, check_audit_log, generate_key, load_verifier, read_audit_log
from gateway.config import AuditSection, GatewaySection, SinkConfig, WitnessConfig
from gateway.events import (
    ChainCheckpoint,
    ChainGenesis,
    Event,
    GatewayStarted,
    GatewayStopped,
    VerdictReached,
)
from gateway.testing import StaticApprover, make_call

COMMANDS: Final = (
    "ls -la",
    "cat > notes.txt <<EOF\nbuilt at $(date +%s)\nEOF",
    "rm -rf build",
    "git status --short",
)


class Logs(NamedTuple):
    """The signed logs the rows tamper with, and how to check one."""

    jsonl: bytes
    msgpack: bytes
    witness: Path
    verifier: Verifier
    other_jsonl: bytes  # another chain, signed by the same key
    other_key_jsonl: bytes  # another chain, signed by another key
    folder: Path


def _write(folder: Path, name: str, key: Path, witness: Path | None, sessions: int) -> bytes:
    settings = GatewayConfig(
        gateway=GatewaySection(approvers=()),
        sinks={
            "audit": SinkConfig(
                plugin="jsonl" if name.endswith(".jsonl") else "msgpack",
                path=str(folder / name),
                required=True,
            )
        },
        audit=AuditSection(signing_key=str(key), checkpoint_every=7),
        witnesses={}
        if witness is None
        else {"offsite": WitnessConfig(plugin="file", path=str(witness))},
    )

    class Policy:
        name = "policy"
        shares_loop = True

        async def review(self, request: Any) -> Any:
            command = request.call.input.get("command", "")
            answerer = StaticApprover("decline" if command.startswith("rm") else "allow")
            return await answerer.review(request)

    async def run() -> None:
        for session in range(sessions):
            async with Gateway(settings, approvers=[Policy()]) as gateway:
                for index, command in enumerate(COMMANDS):
                    await gateway.review(make_call(command, call_id=f"s{session}c{index}"))
                await gateway.record_outcome(f"s{session}c0", "succeeded")

    anyio.run(run)
    return (folder / name).read_bytes()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    folder = tmp_path_factory.mktemp("tamper")
    private, public = generate_key(folder / "audit.key")
    other_private, _ = generate_key(folder / "other.key")
    witness = folder / "witness.jsonl"
    return Logs(
        jsonl=_write(folder, "audit.jsonl", private, witness, sessions=3),
        msgpack=_write(folder, "audit.msgpack", private, None, sessions=2),
        witness=witness,
        verifier=load_verifier(str(public)),
        other_jsonl=_write(folder, "other.jsonl", private, None, sessions=1),
        other_key_jsonl=_write(folder, "otherkey.jsonl", other_private, None, sessions=1),
        folder=folder,
    )


# ── helpers that tamper ──

_JSON: Final = msgspec.json.Encoder()
_MSGPACK: Final = msgspec.msgpack.Encoder()


def lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def events(data: bytes) -> list[Event]:
    return [msgspec.json.decode(line, type=Event) for line in lines(data)]


def encode(records: list[Event]) -> bytes:
    return b"".join(_JSON.encode(e) + b"\n" for e in records)


def relink(records: Sequence[Event], *, start: str = GENESIS) -> list[Event]:
    """Give records fresh links and digests, as someone without the key can (signatures stay as they were)."""
    out: list[Event] = []
    previous = start
    for seq, record in enumerate(records):
        record = msgspec.structs.replace(record, seq=seq, previous=previous, digest="")
        record = msgspec.structs.replace(record, digest=event_digest(record))
        out.append(record)
        previous = record.digest
    return out


def index_of(records: list[Event], kind: type, nth: int = 0) -> int:
    return [i for i, e in enumerate(records) if isinstance(e, kind)][nth]


def sessions(records: list[Event]) -> list[tuple[int, int]]:
    """(start, end) index ranges of each session: gateway.started … its final checkpoint."""
    starts = [i for i, e in enumerate(records) if isinstance(e, GatewayStarted)]
    ends = [i for i, e in enumerate(records) if isinstance(e, ChainCheckpoint) and e.final]
    return list(zip(starts, [end + 1 for end in ends], strict=True))


def edit(
    kind: type, change: Callable[[Any], Any], *, recompute: bool, nth: int = 0
) -> Callable[[bytes, Logs], bytes]:
    """Change one record of ``kind``; then, if asked, recompute its digest and every link after it."""

    def tamper(data: bytes, logs: Logs) -> bytes:
        records = events(data)
        at = index_of(records, kind, nth)
        records[at] = change(records[at])
        if not recompute:
            return encode(records)
        return encode(relink(records))

    return tamper


def on_lines(change: Callable[[list[bytes]], list[bytes]]) -> Callable[[bytes, Logs], bytes]:
    return lambda data, logs: b"".join(change(lines(data)))


def on_records(
    change: Callable[[list[Event]], list[Event]], *, recompute: bool = False
) -> Callable[[bytes, Logs], bytes]:
    def tamper(data: bytes, logs: Logs) -> bytes:
        records = change(events(data))
        return encode(relink(records) if recompute else records)

    return tamper


def on_line_of(
    kind: str, change: Callable[[bytes], bytes], nth: int = 0
) -> Callable[[bytes, Logs], bytes]:
    """Change the bytes of one line whose event tag is ``kind``."""

    def tamper(data: bytes, logs: Logs) -> bytes:
        all_lines = lines(data)
        at = [i for i, line in enumerate(all_lines) if f'"event":"{kind}"'.encode() in line][nth]
        all_lines[at] = change(all_lines[at])
        return b"".join(all_lines)

    return tamper


def replace(field: str, value: Any) -> Callable[[Any], Any]:
    return lambda record: msgspec.structs.replace(record, **{field: value})


def verdict_to(decision: str) -> Callable[[Any], Any]:
    return lambda record: msgspec.structs.replace(
        record, verdict=msgspec.structs.replace(record.verdict, decision=decision)
    )


def drop(start: int, end: int | None = None) -> Callable[[list[Any]], list[Any]]:
    return lambda items: items[:start] + items[(start + 1 if end is None else end) :]


def drop_session(number: int, *, recompute: bool) -> Callable[[bytes, Logs], bytes]:
    def tamper(data: bytes, logs: Logs) -> bytes:
        records = events(data)
        start, end = sessions(records)[number]
        kept = records[:start] + records[end:]
        return encode(relink(kept) if recompute else kept)

    return tamper


def keep_sessions(count: int) -> Callable[[bytes, Logs], bytes]:
    """Cut the log right after session ``count`` — a clean boundary, every kept record signed."""

    def tamper(data: bytes, logs: Logs) -> bytes:
        records = events(data)
        end = sessions(records)[count - 1][1]
        return encode(records[:end])

    return tamper


def swap_sessions(*, recompute: bool) -> Callable[[bytes, Logs], bytes]:
    def tamper(data: bytes, logs: Logs) -> bytes:
        records = events(data)
        (a0, a1), (b0, b1), _ = sessions(records)
        moved = records[:a0] + records[b0:b1] + records[a0:a1] + records[b1:]
        return encode(relink(moved) if recompute else moved)

    return tamper


def duplicate_session(data: bytes, logs: Logs) -> bytes:
    records = events(data)
    start, end = sessions(records)[1]
    return encode(relink(records[:end] + records[start:end] + records[end:]))


def forge_after_end(kind: str) -> Callable[[bytes, Logs], bytes]:
    """Append records chained properly after the final checkpoint (no key to sign them)."""

    def tamper(data: bytes, logs: Logs) -> bytes:
        records = events(data)
        last = records[-1]
        seq = last.seq + 1
        forged: list[Event]
        if kind == "verdict":
            verdict = next(e for e in records if isinstance(e, VerdictReached)).verdict
            forged = [VerdictReached(seq=seq, time=last.time, call_id="forged", verdict=verdict)]
        elif kind == "session":
            started = next(e for e in records if isinstance(e, GatewayStarted))
            forged = [
                msgspec.structs.replace(started, seq=seq),
                GatewayStopped(seq=seq + 1, time=last.time, events=2),
            ]
        else:
            checkpoint = next(e for e in records if isinstance(e, ChainCheckpoint))
            forged = [msgspec.structs.replace(checkpoint, seq=seq, covered=seq, final=True)]
        previous = last.digest
        out: list[Event] = []
        for record in forged:
            record = msgspec.structs.replace(record, previous=previous, digest="")
            record = msgspec.structs.replace(record, digest=event_digest(record))
            out.append(record)
            previous = record.digest
        return data + encode(out)

    return tamper


def splice(source: str) -> Callable[[bytes, Logs], bytes]:
    def tamper(data: bytes, logs: Logs) -> bytes:
        other = logs.other_jsonl if source == "same-key" else logs.other_key_jsonl
        return other if source.endswith("whole") else data + other

    return tamper


def whole(source: str) -> Callable[[bytes, Logs], bytes]:
    return lambda data, logs: logs.other_jsonl if source == "same-key" else logs.other_key_jsonl


def steal_signature(data: bytes, logs: Logs) -> bytes:
    """A checkpoint gets the signature of another log's checkpoint (a real one, of the same key)."""
    records = events(data)
    theirs = next(e for e in events(logs.other_jsonl) if isinstance(e, ChainCheckpoint))
    at = index_of(records, ChainCheckpoint, 1)
    records[at] = msgspec.structs.replace(records[at], signature=theirs.signature)
    return encode(relink(records))


def unsign(data: bytes, logs: Logs) -> bytes:
    """Rewrite the genesis as unsigned, drop every checkpoint, recompute the chain."""
    records = [e for e in events(data) if not isinstance(e, ChainCheckpoint)]
    records[0] = msgspec.structs.replace(records[0], algorithm="none", key=None, signature="")
    return encode(relink(records))


def reverse(data: bytes, logs: Logs) -> bytes:
    return b"".join(reversed(lines(data)))


def rotate(data: bytes, logs: Logs) -> bytes:
    records = events(data)
    start, end = sessions(records)[-1]
    return encode(relink(records[start:end] + records[:start]))


def remove_recovered_claim(data: bytes, logs: Logs) -> bytes:
    """Insert a fake 'the previous session crashed' record before the second session, chained."""
    from gateway.events import LogRecovered

    records = events(data)
    start = sessions(records)[1][0]
    fake = LogRecovered(
        seq=0,
        time=records[start].time,
        sink="audit",
        found="The log ended without its closing record.",
    )
    return encode(relink([*records[: start + 1], fake, *records[start + 1 :]]))


# Line-level re-encodings of one record: the same content, other bytes.
def repeat_key(line: bytes) -> bytes:
    return line.replace(b'"decision":"decline"', b'"decision":"allow","decision":"decline"', 1)


def repeat_same(line: bytes) -> bytes:
    """The sequence number written twice, the same both times."""
    head, _, rest = line.partition(b'"seq":')
    number, _, tail = rest.partition(b",")
    return head + b'"seq":' + number + b',"seq":' + number + b"," + tail


def reorder_keys(line: bytes) -> bytes:
    value = msgspec.json.decode(line)
    return msgspec.json.encode(dict(reversed(list(value.items())))) + b"\n"


def sort_keys(line: bytes) -> bytes:
    return msgspec.json.Encoder(order="sorted").encode(msgspec.json.decode(line)) + b"\n"


def pretty(line: bytes) -> bytes:
    return line.replace(b'":', b'": ', 1)


def trailing_space(line: bytes) -> bytes:
    return line.rstrip(b"\n") + b"   \n"


def escape_letter(line: bytes) -> bytes:
    """The first digit of the time written as a JSON escape (the same text, other bytes)."""
    return line.replace(b'"time":"2', b'"time":"\\u0032', 1)


def float_seq(line: bytes) -> bytes:
    head, _, rest = line.partition(b'"seq":')
    number, _, tail = rest.partition(b",")
    return head + b'"seq":' + number + b".0," + tail


def escape_slash(line: bytes) -> bytes:
    return line.replace(b"sha256:", b"sha256\\u003a", 1)


def upper_digest(line: bytes) -> bytes:
    head, _, tail = line.rpartition(b'"digest":"sha256:')
    return head + b'"digest":"sha256:' + tail[:64].upper() + tail[64:]


def add_field(line: bytes) -> bytes:
    return line.replace(b"{", b'{"note":"added",', 1)


def remove_field(line: bytes) -> bytes:
    return line.replace(b'"trace_id":null,', b"", 1)


def retag(line: bytes) -> bytes:
    return line.replace(b'"event":"verdict.reached"', b'"event":"approver.decided"', 1)


def null_to_text(line: bytes) -> bytes:
    return line.replace(b'"call_id":null', b'"call_id":"null"', 1)


def true_to_one(line: bytes) -> bytes:
    return line.replace(b'"final":true', b'"final":1', 1)


def crlf(line: bytes) -> bytes:
    return line.rstrip(b"\n") + b"\r\n"


JSONL_ROWS: Final[list[tuple[str, Callable[[bytes, Logs], bytes], str | None]]] = [
    # Edited fields, digest left as it was.
    (
        "verdict-allow",
        edit(VerdictReached, verdict_to("allow"), recompute=False, nth=2),
        "tampered",
    ),
    ("verdict-decline", edit(VerdictReached, verdict_to("decline"), recompute=False), "tampered"),
    (
        "verdict-reason",
        edit(
            VerdictReached,
            lambda r: msgspec.structs.replace(
                r, verdict=msgspec.structs.replace(r.verdict, reason="Fine.")
            ),
            recompute=False,
        ),
        "tampered",
    ),
    (
        "time",
        edit(GatewayStarted, replace("time", "2000-01-01T00:00:00.000000+00:00"), recompute=False),
        "tampered",
    ),
    ("call-id", edit(VerdictReached, replace("call_id", "other"), recompute=False), "tampered"),
    ("trace-id", edit(VerdictReached, replace("trace_id", "0" * 32), recompute=False), "tampered"),
    (
        "seq",
        edit(
            VerdictReached, lambda r: msgspec.structs.replace(r, seq=r.seq + 100), recompute=False
        ),
        "tampered",
    ),
    (
        "previous",
        edit(VerdictReached, replace("previous", "sha256:" + "1" * 64), recompute=False),
        "tampered",
    ),
    (
        "digest-only",
        edit(VerdictReached, replace("digest", "sha256:" + "2" * 64), recompute=False),
        "tampered",
    ),
    ("version", edit(GatewayStarted, replace("version", "9.9.9"), recompute=False), "tampered"),
    (
        "config-digest",
        edit(GatewayStarted, replace("config_digest", "sha256:" + "3" * 64), recompute=False),
        "tampered",
    ),
    (
        "approvers-listed",
        edit(GatewayStarted, replace("approvers", ()), recompute=False),
        "tampered",
    ),
    ("stopped-count", edit(GatewayStopped, replace("events", 1), recompute=False), "tampered"),
    (
        "checkpoint-covered",
        edit(ChainCheckpoint, replace("covered", 1), recompute=False),
        "tampered",
    ),
    (
        "checkpoint-genesis",
        edit(ChainCheckpoint, replace("genesis", "sha256:" + "4" * 64), recompute=False),
        "tampered",
    ),
    (
        "checkpoint-key",
        edit(ChainCheckpoint, replace("key", "ed25519:0000000000000000"), recompute=False),
        "tampered",
    ),
    (
        "checkpoint-final",
        edit(ChainCheckpoint, replace("final", True), recompute=False),
        "tampered",
    ),
    ("genesis-chain", edit(ChainGenesis, replace("chain", "f" * 32), recompute=False), "tampered"),
    # The same edits with digests and links recomputed (no key, so no signature).
    (
        "verdict-allow-recomputed",
        edit(VerdictReached, verdict_to("allow"), recompute=True, nth=2),
        "tampered",
    ),
    (
        "verdict-reason-recomputed",
        edit(
            VerdictReached,
            lambda r: msgspec.structs.replace(
                r, verdict=msgspec.structs.replace(r.verdict, reason="Fine.")
            ),
            recompute=True,
        ),
        "tampered",
    ),
    (
        "time-recomputed",
        edit(GatewayStarted, replace("time", "2000-01-01T00:00:00.000000+00:00"), recompute=True),
        "tampered",
    ),
    (
        "call-id-recomputed",
        edit(VerdictReached, replace("call_id", "other"), recompute=True),
        "tampered",
    ),
    (
        "version-recomputed",
        edit(GatewayStarted, replace("version", "9.9.9"), recompute=True),
        "tampered",
    ),
    (
        "approvers-recomputed",
        edit(GatewayStarted, replace("approvers", ("none",)), recompute=True),
        "tampered",
    ),
    (
        "checkpoint-covered-recomputed",
        edit(ChainCheckpoint, replace("covered", 1), recompute=True),
        "tampered",
    ),
    (
        "checkpoint-final-recomputed",
        edit(ChainCheckpoint, replace("final", True), recompute=True),
        "tampered",
    ),
    (
        "checkpoint-unsigned-recomputed",
        edit(ChainCheckpoint, replace("signature", ""), recompute=True),
        "tampered",
    ),
    (
        "genesis-chain-recomputed",
        edit(ChainGenesis, replace("chain", "f" * 32), recompute=True),
        "tampered",
    ),
    (
        "genesis-key-recomputed",
        edit(ChainGenesis, replace("key", "ed25519:0000000000000000"), recompute=True),
        "tampered",
    ),
    (
        "genesis-unsigned-recomputed",
        edit(ChainGenesis, replace("signature", ""), recompute=True),
        "tampered",
    ),
    ("all-unsigned-recomputed", unsign, "tampered"),
    ("signature-stolen", steal_signature, "tampered"),
    # Records dropped.
    ("head-deleted", on_lines(drop(0)), "tampered"),
    ("head-five-deleted", on_lines(lambda ls: ls[5:]), "tampered"),
    ("head-deleted-recomputed", on_records(drop(0), recompute=True), "tampered"),
    ("middle-record-deleted", on_lines(drop(20)), "tampered"),
    ("middle-record-deleted-recomputed", on_records(drop(20), recompute=True), "tampered"),
    (
        "checkpoint-deleted",
        on_records(lambda rs: drop(index_of(rs, ChainCheckpoint, 1))(rs)),
        "tampered",
    ),
    (
        "checkpoint-deleted-recomputed",
        on_records(lambda rs: drop(index_of(rs, ChainCheckpoint, 1))(rs), recompute=True),
        "tampered",
    ),
    ("session-deleted", drop_session(1, recompute=False), "tampered"),
    ("session-deleted-recomputed", drop_session(1, recompute=True), "tampered"),
    ("first-session-deleted", drop_session(0, recompute=False), "tampered"),
    ("last-session-cut-at-its-boundary", keep_sessions(2), "truncated"),
    ("last-two-sessions-cut", keep_sessions(1), "truncated"),
    # The witness holds the final checkpoint: a cut end is an edit, not a crash.
    ("last-record-deleted", on_lines(lambda ls: ls[:-1]), "truncated"),
    ("last-ten-records-deleted", on_lines(lambda ls: ls[:-10]), "truncated"),
    ("cut-mid-record", lambda data, logs: data[: len(data) - 40], "torn"),
    ("cut-mid-first-record", lambda data, logs: data[:30], "torn"),
    ("emptied", lambda data, logs: b"", "empty"),
    # Records moved, repeated, forged.
    ("record-duplicated", on_lines(lambda ls: [*ls[:10], ls[9], *ls[10:]]), "tampered"),
    (
        "record-duplicated-recomputed",
        on_records(lambda rs: [*rs[:10], rs[9], *rs[10:]], recompute=True),
        "tampered",
    ),
    ("adjacent-swapped", on_lines(lambda ls: [*ls[:5], ls[6], ls[5], *ls[7:]]), "tampered"),
    (
        "adjacent-swapped-recomputed",
        on_records(lambda rs: [*rs[:5], rs[6], rs[5], *rs[7:]], recompute=True),
        "tampered",
    ),
    ("sessions-swapped", swap_sessions(recompute=False), "tampered"),
    ("sessions-swapped-recomputed", swap_sessions(recompute=True), "tampered"),
    ("session-duplicated-recomputed", duplicate_session, "tampered"),
    ("reversed", reverse, "tampered"),
    ("last-session-moved-first-recomputed", rotate, "tampered"),
    (
        "forged-record-inserted",
        on_records(
            lambda rs: [*rs[:12], msgspec.structs.replace(rs[11], call_id="forged"), *rs[12:]],
            recompute=True,
        ),
        "tampered",
    ),
    ("forged-verdict-appended", forge_after_end("verdict"), "unfinished"),
    ("forged-session-appended", forge_after_end("session"), "unfinished"),
    ("forged-checkpoint-appended", forge_after_end("checkpoint"), "tampered"),
    ("crash-claim-inserted-recomputed", remove_recovered_claim, "tampered"),
    ("other-chain-appended", splice("same-key"), "tampered"),
    ("other-key-chain-appended", splice("other-key"), "tampered"),
    ("replaced-by-other-chain", whole("same-key"), "tampered"),
    ("replaced-by-other-key", whole("other-key"), "tampered"),
    # The same content, other bytes.
    ("repeated-key", on_line_of("verdict.reached", repeat_key, nth=2), "tampered"),
    ("repeated-key-same-value", on_line_of("gateway.started", repeat_same), "tampered"),
    ("keys-reordered", on_line_of("call.proposed", reorder_keys), "tampered"),
    ("keys-sorted", on_line_of("plan.ready", sort_keys), "tampered"),
    ("space-after-colon", on_line_of("verdict.reached", pretty), "tampered"),
    ("trailing-spaces", on_line_of("approver.decided", trailing_space), "tampered"),
    ("escaped-character", on_line_of("gateway.started", escape_letter), "tampered"),
    ("float-seq", on_line_of("verdict.reached", float_seq), "tampered"),
    ("escaped-colon", on_line_of("verdict.reached", escape_slash), "tampered"),
    ("uppercase-digest", on_line_of("call.proposed", upper_digest), "tampered"),
    ("field-added", on_line_of("verdict.reached", add_field), "tampered"),
    ("field-removed", on_line_of("verdict.reached", remove_field), "tampered"),
    ("event-retagged", on_line_of("verdict.reached", retag), "tampered"),
    ("null-as-text", on_line_of("chain.checkpoint", null_to_text), "tampered"),
    ("true-as-one", on_line_of("chain.checkpoint", true_to_one, nth=-1), "tampered"),
    ("crlf-line", on_line_of("plan.ready", crlf), "tampered"),
    ("blank-line-inserted", on_lines(lambda ls: [*ls[:8], b"\n", *ls[8:]]), "tampered"),
    ("byte-order-mark", lambda data, logs: b"\xef\xbb\xbf" + data, "tampered"),
    ("garbage-line-appended", lambda data, logs: data + b"not a record\n", "tampered"),
    ("nul-byte-inserted", lambda data, logs: data[:500] + b"\x00" + data[500:], "tampered"),
]


@pytest.mark.parametrize(
    ("tamper", "kind"),
    [pytest.param(tamper, kind, id=name) for name, tamper, kind in JSONL_ROWS],
)
def test_a_tampered_json_lines_log_is_caught(
    logs: Logs, tmp_path: Path, tamper: Callable[[bytes, Logs], bytes], kind: str | None
) -> None:
    path = tmp_path / "audit.jsonl"
    tampered = tamper(logs.jsonl, logs)
    assert tampered != logs.jsonl, "the row changed nothing"
    path.write_bytes(tampered)
    report = check_audit_log(path, verifier=logs.verifier, witness=logs.witness)
    assert not report.intact, report.verdict
    assert report.verdict.endswith(".")
    assert report.verdict.count(". ") == 0, report.verdict
    if kind is not None:
        assert report.kind == kind, report.verdict


def _frames(data: bytes) -> list[bytes]:
    out: list[bytes] = []
    offset = 0
    while offset < len(data):
        (size,) = struct.unpack_from(">I", data, offset)
        out.append(data[offset : offset + 4 + size])
        offset += 4 + size
    return out


def _frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


def _reencode(frame: bytes, change: Callable[[dict[str, Any]], dict[str, Any]]) -> bytes:
    return _frame(msgspec.msgpack.encode(change(msgspec.msgpack.decode(frame[4:]))))


def _wide_int(frame: bytes) -> bytes:
    """The same record with its sequence number written as a 64-bit integer."""
    payload = frame[4:]
    value = msgspec.msgpack.decode(payload)
    small = msgspec.msgpack.encode(value["seq"])
    wide = b"\xcf" + value["seq"].to_bytes(8, "big")
    return _frame(payload.replace(b"\xa3seq" + small, b"\xa3seq" + wide, 1))


MSGPACK_ROWS: Final[list[tuple[str, Callable[[bytes], bytes], str | None]]] = [
    ("byte-flipped", lambda d: d[:300] + bytes([d[300] ^ 1]) + d[301:], None),
    (
        "length-prefix-changed",
        lambda d: b"".join(
            [_frames(d)[0], b"\x00\x00\x00\x05" + _frames(d)[1][4:], *_frames(d)[2:]]
        ),
        None,
    ),
    ("cut-mid-frame", lambda d: d[:-7], "torn"),
    ("frame-deleted", lambda d: b"".join(_frames(d)[:5] + _frames(d)[6:]), "tampered"),
    ("head-frame-deleted", lambda d: b"".join(_frames(d)[1:]), "tampered"),
    (
        "frames-swapped",
        lambda d: b"".join([*_frames(d)[:5], _frames(d)[6], _frames(d)[5], *_frames(d)[7:]]),
        "tampered",
    ),
    (
        "frame-duplicated",
        lambda d: b"".join([*_frames(d)[:5], _frames(d)[4], *_frames(d)[5:]]),
        "tampered",
    ),
    ("garbage-appended", lambda d: d + b"\x00\x00\x00\x03abc", "tampered"),
    (
        "empty-frame-inserted",
        lambda d: b"".join([*_frames(d)[:3], b"\x00\x00\x00\x00", *_frames(d)[3:]]),
        "tampered",
    ),
    (
        "keys-reordered",
        lambda d: b"".join(
            [
                *_frames(d)[:4],
                _reencode(_frames(d)[4], lambda v: dict(reversed(list(v.items())))),
                *_frames(d)[5:],
            ]
        ),
        "tampered",
    ),
    (
        "integer-widened",
        lambda d: b"".join([*_frames(d)[:4], _wide_int(_frames(d)[4]), *_frames(d)[5:]]),
        "tampered",
    ),
    ("last-frame-deleted", lambda d: b"".join(_frames(d)[:-1]), "unfinished"),
]


@pytest.mark.parametrize(
    ("tamper", "kind"),
    [pytest.param(tamper, kind, id=name) for name, tamper, kind in MSGPACK_ROWS],
)
def test_a_tampered_messagepack_log_is_caught(
    logs: Logs, tmp_path: Path, tamper: Callable[[bytes], bytes], kind: str | None
) -> None:
    path = tmp_path / "audit.msgpack"
    tampered = tamper(logs.msgpack)
    assert tampered != logs.msgpack, "the row changed nothing"
    path.write_bytes(tampered)
    report = check_audit_log(path, verifier=logs.verifier)
    assert not report.intact, report.verdict
    if kind is not None:
        assert report.kind == kind, report.verdict


def test_a_cut_end_is_told_from_a_crash(logs: Logs, tmp_path: Path) -> None:
    """
    Without a witness, a log cut at a record boundary may be a crash between
    writes or an edit, and the verdict says both; half a record is a crash;
    with the witness, the cut is an edit.
    """
    path = tmp_path / "audit.jsonl"
    path.write_bytes(b"".join(lines(logs.jsonl)[:-3]))
    boundary = check_audit_log(path, verifier=logs.verifier)
    witnessed = check_audit_log(path, verifier=logs.verifier, witness=logs.witness)
    path.write_bytes(logs.jsonl[:-25])
    torn = check_audit_log(path, verifier=logs.verifier)
    assert boundary.kind == "unfinished"
    assert (
        "no gateway is writing the log: the gateway crashed, or records were cut off"
        in boundary.verdict
    )
    assert witnessed.kind == "truncated"
    assert torn.kind == "torn"
    assert "killed or the disk filled while writing" in torn.verdict


def test_the_untouched_logs_are_intact(logs: Logs, tmp_path: Path) -> None:
    """The control: without a change, both logs verify, with the key and the witness."""
    jsonl = tmp_path / "audit.jsonl"
    jsonl.write_bytes(logs.jsonl)
    msgpack_log = tmp_path / "audit.msgpack"
    msgpack_log.write_bytes(logs.msgpack)
    report = check_audit_log(jsonl, verifier=logs.verifier, witness=logs.witness)
    assert report.intact, report.verdict
    assert report.sessions == 3
    assert report.checkpoints >= 6
    assert check_audit_log(msgpack_log, verifier=logs.verifier).intact
    assert list(read_audit_log(jsonl))


def test_the_suite_has_at_least_eighty_distinct_tamperings() -> None:
    names = [name for name, _, _ in JSONL_ROWS] + [f"msgpack-{name}" for name, _, _ in MSGPACK_ROWS]
    assert len(names) == len(set(names))
    assert len(names) >= 80
