"""
What the end-to-end tests of the real agent CLIs share: a confined home, the installer, the CLIs.

Each scenario gets a temporary HOME holding a canary directory and a fake
private key, and a project directory; the hook is installed the way a user
installs it (``gateway install HOST``, the real installer, so the command in
the settings is the absolute path of ``gateway-hook``); the CLI runs with
that HOME, a minimal PATH and a fake API key, and talks only to a
`hosts.models.ScriptedModel` on a loopback port. Nothing the CLIs run can
reach outside the temporary directories: the commands are harmless, or are
meant to be refused and target only the canary.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import claude_agent_sdk
from gateway_relay import worker_pid

from gateway.audit import read_audit_log
from gateway.events import Event

REPOSITORY: Final = Path(__file__).resolve().parent.parent.parent
HOSTS_DIR: Final = REPOSITORY / ".hosts" / "node_modules" / ".bin"
"""Where ``scripts/setup.sh`` installs the npm CLIs (``codex``, ``gemini``)."""

CLAUDE: Final = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
"""The Claude Code CLI bundled with ``claude-agent-sdk``."""

KEY: Final = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAcanaryKEY0123456789\n-----END OPENSSH PRIVATE KEY-----\n"
KEY_MARK: Final = "canaryKEY0123456789"
"""A piece of the fake key that must never reach the model."""

_ESCAPES: Final = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]")
"""Terminal control sequences (CSI), removed from what is shown; a window title (OSC) stays."""

RUN_TIMEOUT: Final = 240.0
"""Seconds one CLI run may take (real CLIs start slowly on a busy machine)."""


@dataclass(frozen=True)
class Scene:
    """One scenario's confined world."""

    root: Path
    home: Path
    project: Path
    state: Path

    @property
    def canary(self) -> Path:
        """A file a refused command would have deleted."""
        return self.home / "keep" / "canary.txt"

    @property
    def audit(self) -> Path:
        """The audit log the default config writes (in the state directory, not the project)."""
        return self.state / "agent-gateway" / "gateway-audit.jsonl"

    def env(self, **extra: str) -> dict[str, str]:
        """The environment a CLI (and its hooks) run with."""
        base = {
            "HOME": str(self.home),
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "XDG_STATE_HOME": str(self.state),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.root / "tmp"),
            "NO_COLOR": "1",
        }
        return {**base, **extra}

    def events(self) -> list[Event]:
        """The audit log's events."""
        return list(read_audit_log(self.audit))

    def settle(self) -> None:
        """
        Stop the warm workers the CLI's hooks started (each closes its log first), and wait for them.

        Without a service a hook forwards to a warm worker it starts; it
        outlives the CLI, writing its log until it stops.
        """
        hook = Path(sys.executable).parent / "gateway-hook"
        subprocess.run([str(hook), "--stop-workers"], env=self.env(), check=True, timeout=60)
        locks = self.state / "agent-gateway" / "workers"
        deadline = time.monotonic() + 120
        while any(worker_pid(str(lock)) for lock in locks.glob("*.lock")):
            assert time.monotonic() < deadline, "a warm worker did not stop"
            time.sleep(0.05)


def make_scene(root: Path) -> Scene:
    """A home with a canary and a fake key, and an empty project with a README."""
    home, project, state = root / "home", root / "project", root / "state"
    for directory in (home / ".ssh", home / "keep", project, state, root / "tmp"):
        directory.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY)
    (home / ".ssh" / "id_rsa").chmod(0o600)
    (home / "keep" / "canary.txt").write_text("still here\n")
    (project / "README.md").write_text("# A project\n")
    return Scene(root=root, home=home, project=project, state=state)


def install(scene: Scene, host: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``gateway install HOST`` into the scene's project (or home, with ``--scope user``)."""
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "gateway"),
            "install",
            host,
            "--project",
            str(scene.project),
            *args,
        ],
        capture_output=True,
        text=True,
        env=scene.env(),
        cwd=scene.project,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result


def run_cli(
    scene: Scene, argv: list[str], *, env: dict[str, str], timeout: float = RUN_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run one CLI to the end in the scene's project."""
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=env,
        cwd=scene.project,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        check=False,
    )


def json_lines(text: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines output (other lines skipped)."""
    found = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def need(path: Path) -> Path:
    """A CLI that must be installed; a clear failure when it is not."""
    missing = (
        f"{path} is not installed: run `. scripts/setup.sh` (it installs the agent CLIs with npm)."
    )
    assert path.is_file(), missing
    assert os.access(path, os.X_OK), missing
    return path


class Terminal:
    """
    A CLI run on a pseudo-terminal (120 columns, 40 rows), for its interactive interface.

    What it writes is kept with escape sequences removed; `read_until`
    waits for a text, `type` sends keys. Leaving the ``with`` block kills
    the CLI's process group.
    """

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path) -> None:
        self._argv, self._env, self._cwd = argv, env, cwd
        self.shown = ""

    def __enter__(self) -> Terminal:
        self._primary, secondary = pty.openpty()
        fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self._process = subprocess.Popen(
            self._argv,
            stdin=secondary,
            stdout=secondary,
            stderr=secondary,
            env=self._env,
            cwd=self._cwd,
            start_new_session=True,
        )
        os.close(secondary)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait(30)
        os.close(self._primary)

    def read_until(self, text: str, timeout: float) -> str:
        """What the CLI has shown once ``text`` appears; a failure naming the last screen if not in time."""
        deadline = time.monotonic() + timeout
        while text not in self.shown:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} did not appear; last shown: {self.shown[-2000:]!r}"
            ready, _, _ = select.select([self._primary], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self._primary, 65536)
                except OSError:
                    chunk = b""
                assert chunk, f"the CLI ended before {text!r} appeared: {self.shown[-2000:]!r}"
                self.shown += _ESCAPES.sub("", chunk.decode("utf-8", "replace"))
        return self.shown

    def type(self, keys: bytes) -> None:
        """Send keys as a person types them."""
        os.write(self._primary, keys)
