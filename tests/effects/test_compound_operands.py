"""
A declaration operand bash reads again as a compound array assignment, and the command it then runs.

``declare -a 'a=($(id))'``: the quotes keep ``$(id)`` from running when the
command is parsed, but bash 5.2 reads the value ``($(id))`` again as a
compound array assignment and expands its words, so ``id`` runs. Each text is
run with bash, confined, with the loggers recording whether ``id`` ran; where
it runs the plan plans the assignment in turn (and names ``id``) or, when the
value is only known at run time, says code it cannot see runs. Where bash
runs nothing, nothing is added: a compound assignment the parser read
(``declare -a a=(1 2)``) and a plain value are planned as before.
"""

from __future__ import annotations

import pytest

from effects.support import effects_of, in_bash, only
from gateway._calls._effects import Execute
from gateway.plans import plan_program

RUNS = [
    ("declare-a-single-quoted", "declare -a 'a=($(id))'"),
    ("declare-a-quoted-value", "declare -a a='($(id))'"),
    ("declare-a-escaped-parentheses", "declare -a a=\\(\\$\\(id\\)\\)"),
    ("declare-a-append", "declare -a 'a+=($(id))'"),
    ("declare-associative", "declare -A 'a=([k]=$(id))'"),
    ("typeset-a", "typeset -a 'a=($(id))'"),
    ("readonly-a", "readonly -a 'a=($(id))'"),
    ("local-a", "f() { local -a 'a=($(id))'; }; f"),
    ("builtin-declare", "builtin declare -a 'a=($(id))'"),
    ("command-declare", "command declare -a 'a=($(id))'"),
    ("already-an-array", "a=(1); declare 'a=($(id))'"),
]
"""Operands bash reads again: ``id`` runs."""

DYNAMIC = [
    ("a-value-from-a-variable", 'y="\\$(id)"; declare -a a="($y)"'),
    ("a-value-from-a-substitution", 'declare -a a="$(echo "(\\$(id))")"'),
]
"""The value is only known when it runs: the plan cannot name the command, and says so."""

HARMLESS = [
    ("compound-assignment-the-parser-read", "declare -a a=(1 '$(id)')"),
    ("plain-value", "declare a='$(id)'"),
    ("export-does-not-read-it-again", "export 'a=($(id))'"),
    ("a-function-local", 'f() { local x="$(echo 1)"; }; f'),
]
"""Look-alikes: bash runs no ``id``."""


def _nested_programs(source: str) -> list[str]:
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    return [
        command.name
        for statement in plan.statements
        for top in statement.plan.commands
        for shell in top.nested
        for nested in shell.plans
        for command in nested.commands
    ]


@pytest.mark.parametrize(("name", "source"), RUNS, ids=[r[0] for r in RUNS])
def test_an_operand_bash_reads_again_is_planned_with_what_it_runs(name: str, source: str) -> None:
    assert ("id",) in in_bash(source).logged
    assert "id" in _nested_programs(source)


@pytest.mark.parametrize(("name", "source"), DYNAMIC, ids=[r[0] for r in DYNAMIC])
def test_an_operand_known_only_when_it_runs_is_code_the_plan_cannot_see(
    name: str, source: str
) -> None:
    assert ("id",) in in_bash(source).logged
    unseen = [e for e in only(effects_of(source), Execute) if e.origin == "unknown"]
    assert unseen, effects_of(source)


@pytest.mark.parametrize(("name", "source"), HARMLESS, ids=[r[0] for r in HARMLESS])
def test_an_operand_bash_does_not_read_again_adds_nothing(name: str, source: str) -> None:
    assert ("id",) not in in_bash(source).logged
    assert "id" not in _nested_programs(source)
    assert not [e for e in only(effects_of(source), Execute) if e.kind == "shell_text"]
