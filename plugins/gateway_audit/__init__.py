"""
First-party audit sinks: an append-only JSON-lines log and a MessagePack log.

Registered in the ``gateway.sinks`` entry-point group as ``jsonl`` and
``msgpack``, and loaded exactly as a third-party sink would be. Each write
appends one record, flushes it and (with ``fsync = true`` in the sink's
options) syncs it to disk before returning, because a required sink's write is
what releases a verdict. Opening an existing log continues its hash chain.

Configure in TOML::

    [sinks.audit]
    plugin = "jsonl"
    path = "gateway-audit.jsonl"
    required = true
    options = { fsync = false }
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from gateway import ChainTip, Event, SinkConfig, encode_event, read_audit_log

__all__ = ["JsonLinesSink", "MessagePackSink"]


class _FileSink:
    format = "jsonl"

    def __init__(self, config: SinkConfig) -> None:
        if not config.path:
            raise ValueError(f"the {self.format} sink needs a `path`")
        unknown = set(config.options) - {"fsync"}
        if unknown:
            raise ValueError(f"unknown options {sorted(unknown)} (known: fsync)")
        self.path = Path(config.path)
        self.fsync = bool(config.options.get("fsync", False))
        self._file: anyio.AsyncFile[bytes] | None = None

    async def open(self) -> ChainTip | None:
        tip = await anyio.to_thread.run_sync(self._tip)
        await anyio.Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._file = await anyio.open_file(self.path, "ab")
        return tip

    def _tip(self) -> ChainTip | None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return None
        last = None
        for last in read_audit_log(self.path):  # noqa: B007 -- only the last event matters
            pass
        return None if last is None else ChainTip(seq=last.seq, digest=last.digest)

    async def write(self, event: Event) -> None:
        if self._file is None:
            raise RuntimeError("the sink is not open")
        # One thread hop for write, flush and (optionally) fsync: a review
        # waits for this, and each hop costs more than the write itself.
        await anyio.to_thread.run_sync(
            self._write_durably, self._file.wrapped, encode_event(event, self.format)
        )

    def _write_durably(self, stream: Any, record: bytes) -> None:
        stream.write(record)
        stream.flush()
        if self.fsync:
            os.fsync(stream.fileno())

    async def aclose(self) -> None:
        if self._file is not None:
            await self._file.aclose()
            self._file = None


class JsonLinesSink(_FileSink):
    """Appends each event as one line of JSON."""

    format = "jsonl"


class MessagePackSink(_FileSink):
    """Appends each event as a length-prefixed MessagePack record."""

    format = "msgpack"
