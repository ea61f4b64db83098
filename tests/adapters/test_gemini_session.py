"""
`gateway_gemini._session`: whether the Gemini CLI that started a hook can ask its user.

Gemini's own rule (its arguments, its terminal, ``CI``) decides; the process
is found through ``/proc`` from the hook's, as the service finds the hook
from its socket's peer. A stand-in Gemini (``node`` running a script named
``gemini.js``) starts a shell that starts the "hook", once on a
pseudo-terminal and once on pipes; the real CLI's headless runs are in
tests/hosts/test_gemini.py.
"""

from __future__ import annotations

import doctest
import os
import pty
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import gateway_gemini._session as session
import pytest
from gateway_gemini._session import asks_a_person, interactive

GEMINI_JS = """
const { spawn } = require("child_process");
// As Gemini runs a hook: a shell, whose child is the hook (here a sleep).
spawn("sh", ["-c", "sleep 60 & echo $! >&2; wait"], { stdio: ["ignore", "ignore", "inherit"] });
setTimeout(() => {}, 60000);
"""


def test_the_docstrings_examples_hold() -> None:
    assert doctest.testmod(session).failed == 0


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["-m", "gemini-2.5-pro", "--approval-mode", "yolo"], True),
        (["--model=gemini-2.5-pro", "-y", "--sandbox"], True),
        (["--prompt=Tidy up."], False),
        (["-pTidy up."], False),
        (["-m", "gemini-2.5-pro", "Tidy", "up"], False),
        (["--", "Tidy up."], False),
        (["--acp"], True),
        (["--prompt-interactive=Tidy up.", "-o", "json"], True),
        (["-r"], True),
        # An option Gemini 0.61.0 does not have, with a word after it: the
        # word may be a query, so the session counts as headless.
        (["--some-new-option", "value"], False),
    ],
)
def test_the_arguments_are_read_as_gemini_reads_them(arguments: list[str], expected: bool) -> None:
    assert interactive(arguments, terminal=True, environ={}) is expected


def test_ci_is_headless_unless_gemini_is_under_its_own_tests() -> None:
    assert not interactive([], terminal=True, environ={"GITHUB_ACTIONS": "true"})
    assert interactive(
        [], terminal=True, environ={"CI": "true", "GEMINI_CLI_INTEGRATION_TEST": "true"}
    )


@contextmanager
def stand_in(tmp_path: Path, arguments: list[str], *, terminal: bool) -> Iterator[int]:
    """A stand-in Gemini with ``arguments``; yields the pid of the hook it started."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = tmp_path / "gemini.js"
    script.write_text(GEMINI_JS)
    primary, secondary = pty.openpty() if terminal else (None, None)
    stdio = secondary if secondary is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        [node, str(script), *arguments],
        stdin=stdio,
        stdout=stdio,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={"PATH": os.environ["PATH"]},
    )
    try:
        assert process.stderr is not None
        yield int(process.stderr.readline())
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)
        if process.stderr is not None:
            process.stderr.close()
        for fd in (primary, secondary):
            if fd is not None:
                os.close(fd)


def test_a_session_on_a_terminal_asks_and_a_headless_one_does_not(tmp_path: Path) -> None:
    with stand_in(tmp_path, ["--approval-mode", "auto_edit"], terminal=True) as hook:
        assert asks_a_person(hook)
    with stand_in(tmp_path, ["-p", "Tidy up.", "--approval-mode", "yolo"], terminal=True) as hook:
        assert not asks_a_person(hook)
    with stand_in(tmp_path, ["--approval-mode", "auto_edit"], terminal=False) as hook:
        assert not asks_a_person(hook)


def test_a_hook_with_no_gemini_above_it_is_headless() -> None:
    # This test's own process: pytest, no Gemini among its ancestors.
    assert not asks_a_person(os.getpid())
    assert not asks_a_person(2**22 + 12345)  # no such process
