"""
``gateway-hook HOST``: the process an agent host starts for every tool call, kept fast.

Hosts (Claude Code, Codex, Gemini CLI, Cursor) run a hook command for each
tool call, so its start-up is paid every time. This module imports only the
standard library. It reads the one event on standard input (bounded in time
and size) and then:

1. **forwards** it to a running ``gateway serve`` over the service's Unix
   socket (``~/.local/state/agent-gateway/gateway.sock``, user-only; no
   token crosses a TCP port) and relays the answer, after checking it;
2. or, when no service listens there, **forwards it to the warm worker**:
   a process of the same user holding a gateway loaded with the same
   ``--config`` (or the embedded default), started by the first hook that
   needs it and gone after an idle while (``gateway_hooks._worker``); it
   answers exactly what a review in this process would, at a fraction of
   the cost (``gateway_relay._worker`` starts it);
3. or, when the worker cannot be had (``--no-worker``, it does not start,
   or it retired), **reviews it in-process**: the same answer from a
   gateway started in this process, at the cost of importing it.

``--require-service`` blocks instead of reviewing in-process. ``--server
URL --token-file FILE`` forwards to a service on another machine over HTTP
instead (``gateway_relay._remote``; only when asked for). Whatever goes
wrong — bad input, a service that fails, a slow answer, a signal, a bug —
the process exits 2 with one sentence on standard error, which every host
reads as "block the call"; it never exits any other way, and never writes
anything to standard output but the host's answer.

Even the standard library is chosen for start-up: the C modules ``_socket``
and ``_signal`` stand in for ``socket`` and ``signal`` (which import
``enum``), and the socket protocol is framed text, not JSON (``json``
imports ``re``). The protocol, one connection per event:

* request: ``GATEWAY-HOOK 1 HOST LENGTH\n`` and the event's ``LENGTH`` bytes;
* reply: ``STATUS STDOUT-LENGTH STDERR-LENGTH\n`` and those bytes (UTF-8).

The warm worker listens on ``workers/KEY.sock`` in the state directory
(user-only, checked before each use); its request names the protocol
``GATEWAY-WORKER`` and carries the hook's options that change the answer
(``--confine``, the timeout); its answer is framed and checked as the
service's, or is ``RETIRED`` (it reviewed nothing: its config changed, it
is stopping), and the hook then starts a fresh one or reviews in-process.

``--confine`` routes allowed shell calls through ``gateway run`` (see
``gateway_hooks.Routing``); the approval service does not route, so such a
hook never forwards to it (the warm worker does route).

Usage: ``gateway-hook HOST [--config FILE] [--socket PATH] [--timeout SECONDS]
[--require-service | --in-process] [--confine] [--no-worker]``, or
``gateway-hook --stop-workers``.
"""

from __future__ import annotations

import _socket
import os
import select
import sys
import time

# Types are for the checker only: importing `typing` costs this process more
# than forwarding an event does (mypy treats a name TYPE_CHECKING as typing's).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, Final

# `signal` wraps the C module in enums (`import enum`): the C module is enough.
_signal: Any = __import__("_signal")

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAGIC",
    "MAX_REPLY_BYTES",
    "PROTOCOL",
    "RETIRED",
    "STDIN_TIMEOUT",
    "SUN_PATH_BYTES",
    "WORKER_ENVIRONMENT",
    "WORKER_MAGIC",
    "Blocked",
    "Options",
    "Reply",
    "at_socket_path",
    "check_reply",
    "default_socket",
    "forward",
    "forward_worker",
    "main",
    "parse_options",
    "read_request_line",
    "read_stdin",
    "read_worker_request_line",
    "reply_frame",
    "request_line",
    "state_directory",
    "stop_workers",
    "worker_directory",
    "worker_key",
    "worker_pid",
    "worker_request_line",
    "worker_socket",
]

PROTOCOL: Final = 1
"""The version of the socket protocol (the second word of the request line)."""

MAGIC: Final = b"GATEWAY-HOOK"
"""The first word of every request."""

WORKER_MAGIC: Final = b"GATEWAY-WORKER"
"""The first word of every request to a warm worker (a service refuses it: it does not route)."""

RETIRED: Final = b"RETIRED\n"
"""A warm worker's whole answer when it reviewed nothing and is going away (its config changed)."""

WORKER_ENVIRONMENT: Final = (
    "PATH",
    "HOME",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    "TMPDIR",
    "PYTHONPATH",
    "PYTHONHOME",
    "VIRTUAL_ENV",
)
"""
The variables of the hook's environment a review may depend on (where
``gateway run``, bubblewrap and plugins are found, where state lives): hooks whose
values differ get different warm workers. So do variables named
``GATEWAY_…`` or ``AGENT_GATEWAY_…``.
"""

MAX_HOST: Final = 64
"""The longest host name sent (lowercase letters, digits and ``-``)."""

STDIN_TIMEOUT: Final = 10.0
"""Seconds to wait for the host to finish writing the event."""

MAX_EVENT_BYTES: Final = 8 * 1024 * 1024
"""The largest event read (the same bound as ``gateway_hooks.MAX_EVENT_BYTES``)."""

MAX_REPLY_BYTES: Final = 1024 * 1024
"""The largest answer accepted from the service."""

DEFAULT_TIMEOUT: Final = 330.0
"""Seconds to wait for a verdict: longer than a person's 300 s on the approval page."""

_USAGE: Final = (
    "usage: gateway-hook HOST [--config FILE] [--socket PATH | --server URL [--token-file FILE]] "
    "[--timeout SECONDS] [--require-service | --in-process] [--confine] [--no-worker]"
)


class Blocked(Exception):
    """The hook cannot answer; it exits 2 with this one sentence, and the host blocks the call."""


class Reply:
    """What the process does: print ``stdout``, write ``stderr``, exit ``status`` (0 or 2)."""

    __slots__ = ("status", "stderr", "stdout")

    def __init__(self, status: int, stdout: str, stderr: str) -> None:
        self.status = status
        self.stdout = stdout
        self.stderr = stderr

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reply) and (self.status, self.stdout, self.stderr) == (
            other.status,
            other.stdout,
            other.stderr,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable: compared, never hashed

    def __repr__(self) -> str:
        return f"Reply({self.status!r}, {self.stdout!r}, {self.stderr!r})"


class Options:
    """The command line, with the ``[hook]`` table of ``--config`` filled in."""

    __slots__ = (
        "config",
        "confine",
        "host",
        "in_process",
        "require_service",
        "server",
        "socket",
        "timeout",
        "token_file",
        "worker",
    )

    def __init__(
        self,
        *,
        host: str,
        config: str | None,
        socket: str | None,
        timeout: float,
        require_service: bool,
        in_process: bool,
        server: str | None = None,
        token_file: str | None = None,
        confine: bool = False,
        worker: bool = True,
    ) -> None:
        self.host = host
        self.config = config
        self.socket = socket
        self.timeout = timeout
        self.require_service = require_service
        self.in_process = in_process
        self.server = server
        self.token_file = token_file
        self.confine = confine
        self.worker = worker


def state_directory(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME/agent-gateway``, or ``~/.local/state/agent-gateway`` (where ``gateway serve`` keeps its token and socket)."""
    environ = os.environ if environ is None else environ
    state = environ.get("XDG_STATE_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(state, "agent-gateway")


def default_socket(environ: Mapping[str, str] | None = None) -> str:
    """Where ``gateway serve`` listens for hooks unless configured: ``gateway.sock`` in the state directory."""
    return os.path.join(state_directory(environ), "gateway.sock")


def worker_directory(environ: Mapping[str, str] | None = None) -> str:
    """Where warm workers listen: ``workers`` in the state directory (user-only)."""
    return os.path.join(state_directory(environ), "workers")


def _digest(data: bytes) -> str:
    # The C module (``hashlib`` costs this process more than a forwarded call).
    try:
        module: Any = __import__("_sha2")
    except ImportError:
        module = __import__("_sha256")
    return str(module.sha256(data).hexdigest())


def _code_version() -> str:
    """This installation's hook and worker, by their files' change times: new code, new worker."""
    here = os.path.abspath(__file__)
    worker = os.path.join(os.path.dirname(os.path.dirname(here)), "gateway_hooks", "_worker.py")
    stamps = []
    for path in (here, worker):
        try:
            stamps.append(str(os.stat(path).st_mtime_ns))
        except OSError:
            stamps.append("-")
    return ":".join(stamps)


def worker_key(config: str | None, environ: Mapping[str, str] | None = None) -> str:
    """
    Which warm worker answers a hook: one per config file, interpreter, code and environment.

    The config's content is not part of the key: the worker checks, before
    every review, that each file it read at start is unchanged, and retires
    when one changed (`RETIRED`), so an edit is never answered by a stale
    worker and no two workers of one config write its log.
    """
    environ = os.environ if environ is None else environ
    parts = [
        str(PROTOCOL),
        sys.executable,
        _code_version(),
        os.path.abspath(config) if config else "-",
        *(f"{name}={environ.get(name, '')}" for name in WORKER_ENVIRONMENT),
        *sorted(
            f"{name}={value}"
            for name, value in environ.items()
            if name.startswith(("GATEWAY_", "AGENT_GATEWAY_"))
        ),
    ]
    return _digest("\0".join(parts).encode("utf-8", "surrogateescape"))[:32]


def worker_socket(config: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The socket of the warm worker for ``config`` (`worker_key`), in `worker_directory`."""
    return os.path.join(worker_directory(environ), worker_key(config, environ) + ".sock")


def _worker_allowed(environ: Mapping[str, str]) -> bool:
    """Whether warm workers are on (``GATEWAY_HOOK_WORKER=off`` turns them off: every hook reviews in-process)."""
    return environ.get("GATEWAY_HOOK_WORKER", "").strip().lower() not in ("0", "off", "no", "false")


def _hook_table(path: str) -> dict[str, Any]:
    import tomllib  # only with --config: the module compiles its patterns when imported

    try:
        with open(path, "rb") as stream:
            data = tomllib.load(stream)
    except OSError as error:
        raise Blocked(f"Cannot read the config file {path!r}: {error.strerror}.") from None
    except tomllib.TOMLDecodeError as error:
        raise Blocked(f"The config {path!r} is not valid TOML: {error}.") from None
    table = data.get("hook", {})
    if not isinstance(table, dict):
        raise Blocked(f"The [hook] table of {path!r} is not a table.")
    return table


def parse_options(argv: Sequence[str]) -> Options:
    """Read the command line (by hand: ``argparse`` alone costs more than the forwarding)."""
    words = list(argv)
    if not words or words[0].startswith("-"):
        raise Blocked(f"Name the host whose hook this is ({_USAGE}).")
    host = words.pop(0)
    values: dict[str, str] = {}
    flags: set[str] = set()
    while words:
        word = words.pop(0)
        name, equals, value = word.partition("=")
        if name in ("--config", "--socket", "--timeout", "--server", "--token-file"):
            if not equals:
                if not words:
                    raise Blocked(f"The option {name} needs a value ({_USAGE}).")
                value = words.pop(0)
            values[name] = value
        elif (
            name in ("--require-service", "--in-process", "--confine", "--no-worker") and not equals
        ):
            flags.add(name)
        else:
            raise Blocked(f"Unknown argument {word!r} ({_USAGE}).")
    if flags == {"--require-service", "--in-process"}:
        raise Blocked("Choose --require-service or --in-process, not both.")
    if "--server" in values and ("--socket" in values or "--in-process" in flags):
        raise Blocked("Choose --server or a local --socket / --in-process, not both.")
    if "--confine" in flags and ("--server" in values or "--require-service" in flags):
        raise Blocked(
            "A --confine hook reviews in-process (the service does not route calls through "
            "`gateway run`): drop --server or --require-service."
        )
    table = _hook_table(values["--config"]) if "--config" in values else {}
    raw_timeout: Any = values.get("--timeout", table.get("timeout", DEFAULT_TIMEOUT))
    try:
        timeout = float(raw_timeout)
    except (TypeError, ValueError):
        raise Blocked(f"The timeout must be a number of seconds, not {raw_timeout!r}.") from None
    if not 0 < timeout <= 86_400:
        raise Blocked(f"The timeout must be between 0 and 86400 seconds, not {timeout:g}.")
    configured_socket = table.get("socket")
    if configured_socket is not None and not isinstance(configured_socket, str):
        raise Blocked("The [hook] socket must be a path.")
    require = table.get("require-service", False) is True or "--require-service" in flags
    return Options(
        host=host,
        config=values.get("--config"),
        socket=values.get("--socket") or configured_socket,
        timeout=timeout,
        require_service=require and not flags & {"--in-process", "--confine"},
        in_process=bool(flags & {"--in-process", "--confine"}),
        server=values.get("--server"),
        token_file=values.get("--token-file"),
        confine="--confine" in flags,
        worker="--no-worker" not in flags and _worker_allowed(os.environ),
    )


def read_stdin(timeout: float = STDIN_TIMEOUT, limit: int = MAX_EVENT_BYTES) -> bytes:
    """Standard input to its end, within ``timeout`` seconds and ``limit`` bytes."""
    fd = sys.stdin.fileno()
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Blocked(f"No complete hook event arrived on standard input within {timeout:g} s.")
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 65_536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise Blocked(f"The hook event is larger than {limit} bytes.")
        chunks.append(chunk)


def request_line(host: str, length: int) -> bytes:
    """The request's first line for an event of ``length`` bytes for ``host``."""
    if not 0 < len(host) <= MAX_HOST or not all(
        c.isascii() and (c.islower() or c.isdigit() or c == "-") for c in host
    ):
        raise Blocked(
            f"The host name {host[:MAX_HOST]!r} is not one the gateway knows (lowercase letters, digits, -)."
        )
    return b"%s %d %s %d\n" % (MAGIC, PROTOCOL, host.encode(), length)


def read_request_line(line: bytes) -> tuple[str, int]:
    """
    The host and the event's length from a request's first line (the service's side).

    Raises:
        ValueError: It is not a request of this protocol (one sentence).
    """
    words = line.rstrip(b"\n").split(b" ")
    if len(words) != 4 or words[0] != MAGIC or not words[3].isdigit():
        raise ValueError("The hook's request is not one this service reads.")
    if words[1] != str(PROTOCOL).encode():
        raise ValueError(
            f"The hook speaks protocol {words[1][:8].decode('ascii', 'replace')}, this service {PROTOCOL}; install the same version."
        )
    host = words[2].decode("ascii", "replace")
    request_line(host, int(words[3]) or 1)  # the same rule for the name as the hook's
    return host, int(words[3])


def worker_request_line(host: str, length: int, *, confine: bool, timeout: float) -> bytes:
    """The first line of a request to a warm worker: the host, the event's length, the options."""
    base = request_line(host, length).split(b" ", 1)[1]
    return b"%s %s %d %d\n" % (
        WORKER_MAGIC,
        base.rstrip(b"\n"),
        int(confine),
        round(timeout * 1000),
    )


def read_worker_request_line(line: bytes) -> tuple[str, int, bool, float]:
    """
    The host, the event's length, ``--confine`` and the timeout, from a warm worker's request line.

    Raises:
        ValueError: It is not a request of this protocol (one sentence).
    """
    words = line.rstrip(b"\n").split(b" ")
    if len(words) != 6 or words[0] != WORKER_MAGIC or words[4] not in (b"0", b"1"):
        raise ValueError("The hook's request is not one this worker reads.")
    if not words[5].isdigit() or not 0 < int(words[5]) <= 86_400_000:
        raise ValueError("The hook's request names no timeout this worker reads.")
    host, length = read_request_line(b" ".join([MAGIC, *words[1:4]]))
    return host, length, words[4] == b"1", int(words[5]) / 1000


def reply_frame(status: int, stdout: str, stderr: str) -> bytes:
    """The service's answer to one event, framed for `check_reply`."""
    out, err = stdout.encode(), stderr.encode()
    return b"%d %d %d\n" % (status, len(out), len(err)) + out + err


def check_reply(data: bytes) -> Reply:
    """
    The service's answer, if it is one the host reads as meant; else `Blocked`.

    Relaying an answer unchecked could fail open: hosts ignore output they do
    not understand and let the call through. So the frame must be whole and
    exact, the status 0 or 2, a block must say why, and the host's output must
    be a JSON object (checked by its shape: the service wrote it from a typed
    answer; this process does not import a JSON parser).
    """
    head, newline, rest = data.partition(b"\n")
    words = head.split(b" ")
    if not newline or len(words) != 3 or not all(word.isdigit() for word in words):
        raise Blocked("The gateway's answer is not one this hook reads.")
    status, out_length, err_length = (int(word) for word in words)
    if status not in (0, 2) or len(rest) != out_length + err_length:
        raise Blocked("The gateway's answer has no status 0 or 2 with its output.")
    try:
        stdout = rest[:out_length].decode("utf-8", "strict")
        stderr = rest[out_length:].decode("utf-8", "strict")
    except UnicodeDecodeError:
        raise Blocked("The gateway's answer is not UTF-8.") from None
    if status == 2:
        if not stderr.strip() or stdout:
            raise Blocked("The gateway blocked the call without saying why.")
        return Reply(2, "", " ".join(stderr.split()))
    text = stdout.strip()
    if text and not (text.startswith("{") and text.endswith("}")):
        raise Blocked("The gateway's answer for the host is not a JSON object.")
    return Reply(0, text, "")


def _frame_complete(data: bytes) -> bool:
    head, newline, rest = data.partition(b"\n")
    if not newline:
        return False
    words = head.split(b" ")
    if len(words) != 3 or not all(word.isdigit() for word in words):
        return True  # garbage: stop reading, check_reply says why
    return len(rest) >= int(words[1]) + int(words[2])


SUN_PATH_BYTES: Final = 107
"""The longest path a Unix socket address holds on Linux (``sun_path``, less its NUL)."""


def at_socket_path(path: str, operation: Callable[[str], object]) -> None:
    """
    Run ``operation`` (a Unix socket's ``connect`` or ``bind``) on ``path``, however long it is.

    A socket address holds 107 bytes of path, and a deep home or
    ``XDG_STATE_HOME`` makes the hook socket's path longer. Where Linux has
    ``/proc``, such a path is reached through a descriptor of its directory
    (``/proc/self/fd/N/NAME``, the same file); elsewhere, or when even that is
    too long, ``operation`` gets ``path`` and raises the system's error.

    Raises:
        OSError: What ``operation`` raises, or what opening the directory does
            (`FileNotFoundError` when it is not there, as for a short path).
    """
    if len(os.fsencode(path)) <= SUN_PATH_BYTES:
        operation(path)
        return
    directory, _, name = path.rpartition("/")
    # A directory that is not there raises FileNotFoundError, as connect would.
    descriptor = os.open(directory or "/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        through = f"/proc/self/fd/{descriptor}"
        short = f"{through}/{name}"
        usable = len(os.fsencode(short)) <= SUN_PATH_BYTES and os.path.isdir(through)
        operation(short if usable else path)
    finally:
        os.close(descriptor)


def _connect(path: str, timeout: float) -> _socket.socket | None:
    """A connection to the service, or ``None`` when none listens at ``path``."""
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    connection.settimeout(timeout)
    try:
        at_socket_path(path, connection.connect)
    except (FileNotFoundError, ConnectionRefusedError):
        connection.close()
        return None
    except OSError as error:
        connection.close()
        raise Blocked(
            f"Cannot reach the gateway at {path!r} ({error.strerror or error})."
        ) from None
    return connection


def forward(path: str, host: str, data: bytes, timeout: float) -> Reply | None:
    """
    Send the event to the service listening at ``path``; its checked answer.

    ``None`` when nothing listens there (no socket, or a stale one). Once
    connected, every failure is `Blocked`: the event may have been reviewed.
    """
    reply = _exchange(path, request_line(host, len(data)) + data, timeout)
    return None if reply is None else check_reply(reply)


WORKER_GRACE: Final = 5.0
"""Seconds past the hook's timeout a worker may take to send the block it gives at the timeout."""


def forward_worker(
    path: str, host: str, data: bytes, *, confine: bool, timeout: float
) -> Reply | None:
    """
    Send the event to the warm worker listening at ``path``; its checked answer.

    ``None`` when nothing listens there, or the worker answered `RETIRED`
    (it reviewed nothing). Once the event is sent, every other failure is
    `Blocked`, as with the service: the event may have been reviewed.
    """
    line = worker_request_line(host, len(data), confine=confine, timeout=timeout)
    reply = _exchange(path, line + data, timeout + WORKER_GRACE)
    if reply is None or reply == RETIRED:
        return None
    return check_reply(reply)


def _exchange(path: str, request: bytes, timeout: float) -> bytes | None:
    """The whole answer to ``request`` from the process listening at ``path``; ``None`` when none listens."""
    deadline = time.monotonic() + timeout
    connection = _connect(path, timeout)
    if connection is None:
        return None
    received = bytearray()
    try:
        connection.sendall(request)
        while not _frame_complete(bytes(received)):
            # A closed deadline is a zero timeout: recv then raises TimeoutError at once.
            connection.settimeout(max(deadline - time.monotonic(), 1e-6))
            chunk = connection.recv(65_536)
            if not chunk:
                raise Blocked("The gateway closed the connection without an answer.")
            received += chunk
            if len(received) > MAX_REPLY_BYTES:
                raise Blocked(f"The gateway's answer is larger than {MAX_REPLY_BYTES} bytes.")
    except TimeoutError:
        raise Blocked(f"The gateway did not answer within {timeout:g} s.") from None
    except OSError as error:
        raise Blocked(
            f"The connection to the gateway failed ({error.strerror or error})."
        ) from None
    finally:
        connection.close()
    return bytes(received)


_SIGNAL_NAMES: Final = {
    _signal.SIGTERM: "SIGTERM",
    _signal.SIGINT: "SIGINT",
    _signal.SIGHUP: "SIGHUP",
    _signal.SIGQUIT: "SIGQUIT",
}


def _blocked_by_signal(signum: int, frame: object) -> None:
    name = _SIGNAL_NAMES.get(signum, str(signum))
    os.write(2, f"The hook was stopped ({name}), so the call is blocked.\n".encode())
    os._exit(2)


def _answer(options: Options, data: bytes) -> Reply:
    if options.server:
        from gateway_relay._remote import (
            forward_http,  # only in this mode: urllib is slow to import
        )

        return forward_http(options.server, options.token_file, options.host, data, options.timeout)
    if not options.in_process:
        path = options.socket or default_socket()
        reply = forward(path, options.host, data, options.timeout)
        if reply is not None:
            return reply
        if options.require_service:
            raise Blocked(f"No gateway is listening at {path!r}, and this hook requires one.")
    remaining = options.timeout
    if options.worker:
        deadline = time.monotonic() + options.timeout
        reply = _through_worker(options, data, deadline)
        if reply is not None:
            return reply
        # What the worker left of the timeout (importing the gateway is not counted, as without it).
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Blocked(f"The gateway did not answer within {options.timeout:g} s.")
    from gateway_hooks._standalone import run_standalone  # the slow path: import the gateway

    status, stdout, stderr = run_standalone(
        options.host, data, options.config, remaining, confine=options.confine
    )
    return Reply(status, stdout, stderr)


WORKER_START_TIMEOUT: Final = 30.0
"""Seconds a hook waits for a warm worker to start (its gateway loaded) before it reviews in-process."""


def _private(directory: str) -> bool:
    """
    Whether the worker directory exists; `Blocked` when it is not this user's alone.

    A socket in a directory someone else can write may be theirs, answering
    as a worker would: the hook never connects to one there.
    """
    try:
        status = os.stat(directory)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise Blocked(
            f"Cannot check the warm worker's directory {directory!r} ({error.strerror})."
        ) from None
    if status.st_uid != os.getuid() or status.st_mode & 0o077:
        raise Blocked(
            f"The warm worker's directory {directory!r} is not this user's alone; "
            "remove it (or run the hook with --no-worker)."
        )
    return True


def _through_worker(options: Options, data: bytes, deadline: float) -> Reply | None:
    """
    The warm worker's answer, starting it when none listens; ``None`` when it cannot be had.

    A worker that retired (its config changed) is replaced once; a worker
    that does not start within `WORKER_START_TIMEOUT` leaves the event to
    the in-process review. Once a worker has the event, every failure is
    `Blocked` (`forward_worker`).
    """
    path = worker_socket(options.config)
    directory = os.path.dirname(path)
    start_by = min(deadline, time.monotonic() + WORKER_START_TIMEOUT)
    started = False
    while True:
        if _private(directory):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            reply = forward_worker(
                path, options.host, data, confine=options.confine, timeout=remaining
            )
            if reply is not None:
                return reply
        if started:
            return None
        from pathlib import Path  # only to start a worker

        from gateway_relay._listen import private_directory
        from gateway_relay._worker import start_worker

        try:
            private_directory(Path(directory))
        except OSError:
            return None
        if not start_worker(path, options.config, start_by):
            return None
        started = True


def stop_workers(environ: Mapping[str, str] | None = None) -> int:
    """
    Stop every warm worker of this user (``gateway-hook --stop-workers``); how many were asked to.

    Each worker finishes the reviews it has begun, records its end, and
    exits; the next hook starts a fresh one.
    """
    directory = worker_directory(environ)
    if not _private(directory):
        return 0
    stopped = 0
    for name in sorted(os.listdir(directory)):
        if name.endswith(".lock"):
            pid = worker_pid(os.path.join(directory, name))
            if pid is not None:
                try:
                    os.kill(pid, _signal.SIGTERM)
                except OSError:
                    continue
                stopped += 1
    return stopped


def worker_pid(lock: str) -> int | None:
    """The process id of the live worker holding ``lock`` (``KEY.lock``), or ``None``."""
    import fcntl  # only for --stop-workers and the doctor

    try:
        descriptor = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip()
            return int(holder) if holder.isdigit() and int(holder) > 0 else None
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return None
    finally:
        os.close(descriptor)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def main(argv: Sequence[str] | None = None) -> int:
    """Answer one hook event; the exit status (0, or 2 to block)."""
    for signum in _SIGNAL_NAMES:
        _signal.signal(signum, _blocked_by_signal)
    words = sys.argv[1:] if argv is None else list(argv)
    if words == ["--stop-workers"]:
        try:
            count = stop_workers()
        except Blocked as refusal:
            _write_all(2, f"{refusal}\n".encode())
            return 2
        _write_all(1, f"Asked {count} warm worker{'' if count == 1 else 's'} to stop.\n".encode())
        return 0
    try:
        options = parse_options(words)
        # The host writes the event and closes standard input at once; a hook
        # that waited longer than its own timeout would outlive its answer.
        data = read_stdin(min(STDIN_TIMEOUT, options.timeout))
        reply = _answer(options, data)
    except Blocked as refusal:
        reply = Reply(2, "", str(refusal))
    except Exception as error:  # noqa: BLE001 -- a bug in the hook must block the call, never let it through
        reply = Reply(2, "", f"The hook failed ({type(error).__name__}), so the call is blocked.")
    if reply.status == 0 and reply.stdout:
        _write_all(1, reply.stdout.encode() + b"\n")
    if reply.status != 0:
        _write_all(2, (reply.stderr or "The hook blocked the call.").encode() + b"\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
