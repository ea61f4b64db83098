"""
docs/quickstart.md, followed as a newcomer follows it: every command runs, and prints what the page shows.

The page's ``sh`` blocks run in order, one line one command, in a temporary
working directory (holding the clone's ``docs/examples``) with a temporary
``HOME`` and the installed environment's ``bin`` first on ``PATH``, as after
``. .venv/bin/activate``. Each command's standard output and error go to a
pseudo-terminal, so it prints what a person at a terminal reads (``NO_COLOR``
set); a ``text`` block right after an ``sh`` block is what that block
prints, compared by doctest's own checker with ``...`` for what differs from
run to run. Every command must exit 0 within a bound.

The suite never hands text to a shell (tests/conftest.py), so a line is
split into words as the shell would and run directly: it may end in
``< FILE`` and use no other shell syntax (the test refuses a line that
does). ``gateway serve``, which runs until stopped, is started through
`serving.gateway_serve` on a free port, and that address replaces
``127.0.0.1:8787`` in what follows. While a command runs, the test is the
person of step 4: it allows, through the page's API, whatever call waits.
The one block marked ``<!-- setup: …`` (making the environment) is not run.
"""

from __future__ import annotations

import doctest
import os
import pty
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import serving

REPOSITORY = Path(__file__).resolve().parent.parent
QUICKSTART = REPOSITORY / "docs" / "quickstart.md"
SHOWN_ADDRESS = "127.0.0.1:8787"
WAIT = 120.0
"""Seconds any one command may take (the machine may be busy)."""

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
_SETUP = "<!-- setup:"
_SHELL_SYNTAX = re.compile(r"[|&;>`$()]|^~|^<<")


@dataclass
class Block:
    """One ``sh`` block of the page, and the output shown right after it (``None``: not shown)."""

    line: int
    commands: str
    shown: str | None


def blocks(text: str) -> Iterator[Block]:
    """The page's ``sh`` blocks in order (the setup block left out), each with its shown output."""
    fences = list(_FENCE.finditer(text))
    for index, fence in enumerate(fences):
        if fence.group(1) != "sh":
            continue
        before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if before.startswith(_SETUP):
            continue
        after = fences[index + 1] if index + 1 < len(fences) else None
        shown = (
            after.group(2)
            if after is not None
            and after.group(1) == "text"
            and not text[fence.end() : after.start()].strip()
            else None
        )
        yield Block(text.count("\n", 0, fence.start()) + 1, fence.group(2), shown)


def command_of(line: str) -> tuple[list[str], str | None]:
    """A line's words and the file its ``< FILE`` reads (or ``None``), refusing other shell syntax."""
    words = shlex.split(line, comments=True)
    stdin = None
    if len(words) >= 2 and words[-2] == "<":
        stdin, words = words[-1], words[:-2]
    refused = [word for word in words if _SHELL_SYNTAX.search(word)]
    assert not refused, f"{line!r} needs a shell ({refused}); the quickstart's test runs no shell"
    return words, stdin


def _drain(master: int, into: list[bytes]) -> None:
    while True:
        try:
            chunk = os.read(master, 65_536)
        except OSError:  # EIO: every writer has closed the terminal
            return
        if not chunk:
            return
        into.append(chunk)


class Person:
    """Who decides in the page: allows every call that waits, through the page's API."""

    def __init__(self, url: str, token: str) -> None:
        self.client = httpx.Client(
            base_url=url,
            headers={"Authorization": f"Bearer {token}"},
            trust_env=False,
            timeout=30,
        )
        self.allowed: list[str] = []

    def decide(self) -> None:
        for call in self.client.get("/v1/calls", params={"state": "pending"}).json()["calls"]:
            answer = self.client.post(
                f"/v1/calls/{call['id']}/decision",
                json={"decision": "allow", "digest": call["digest"]},
            )
            assert answer.status_code == 200, answer.text
            self.allowed.append(call["id"])


def run(
    words: list[str], stdin: str | None, cwd: Path, env: Mapping[str, str], person: Person | None
) -> str:
    """Run one command on a pseudo-terminal until it ends; what it printed (``\\r\\n`` made ``\\n``)."""
    master, terminal = pty.openpty()
    printed: list[bytes] = []
    with ExitStack() as stack:
        given = stack.enter_context((cwd / stdin).open("rb")) if stdin else subprocess.DEVNULL
        process = stack.enter_context(
            subprocess.Popen(
                words, stdin=given, stdout=terminal, stderr=terminal, cwd=cwd, env=dict(env)
            )
        )
        os.close(terminal)
        reader = threading.Thread(target=_drain, args=(master, printed), daemon=True)
        reader.start()
        deadline = time.monotonic() + WAIT
        while process.poll() is None:
            if time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"{shlex.join(words)} did not end within {WAIT:.0f} s")
            if person is not None:
                person.decide()
            time.sleep(0.2)
        reader.join(WAIT)
    os.close(master)
    out = b"".join(printed).decode().replace("\r\n", "\n")
    assert process.returncode == 0, f"{shlex.join(words)} exited {process.returncode}:\n{out}"
    return out


def _differs(shown: str, printed: str) -> str | None:
    """Doctest's report of how ``printed`` differs from ``shown`` (``...`` matching anything), or ``None``."""
    checker = doctest.OutputChecker()
    if checker.check_output(shown, printed, doctest.ELLIPSIS):
        return None
    example = doctest.Example("", shown)
    return checker.output_difference(example, printed, doctest.ELLIPSIS)


def test_the_quickstart_runs_as_written(tmp_path: Path) -> None:
    text = QUICKSTART.read_text(encoding="utf-8")
    assert text.count(_SETUP) == 1, "one setup block, the one the installed environment stands for"
    # A short HOME: the hook socket under it must fit a Unix socket's 107 bytes.
    home, cwd = Path(tempfile.mkdtemp(prefix="qs-home-")), tmp_path / "clone"
    shutil.copytree(REPOSITORY / "docs" / "examples", cwd / "docs" / "examples")
    bin_directory = Path(sys.executable).parent
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join([str(bin_directory), "/usr/bin", "/bin"]),
        "VIRTUAL_ENV": str(bin_directory.parent),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "TERM": "dumb",
        "TMPDIR": str(tmp_path),
    }
    ran: list[str] = []
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, home)
        address: str | None = None
        person: Person | None = None
        for block in blocks(text):
            printed = ""
            for line in block.commands.splitlines():
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                if address is not None:
                    line = line.replace(SHOWN_ADDRESS, address)
                words, stdin = command_of(line)
                ran.append(" ".join(words[:2]))
                if words[:2] == ["gateway", "serve"]:
                    served = stack.enter_context(
                        serving.gateway_serve(
                            *words[2:], cwd=cwd, env=env, wait=WAIT, program=serving.INSTALLED
                        )
                    )
                    address = served.url.removeprefix("http://").rstrip("/")
                    person = Person(served.url, served.token)
                    stack.callback(person.client.close)
                    printed += "\n".join(served.lines) + "\n"
                    continue
                printed += run(words, stdin, cwd, env, person)
            if block.shown is not None:
                shown = (
                    block.shown if address is None else block.shown.replace(SHOWN_ADDRESS, address)
                )
                difference = _differs(shown, printed)
                assert difference is None, f"docs/quickstart.md line {block.line}: {difference}"
        assert person is not None, "the quickstart starts the service"
        assert person.allowed == ["first-ask"], "the one ask of step 4 waited, and was allowed"
    # The path the page promises: version, serve, install, doctor, three calls, audit, verify, uninstall.
    assert ran == [
        "gateway --version",
        "gateway serve",
        "gateway install",
        "gateway doctor",
        *["gateway-hook claude-code"] * 3,
        "gateway audit",
        "gateway verify",
        "gateway uninstall",
    ]


def test_a_line_that_needs_a_shell_is_refused_not_run() -> None:
    """The runner splits words as the shell does; anything more would be silently wrong, so it is refused."""
    assert command_of("gateway-hook claude-code < docs/x.json") == (
        ["gateway-hook", "claude-code"],
        "docs/x.json",
    )
    assert command_of("gateway install claude-code --project 'my demo'") == (
        ["gateway", "install", "claude-code", "--project", "my demo"],
        None,
    )
    for line in ("cat x | sh", "TOKEN=$(cat t)", "ls > out", "a && b", "cd ~/x", "echo `id`"):
        with pytest.raises(AssertionError, match="needs a shell"):
            command_of(line)


def test_each_block_is_paired_with_the_output_shown_right_after_it() -> None:
    page = (
        "<!-- setup: not run -->\n```sh\npip install -e .\n```\n\n"
        "```sh\ngateway --version\n```\n\n```text\ngateway 1\n```\n\n"
        "```sh\ngateway serve\n```\n\nIt prints:\n\n```text\nnot paired\n```\n"
    )
    assert [(b.commands, b.shown) for b in blocks(page)] == [
        ("gateway --version\n", "gateway 1\n"),
        ("gateway serve\n", None),
    ]
