"""
Every ``match`` example of a default allow rule is allowed as a newcomer would see it.

`gateway rules test` judges examples with no working directory; here each is
put to a real `Gateway` built from the default config, as a host sends it:
in a working directory that is a clean git repository (with the ``src``
directory the examples name) and a home directory of its own, under every
profile the rule is in force in.
"""

from __future__ import annotations

import anyio
import pytest
from gateway_rules import RulesApprover

from gateway import Gateway
from rules.support import default_approver, example_call, example_workspace, rules_only_config

PROFILES = ("read-only", "workspace-write")


def _examples(profile: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for rule in default_approver().rules.rules:
        if rule.decision != "allow" or (rule.profiles and profile not in rule.profiles):
            continue
        found.extend((rule.id, example) for example in rule.match)
    return found


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> str:
    return example_workspace(tmp_path_factory.mktemp("work"))


@pytest.mark.parametrize("profile", PROFILES)
def test_every_allow_example_is_allowed_through_the_gateway(profile: str, workspace: str) -> None:
    config = rules_only_config()
    options = {**config.approver["rules"], "profile": profile}
    tools = {rule.id: bool(rule.tools) for rule in default_approver().rules.rules}

    async def run() -> list[str]:
        wrong: list[str] = []
        approver = RulesApprover(options, None)
        async with Gateway(config, approvers=[approver], sinks={}) as gateway:
            for rule, example in _examples(profile):
                with anyio.fail_after(30):
                    verdict = await gateway.review(example_call(example, tools[rule], workspace))
                if verdict.decision != "allow":
                    wrong.append(f"{rule}: {example!r} → {verdict.decision}: {verdict.reason}")
        return wrong

    assert anyio.run(run) == []


def test_the_examples_are_the_default_policys() -> None:
    """The test above sees every allow rule of both profiles."""
    seen = {rule for profile in PROFILES for rule, _ in _examples(profile)}
    allows = {r.id for r in default_approver().rules.rules if r.decision == "allow" and r.match}
    assert seen == allows
