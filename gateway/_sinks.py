"""
Sinks: where events go. The protocol, loading by entry point, and the audit-log formats.

A sink is built from its `SinkConfig` by the factory its plugin registers in
the ``gateway.sinks`` entry-point group; only sinks the config names are
loaded. Two log formats are defined here so that every tool reads them the
same way: JSON lines (one event per line) and MessagePack (each event a
4-byte big-endian length, then the encoded event).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final, NamedTuple, Protocol, runtime_checkable

import msgspec

from gateway._config import SinkConfig
from gateway._errors import AuditLogError
from gateway._events import ChainBreak, Event, GatewayStopped, verify_chain
from gateway._plugins import build_plugin, installed as installed

__all__ = [
    "ChainTip",
    "Sink",
    "SinkFactory",
    "audit_format",
    "encode_event",
    "load_sink",
    "read_audit_log",
    "verify_audit_log",
]

SINK_GROUP: Final = "gateway.sinks"
_FRAME: Final = struct.Struct(">I")
_JSON: Final = msgspec.json.Encoder()
_MSGPACK: Final = msgspec.msgpack.Encoder()
_JSON_DECODER: Final = msgspec.json.Decoder(Event)
_MSGPACK_DECODER: Final = msgspec.msgpack.Decoder(Event)


class ChainTip(NamedTuple):
    """The last event a sink already holds: the chain continues after it."""

    seq: int
    digest: str


@runtime_checkable
class Sink(Protocol):
    """
    Where a gateway's events are written.

    `open` is called once before any event and returns the tip of a chain the
    sink already holds (an existing audit log), so a restarted gateway continues
    it. `write` returns only when the event is durably written — written and
    flushed — because a required sink's write is what releases a verdict.
    `aclose` is called once at the end.
    """

    async def open(self) -> ChainTip | None:
        """Open the sink; return the tip of the chain it already holds, if any."""

    async def write(self, event: Event) -> None:
        """Write one event durably (write and flush)."""

    async def aclose(self) -> None:
        """Flush and close."""


SinkFactory = Callable[[SinkConfig], Sink]


def load_sink(name: str, config: SinkConfig) -> Sink:
    """
    Build the sink ``config`` names, through its entry point.

    Raises:
        PluginLoadError: No such sink is installed, or its factory failed.
    """
    built: Sink = build_plugin(
        SINK_GROUP,
        config.plugin,
        kind="sink",
        name=name,
        build=lambda factory: factory(config),
        check=Sink,
    )
    return built


def encode_event(event: Event, audit_format: str) -> bytes:
    """Encode one event as a record of the given log format (``jsonl`` or ``msgpack``)."""
    if audit_format == "jsonl":
        return _JSON.encode(event) + b"\n"
    payload = _MSGPACK.encode(event)
    return _FRAME.pack(len(payload)) + payload


def audit_format(path: str | Path) -> str:
    """The log format of a file, by its name: ``.msgpack``/``.mpk`` is MessagePack, else JSON lines."""
    return "msgpack" if str(path).endswith((".msgpack", ".mpk")) else "jsonl"


def read_audit_log(path: str | Path) -> Iterator[Event]:
    """
    Read the events of an audit log, in order.

    Raises:
        AuditLogError: A record is malformed or cut short (names the record).
        OSError: The file cannot be read.
    """
    data = Path(path).read_bytes()
    if audit_format(path) == "jsonl":
        lines = data.split(b"\n")
        # The newlines are counted once: counting them again for every record
        # made reading (and `gateway verify`) quadratic in the log's size.
        last = len(lines) - 1
        for index, line in enumerate(lines):
            if index == last and not line:
                return
            try:
                yield _JSON_DECODER.decode(line)
            except (msgspec.DecodeError, msgspec.ValidationError) as error:
                raise AuditLogError(index, f"not a gateway event ({error})") from None
        return
    offset = index = 0
    while offset < len(data):
        if offset + _FRAME.size > len(data):
            raise AuditLogError(index, "the record is cut short")
        (size,) = _FRAME.unpack_from(data, offset)
        start = offset + _FRAME.size
        if start + size > len(data):
            raise AuditLogError(index, "the record is cut short")
        try:
            yield _MSGPACK_DECODER.decode(data[start : start + size])
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise AuditLogError(index, f"not a gateway event ({error})") from None
        offset = start + size
        index += 1


def verify_audit_log(path: str | Path, *, allow_open: bool = False) -> ChainBreak | None:
    """
    Verify an audit log's hash chain; ``None`` when intact, else the first break.

    Every record must decode, hash to its digest, name the digest of the record
    before it and carry the next sequence number. Unless ``allow_open``, the log
    must end with a ``gateway.stopped`` record: one that does not was cut short
    (or the gateway that writes it is still running).
    """
    events: list[Event] = []
    try:
        events.extend(read_audit_log(path))
    except AuditLogError as error:
        return ChainBreak(index=error.index, seq=None, reason=error.reason)
    broken = verify_chain(events)
    if broken is not None:
        return broken
    if not events:
        return ChainBreak(index=0, seq=None, reason="the log holds no events")
    if not allow_open and not isinstance(events[-1], GatewayStopped):
        return ChainBreak(
            index=len(events),
            seq=events[-1].seq,
            reason="the log ends without a gateway.stopped record (cut short, or still open)",
        )
    return None
