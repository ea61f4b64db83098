"""
Events (issue 5, "Events and sinks"): the required kinds, their common fields,
the hash chain and what breaks it, watchers, and keeping secrets out.
"""

from __future__ import annotations

import itertools
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from gateway_support import (
    BOUND,
    GITHUB_TOKEN,
    REQUIRED_EVENTS,
    SECRET_CALLS,
    SECRETS,
    Scripted,
    anyio_backend as anyio_backend,
    config,
    of_call,
    tag,
    tags,
    tracing,
)

from gateway import Allow, Gateway, ReviewRequest, ToolCall
from gateway._calls._events import GENESIS, event_digest
from gateway.audit import read_audit_log, verify_audit_log
from gateway.config import SinkConfig
from gateway.events import (
    CallOutcome,
    ChainGenesis,
    Event,
    GatewayStarted,
    GatewayStopped,
    PlanReady,
    VerdictReached,
    verify_chain,
)
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio

HOLES = "cat > notes.txt <<EOF\ntoday is $(date +%A)\nEOF"


class _AbstainThenFail:
    name = "picky"

    async def review(self, request: ReviewRequest) -> Any:
        if request.kind == "hole":
            raise RuntimeError("cannot judge holes")
        return await StaticApprover("abstain").review(request)


async def test_a_review_publishes_every_required_event_in_order() -> None:
    """call.proposed, plan.ready, hole.question, approver.decided, approver.failed, verdict.reached — in that order."""
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[_AbstainThenFail()], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call(HOLES, call_id="c"))
    assert verdict.decision == "decline"
    assert tags(of_call(sink.events, "c")) == list(REQUIRED_EVENTS)
    assert tags(sink.events) == [
        "chain.genesis",
        "gateway.started",
        *REQUIRED_EVENTS,
        "gateway.stopped",
    ]


async def test_every_event_has_seq_utc_time_call_and_trace_ids_digest_and_previous() -> None:
    """Sequence numbers count up from 0, times are UTC, ids are the review span's, digests chain."""
    provider, exporter = tracing()
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[_AbstainThenFail()], sinks={"memory": sink}, tracer_provider=provider
        ) as gateway:
            await gateway.review(make_call(HOLES, call_id="c1"))
            await gateway.review(ToolCall("read_file", {"path": "x"}, call_id="c2"))
    events = sink.events
    assert [e.seq for e in events] == list(range(len(events)))
    assert events[0].previous == GENESIS
    for before, event in itertools.pairwise(events):
        assert event.previous == before.digest
    for event in events:
        assert event.digest == event_digest(event)
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", event.digest)
        moment = datetime.fromisoformat(event.time)
        assert moment.utcoffset() == timedelta(0)
    reviews = {
        dict(s.attributes or {})["gen_ai.tool.call.id"]: s
        for s in exporter.get_finished_spans()
        if s.name == "gateway.review"
    }
    for call_id in ("c1", "c2"):
        context = reviews[call_id].get_span_context()
        assert context is not None
        for event in of_call(events, call_id):
            assert event.trace_id == format(context.trace_id, "032x")
            assert event.span_id == format(context.span_id, "016x")
    assert isinstance(events[0], ChainGenesis)
    assert (events[0].algorithm, events[0].key, events[0].signature) == ("none", None, "")
    assert isinstance(events[1], GatewayStarted)
    assert events[1].call_id is None
    assert events[1].approvers == ("picky",)
    assert events[1].sinks == ("memory",)
    assert isinstance(events[-1], GatewayStopped)
    assert events[-1].events == len(events)


async def test_event_times_come_from_the_injected_clock() -> None:
    """The clock is injected, like everything else a gateway uses."""
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")],
            sinks={"memory": sink},
            clock=lambda: "2030-01-02T03:04:05.000000+00:00",
        ) as gateway:
            await gateway.review(make_call("ls"))
    assert {e.time for e in sink.events} == {"2030-01-02T03:04:05.000000+00:00"}


async def test_events_without_a_recording_tracer_have_no_trace_ids() -> None:
    """Trace and span ids are only filled in when a span is really recorded."""
    from opentelemetry.trace import NoOpTracerProvider

    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("allow")],
            sinks={"memory": sink},
            tracer_provider=NoOpTracerProvider(),
        ) as gateway:
            await gateway.review(make_call("ls", call_id="c"))
    assert {(e.trace_id, e.span_id) for e in of_call(sink.events, "c")} == {(None, None)}


async def test_a_verdict_is_released_only_after_the_sink_wrote_it() -> None:
    """By the time `review` returns, the required sink holds the verdict.reached that justifies it."""
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"memory": sink}) as gateway:
            for index in range(5):
                verdict = await gateway.review(make_call("ls", call_id=f"c{index}"))
                last = sink.events[-1]
                assert isinstance(last, VerdictReached)
                assert last.verdict == verdict


# ── the hash chain ──


async def _write_log(path: Path) -> list[Event]:
    settings = config(sinks={"audit": SinkConfig(plugin="jsonl", path=str(path), required=True)})
    with anyio.fail_after(BOUND):
        async with Gateway(settings, approvers=[StaticApprover("allow")]) as gateway:
            for index, command in enumerate(["ls", "git status", HOLES, "pwd"]):
                await gateway.review(make_call(command, call_id=f"c{index}"))
    return list(read_audit_log(path))


async def test_the_hash_chain_of_an_audit_log_verifies(tmp_path: Path) -> None:
    """An untouched log verifies, and holds exactly what was published."""
    path = tmp_path / "audit.jsonl"
    events = await _write_log(path)
    assert verify_audit_log(path) is None
    assert verify_chain(events) is None
    assert tags(events)[:2] == ["chain.genesis", "gateway.started"]
    assert tags(events)[-1] == "gateway.stopped"


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


async def test_an_edited_record_breaks_the_chain_at_that_record(tmp_path: Path) -> None:
    """Turning a decline into an allow (or any other edit) no longer matches the record's digest."""
    path = tmp_path / "audit.jsonl"
    await _write_log(path)
    lines = _lines(path)
    index = next(i for i, line in enumerate(lines) if b'"verdict.reached"' in line)
    lines[index] = lines[index].replace(b'"static-allow allows', b'"static-allow ALLOWS')
    path.write_bytes(b"".join(lines))
    broken = verify_audit_log(path)
    assert broken is not None
    assert (broken.index, broken.reason) == (index, "its digest does not match its content")


async def test_an_edit_with_a_recomputed_digest_breaks_the_link_after_it(tmp_path: Path) -> None:
    """Rehashing the edited record does not help: the next record names the old digest."""
    path = tmp_path / "audit.jsonl"
    events = await _write_log(path)
    lines = _lines(path)
    index = next(i for i, e in enumerate(events) if isinstance(e, VerdictReached))
    event = events[index]
    assert isinstance(event, VerdictReached)
    forged = msgspec.structs.replace(
        event, verdict=msgspec.structs.replace(event.verdict, decision="decline")
    )
    forged = msgspec.structs.replace(forged, digest=event_digest(forged))
    lines[index] = msgspec.json.encode(forged) + b"\n"
    path.write_bytes(b"".join(lines))
    broken = verify_audit_log(path)
    assert broken is not None
    assert broken.index == index + 1
    assert broken.reason == "it does not name the digest of the event before it"


async def test_reordered_records_break_the_chain(tmp_path: Path) -> None:
    """Swapping two records is detected at the first one out of place."""
    path = tmp_path / "audit.jsonl"
    await _write_log(path)
    lines = _lines(path)
    lines[3], lines[4] = lines[4], lines[3]
    path.write_bytes(b"".join(lines))
    broken = verify_audit_log(path)
    assert broken is not None
    assert broken.index == 3


@pytest.mark.parametrize("cut", ["last", "middle", "half-a-line"])
async def test_a_truncated_log_is_detected(tmp_path: Path, cut: str) -> None:
    """A log that lost records at its end, in its middle, or half a record, does not verify."""
    path = tmp_path / "audit.jsonl"
    await _write_log(path)
    lines = _lines(path)
    if cut == "last":
        kept = lines[:-1]
    elif cut == "middle":
        kept = lines[:5] + lines[6:]
    else:
        kept = [*lines[:-1], lines[-1][: len(lines[-1]) // 2]]
    path.write_bytes(b"".join(kept))
    broken = verify_audit_log(path)
    assert broken is not None
    if cut == "last":
        assert broken.reason == (
            "the log ends without a gateway.stopped record and no gateway is writing it"
        )
        # A log still being written may be checked as far as it goes.
        assert verify_audit_log(path, allow_open=True) is None
    elif cut == "middle":
        assert broken.index == 5
    else:
        # A record cut in half is what a crash mid-write leaves: said so.
        assert broken.index == len(lines) - 1
        assert broken.reason.endswith("bytes are a record cut short")


async def test_verify_chain_checks_sequence_numbers_and_links() -> None:
    """The in-memory check: any event dropped, repeated or moved breaks the chain."""
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"memory": sink}) as gateway:
            await gateway.review(make_call("ls"))
    events = sink.events
    assert verify_chain(events) is None
    assert verify_chain(events[3:]) is None  # a chain may start anywhere
    dropped = verify_chain(events[:2] + events[3:])
    assert dropped is not None
    assert dropped.index == 2
    repeated = verify_chain([*events[:3], events[2], *events[3:]])
    assert repeated is not None
    assert repeated.index == 3


# ── watchers and outcomes ──


async def test_a_watcher_sees_every_event_as_it_is_published() -> None:
    """`Gateway.subscribe` streams the same events, in the same order, as the sinks get."""
    sink = MemorySink()
    seen: list[Event] = []
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"memory": sink}) as gateway:
            async with gateway.subscribe() as stream:
                await gateway.review(make_call(HOLES, call_id="w"))
                while not seen or not isinstance(seen[-1], VerdictReached):
                    seen.append(await stream.receive())
            assert gateway.bus.statistics().watchers == 0
    assert seen == of_call(sink.events, "w")


async def test_a_watcher_that_falls_behind_is_cut_off_without_slowing_reviews() -> None:
    """A watcher with a full buffer is dropped; reviews carry on."""
    with anyio.fail_after(BOUND):
        async with (
            Gateway(approvers=[StaticApprover("allow")]) as gateway,
            gateway.subscribe(buffer=1) as stream,
        ):
            for index in range(3):
                assert (await gateway.review(make_call("ls", call_id=f"c{index}"))).allowed
            first = await stream.receive()
            with pytest.raises(anyio.EndOfStream):
                await stream.receive()
    assert tag(first) == "call.proposed"


async def test_outcomes_are_recorded_with_secrets_masked() -> None:
    """What the host did with a call is an event too; an unknown outcome is recorded as unknown."""
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"memory": sink}) as gateway:
            await gateway.record_outcome("c", "succeeded", f"export TOKEN={GITHUB_TOKEN}")
            await gateway.record_outcome("c", "exploded")
    outcomes = [e for e in sink.events if isinstance(e, CallOutcome)]
    assert [(o.call_id, o.outcome) for o in outcomes] == [("c", "succeeded"), ("c", "unknown")]
    assert outcomes[0].detail == "export TOKEN=<github-token>"


# ── secrets ──


@pytest.mark.parametrize("call", SECRET_CALLS)
async def test_no_secret_of_a_call_reaches_any_event(call: ToolCall, tmp_path: Path) -> None:
    """Neither the audit log nor the approvers see a secret the call carried."""
    path = tmp_path / "audit.jsonl"
    settings = config(sinks={"audit": SinkConfig(plugin="jsonl", path=str(path), required=True)})
    approver = StaticApprover("allow")
    with anyio.fail_after(BOUND):
        async with Gateway(settings, approvers=[approver]) as gateway:
            verdict = await gateway.review(call)
    text = path.read_text(encoding="utf-8")
    assert verify_audit_log(path) is None
    seen = msgspec.json.encode(approver.requests).decode()
    leaked = [s for s in SECRETS if s in text or s in seen or s in verdict.reason]
    assert leaked == []
    assert tags(read_audit_log(path))[2:4] == ["call.proposed", "plan.ready"]


async def test_answers_with_secrets_are_recorded_by_digest_and_masked_for_approvers() -> None:
    """The output of a hole never enters an event; approvers see the body with secrets masked."""
    sink = MemorySink()
    approver = StaticApprover("allow")
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
            await gateway.review(
                make_call("cat > .env <<EOF\nTOKEN=$(vault read -field=t x)\nEOF", call_id="s")
            )
            await gateway.answer("s", 0, 0, {0: GITHUB_TOKEN})
    body = approver.requests[-1].body
    assert body == "TOKEN=<github-token>\n"
    text = msgspec.json.encode(sink.events).decode()
    assert GITHUB_TOKEN not in text


async def test_plan_ready_carries_the_plan_or_the_unmeasured_reason() -> None:
    """plan.ready holds the (redacted) plan and its digest, or the reason the text could not be read."""
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("abstain")], sinks={"memory": sink}
        ) as gateway:
            measured = await gateway.review(make_call("ls | wc -l", call_id="m"))
            unmeasured = await gateway.review(make_call("echo $(date", call_id="u"))
    ready = {e.call_id: e for e in sink.events if isinstance(e, PlanReady)}
    assert ready["m"].plan is not None
    assert ready["m"].plan.status == "measured"
    assert ready["m"].plan_digest == measured.digest == ready["m"].plan.digest
    assert ready["m"].commands == 2
    assert ready["u"].plan is not None
    assert ready["u"].plan.status == "unmeasured"
    assert ready["u"].plan.reason
    assert ready["u"].plan_digest == unmeasured.digest


async def test_an_allow_is_recorded_with_the_rule_that_decided() -> None:
    """approver.decided records the answer as given: decision, reason and rule."""
    sink = MemorySink()

    async def ruled(request: ReviewRequest) -> Allow:
        return Allow(reason="Read-only listing.", rule="ls")

    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[Scripted("rules", ruled)], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call("ls", call_id="r"))
    decided = of_call(sink.events, "r")[2]
    assert msgspec.to_builtins(decided)["approver"] == "rules"
    assert (verdict.approver, verdict.rule, verdict.reason) == ("rules", "ls", "Read-only listing.")
