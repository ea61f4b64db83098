"""
The ``gateway`` command behaves like a Unix tool.

* A call that names no working directory is judged where the command runs
  (``gateway check``, ``gateway explain``), or in ``--cwd``; a ``cwd`` field
  of a line wins over both.
* A reader that stops reading (``| head``), or that ended before the
  command wrote (``| true``), ends the command quietly, with status 141 as
  SIGPIPE ends a Unix tool: no traceback, no blame on the log; so for every
  command that prints.
* A command that reads standard input by default, started on a terminal
  with nothing to read, says what it expects instead of waiting silently.

The pipe and terminal tests run the installed ``gateway`` command as a user
does, in a subprocess.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rules.support import make_repository

from gateway._cli import PIPE_CLOSED, main

GATEWAY = str(Path(sys.executable).parent / "gateway")
WAIT = 120.0
"""Seconds a command may take on a busy machine (a bound that only catches hangs)."""


def verdicts(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    assert main(list(args)) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.fixture
def repositories(tmp_path: Path) -> tuple[Path, Path]:
    """A clean repository, and one whose configuration names code `git status` would run (its fsmonitor)."""
    clean, hostile = tmp_path / "clean", tmp_path / "hostile"
    make_repository(clean)
    make_repository(hostile)
    (hostile / ".git" / "config").write_text("[core]\n\tfsmonitor = ./monitor.sh\n")
    return clean, hostile


# ───────────────────────── the directory a call runs in ─────────────────────────


def test_a_call_without_cwd_is_judged_in_the_commands_own_directory(
    tmp_path: Path,
    repositories: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clean, hostile = repositories
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"id": "s", "cmd": "git status"}\n')
    monkeypatch.chdir(clean)
    [here] = verdicts(capsys, "check", str(calls))
    assert (here["decision"], here["rule"]) == ("allow", "read.git")
    monkeypatch.chdir(hostile)
    [there] = verdicts(capsys, "check", str(calls))
    assert there["decision"] == "ask"
    assert "fsmonitor" in there["reason"]
    assert "only known when it runs" not in there["reason"]
    # --cwd names the directory; a line's own `cwd` wins over it.
    [given] = verdicts(capsys, "check", "--cwd", str(clean), str(calls))
    assert given["decision"] == "allow"
    calls.write_text(json.dumps({"id": "s", "cmd": "git status", "cwd": str(hostile)}) + "\n")
    [own] = verdicts(capsys, "check", "--cwd", str(clean), str(calls))
    assert own["decision"] == "ask"


def test_explain_judges_the_command_where_it_runs_unless_told(
    repositories: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clean, hostile = repositories
    monkeypatch.chdir(hostile)
    assert main(["explain", "git status"]) == 0
    asked = json.loads(capsys.readouterr().out)
    assert main(["explain", "--cwd", str(clean), "git status"]) == 0
    allowed = json.loads(capsys.readouterr().out)
    assert asked["decision"] == "ask"
    assert "fsmonitor" in asked["reason"]
    assert (allowed["decision"], allowed["rule"]) == ("allow", "read.git")


# ───────────────────────── a reader that stops reading ─────────────────────────


def _first_line_then_close(args: list[str], stdin: bytes, cwd: Path) -> tuple[int, bytes, bytes]:
    """Run ``gateway ARGS``, read one line of its output and stop reading, as ``| head -1`` does."""
    with subprocess.Popen(
        [GATEWAY, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdin.write(stdin)
        process.stdin.close()
        first = process.stdout.readline()
        process.stdout.close()
        status = process.wait(timeout=WAIT)
        return status, first, process.stderr.read()


@pytest.fixture(scope="module")
def many_calls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A directory with an audit log of many records, and many calls as JSON lines."""
    where = tmp_path_factory.mktemp("pipes")
    lines = b"".join(b'{"cmd": "ls -la %d"}\n' % n for n in range(2000))
    audit = where / "audit.jsonl"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", _Bytes(lines))
        patch.setattr(sys, "stdout", _Bytes(b""))
        assert main(["check", "--audit", str(audit)]) == 0
    return where, lines


class _Bytes:
    """A text stream over bytes, with the ``buffer`` the command reads and writes."""

    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        return self.buffer.write(text.encode())

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(
    "args",
    [["check"], ["plan", "--jsonl"], ["audit", "export", "audit.jsonl"]],
    ids=["check", "plan-jsonl", "audit-export"],
)
def test_a_reader_that_stops_reading_ends_the_command_quietly(
    many_calls: tuple[Path, bytes], args: list[str]
) -> None:
    where, lines = many_calls
    status, first, err = _first_line_then_close(args, lines, where)
    assert json.loads(first)
    assert err == b""
    assert status == PIPE_CLOSED == 141


def _reader_gone_before_start(args: list[str], stdin: bytes, cwd: Path) -> tuple[int, bytes]:
    """Run ``gateway ARGS`` writing into a pipe nobody reads any more (``| true``); status, standard error."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run(
            [GATEWAY, *args],
            input=stdin,
            stdout=writer,
            stderr=subprocess.PIPE,
            cwd=cwd,
            # The memory file and the token store, of this test alone.
            env={**os.environ, "XDG_STATE_HOME": str(cwd / "state")},
            timeout=WAIT,
        )
    finally:
        os.close(writer)
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["plan", "ls -la; cat README.md"],
        ["plan", "--jsonl"],
        ["parse", "ls | wc -l"],
        ["explain", "pip install requests"],
        ["explain", "-"],
        ["verify", "audit.jsonl"],
        ["audit", "export", "audit.jsonl"],
        ["config", "show"],
        ["rules", "test"],
        ["remembered", "list"],
        ["token", "list"],
    ],
    ids=lambda args: "-".join(args).replace(" ", "_"),
)
def test_every_command_that_prints_ends_quietly_when_no_one_reads(
    many_calls: tuple[Path, bytes], args: list[str]
) -> None:
    """Every write meets a closed pipe (the reader ended first): status 141, nothing on standard error."""
    where, lines = many_calls
    status, err = _reader_gone_before_start(args, lines[:200], where)
    assert (status, err) == (PIPE_CLOSED, b"")


def test_the_log_a_cut_short_check_writes_stays_whole(
    many_calls: tuple[Path, bytes], tmp_path: Path
) -> None:
    """Ending early on a closed pipe still closes the audit log: every verdict given has its record."""
    where, lines = many_calls
    audit = tmp_path / "cut.jsonl"
    status, _, err = _first_line_then_close(["check", "--audit", str(audit)], lines, where)
    assert (status, err) == (PIPE_CLOSED, b"")
    assert main(["verify", str(audit), "--json"]) == 0


# ───────────────────────── a terminal with nothing to read ─────────────────────────


def _on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run ``gateway ARGS`` with a terminal for its standard input and output, typing nothing."""
    controller, terminal = pty.openpty()
    try:
        with subprocess.Popen(
            [GATEWAY, *args],
            stdin=terminal,
            stdout=terminal,
            stderr=terminal,
            env={**os.environ, "NO_COLOR": "1"},
        ) as process:
            deadline = time.monotonic() + WAIT
            while process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            if process.poll() is None:
                process.kill()
                process.wait()
                return -1, "did not end: it waits on the terminal"
            os.close(terminal)
            terminal = -1
            printed = b""
            while True:
                try:
                    chunk = os.read(controller, 65_536)
                except OSError:
                    break
                if not chunk:
                    break
                printed += chunk
            return process.returncode, printed.decode().replace("\r\n", "\n")
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["explain"],
            "gateway explain: Explain what? Give the shell text as an argument (gateway explain 'git status')",
        ),
        (["plan"], "gateway plan: Plan what? Give the shell text as an argument"),
        (["parse"], "gateway parse: Parse what? Give the shell text as an argument"),
        (["check"], "gateway check: Check what? Pipe in tool calls as JSON lines"),
    ],
    ids=["explain", "plan", "parse", "check"],
)
def test_nothing_to_read_on_a_terminal_says_what_is_expected(
    args: list[str], expected: str
) -> None:
    status, printed = _on_a_terminal(args)
    assert status == 2, printed
    assert printed.startswith(expected)
    assert printed.count("\n") == 1
