"""
Hostile shapes, reviewed whole: every review ends within its budget, with no worker crash.

Every shape of `budgets.shapes` is reviewed at the reader's 64 KiB limit by a
`Gateway` with the default config and no person (as ``gateway check`` does),
in a fresh gateway per shape. Nothing here asserts on time (speed and CPU are
measured by ``benchmarks/bounds.py``): the bounds only catch a hang. What is
asserted is what a budget must give: an answer, never an allow of what could
not be read, and never a worker that died or ran out of memory.
"""

from __future__ import annotations

import gc
import time
from typing import Final

import anyio
import msgspec
import pytest

from budgets.shapes import LIMIT, SHAPES, Shape
from gateway import Answer, Gateway, ReviewRequest, ToolCall, default_config
from gateway._calls._effects import Read
from gateway._cli._check import without_person
from gateway._plan import iter_effects
from gateway._plan._builder import MAX_PIPELINE_STAGES
from gateway.bounded import charge, thread_cpu_seconds
from gateway.plans import plan_program
from gateway.testing import StaticApprover

HANG: Final = 120.0
"""Seconds one review may take before the test calls it a hang (a busy machine is slow, not stuck)."""

_FAILED_WORKER: Final = ("died", "memory", "could not be read safely", "unreadable")


async def _review(text: str) -> tuple[str, str]:
    config = without_person(msgspec.structs.replace(default_config(), sinks={}))
    with anyio.fail_after(HANG):
        async with Gateway(config) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": text}, call_id="hostile"))
    return verdict.decision, verdict.reason


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_a_hostile_shape_at_the_limit_ends_within_its_budget(shape: Shape) -> None:
    text = shape.at_most(LIMIT)
    decision, reason = anyio.run(_review, text)
    if "of CPU time it may use" in reason:
        # The budget cut it short (a busy machine's CPU time runs long too):
        # never allowed, and nothing died on the way.
        assert decision != "allow"
        assert not any(words in reason for words in ("died", "memory")), reason
        return
    assert not any(words in reason for words in _FAILED_WORKER), reason


def _doubled(times: int, tail: str) -> str:
    return "a=x; " + "a=$a$a; " * times + tail


@pytest.mark.parametrize("tail", ["cat $a", "echo $a"])
def test_values_that_double_with_each_assignment_are_unmeasured_past_the_allowance(
    tail: str,
) -> None:
    """
    22 doublings make a value of 4 M characters: past the planning's allowance it is not built.

    Bash would build it, and ``echo`` would flood the host with it, so the
    plan is unmeasured rather than the value merely unknown.
    """
    small = plan_program(_doubled(4, tail))
    large = plan_program(_doubled(22, tail))
    assert small.status == "measured"
    if tail.startswith("cat"):
        (read,) = [e for _, e in iter_effects(small.statements[-1].plan) if isinstance(e, Read)]
        assert read.path.value == "./" + "x" * 16
    assert large.status == "unmeasured"
    assert large.reason is not None
    assert "values of more than 16 characters per character" in large.reason


def test_a_pipeline_past_its_stage_limit_is_unmeasured_in_one_sentence() -> None:
    at = plan_program("cat f" + " | cat" * (MAX_PIPELINE_STAGES - 1))
    over = plan_program("cat f" + " | cat" * MAX_PIPELINE_STAGES)
    assert at.status == "measured"
    assert over.status == "unmeasured"
    assert over.reason == (
        f"A pipeline has {MAX_PIPELINE_STAGES + 1} stages, over the {MAX_PIPELINE_STAGES} the planner plans."
    )
    nested = plan_program("bash -c 'cat f" + " | cat" * MAX_PIPELINE_STAGES + "'")
    assert nested.status == "unmeasured"


def test_a_text_with_a_lone_surrogate_is_planned_unmeasured_without_raising() -> None:
    plan = plan_program("echo \udcff")
    assert plan.status == "unmeasured"
    assert plan.reason == "The text is not valid Unicode (a lone surrogate at offset 5)."
    assert plan.source == "echo \ufffd"
    msgspec.json.encode(plan)  # every part of it can be written


async def _review_with(text: str, **section: object) -> tuple[str, str]:
    base = without_person(msgspec.structs.replace(default_config(), sinks={}))
    config = msgspec.structs.replace(base, gateway=msgspec.structs.replace(base.gateway, **section))
    with anyio.fail_after(HANG):
        async with Gateway(config) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": text}, call_id="x"))
    return verdict.decision, verdict.reason


def test_a_reading_past_the_review_budget_is_unmeasured_and_asked() -> None:
    """
    A thousand harmless commands are allowed; with a budget too small for them, they are asked.

    The allowed twin has a generous budget: how much CPU the default's 0.4 s
    buys depends on the machine, and the test must not.
    """
    text = "ls\n" * 1000
    assert anyio.run(lambda: _review_with(text, review_cpu=30.0))[0] == "allow"
    decision, reason = anyio.run(lambda: _review_with(text, review_cpu=0.001))
    assert decision == "ask"
    assert "Reading the call used more than the 0.001 s of CPU time a review may use" in reason


class _Charging(StaticApprover):
    """Allows every question, and charges the review a hundredth of a second of CPU for each."""

    async def review(self, request: ReviewRequest) -> Answer:
        charge(0.01)
        return await super().review(request)


async def _review_by(approver: StaticApprover, text: str) -> tuple[str, str]:
    """``text`` reviewed by ``approver`` alone, within a review budget of 0.1 s of CPU."""
    base = msgspec.structs.replace(default_config(), sinks={})
    config = msgspec.structs.replace(
        base, gateway=msgspec.structs.replace(base.gateway, review_cpu=0.1, approvers=())
    )
    with anyio.fail_after(HANG):
        async with Gateway(config, approvers=[approver]) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": text}, call_id="x"))
    return verdict.decision, verdict.reason


def test_heredoc_holes_left_when_the_budget_runs_out_are_asked_not_judged() -> None:
    """Each hole is its own question; once the review's CPU is spent, the holes left are not asked."""
    approver = _Charging("allow")
    text = "cat <<E\n" + "$(ls) " * 40 + "\nE"
    decision, reason = anyio.run(_review_by, approver, text)
    assert decision == "ask"
    assert reason.endswith(
        "The review used all the 0.1 s of CPU time it may use before every heredoc hole was judged,"
        " so a person must decide."
    )
    # The call and at most ten holes were asked, not forty-one questions.
    assert len(approver.requests) <= 11


class _Collecting(StaticApprover):
    """Allows, judging in this process as the rules judge a small call; full garbage collections fall in the middle."""

    def __init__(self) -> None:
        super().__init__("allow")
        self.collected = 0.0

    async def review(self, request: ReviewRequest) -> Answer:
        started, raw = thread_cpu_seconds(), time.thread_time()
        for _ in range(10):
            gc.collect()  # walks the whole heap: what the process holds, not what this call made
        self.collected = max(self.collected, time.thread_time() - raw)
        charge(thread_cpu_seconds() - started)
        return await super().review(request)


def test_a_full_garbage_collection_is_not_charged_to_the_call_it_falls_on() -> None:
    """
    A full collection walks the whole heap: in a gateway that had reviewed
    28,000 calls it took 0.3 to 1 s, and charged to whichever call it fell on,
    it spent that call's budget at random (the same command asked in one run
    of the corpora and was judged in the next). The review's clock leaves it
    out: the call and its heredoc hole are both judged within a 0.1 s budget
    although each question's collections took more than that.
    """
    heap = [[number] for number in range(1_000_000)]
    approver = _Collecting()
    decision, reason = anyio.run(_review_by, approver, "cat <<E\n$(ls)\nE")
    assert len(heap) == 1_000_000
    assert approver.collected > 0.1, approver.collected  # more than the whole budget
    assert len(approver.requests) == 2  # the call and its hole
    assert decision == "allow", reason
