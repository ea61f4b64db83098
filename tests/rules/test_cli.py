"""
``gateway check`` and ``gateway rules test``, run in-process on files.

``check`` writes one verdict per input line, in order; a malformed line gets
a ``decline`` verdict with a reason, never a crash. ``rules test`` prints
every example's result and a summary, and exits 1 when one fails.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gateway._cli import main
from gateway.audit import read_audit_log
from gateway.events import VerdictReached


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[Any], str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, [json.loads(line) for line in captured.out.splitlines()], captured.err


LINES = [
    '{"id": "1", "cmd": "ls -la"}',
    '{"id": "2", "cmd": "rm -rf ~"}',
    '{"id": "3", "tool": "Read", "input": {"file_path": "README.md"}}',
    '{"id": "4", "cmd": "pip install requests"}',
    "",
    "this is not json",
    '{"id": "6", "cmd": 1}',
    '{"id": "7"}',
    '{"id": "8", "cmd": "ls", "tool": "Bash", "input": {"command": "ls"}}',
    '{"id": "9", "cmd": "ls", "colour": "blue"}',
    "[1, 2]",
    '{"cmd": "git status"}',
]


def test_check_writes_one_verdict_per_line_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a call without `cwd` runs here, where no repository is
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join(LINES) + "\n")
    status, verdicts, err = run(capsys, "check", str(calls))
    assert status == 0, err
    assert [v["decision"] for v in verdicts] == [
        "allow",
        "decline",
        "allow",
        "ask",
        "decline",
        "decline",
        "decline",
        "decline",
        "decline",
        "decline",
        "allow",  # git, in a directory no repository holds
    ]
    assert [v["id"] for v in verdicts[:4]] == ["1", "2", "3", "4"]
    assert verdicts[1]["rule"] == "delete.outside"
    assert verdicts[1]["approver"] == "rules"
    assert verdicts[1]["digest"].startswith("sha256:")
    assert (
        verdicts[0]["reason"] == "Allowed `ls -la`: rule read.look only lists or describes files."
    )
    for verdict in verdicts:
        assert set(verdict) == {
            "id",
            "decision",
            "reason",
            "digest",
            "approver",
            "rule",
            "confinement",
        }


def test_check_gives_malformed_lines_a_decline_with_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join(LINES) + "\n")
    _, verdicts, _ = run(capsys, "check", str(calls))
    malformed = verdicts[4:10]
    reasons = [v["reason"] for v in malformed]
    assert reasons[0].startswith("Line 6 is not valid JSON")
    assert reasons[1].startswith("Line 7 is not a tool call")
    assert reasons[2] == "Line 8 has neither `cmd` nor `tool` and `input`."
    assert reasons[3] == "Line 9 gives both `cmd` and `tool`/`input`."
    assert reasons[4].startswith("Line 10 is not a tool call")
    assert reasons[5].startswith("Line 11 is not a tool call")
    assert [v["id"] for v in malformed] == [None, None, "7", "8", None, None]
    assert all(v["digest"] is None and v["rule"] is None for v in malformed)


def test_check_reads_standard_input_and_writes_an_audit_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b'{"id": "a", "cmd": "git push --force"}\n'))
    monkeypatch.setattr(sys, "stdin", stdin)
    audit = tmp_path / "audit.jsonl"
    status, verdicts, err = run(capsys, "check", "--audit", str(audit))
    assert status == 0, err
    assert [(v["id"], v["decision"], v["rule"]) for v in verdicts] == [
        ("a", "decline", "git.force-push")
    ]
    verdicts_logged = [e for e in read_audit_log(audit) if isinstance(e, VerdictReached)]
    assert [e.verdict.rule for e in verdicts_logged] == ["git.force-push"]


def test_check_uses_the_rules_of_a_given_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text(
        '[gateway]\napprovers = ["rules"]\n\n[approver.rules]\ninclude-default = false\n\n'
        '[[approver.rules.rule]]\nid = "team.make"\ndecision = "allow"\nprograms = ["make"]\n'
        'prefix = ["test"]\nexecutes = ["code"]\nreason = "runs the tests"\nmatch = ["make test"]\n'
    )
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"cmd": "make test"}\n{"cmd": "ls"}\n')
    status, verdicts, err = run(capsys, "check", "--config", str(config), str(calls))
    assert status == 0, err
    assert [(v["decision"], v["rule"]) for v in verdicts] == [("allow", "team.make"), ("ask", None)]


def test_check_stops_with_one_sentence_on_an_invalid_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text(
        '[gateway]\napprovers = ["rules"]\n\n[approver.rules]\ninclude-default = false\n\n'
        '[[approver.rules.rule]]\nid = "team.make"\ndecision = "decline"\nprograms = ["make"]\n'
        'reason = "runs the tests"\nnot-match = ["make test"]\n'
    )
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"cmd": "ls"}\n')
    status, verdicts, err = run(capsys, "check", "--config", str(config), str(calls))
    assert status == 2
    assert verdicts == []
    assert "team.make" in err
    assert "decides its example `make test`" in err
    assert err.count("\n") == 1


def test_check_refuses_a_missing_input_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, verdicts, err = run(capsys, "check", str(tmp_path / "missing.jsonl"))
    assert status == 2
    assert verdicts == []
    assert err.startswith("gateway check: Cannot read")


def test_rules_test_runs_every_example_of_the_default_policy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, results, _ = run(capsys, "rules", "test")
    assert status == 0
    summary = results[-1]
    assert summary["failed"] == 0
    assert summary["examples"] == len(results) - 1 > 300
    assert all(r["passed"] for r in results[:-1])


def test_rules_test_reports_a_failing_example_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "team.toml"
    path.write_text(
        '[[rule]]\nid = "team.x"\ndecision = "ask"\nprograms = ["x"]\nreason = "r"\n'
        'match = ["x run", "y run"]\nnot-match = ["z"]\n'
    )
    status, results, _ = run(capsys, "rules", "test", "--no-default", str(path))
    assert status == 1
    # Each example runs under both profiles.
    assert results[-1] == {"rules": 1, "examples": 6, "passed": 4, "failed": 2}
    failed = [r for r in results[:-1] if not r["passed"]]
    assert [(r["rule"], r["source"], r["expect"], r["example"]) for r in failed] == [
        ("team.x", str(path), "match", "y run"),
        ("team.x", str(path), "match", "y run"),
    ]


def test_rules_test_stops_with_one_sentence_on_an_invalid_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "team.toml"
    path.write_text('[[rule]]\nid = "team.x"\ndecision = "ask"\nreason = "r"\n')
    status, results, err = run(capsys, "rules", "test", str(path))
    assert status == 2
    assert results == []
    assert (
        err
        == f"gateway rules: Invalid rule 'team.x' in {path}: it selects nothing (give programs, paths, launchers, tools, fed-by or an effect condition).\n"
    )


def test_rules_test_fails_an_allow_example_the_policy_still_asks_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make test` matches an allow rule, yet make runs recipes no rule vouches for: not passed."""
    path = tmp_path / "team.toml"
    path.write_text(
        '[[rule]]\nid = "make.test"\ndecision = "allow"\nprograms = ["make"]\n'
        'prefix = ["test"]\nreason = "runs the tests"\nmatch = ["make test"]\n'
    )
    status, results, _ = run(capsys, "rules", "test", str(path))
    assert status == 1
    failed = [r for r in results[:-1] if not r["passed"]]
    assert [(r["rule"], r["expect"], r["example"]) for r in failed] == [
        ("make.test", "match", "make test")
    ] * 2
    assert "code the rules cannot read" in failed[0]["detail"]
    path.write_text(path.read_text() + 'executes = ["code"]\n')
    status, results, _ = run(capsys, "rules", "test", str(path))
    assert status == 0


def test_the_rule_example_of_the_rules_page_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The `[[approver.rules.rule]]` of docs/rules.md, as a rule file: every example holds."""
    page = (Path(__file__).parents[2] / "docs" / "rules.md").read_text()
    block = page.split("```toml\n", 1)[1].split("```", 1)[0]
    rules = block[block.index("[[approver.rules.rule]]") :]
    path = tmp_path / "team-rules.toml"
    path.write_text(rules.replace("[[approver.rules.rule]]", "[[rule]]"))
    status, results, _ = run(capsys, "rules", "test", str(path))
    own = [r for r in results[:-1] if r["source"] == str(path)]
    assert status == 0, [r for r in own if not r["passed"]]
    assert {r["expect"] for r in own} == {"match", "not-match"}


def test_check_profile_shows_what_workspace_write_allows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same calls under each profile: only the workspace write changes; the persistence write stays declined."""
    calls = tmp_path / "calls.jsonl"
    calls.write_text(
        '{"cmd": "sed -i s/a/b/ notes.txt"}\n{"cmd": "echo x >> ~/.bashrc"}\n{"cmd": "ls"}\n'
    )
    decided = {}
    for profile in ("read-only", "workspace-write"):
        status, verdicts, err = run(capsys, "check", "--profile", profile, str(calls))
        assert status == 0, err
        decided[profile] = [v["decision"] for v in verdicts]
    assert decided == {
        "read-only": ["ask", "decline", "allow"],
        "workspace-write": ["allow", "decline", "allow"],
    }
    status, verdicts, err = run(capsys, "check", "--profile", "everything", str(calls))
    assert status == 2
    assert "'everything'" in err


def test_check_confined_shows_each_allows_boundary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --confined, code the rules cannot read is allowed with the boundary it must run in."""
    work = tmp_path / "work"
    work.mkdir()
    calls = tmp_path / "calls.jsonl"
    calls.write_text(
        json.dumps({"cmd": "python x.py", "cwd": str(work)})
        + "\n"
        + json.dumps({"cmd": "python x.py && curl -s https://example.com", "cwd": str(work)})
        + "\n"
    )
    status, bare, err = run(capsys, "check", "--profile", "workspace-write", str(calls))
    assert status == 0, err
    assert [v["decision"] for v in bare] == ["ask", "ask"]
    assert [v["confinement"] for v in bare] == [None, None]
    status, inside, err = run(
        capsys, "check", "--confined", "--profile", "workspace-write", str(calls)
    )
    assert status == 0, err
    assert [v["decision"] for v in inside] == ["allow", "ask"]
    boundary = inside[0]["confinement"]
    assert boundary["profile"] == "workspace-write"
    assert boundary["write"] == [str(work)]
    assert boundary["network"] is False
    assert inside[1]["confinement"] is None
    assert "curl" in inside[1]["reason"]


def test_rules_test_plans_examples_with_the_configs_option_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rule allowing a program of the user's own passes only with the table its config declares."""
    rules = tmp_path / "team.toml"
    rules.write_text(
        '[[rule]]\nid = "team.report"\ndecision = "allow"\nprograms = ["report"]\n'
        'reason = "prints a report"\nmatch = ["report -v data.csv"]\n'
        'not-match = ["report --frobnicate data.csv"]\n'
    )
    config = tmp_path / "gateway.toml"
    config.write_text(
        '[programs.report]\noptions = ["-v --verbose"]\noperands = { rest = "read" }\n'
    )
    status, results, _ = run(capsys, "rules", "test", str(rules))
    assert status == 1  # without the table `report` is never allowed
    status, results, _ = run(capsys, "rules", "test", "--config", str(config), str(rules))
    assert status == 0, [r for r in results if not r.get("passed", True)]
    config.write_text("[programs.ls]\noptions = []\n")
    status, results, err = run(capsys, "rules", "test", "--config", str(config), str(rules))
    assert status == 2
    assert "programs.ls has a built-in table already" in err
