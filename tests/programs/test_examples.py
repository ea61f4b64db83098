"""
Every example of every option table, judged with the default policy.

A row's examples (`RowExample`) say what the default policy decides on a
command that runs the row's program, under a named profile: an allowed
command and its refused twins, the same command with the option, redirect or
path that makes it write, run or read what the profile does not permit. The
rows of the programs agents run most carry them (measured on the agent
corpus: `MOST_RUN`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import msgspec
import pytest
from gateway_rules import PROFILES, RulesOptions, check_table_examples, load_rules

from gateway._programs._rows import ProgramRow, RowExample
from gateway._programs._tables import PROGRAM_TABLES

MOST_RUN = (
    # The programs with a table that the most agent-corpus commands run, most
    # run first (sed, find and git have readers of their own, not rows).
    # `export`, `bash`, `patch` and `apt-get` are among them but have no
    # spelling the default policy allows (only refusals to pin, in
    # tests/rules/ and tests/programs/test_bypasses.py).
    *("cat", "grep", "nl", "python3", "python", "rm", "ls", "head", "pytest", "cd"),
    *("mkdir", "test", "touch", "tail", "echo", "mv", "pip", "cp", "pwd", "chmod"),
    *("which", "make", "sort", "rmdir", "sleep", "ln", "cut", "uniq", "od", "whoami"),
    *("true", "wc", "printf", "unzip"),
)
"""Programs with a table, ordered by how many agent-corpus commands run them."""


def _walk(row: ProgramRow, seen: set[int] | None = None) -> Iterator[ProgramRow]:
    """The row and each of its subcommands' rows, each once."""
    seen = set() if seen is None else seen
    if id(row) in seen:
        return
    seen.add(id(row))
    yield row
    for sub in (row.subcommands or {}).values():
        yield from _walk(sub, seen)


def _tables() -> dict[int, tuple[tuple[str, ...], tuple[RowExample, ...]]]:
    """Each distinct top-level row: the names it is known by, and its examples (its subcommands' too)."""
    found: dict[int, tuple[tuple[str, ...], tuple[RowExample, ...]]] = {}
    for name, row in sorted(PROGRAM_TABLES.items()):
        names, examples = found.get(id(row), ((), ()))
        if not names:
            examples = tuple(e for each in _walk(row) for e in each.examples)
        found[id(row)] = ((*names, name), examples)
    return found


TABLES = _tables()
WITH_EXAMPLES = {names: examples for names, examples in TABLES.values() if examples}
_SOURCES, _ = load_rules(RulesOptions())
RULES = [rule for _, rule in _SOURCES]


def _program(name: str) -> tuple[str, ...]:
    return next(names for names in WITH_EXAMPLES if name in names)


@pytest.mark.parametrize("names", sorted(WITH_EXAMPLES), ids=lambda names: names[0])
def test_every_example_of_a_row_is_decided_as_it_says(names: tuple[str, ...]) -> None:
    results = check_table_examples([(names, WITH_EXAMPLES[names])], RULES, profiles=PROFILES)
    failed = [
        f"{r.example.command!r} ({r.example.decision}, {r.example.profile}): {r.detail}"
        for r in results
        if not r.passed
    ]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("names", sorted(WITH_EXAMPLES), ids=lambda names: names[0])
def test_every_row_with_examples_has_an_allowed_one_and_a_refused_twin(
    names: tuple[str, ...],
) -> None:
    decisions = {example.decision for example in WITH_EXAMPLES[names]}
    assert "allow" in decisions
    assert decisions & {"ask", "decline", "refuse"}


def test_the_programs_agents_run_most_carry_examples() -> None:
    missing = [name for name in MOST_RUN if not any(name in names for names in WITH_EXAMPLES)]
    assert not missing
    assert len(WITH_EXAMPLES) >= 40


def test_an_example_of_another_program_fails() -> None:
    wrong = RowExample(command="head setup.py", decision="allow")
    [result] = check_table_examples([(_program("cat"), (wrong,))], RULES, profiles=PROFILES)
    assert not result.passed
    assert result.detail == "it does not run `cat`"


def test_an_example_the_policy_decides_otherwise_fails_with_what_it_decided() -> None:
    wrong = RowExample(command="cat ~/.ssh/id_rsa", decision="allow")
    [result] = check_table_examples([(_program("cat"), (wrong,))], RULES, profiles=PROFILES)
    assert not result.passed
    assert result.detail is not None
    assert result.detail.startswith("the policy decides ask: Asked about `cat ~/.ssh/id_rsa`")


def test_an_example_under_an_undefined_profile_fails() -> None:
    wrong = RowExample(command="cat setup.py", decision="allow", profile="yolo")
    [result] = check_table_examples([(_program("cat"), (wrong,))], RULES, profiles=PROFILES)
    assert result.detail == "the profile 'yolo' is not defined"


def test_an_unmeasured_example_fails() -> None:
    wrong = RowExample(command="cat 'setup.py", decision="refuse")
    [result] = check_table_examples([(_program("cat"), (wrong,))], RULES, profiles=PROFILES)
    assert not result.passed
    assert result.detail is not None
    assert result.detail.startswith("the example is not measured")


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ({"command": " ", "decision": "allow"}, "an example's command is empty"),
        ({"command": "cat x", "decision": "maybe"}, "Invalid enum value 'maybe'"),
        ({"command": "cat x", "decision": "allow", "why": "x"}, "unknown field `why`"),
    ],
)
def test_a_malformed_example_is_refused_with_one_sentence(
    given: Mapping[str, str], problem: str
) -> None:
    with pytest.raises(msgspec.ValidationError, match=problem):
        msgspec.convert(given, RowExample)


def test_refuse_holds_for_ask_and_decline_only() -> None:
    example = RowExample(command="cat x", decision="refuse")
    assert [example.holds(d) for d in ("allow", "ask", "decline")] == [False, True, True]
