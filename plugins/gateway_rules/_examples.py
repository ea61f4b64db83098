"""
A rule's ``match`` / ``not-match`` examples, judged with the whole policy, as a review would.

An example passes only when the policy really behaves as the rule says, not
when the rule's own conditions happen to hold: an allow rule's ``match``
example must be *allowed* (a rule about ``make`` that never permits the code
``make`` runs does not pass), unless only rules of a source loaded after the
rule's own (a rule file, the config, a team's tier) decide it more strictly,
on purpose; a decline or ask rule's ``match`` example must be decided at least
that strictly with the rule applying to it. A ``not-match`` example of an allow rule must not be allowed
on it; of a decline or ask rule, the rule must not apply.

Examples are judged under every profile the rule counts in, with no working
directory (paths are relative to the workspace), and a git command as if in
a clean repository inside the workspace. A tool rule's example is a tool
name, optionally followed by its input as JSON (``Write {"file_path":
"notes.md"}``); so is an example of any rule that starts with the name of a
tool the gateway knows (``[[tool-effects]]``) followed by JSON.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Final, Literal

import msgspec

from gateway import Abstain, Allow, Answer, Decision, ReviewRequest, ToolCall, strictness
from gateway.effects import (
    DEFAULT_TOOL_EFFECTS,
    AnalysisContext,
    PathContext,
    RowExample,
    UserTable,
    analyse_call,
    tool_effects,
)
from gateway.plans import iter_commands, plan_program
from gateway_rules._context import outside_home, repository_check, unreadable_reads
from gateway_rules._engine import JudgeContext, Judgement, RuleSet
from gateway_rules._schema import PROFILES, Rule

__all__ = [
    "ExampleResult",
    "TableExampleResult",
    "check_examples",
    "check_table_examples",
    "example_profiles",
]

_TOOLS = frozenset(row.tool for row in DEFAULT_TOOL_EFFECTS)


class ExampleResult(msgspec.Struct, frozen=True, kw_only=True):
    """
    One ``match`` / ``not-match`` example of one rule, under one profile, and whether it held.

    Attributes:
        source: Where the rule came from.
        rule: The rule's id.
        example: The example.
        expect: ``match`` or ``not-match``.
        passed: Whether the policy behaved as the rule says.
        profile: The profile it was judged under.
        detail: When it failed: what the policy decided instead, or why it could not judge.
    """

    source: str
    rule: str
    example: str
    expect: Literal["match", "not-match"]
    passed: bool
    profile: str = ""
    detail: str | None = None


def example_profiles(rules: Iterable[Rule]) -> tuple[str, ...]:
    """Every profile the rules know: the default ones, then any a rule names."""
    named = [p for rule in rules for p in rule.profiles]
    return tuple(dict.fromkeys((*PROFILES, *named)))


def _is_tool_example(rule: Rule, example: str) -> bool:
    """A tool rule's example, or ``TOOL {json}`` for a tool the gateway knows."""
    if rule.tools:
        return True
    tool, _, rest = example.partition(" ")
    return rest.startswith("{") and tool in _TOOLS


def _request(rule: Rule, example: str, programs: Mapping[str, UserTable]) -> ReviewRequest | str:
    """The review request of an example (planned with the configured tables), or why there is none."""
    if _is_tool_example(rule, example):
        tool, _, raw = example.partition(" ")
        try:
            data = json.loads(raw) if raw.strip() else {}
        except ValueError as error:
            return f"the example's input is not JSON ({error})"
        if not isinstance(data, dict):
            return "the example's input is not a JSON object"
        effects = tool_effects(tool, data, (), PathContext())
        return ReviewRequest(
            kind="call", call=ToolCall(tool, data), digest="", plan=None, effects=effects
        )
    return _shell_request(example, programs)


def _shell_request(example: str, programs: Mapping[str, UserTable]) -> ReviewRequest | str:
    """The review request of a shell example (planned with the configured tables), or why there is none."""
    plan = (
        analyse_call(example, AnalysisContext(programs=dict(programs))).plan
        if programs
        else plan_program(example)
    )
    if plan.status != "measured":
        return f"the example is not measured ({plan.reason})"
    return ReviewRequest(
        kind="call", call=ToolCall("Bash", {"command": example}), digest=plan.digest, plan=plan
    )


def _decision(answer: Answer) -> Decision:
    """What the policy decides with an answer: abstaining leaves the call to a person."""
    return "ask" if isinstance(answer, Abstain) else answer.decision


def _rests_on(rule: Rule, answer: Answer, judgements: Sequence[Judgement]) -> bool:
    """Whether an allow answer rests on the rule."""
    return isinstance(answer, Allow) and any(rule.id in j.rules for j in judgements)


def _overridden(answer: Answer, judgements: Sequence[Judgement], later: frozenset[str]) -> bool:
    """Whether a stricter answer comes only from rules of sources loaded after the rule's own."""
    stricter = [j for j in judgements if j.decision != "allow"]
    return (
        not isinstance(answer, Allow)
        and bool(stricter)
        and all(j.rule is not None and j.rule in later for j in stricter)
    )


_EXAMPLE_HOME: Final = "/home/example"
"""Where ``~`` of an example lies: judged as a call with no working directory is (`outside_home`)."""


def _judge(
    rule_set: RuleSet,
    rule: Rule,
    example: str,
    expect: str,
    later: frozenset[str],
    programs: Mapping[str, UserTable],
) -> tuple[bool, str | None]:
    request = _request(rule, example, programs)
    if isinstance(request, str):
        return False, request
    plans = [s.plan for s in request.plan.statements] if request.plan is not None else []
    links = unreadable_reads(
        plans,
        request.effects,
        readable=outside_home(_EXAMPLE_HOME),
        home=_EXAMPLE_HOME,
        cwd=None,
    )
    context = JudgeContext(
        cwd=None,
        roots=(".",),
        repository=repository_check(None),
        profile=rule_set.profile,
        links=links,
    )
    answer, judgements = rule_set.evaluate(request, context)
    shown = f"the policy decides {_decision(answer)}: {answer.reason}"
    if rule.decision == "allow":
        held = _rests_on(rule, answer, judgements)
        if expect == "match":
            # A later source (a team's or platform's tier, the user's file)
            # may decide the example more strictly on purpose: the rule
            # still says what it allows, it is only outranked.
            held = held or _overridden(answer, judgements, later)
            # Allowed on another rule as well (a profile's broader rule): the
            # example is allowed, as the rule says.
            held = held or isinstance(answer, Allow)
            return held, None if held else shown
        return not held, None if not held else shown
    applies = rule.id in rule_set.applying(request, context)
    if expect == "match":
        strict = strictness(_decision(answer)) >= strictness(rule.decision)
        if not applies:
            return False, "the rule does not apply to it"
        return strict, None if strict else shown
    return not applies, None if not applies else "the rule applies to it"


def check_examples(
    rules: Iterable[tuple[str, Rule]],
    *,
    profiles: Sequence[str] | None = None,
    programs: Mapping[str, UserTable] | None = None,
) -> list[ExampleResult]:
    """
    Judge every rule's ``match`` and ``not-match`` examples with the whole rule set.

    Args:
        rules: The rules with the source each came from, in load order.
        profiles: The profiles to judge under (default: every profile the
            rules know); each rule's examples are judged under those of them
            it counts in.
        programs: The option tables the configuration declares
            (``[programs.NAME]``), which the examples are planned with.
    """
    sources = list(rules)
    every = [rule for _, rule in sources]
    known = tuple(profiles) if profiles is not None else example_profiles(every)
    sets = {profile: RuleSet(every, profile) for profile in known}
    results: list[ExampleResult] = []
    # Sources in the order they were loaded (the default policy, rule files,
    # the config): a later one may outrank an earlier one's allow.
    rank: dict[str, int] = {}
    for source, _ in sources:
        rank.setdefault(source, len(rank))
    for source, rule in sources:
        later = frozenset(r.id for s, r in sources if rank[s] > rank[source])
        for profile in known:
            if rule.profiles and profile not in rule.profiles:
                continue
            expectations: tuple[tuple[Literal["match", "not-match"], tuple[str, ...]], ...] = (
                ("match", rule.match),
                ("not-match", rule.not_match),
            )
            for expect, examples in expectations:
                for example in examples:
                    passed, detail = _judge(
                        sets[profile], rule, example, expect, later, dict(programs or {})
                    )
                    results.append(
                        ExampleResult(
                            source=source,
                            rule=rule.id,
                            example=example,
                            expect=expect,
                            passed=passed,
                            profile=profile,
                            detail=detail,
                        )
                    )
    return results


# ───────────────────────── option tables' examples ─────────────────────────


class TableExampleResult(msgspec.Struct, frozen=True, kw_only=True):
    """
    One example of one option table (`gateway.effects.RowExample`), and whether the policy held it.

    Attributes:
        program: The program the table is for (its first name).
        example: The example.
        passed: Whether the policy decided what the example says.
        detail: When it failed: what the policy decided instead, or why it could not judge.
    """

    program: str
    example: RowExample
    passed: bool
    detail: str | None = None


def _runs(request: ReviewRequest, names: Collection[str]) -> bool:
    """Whether one of the plan's commands (nested ones included) runs one of ``names``."""
    plan = request.plan
    if plan is None:
        return False
    return any(
        PurePosixPath(command.name).name in names
        for statement in plan.statements
        for command in iter_commands(statement.plan)
    )


def check_table_examples(
    tables: Iterable[tuple[Collection[str], Sequence[RowExample]]],
    rules: Sequence[Rule],
    *,
    profiles: Collection[str],
    programs: Mapping[str, UserTable] | None = None,
) -> list[TableExampleResult]:
    """
    Judge option tables' examples with the whole rule set, as a review would.

    Each example must run the table's program, be measured, and be decided
    as it says under its profile. Judged like rules' examples: with no working
    directory (paths are relative to the workspace), and a git command as if in
    a clean repository inside the workspace.

    Args:
        tables: For each table, the names its program is known by (the first
            is shown), and its examples.
        rules: Every rule of the policy, in load order.
        profiles: The profiles defined; an example naming another fails.
        programs: The option tables the configuration declares, which the
            examples are planned with.
    """
    sets: dict[str, RuleSet] = {}
    tables_given = dict(programs or {})
    results: list[TableExampleResult] = []
    for names, examples in tables:
        program = next(iter(names))
        for example in examples:
            request = _shell_request(example.command, tables_given)
            detail: str | None = None
            if example.profile not in profiles:
                detail = f"the profile {example.profile!r} is not defined"
            elif isinstance(request, str):
                detail = request
            elif not _runs(request, names):
                detail = f"it does not run `{program}`"
            else:
                rule_set = sets.get(example.profile)
                if rule_set is None:
                    rule_set = sets[example.profile] = RuleSet(list(rules), example.profile)
                context = JudgeContext(
                    cwd=None,
                    roots=(".",),
                    repository=repository_check(None),
                    profile=example.profile,
                )
                answer, _ = rule_set.evaluate(request, context)
                decided = _decision(answer)
                if not example.holds(decided):
                    detail = f"the policy decides {decided}: {answer.reason}"
            results.append(
                TableExampleResult(
                    program=program, example=example, passed=detail is None, detail=detail
                )
            )
    return results
