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
    assert result["rule"] == "delete.outside"
    assert [(c["command"], c["decision"], c["rule"]) for c in result["commands"]] == [
        ("ls -la", "allow", "read.look"),
        ("rm -rf ~", "decline", "delete.outside"),
    ]
    assert result["commands"][0]["change"] is None
    assert result["commands"][1]["change"].startswith(
        "Rule delete.outside declines it: change the command"
    )
    asked = explained(capsys, "make test")["commands"][0]
    assert asked["rule"] is None
    assert "runs code the rules cannot read" in asked["change"]
    assert "so no rule can allow it" in asked["change"]
    pushed = explained(capsys, "git push --force origin main")["commands"][0]
    assert pushed["rule"] == "git.force-push"
    assert "replace rule git.force-push by its id" in pushed["change"]


def test_following_the_advice_changes_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = "tar -tf a.tar"
    before = explained(capsys, command)
    assert before["decision"] == "ask"
    assert "an allow rule for its program" in before["commands"][0]["change"]
    config = tmp_path / "config.toml"
    config.write_text(
        '[[approver.rules.rule]]\nid = "team.tar"\ndecision = "allow"\nprograms = ["tar"]\n'
        f'reason = "lists archives"\nmatch = ["{command}"]\n'
    )
    after = explained(capsys, "--config", str(config), command)
    assert (after["decision"], after["rule"]) == ("allow", "team.tar")


def test_a_program_without_an_option_table_is_said_to_need_a_person(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The advice is true: naming such a program in an allow rule does not allow it."""
    before = explained(capsys, "mytool build")
    assert "has no option table, so no rule can allow it" in before["commands"][0]["change"]
    config = tmp_path / "config.toml"
    config.write_text(
        '[[approver.rules.rule]]\nid = "team.mytool"\ndecision = "allow"\n'
        'programs = ["mytool"]\nreason = "builds"\nmatch = ["mytool build"]\n'
    )
    assert main(["explain", "--config", str(config), "mytool build"]) == 2
    assert "has no option table" in capsys.readouterr().err


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
        "      To change it: Its program has no option table, so no rule can allow it (what it does with its arguments is not known): let a person decide, and remember this exact command.",
    ]


@pytest.mark.parametrize(
    ("command", "hindrance", "advice"),
    [
        ("tar -tf a.tar", "uncovered", "an allow rule for its program"),
        ("mytool build", "uncovered", "has no option table, so no rule can allow it"),
        ("make test", "code", "runs code the rules cannot read"),
        ("sort --frobnicate x", "undeclared", "Its option table does not declare what it is given"),
        ("watch ls", "launcher", "names the launcher (`launchers = [...]`)"),
        ("nohup ls", None, "A built-in check of the rules asks about it"),
    ],
)
def test_the_advice_follows_what_stood_in_the_way_of_an_allow(
    capsys: pytest.CaptureFixture[str], command: str, hindrance: str | None, advice: str
) -> None:
    """The rules approver says what kept each command from an allow; the advice is chosen by that."""
    first = explained(capsys, command)["commands"][0]
    assert (first["decision"], first["rule"]) == ("ask", None)
    assert first["hindrance"] == hindrance
    assert advice in first["change"]
