"""
The approver chain (issue 5, "Approvers"): order, abstaining, unmeasured
plans, heredoc holes as questions, answers handed back, and timeouts.
"""

from __future__ import annotations

from typing import Any, Literal

import anyio
import pytest
from gateway_support import BOUND, Scripted, anyio_backend as anyio_backend, config, of_call, tags

from gateway import Abstain, Allow, Decline, Gateway, PluginLoadError, ReviewRequest, ToolCall
from gateway.events import ApproverDecided, ApproverFailed, HoleQuestion, HoleRef, VerdictReached
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio

Choice = Literal["allow", "decline", "abstain"]

UNMEASURED = "echo $(date"
HOLES = "cat > notes.txt <<EOF\ntoday is $(date +%A) and I am $(whoami)\nEOF"
BASH_HOLE = "bash <<EOF\necho $(whoami)\nEOF"


@pytest.mark.parametrize(
    ("chain", "decision", "decider", "asked"),
    [
        (["allow"], "allow", "a0", 1),
        (["decline"], "decline", "a0", 1),
        (["abstain", "allow"], "allow", "a1", 2),
        (["abstain", "decline", "allow"], "decline", "a1", 2),
        (["allow", "decline"], "allow", "a0", 1),
        (["decline", "allow"], "decline", "a0", 1),
        (["abstain", "abstain", "abstain"], "ask", None, 3),
        ([], "ask", None, 0),
    ],
    ids=[
        "allow",
        "decline",
        "abstain-passes-on",
        "first-decline-decides",
        "first-allow-decides",
        "decline-before-allow",
        "nobody-decides",
        "no-approvers",
    ],
)
async def test_the_first_allow_or_decline_decides(
    chain: list[Choice], decision: str, decider: str | None, asked: int
) -> None:
    """Approvers are asked in order; the first allow or decline decides; abstaining passes on; nobody deciding is ask."""
    approvers = [StaticApprover(choice, name=f"a{i}") for i, choice in enumerate(chain)]
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=approvers, sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call("ls -la", call_id="c"))
    assert (verdict.decision, verdict.approver) == (decision, decider)
    assert [len(a.requests) for a in approvers] == [1] * asked + [0] * (len(chain) - asked)
    decided = [e for e in sink.events if isinstance(e, ApproverDecided)]
    assert [e.approver for e in decided] == [f"a{i}" for i in range(asked)]
    assert [e.decision for e in decided] == chain[:asked]
    if not chain:
        assert verdict.reason == "No approver decided on the call; a person must decide."
    elif decider is None:
        # The last approver to say why it would not decide explains the ask.
        assert verdict.reason == f"a{len(chain) - 1} never decides."
    else:
        assert verdict.reason == f"{decider} {decision}s everything."
        assert verdict.rule == "static"


async def test_an_ask_without_any_reason_says_that_nobody_decided() -> None:
    """Approvers that abstain without saying why leave the generic sentence."""

    async def silent(request: ReviewRequest) -> Abstain:
        return Abstain()

    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[Scripted("quiet", silent)]) as gateway:
            verdict = await gateway.review(make_call("ls"))
    assert (verdict.decision, verdict.approver) == ("ask", None)
    assert verdict.reason == "No approver decided on the call; a person must decide."


async def test_an_approver_reason_left_blank_is_filled_in() -> None:
    """An approver that decides without a reason still yields a one-sentence verdict reason."""

    async def blank(request: ReviewRequest) -> Decline:
        return Decline(reason="  ")

    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[Scripted("terse", blank)]) as gateway:
            verdict = await gateway.review(make_call("ls"))
    assert verdict.decision == "decline"
    assert verdict.reason == "Approver 'terse' decided on the call."


# ── unmeasured plans ──


async def test_an_unmeasured_plan_is_not_allowed_by_an_approver_that_does_not_review_raw_text() -> (
    None
):
    """The allow is noted in approver.decided but does not count; nobody else decides, so the verdict is ask."""
    sink = MemorySink()
    approver = StaticApprover("allow", name="rules-like")
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call(UNMEASURED, call_id="u"))
    (request,) = approver.requests
    assert request.plan is not None
    assert request.plan.status == "unmeasured"
    assert not request.measured
    assert verdict.decision == "ask"
    assert verdict.approver is None
    assert verdict.reason.startswith("The command could not be read with confidence (")
    assert request.plan.reason is not None
    assert request.plan.reason in verdict.reason
    (decided,) = [e for e in sink.events if isinstance(e, ApproverDecided)]
    assert decided.decision == "allow"
    assert decided.note == (
        "An allow of a plan that could not be measured counts only from an approver that reviews raw text."
    )


async def test_an_unmeasured_plan_is_allowed_by_an_approver_that_reviews_raw_text() -> None:
    """An approver that opts in to raw text may allow; the one before it that did not is passed over."""
    sink = MemorySink()
    chain = [
        StaticApprover("allow", name="rules-like"),
        StaticApprover("allow", name="human", reviews_raw_text=True),
    ]
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=chain, sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call(UNMEASURED))
    assert (verdict.decision, verdict.approver) == ("allow", "human")
    notes = [e.note for e in sink.events if isinstance(e, ApproverDecided)]
    assert notes[0] is not None
    assert notes[1] is None


async def test_an_unmeasured_plan_can_still_be_declined_by_any_approver() -> None:
    """Opting in to raw text is needed to allow, never to decline."""
    chain = [StaticApprover("allow", name="a"), StaticApprover("decline", name="b")]
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=chain) as gateway:
            verdict = await gateway.review(make_call(UNMEASURED))
    assert (verdict.decision, verdict.approver) == ("decline", "b")


async def test_a_tool_that_is_not_a_shell_is_not_unmeasured() -> None:
    """Without a plan there is nothing unmeasured: any approver's allow counts."""
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")]) as gateway:
            verdict = await gateway.review(ToolCall("read_file", {"path": "README.md"}))
    assert verdict.decision == "allow"


# ── holes as questions ──


def _by_kind(call: Choice, hole: dict[int, Choice] | Choice, body: Choice = "allow") -> Scripted:
    """An approver that answers the call, each hole (by index) and bodies as told."""

    async def decide(request: ReviewRequest) -> Any:
        if request.kind == "call":
            choice = call
        elif request.kind == "body":
            choice = body
        else:
            assert request.question is not None
            choice = hole if isinstance(hole, str) else hole[request.question.hole]
        if choice == "allow":
            return Allow(reason=f"Allowed the {request.kind}.", rule=f"{request.kind}-rule")
        if choice == "decline":
            return Decline(reason=f"Declined the {request.kind}.", rule=f"{request.kind}-rule")
        return Abstain()

    return Scripted("by-kind", decide)


async def test_every_hole_is_put_to_the_approvers_as_its_own_question() -> None:
    """Each hole of an unquoted heredoc is a hole.question event with its plans, then a question to the chain."""
    sink = MemorySink()
    approver = _by_kind("allow", "allow")
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call(HOLES, call_id="h"))
    assert verdict.decision == "allow"
    events = of_call(sink.events, "h")
    assert tags(events) == [
        "call.proposed",
        "plan.ready",
        "hole.question",
        "hole.question",
        "approver.decided",
        "approver.decided",
        "approver.decided",
        "verdict.reached",
    ]
    questions = [e for e in events if isinstance(e, HoleQuestion)]
    assert [q.ref for q in questions] == [
        HoleRef(statement=0, heredoc=0, hole=0),
        HoleRef(statement=0, heredoc=0, hole=1),
    ]
    assert [q.hole.source for q in questions] == ["$(date +%A)", "$(whoami)"]
    assert [[c.name for c in q.hole.plans[0].commands] for q in questions] == [["date"], ["whoami"]]
    call, first, second = approver.requests
    assert call.kind == "call"
    assert call.holes == (questions[0].ref, questions[1].ref)
    assert (first.kind, first.question, first.hole) == ("hole", questions[0].ref, questions[0].hole)
    assert (second.kind, second.question, second.hole) == (
        "hole",
        questions[1].ref,
        questions[1].hole,
    )
    decided = [e.question for e in events if isinstance(e, ApproverDecided)]
    assert decided == [None, questions[0].ref, questions[1].ref]


@pytest.mark.parametrize(
    ("call", "holes", "decision", "reason"),
    [
        ("allow", {0: "allow", 1: "allow"}, "allow", "Allowed the call."),
        ("allow", {0: "allow", 1: "decline"}, "decline", "Heredoc hole 0.0.1: Declined the hole."),
        (
            "allow",
            {0: "abstain", 1: "allow"},
            "ask",
            "Heredoc hole 0.0.0: No approver decided on this hole; a person must decide.",
        ),
        ("decline", {0: "allow", 1: "allow"}, "decline", "Declined the call."),
        ("abstain", {0: "allow", 1: "allow"}, "ask", None),
    ],
    ids=[
        "all-allowed",
        "one-hole-declined",
        "one-hole-undecided",
        "call-declined",
        "call-undecided",
    ],
)
async def test_the_call_is_allowed_only_if_every_hole_is(
    call: Choice, holes: dict[int, Choice], decision: str, reason: str | None
) -> None:
    """The verdict is the strictest of the call's answer and every hole's."""
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[_by_kind(call, holes)]) as gateway:
            verdict = await gateway.review(make_call(HOLES))
    assert verdict.decision == decision
    if reason is not None:
        assert verdict.reason == reason


async def test_a_quoted_heredoc_has_no_holes() -> None:
    """``<<'EOF'`` runs nothing in its body, so there is nothing to ask about."""
    sink = MemorySink()
    approver = _by_kind("allow", "decline")
    source = "cat > notes.txt <<'EOF'\ntoday is $(date +%A)\nEOF"
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call(source))
    assert verdict.decision == "allow"
    assert [r.kind for r in approver.requests] == ["call"]
    assert "hole.question" not in tags(sink.events)


async def test_holes_are_published_but_not_asked_when_ask_holes_is_off() -> None:
    """With ``ask-holes = false`` the holes are still recorded, and only the call is put to the chain."""
    sink = MemorySink()
    approver = _by_kind("allow", "decline")
    with anyio.fail_after(BOUND):
        async with Gateway(
            config(ask_holes=False), approvers=[approver], sinks={"memory": sink}
        ) as gateway:
            verdict = await gateway.review(make_call(HOLES))
    assert verdict.decision == "allow"
    assert [r.kind for r in approver.requests] == ["call"]
    assert tags(sink.events).count("hole.question") == 2


async def test_answers_handed_back_complete_the_body_which_is_reviewed_again() -> None:
    """`Gateway.answer` re-expands the heredoc with the host's answers and puts the body to the approvers."""
    sink = MemorySink()
    approver = _by_kind("allow", "allow", body="decline")
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
            first = await gateway.review(make_call(HOLES, call_id="h"))
            verdict = await gateway.answer("h", 0, 0, {0: "Monday\n", 1: "bob"})
    assert first.decision == "allow"
    assert verdict.decision == "decline"
    assert verdict.reason == "Declined the body."
    assert verdict.digest == first.digest
    assert verdict.call_id == "h"
    body = approver.requests[-1]
    assert body.kind == "body"
    assert body.body == "today is Monday and I am bob\n"
    assert body.body_plan is None
    assert body.question == HoleRef(statement=0, heredoc=0, hole=-1)
    after = of_call(sink.events, "h")[8:]
    assert tags(after) == ["hole.answered", "hole.answered", "approver.decided", "verdict.reached"]
    reached = after[-1]
    assert isinstance(reached, VerdictReached)
    assert reached.question == HoleRef(statement=0, heredoc=0, hole=-1)
    assert reached.verdict == verdict


async def test_a_body_still_blocked_by_unanswered_holes_is_ask() -> None:
    """An answer for only some holes leaves the body blocked: a person must decide, and no approver is asked."""
    approver = _by_kind("allow", "allow")
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver]) as gateway:
            await gateway.review(make_call(HOLES, call_id="h"))
            verdict = await gateway.answer("h", 0, 0, {1: "bob"})
    assert verdict.decision == "ask"
    assert verdict.reason == (
        "The heredoc body is still blocked by unanswered holes; a person must decide."
    )
    assert [r.kind for r in approver.requests] == ["call", "hole", "hole"]


async def test_a_body_read_by_a_shell_is_reviewed_with_its_own_plan() -> None:
    """When a shell reads the heredoc, approvers get a plan of the completed body."""
    approver = _by_kind("allow", "allow")
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver]) as gateway:
            await gateway.review(make_call(BASH_HOLE, call_id="b"))
            verdict = await gateway.answer("b", 0, 0, {0: "root"})
    assert verdict.decision == "allow"
    body = approver.requests[-1]
    assert body.body == "echo root\n"
    assert body.body_plan is not None
    assert body.body_plan.status == "measured"
    assert [c.name for c in body.body_plan.statements[0].plan.commands] == ["echo"]


async def test_a_body_for_a_shell_that_cannot_be_measured_is_not_allowed_by_rules() -> None:
    """
    An answer that makes the shell's body unreadable leaves it unmeasured:
    only an approver that reviews raw text may allow it.

    Regression: the gateway looked only at the call's (measured) plan, so an
    allow of an unmeasured body by any approver counted.
    """
    sink = MemorySink()
    chain = [_by_kind("allow", "allow")]
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=chain, sinks={"memory": sink}) as gateway:
            await gateway.review(make_call(BASH_HOLE, call_id="b"))
            verdict = await gateway.answer("b", 0, 0, {0: "x $("})
    body = chain[0].requests[-1]
    assert body.body_plan is not None
    assert body.body_plan.status == "unmeasured"
    assert verdict.decision == "ask"
    decided = [e for e in of_call(sink.events, "b") if isinstance(e, ApproverDecided)][-1]
    assert decided.decision == "allow"
    assert decided.note is not None
    raw = Scripted("human", _by_kind("allow", "allow")._decide, reviews_raw_text=True)
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[raw]) as gateway:
            await gateway.review(make_call(BASH_HOLE, call_id="b"))
            assert (await gateway.answer("b", 0, 0, {0: "x $("})).decision == "allow"


async def test_answering_an_unknown_call_is_an_error() -> None:
    """Only calls the gateway remembers can be answered."""
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")]) as gateway:
            with pytest.raises(KeyError):
                await gateway.answer("never-seen", 0, 0, {0: "x"})
            await gateway.review(ToolCall("read_file", {"path": "x"}, call_id="not-shell"))
            with pytest.raises(KeyError):
                await gateway.answer("not-shell", 0, 0, {0: "x"})


async def test_answering_a_heredoc_that_does_not_exist_is_declined() -> None:
    """An answer naming a statement or heredoc the call does not have is a decline, not an error."""
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")]) as gateway:
            await gateway.review(make_call(HOLES, call_id="h"))
            verdict = await gateway.answer("h", 3, 0, {0: "x"})
    assert verdict.decision == "decline"


# ── timeouts ──


async def test_an_approver_timeout_attribute_shortens_the_configured_one() -> None:
    """An approver's own ``timeout`` replaces ``approver-timeout``: here 50 ms instead of an hour."""
    sink = MemorySink()

    async def hang(request: ReviewRequest) -> Any:
        await anyio.sleep_forever()

    with anyio.fail_after(BOUND):
        async with Gateway(
            config(approver_timeout=3600.0),
            approvers=[Scripted("quick", hang, timeout=0.05), StaticApprover("allow")],
            sinks={"memory": sink},
        ) as gateway:
            verdict = await gateway.review(make_call("ls"))
    assert verdict.decision == "decline"
    assert verdict.reason == (
        "Approver 'quick' did not answer within 0.05 s, and the gateway fails closed."
    )
    (failed,) = [e for e in sink.events if isinstance(e, ApproverFailed)]
    assert failed.reason == verdict.reason


async def test_an_approver_timeout_attribute_lengthens_the_configured_one() -> None:
    """A person may take longer than rules: an approver's ``timeout`` overrides a short config."""
    with anyio.fail_after(BOUND):
        async with Gateway(
            config(approver_timeout=0.01),
            approvers=[StaticApprover("allow", name="slow", delay=0.1)],
        ) as gateway:
            cut_off = await gateway.review(make_call("ls"))
        slow = StaticApprover("allow", name="slow", delay=0.1)
        slow.timeout = 60  # type: ignore[attr-defined]
        async with Gateway(config(approver_timeout=0.01), approvers=[slow]) as gateway:
            waited = await gateway.review(make_call("ls"))
    assert cut_off.decision == "decline"
    assert waited.decision == "allow"


@pytest.mark.parametrize(
    "seconds",
    [0, -1, True, "60", float("nan"), float("inf"), 86_401],
    ids=["zero", "negative", "bool", "string", "nan", "inf", "over-a-day"],
)
async def test_an_unusable_approver_timeout_is_refused_when_the_approver_is_loaded(
    seconds: object,
) -> None:
    """A timeout attribute that is not a finite positive number of seconds up to a day stops the start, naming it."""
    approver = Scripted("odd", StaticApprover("allow").review, timeout=seconds)
    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError) as caught:
        async with Gateway(config(approver_timeout=7.5), approvers=[approver]):
            pass
    assert str(caught.value).startswith(f"The approver 'odd' says timeout = {seconds!r};")
    assert caught.value.plugin == "odd"
    good = Scripted("good", StaticApprover("allow").review, timeout=0.25)
    with anyio.fail_after(BOUND):
        async with Gateway(config(approver_timeout=7.5), approvers=[good]) as gateway:
            assert gateway.approver_timeout(good) == 0.25
