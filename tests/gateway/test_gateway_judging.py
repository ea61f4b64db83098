"""
The rules approver judges under its deadline: large calls in a worker process, the rest inline.

The hostile shapes are the ones that once stalled the gateway on its event
loop: a 64 KiB awk program (thousands of ``system()`` texts, or plain
statements) and nested shell text. Each is pinned to the decision the
default policy gives it and to where it was judged. A call whose judging runs
past the approver's deadline is cut there — its worker killed, the call
declined with the chain's one sentence — while other reviews are decided
meanwhile. Nothing here asserts how long anything takes: the assertions are
on verdicts, on the order reviews end in, and on the deadline being the
reason.
"""

from __future__ import annotations

import shlex
from typing import Any, Final

import anyio
import msgspec
import pytest
from gateway_rules import RulesApprover
from gateway_support import anyio_backend as anyio_backend, config

from gateway import (
    Allow,
    ApproverContext,
    Decline,
    Gateway,
    GatewayConfig,
    ReviewRequest,
    ToolCall,
    Verdict,
    default_config,
)
from gateway.bounded import BoundedPool
from gateway.events import ApproverFailed
from gateway.plans import plan_program
from gateway.testing import MemorySink

pytestmark = pytest.mark.anyio

START: Final = 120.0
"""Seconds a test allows for loading a policy, starting workers and reading 64 KiB on a busy machine."""

SYSTEM_TEXTS: Final = "awk 'BEGIN{" + 'system("ls");' * 4600 + "}'"
"""A 64 KiB awk program that runs 4,600 shell texts: 4,601 commands to judge."""

STATEMENTS: Final = "awk 'BEGIN{" + "x=1;" * 15_000 + "}'"
"""A 64 KiB awk program of plain statements: one command, one long program text."""


def _substitutions(depth: int) -> str:
    text = "ls"
    for _ in range(depth):
        text = "echo $(" + text + ")"
    return text


def _shells(depth: int) -> str:
    text = "ls"
    for _ in range(depth):
        text = "sh -c " + shlex.quote(text)
    return text


def _rules(gateway: Gateway) -> RulesApprover:
    approver = gateway.services["rules"]
    assert isinstance(approver, RulesApprover)
    return approver


def _settings(**section: Any) -> GatewayConfig:
    # Where judging runs and which wall-clock deadline cuts it are tested here,
    # so the review's CPU budget (tests/budgets) is set past them.
    return config(approvers=("rules",), plan_timeout=START, review_cpu=START, **section)


@pytest.mark.parametrize(
    ("source", "decision", "reason", "worker"),
    [
        pytest.param(
            SYSTEM_TEXTS,
            "ask",
            "it runs shell text (`system()`): `ls`, which no rule allows",
            True,
            id="awk-64k-system-texts",
        ),
        pytest.param(STATEMENTS, "allow", "rule read.text", True, id="awk-64k-statements"),
        pytest.param(
            _substitutions(60),
            "allow",
            "every one of the 61 commands is allowed",
            True,
            id="substitutions-60-deep",
        ),
        pytest.param(_shells(4), "allow", "it runs shell text", False, id="sh-c-4-deep"),
        pytest.param(
            _shells(5), "ask", "shell text nests deeper than 4 levels", True, id="sh-c-5-deep"
        ),
        pytest.param(
            "echo $(ls)", "allow", "every one of the 2 commands is allowed", False, id="small"
        ),
    ],
)
async def test_hostile_shapes_are_judged_where_a_deadline_holds(
    source: str, decision: str, reason: str, *, worker: bool
) -> None:
    """Each shape gets the default policy's decision; the large ones are judged in a worker."""
    assert len(source.encode()) <= 64 * 1024
    with anyio.fail_after(START):
        async with Gateway(_settings()) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": source}, call_id="x"))
            judged = _rules(gateway).judging_statistics()
    assert verdict.decision == decision
    assert reason in verdict.reason
    assert (judged.in_workers, judged.inline) == ((1, 0) if worker else (0, 1))
    assert judged.failed == 0


# A team policy whose one extra rule tries 4,000 argument globs on every
# `ls`: judging a long `ls` argument costs minutes, an ordinary call a few
# milliseconds (every call goes to a worker: the policy is heavy).
HEAVY: Final = {
    "rule": [
        {
            "id": "team.elsewhere",
            "decision": "ask",
            "programs": ["ls"],
            "args": [f"*-elsewhere-{index}" for index in range(4000)],
            "reason": "it lists another team's directory",
        }
    ]
}
LONG_LISTINGS: Final = "awk 'BEGIN{" + ('system("ls ' + "a" * 1000 + '");') * 60 + "}'"

NORMAL: Final = {
    "read": ("cat README.md", "allow"),
    "list": ("ls -l", "allow"),
    "search": ("grep -rn TODO src", "allow"),
    "network": ("curl -s https://example.com", "ask"),
    "delete": ("rm -rf /", "decline"),
    "count": ("wc -l README.md", "allow"),
}


async def test_judging_past_the_approver_deadline_is_cut_there_and_declined() -> None:
    """
    Judging that costs minutes is cut at the approver's deadline: the worker is killed, the call declined.

    The question is small and quick to put (a busy machine cannot spend the
    deadline before the worker starts), its judging long (`HEAVY`).
    """
    sink = MemorySink()
    settings = msgspec.structs.replace(_settings(approver_timeout=3.0), approver={"rules": HEAVY})
    with anyio.fail_after(START):
        async with Gateway(settings, sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(
                ToolCall("Bash", {"command": LONG_LISTINGS}, call_id="slow")
            )
            judged = _rules(gateway).judging_statistics()
            killed = gateway.statistics().workers_killed
    sentence = "Approver 'rules' did not answer within 3 s, and the gateway fails closed."
    assert (verdict.decision, verdict.reason) == ("decline", sentence)
    failed = [e for e in sink.events if isinstance(e, ApproverFailed)]
    assert [(e.call_id, e.approver, e.reason) for e in failed] == [("slow", "rules", sentence)]
    assert judged.in_workers == 1
    assert killed == 1


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_other_reviews_are_decided_while_a_slow_call_is_judged() -> None:
    """
    The slow call holds one worker until its deadline; the other calls are
    judged meanwhile, each by its rule, and all end before it does.
    """
    settings = msgspec.structs.replace(_settings(approver_timeout=5.0), approver={"rules": HEAVY})
    ended: list[str] = []
    verdicts: dict[str, Verdict] = {}
    with anyio.fail_after(START):
        async with Gateway(settings) as gateway:

            async def review(name: str, command: str) -> None:
                verdicts[name] = await gateway.review(
                    ToolCall("Bash", {"command": command}, call_id=name)
                )
                ended.append(name)

            async with anyio.create_task_group() as group:
                group.start_soon(review, "slow", LONG_LISTINGS)
                for name, (command, _) in NORMAL.items():
                    group.start_soon(review, name, command)
            judged = _rules(gateway).judging_statistics()
    assert verdicts["slow"].decision == "decline"
    assert verdicts["slow"].reason == (
        "Approver 'rules' did not answer within 5 s, and the gateway fails closed."
    )
    assert {name: verdicts[name].decision for name in NORMAL} == {
        name: decision for name, (_, decision) in NORMAL.items()
    }
    assert not any("did not answer" in verdicts[name].reason for name in NORMAL)
    assert ended[-1] == "slow"
    assert judged.in_workers == 1 + len(NORMAL)
    assert judged.failed == 0


async def test_a_worker_that_cannot_judge_is_a_decline_in_one_sentence() -> None:
    """No worker to judge a large call (the pool is closed): declined; a small call is still judged inline."""
    pool = BoundedPool(workers=1)
    await pool.aclose()
    approver = RulesApprover(
        {}, ApproverContext(config=default_config(), services={}, bounded=pool)
    )
    assert approver.shares_loop is True
    large = plan_program(SYSTEM_TEXTS)
    answer = await approver.review(
        ReviewRequest(
            kind="call",
            call=ToolCall("Bash", {"command": SYSTEM_TEXTS}),
            digest=large.digest,
            plan=large,
        )
    )
    assert answer == Decline(
        reason="The rules could not judge the call (the pool of workers is closed), "
        "and the gateway fails closed."
    )
    small = plan_program("ls -l")
    answer = await approver.review(
        ReviewRequest(
            kind="call",
            call=ToolCall("Bash", {"command": "ls -l"}),
            digest=small.digest,
            plan=small,
        )
    )
    assert isinstance(answer, Allow)
    assert approver.judging_statistics()[:3] == (1, 1, 1)


def test_without_a_pool_the_approver_judges_on_a_loop_of_its_own() -> None:
    """Built by hand (no gateway, no pool): it judges inline, and does not share the gateway's loop."""
    approver = RulesApprover({})
    assert approver.shares_loop is False
