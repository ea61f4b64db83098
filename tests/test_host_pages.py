"""
docs/hosts/*.md say what the CLI does: every example on them is run.

* Every ``gateway`` line of an ``sh`` block runs, as a user would (the
  installed command, a temporary ``HOME``, a temporary project as working
  directory), and exits 0 — ``gateway serve``, which runs until stopped, is
  left to the quick start's test.
* Every ``toml`` block is a valid config; one holding rules is given to
  ``gateway check --config``, which runs the rules' examples as it loads
  them; every ``json`` block is JSON.
* Every claim a page makes about a command is marked beside it, unseen when
  the page is read, as ``<!-- checked: WHO ANSWER: COMMAND -->``: ``verdict``
  and ``allow``/``ask``/``decline`` — what ``gateway check`` decides for the
  command in the default policy; or a host (``claude-code``, ``codex``,
  ``gemini``) and what its hook answers — ``allow``, ``ask``, ``deny`` or
  ``none`` (no decision: the host's own checks decide). The paragraph the
  mark is in must name the command.

A page that says a command is allowed while the CLI asks fails here.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from gateway import load_config

REPOSITORY = Path(__file__).resolve().parent.parent
HOSTS = REPOSITORY / "docs" / "hosts"
BIN = Path(sys.executable).parent
WAIT = 120.0

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
_CHECKED = re.compile(r"<!-- checked: ([a-z-]+) ([a-z]+): (.+?) -->")
_EVENTS = {
    "claude-code": ("PreToolUse", "Bash"),
    "codex": ("PreToolUse", "Bash"),
    "gemini": ("BeforeTool", "run_shell_command"),
}


def pages() -> list[Path]:
    return sorted(HOSTS.glob("*.md"))


def blocks(kind: str) -> Iterator[tuple[str, int, str]]:
    """Every fenced block of ``kind`` on the hosts' pages: page, line, text."""
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for fence in _FENCE.finditer(text):
            if fence.group(1) == kind:
                yield page.name, text.count("\n", 0, fence.start()) + 1, fence.group(2)


def claims() -> list[tuple[str, str, str, str]]:
    """Every marked claim: page, who answers, the answer, the command."""
    return [
        (page.name, mark.group(1), mark.group(2), mark.group(3))
        for page in pages()
        for mark in _CHECKED.finditer(page.read_text(encoding="utf-8"))
    ]


def _paragraph(page: str, mark: str) -> str:
    text = (HOSTS / page).read_text(encoding="utf-8")
    at = text.index(mark)
    start = text.rfind("\n\n", 0, at)
    end = text.find("\n\n", at)
    return text[start : end if end >= 0 else len(text)]


def _gateway_lines() -> list[tuple[str, str]]:
    lines = []
    for page, line, text in blocks("sh"):
        for number, command in enumerate(text.splitlines()):
            words = shlex.split(command, comments=True)
            if words and Path(words[0]).name == "gateway" and words[1:2] != ["serve"]:
                lines.append((f"{page}:{line + 1 + number}", command))
    return lines


def ran(
    user: tuple[dict[str, str], Path], program: str, *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run an installed program (``gateway``, ``gateway-hook``) as the user, in the project; it must exit 0."""
    env, project = user
    done = subprocess.run(
        [str(BIN / program), *args],
        input=stdin,
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0, f"{program} {' '.join(args)}\n{done.stderr}"
    return done


@pytest.fixture
def user(tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    """A user's environment (a short temporary HOME) and a project to work in."""
    home = Path(tempfile.mkdtemp(prefix="hosts-home-"))
    project = tmp_path / "project"
    project.mkdir()
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join([str(BIN), "/usr/bin", "/bin"]),
        "LANG": "C.UTF-8",
        "TMPDIR": str(tmp_path),
    }
    try:
        yield env, project
    finally:
        import shutil

        shutil.rmtree(home)


@pytest.mark.parametrize(("where", "command"), _gateway_lines(), ids=lambda v: str(v))
def test_every_gateway_line_runs(
    user: tuple[dict[str, str], Path], where: str, command: str
) -> None:
    # `.venv/bin/gateway` in a clone: the installed one here.
    ran(user, "gateway", *shlex.split(command, comments=True)[1:])


def test_the_pages_have_examples_to_run() -> None:
    """The tests here have something to check (a renamed marker would make them vacuous)."""
    assert len(_gateway_lines()) >= 5
    assert len(claims()) >= 8
    assert {who for _, who, _, _ in claims()} == {"verdict", *_EVENTS}


@pytest.mark.parametrize(("page", "line", "text"), list(blocks("toml")), ids=lambda v: str(v))
def test_every_toml_block_is_a_valid_config(
    tmp_path: Path, user: tuple[dict[str, str], Path], page: str, line: int, text: str
) -> None:
    load_config(text.encode(), name=f"{page}:{line}")
    if "[[approver.rules.rule]]" not in text:
        return
    # Rules: loading them runs their examples, which must hold with the default policy.
    config = tmp_path / "rules.toml"
    config.write_text(text)
    examples = msgspec.toml.decode(text.encode())["approver"]["rules"]["rule"]
    calls = "".join(
        json.dumps({"id": f"{rule['id']}:{n}", "cmd": cmd}) + "\n"
        for rule in examples
        for n, cmd in enumerate(rule.get("match", []))
    )
    done = ran(user, "gateway", "check", "--config", str(config), stdin=calls)
    for verdict in map(json.loads, done.stdout.splitlines()):
        rule = verdict["id"].split(":")[0]
        expected = next(r["decision"] for r in examples if r["id"] == rule)
        assert (verdict["decision"], verdict["rule"]) == (expected, rule), verdict


@pytest.mark.parametrize(("page", "line", "text"), list(blocks("json")), ids=lambda v: str(v))
def test_every_json_block_is_json(page: str, line: int, text: str) -> None:
    json.loads(text)


@pytest.mark.parametrize(("page", "who", "answer", "command"), claims(), ids=lambda v: str(v))
def test_every_claim_about_a_command_is_what_the_cli_does(
    user: tuple[dict[str, str], Path], page: str, who: str, answer: str, command: str
) -> None:
    _, project = user
    assert f"`{command}`" in _paragraph(page, f"<!-- checked: {who} {answer}: {command} -->"), (
        f"{page}: the paragraph of the mark does not name `{command}`"
    )
    if who == "verdict":
        done = ran(user, "gateway", "check", stdin=json.dumps({"cmd": command}) + "\n")
        assert json.loads(done.stdout)["decision"] == answer, done.stdout
        return
    event, tool = _EVENTS[who]
    hook_event = {
        "session_id": "pages",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": {"command": command},
        "tool_use_id": "pages-1",
        "cwd": str(project),
    }
    done = ran(user, "gateway-hook", who, stdin=json.dumps(hook_event))
    reply = json.loads(done.stdout) if done.stdout.strip() else {}
    said = (
        reply.get("hookSpecificOutput", {}).get("permissionDecision")
        if who != "gemini"
        else reply.get("decision")
    )
    assert (said or "none") == answer, done.stdout
