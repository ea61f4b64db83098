"""
The seed systems' own cases (``tests/data/conformance/seed_cases.jsonl``), run against the gateway.

Expectations are partial: only the keys a case states are checked. Where bash
and the seed system differ, SEMANTICS.md decides; each such case is listed in
`DEVIATIONS` with the reason, and the test checks the *bash* behaviour instead
so that a deviation is still a pinned behaviour, never a skip.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gateway.plans import (
    FragmentAddr,
    FragmentError,
    ProgramPlan,
    command_sequence_plan,
    expand_fragment,
    plan_program,
)
from gateway.shell import read_program_position

CASES_FILE = Path(__file__).parent / "data" / "conformance" / "seed_cases.jsonl"
CASES: list[dict[str, Any]] = [
    json.loads(line) for line in CASES_FILE.read_text().splitlines() if line.strip()
]


def _source(case_input: dict[str, Any]) -> str:
    if "source_build" in case_input:
        build = case_input["source_build"]
        return str(
            build.get("prefix", "") + build["fill"] * build["fill_count"] + build.get("suffix", "")
        )
    return str(case_input.get("source", case_input.get("command", "")))


def _check_unmeasured_source(case: dict[str, Any]) -> None:
    plan = plan_program(_source(case["input"]))
    assert plan.status == "unmeasured"
    assert plan.statements == ()


# Where the seed system (kaish, its own shell language; Harn's parser) and bash
# differ, the bash reading wins (SEMANTICS.md). Each entry checks what bash does.
DEVIATIONS: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {}


def deviation(
    case_id: str, why: str
) -> Callable[[Callable[[dict[str, Any]], None]], Callable[[dict[str, Any]], None]]:
    def register(check: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        DEVIATIONS[case_id] = (why, check)
        return check

    return register


@deviation(
    "kaish-003",
    "bash rendering slices the source, so `$f` stays `$f` (kaish normalises it to `${f}`)",
)
def _kaish_003(case: dict[str, Any]) -> None:
    plan = plan_program(case["input"]["source"]).statements[0].plan
    assert plan.rendered == "for f in $(ls ${DIR}); do rm $f; done"
    assert [c.name for c in plan.commands] == ["ls", "rm"]
    assert plan.free_variables == ("DIR",)
    assert plan.bound_variables == ("f",)
    assert plan.statement_kind == "for"


@deviation("kaish-010", 'bash rendering slices the source: `echo "$d"` stays as written')
def _kaish_010(case: dict[str, Any]) -> None:
    statements = plan_program(case["input"]["source"]).statements
    assert statements[0].plan.rendered == "d=/tmp"
    assert statements[0].plan.statement_kind == "assignment"
    assert statements[0].plan.bound_variables == ("d",)
    assert statements[1].plan.rendered == 'echo "$d"'
    assert statements[1].plan.free_variables == ("d",)


@deviation("kaish-029", "kaish-only bracket paths: in bash `${servers[web]}` is an array read")
def _kaish_029(case: dict[str, Any]) -> None:
    plan = plan_program(case["input"]["source"]).statements[0].plan
    assert plan.rendered == "echo ${servers[web]}"
    assert "servers" in plan.free_variables


@deviation(
    "kaish-049",
    "`--confirm=` is kaish's own credential spelling; bash has none, so the argument stays plain",
)
def _kaish_049(case: dict[str, Any]) -> None:
    command = plan_program(case["input"]["source"]).statements[0].plan.commands[0]
    assert command.args[0].plain == "--confirm=deadbeef"


@deviation("kaish-050", "`confirm=` is kaish's own credential spelling")
def _kaish_050(case: dict[str, Any]) -> None:
    assert (
        plan_program(case["input"]["source"])
        .statements[0]
        .plan.rendered.endswith("confirm=deadbeef")
    )


@deviation(
    "kaish-064",
    "in bash two heredocs on one command are valid (the last is its stdin): measured, both bodies planned",
)
def _kaish_064(case: dict[str, Any]) -> None:
    source = case["input"]["source"]
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    (command,) = plan.statements[0].plan.commands
    assert command.name == "diff"
    assert [r.kind for r in command.redirects] == ["<<", "<<"]
    assert [(h.index, h.literal, h.body.display) for h in command.heredocs] == [
        (0, True, "left\n"),
        (1, True, "right\n"),
    ]
    for heredoc in command.heredocs:
        addr = FragmentAddr(statement=0, heredoc=heredoc.index)
        assert expand_fragment(source, addr).complete == heredoc.body.display


@deviation(
    "kaish-079",
    "in bash `\\r` is part of the delimiter word, so `PY` never ends the body: unmeasured",
)
def _kaish_079(case: dict[str, Any]) -> None:
    _check_unmeasured_source(case)


@deviation(
    "kaish-086",
    "bash rendering slices the source (`cat <<'EOF' && echo done` then the body), kaish re-prints it",
)
def _kaish_086(case: dict[str, Any]) -> None:
    plan = plan_program(case["input"]["source"]).statements[0].plan
    assert plan.rendered == case["input"]["source"]
    assert plan.statement_kind == "and_chain"
    assert [c.name for c in plan.commands] == ["cat", "echo"]


@deviation(
    "kaish-103",
    "bash runs it, taking the rest of the text as the body (with a warning); the gateway fails closed: unmeasured",
)
def _kaish_103(case: dict[str, Any]) -> None:
    _check_plan_program(case)
    plan = plan_program(case["input"]["source"])
    assert plan.reason is not None
    assert "bash would take the rest of the text as its body" in plan.reason


@deviation("kaish-106", "in bash `echo $GREET/world.txt` is valid: it is measured and reads GREET")
def _kaish_106(case: dict[str, Any]) -> None:
    plan = plan_program(case["input"]["source"])
    assert plan.status == "measured"
    assert plan.statements[0].plan.free_variables == ("GREET",)


@deviation("kaish-107", "bash reports the unclosed double quote that the `$(` swallowed")
def _kaish_107(case: dict[str, Any]) -> None:
    plan = plan_program(case["input"]["source"])
    assert plan.status == "unmeasured"
    assert plan.reason is not None
    assert "unterminated" in plan.reason


@deviation(
    "kaish-109",
    "the plan always has `statements` (empty when unmeasured, never partial); errors are added",
)
def _kaish_109(case: dict[str, Any]) -> None:
    result = _run_cli(case["input"]["argv"])
    assert result.returncode == 2
    output = json.loads(result.stdout)
    assert output["statements"] == []
    assert output["errors"][0]["start"] >= 0
    assert "unterminated heredoc" in output["errors"][0]["message"]


@deviation(
    "kaish-182",
    "kaish-only: bash does not end lines at a lone `\\r`, so the heredoc never terminates",
)
def _kaish_182(case: dict[str, Any]) -> None:
    with pytest.raises(FragmentError) as caught:
        _expand(case)
    assert caught.value.kind == "parse"


@deviation(
    "harn-075",
    "in bash `((…))` is an arithmetic command, so 64 nested subshells must be spelled with blanks: `( ( … ) )`",
)
def _harn_075(case: dict[str, Any]) -> None:
    plan = command_sequence_plan("( " * 64 + "make" + " )" * 64)
    assert plan.status == "measured"
    assert [(s.argv, s.cwd) for s in plan.steps] == [(("make",), "")]


@deviation(
    "harn-076", "as harn-075: 65 nested subshells, spelled with blanks, are past the nesting limit"
)
def _harn_076(case: dict[str, Any]) -> None:
    assert command_sequence_plan("( " * 65 + "make" + " )" * 65).status == "unmeasured"


@deviation(
    "sema-024", "with no program `sudo -s` runs a shell: program is null and runs_shell is true"
)
def _sema_024(case: dict[str, Any]) -> None:
    position = read_program_position(case["input"]["command"])
    assert position.program is None
    assert position.runs_shell
    assert [step.basename for step in position.launchers] == ["sudo"]


@deviation(
    "sema-025",
    "with no program `sudo -i` runs a login shell: program is null and runs_shell is true",
)
def _sema_025(case: dict[str, Any]) -> None:
    _sema_024(case)


# ───────────────────────── the generic checks ─────────────────────────


def _statement_view(plan: ProgramPlan, index: int) -> dict[str, Any]:
    statement = plan.statements[index]
    commands = statement.plan.commands
    heredocs = [h for c in commands for h in c.heredocs]
    return {
        "index": statement.index,
        "statement": statement,
        "commands": commands,
        "heredocs": heredocs,
    }


def _check_heredoc(expected: dict[str, Any], actual: Any) -> None:
    for key, value in expected.items():
        if key == "body":
            assert actual.body.display == value
        elif key == "body_contains":
            assert value in actual.body.display
        elif key == "free_variables":
            assert list(actual.free_variables) == value
        else:
            assert getattr(actual, key) == value, key


def _check_statement(expected: dict[str, Any], view: dict[str, Any], source: str) -> None:
    plan = view["statement"].plan
    commands = view["commands"]
    for key, value in expected.items():
        if key == "index":
            assert view["index"] == value
        elif key == "statement_kind":
            assert plan.statement_kind == value
        elif key == "command_names":
            assert [c.name for c in commands] == value
        elif key == "command_count":
            assert len(commands) == value
        elif key in ("free_variables", "bound_variables"):
            assert list(getattr(plan, key)) == value, key
        elif key == "rendered":
            assert plan.rendered == value
        elif key == "rendered_contains":
            assert value in plan.rendered
        elif key == "rendered_not_contains":
            assert value not in plan.rendered
        elif key == "rendered_suffix":
            assert plan.rendered.endswith(value)
        elif key == "rendered_prefix_bytes":
            assert plan.rendered.encode()[:value] == source.encode()[:value]
        elif key == "rendered_length_bytes":
            assert len(plan.rendered.encode()) == value
        elif key == "all_background":
            assert all(c.background for c in commands) == value
        elif key == "heredoc_count":
            assert len(view["heredocs"]) == value
        elif key == "heredocs":
            assert len(view["heredocs"]) >= len(value)
            for want, have in zip(value, view["heredocs"], strict=False):
                _check_heredoc(want, have)
        elif key == "commands":
            for want, have in zip(value, commands, strict=True):
                for field, expected_value in want.items():
                    if field == "name":
                        assert have.name == expected_value
                    elif field == "args":
                        assert [a.display for a in have.args] == expected_value
                    elif field == "background":
                        assert have.background == expected_value
                    elif field == "redirects":
                        for r_want, r_have in zip(expected_value, have.redirects, strict=True):
                            assert r_have.kind == r_want["kind"]
                            if "target" in r_want:
                                assert r_have.target is not None
                                assert r_have.target.display == r_want["target"]
                    else:
                        pytest.fail(f"unhandled command key {field}")
        else:
            pytest.fail(f"unhandled statement key {key}")


def _check_plan_program(case: dict[str, Any]) -> None:
    source = _source(case["input"])
    expect = case["expect"]
    plan = plan_program(source)
    if expect.get("ok") is False:
        assert plan.status == "unmeasured"
        assert plan.statements == ()
        if "error_contains" in expect:
            assert plan.reason is not None
            assert expect["error_contains"] in plan.reason
        return
    assert plan.status == "measured", plan.reason
    for index, expected in enumerate(expect.get("statements", [])):
        _check_statement(expected, _statement_view(plan, expected.get("index", index)), source)
    for index, expected in expect.get("statements_by_index", {}).items():
        _check_statement(expected, _statement_view(plan, int(index)), source)
    if expect.get("body_slices_source"):
        data = source.encode()
        for statement in plan.statements:
            for command in statement.plan.commands:
                for heredoc in command.heredocs:
                    body = heredoc.body.display.encode()
                    assert data[heredoc.body_offset : heredoc.body_offset + len(body)] == body
    if expect.get("every_address_expands_to_published_body"):
        for statement in plan.statements:
            for command in statement.plan.commands:
                for heredoc in command.heredocs:
                    addr = FragmentAddr(statement=statement.index, heredoc=heredoc.index)
                    assert expand_fragment(source, addr).complete == heredoc.body.display


def _expand(case: dict[str, Any]) -> Any:
    given = case["input"]
    addr = FragmentAddr(statement=given["addr"]["statement"], heredoc=given["addr"]["heredoc"])
    return expand_fragment(given["source"], addr, given.get("scope") or {})


_ERROR_KINDS = {
    "NoSuchHeredoc": "no_such_heredoc",
    "NoSuchStatement": "no_such_statement",
    "Parse": "parse",
    "NeedsSessionState": "needs_session_state",
}


def _check_expand_fragment(case: dict[str, Any]) -> None:
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(FragmentError) as caught:
            _expand(case)
        assert caught.value.kind == _ERROR_KINDS[expect["error"]]
        return
    result = _expand(case)
    if "complete" in expect:
        assert result.complete == expect["complete"], result
        return
    blocked = expect["blocked"]
    assert result.blocked is not None, result
    holes = result.blocked.holes
    if "hole_sources" in blocked:
        assert [h.source for h in holes] == blocked["hole_sources"]
    if "hole_count" in blocked:
        assert len(holes) == blocked["hole_count"]
    if "hole_first_command_names" in blocked:
        assert [h.plans[0].commands[0].name for h in holes] == blocked["hole_first_command_names"]
    if "hole_first_plan_rendered" in blocked:
        assert [h.plans[0].rendered for h in holes] == blocked["hole_first_plan_rendered"]


def _check_sequence(case: dict[str, Any]) -> None:
    plan = command_sequence_plan(_source(case["input"]), case["input"].get("cwd", ""))
    expect = case["expect"]
    assert plan.status == expect["status"], plan.reason
    if plan.status == "unmeasured":
        assert plan.steps == ()
        assert plan.reason
    if "steps" in expect:
        assert [{"argv": list(s.argv), "cwd": s.cwd} for s in plan.steps] == expect["steps"]


def _check_position(case: dict[str, Any]) -> None:
    position = read_program_position(case["input"]["command"])
    expect = case["expect"]
    if "program" in expect:
        if expect["program"] is None:
            assert position.program is None
        else:
            assert position.program is not None, position
            assert position.program.basename == expect["program"]
    if "launchers" in expect:
        assert [step.basename for step in position.launchers] == expect["launchers"]
    if "assignments" in expect:
        assert list(position.assignments) == expect["assignments"]
    if "control_words" in expect:
        assert list(position.control_words) == expect["control_words"]
    if "decline" in expect:
        assert position.decline == expect["decline"]
        assert position.reason is not None
        assert position.reason.endswith("— not auto-allowed.")


def _run_cli(argv: list[str]) -> subprocess.CompletedProcess[str]:
    command = argv[1] if argv[0] == "--plan" else argv[0]
    return subprocess.run(
        [sys.executable, "-m", "gateway._cli", "plan", command],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def _check_cli(case: dict[str, Any]) -> None:
    result = _run_cli(case["input"]["argv"])
    expect = case["expect"]
    assert result.returncode == expect["exit"]
    output = json.loads(result.stdout)
    for key, value in expect.get("json", {}).items():
        assert output[key] == value


def _check_digest(case: dict[str, Any]) -> None:
    pytest.fail(
        "kaish digest-text cases are kaish-only and listed as deviations"
    )  # pragma: no cover


CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "plan_program": _check_plan_program,
    "expand_fragment": _check_expand_fragment,
    "command_sequence_plan": _check_sequence,
    "program_position": _check_position,
    "plan_cli": _check_cli,
}

# kaish's digest is over its own normalised rendering (a kaish-only design:
# `portable: false`); the gateway digests the canonical plan encoding instead
# (tests/test_digest.py pins those bytes). The kaish `plan` builtin does not exist in bash.
NOT_APPLICABLE = {
    case["id"]: "a kaish-only surface"
    for case in CASES
    if case["surface"] in ("plan_digest", "plan_builtin")
}


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["id"] not in NOT_APPLICABLE], ids=lambda c: str(c["id"])
)
def test_seed_case(case: dict[str, Any]) -> None:
    """Each seed case holds, or its documented bash deviation holds."""
    if case["id"] in DEVIATIONS:
        _, check = DEVIATIONS[case["id"]]
        check(case)
        return
    CHECKS[case["surface"]](case)


def test_every_case_is_run_or_accounted_for() -> None:
    """No case is silently dropped: every one is checked, a documented deviation, or a kaish-only surface."""
    surfaces = {c["surface"] for c in CASES if c["id"] not in NOT_APPLICABLE}
    assert surfaces <= set(CHECKS)
    assert len(NOT_APPLICABLE) == 3
    assert set(DEVIATIONS) <= {c["id"] for c in CASES}


def test_kaish_only_digest_cases_differ_from_bash_digests() -> None:
    """The gateway's digest covers what runs: `rm x` and `rm --confirm=K x` are different calls."""
    assert plan_program("rm x").digest != plan_program("rm --confirm=K x").digest
    assert msgspec.json.decode(
        msgspec.json.encode(plan_program("rm x")), type=ProgramPlan
    ) == plan_program("rm x")
