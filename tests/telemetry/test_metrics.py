"""
Metrics through the OpenTelemetry API, read with the SDK's in-memory reader: every
instrument the gateway declares is recorded where it happens, with few attribute values.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from gateway import Gateway, GatewayConfig, ToolCall
from gateway._observe._metrics import METRICS, Metrics, prometheus_names
from gateway.config import GatewaySection
from gateway.testing import MemorySink, StaticApprover, make_call
from telemetry.support import BOUND, metering, points

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_review_is_timed_and_its_verdict_counted_by_decision_rule_and_approver() -> None:
    provider, reader = metering()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[
                StaticApprover("abstain", name="first"),
                StaticApprover("decline", name="no"),
            ],
            meter_provider=provider,
        ) as gateway:
            await gateway.review(make_call("ls"))
            await gateway.review(make_call("pwd"))
    found = points(reader)
    (verdicts,) = found["agent_gateway.verdicts"]
    assert verdicts.value == 2
    assert dict(verdicts.attributes) == {
        "gen_ai.guardrail.result.value": "decline",
        "gen_ai.guardrail.policy.id": "static",
        "agent_gateway.approver.name": "no",
        "agent_gateway.mode": "enforce",
    }
    (duration,) = found["agent_gateway.review.duration"]
    assert duration.count == 2
    assert duration.sum > 0
    assert dict(duration.attributes) == {
        "gen_ai.guardrail.result.value": "decline",
        "agent_gateway.mode": "enforce",
    }
    # Seconds, with bounds that fit a review (the SDK's defaults are for milliseconds).
    assert duration.explicit_bounds[0] == 0.0005
    approvers = found["agent_gateway.approver.duration"]
    assert sorted(point.attributes["agent_gateway.approver.name"] for point in approvers) == [
        "first",
        "no",
    ]
    assert "agent_gateway.approver.failures" not in found


@pytest.mark.parametrize(
    ("approver", "kind"),
    [
        pytest.param(
            StaticApprover("allow", name="x", raises=RuntimeError("boom")), "exception", id="raises"
        ),
        pytest.param(
            StaticApprover("allow", name="x", returns="yes"), "wrong_type", id="wrong-type"
        ),
        pytest.param(StaticApprover("allow", name="x", delay=5.0), "timeout", id="timeout"),
    ],
)
async def test_an_approver_failure_is_counted_by_kind(approver: StaticApprover, kind: str) -> None:
    provider, reader = metering()
    config = GatewayConfig(gateway=GatewaySection(approver_timeout=0.05))
    with anyio.fail_after(BOUND):
        async with Gateway(config, approvers=[approver], meter_provider=provider) as gateway:
            verdict = await gateway.review(make_call("ls"))
    assert verdict.decision == "decline"
    (failures,) = points(reader)["agent_gateway.approver.failures"]
    assert failures.value == 1
    assert dict(failures.attributes) == {"agent_gateway.approver.name": "x", "error.type": kind}


async def test_unmeasured_calls_are_counted_by_kind_of_reason_not_by_sentence() -> None:
    provider, reader = metering()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("abstain")], meter_provider=provider
        ) as gateway:
            await gateway.review(make_call("echo $(date"))
            await gateway.review(make_call("echo 'open"))
            await gateway.review(make_call("ls"))
    (unmeasured,) = points(reader)["agent_gateway.plan.unmeasured"]
    assert unmeasured.value == 2
    assert dict(unmeasured.attributes) == {"agent_gateway.plan.unmeasured_kind": "parse_error"}


async def test_questions_waiting_for_a_person_are_a_gauge_and_their_wait_is_timed() -> None:
    """While a person-role approver is asked the gauge is 1; after, 0, and the wait is recorded."""
    provider, reader = metering()
    release = anyio.Event()
    asked = anyio.Event()
    seen: list[int] = []

    class Person:
        name = "human"
        role = "person"
        shares_loop = True  # it waits on this loop's events
        reviews_raw_text = True

        async def review(self, request: Any) -> Any:
            (waiting,) = points(reader)["agent_gateway.human.waiting"]
            seen.append(waiting.value)
            asked.set()
            await release.wait()
            return await StaticApprover("allow").review(request)

    with anyio.fail_after(BOUND):
        async with (
            Gateway(approvers=[Person()], meter_provider=provider) as gateway,
            anyio.create_task_group() as group,
        ):
            group.start_soon(gateway.review, make_call("ls"))
            await asked.wait()
            release.set()
    assert seen == [1]
    found = points(reader)
    (waiting,) = found["agent_gateway.human.waiting"]
    assert waiting.value == 0
    (waited,) = found["agent_gateway.human.wait.duration"]
    assert waited.count == 1
    assert dict(waited.attributes) == {"agent_gateway.approver.decision": "allow"}
    assert waited.explicit_bounds[0] == 1.0


async def test_the_audit_write_is_timed_when_a_sink_is_required() -> None:
    provider, reader = metering()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")],
            sinks={"audit": MemorySink()},
            meter_provider=provider,
        ) as gateway:
            await gateway.review(make_call("ls"))
            await gateway.review(ToolCall("read_file", {"path": "x"}))
    (written,) = points(reader)["agent_gateway.audit.write.duration"]
    assert written.count == 2
    assert dict(written.attributes) == {"agent_gateway.audit.outcome": "written"}


async def test_a_meter_provider_that_raises_never_breaks_a_review() -> None:
    class Broken:
        def get_meter(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("broken")

    with anyio.fail_after(BOUND):
        broken: Any = Broken()
        async with Gateway(approvers=[StaticApprover("allow")], meter_provider=broken) as gateway:
            verdict = await gateway.review(make_call("ls"))
    assert verdict.decision == "allow"


def test_every_instrument_is_created_with_its_declared_unit() -> None:
    provider, _ = metering()
    Metrics(provider)
    names = {metric.name for metric in METRICS}
    assert len(names) == len(METRICS)
    for metric in METRICS:
        assert metric.unit in ("s", "{verdict}", "{question}", "{failure}", "{call}")
        assert all(name.startswith("agent_gateway_") for name in prometheus_names(metric))


def test_prometheus_names_follow_the_compatibility_rules() -> None:
    (duration,) = [m for m in METRICS if m.name == "agent_gateway.review.duration"]
    assert prometheus_names(duration) == (
        "agent_gateway_review_duration_seconds_bucket",
        "agent_gateway_review_duration_seconds_sum",
        "agent_gateway_review_duration_seconds_count",
    )
    (verdicts,) = [m for m in METRICS if m.name == "agent_gateway.verdicts"]
    assert prometheus_names(verdicts) == ("agent_gateway_verdicts_total",)
    (waiting,) = [m for m in METRICS if m.name == "agent_gateway.human.waiting"]
    assert prometheus_names(waiting) == ("agent_gateway_human_waiting",)
