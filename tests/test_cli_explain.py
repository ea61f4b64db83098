"""
``gateway explain 'CMD'``: the verdict, each command's rule and reason, and what would change it.

The advice is tested by following it: the rule it suggests, added to a
config, turns the verdict into an allow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway._cli import _view, main


def explained(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["explain", *args]) == 0
    value = json.loads(capsys.readouterr().out)
    assert isinstance(value, dict)
    return value


def test_each_command_has_its_decision_rule_reason_and_change(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = explained(capsys, "ls -la && rm -rf ~")
    assert result["decision"] == "decline"
    assert result["rule"] == "rm.recursive-outside"
    assert [(c["command"], c["decision"], c["rule"]) for c in result["commands"]] == [
        ("ls -la", "allow", "read.listing"),
        ("rm -rf ~", "decline", "rm.recursive-outside"),
    ]
    assert result["commands"][0]["change"] is None
    assert result["commands"][1]["change"].startswith(
        "Rule rm.recursive-outside declines it: change the command"
    )
    asked = explained(capsys, "make test")["commands"][0]
    assert asked["rule"] == "ask.interpreter"
    assert (
        "no allow rule outranks an ask: replace rule ask.interpreter by its id" in asked["change"]
    )


@pytest.mark.parametrize(
    ("command", "advice", "rule"),
    [
        ("mytool build", "an allow rule for its program", 'programs = ["mytool"]'),
        (
            "mytool build > out.txt",
            "with `writes = true` would allow the write",
            'programs = ["mytool"]\nwrites = true',
        ),
    ],
)
def test_following_the_advice_changes_the_verdict(
    command: str, advice: str, rule: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = explained(capsys, command)
    assert before["decision"] == "ask"
    assert advice in before["commands"][0]["change"]
    config = tmp_path / "config.toml"
    config.write_text(
        f'[[approver.rules.rule]]\nid = "team.mytool"\ndecision = "allow"\n{rule}\n'
        f'reason = "builds the project"\nmatch = ["{command}"]\n'
    )
    after = explained(capsys, "--config", str(config), command)
    assert (after["decision"], after["rule"]) == ("allow", "team.mytool")


def test_on_a_terminal_it_speaks_in_sentences(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_view, "_is_terminal", lambda: True)
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["explain", "mytool build"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "ASK  mytool build",
        "The gateway would ask this call: Asked about `mytool build`: no rule covers `mytool`.",
        "With a person in the chain (the default), the call would wait for them in the approval page.",
        "",
        "Command by command:",
        "  ASK  mytool build",
        "      Asked about `mytool build`: no rule covers `mytool`.",
        "      To change it: No rule covers it: an allow rule for its program (`programs = [...]`) would allow it.",
    ]
