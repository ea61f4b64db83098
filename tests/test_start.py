"""
The README's first command, ``./scripts/start.sh``, on a fresh clone in a clean environment.

The checkout's files (what ``git ls-files`` lists, as they are now) are copied
into an empty directory — a fresh clone, without ``.venv`` — and
``./scripts/start.sh --port 0`` is run there with an environment of four
variables: ``PATH`` of the system's own directories (its ``python3``), a new
empty ``HOME`` (so pip's cache is empty and every package is downloaded),
``LANG`` and ``TMPDIR``. It must print the page's URL and token; then it is
stopped with Ctrl-C's signal and started again, and the second start must
not run pip at all.

This is a measurement, not a timed assertion: the seconds to the printed URL
(first start, with the install; second start), the size of ``.venv`` and the
packages installed are written to ``test-artifacts/start.json``, and the only
time bound is a generous one that catches a hang. What must hold is what the
script promises: only the service's packages (no test tools, no agent CLIs,
no browser driver), a line per step and pip's own progress, and no pip on a
start where nothing changed. A start after a failed one (a ``.venv`` without
pip) or after ``pyproject.toml`` changed installs again.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
ARTIFACTS = REPOSITORY / "test-artifacts"
WAIT = 900.0
"""Seconds a start may take before the test calls it a hang (a download on a busy machine)."""
PAGE = "gateway serve: the approval page is at "
TOKEN = "gateway serve: bearer token "  # noqa: S105 -- a printed line's start, not a secret

_PIP_SAYS = ("== installing", "Obtaining", "Collecting", "Requirement already", "Successfully")
"""How lines of pip's own output begin."""

SERVICE_ONLY = frozenset({"pytest", "playwright", "hypothesis", "mypy", "ruff", "nats", "phoenix"})
"""Packages of the `dev` extra (and host SDKs) that the service does not need."""


def fresh_clone(target: Path) -> Path:
    """The checkout's files as they are now (tracked, and new ones not ignored), without `.venv`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPOSITORY,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in (os.fsdecode(entry) for entry in listed if entry):
        source = REPOSITORY / name
        if not source.is_file():
            continue  # deleted in the work tree, not yet in the index
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)
    return target


def _read(stream: IO[str], into: queue.Queue[tuple[float, str] | None]) -> None:
    for line in stream:
        into.put((time.monotonic(), line.rstrip("\n")))
    into.put(None)


@contextmanager
def started(clone: Path, env: dict[str, str]) -> Iterator[tuple[float, list[str]]]:
    """Run ``./scripts/start.sh --port 0`` until it prints the token; the seconds to the URL, and every line."""
    begun = time.monotonic()
    with subprocess.Popen(
        ["./scripts/start.sh", "--port", "0"],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as process:
        assert process.stdout is not None
        lines: queue.Queue[tuple[float, str] | None] = queue.Queue()
        threading.Thread(target=_read, args=(process.stdout, lines), daemon=True).start()
        printed: list[str] = []
        to_url: float | None = None
        try:
            while True:
                item = lines.get(timeout=max(1.0, begun + WAIT - time.monotonic()))
                assert item is not None, "start.sh ended before the service started:\n" + "\n".join(
                    printed
                )
                moment, line = item
                printed.append(line)
                if line.startswith(PAGE):
                    to_url = moment - begun
                if line.startswith(TOKEN):
                    break
            assert to_url is not None
            yield to_url, printed
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _megabytes(directory: Path) -> float:
    total = sum(path.lstat().st_size for path in directory.rglob("*") if not path.is_symlink())
    return round(total / 1_000_000, 1)


def _start_twice(
    clone: Path, home: Path, tmp_path: Path
) -> tuple[dict[str, Any], list[str], list[str]]:
    """Start twice in a clean environment; what was measured, and each start's lines."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TMPDIR": str(tmp_path),
    }
    with started(clone, env) as (cold, printed):
        pass
    with started(clone, env) as (warm, again):
        pass
    installed = sorted(
        path.name.split("-")[0].lower()
        for path in (clone / ".venv").glob("lib/python*/site-packages/*.dist-info")
    )
    measured: dict[str, Any] = {
        "first_start_seconds_to_url": round(cold, 1),
        "second_start_seconds_to_url": round(warm, 1),
        "venv_megabytes": _megabytes(clone / ".venv"),
        "packages": installed,
        "first_start_lines": len(printed),
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "start.json").write_text(json.dumps(measured, indent=2) + "\n")
    return measured, printed, again


def test_the_readme_first_command_starts_the_service_on_a_fresh_clone(
    tmp_path: Path,
) -> None:
    if shutil.which("git") is None:
        pytest.skip("copying the checkout's files needs git")
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    first = readme.split("```sh\n", 1)[1].split("\n", 1)[0]
    assert first.split("#")[0].strip() == "./scripts/start.sh"
    clone = fresh_clone(tmp_path / "clone")
    # A short HOME: the hook socket under it must fit a Unix socket's 107 bytes.
    home = Path(tempfile.mkdtemp(prefix="start-home-"))
    try:
        measured, printed, again = _start_twice(clone, home, tmp_path)
    finally:
        shutil.rmtree(home)
    steps = [line for line in printed if line.startswith("== ")]
    assert steps == [
        "== making the virtual environment .venv (python3 -m venv)",
        "== installing agent-gateway[web] into .venv (pip)",
        "== starting the approval service (gateway serve)",
    ]
    # pip's own progress, between the steps.
    assert any(line.startswith("Successfully installed ") for line in printed)
    assert [line for line in again if line.startswith("== ")] == [
        "== starting the approval service (gateway serve)"
    ]
    assert not [line for line in again if line.startswith(_PIP_SAYS)]
    installed = set(measured["packages"])
    assert {"agent_gateway", "starlette", "uvicorn", "bashlex"} <= installed
    assert not SERVICE_ONLY & installed
    assert not (clone / ".hosts").exists()


def _tiny_project(where: Path) -> Path:
    """A project of no dependencies beside start.sh's install step: it stands in for the gateway."""
    project = where / "project"
    (project / "scripts").mkdir(parents=True)
    shutil.copy2(REPOSITORY / "scripts" / "venv.sh", project / "scripts" / "venv.sh")
    # start.sh without the service: what it sources, as it sources it.
    install = project / "scripts" / "install.sh"
    install.write_text("#!/bin/sh\nset -eu\nEXTRAS=web\n. scripts/venv.sh\n")
    install.chmod(0o755)
    (project / "tiny.py").write_text("")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling>=1.25"]\nbuild-backend = "hatchling.build"\n'
        '[project]\nname = "tiny"\nversion = "1"\n'
        "[project.optional-dependencies]\nweb = []\n"
        '[tool.hatch.build.targets.wheel]\ninclude = ["tiny.py"]\n'
    )
    return project


def _install(project: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the tiny project's install step (what start.sh sources) in a clean environment."""
    return subprocess.run(
        ["./scripts/install.sh"],
        cwd=project,
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(project),
            "LANG": "C.UTF-8",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def _venv_sh(project: Path) -> list[str]:
    """The lines of a successful install step."""
    done = _install(project)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_a_venv_a_failed_start_left_is_made_again_and_a_changed_project_installed(
    tmp_path: Path,
) -> None:
    """
    What a start finds after a first one went wrong, or the project changed.

    ``python3 -m venv`` on a Debian without ``python3-venv`` (or one
    interrupted) leaves a ``.venv`` with a python and no pip: the next start
    makes it again instead of failing with "No module named pip". A changed
    ``pyproject.toml`` is installed again; an unchanged one is not. A project
    of no dependencies stands in for the gateway, so nothing is downloaded
    but its build backend.
    """
    project = _tiny_project(tmp_path)
    pyproject = project / "pyproject.toml"
    subprocess.run(
        ["python3", "-m", "venv", "--without-pip", ".venv"],
        cwd=project,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
        check=True,
    )
    repaired = _venv_sh(project)
    again = _venv_sh(project)
    pyproject.write_text(pyproject.read_text().replace('version = "1"', 'version = "2"'))
    changed = _venv_sh(project)
    steps = [[line for line in lines if line.startswith("== ")] for lines in (repaired, changed)]
    assert steps[0] == [
        "== .venv has no pip; making it again (python3 -m venv --clear)",
        "== installing agent-gateway[web] into .venv (pip)",
    ]
    assert any(line.startswith("Successfully installed tiny-1") for line in repaired)
    assert again == []
    assert steps[1] == ["== installing agent-gateway[web] into .venv (pip)"]
    assert any(line.startswith("Successfully installed tiny-2") for line in changed)


def test_a_python_that_cannot_make_a_venv_is_named_with_its_fix(tmp_path: Path) -> None:
    """
    Debian's python3 without ``python3-venv`` has no ``ensurepip``: one sentence with the fix, and no half-made ``.venv``.

    A module of that name that cannot be imported, first on ``PYTHONPATH``,
    stands in for the missing package.
    """
    project = _tiny_project(tmp_path)
    shadow = tmp_path / "no-ensurepip"
    shadow.mkdir()
    (shadow / "ensurepip.py").write_text("raise ImportError('python3-venv is not installed')\n")
    done = _install(project, PYTHONPATH=str(shadow))
    assert done.returncode == 1
    assert done.stderr == (
        "python3 cannot make a virtual environment (it has no ensurepip): on Debian or Ubuntu "
        "run 'apt-get install python3-venv' as root, then this again.\n"
    )
    assert not (project / ".venv").exists()
    troubleshooting = (REPOSITORY / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
    assert " ".join(troubleshooting.split()).count(done.stderr.split(":")[0]) == 1
