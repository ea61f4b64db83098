"""
First-party audit sinks and witnesses: append-only log files, a witness file, a witness webhook.

Registered as the sinks ``jsonl`` and ``msgpack`` (``gateway.sinks``) and the
witnesses ``file`` and ``webhook`` (``gateway.witnesses``), and loaded exactly
as a third-party plugin would be.

A log sink:

* takes an exclusive lock beside its log (``<log>.lock``) when it opens and
  holds it until it closes, so every writer of a log — ``gateway serve``, a
  hook, anything else — waits its turn and the chain never forks;
* continues the chain from the log's last whole record, reading only the
  ends of the file; bytes a crash left after that record are moved to
  ``<log>.torn-<time>`` and the gateway records what was found;
* appends each batch of events with one write, one flush and (with
  ``fsync = true``) one sync, before the verdict it justifies is released —
  in its writer thread (one long-lived thread per log, fed batches in order
  through a queue, that wakes the loop when a batch is written), except a
  small batch without a sync to a regular file on a filesystem held in memory
  (tmpfs, ramfs), which is written from the event loop (a thread hop costs
  more CPU than such a write, and it waits for no device); a write that is
  slow all the same sends the next ones to the thread again. The loop only
  waits for the writer, so a write stuck on a frozen disk holds no timer: the
  review waiting for it is declined at ``audit-timeout``;
* when the gateway stops waiting for it (``fence``), truncates the log right
  after the last record it confirmed and writes nothing more, so a record
  that lands late never says more than callers were told.

Configure in TOML::

    [sinks.audit]
    plugin = "jsonl"
    path = "gateway-audit.jsonl"  # in the state directory: ~/.local/state/agent-gateway/
    required = true
    options = { fsync = false, inline = true, lock-timeout = 30 }

    [witnesses.offsite]
    plugin = "file"
    path = "/mnt/other-disk/gateway-witness.jsonl"
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import stat
import threading
import time
import urllib.error
import urllib.request
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.lowlevel
import anyio.to_thread
import msgspec
from anyio.abc import AsyncBackend

from gateway import AuditLogError, SinkFailure
from gateway.audit import (
    ChainTip,
    Recovery,
    audit_format,
    encode_event,
    ended_cleanly,
    lock_path,
    read_tail,
)
from gateway.config import MAX_SECONDS, SinkConfig, WitnessConfig, state_path
from gateway.events import ChainCheckpoint, ChainGenesis, Event

__all__ = ["FileWitness", "JsonLinesSink", "MessagePackSink", "WebhookWitness"]

_OFFSETS: Final = 65_536
"""Record ends remembered, so a fence can cut the log right after any recent record."""

INLINE_BYTES: Final = 64 * 1024
"""The largest batch written from the event loop (without a sync, to a local file)."""

INLINE_SLOW: Final = 0.005
"""Seconds an inline write may take (a busy machine may pause the process that long, once)."""

INLINE_STRIKES: Final = 3
"""Slow inline writes in a row that send writes to the thread for a while (a disk that stalls)."""

INLINE_PAUSE: Final = 30.0
"""Seconds writes go through the thread after a slow inline write, before inline is tried again."""

LOCAL_FILESYSTEMS: Final = frozenset({"tmpfs", "ramfs"})
"""
Filesystems held in memory, whose appends wait for no device. A disk
filesystem is not here: a write to one may block without bound (a frozen
filesystem during a snapshot, a block device that stalls), and a write that
blocks on the event loop would hold every deadline with it — the gateway would
hang instead of declining at ``audit-timeout``, and a host whose hook times
out may then run the call. So a log on disk is written from the thread, whose
wait the audit timeout bounds.
"""


CLOSE_PATIENCE: Final = 10.0
"""
Seconds closing waits for the writer thread to write what it was handed and
close the log. A writer stuck in a write past that is left to close the log
when the write returns (it is a daemon thread: it never keeps the process alive).
"""


class _Handoff:
    """One batch handed to the writer thread: set on the loop that handed it, once written or failed."""

    __slots__ = ("data", "done", "ends", "error")

    def __init__(self, data: bytes, ends: list[tuple[int, int]]) -> None:
        self.data = data
        self.ends = ends
        self.done = anyio.Event()
        self.error: BaseException | None = None


class _Writer:
    """
    The thread that writes a log's batches, one after another, in the order they were handed.

    A batch is answered on the event loop that handed it (``run_sync_soon`` of
    its backend, asyncio or trio), which is all a review's thread hop costs:
    no thread is started or looked for per batch. The loop never waits on the
    thread itself, only on the batch's event, so a write that blocks holds no
    timer and the bus's deadline fails the review as for any late sink.
    """

    def __init__(
        self,
        name: str,
        append: Callable[[bytes, list[tuple[int, int]]], None],
        close: Callable[[], None],
    ) -> None:
        self._append = append
        self._close = close
        self._jobs: queue.SimpleQueue[tuple[_Handoff, type[AsyncBackend], object] | None] = (
            queue.SimpleQueue()
        )
        self.closing = False
        # When the last write ended (monotonic seconds; 0: none has yet).
        self.finished = 0.0
        self.pid = os.getpid()
        self.thread = threading.Thread(
            target=self._run, name=f"gateway audit writer {name}", daemon=True
        )
        self.thread.start()
        _WRITERS.add(self)

    def hand(self, handoff: _Handoff, token: anyio.lowlevel.EventLoopToken) -> None:
        """Queue a batch; its event is set on ``token``'s loop once it is written or has failed."""
        self._jobs.put((handoff, token.backend_class, token.native_token))

    def stop(self) -> None:
        """Write what was handed, then close the log and end (at once when nothing is left)."""
        self.closing = True
        self._jobs.put(None)

    def _run(self) -> None:
        append = self._append
        jobs = self._jobs
        try:
            while (job := jobs.get()) is not None:
                handoff, backend, native = job
                try:
                    append(handoff.data, handoff.ends)
                except BaseException as error:  # noqa: BLE001 -- handed to the loop, which fails the sink
                    handoff.error = error
                self.finished = time.monotonic()
                # The loop may be gone (its gateway stopped waiting and closed):
                # then nobody waits for the answer.
                with contextlib.suppress(anyio.RunFinishedError, RuntimeError):
                    backend.run_sync_soon(handoff.done.set, (), native)
        finally:
            self._close()


_WRITERS: Final[weakref.WeakSet[_Writer]] = weakref.WeakSet()


def _forget_writers() -> None:
    """In a forked child: the writer threads did not come along, and the log is the parent's."""
    for writer in list(_WRITERS):
        writer.closing = True
    _WRITERS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_writers)


def _filesystem(device: int) -> str | None:
    """The type of the mounted filesystem of ``device`` (from ``/proc/self/mountinfo``), if known."""
    wanted = f"{os.major(device)}:{os.minor(device)}"
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:
                fields, _, rest = line.partition(" - ")
                parts = fields.split()
                if len(parts) > 2 and parts[2] == wanted and rest:
                    return rest.split()[0]
    except OSError:
        return None
    return None


class _Options(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    fsync: bool = False
    inline: bool = True
    lock_timeout: float = 30.0

    def __post_init__(self) -> None:
        if not 0 < self.lock_timeout <= MAX_SECONDS:
            raise ValueError(f"lock-timeout must be between 0 and {MAX_SECONDS:g} seconds")


def _options(kind: str, config: SinkConfig | WitnessConfig) -> _Options:
    try:
        return msgspec.convert(dict(config.options), _Options)
    except msgspec.ValidationError as error:
        raise ValueError(f"invalid options for the {kind} ({error})") from None


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


async def _lock(path: Path, patience: float) -> int:
    """
    Take the exclusive lock beside ``path``; its descriptor.

    Raises:
        SinkFailure: Another process holds it past ``patience`` seconds.
    """
    lock = lock_path(path)
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with anyio.move_on_after(patience):
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    await anyio.sleep(0.02)
                    continue
                mine = f"{os.getpid()}\n".encode()
                # A process that opens the log again (the warm hook worker, per
                # burst of calls) finds its own id there: nothing to write.
                if os.pread(descriptor, len(mine) + 1, 0) != mine:
                    os.ftruncate(descriptor, 0)
                    os.pwrite(descriptor, mine, 0)
                return descriptor
        holder = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip() or "unknown"
    except BaseException:
        os.close(descriptor)
        raise
    os.close(descriptor)
    raise SinkFailure(
        f"The audit log {str(path)!r} stayed locked by another gateway (process {holder}) "
        f"for {patience:g} s; only one may write it at a time."
    )


class _FileSink:
    format = "jsonl"
    # Every call that may block runs in a worker thread; the loop is held
    # only by a small append to a file held in memory (see `_inline`).
    shares_loop = True

    def __init__(self, config: SinkConfig) -> None:
        if not config.path:
            raise ValueError(f"the {self.format} sink needs a `path`")
        named = audit_format(config.path)
        if named != self.format:
            wanted = ".jsonl" if self.format == "jsonl" else ".msgpack"
            raise ValueError(
                f"the {self.format} sink cannot write {config.path!r}: a name like that is read as "
                f"{'MessagePack' if named == 'msgpack' else 'JSON lines'}; name the file *{wanted} "
                f"or use the {named} sink"
            )
        options = _options(f"{self.format} sink", config)
        # A relative path is in the state directory: one log per user, shared by
        # every hook and the service, out of the workspace an agent writes.
        self.path = state_path(config.path)
        self.fsync = options.fsync
        self.inline_allowed = options.inline
        self.lock_timeout = options.lock_timeout
        self._lock_fd: int | None = None
        self._fd: int | None = None
        self._mutex = threading.Lock()
        self._end = 0
        self._start = 0
        self._offsets: deque[tuple[int, int]] = deque(maxlen=_OFFSETS)
        self._fenced = False
        self._keep_through = -1
        # Whether small batches may be written from the loop (known once the
        # log is open), and until when a slow one sent them to the thread.
        self.inline = False
        self._inline_after = 0.0
        self._strikes = 0
        self._writer: _Writer | None = None
        # The loop batches are answered on: the one the log was opened on,
        # looked up again only if a write comes from another thread.
        self._token: tuple[int, anyio.lowlevel.EventLoopToken] | None = None

    @property
    def audit_path(self) -> str:
        """The log file (the approval service serves it read-only)."""
        return str(self.path)

    async def open(self) -> ChainTip | None:
        if not self.path.parent.is_dir():  # a stat, as opening the lock beside it is
            await anyio.Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock_fd = await _lock(self.path, self.lock_timeout)
        try:
            tip = await anyio.to_thread.run_sync(self._open)
        except BaseException:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            os.close(self._lock_fd)
            self._lock_fd = None
            raise
        self._token = (threading.get_ident(), anyio.lowlevel.current_token())
        self._writer = _Writer(self.path.name, self._append, self._close)
        return tip

    def _open(self) -> ChainTip | None:
        exists = self.path.exists()
        try:
            tail = read_tail(self.path) if exists else None
        except AuditLogError as error:
            raise SinkFailure(
                f"The audit log {str(self.path)!r} cannot be continued: {error.reason}."
            ) from None
        set_aside: Path | None = None
        if tail is not None and tail.torn:
            set_aside = self._set_aside(tail.end, tail.size)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        self._fd = os.open(self.path, flags, 0o600)
        status = os.fstat(self._fd)
        self._end = self._start = status.st_size
        self.inline = (
            not self.fsync
            and self.inline_allowed
            and stat.S_ISREG(status.st_mode)
            and _filesystem(status.st_dev) in LOCAL_FILESYSTEMS
        )
        if tail is None or tail.last is None:
            return None
        last = tail.last
        recovery = None
        if set_aside is not None:
            recovery = Recovery(
                found=(
                    f"The log ended in {tail.torn} bytes that are not a whole record, after the "
                    f"record with sequence number {last.seq}: a write cut short by a crash or a "
                    f"full disk. They were set aside in {set_aside.name}."
                ),
                torn_bytes=tail.torn,
                set_aside=str(set_aside),
            )
        elif not ended_cleanly(last):
            recovery = Recovery(
                found=(
                    f"The log ended after the record with sequence number {last.seq} without its "
                    "gateway's closing record: the gateway that wrote it crashed or was killed."
                )
            )
        first = tail.first
        return ChainTip(
            seq=last.seq,
            digest=last.digest,
            genesis=None if first is None else first.digest,
            recovery=recovery,
        )

    def _set_aside(self, end: int, size: int) -> Path:
        """Move the bytes after the last whole record to a file of their own; truncate the log there."""
        with open(self.path, "rb") as log:
            log.seek(end)
            torn = log.read(size - end)
        for attempt in range(100):
            target = self.path.with_name(f"{self.path.name}.torn-{_stamp()}-{attempt}")
            try:
                descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            try:
                os.write(descriptor, torn)
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
            break
        else:  # pragma: no cover - a hundred files of the same microsecond
            raise OSError("no name was free to set the torn bytes aside")
        with open(self.path, "r+b") as log:
            log.truncate(end)
            os.fsync(log.fileno())
        return target

    async def write(self, event: Event) -> None:
        await self.write_batch([event])

    def _open_writer(self) -> _Writer:
        writer = self._writer
        if writer is not None and writer.closing:
            raise SinkFailure(
                "the sink is closed, or belongs to the process that opened it (this one is a fork)"
            )
        if writer is None or self._fd is None:
            raise RuntimeError("the sink is not open")
        return writer

    def _encode(self, events: Sequence[Event]) -> tuple[bytes, list[tuple[int, int]]]:
        """The records of ``events`` as one write, and where each one ends in it."""
        records: list[bytes] = []
        ends: list[tuple[int, int]] = []
        size = 0
        for event in events:
            record = encode_event(event, self.format)
            records.append(record)
            size += len(record)
            ends.append((event.seq, size))
        return b"".join(records), ends

    def write_now(self, events: Sequence[Event]) -> bool:
        """Append ``events`` from the event loop when `_inline` may (whether it did); else the bus awaits `write_batch`."""
        self._open_writer()
        if not self.inline or time.monotonic() < self._inline_after:
            return False
        data, ends = self._encode(events)
        return self._inline(data, ends)

    def finished(self) -> float:
        """When (``time.monotonic()``) the writer thread last finished a write; 0 before the first."""
        writer = self._writer
        return 0.0 if writer is None else writer.finished

    async def write_batch(self, events: Sequence[Event]) -> None:
        writer = self._open_writer()
        data, ends = self._encode(events)
        if self._inline(data, ends):
            return
        token = self._token
        if token is None or token[0] != threading.get_ident():
            token = self._token = (threading.get_ident(), anyio.lowlevel.current_token())
        # One thread hop for write, flush and (optionally) fsync of the whole
        # batch: a review waits for this, and a hop costs more than a write.
        # Cancelled (the bus stopped waiting), the batch is still written or
        # fenced off by the writer; nobody waits for its answer.
        handoff = _Handoff(data, ends)
        writer.hand(handoff, token[1])
        await handoff.done.wait()
        if handoff.error is not None:
            raise handoff.error

    def _inline(self, data: bytes, ends: list[tuple[int, int]]) -> bool:
        """
        Append a small batch from the event loop, when that cannot wait on anything; whether it did.

        Only without a sync, to a regular file on a filesystem held in memory, and
        never behind a fence that holds the file (the lock is not waited
        for). `INLINE_STRIKES` writes in a row that take longer than
        `INLINE_SLOW` all the same (a disk flushing under pressure) send
        writes to the thread for `INLINE_PAUSE` seconds.
        """
        if not self.inline or len(data) > INLINE_BYTES:
            return False
        began = time.monotonic()
        if began < self._inline_after or not self._mutex.acquire(blocking=False):
            return False
        try:
            self._append_locked(data, ends)
        finally:
            self._mutex.release()
            ended = time.monotonic()
            self._strikes = self._strikes + 1 if ended - began > INLINE_SLOW else 0
            if self._strikes >= INLINE_STRIKES:
                self._strikes = 0
                self._inline_after = ended + INLINE_PAUSE
        return True

    def _append(self, data: bytes, ends: list[tuple[int, int]]) -> None:
        with self._mutex:
            self._append_locked(data, ends)

    def _append_locked(self, data: bytes, ends: list[tuple[int, int]]) -> None:
        if self._fenced or self._fd is None:
            raise SinkFailure("the sink was fenced; it writes nothing more")
        start = self._end
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
            if self.fsync:
                os.fsync(self._fd)
        except OSError:
            # Take back what part of the batch reached the file: a torn
            # record must not stay for the next event to be chained after.
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, start)
            raise
        self._end = start + len(data)
        self._offsets.extend((seq, start + end) for seq, end in ends)

    def fence(self, keep_through: int) -> None:
        """Write nothing more; cut the log right after record ``keep_through`` (in the background, or on closing)."""
        self._keep_through = keep_through
        self._fenced = True
        threading.Thread(target=self._cut, name="gateway audit fence", daemon=True).start()

    def _cut(self) -> None:
        with self._mutex:
            self._cut_locked()

    def _cut_locked(self) -> None:
        if self._fd is None or not self._fenced:
            return
        cut = self._start
        for seq, end in self._offsets:
            if seq > self._keep_through:
                break
            cut = end
        if cut < self._end:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, cut)
                os.fsync(self._fd)
            self._end = cut

    async def aclose(self) -> None:
        writer = self._writer
        if writer is None or os.getpid() != writer.pid:
            # Never opened, or opened by the parent of this forked process:
            # this process's copies of the descriptors are closed, nothing synced.
            await anyio.to_thread.run_sync(self._close_descriptors)
            return
        writer.stop()
        # Bounded: a writer stuck in a write closes the log when it returns.
        await anyio.to_thread.run_sync(writer.thread.join, CLOSE_PATIENCE, abandon_on_cancel=True)

    def _close_descriptors(self) -> None:
        for descriptor in (self._fd, self._lock_fd):
            if descriptor is not None:
                with contextlib.suppress(OSError):
                    os.close(descriptor)
        self._fd = self._lock_fd = None

    def _close(self) -> None:
        with self._mutex:
            # A fence's cut the background thread has not made yet is made
            # now: a log must not close still saying what callers were not told.
            self._cut_locked()
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.fsync(self._fd)
                os.close(self._fd)
                self._fd = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


class JsonLinesSink(_FileSink):
    """Appends each event as one line of JSON."""

    format = "jsonl"


class MessagePackSink(_FileSink):
    """Appends each event as a length-prefixed MessagePack record."""

    format = "msgpack"


# ── witnesses ──


class FileWitness:
    """
    Appends every genesis and checkpoint, as JSON lines, to a file away from the log.

    The file may be shared by several gateways (each line names its chain):
    every append takes a lock on the file, and is synced before it counts.
    Give it to ``gateway verify --witness FILE``.
    """

    shares_loop = True

    def __init__(self, config: WitnessConfig) -> None:
        if not config.path:
            raise ValueError("the file witness needs a `path`")
        unknown = set(config.options)
        if unknown:
            raise ValueError(f"the file witness takes no options, not {sorted(unknown)}")
        # A relative path is in the state directory, beside the default log.
        self.path = state_path(config.path)

    async def attest(self, record: ChainGenesis | ChainCheckpoint) -> None:
        await anyio.to_thread.run_sync(self._append, encode_event(record, "jsonl"))

    def _append(self, line: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(self.path, flags, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            os.write(descriptor, line)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)

    async def aclose(self) -> None:
        return None


class _WebhookOptions(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    token_file: str | None = None
    timeout: float = 5.0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class WebhookWitness:
    """
    Posts every genesis and checkpoint as JSON to a URL (with a bearer token, if configured).

    A 2xx answer means the record is kept; anything else is a failure the
    gateway records. Options: ``token-file`` (the bearer token), ``timeout``.
    """

    shares_loop = True

    def __init__(self, config: WitnessConfig) -> None:
        if not config.url or not config.url.startswith(("http://", "https://")):
            raise ValueError("the webhook witness needs an http:// or https:// `url`")
        try:
            options = msgspec.convert(dict(config.options), _WebhookOptions)
        except msgspec.ValidationError as error:
            raise ValueError(f"invalid options for the webhook witness ({error})") from None
        self.url = config.url
        self.timeout = options.timeout
        self.token = (
            Path(options.token_file).expanduser().read_text("utf-8").strip()
            if options.token_file
            else None
        )

    async def attest(self, record: ChainGenesis | ChainCheckpoint) -> None:
        await anyio.to_thread.run_sync(
            self._post, encode_event(record, "jsonl"), abandon_on_cancel=True
        )

    def _post(self, body: bytes) -> None:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")  # noqa: S310 -- the scheme is checked when built
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
        try:
            with opener.open(request, timeout=self.timeout) as response:
                response.read(65_536)
        except urllib.error.HTTPError as error:
            error.close()  # it holds the response, and the response its socket
            raise OSError(f"the witness answered HTTP {error.code}") from None

    async def aclose(self) -> None:
        return None
