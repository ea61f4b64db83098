"""
The rule format and loading: what a rule may say, and how a bad rule file stops the start.

An invalid rule file stops the load with one sentence naming the file, the
rule and the problem; rules carry examples that are checked like unit tests
when they load; a rule in a later source replaces a rule with the same id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gateway_rules import RuleError, RulesApprover, RulesOptions, check_examples, load_rules

from rules.support import approver_with, default_approver


def rule(**fields: Any) -> dict[str, Any]:
    """A valid rule table (kebab-case keys), with some fields replaced."""
    table: dict[str, Any] = {
        "id": "test.rule",
        "decision": "ask",
        "programs": ["ls"],
        "reason": "is a test",
    }
    table.update({key.replace("_", "-"): value for key, value in fields.items()})
    return table


def load_error(*tables: dict[str, Any]) -> str:
    with pytest.raises(RuleError) as raised:
        approver_with(*tables)
    return str(raised.value)


def one_sentence(message: str) -> bool:
    """One sentence: it ends with a period and has no sentence break inside."""
    return message.endswith(".") and ". " not in message.rstrip(".")


# ───────────────────────── invalid rules stop the load ─────────────────────────


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"matches": ["ls"]}, "unknown field `matches`"),
        ({"id": "Bad Id"}, "is not lowercase letters"),
        ({"id": "-starts-with-dash"}, "is not lowercase letters"),
        ({"decision": "maybe"}, "invalid enum value 'maybe' (at `decision`)"),
        ({"programs": "ls"}, "expected `array`, got `str` (at `programs`)"),
        ({"reason": "  "}, "it has no reason"),
        ({"programs": []}, "it selects nothing"),
        ({"reads": ["bogus"]}, "is neither a path class"),
        ({"options": ["x"]}, "does not start with a dash"),
        ({"without_options": ["--"]}, "does not start with a dash"),
        ({"executes": ["nonsense"]}, "is neither a kind"),
        ({"tools": ["Read"]}, "mixes tools (not shells) with programs"),
        ({"programs": [], "launchers": ["sudo"], "subcommands": ["x"]}, "args without programs"),
        ({"writes": ["workspace"], "write_actions": ["frob"]}, "invalid enum value 'frob'"),
    ],
    ids=[
        "unknown-key",
        "bad-id",
        "id-dash",
        "bad-decision",
        "wrong-type",
        "no-reason",
        "no-selector",
        "bad-path-class",
        "option-without-dash",
        "double-dash-option",
        "bad-execute-kind",
        "tools-and-programs",
        "subcommands-without-programs",
        "bad-write-action",
    ],
)
def test_an_invalid_rule_stops_the_load_naming_the_source_the_rule_and_the_problem(
    fields: dict[str, Any], problem: str
) -> None:
    message = load_error(rule(**fields))
    assert problem in message
    assert "in the gateway config" in message
    assert repr(fields.get("id", "test.rule")) in message
    assert one_sentence(message), message


def test_a_rule_without_an_id_is_named_by_its_number() -> None:
    table = rule()
    del table["id"]
    message = load_error(rule(id="first"), table)
    assert message.startswith("Invalid rule number 2 in the gateway config:")
    assert "missing required field `id`" in message


def test_a_duplicate_id_in_one_source_stops_the_load() -> None:
    message = load_error(rule(), rule(programs=["cat"]))
    assert message == "Rule 'test.rule' appears twice in the gateway config."


def test_a_failing_match_example_stops_the_load() -> None:
    message = load_error(rule(match=["ls -la", "cat README.md"]))
    assert message == (
        "Rule 'test.rule' in the gateway config does not behave as it says on its example "
        "`cat README.md` under the read-only profile (the rule does not apply to it)."
    )


def test_a_failing_not_match_example_stops_the_load_and_counts_the_others() -> None:
    message = load_error(rule(not_match=["ls", "ls -l"]))
    assert message == (
        "Rule 'test.rule' in the gateway config decides its example `ls` under the read-only "
        "profile (the rule applies to it), and 1 more examples fail."
    )


def test_an_example_that_cannot_be_measured_fails_with_the_reason() -> None:
    message = load_error(rule(match=["ls 'unterminated"]))
    assert "is not measured" in message
    assert message.startswith("Rule 'test.rule' in the gateway config does not behave as it says")


def test_a_bad_rule_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "team.toml"
    path.write_text(
        '[[rule]]\nid = "team.x"\ndecision = "ask"\nprograms = ["ls"]\nreason = "r"\nflavour = 1\n'
    )
    with pytest.raises(RuleError) as raised:
        load_rules(RulesOptions(include_default=False, files=(str(path),)))
    assert str(raised.value) == (
        f"Invalid rule 'team.x' in {path}: object contains unknown field `flavour`."
    )


def test_a_rule_file_that_is_not_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[[rule]\n")
    with pytest.raises(RuleError) as raised:
        load_rules(RulesOptions(include_default=False, files=(str(path),)))
    assert str(raised.value).startswith(f"Invalid rule file {path}: ")
    assert one_sentence(str(raised.value))


def test_a_rule_file_with_other_keys_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.toml"
    path.write_text('[gateway]\napprovers = ["rules"]\n')
    with pytest.raises(RuleError, match="unknown key `gateway`"):
        load_rules(RulesOptions(include_default=False, files=(str(path),)))


def test_a_missing_rule_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.toml"
    with pytest.raises(RuleError) as raised:
        load_rules(RulesOptions(include_default=False, files=(str(path),)))
    assert (
        str(raised.value) == f"Cannot read the rule file {str(path)!r}: No such file or directory."
    )


def test_a_relative_rule_file_is_found_beside_the_base(tmp_path: Path) -> None:
    (tmp_path / "team.toml").write_text(
        '[[rule]]\nid = "team.x"\ndecision = "ask"\nprograms = ["ls"]\nreason = "r"\n'
    )
    sources, rules = load_rules(
        RulesOptions(include_default=False, files=("team.toml",)), base=tmp_path
    )
    assert [(source, r.id) for source, r in sources] == [(str(tmp_path / "team.toml"), "team.x")]
    assert [r.id for r in rules.rules] == ["team.x"]


def test_unknown_approver_options_are_refused() -> None:
    with pytest.raises(RuleError, match=r"Invalid rules options in the gateway config: .*`bogus`"):
        RulesApprover({"bogus": 1})


# ───────────────────────── sources and replacement ─────────────────────────


def test_a_user_rule_replaces_the_default_rule_with_the_same_id() -> None:
    """Replacing `read.jq` makes a team ask before jq; the rest of the policy stays."""
    approver = approver_with(
        rule(
            id="read.jq",
            decision="ask",
            programs=["jq"],
            reason="reads data a person should see first",
            match=["jq . package.json"],
        ),
        include_default=True,
    )
    by_id = {r.id: r for r in approver.rules.rules}
    assert by_id["read.jq"].decision == "ask"
    assert by_id["read.jq"].programs == ("jq",)
    assert "git.force-push" in by_id
    sources = {r.id: source for source, r in approver.sources}
    assert sources["read.jq"] == "the gateway config"
    assert sources["git.force-push"] == "the default policy"


def test_without_the_default_policy_only_the_given_rules_load() -> None:
    approver = approver_with(rule())
    assert [r.id for r in approver.rules.rules] == ["test.rule"]


def test_a_rule_file_replaces_a_default_rule_and_the_config_replaces_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "team.toml"
    path.write_text(
        '[[rule]]\nid = "read.look"\ndecision = "ask"\nprograms = ["ls"]\nreason = "from the file"\n'
        '[[rule]]\nid = "team.x"\ndecision = "ask"\nprograms = ["x"]\nreason = "from the file"\n'
    )
    options = RulesOptions(
        files=(str(path),),
        rule=RulesApprover({"include-default": False, "rule": [rule(id="team.x")]}).options.rule,
    )
    sources, rules = load_rules(options)
    by_id = {r.id: (source, r) for source, r in sources}
    assert by_id["read.look"] == (str(path), by_id["read.look"][1])
    assert by_id["read.look"][1].reason == "from the file"
    assert by_id["team.x"][0] == "the gateway config"
    assert len(rules.rules) == len(default_approver().rules.rules) + 1


# ───────────────────────── the default policy ─────────────────────────


def test_every_example_of_the_default_policy_holds() -> None:
    results = check_examples(default_approver().sources)
    failed = [r for r in results if not r.passed]
    assert not failed
    assert len(results) > 300


def test_every_default_rule_has_an_example_and_a_unique_id() -> None:
    rules = default_approver().rules.rules
    assert len({r.id for r in rules}) == len(rules)
    assert all(r.match for r in rules), [r.id for r in rules if not r.match]


def test_every_default_allow_rule_that_refuses_options_shows_one_refused() -> None:
    """An allow rule with `without-options` carries a not-match example, so its refusals are tested."""
    missing = [
        r.id
        for r in default_approver().rules.rules
        if r.decision == "allow" and r.without_options and not r.not_match
    ]
    assert not missing


def test_default_reasons_are_clauses_and_instead_says_what_to_do() -> None:
    for r in default_approver().rules.rules:
        assert r.reason == r.reason.strip()
        assert not r.reason.endswith("."), r.id
        assert r.reason[:1].islower(), r.id
        if r.instead is not None:
            assert not r.instead.endswith("."), r.id
