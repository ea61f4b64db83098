"""
Real ``gateway serve --broker`` replicas as subprocesses, and the ``gateway`` commands beside them.

Every replica gets a port of its own (``--port 0``: the URL it prints says
which), a token file of its own, and the same config: a ``human`` approver
after a stand-in for the rules (so calls wait for a person), the test's
bucket prefix, and a short lease (so a killed replica is noticed quickly).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from serving import REPLICA, gateway_serve

WAIT = 60.0
"""Seconds any one wait of these tests may take (the machine may be busy)."""


def fleet_config(
    tmp_path: Path,
    prefix: str,
    *,
    approvers: str = '["human"]',
    extra: str = "",
    gateway_keys: str = "",
) -> Path:
    """A config file for replicas of one fleet; ``gateway_keys`` holds more ``[gateway]`` keys (TOML lines)."""
    path = tmp_path / "fleet.toml"
    path.write_text(
        f"""
[gateway]
approvers = {approvers}
{gateway_keys}

[serve]
human-timeout = 120
max-pending = 2000
# These tests judge the fleet, not the header deadline (tests/web/test_hardening.py
# does): with a thousand reviews in flight on a busy machine, a new connection's
# headers can wait past the default 10 s before the loop reads them.
header-timeout = 120

[broker]
prefix = "{prefix}"
lease = 3.0
request-timeout = 3.0
{extra}
"""
    )
    return path


def gateway(*arguments: str, cwd: Path, timeout: float = WAIT) -> subprocess.CompletedProcess[str]:
    """Run one ``gateway`` command to its end."""
    return subprocess.run(
        [sys.executable, "-m", "gateway._cli", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def make_token(name: str, role: str, *, broker: str, config: Path) -> str:
    """``gateway token create NAME --role ROLE --broker URL``: the token it prints."""
    done = gateway(
        "token",
        "create",
        name,
        "--role",
        role,
        "--broker",
        broker,
        "--config",
        str(config),
        cwd=config.parent,
    )
    assert done.returncode == 0, done.stderr
    token: str = json.loads(done.stdout)["token"]
    return token


@dataclass
class Replica:
    """A running replica and what it printed."""

    process: subprocess.Popen[str]
    url: str
    token: str
    replica: str
    lines: list[str] = field(default_factory=list)

    def client(self, token: str | None = None, **options: Any) -> httpx.AsyncClient:
        """An async client for the replica, with a bearer token (its own by default)."""
        options.setdefault("timeout", httpx.Timeout(WAIT))
        return httpx.AsyncClient(
            base_url=self.url.rstrip("/"),
            trust_env=False,
            headers={"Authorization": f"Bearer {token or self.token}"},
            **options,
        )

    def kill(self) -> None:
        """``kill -9``: no clean stop, nothing declined, nothing flushed."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=WAIT)

    def stop(self) -> int:
        """SIGTERM, and its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=WAIT)


@contextmanager
def serve(
    config: Path, broker: str, name: str, *extra: str, env: dict[str, str] | None = None
) -> Iterator[Replica]:
    """Run ``gateway serve --broker`` until the block ends (then SIGTERM, or SIGKILL after a bound)."""
    state = config.parent / f"state-{name}"
    with gateway_serve(
        "--config",
        str(config),
        "--broker",
        broker,
        "--token-file",
        str(state / "token"),
        # Replicas share one HOME here, so only one could own the
        # default hook socket; the fleet's tests forward no hooks.
        *(() if "--socket" in extra else ("--no-socket",)),
        *extra,
        cwd=config.parent,
        log=config.parent / f"serve-{name}.log",
        env=env,
    ) as served:
        replica = served.announced(REPLICA).split("'")[1]
        yield Replica(served.process, served.url, served.token, replica, served.lines)


def bash(command: str, call_id: str, **fields: Any) -> dict[str, Any]:
    """The JSON of a ``Bash`` tool call."""
    return {"tool": "Bash", "input": {"command": command}, "call_id": call_id, **fields}


def events_of(stream: Sequence[dict[str, Any]], call_id: str) -> list[str]:
    """The kinds of one call's events, in order."""
    return [event["event"] for event in stream if event.get("call_id") == call_id]
