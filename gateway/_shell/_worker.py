"""
A worker process that runs the bashlex reader under a hard deadline and memory cap.

bashlex is pure Python, slow on some inputs (quadratic on nested ``$( )``,
tens of microseconds a byte on long words), and a thread cannot interrupt it.
Large or deeply bracketed sources are therefore read in a separate Python
process: if it does not answer before the deadline it is killed, and the
reading is unmeasured. The process runs only the project's own reader code on
the text it is sent; it never runs the text.

Frames on the pipes are a 4-byte big-endian length followed by MessagePack.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import struct
import subprocess  # noqa: TID251 -- starts the project's own parser worker; never runs planned text
import sys
import threading
import time
from typing import IO, Final

import msgspec

from gateway._shell._limits import WORKER_MEMORY_BYTES, WORKER_START_SECONDS
from gateway._shell._masks import Mask
from gateway._shell._tree import Program

__all__ = ["WorkerPool", "WorkerResult", "serve"]

_HEADER: Final = struct.Struct(">I")
_MAX_WORKERS: Final = 4
_BOOT: Final = (
    "import sys, json; sys.path[:0] = json.loads(sys.argv[1]); "
    "from gateway._shell._worker import serve; serve()"
)


class WorkerRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What the worker is asked: a text, the masks to read it with, and its deadline (monotonic clock)."""

    text: str
    masks: tuple[Mask, ...]
    deadline: float


class WorkerResult(msgspec.Struct, frozen=True, kw_only=True):
    """What the worker answers: the bashlex reading, or why there is none."""

    program: Program | None
    reason: str | None
    offset: int = 0


_ENCODER: Final = msgspec.msgpack.Encoder()
_DECODER: Final = msgspec.msgpack.Decoder(WorkerResult)
_REQUESTS: Final = msgspec.msgpack.Decoder(WorkerRequest)


def _limit_memory() -> None:
    """Cap the worker's address space at its size now plus the budget (Linux only)."""
    try:
        import resource

        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[0])
        current = pages * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = current + WORKER_MEMORY_BYTES
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (OSError, ValueError, ImportError):  # pragma: no cover - not Linux
        return


def _read_exact(stream: IO[bytes], size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def serve() -> None:  # pragma: no cover - runs in the worker process
    """The worker's main loop: read a source, answer with its bashlex reading, until EOF."""
    from gateway._shell._bashlex import read_with_bashlex
    from gateway._shell._source import Source
    from gateway._shell._words import Unreadable

    _limit_memory()
    sys.setrecursionlimit(4000)
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    stdout.write(_HEADER.pack(0))  # ready: the imports are done
    stdout.flush()
    while True:
        header = _read_exact(stdin, _HEADER.size)
        if header is None:
            return
        payload = _read_exact(stdin, _HEADER.unpack(header)[0])
        if payload is None:
            return
        request = _REQUESTS.decode(payload)
        try:
            result = WorkerResult(
                program=read_with_bashlex(Source(request.text), request.masks, request.deadline),
                reason=None,
            )
        except Unreadable as unreadable:
            result = WorkerResult(program=None, reason=unreadable.reason, offset=unreadable.offset)
        except MemoryError:
            result = WorkerResult(program=None, reason="bashlex ran out of its memory budget")
        except RecursionError:
            result = WorkerResult(program=None, reason="bashlex ran out of recursion depth")
        answer = _ENCODER.encode(result)
        stdout.write(_HEADER.pack(len(answer)) + answer)
        stdout.flush()


class _Worker:
    def __init__(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 -- a fixed argv: this interpreter and the project's own module
            [sys.executable, "-c", _BOOT, json.dumps(sys.path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self.started = time.monotonic()
        self.ready = False

    def wait_ready(self) -> bool:
        """Wait (at most `WORKER_START_SECONDS` from the start) for the worker's ready frame."""
        if self.ready:
            return True
        stdout = self.process.stdout
        if stdout is None:  # pragma: no cover - always piped
            return False
        fd = stdout.fileno()
        header = b""
        deadline = self.started + WORKER_START_SECONDS
        while len(header) < _HEADER.size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return False
            chunk = os.read(fd, _HEADER.size - len(header))
            if not chunk:
                return False
            header += chunk
        self.ready = _HEADER.unpack(header)[0] == 0
        return self.ready

    def kill(self) -> None:
        """Kill the process and close both pipes (an unclosed pipe is a leaked descriptor)."""
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.process.wait(timeout=1.0)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def ask(self, request: WorkerRequest, deadline: float) -> WorkerResult | None:
        """Send a request; return the answer, or ``None`` when the deadline passed or the worker died."""
        stdin = self.process.stdin
        stdout = self.process.stdout
        if stdin is None or stdout is None:  # pragma: no cover - always piped
            return None
        payload = _ENCODER.encode(request)
        try:
            stdin.write(_HEADER.pack(len(payload)) + payload)
            stdin.flush()
        except OSError:
            return None
        fd = stdout.fileno()
        buffer = b""
        needed = _HEADER.size
        have_header = False
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, max(needed - len(buffer), 1 << 16))
            if not chunk:
                return None
            buffer += chunk
            if not have_header and len(buffer) >= _HEADER.size:
                needed = _HEADER.size + _HEADER.unpack(buffer[: _HEADER.size])[0]
                have_header = True
            if have_header and len(buffer) >= needed:
                try:
                    return _DECODER.decode(buffer[_HEADER.size : needed])
                except msgspec.DecodeError:
                    return None


class WorkerPool:
    """
    Worker processes for bashlex, started on demand and reused.

    At most a few exist at once; a caller that finds none free waits (within
    its own deadline) for one. A worker that misses a deadline, dies or
    answers garbage is killed and forgotten, so the next caller starts a fresh
    one.
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._idle: list[_Worker] = []
        self._count = 0
        atexit.register(self.close)

    def read(self, text: str, masks: tuple[Mask, ...], deadline: float) -> WorkerResult:
        """Read ``text`` with bashlex in a worker; the answer, or a reason, by ``deadline``."""
        worker = self._acquire(deadline)
        if worker is None:
            return WorkerResult(
                program=None, reason="no bashlex worker became free within the budget"
            )
        if not worker.ready:
            # Starting a worker is not the text's cost: the time it takes
            # (bounded by WORKER_START_SECONDS) is added to the reading's budget.
            waited_from = time.monotonic()
            if not worker.wait_ready():
                worker.kill()
                self._release(None)
                return WorkerResult(program=None, reason="the bashlex worker did not start")
            deadline += time.monotonic() - waited_from
        result = worker.ask(WorkerRequest(text=text, masks=masks, deadline=deadline), deadline)
        if result is None:
            worker.kill()
            self._release(None)
            late = time.monotonic() >= deadline
            reason = (
                "bashlex did not finish within the time budget"
                if late
                else "the bashlex worker failed"
            )
            return WorkerResult(program=None, reason=reason)
        self._release(worker)
        return result

    def _acquire(self, deadline: float) -> _Worker | None:
        with self._lock:
            while True:
                if self._idle:
                    return self._idle.pop()
                if self._count < _MAX_WORKERS:
                    self._count += 1
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._lock.wait(remaining):
                    return None
        try:
            return _Worker()
        except OSError:
            with self._lock:
                self._count -= 1
                self._lock.notify()
            return None

    def _release(self, worker: _Worker | None) -> None:
        with self._lock:
            if worker is None or worker.process.poll() is not None:
                self._count -= 1
            else:
                self._idle.append(worker)
            self._lock.notify()

    def close(self) -> None:
        """Stop every idle worker (busy ones stop when their caller releases them)."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for worker in idle:
            with contextlib.suppress(OSError):
                if worker.process.stdin is not None:
                    worker.process.stdin.close()
            worker.kill()
