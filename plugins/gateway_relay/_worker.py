"""
Starting the warm worker: what a hook does when no worker answers on its socket.

The worker (``python -m gateway_hooks._worker``) is started detached (its
own session, so a host that stops the hook does not stop it), with only the
environment its key names (`gateway_relay.WORKER_ENVIRONMENT`), standard
input closed and standard error appended to ``KEY.log`` beside its socket.
It says on standard output, once, whether it listens (``ready``), whether
another worker of the same key does (``busy``), or why it cannot
(``error: …``); the hook waits for that line, bounded by its deadline.

Standard library only; imported only to start a worker.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess  # noqa: TID251 -- the hook starts the worker as a detached process
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from gateway_relay import WORKER_ENVIRONMENT, at_socket_path

__all__ = ["listening", "start_worker", "worker_environment"]

POLL: Final = 0.02
"""Seconds between tries to reach a worker another hook started."""


def worker_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The worker's environment: the variables its key names, and the locale."""
    return {
        name: value
        for name, value in environ.items()
        if name in WORKER_ENVIRONMENT
        or name.startswith(("GATEWAY_", "AGENT_GATEWAY_", "LC_"))
        or name == "LANG"
    }


def listening(path: str) -> bool:
    """Whether a process accepts connections on the Unix socket at ``path`` (within a second)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        at_socket_path(path, probe.connect)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _await_listener(path: str, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if listening(path):
            return True
        time.sleep(POLL)
    return False


def _first_line(process: subprocess.Popen[bytes], deadline: float) -> bytes:
    stream = process.stdout
    assert stream is not None  # noqa: S101 -- started with stdout=PIPE
    line = bytearray()
    descriptor = stream.fileno()
    while not line.endswith(b"\n") and len(line) < 4096:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        ready, _, _ = select.select([descriptor], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(descriptor, 4096)
        if not chunk:
            break
        line += chunk
    stream.close()
    return bytes(line)


def start_worker(path: str, config: str | None, deadline: float) -> bool:
    """
    Start the warm worker that listens at ``path`` with ``config``; whether one listens there by ``deadline``.

    Two hooks starting a worker at once start one: the second worker finds
    the first one's lock and says ``busy``, and its hook waits for the first
    to listen. The caller has checked that the directory is the user's own.
    """
    log = Path(path).with_suffix(".log")
    argv = [sys.executable, "-m", "gateway_hooks._worker", "--socket", path]
    if config:
        argv += ["--config", os.path.abspath(config)]
    errors = os.open(
        log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
    )
    try:
        process = subprocess.Popen(  # noqa: S603 -- this interpreter, this package's module
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            cwd=os.path.dirname(path),
            env=worker_environment(os.environ),
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    finally:
        os.close(errors)
    said = _first_line(process, deadline)
    if said == b"ready\n":
        return True
    if said == b"busy\n":
        return _await_listener(path, deadline)
    return False
