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
    """The absolute path of a real program, or skip the test (with the reason) when it is not installed."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (scripts/test.sh installs it)")
    return found


@dataclass(frozen=True)
class Outcome:
    """What a confined run did: its exit status, output, new or changed files, and markers."""

    returncode: int
    stdout: str
    stderr: str
    created: frozenset[str]
    changed: frozenset[str]
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
) -> Outcome:
    """
    Run ``argv`` (its program resolved with `tool`) in a fresh temporary directory.

    ``files`` are written first (relative paths; ``mode:0755:`` before the
    text makes one executable). ``keep`` may look at the directory before it
    is removed.
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
        before = _snapshot(work)
        env = {
            "PATH": str(stubs),
            "HOME": str(work),
            "MARKERS": str(markers),
            "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1",
            **environment,
        }
        completed = subprocess.run(
            [program, *argv[1:]],
            cwd=work,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
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
            markers=tuple(markers.read_text().splitlines()),
            root=work,
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
