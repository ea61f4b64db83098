"""
Helpers for the language readers' tests: counting steps, and running real programs confined.

`steps` counts the Python lines the readers execute (``sys.settrace``), so a
test can bound their work by the size of their input without a clock.

`run_confined` runs a real program (sed, gawk, jq, find, git…) the way the
proofs need it: in a fresh temporary directory that is also ``HOME``, with
``PATH`` holding only a ``marker`` stub (a program run through the shell
finds nothing else: the stub records its arguments and does nothing), input
files written beforehand, a timeout, and nothing outside the directory
touched. It reports the files the run created or changed and the markers
the stub recorded, so a test can show that what a reader calls a write or an
execution really is one, and its harmless twin is not.
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Final

import pytest

_READERS: Final = str(Path(__file__).resolve().parents[2] / "gateway" / "_programs")

_MARKER: Final = """#!/bin/sh
printf '%s\\n' "marker $*" >> "$MARKERS"
"""


def steps(function: Callable[..., Any], *args: Any) -> tuple[Any, int]:
    """Call ``function(*args)``; return its result and how many lines of the readers ran."""
    count = 0

    def trace(frame: FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        nonlocal count
        if not frame.f_code.co_filename.startswith(_READERS):
            return None
        if event == "line":
            count += 1
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        result = function(*args)
    finally:
        sys.settrace(previous)
    return result, count


def tool(name: str) -> str:
    """The absolute path of a real program; a test that needs a missing one fails, saying how to get it."""
    found = shutil.which(name)
    if found is None:
        pytest.fail(
            f"{name} is not installed; scripts/setup.sh installs it with WITH_PROGRAMS=1 (as root)"
        )
    return found


@dataclass(frozen=True)
class Outcome:
    """What a confined run did: its exit status, output, new or changed files, and markers."""

    returncode: int
    stdout: str
    stderr: str
    created: frozenset[str]
    changed: frozenset[str]
    deleted: frozenset[str]
    markers: tuple[str, ...]
    root: Path


def run_confined(
    argv: Sequence[str],
    *,
    files: Mapping[str, str] = {},
    stdin: str = "",
    environment: Mapping[str, str] = {},
    timeout: float = 30,
    keep: Callable[[Path], None] | None = None,
    prepare: Callable[[Path, Mapping[str, str]], None] | None = None,
    terminal: bool = False,
) -> Outcome:
    """
    Run ``argv`` (its program resolved with `tool`) in a fresh temporary directory.

    ``files`` are written first (relative paths; ``mode:0755:`` before the
    text makes one executable), then ``prepare(directory, environment)`` may
    set more up (a repository) with the same environment. ``keep`` may look
    at the directory before it is removed. With ``terminal`` the program's
    output is a pseudo-terminal (git pages only to a terminal).
    """
    program = tool(argv[0])
    with tempfile.TemporaryDirectory(prefix="gateway-lang-") as scratch:
        root = Path(scratch)
        work = root / "work"
        stubs = root / "stubs"
        work.mkdir()
        stubs.mkdir()
        marker = stubs / "marker"
        marker.write_text(_MARKER)
        marker.chmod(0o755)
        markers = root / "markers.log"
        markers.touch()
        for name, text in files.items():
            path = work / name
            path.parent.mkdir(parents=True, exist_ok=True)
            mode = None
            if text.startswith("mode:"):
                _, octal, text = text.split(":", 2)
                mode = int(octal, 8)
            path.write_text(text)
            if mode is not None:
                path.chmod(mode)
        env = {
            "PATH": str(stubs),
            "HOME": str(work),
            "MARKERS": str(markers),
            "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
            **environment,
        }
        if prepare is not None:
            prepare(work, env)
        before = _snapshot(work)
        completed = _run([program, *argv[1:]], work, env, stdin, timeout, terminal=terminal)
        after = _snapshot(work)
        if keep is not None:
            keep(work)
        return Outcome(
            returncode=completed.returncode,
            stdout=completed.stdout,
            stderr=completed.stderr,
            created=frozenset(after.keys() - before.keys()),
            changed=frozenset(
                name for name in after.keys() & before.keys() if after[name] != before[name]
            ),
            deleted=frozenset(before.keys() - after.keys()),
            markers=tuple(markers.read_text().splitlines()),
            root=work,
        )


def _run(
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
    stdin: str,
    timeout: float,
    *,
    terminal: bool,
) -> subprocess.CompletedProcess[str]:
    if not terminal:
        return subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    primary, secondary = pty.openpty()
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env={**env, "TERM": "dumb"},
            stdin=subprocess.DEVNULL,
            stdout=secondary,
            stderr=subprocess.PIPE,
        )
        os.close(secondary)
        output = bytearray()
        while True:
            ready, _, _ = select.select([primary], [], [], timeout)
            if not ready:
                process.kill()
                break
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        _, errors = process.communicate(timeout=timeout)
        return subprocess.CompletedProcess(
            argv,
            process.returncode,
            output.decode(errors="replace"),
            errors.decode(errors="replace"),
        )
    finally:
        os.close(primary)


def git(work: Path, env: Mapping[str, str], *args: str) -> None:
    """Run real git (found on the machine's PATH) in ``work`` to set a repository up."""
    subprocess.run(
        [tool("git"), *args], cwd=work, env=dict(env), check=True, capture_output=True, timeout=30
    )


def _snapshot(directory: Path) -> dict[str, tuple[int, bytes]]:
    """Every file below ``directory`` (outside ``.git/objects``): its mode and contents."""
    found: dict[str, tuple[int, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = [d for d in dirnames if d != "objects"]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                continue
            found[str(path.relative_to(directory))] = (path.stat().st_mode, path.read_bytes())
    return found
