"""
Running hooks as hosts run them: a process per event, and an approval service to forward to.

`run_hook` starts ``python -m gateway_relay HOST …`` (what ``gateway-hook
HOST`` runs) with one event on standard input; the scripted approver is on
``PYTHONPATH`` so an in-process review loads it through its entry point.
`running_service` runs a real ``gateway serve`` (`gateway_web.open_service`)
with its hook socket in a background thread, for the hook to forward to.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from gateway_web import RunningService, open_service

from adapters.scripted import PLUGIN_DIR, TESTS_DIR, ScriptApprover
from gateway import GatewayConfig
from gateway.testing import MemorySink


def hook_env(**extra: str) -> dict[str, str]:
    """The environment of a hook process: the scripted approver importable."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PLUGIN_DIR), str(TESTS_DIR)]),
        **extra,
    }


def run_hook(
    host: str,
    stdin: bytes | dict[str, Any],
    *args: str,
    timeout: float = 60,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run the hook for ``host`` once, as the host does."""
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    return subprocess.run(
        [sys.executable, "-m", "gateway_relay", host, *args],
        input=data,
        capture_output=True,
        env=env or hook_env(),
        timeout=timeout,
        check=False,
    )


def answer(result: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    """The one JSON answer on standard output (``{}`` for no output), and nothing else there."""
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert len(lines) <= 1, result.stdout
    value: dict[str, Any] = json.loads(lines[0]) if lines else {}
    return value


def blocked(result: subprocess.CompletedProcess[bytes]) -> str:
    """The one-sentence reason of a hook that exited 2 (standard output must be empty)."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == b""
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def script_config(path: Path, audit: Path, extra: str = "") -> Path:
    """A gateway config whose only approver is the scripted one, with a required audit log."""
    path.write_text(
        f"""
[gateway]
approvers = ["script"]

[sinks.audit]
plugin = "jsonl"
path = "{audit}"
required = true
{extra}"""
    )
    return path


@contextlib.contextmanager
def running_service(
    socket: Path,
    *,
    approvers: Sequence[Any] | None = None,
    config: GatewayConfig | None = None,
) -> Iterator[tuple[RunningService, MemorySink]]:
    """A real approval service answering hooks on ``socket``, in a background thread."""
    sink = MemorySink()
    with start_blocking_portal() as portal:
        service = open_service(
            config or GatewayConfig(),
            host="127.0.0.1",
            port=0,
            approvers=list(approvers) if approvers is not None else [ScriptApprover()],
            sinks={"memory": sink},
            hook_socket=socket,
        )
        with portal.wrap_async_context_manager(service) as running:
            yield running, sink
