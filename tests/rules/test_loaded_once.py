"""
A rule set is loaded and checked once per process for the same inputs, and again when any changes.

A process that opens gateway after gateway (the warm hook worker, for each
burst of calls) builds the ``rules`` approver each time; parsing, validating,
compiling and checking the policy again would cost most of a call. The same
options, tables, profiles, rule files' content and default policy give the
same checked rule set; any change to one of them is loaded and checked anew,
and a policy that fails is refused every time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gateway_rules import RuleError, RulesApprover

from gateway.config import default_config_bytes
from rules.support import approver_with

LISTING = {"id": "team.listing", "decision": "ask", "programs": ["ls"], "reason": "lists"}


def file_rule(decision: str) -> str:
    return f'[[rule]]\nid = "team.x"\ndecision = "{decision}"\nprograms = ["ls"]\nreason = "r"\n'


def with_file(path: Path, **options: Any) -> RulesApprover:
    return RulesApprover({"include-default": False, "files": [str(path)], **options})


def test_the_same_inputs_give_the_same_checked_rule_set() -> None:
    first = approver_with(LISTING)
    again = approver_with(LISTING)
    assert again.rules is first.rules
    assert again.sources == first.sources
    assert again.policy_version == first.policy_version


def test_a_rule_file_edited_in_place_is_loaded_again(tmp_path: Path) -> None:
    path = tmp_path / "team.toml"
    path.write_text(file_rule("ask"))
    before = with_file(path)
    path.write_text(file_rule("decline"))
    after = with_file(path)
    assert [r.decision for r in before.rules.rules] == ["ask"]
    assert [r.decision for r in after.rules.rules] == ["decline"]
    assert after.policy_version != before.policy_version


def test_a_rule_file_that_became_invalid_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "team.toml"
    path.write_text(file_rule("ask"))
    with_file(path)
    path.write_text(file_rule("maybe"))
    with pytest.raises(RuleError, match=r"team\.toml"):
        with_file(path)


def test_a_changed_default_policy_is_loaded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    before = RulesApprover({"memory": ""})
    original = default_config_bytes()
    assert b'id = "read.jq"' in original
    monkeypatch.setattr(
        "gateway_rules.default_config_bytes",
        lambda: original.replace(b'id = "read.jq"', b'id = "read.jq.renamed"'),
    )
    after = RulesApprover({"memory": ""})
    assert after.rules is not before.rules
    assert "read.jq.renamed" in {r.id for r in after.rules.rules}


def test_another_profile_gets_its_own_rule_set() -> None:
    write = RulesApprover(
        {"include-default": False, "rule": [LISTING], "profile": "workspace-write"}
    )
    read = RulesApprover({"include-default": False, "rule": [LISTING], "profile": "read-only"})
    assert (write.profile, read.profile) == ("workspace-write", "read-only")
    assert read.rules is not write.rules


def test_a_policy_whose_examples_fail_is_refused_every_time() -> None:
    failing = {**LISTING, "match": ["cat x"]}
    for _ in range(2):
        with pytest.raises(RuleError, match="does not behave as it says"):
            approver_with(failing)
