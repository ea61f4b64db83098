"""
The fault suite (issue 5, "What must be shown"): approvers that hang, raise,
return garbage or are slow; sinks that fail or block; reviews cancelled
mid-way. Nothing becomes an allow, every call gets a verdict within its
bounds, the gateway keeps serving, and the process never dies.
"""

from __future__ import annotations

from typing import Any, Final

import anyio
import msgspec
import pytest
from gateway_support import (
    BOUND,
    FailingAfterSink,
    GatedSink,
    anyio_backend as anyio_backend,
    config,
    of_call,
    tags,
)

from gateway import Abstain, Allow, Decline, Gateway, ReviewRequest, ToolCall, Verdict
from gateway.events import ApproverFailed, VerdictReached, verify_chain
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio

FAST: Final = 0.2
"""The timeout the faulty approver runs under, in seconds."""


class Faulty:
    """
    An approver whose behaviour the call's command names.

    ``ok`` allows; ``hang`` never answers; ``stubborn`` swallows the timeout's
    cancellation and allows anyway; ``slow`` allows after a short sleep;
    ``raise`` raises `error`; ``garbage`` returns `garbage`.
    """

    name = "faulty"
    shares_loop = True

    def __init__(self, *, timeout: float = FAST) -> None:
        self.timeout = timeout
        self.error: BaseException = RuntimeError("boom")
        self.garbage: Any = None
        self.entered = anyio.Event()

    async def review(self, request: ReviewRequest) -> Any:
        self.entered.set()
        command = request.call.input.get("command")
        if command == "hang":
            await anyio.sleep_forever()
        if command == "stubborn":
            try:
                await anyio.sleep_forever()
            except anyio.get_cancelled_exc_class():
                return Allow(reason="Too late, but allowed.")
        if command == "slow":
            await anyio.sleep(0.01)
        if command == "raise":
            raise self.error
        if command == "garbage":
            return self.garbage
        return Allow(reason="Fine.", rule="ok")


def _chain(faulty: Faulty) -> tuple[Faulty, StaticApprover]:
    """The faulty approver, then one that would allow anything it is asked."""
    return faulty, StaticApprover("allow", name="after")


async def _still_serves(gateway: Gateway) -> None:
    """A healthy call after the fault is allowed as usual."""
    verdict = await gateway.review(make_call("ok"))
    assert (verdict.decision, verdict.approver) == ("allow", "faulty")


async def test_an_approver_that_hangs_is_declined_at_its_timeout() -> None:
    """A hanging approver costs its timeout, then the call is declined and approver.failed is recorded."""
    faulty = Faulty()
    after = StaticApprover("allow", name="after")
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[faulty, after], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call("hang", call_id="h"))
            await _still_serves(gateway)
    assert verdict.decision == "decline"
    assert verdict.approver == "faulty"
    assert verdict.reason == (
        f"Approver 'faulty' did not answer within {FAST:g} s, and the gateway fails closed."
    )
    assert after.requests == []
    (failed,) = [e for e in of_call(sink.events, "h") if isinstance(e, ApproverFailed)]
    assert (failed.approver, failed.reason) == ("faulty", verdict.reason)


async def test_an_approver_that_swallows_its_timeout_and_allows_late_is_declined() -> None:
    """
    An answer given after the deadline never counts, even when the approver
    caught the cancellation and returned normally.

    Regression: `anyio.fail_after` raises only when the cancellation escapes,
    so a late Allow from such an approver used to be taken as given.
    """
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=_chain(Faulty()), sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call("stubborn", call_id="s"))
            await _still_serves(gateway)
    assert verdict.decision == "decline"
    assert "did not answer within" in verdict.reason
    assert "approver.failed" in tags(of_call(sink.events, "s"))


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("boom"),
        ValueError("bad value"),
        KeyError("missing"),
        AttributeError("no such attribute"),
        ZeroDivisionError("division by zero"),
        OSError("connection reset"),
        RecursionError("too deep"),
        NotImplementedError(),
        TimeoutError("its own timeout"),
        msgspec.ValidationError("bad data"),
        ExceptionGroup("several", [ValueError("a"), KeyError("b")]),
        SystemExit(0),
        SystemExit(3),
    ],
    ids=lambda error: (
        type(error).__name__ + (f"-{error.code}" if isinstance(error, SystemExit) else "")
    ),
)
async def test_an_approver_that_raises_is_declined_and_the_process_lives(
    error: BaseException,
) -> None:
    """Any exception, and SystemExit, from an approver is a decline plus approver.failed; nothing escapes review."""
    faulty = Faulty()
    faulty.error = error
    chain = _chain(faulty)
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=chain, sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call("raise", call_id="r"))
            await _still_serves(gateway)
    assert verdict.decision == "decline"
    assert verdict.approver == "faulty"
    assert chain[1].requests == []
    (failed,) = [e for e in of_call(sink.events, "r") if isinstance(e, ApproverFailed)]
    assert failed.reason == verdict.reason
    if isinstance(error, TimeoutError):
        assert verdict.reason.endswith("and the gateway fails closed.")
    else:
        assert verdict.reason == (
            f"Approver 'faulty' failed ({type(error).__name__}), and the gateway fails closed."
        )


@pytest.mark.parametrize(
    ("garbage", "reason"),
    [
        (None, "answered 'NoneType', not Allow, Decline or Abstain"),
        ("allow", "answered 'str', not Allow, Decline or Abstain"),
        ({"decision": "allow", "reason": "ok"}, "answered 'dict', not Allow, Decline or Abstain"),
        (1, "answered 'int', not Allow, Decline or Abstain"),
        (True, "answered 'bool', not Allow, Decline or Abstain"),
        (Allow, "answered 'StructMeta', not Allow, Decline or Abstain"),
        ([Allow(reason="ok")], "answered 'list', not Allow, Decline or Abstain"),
        (
            Verdict(decision="allow", reason="ok", digest="sha256:0"),
            "answered 'Verdict', not Allow, Decline or Abstain",
        ),
        # Regression: Structs do not check types when built, so these were
        # taken as given (an allow!) and written to the audit log as records
        # no reader can decode.
        (Allow(reason="ok", rule=42), "answered a malformed Allow (a field of the wrong type)"),  # type: ignore[arg-type]
        (Allow(reason=None), "answered a malformed Allow (a field of the wrong type)"),  # type: ignore[arg-type]
        (
            Allow(reason="ok", rule=object()),  # type: ignore[arg-type]
            "answered a malformed Allow (a field of the wrong type)",
        ),
        (Decline(reason=b"bytes"), "answered a malformed Decline (a field of the wrong type)"),  # type: ignore[arg-type]
        (Abstain(reason=3), "answered a malformed Abstain (a field of the wrong type)"),  # type: ignore[arg-type]
    ],
    ids=[
        "None",
        "string",
        "dict",
        "int",
        "bool",
        "class",
        "list",
        "verdict",
        "allow-with-int-rule",
        "allow-with-null-reason",
        "allow-with-object-rule",
        "decline-with-bytes",
        "abstain-with-int",
    ],
)
async def test_an_approver_that_returns_garbage_is_declined(garbage: Any, reason: str) -> None:
    """Anything but a well-formed Allow, Decline or Abstain is a decline plus approver.failed; the log stays readable."""
    faulty = Faulty()
    faulty.garbage = garbage
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=_chain(faulty), sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(make_call("garbage", call_id="g"))
            await _still_serves(gateway)
    assert verdict.decision == "decline"
    assert verdict.reason == f"Approver 'faulty' {reason}, and the gateway fails closed."
    assert "approver.failed" in tags(of_call(sink.events, "g"))
    # Every record still decodes: the garbage never reached the log.
    for event in sink.events:
        assert msgspec.json.decode(msgspec.json.encode(event), type=type(event)) == event


async def test_slow_approvers_answer_many_concurrent_calls() -> None:
    """A slow approver within its timeout delays verdicts but changes none of them."""
    verdicts: list[Verdict] = []
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=_chain(Faulty(timeout=5.0))) as gateway:

            async def one(index: int) -> None:
                verdicts.append(await gateway.review(make_call("slow", call_id=f"s{index}")))

            async with anyio.create_task_group() as group:
                for index in range(25):
                    group.start_soon(one, index)
    assert len(verdicts) == 25
    assert {(v.decision, v.approver) for v in verdicts} == {("allow", "faulty")}


# ── sinks ──

NO_AUDIT: Final = "there is no action without audit."


async def test_a_sink_that_fails_turns_every_verdict_into_a_decline() -> None:
    """No audit, no action: an OSError from the required sink declines the call, and every later one."""
    sink = MemorySink(fail=True)
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"memory": sink}) as gateway:
            first = await gateway.review(make_call("ls"))
            second = await gateway.review(ToolCall("read_file", {"path": "x"}))
            statistics = gateway.statistics()
    failed = "sink 'memory' failed to write (OSError: the disk is full)"
    assert first.reason == f"The audit record could not be written ({failed}), and {NO_AUDIT}"
    # From then on the gateway is halted: it does not even read the call.
    assert second.reason == (
        f"The audit log failed ({failed}), so until the gateway restarts every call is declined: {NO_AUDIT}"
    )
    for verdict in (first, second):
        assert verdict.decision == "decline"
        assert verdict.approver is None
    assert statistics.failed_sinks == ("memory",)
    assert (statistics.reviews, statistics.allowed, statistics.declined) == (2, 0, 2)


async def test_a_sink_that_fails_mid_way_declines_from_then_on() -> None:
    """Calls whose records were written are allowed; once the sink fails, calls are declined."""
    sink = FailingAfterSink(good=6)  # chain.genesis, gateway.started, the first call's four events
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"memory": sink}) as gateway:
            first = await gateway.review(make_call("ls", call_id="a"))
            second = await gateway.review(make_call("ls", call_id="b"))
    assert first.decision == "allow"
    assert second.decision == "decline"
    assert second.reason.endswith(NO_AUDIT)
    assert tags(of_call(sink.events, "a"))[-1] == "verdict.reached"
    assert verify_chain(sink.events) is None


async def test_a_sink_that_blocks_forever_declines_within_the_audit_timeout() -> None:
    """
    A blocked sink costs at most the audit timeout per call, the verdict is a
    decline, and the gateway still closes.

    Regression: the sink's task stayed blocked in `write` after the gateway
    closed its stream, so ``async with Gateway`` never exited.
    """
    sink = MemorySink(block=True)
    settings = config(audit_timeout=0.1, event_buffer=2)
    verdicts: list[Verdict] = []
    with anyio.fail_after(BOUND):
        async with Gateway(
            settings, approvers=[StaticApprover("allow")], sinks={"memory": sink}
        ) as gateway:
            verdicts.extend(
                [await gateway.review(make_call("ls", call_id=f"c{i}")) for i in range(4)]
            )
            statistics = gateway.statistics()
    assert [v.decision for v in verdicts] == ["decline"] * 4
    assert all(v.reason.endswith(NO_AUDIT) for v in verdicts)
    assert statistics.failed_sinks == ("memory",)
    assert sink.events == []


async def test_a_gateway_whose_sink_blocks_only_at_the_end_still_closes() -> None:
    """A sink that stops writing after the last verdict is given the audit timeout to drain, then stopped."""
    sink = GatedSink()
    sink.gate.set()
    settings = config(audit_timeout=0.1)
    with anyio.fail_after(BOUND):
        async with Gateway(
            settings, approvers=[StaticApprover("allow")], sinks={"memory": sink}
        ) as gateway:
            verdict = await gateway.review(make_call("ls"))
            sink.gate = anyio.Event()  # gateway.stopped will never be written
    assert verdict.decision == "allow"
    assert tags(sink.events)[-1] == "verdict.reached"


# ── cancellation ──


async def test_a_review_cancelled_mid_way_records_a_decline_and_the_gateway_goes_on() -> None:
    """Cancelling the scope around `review` while an approver waits: the cancellation propagates, a decline is recorded."""
    faulty = Faulty(timeout=3600.0)
    sink = MemorySink()
    returned: list[Verdict] = []
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=_chain(faulty), sinks={"memory": sink}) as gateway:
            scope = anyio.CancelScope()

            async def review() -> None:
                with scope:
                    returned.append(await gateway.review(make_call("hang", call_id="x")))

            async with anyio.create_task_group() as group:
                group.start_soon(review)
                await faulty.entered.wait()
                scope.cancel()
            await _still_serves(gateway)
            statistics = gateway.statistics()
    assert returned == []
    assert scope.cancelled_caught
    events = of_call(sink.events, "x")
    assert tags(events) == ["call.proposed", "plan.ready", "verdict.reached"]
    reached = events[-1]
    assert isinstance(reached, VerdictReached)
    assert reached.verdict.decision == "decline"
    assert (
        reached.verdict.reason
        == "The review was cancelled before a verdict was released, so nothing may run."
    )
    assert statistics.allowed == 1
    assert verify_chain(sink.events) is None


async def test_a_review_cancelled_while_a_sink_applies_back_pressure_leaves_no_gap() -> None:
    """
    Cancelling a review blocked in publishing does not drop the event it was
    publishing: the audit log stays one unbroken chain.

    Regression: the event got its sequence number and digest, then the
    cancelled send dropped it, and the next event's link pointed at a record
    the sink never saw. Now an event joins the chain only once there is room.
    """
    sink = GatedSink()
    settings = config(event_buffer=1, audit_timeout=BOUND)
    returned: list[Verdict] = []
    with anyio.fail_after(BOUND):
        async with Gateway(
            settings, approvers=[StaticApprover("allow")], sinks={"memory": sink}
        ) as gateway:
            scope = anyio.CancelScope()

            async def review() -> None:
                with scope:
                    call = ToolCall("read_file", {"path": "x"}, call_id="x")
                    returned.append(await gateway.review(call))

            async with anyio.create_task_group() as group:
                group.start_soon(review)
                # chain.genesis is being written, gateway.started fills the
                # queue, and once the call is read, call.proposed waits for room.
                while not gateway._cache:
                    await anyio.lowlevel.checkpoint()
                await anyio.wait_all_tasks_blocked()
                scope.cancel()
                await anyio.wait_all_tasks_blocked()
                sink.gate.set()
            after = await gateway.review(ToolCall("read_file", {"path": "x"}, call_id="y"))
    assert returned == []
    assert after.decision == "allow"
    assert verify_chain(sink.events) is None
    assert [e.seq for e in sink.events] == list(range(len(sink.events)))
    # The event it waited to publish never entered the chain; the decline did.
    assert tags(of_call(sink.events, "x")) == ["verdict.reached"]


async def test_a_crash_inside_the_gateway_is_a_decline_not_an_exception(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Even a bug in the gateway's own code ends in a recorded decline."""

    def crash(*arguments: Any, **keywords: Any) -> Any:
        raise RuntimeError("gateway bug")

    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"memory": sink}) as gateway:
            with monkeypatch.context() as patch:
                patch.setattr("gateway._gateway._deciding.combine", crash)
                verdict = await gateway.review(make_call("ls -l", call_id="p"))
            assert (await gateway.review(make_call("ls -l"))).allowed
    assert verdict.decision == "decline"
    assert verdict.reason == (
        "The gateway failed while reviewing (RuntimeError), and it fails closed."
    )
    reached = of_call(sink.events, "p")[-1]
    assert isinstance(reached, VerdictReached)
    assert reached.verdict == verdict
