"""
Traces as backends read them: the outcome joins its review's trace, a caller's
trace context is the review's parent, a person's decision is on its approve span,
and every attribute set is one the table in docs/audit.md declares.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_relay._remote import trace_headers as relay_trace_headers
from opentelemetry.trace import SpanKind

from gateway import Allow, Gateway, ReviewRequest, ToolCall
from gateway._observe._telemetry import (
    ATTRIBUTES,
    SEMCONV,
    SPANS,
    attribute_table,
    trace_headers,
    unmeasured_kind,
)
from gateway.events import CallOutcome, HostDecided, trace_context
from gateway.testing import StaticApprover, make_call
from telemetry.support import BOUND, attributes, named, tracing

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_outcome_of_a_call_is_a_child_of_its_review_span() -> None:
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with (
            Gateway(approvers=[StaticApprover("allow")], tracer_provider=provider) as gateway,
            gateway.subscribe() as events,
        ):
            await gateway.review(make_call("ls", call_id="c1"))
            await gateway.record_outcome("c1", "succeeded")
            outcome_event = None
            async for event in events:
                if isinstance(event, CallOutcome):
                    outcome_event = event
                    break
    spans = exporter.get_finished_spans()
    (review,) = named(spans, "gateway.review")
    (outcome,) = named(spans, "gateway.outcome")
    assert review.context is not None
    assert outcome.context is not None
    assert outcome.context.trace_id == review.context.trace_id
    assert outcome.parent is not None
    assert outcome.parent.span_id == review.context.span_id
    assert attributes(outcome) == {
        "agent_gateway.outcome": "succeeded",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.name": "Bash",
    }
    # The audit log joins too: the event carries the outcome span's ids.
    assert outcome_event is not None
    assert outcome_event.trace_id == format(review.context.trace_id, "032x")
    assert outcome_event.span_id == format(outcome.context.span_id, "016x")


async def test_a_persons_answer_inside_the_host_joins_the_review_trace() -> None:
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with (
            Gateway(approvers=[StaticApprover("abstain")], tracer_provider=provider) as gateway,
            gateway.subscribe() as events,
        ):
            await gateway.review(make_call("rm -rf build", call_id="d1"))
            await gateway.record_decision("d1", "allow", host="claude-agent-sdk")
            # Words outside the vocabulary are recorded as the strict ones.
            await gateway.record_decision("d1", "maybe", by="the dog")
            decided = []
            async for event in events:
                if isinstance(event, HostDecided):
                    decided.append(event)
                    if len(decided) == 2:
                        break
    spans = exporter.get_finished_spans()
    (review,) = named(spans, "gateway.review")
    assert review.context is not None
    first, second = named(spans, "gateway.host_decision")
    for span in (first, second):
        assert span.context is not None
        assert span.context.trace_id == review.context.trace_id
        assert span.parent is not None
        assert span.parent.span_id == review.context.span_id
    assert attributes(first) == {
        "agent_gateway.host.decision": "allow",
        "agent_gateway.host.decided_by": "person",
        "agent_gateway.host.name": "claude-agent-sdk",
        "gen_ai.tool.call.id": "d1",
        "gen_ai.tool.name": "Bash",
    }
    assert attributes(second)["agent_gateway.host.decision"] == "decline"
    assert attributes(second)["agent_gateway.host.decided_by"] == "failed"
    assert "agent_gateway.host.name" not in attributes(second)
    assert first.context is not None
    assert decided[0].trace_id == format(review.context.trace_id, "032x")
    assert decided[0].span_id == format(first.context.span_id, "016x")


async def test_an_outcome_reported_inside_the_hosts_trace_links_it() -> None:
    provider, exporter = tracing()
    host_provider, _ = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")], tracer_provider=provider
        ) as gateway:
            await gateway.review(make_call("ls", call_id="c1"))
            with host_provider.get_tracer("host").start_as_current_span("post-tool-use") as host:
                await gateway.record_outcome("c1", "failed")
    (outcome,) = named(exporter.get_finished_spans(), "gateway.outcome")
    assert [link.context.span_id for link in outcome.links] == [host.get_span_context().span_id]


async def test_an_outcome_of_a_call_the_gateway_does_not_remember_is_its_own_span() -> None:
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")], tracer_provider=provider
        ) as gateway:
            await gateway.record_outcome("never-seen", "weird")
    (outcome,) = named(exporter.get_finished_spans(), "gateway.outcome")
    assert outcome.parent is None
    assert attributes(outcome) == {
        "agent_gateway.outcome": "unknown",
        "gen_ai.tool.call.id": "never-seen",
    }


async def test_a_review_inside_a_hosts_span_is_its_child() -> None:
    """An SDK adapter reviews in the host's task: the host's current span is the parent."""
    provider, exporter = tracing()
    host_provider, _ = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")], tracer_provider=provider
        ) as gateway:
            with host_provider.get_tracer("host").start_as_current_span("agent-turn") as host:
                await gateway.review(make_call("ls"))
    (review,) = named(exporter.get_finished_spans(), "gateway.review")
    assert review.parent is not None
    assert review.parent.span_id == host.get_span_context().span_id
    assert review.kind is SpanKind.INTERNAL


async def test_a_review_under_a_traceparent_joins_the_callers_trace() -> None:
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")], tracer_provider=provider
        ) as gateway:
            with trace_context({"traceparent": TRACEPARENT, "baggage": "user=alice"}):
                await gateway.review(make_call("ls"))
            await gateway.review(make_call("pwd"))
    first, second = named(exporter.get_finished_spans(), "gateway.review")
    assert first.context is not None
    assert format(first.context.trace_id, "032x") == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert first.parent is not None
    assert first.parent.is_remote
    assert format(first.parent.span_id, "016x") == "00f067aa0ba902b7"
    # Outside the block, the context is gone again.
    assert second.parent is None


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="none"),
        pytest.param({"traceparent": "garbage"}, id="garbage"),
        pytest.param(
            {"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
            id="zero-trace",
        ),
        pytest.param(
            {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"},
            id="zero-span",
        ),
        pytest.param({"traceparent": "ff" + TRACEPARENT[2:]}, id="forbidden-version"),
        pytest.param({"traceparent": "x" * 100_000}, id="huge"),
    ],
)
async def test_an_invalid_traceparent_changes_nothing(headers: dict[str, str]) -> None:
    provider, exporter = tracing()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")], tracer_provider=provider
        ) as gateway:
            with trace_context(headers):
                verdict = await gateway.review(make_call("ls"))
    assert verdict.decision == "allow"
    (review,) = named(exporter.get_finished_spans(), "gateway.review")
    assert review.parent is None
    assert trace_headers(headers) == {}


@pytest.mark.parametrize(
    ("environ", "sent"),
    [
        ({"TRACEPARENT": TRACEPARENT}, {"traceparent": TRACEPARENT}),
        (
            {"TRACEPARENT": TRACEPARENT, "TRACESTATE": "vendor=1"},
            {"traceparent": TRACEPARENT, "tracestate": "vendor=1"},
        ),
        ({"TRACESTATE": "vendor=1"}, {}),
        ({}, {}),
        # Nothing that could split a header, nothing unbounded.
        ({"TRACEPARENT": TRACEPARENT + "\r\nx-evil: 1"}, {}),
        ({"TRACEPARENT": "0" * 513}, {}),
        ({"TRACEPARENT": "\u00e9t\u00e9"}, {}),
        ({"TRACEPARENT": TRACEPARENT, "TRACESTATE": "a=\nb"}, {"traceparent": TRACEPARENT}),
    ],
)
def test_the_hook_process_sends_the_hosts_trace_context_as_headers(
    environ: dict[str, str], sent: dict[str, str]
) -> None:
    """``gateway-hook --server`` (standard library only) sends it; the service validates it."""
    assert relay_trace_headers(environ) == sent


def test_docs_audit_lists_every_span() -> None:
    text = (ROOT / "docs" / "audit.md").read_text(encoding="utf-8")
    for name, meaning in SPANS.items():
        assert f"| `{name}` | {meaning} |" in text, name


def test_trace_headers_read_an_environment_carrier() -> None:
    assert trace_headers({"TRACEPARENT": TRACEPARENT, "TRACESTATE": "vendor=1", "HOME": "/x"}) == {
        "traceparent": TRACEPARENT,
        "tracestate": "vendor=1",
    }


async def test_a_persons_decision_scope_and_wait_are_on_their_approve_span() -> None:
    provider, exporter = tracing()

    class Person:
        name = "human"
        role = "person"
        reviews_raw_text = True

        async def review(self, request: ReviewRequest) -> Any:
            return Allow(reason="Fine by me.", rule="human.session", decided_by="alice")

    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("abstain"), Person()], tracer_provider=provider
        ) as gateway:
            verdict = await gateway.review(make_call("ls", call_id="p"))
    spans = exporter.get_finished_spans()
    person = [
        s
        for s in named(spans, "gateway.approve")
        if attributes(s)["agent_gateway.approver.name"] == "human"
    ]
    (approve,) = person
    found = attributes(approve)
    assert found["agent_gateway.approver.role"] == "person"
    assert found["agent_gateway.human.decided_by"] == "alice"
    assert found["agent_gateway.human.scope"] == "session"
    assert found["agent_gateway.human.wait"] >= 0
    (review,) = named(spans, "gateway.review")
    assert attributes(review)["agent_gateway.human.decided_by"] == verdict.decided_by == "alice"
    assert attributes(review)["gen_ai.guardrail.policy.id"] == "human.session"


async def test_a_tracer_provider_that_raises_never_breaks_a_review() -> None:
    class Broken:
        def get_tracer(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("broken")

    with anyio.fail_after(BOUND):
        broken: Any = Broken()
        async with Gateway(approvers=[StaticApprover("allow")], tracer_provider=broken) as gateway:
            verdict = await gateway.review(make_call("ls", call_id="b"))
            await gateway.record_outcome("b", "succeeded")
    assert verdict.decision == "allow"


async def test_every_attribute_set_is_declared_for_the_span_that_carries_it() -> None:
    """Run reviews that touch every span; each attribute found is in `ATTRIBUTES` for that span."""
    provider, exporter = tracing()
    declared = {item.name: set(item.spans) for item in ATTRIBUTES}
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("abstain"), StaticApprover("allow", name="ok")],
            tracer_provider=provider,
        ) as gateway:
            await gateway.review(
                make_call("cat > n <<EOF\n$(date)\nEOF", call_id="h", session_id="s")
            )
            await gateway.answer("h", 0, 0, {0: "Monday"})
            await gateway.review(make_call("echo $(date", call_id="u"))
            await gateway.review(ToolCall("read_file", {"path": "x"}, call_id="r"))
            await gateway.record_outcome("h", "succeeded")
            await gateway.record_decision("u", "decline", by="timeout", host="langchain")
    spans = exporter.get_finished_spans()
    assert {span.name for span in spans} == set(SPANS)
    for span in spans:
        for key in attributes(span):
            assert span.name in declared.get(key, set()), (span.name, key)


def test_unmeasured_kinds_cover_the_readers_reasons() -> None:
    """Every reason the conformance cases produce falls in a named kind, not `other`."""
    import json

    from gateway.plans import plan_program

    cases = ROOT / "tests" / "data" / "conformance" / "seed_cases.jsonl"
    reasons = set()
    for line in cases.read_text(encoding="utf-8").splitlines():
        source = json.loads(line).get("input", {}).get("source")
        if isinstance(source, str):
            plan = plan_program(source)
            if plan.status != "measured":
                reasons.add(plan.reason)
    assert reasons
    assert [reason for reason in reasons if unmeasured_kind(reason) == "other"] == []


def test_docs_audit_shows_the_attribute_table_made_from_the_code() -> None:
    text = (ROOT / "docs" / "audit.md").read_text(encoding="utf-8")
    match = re.search(
        r"<!-- span-attributes: begin -->\n(.*?)<!-- span-attributes: end -->", text, re.DOTALL
    )
    assert match is not None, "docs/audit.md has no generated span-attribute table"
    assert match.group(1) == attribute_table(), (
        "docs/audit.md's span-attribute table is out of date; paste gateway._observe._telemetry.attribute_table()"
    )
    assert "semantic-conventions-genai commit f5e3733" in SEMCONV
    assert "f5e3733" in text
