"""
Every write a call makes is named: in its summary, and in the reason of an allow.

A rule's reason speaks of the program it names ("only reads and prints"),
while a redirect, an option (``sed -i``) or a patch makes the call write; the
sentence a person reads on the page and the one the agent is given must say
the write. Every ``match`` and ``not-match`` example of the default policy is
put to a real `Gateway` under both profiles (as in test_default_examples.py),
and the effects the gateway planned for it are checked against both sentences.
"""

from __future__ import annotations

import anyio
import pytest
from gateway_rules import RulesApprover

from gateway import Abstain, Answer, Approver, Gateway, ReviewRequest
from gateway.effects import Effect, Write, effect_clauses, summarise_effects
from rules.support import (
    default_approver,
    example_call,
    example_workspace,
    review,
    rules_only_config,
)

PROFILES = ("read-only", "workspace-write")


class Seen:
    """An approver that answers nothing and keeps the effects of every call it is asked about."""

    name = "seen"
    role = "policy"
    shares_loop = True

    def __init__(self) -> None:
        self.effects: dict[str, tuple[Effect, ...]] = {}

    async def review(self, request: ReviewRequest) -> Answer:
        if request.kind == "call":
            self.effects[request.call.call_id or ""] = request.effects
        return Abstain(reason="Only watching.")


def _examples() -> list[tuple[str, str, bool]]:
    return [
        (rule.id, example, bool(rule.tools))
        for rule in default_approver().rules.rules
        for example in (*rule.match, *rule.not_match)
    ]


def _write_clauses(effects: tuple[Effect, ...]) -> list[str]:
    """The clause of every write to a file (a standard stream is not one)."""
    return [
        clause.text
        for effect in effects
        if isinstance(effect, Write)
        for clause in effect_clauses([effect])
    ]


def _says(sentence: str, clause: str) -> bool:
    """Whether the sentence says the clause (the first clause of a summary is capitalised)."""
    return clause in sentence or clause[:1].upper() + clause[1:] in sentence


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> str:
    return example_workspace(tmp_path_factory.mktemp("work"))


@pytest.mark.parametrize("profile", PROFILES)
def test_the_summary_and_an_allows_reason_name_every_write(profile: str, workspace: str) -> None:
    config = rules_only_config()
    options = {**config.approver["rules"], "profile": profile}
    examples = _examples()

    async def run() -> tuple[list[str], int, int]:
        wrong: list[str] = []
        writes = allows = 0
        seen = Seen()
        approvers: list[Approver] = [seen, RulesApprover(options, None)]
        async with Gateway(config, approvers=approvers, sinks={}) as gateway:
            for index, (rule, example, tools) in enumerate(examples):
                call = example_call(example, tools, workspace, f"example-{index}")
                with anyio.fail_after(30):
                    verdict = await gateway.review(call)
                effects = seen.effects.get(call.call_id or "", ())
                summary = summarise_effects(effects)
                for clause in _write_clauses(effects):
                    writes += 1
                    if not _says(summary, clause):
                        wrong.append(
                            f"{rule}: {example!r}: the summary {summary!r} omits {clause!r}"
                        )
                    if verdict.decision == "allow" and not _says(verdict.reason, clause):
                        allows += 1
                        wrong.append(
                            f"{rule}: {example!r}: the allow {verdict.reason!r} omits {clause!r}"
                        )
                    elif verdict.decision == "allow":
                        allows += 1
        return wrong, writes, allows

    wrong, writes, allows = anyio.run(run)
    assert wrong == []
    # The examples do write, and some of those writes are allowed (workspace-write).
    assert writes > 50
    assert allows > (10 if profile == "workspace-write" else -1)


def test_a_rules_reason_never_calls_a_write_a_read() -> None:
    """The cases that were said wrong: a read rule's words for a call that writes."""
    approver = RulesApprover({"profile": "workspace-write"}, None)
    for command, named, write in [
        ("sed -i 's/a/b/' src/x.py", "sed -i 's/a/b/' src/x.py", "writes `src/x.py`"),
        ("echo hi > out.txt", "echo hi", "writes `out.txt`"),
        ("cat a.txt > b.txt", "cat a.txt", "writes `b.txt`"),
        ("echo hi > out.txt; cat out.txt", "the call", "writes `out.txt`"),
    ]:
        reason = review(command, approver=approver, cwd="/work/app").reason or ""
        subject = named if named == "the call" else f"`{named}`"
        assert reason.startswith(f"Allowed {subject}: it {write}"), reason
        assert "only reads" not in reason
        assert "only prints" not in reason
    # The harmless twin: a call that only reads keeps the rule's own sentence.
    answer = review("cat README.md", approver=approver, cwd="/work/app")
    assert answer.reason == "Allowed `cat README.md`: rule read.text only reads and prints."
