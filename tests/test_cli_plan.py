"""
``gateway plan`` and ``gateway parse``, end to end in a subprocess.

JSON on stdout, one sentence on stderr for errors, exit status 0 for a
measured call, 2 for bad input or an unmeasured call. ``--jsonl`` reads
recorded traffic: one result per line with a ``cmd``, in order, and an error
record (never a crash) for any other line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import msgspec

from gateway.plans import plan_program


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "gateway._cli", *args],
        input=stdin,
        capture_output=True,
        check=False,
        timeout=120,
    )


def output(result: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, result.stdout
    value = json.loads(lines[0])
    assert isinstance(value, dict)
    return value


HEREDOCS = "cat <<'A' > a.py\nprint($x)\nA\n{ cat <<B\n$HOME $(date +%s)\nB\n}\n"


def test_plan_of_a_source_argument() -> None:
    result = run("plan", "cd src && grep -rn TODO .")
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    value = output(result)
    plan = plan_program("cd src && grep -rn TODO .")
    assert {k: value[k] for k in ("source", "status", "reason", "digest")} == {
        "source": plan.source,
        "status": "measured",
        "reason": None,
        "digest": plan.digest,
    }
    assert value["statements"] == json.loads(msgspec.json.encode(plan.statements))
    assert value["expansions"] == []
    assert value["sequence"] == {
        "status": "measured",
        "steps": [{"argv": ["grep", "-rn", "TODO", "."], "cwd": "src"}],
        "reason": None,
    }
    assert "errors" not in value


def test_plan_reads_standard_input_with_a_dash_or_no_argument() -> None:
    source = "ls -la | wc -l\n"
    by_argument = output(run("plan", source))
    assert output(run("plan", "-", stdin=source.encode())) == by_argument
    assert output(run("plan", stdin=source.encode())) == by_argument


def test_plan_prints_the_expansion_of_every_heredoc() -> None:
    value = output(run("plan", HEREDOCS))
    assert value["status"] == "measured"
    first, second = value["expansions"]
    assert first == {"statement": 0, "heredoc": 0, "expansion": {"complete": "print($x)\n"}}
    assert (second["statement"], second["heredoc"]) == (1, 0)
    blocked = second["expansion"]["blocked"]
    assert [h["source"] for h in blocked["holes"]] == ["$(date +%s)"]
    assert blocked["unbound"] == []  # holes are checked first: $HOME is not reported yet


def test_plan_reports_a_heredoc_that_needs_session_state_as_an_error_entry() -> None:
    value = output(run("plan", "cat <<EOF\nexit code $?\nEOF"))
    (entry,) = value["expansions"]
    assert entry["error"]["kind"] == "needs_session_state"
    assert "expansion" not in entry


def test_unmeasured_source_exits_2_with_errors_and_no_statements() -> None:
    result = run("plan", "echo 'unterminated")
    assert result.returncode == 2
    value = output(result)
    assert (value["status"], value["statements"]) == ("unmeasured", [])
    (error,) = value["errors"]
    assert error["message"] == value["reason"]
    assert 0 <= error["start"] <= error["end"]
    assert value["sequence"]["steps"] == []


def test_invalid_utf8_on_stdin_exits_2_with_one_sentence() -> None:
    result = run("plan", "-", stdin=b"ls \xff\xfe")
    assert result.returncode == 2
    assert result.stdout == b""
    message = result.stderr.decode()
    assert message.count("\n") == 1
    assert message.startswith("gateway plan: ")
    assert message.rstrip().endswith(".")
    assert "UTF-8" in message
    assert "byte offset 3" in message


JSONL_INPUT = b"\n".join(
    [
        b'{"cmd": "ls -la", "src": "agent", "ref": "x#1"}',
        b"",
        b"not json at all",
        b'{"other": "field"}',
        b'{"cmd": 42}',
        b'["cmd", "ls"]',
        b'{"cmd": "echo \'unterminated"}',
        b"\xff\xfe",
        b'{"cmd": "cat <<EOF\\nhi $USER\\nEOF", "extra": {"nested": [1, 2]}}',
        b'{"cmd": "pwd"}',
    ]
)


def test_jsonl_prints_one_record_per_line_in_order_and_never_crashes() -> None:
    result = run("plan", "--jsonl", stdin=JSONL_INPUT + b"\n")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    # Blank lines are skipped; every other line gets exactly one record, keyed by its number.
    assert [r["line"] for r in records] == [1, 3, 4, 5, 6, 7, 8, 9, 10]
    by_line = {r["line"]: r for r in records}
    assert by_line[1]["status"] == "measured"
    assert by_line[1]["source"] == "ls -la"
    assert "src" not in by_line[1]
    assert "ref" not in by_line[1]
    for line in (3, 4, 5, 6, 8):
        assert set(by_line[line]) == {"line", "error"}
        assert by_line[line]["error"].startswith(f"Line {line} ")
    assert "not valid UTF-8" in by_line[8]["error"]
    assert by_line[7]["status"] == "unmeasured"
    assert by_line[7]["errors"]
    assert by_line[9]["expansions"][0]["expansion"] == {
        "blocked": {"holes": [], "unbound": ["USER"]}
    }
    assert by_line[10]["statements"][0]["plan"]["rendered"] == "pwd"


def test_jsonl_results_equal_single_call_results() -> None:
    commands = ["ls", "sudo -u root rm -rf /tmp/x", "cat <<'E'\nbody\nE"]
    lines = b"\n".join(json.dumps({"cmd": c}).encode() for c in commands)
    records = [json.loads(r) for r in run("plan", "--jsonl", stdin=lines).stdout.splitlines()]
    for record, command in zip(records, commands, strict=True):
        single = output(run("plan", command))
        assert record == {"line": record["line"], **single}


def test_plan_output_never_prints_the_plans_secrets() -> None:
    value = output(run("plan", "curl -u admin:s3cr3tP4ssw0rd https://x.example"))
    assert "s3cr3tP4ssw0rd" not in json.dumps(value["statements"])
    assert "s3cr3tP4ssw0rd" not in value["source"]


def test_plan_output_never_prints_a_secret_anywhere() -> None:
    source = "mysql -pSuperSecret99 db && cat > .env <<EOF\nDB_PASSWORD=p4ssw0rd-env1\nEOF"
    text = run("plan", source).stdout.decode()
    assert "SuperSecret99" not in text
    assert "p4ssw0rd-env1" not in text


# ───────────────────────── gateway parse ─────────────────────────


def test_parse_prints_the_neutral_tree_of_a_measured_source() -> None:
    result = run("parse", "ls | wc -l")
    assert result.returncode == 0
    value = output(result)
    assert (value["status"], value["reason"]) == ("measured", None)
    (statement,) = value["program"]["statements"]
    (pipeline,) = statement["body"]["pipelines"]
    assert len(pipeline["commands"]) == 2


def test_parse_exits_2_with_the_reason_when_unmeasured() -> None:
    result = run("parse", "-", stdin=b"echo 'unterminated")
    assert result.returncode == 2
    value = output(result)
    assert value["status"] == "unmeasured"
    assert value["program"] is None
    assert value["reason"].endswith(".")
    assert isinstance(value["offset"], int)


def test_an_unknown_subcommand_is_a_usage_error() -> None:
    result = run("plan-all", "ls")
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"invalid choice" in result.stderr


def test_plan_prints_every_effect_with_paths_resolved_where_the_call_runs() -> None:
    result = run("plan", "--cwd", "/work/app", "cd /tmp; echo x > notes && cat ~/.ssh/id_rsa")
    assert result.returncode == 0, result.stderr
    value = output(result)
    writes = [e for e in value["effects"] if e["effect"] == "write"]
    assert [w["path"]["value"] for w in writes] == ["/tmp/notes", "/work/app/notes"]  # noqa: S108
    reads = [e["path"]["classes"] for e in value["effects"] if e["effect"] == "read"]
    assert ["home", "secret"] in reads
    assert output(run("plan", "echo x > notes"))["effects"][0]["path"]["value"] == "./notes"
