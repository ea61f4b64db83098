"""
The warm worker: a gateway kept loaded for the hooks of one config, so a hook call costs a connection.

``gateway-hook HOST`` starts it (``gateway_relay._worker``) when no
``gateway serve`` listens and no worker answers on its socket
(``workers/KEY.sock`` in the state directory, user-only; the key names the
config file, the interpreter, the code and the environment that change the
answer, `gateway_relay.worker_key`). It then answers each hook exactly as a
review in the hook's own process would (``gateway_hooks._standalone``):

* the same config, loaded once; before every review each file read at
  start (the config, the files it names, the installed plugins' entry
  points) is read again, and each directory on its path listed again; when
  one changed the worker reviews nothing, answers ``RETIRED`` and exits, so
  the hook starts a fresh one: an edit is never answered by a stale worker;
* the same options per call: ``--confine`` routing and the hook's timeout
  come with each request; asks go to the host's own prompt, as in-process;
* the same record: one gateway writes the audit log, opened when the first
  call comes and closed `LINGER` seconds after the last, so the log's lock
  is held only while hooks are answered (another writer takes its turn
  between bursts), and parallel hooks share it instead of queueing on it.
  The hook's process id comes from the kernel, as the service's does.

One worker per key: it holds ``KEY.lock`` (with its process id) for its
life, and a second one started at the same time says ``busy`` and exits.
After `IDLE` seconds without a call, on SIGTERM (``gateway-hook
--stop-workers``), or when its socket is removed, it finishes the reviews
it began, records its end and exits. Its standard error goes to ``KEY.log``.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib.metadata
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final

import anyio
from anyio.abc import SocketAttribute, SocketListener, SocketStream, TaskStatus
from anyio.streams.buffered import BufferedByteReceiveStream
from gateway_relay import RETIRED, read_worker_request_line, reply_frame
from gateway_relay._listen import bind_hook_socket, peer_pid
from gateway_relay._worker import listening

from gateway import Gateway, GatewayConfig, PluginLoadError
from gateway.config import state_path
from gateway_hooks import MAX_EVENT_BYTES, HookReply, answer_connected, load_host
from gateway_hooks._routing import Routing
from gateway_hooks._standalone import (
    hook_config,
    hook_routing,
    refusal,
    refuse_beside_service,
)

__all__ = ["IDLE", "LINGER", "main"]

IDLE: Final = 600.0
"""Seconds without a call after which the worker exits."""

LINGER: Final = 0.25
"""Seconds the gateway (and the audit log's lock) is kept after the last call of a burst."""

READ_TIMEOUT: Final = 10.0
"""Seconds a hook may take to send its request."""

SEND_TIMEOUT: Final = 5.0
"""Seconds sending an answer may take."""

DRAIN: Final = 30.0
"""Seconds the reviews already begun may take once the worker stops."""

_SKIPPED_SUFFIXES: Final = (".py", ".pyc", ".so", ".pth", ".typed")
_SKIPPED_ROOTS: Final = ("/proc/", "/sys/", "/dev/")


class _Inputs:
    """The files read while the config was loaded and the gateway first started, and their content."""

    def __init__(self) -> None:
        self.recording = False
        self.paths: set[str] = set()
        self.excluded: tuple[str, ...] = ()
        self.contents: dict[str, bytes | None] = {}
        self.listings: dict[str, list[str] | None] = {}

    def audit(self, event: str, arguments: tuple[object, ...]) -> None:
        if not self.recording:
            return
        if event != "open" or len(arguments) < 3:
            return
        path, mode, flags = arguments[0], arguments[1], arguments[2]
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str):
            return
        reads = (
            isinstance(mode, str) and "r" in mode and "+" not in mode
            if mode is not None
            else isinstance(flags, int)
            and flags & os.O_ACCMODE == os.O_RDONLY
            and not flags & os.O_CREAT
        )
        if reads:
            self.paths.add(os.path.abspath(path))

    def freeze(self) -> None:
        """Keep the content of every regular file read (not code, not the logs the gateway writes)."""
        self.recording = False
        for path in sorted(self.paths):
            if (
                path.endswith(_SKIPPED_SUFFIXES)
                or path.startswith((*_SKIPPED_ROOTS, *self.excluded))
                or not os.path.isfile(path)
            ):
                continue
            self.contents[path] = _content(path)
        # Where distributions are installed: a plugin installed or removed changes a listing.
        for directory in sorted({os.path.abspath(entry or ".") for entry in sys.path}):
            if os.path.isdir(directory) and not directory.startswith(self.excluded):
                self.listings[directory] = _listing(directory)

    def changed(self) -> str | None:
        """The first file (or directory of installed packages) not as it was at start, or ``None``."""
        for path, content in self.contents.items():
            if _content(path) != content:
                return path
        for directory, listing in self.listings.items():
            if _listing(directory) != listing:
                return directory
        return None


def _listing(directory: str) -> list[str] | None:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return None


def _read_plugins_once() -> None:
    """
    Read the installed entry points once for the worker's life.

    Every gateway the worker opens looks its plugins up again, and reading
    every distribution's entry points is most of what opening one costs.
    The worker retires when any file or directory it read them from changes
    (`_Inputs`), so the answer it caches is never stale.
    """
    original: Callable[..., Any] = importlib.metadata.entry_points
    cache: dict[tuple[tuple[str, object], ...], Any] = {}

    def entry_points(**selection: Any) -> Any:
        key = tuple(sorted(selection.items()))
        if key not in cache:
            cache[key] = original(**selection)
        return cache[key]

    importlib.metadata.entry_points = entry_points  # this process only


def _content(path: str) -> bytes | None:
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except OSError:
        return None


class _Session:
    """The gateway the calls share: opened by the first, closed `LINGER` seconds after the last."""

    def __init__(self, config: GatewayConfig, group: anyio.abc.TaskGroup) -> None:
        self.config = config
        self._group = group
        self._lock = anyio.Lock()
        self._gateway: Gateway | None = None
        self._release: anyio.Event | None = None
        self._closed: anyio.Event | None = None
        self._users = 0
        self._unused = anyio.Event()
        self._last = time.monotonic()

    async def _hold(self, *, task_status: TaskStatus[Gateway | BaseException]) -> None:
        release = self._release = anyio.Event()
        closed = self._closed = anyio.Event()
        started = False
        try:
            async with Gateway(self.config) as gateway:
                started = True
                task_status.started(gateway)
                await release.wait()
        except Exception as error:  # noqa: BLE001 -- handed to the call that opened it, which blocks
            if not started:
                task_status.started(error)
            else:
                sys.stderr.write(f"gateway-hook worker: the gateway stopped badly: {error!r}\n")
        finally:
            closed.set()

    @contextlib.asynccontextmanager
    async def use(self) -> AsyncIterator[Gateway]:
        async with self._lock:
            if self._gateway is None:
                refuse_beside_service(self.config)
                opened = await self._group.start(self._hold)
                if isinstance(opened, BaseException):
                    raise opened
                self._gateway = opened
            self._users += 1
        try:
            yield self._gateway
        finally:
            self._users -= 1
            self._last = time.monotonic()
            if not self._users:
                self._unused.set()

    @property
    def busy(self) -> bool:
        return self._users > 0

    @property
    def last(self) -> float:
        return self._last

    async def close(self) -> None:
        """Close the gateway (its end recorded, the log's lock released) once no call uses it."""
        async with self._lock:
            if self._users:
                self._unused = anyio.Event()
                await self._unused.wait()
            if self._gateway is None or self._release is None or self._closed is None:
                return
            self._release.set()
            await self._closed.wait()
            self._gateway = None

    async def linger(self) -> None:
        """Close the gateway whenever it has been unused for `LINGER` seconds."""
        while True:
            await anyio.sleep(LINGER / 4)
            idle = time.monotonic() - self._last
            if self._gateway is not None and not self._users and idle >= LINGER:
                await self.close()


class _Worker:
    def __init__(
        self,
        config: GatewayConfig,
        config_path: str | None,
        path: Path,
        inputs: _Inputs,
        idle: float,
    ) -> None:
        self.config = config
        self.routing: Routing = hook_routing(config, config_path)
        self.path = path
        self.inputs = inputs
        self.idle = idle
        self.stop = anyio.Event()
        self.retiring = False
        self.stopped = anyio.Event()

    async def _request(self, client: SocketStream) -> tuple[str, bytes, bool, float]:
        stream = BufferedByteReceiveStream(client)
        with anyio.fail_after(READ_TIMEOUT):
            host, length, confine, timeout = read_worker_request_line(
                await stream.receive_until(b"\n", 4096)
            )
            if length > MAX_EVENT_BYTES:
                raise ValueError(f"The hook event is larger than {MAX_EVENT_BYTES} bytes.")
            return host, await stream.receive_exactly(length), confine, timeout

    async def _review(
        self, session: _Session, client: SocketStream, request: tuple[str, bytes, bool, float]
    ) -> HookReply | None:
        name, data, confine, timeout = request
        try:
            host = load_host(name)
        except PluginLoadError as error:
            return HookReply.block(str(error))
        try:
            with anyio.fail_after(timeout):
                async with session.use() as gateway:
                    return await answer_connected(
                        client,
                        host,
                        gateway,
                        data,
                        allow=self.config.hosts.allow,
                        within=timeout,
                        hook_pid=peer_pid(client.extra(SocketAttribute.raw_socket, None)),  # noqa: S610 -- anyio's typed attribute
                        routing=self.routing if confine else None,
                    )
        except Exception as error:  # noqa: BLE001 -- every failure blocks the call with one sentence
            sentence = refusal(error, timeout)
            if sentence is None:
                sentence = (
                    f"The warm worker failed ({type(error).__name__}), so the call is blocked."
                )
                sys.stderr.write(f"gateway-hook worker: {error!r}\n")
            return HookReply.block(sentence)

    async def handle(self, session: _Session, client: SocketStream) -> None:
        async with client:
            try:
                request = await self._request(client)
            except ValueError as error:
                reply: HookReply | None = HookReply.block(str(error))
            except (TimeoutError, anyio.IncompleteRead, anyio.DelimiterNotFound):
                reply = HookReply.block("The hook's request did not arrive whole.")
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return
            else:
                changed = None if self.retiring else self.inputs.changed()
                if self.retiring or changed is not None:
                    if changed is not None:
                        sys.stderr.write(f"gateway-hook worker: {changed} changed; retiring.\n")
                    await self._retire(client)
                    return
                reply = await self._review(session, client, request)
            if reply is None:
                return
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(SEND_TIMEOUT),
                contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError),
            ):
                await client.send(reply_frame(reply.status, reply.stdout, reply.stderr))

    async def _retire(self, client: SocketStream) -> None:
        """Review nothing more; once stopped (the log closed, the lock released), answer `RETIRED`."""
        self.retiring = True
        self.stop.set()
        with anyio.move_on_after(DRAIN + SEND_TIMEOUT):
            await self.stopped.wait()
        with (
            anyio.move_on_after(SEND_TIMEOUT),
            contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError),
        ):
            await client.send(RETIRED)

    async def watch(self, session: _Session) -> None:
        """Stop after `IDLE` seconds without a call, or when the socket is no longer this worker's."""
        identity = _identity(self.path)
        while not self.stop.is_set():
            await anyio.sleep(0.5)
            if _identity(self.path) != identity or (
                not session.busy and time.monotonic() - session.last >= self.idle
            ):
                self.stop.set()

    async def signals(self) -> None:
        """SIGTERM (``gateway-hook --stop-workers``) stops the worker the way idleness does."""
        with anyio.open_signal_receiver(signal.SIGTERM) as received:
            async for _ in received:
                self.stop.set()

    async def run(
        self, listener_socket: socket.socket, ready: Callable[[], None], lock: int
    ) -> None:
        listener = await SocketListener.from_socket(listener_socket)
        identity = _identity(self.path)
        async with anyio.create_task_group() as outer:
            outer.start_soon(self.signals)
            session = _Session(self.config, outer)
            # Loaded and started once before the first hook is answered: the
            # rules' examples checked, every file it reads noted.
            self.inputs.recording = True
            try:
                async with session.use():
                    pass
            except Exception as error:  # noqa: BLE001 -- each call tries again, and blocks with the reason
                sys.stderr.write(f"gateway-hook worker: {refusal(error, 0) or repr(error)}\n")
            finally:
                self.inputs.freeze()
            _read_plugins_once()
            outer.start_soon(session.linger)
            async with anyio.create_task_group() as hooks:

                async def handle(client: SocketStream) -> None:
                    await self.handle(session, client)

                async with listener, anyio.create_task_group() as accepting:
                    accepting.start_soon(listener.serve, handle, hooks)
                    accepting.start_soon(self.watch, session)
                    ready()
                    await self.stop.wait()
                    accepting.cancel_scope.cancel()
                if _identity(self.path) == identity:
                    with contextlib.suppress(OSError):
                        self.path.unlink()  # new hooks start a new worker; those connected are answered
                hooks.cancel_scope.deadline = anyio.current_time() + DRAIN
                with anyio.CancelScope(shield=True), anyio.move_on_after(DRAIN):
                    await session.close()
                os.close(lock)  # another worker of this key may start now
                self.stopped.set()
            outer.cancel_scope.cancel()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = path.lstat()
    except OSError:
        return None
    return (status.st_dev, status.st_ino)


def _say(line: str) -> None:
    """Tell the starting hook, once, then let standard output go nowhere."""
    with contextlib.suppress(OSError):
        os.write(1, line.encode() + b"\n")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


def _take_lock(path: Path) -> int | None:
    """Hold ``KEY.lock`` for the worker's life, with its process id; ``None`` when another worker does."""
    descriptor = os.open(
        path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
    )
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        return None
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
    return descriptor


def _lock_within(path: Path, seconds: float) -> int | None:
    """
    The life lock, waiting while a retiring worker of this key lets it go; ``None`` when a live one listens.
    """
    deadline = time.monotonic() + seconds
    while True:
        lock = _take_lock(path)
        if lock is not None:
            return lock
        if listening(str(path)) or time.monotonic() >= deadline:
            return None
        time.sleep(0.02)


def main(argv: list[str] | None = None) -> int:
    """Run the warm worker (``python -m gateway_hooks._worker --socket PATH [--config FILE]``)."""
    parser = argparse.ArgumentParser(prog="gateway-hook worker", description=__doc__)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--config")
    parser.add_argument("--idle", type=float, default=IDLE)
    arguments = parser.parse_args(argv)
    path = Path(arguments.socket)
    lock = _lock_within(path, 30.0)
    if lock is None:
        _say("busy")
        return 0
    inputs = _Inputs()
    sys.addaudithook(inputs.audit)
    try:
        inputs.recording = True
        with contextlib.redirect_stdout(sys.stderr):
            config = hook_config(arguments.config)
        # Not the logs it writes, nor its own directory (the working one, first on its path).
        inputs.excluded = (
            *(str(state_path(sink.path)) for sink in config.sinks.values() if sink.path),
            str(path.parent.absolute()),
        )
        listener = bind_hook_socket(path)
    except Exception as error:  # noqa: BLE001 -- told to the hook, which reviews in-process
        _say(f"error: {refusal(error, 0) or repr(error)}")
        return 1
    worker = _Worker(config, arguments.config, path, inputs, max(1.0, arguments.idle))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host's terminal is not the worker's
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    with contextlib.redirect_stdout(sys.stderr):
        anyio.run(worker.run, listener, lambda: _say("ready"), lock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
