"""
Traces (issue 5, "Traces"): one ``gateway.review`` span per review with
children for planning, each approver and each hole; GenAI and project
attributes; nothing secret in any attribute. The tracer provider is always
injected: no test touches OpenTelemetry's globals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from gateway_support import (
    BOUND,
    SECRET_CALLS,
    SECRETS,
    Scripted,
    anyio_backend as anyio_backend,
    tracing,
)
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import StatusCode

from gateway import Gateway, ReviewRequest, ToolCall
from gateway.plans import plan_program
from gateway.testing import StaticApprover, make_call

pytestmark = pytest.mark.anyio

HOLES = "cat > notes.txt <<EOF\ntoday is $(date +%A) and I am $(whoami)\nEOF"


def _attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def _named(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [span for span in spans if span.name == name]


def _children(spans: Sequence[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    assert parent.context is not None
    return [
        span
        for span in spans
        if span.parent is not None and span.parent.span_id == parent.context.span_id
    ]


async def test_a_review_is_one_span_with_children_for_plan_approvers_and_holes() -> None:
    """gateway.review holds gateway.plan, a gateway.approve per approver asked, and a gateway.hole per hole."""
    provider, exporter = tracing()
    chain = [StaticApprover("abstain", name="first"), StaticApprover("allow", name="second")]
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=chain, tracer_provider=provider) as gateway:
            await gateway.review(make_call(HOLES, call_id="c1", session_id="s1"))
    spans = exporter.get_finished_spans()
    (review,) = _named(spans, "gateway.review")
    assert review.parent is None
    assert review.context is not None
    assert {span.context.trace_id for span in spans if span.context} == {review.context.trace_id}
    children = _children(spans, review)
    assert sorted(span.name for span in children) == [
        "gateway.approve",
        "gateway.approve",
        "gateway.hole",
        "gateway.hole",
        "gateway.plan",
    ]
    approvals = [span for span in children if span.name == "gateway.approve"]
    assert [_attributes(s)["agent_gateway.approver.name"] for s in approvals] == [
        "first",
        "second",
    ]
    assert [_attributes(s)["agent_gateway.approver.decision"] for s in approvals] == [
        "abstain",
        "allow",
    ]
    holes = [span for span in children if span.name == "gateway.hole"]
    assert [_attributes(s)["agent_gateway.question"] for s in holes] == ["0.0.0", "0.0.1"]
    for hole in holes:
        assert [s.name for s in _children(spans, hole)] == ["gateway.approve", "gateway.approve"]
    assert len(spans) == 1 + 1 + 2 + 2 + 2 * 2


async def test_the_review_span_carries_genai_and_project_attributes() -> None:
    """A guardrail span by the GenAI conventions (target, result, policy rule); digest, counts and approver are ours."""
    provider, exporter = tracing()
    chain = [StaticApprover("abstain", name="first"), StaticApprover("allow", name="second")]
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=chain, tracer_provider=provider) as gateway:
            verdict = await gateway.review(make_call(HOLES, call_id="c1", session_id="s1"))
    spans = exporter.get_finished_spans()
    (review,) = _named(spans, "gateway.review")
    assert _attributes(review) == {
        "gen_ai.operation.name": "apply_guardrail",
        "gen_ai.provider.name": "agent_gateway",
        "gen_ai.guardrail.component.name": "agent-gateway",
        "gen_ai.guardrail.source": "tool_input",
        "gen_ai.guardrail.result.type": "decision",
        "gen_ai.guardrail.result.value": "allow",
        "gen_ai.guardrail.result.reason": verdict.reason,
        "gen_ai.guardrail.policy.id": "static",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.conversation.id": "s1",
        "openinference.span.kind": "GUARDRAIL",
        "agent_gateway.plan.digest": verdict.digest,
        "agent_gateway.plan.status": "measured",
        "agent_gateway.plan.commands": 3,
        "agent_gateway.plan.holes": 2,
        "agent_gateway.verdict.approver": "second",
        # Whether the allow is founded, as the verdict says (here it is not).
        "agent_gateway.verdict.founded": verdict.founded,
        "agent_gateway.mode": "enforce",
    }
    assert verdict.founded is False
    (plan,) = _named(spans, "gateway.plan")
    assert _attributes(plan) == {
        "agent_gateway.plan.digest": plan_program(HOLES).digest,
        "agent_gateway.plan.status": "measured",
    }


async def test_an_unmeasured_plan_is_traced_with_its_reason() -> None:
    """The unmeasured reason is an attribute of the review and of its plan span."""
    provider, exporter = tracing()
    source = "echo $(date"
    reason = plan_program(source).reason
    assert reason is not None
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")], tracer_provider=provider
        ) as gateway:
            verdict = await gateway.review(make_call(source, call_id="u"))
    spans = exporter.get_finished_spans()
    (review,) = _named(spans, "gateway.review")
    (plan,) = _named(spans, "gateway.plan")
    for span in (review, plan):
        assert _attributes(span)["agent_gateway.plan.status"] == "unmeasured"
        assert _attributes(span)["agent_gateway.plan.unmeasured_reason"] == reason
        assert _attributes(span)["agent_gateway.plan.unmeasured_kind"] == "parse_error"
    assert _attributes(review)["gen_ai.guardrail.result.value"] == verdict.decision == "ask"
    assert "gen_ai.conversation.id" not in _attributes(review)


async def test_a_tool_that_is_not_a_shell_has_no_plan_span() -> None:
    """Without a shell there is nothing to plan: the review holds only approver spans."""
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("decline")], tracer_provider=provider
        ) as gateway:
            verdict = await gateway.review(ToolCall("read_file", {"path": "x"}, call_id="r"))
    spans = exporter.get_finished_spans()
    (review,) = _named(spans, "gateway.review")
    assert [s.name for s in _children(spans, review)] == ["gateway.approve"]
    attributes = _attributes(review)
    assert attributes["gen_ai.tool.name"] == "read_file"
    assert attributes["agent_gateway.plan.digest"] == verdict.digest
    assert attributes["agent_gateway.plan.commands"] == 0
    assert "agent_gateway.plan.status" not in attributes
    assert attributes["gen_ai.guardrail.result.value"] == "decline"


async def test_a_failing_approver_marks_its_span_as_an_error() -> None:
    """The approve span of an approver that failed has an error status saying why."""
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow", name="crashy", raises=RuntimeError("x"))],
            tracer_provider=provider,
        ) as gateway:
            verdict = await gateway.review(make_call("ls"))
    (approve,) = _named(exporter.get_finished_spans(), "gateway.approve")
    assert approve.status.status_code is StatusCode.ERROR
    assert approve.status.description == verdict.reason
    assert _attributes(approve)["error.type"] == "exception"
    (review,) = _named(exporter.get_finished_spans(), "gateway.review")
    assert _attributes(review)["gen_ai.guardrail.result.value"] == "decline"
    assert _attributes(review)["agent_gateway.verdict.approver"] == "crashy"


async def test_an_answer_is_traced_as_a_hole_span_of_its_call() -> None:
    """Handing back a hole's output is traced too, under the call's id."""
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")], tracer_provider=provider
        ) as gateway:
            await gateway.review(make_call(HOLES, call_id="h"))
            exporter.clear()
            await gateway.answer("h", 0, 0, {0: "Monday", 1: "bob"})
    spans = exporter.get_finished_spans()
    (hole,) = _named(spans, "gateway.hole")
    assert _attributes(hole) == {"gen_ai.tool.call.id": "h"}
    assert [s.name for s in _children(spans, hole)] == ["gateway.approve"]


@pytest.mark.parametrize("call", SECRET_CALLS)
async def test_no_secret_reaches_any_span(call: ToolCall) -> None:
    """No attribute, status or span event holds a secret of the call."""
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("abstain"), StaticApprover("allow")], tracer_provider=provider
        ) as gateway:
            await gateway.review(call)
    spans = exporter.get_finished_spans()
    assert _named(spans, "gateway.review")
    text = " ".join(span.to_json() for span in spans)
    assert [secret for secret in SECRETS if secret in text] == []


async def test_concurrent_reviews_get_separate_traces() -> None:
    """Under concurrency each review is its own trace root, and its children stay with it."""
    provider, exporter = tracing()

    async def decide(request: ReviewRequest) -> Any:
        await anyio.lowlevel.checkpoint()
        return await StaticApprover("allow").review(request)

    with anyio.fail_after(BOUND):
        async with (
            Gateway(approvers=[Scripted("yielding", decide)], tracer_provider=provider) as gateway,
            anyio.create_task_group() as group,
        ):
            for index in range(30):
                group.start_soon(gateway.review, make_call(f"echo {index}", call_id=f"c{index}"))
    spans = exporter.get_finished_spans()
    reviews = _named(spans, "gateway.review")
    assert len(reviews) == 30
    assert all(review.parent is None for review in reviews)
    assert len({review.context.trace_id for review in reviews if review.context}) == 30
    by_trace = {review.context.trace_id: review for review in reviews if review.context}
    for span in spans:
        if span.name == "gateway.review":
            continue
        assert span.context is not None
        owner = by_trace[span.context.trace_id]
        assert owner.context is not None
        assert span.parent is not None
        assert span.parent.span_id == owner.context.span_id


async def test_each_gateway_traces_to_its_own_provider() -> None:
    """Two gateways with two providers: spans never cross."""
    first_provider, first_exporter = tracing()
    second_provider, second_exporter = tracing()
    with anyio.fail_after(BOUND):
        async with (
            Gateway(approvers=[StaticApprover("allow")], tracer_provider=first_provider) as one,
            Gateway(approvers=[StaticApprover("allow")], tracer_provider=second_provider) as two,
        ):
            await one.review(make_call("ls", call_id="one"))
            await two.review(make_call("ls", call_id="two"))
            await two.review(make_call("pwd", call_id="three"))
    ids = [
        sorted(
            _attributes(s)["gen_ai.tool.call.id"]
            for s in exporter.get_finished_spans()
            if s.name == "gateway.review"
        )
        for exporter in (first_exporter, second_exporter)
    ]
    assert ids == [["one"], ["three", "two"]]
