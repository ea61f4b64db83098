"""
``gateway doctor``: check an installation end to end, the way the host will use it.

For every host whose settings (the project's and the user's) hold a gateway
hook, it checks that:

* the settings block a call when the hook fails (the host's own
  fail-closed setting, `gateway_hooks.HookHost.problems`);
* the hook command starts (an absolute program that exists), answers a
  harmless event (``ls``) with exit 0 and the host's JSON, and exits 2 on an
  event that is not JSON (fail closed);
* the host itself would run it (`gateway_hooks.HookHost.consulted`: Codex
  skips a hook its user has not trusted, without a word);

and reports whether a ``gateway serve`` listens on the hook socket (the hook
forwards to it) or the hook reviews without it (through a warm worker), and
whether the service's token file is user-only; and which warm workers run,
with their sockets and how to stop them. It prints one line per check and exits 1 when any
check fails.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess  # noqa: TID251 -- the doctor runs the installed hook command, as the host would
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from gateway_relay import default_socket, worker_directory, worker_pid
from gateway_relay._worker import listening

from gateway.config import default_token_file
from gateway_hooks import HookHost, HookScope, read_settings
from gateway_hooks._worker import IDLE

__all__ = ["diagnose"]

SCOPES: Final[tuple[HookScope, ...]] = ("project", "user")

RUN_TIMEOUT: Final = 60.0
"""Seconds each trial run of the hook may take."""


def _say(text: str, *, ok: bool) -> bool:
    sys.stdout.write(f"{'ok' if ok else 'problem'}: {text}\n")
    return ok


def _run(command: str, data: bytes, cwd: Path) -> tuple[int, bytes, bytes] | str:
    try:
        argv = shlex.split(command)
    except ValueError as error:
        return f"the command cannot be read ({error})"
    if not argv or not Path(argv[0]).is_absolute():
        return "the program is not an absolute path, so it depends on PATH"
    if not Path(argv[0]).is_file() or not os.access(argv[0], os.X_OK):
        return f"the program {argv[0]!r} does not exist or cannot run"
    try:
        done = subprocess.run(  # noqa: S603 -- the user's own installed hook command, split without a shell
            argv, input=data, capture_output=True, timeout=RUN_TIMEOUT, cwd=cwd, check=False
        )
    except subprocess.TimeoutExpired:
        return f"it did not answer within {RUN_TIMEOUT:g} s"
    except OSError as error:
        return f"it could not start ({error.strerror})"
    return done.returncode, done.stdout, done.stderr


def _check_command(host: HookHost, command: str, project: Path) -> bool:
    good = True
    probe = json.dumps(host.probe(str(project))).encode()
    result = _run(command, probe, project)
    if isinstance(result, str):
        return _say(f"{host.title}: `{command}`: {result}.", ok=False)
    status, out, err = result
    text = out.decode("utf-8", "replace").strip()
    if status != 0:
        reason = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no reason"]
        good &= _say(
            f"{host.title}: the hook blocked a harmless `ls` (exit {status}: {reason[0]}).",
            ok=False,
        )
    else:
        try:
            answer = json.loads(text) if text else {}
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            good &= _say(
                f"{host.title}: the hook's answer to `ls` is not a JSON object: {text[:200]!r}.",
                ok=False,
            )
        else:
            shown = text or "no decision (the host's own checks decide)"
            good &= _say(f"{host.title}: the hook runs and answers `ls`: {shown[:200]}", ok=True)
    result = _run(command, b"not json", project)
    if isinstance(result, str):
        return _say(f"{host.title}: `{command}`: {result}.", ok=False)
    status, out, _ = result
    good &= _say(
        f"{host.title}: an event that is not JSON "
        + (
            "is blocked (exit 2)."
            if status == 2 and not out
            else f"is not blocked (exit {status}): the hook fails open."
        ),
        ok=status == 2 and not out,
    )
    return good


def _worker_config(pid: int) -> str:
    """The config a worker runs with, from its command line (``the embedded default`` without one)."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "unknown"
    if b"--config" in words[:-1]:
        return repr(os.fsdecode(words[words.index(b"--config") + 1]))
    return "the embedded default"


def _workers(directory: str, *, service: bool) -> None:
    """Say which warm workers keep the gateway loaded for hooks, where, and how to stop them."""
    try:
        locks = sorted(Path(directory).glob("*.lock"))
    except OSError:
        locks = []
    live = [(lock, pid) for lock in locks if (pid := worker_pid(str(lock))) is not None]
    if not live:
        if service:
            return  # hooks forward to the service: no worker is needed
        sys.stdout.write(
            f"note: no warm worker runs; the next hook without a service starts one in {directory}.\n"
        )
        return
    for lock, pid in live:
        sys.stdout.write(
            f"note: a warm worker (process {pid}, config {_worker_config(pid)}) answers hooks at "
            f"{lock.with_suffix('.sock')}; its errors go to {lock.with_suffix('.log')}.\n"
        )
    sys.stdout.write(
        "note: `gateway-hook --stop-workers` stops them (after an upgrade, or to free their memory); "
        f"they also stop after {IDLE / 60:g} minutes without a call.\n"
    )


def _service(path: str) -> bool:
    """Say whether a service listens at ``path`` for hooks (and is user-only); whether one does."""
    if not listening(path):
        sys.stdout.write(
            f"note: no `gateway serve` listens at {path}; hooks review without it, through a warm worker (no person can be asked there).\n"
        )
        return False
    mode = stat.S_IMODE(os.stat(path).st_mode)
    _say(
        f"`gateway serve` listens at {path} (mode {mode:04o}); hooks forward to it.",
        ok=mode & 0o077 == 0,
    )
    token = default_token_file()
    if token.is_file():
        token_mode = stat.S_IMODE(token.stat().st_mode)
        _say(
            f"the service's token {token} is readable by you only (mode {token_mode:04o}).",
            ok=token_mode & 0o077 == 0,
        )
    return True


def diagnose(hosts: Sequence[HookHost], *, project: Path, home: Path, only: bool) -> int:
    """Run every check; the exit status (0 when all pass, 1 otherwise)."""
    good = True
    found = False
    for host in hosts:
        for scope in SCOPES:
            path = host.settings_file(scope, project, home)
            try:
                settings, existed = read_settings(path)
            except ValueError as error:
                good &= _say(str(error), ok=False)
                continue
            commands = host.commands(settings) if existed else ()
            if not commands:
                continue
            found = True
            sys.stdout.write(f"{host.title} ({scope}): {path}\n")
            for problem in host.problems(settings):
                good &= _say(f"{host.title}: {problem}", ok=False)
            for command in commands:
                good &= _check_command(host, command, project)
            for fine, sentence in host.consulted(project, home, commands):
                good &= _say(f"{host.title}: {sentence}", ok=fine)
        if only and not found:
            good &= _say(
                f"No {host.title} settings hold the gateway's hook; run `gateway install {host.name}`.",
                ok=False,
            )
    if not found and not only:
        good &= _say(
            "No host's settings hold the gateway's hook; run `gateway install HOST`.", ok=False
        )
    _workers(worker_directory(), service=_service(default_socket()))
    return 0 if good else 1
