"""
``gateway serve`` as a subprocess, the way a user starts it, and the lines it announces.

`gateway_serve` starts ``gateway serve --port 0 ARGS…`` (``python -m
gateway._cli``, or the installed ``gateway`` command) and reads its standard output until every line it announces at start has come:
the approval page's URL, the bearer token, the hook socket (unless
``--no-socket``) and, with ``--broker``, the replica's line. Those come only
once the port is bound and the token stored, so the service answers as soon
as the block starts. Leaving the block stops it with SIGTERM, or the signal
``stop`` names (SIGKILL, as a crash would: a chaos test may have killed it
already), and with SIGKILL if it has not ended within the bound. The tests of
the service, of the fleet, of telemetry, of the hosts, of the docs and the
chaos suite, and the benchmarks, all start it here.
"""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

WAIT = 60.0
"""Seconds any one wait for the service may take (the machine may be busy)."""

PAGE = "gateway serve: the approval page is at "
TOKEN = "gateway serve: bearer token "  # noqa: S105 -- a printed line's start, not a secret
SOCKET = "gateway serve: hooks forward to "
REPLICA = "gateway serve: replica "

MODULE: Final = (sys.executable, "-m", "gateway._cli")
"""The ``gateway`` command as this interpreter's module."""
INSTALLED: Final = (str(Path(sys.executable).parent / "gateway"),)
"""The ``gateway`` command the environment installed, as a user runs it."""


@dataclass
class Served:
    """A running ``gateway serve`` and the lines it announced, in order."""

    process: subprocess.Popen[str]
    lines: list[str]

    def announced(self, prefix: str) -> str:
        """The rest of the one announced line that starts with ``prefix``."""
        (line,) = (line for line in self.lines if line.startswith(prefix))
        return line[len(prefix) :]

    @property
    def url(self) -> str:
        """The approval page's URL, as printed (it ends with ``/``)."""
        return self.announced(PAGE)

    @property
    def port(self) -> int:
        """The port it listens on (``--port 0`` picks a free one)."""
        return int(self.url.rstrip("/").rsplit(":", 1)[1])

    @property
    def token(self) -> str:
        """The bearer token the service made at start."""
        return self.announced(TOKEN).rsplit(" ", 1)[1]


def announcements(arguments: Sequence[str]) -> tuple[str, ...]:
    """The prefixes of the lines ``gateway serve ARGUMENTS`` announces at start, in order."""
    return (
        PAGE,
        TOKEN,
        *(() if "--no-socket" in arguments else (SOCKET,)),
        *((REPLICA,) if "--broker" in arguments else ()),
    )


def _read(stream: IO[str], into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line.rstrip("\n"))
    into.put(None)


@contextmanager
def gateway_serve(
    *arguments: str,
    cwd: Path,
    log: Path | None = None,
    env: Mapping[str, str] | None = None,
    wait: float = WAIT,
    program: Sequence[str] = MODULE,
    stop: signal.Signals = signal.SIGTERM,
) -> Iterator[Served]:
    """
    Run ``gateway serve --port 0 ARGUMENTS`` in ``cwd`` until the block ends.

    Its standard error goes to ``log`` (quoted when the service ends before
    it is ready), or nowhere. ``env`` replaces the environment when given;
    ``program`` is the ``gateway`` command (`MODULE` or `INSTALLED`);
    ``stop`` the signal that ends it when the block ends.
    """
    with ExitStack() as opened:
        errors = opened.enter_context(log.open("w")) if log is not None else subprocess.DEVNULL
        process = opened.enter_context(
            subprocess.Popen(
                [*program, "serve", "--port", "0", *arguments],
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                cwd=cwd,
                env=None if env is None else dict(env),
            )
        )
        opened.callback(_stop, process, wait, stop)
        assert process.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_read, args=(process.stdout, lines), daemon=True).start()
        printed: list[str] = []
        for _ in announcements(arguments):
            line = lines.get(timeout=wait)
            if line is None:
                said = f": {log.read_text()}" if log is not None else ""
                raise AssertionError(f"gateway serve ended before it was ready{said}")
            printed.append(line)
        for prefix, line in zip(announcements(arguments), printed, strict=True):
            assert line.startswith(prefix), f"gateway serve announced {line!r}, not {prefix!r}…"
        yield Served(process, printed)


def _stop(process: subprocess.Popen[str], wait: float, stop: signal.Signals) -> None:
    """``stop`` (when it still runs), then SIGKILL when it has not ended within ``wait`` seconds."""
    if process.poll() is None:
        process.send_signal(stop)
    try:
        process.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=wait)
