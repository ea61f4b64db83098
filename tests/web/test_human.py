"""
The ``human`` approver and its board, in-process: parking, deciding once, timeouts, bounds.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from gateway_human import (
    NO_SERVICE,
    SERVICE_KEY,
    Board,
    DecisionRefused,
    HumanApprover,
    WaitingCall,
    shown,
)

from gateway import Approver, ApproverContext, Gateway, GatewayConfig, PluginLoadError, Verdict
from gateway._approvers import load_approver
from gateway.config import ServeSection
from gateway.events import ApproverDecided
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """The approver is plain anyio: it runs under asyncio and trio."""
    backend: str = request.param
    return backend


def _human(
    config: GatewayConfig | None = None, **options: Any
) -> tuple[HumanApprover, dict[str, Any]]:
    services: dict[str, Any] = {}
    approver = HumanApprover(
        options, ApproverContext(config=config or GatewayConfig(), services=services)
    )
    return approver, services


async def _until_pending(board: Board, count: int = 1) -> list[WaitingCall]:
    parked = anyio.Event()
    stop = board.watch(lambda item, record: parked.set() if len(board.pending()) >= count else None)
    try:
        with anyio.fail_after(10):
            while len(board.pending()) < count:
                await parked.wait()
                parked = anyio.Event()
    finally:
        stop()
    return board.pending()


async def test_without_an_approval_service_it_abstains_at_once() -> None:
    human, _ = _human()
    sink = MemorySink()
    async with Gateway(approvers=[human], sinks={"memory": sink}) as gateway:
        with anyio.fail_after(10):
            verdict = await gateway.review(make_call("make"))
    assert verdict.decision == "ask"
    decided = [e for e in sink.events if isinstance(e, ApproverDecided)]
    assert [(e.approver, e.decision, e.reason) for e in decided] == [
        ("human", "abstain", NO_SERVICE)
    ]


async def test_a_parked_call_is_released_by_the_first_decision() -> None:
    human, _ = _human()
    detach = human.board.attach()
    verdicts: list[Verdict] = []
    async with Gateway(approvers=[human]) as gateway, anyio.create_task_group() as group:

        async def review() -> None:
            verdicts.append(await gateway.review(make_call("make install", call_id="p-1")))

        group.start_soon(review)
        [item] = await _until_pending(human.board)
        record = await human.board.decide("p-1", decision="allow", digest=item.digest, note="fine")
        with pytest.raises(DecisionRefused) as again:
            await human.board.decide("p-1", decision="decline", digest=item.digest)
    detach()
    assert record.by == "person"
    assert again.value.status == 409
    assert verdicts[0].decision == "allow"
    assert verdicts[0].approver == "human"
    assert verdicts[0].reason == "Allowed `make install`: a person allowed it; their note: fine."
    assert human.board.pending() == []
    assert human.board.decided()[0][1].decision == "allow"


async def test_a_decision_must_name_the_plan_digest() -> None:
    human, _ = _human()
    human.board.attach()
    async with Gateway(approvers=[human]) as gateway, anyio.create_task_group() as group:
        group.start_soon(gateway.review, make_call("ls", call_id="dg"))
        [item] = await _until_pending(human.board)
        with pytest.raises(DecisionRefused) as wrong:
            await human.board.decide("dg", decision="allow", digest="sha256:beef")
        assert human.board.pending() == [item]
        await human.board.decide("dg", decision="decline", digest=item.digest)
    assert wrong.value.status == 409


async def test_nobody_deciding_in_time_is_a_decline_that_says_so() -> None:
    human, _ = _human(timeout=0.2)
    human.board.attach()
    async with Gateway(approvers=[human]) as gateway:
        with anyio.fail_after(10):
            verdict = await gateway.review(make_call("make", call_id="slow"))
    assert verdict.decision == "decline"
    assert (
        verdict.reason
        == "Declined `make`: no person decided within 0.2 s, and the gateway fails closed."
    )
    assert human.board.decided()[0][1].by == "timeout"


async def test_the_gateway_gives_it_its_own_timeout_plus_a_grace() -> None:
    config = GatewayConfig(serve=ServeSection(human_timeout=120.0))
    human, _ = _human(config)
    async with Gateway(config, approvers=[human]) as gateway:
        assert gateway.approver_timeout(human) == 150.0
    assert human.wait == 120.0


async def test_too_many_waiting_calls_are_declined_at_once() -> None:
    config = GatewayConfig(serve=ServeSection(max_pending=2))
    human, _ = _human(config)
    human.board.attach()
    async with Gateway(config, approvers=[human]) as gateway, anyio.create_task_group() as group:
        for index in range(2):
            group.start_soon(gateway.review, make_call(f"echo {index}", call_id=f"m-{index}"))
        await _until_pending(human.board, 2)
        with anyio.fail_after(10):
            third = await gateway.review(make_call("echo 3", call_id="m-3"))
        for item in human.board.pending():
            await human.board.decide(item.id, decision="allow", digest=item.digest)
    assert third.decision == "decline"
    assert (
        third.reason
        == "Declined `echo 3`: 2 calls already wait for a person, and the gateway fails closed."
    )


async def test_a_second_call_with_a_waiting_id_is_declined() -> None:
    human, _ = _human()
    human.board.attach()
    async with Gateway(approvers=[human]) as gateway, anyio.create_task_group() as group:
        group.start_soon(gateway.review, make_call("echo a", call_id="dup"))
        [item] = await _until_pending(human.board)
        with anyio.fail_after(10):
            second = await gateway.review(make_call("echo b", call_id="dup"))
        await human.board.decide("dup", decision="allow", digest=item.digest)
    assert second.decision == "decline"
    assert "already waits for a person, and ids must be unique" in second.reason


async def test_closing_declines_what_waits_and_what_comes() -> None:
    human, _ = _human()
    human.board.attach()
    verdicts: list[Verdict] = []
    async with Gateway(approvers=[human]) as gateway:
        async with anyio.create_task_group() as group:

            async def review() -> None:
                verdicts.append(await gateway.review(make_call("deploy", call_id="c")))

            group.start_soon(review)
            await _until_pending(human.board)
            human.board.close("the approval service is stopping")
        with anyio.fail_after(10):
            later = await gateway.review(make_call("deploy again", call_id="d"))
    assert (
        verdicts[0].reason
        == "Declined `deploy`: the approval service is stopping, so no person can decide."
    )
    assert later.decision == "decline"
    assert human.board.decided()[0][1].by == "closed"


async def test_holes_of_a_decided_call_take_its_decision() -> None:
    human, _ = _human()
    human.board.attach()
    source = "cat <<EOF\n$(date)\nEOF"
    verdicts: list[Verdict] = []
    chain: list[Approver] = [StaticApprover("abstain", name="rules"), human]
    async with Gateway(approvers=chain) as gateway, anyio.create_task_group() as group:

        async def review() -> None:
            verdicts.append(await gateway.review(make_call(source, call_id="h")))

        group.start_soon(review)
        [item] = await _until_pending(human.board)
        await human.board.decide("h", decision="allow", digest=item.digest)
    assert verdicts[0].decision == "allow"
    assert [entry[0].kind for entry in human.board.decided()] == ["call"]


async def test_a_hole_without_a_decided_call_is_its_own_question() -> None:
    class AllowCallsAskHoles:
        name = "rules"

        async def review(self, request: Any) -> Any:
            return await StaticApprover("allow" if request.kind == "call" else "abstain").review(
                request
            )

    human, _ = _human()
    human.board.attach()
    verdicts: list[Verdict] = []
    async with (
        Gateway(approvers=[AllowCallsAskHoles(), human]) as gateway,
        anyio.create_task_group() as group,
    ):

        async def review() -> None:
            verdicts.append(await gateway.review(make_call("cat <<EOF\n$(date)\nEOF", call_id="q")))

        group.start_soon(review)
        [item] = await _until_pending(human.board)
        assert item.kind == "hole"
        assert item.id == "q/hole/0.0.0"
        assert item.request.hole is not None
        assert item.request.hole.source == "$(date)"
        assert item.offers == ()
        with pytest.raises(DecisionRefused) as scoped:
            await human.board.decide(item.id, decision="allow", digest=item.digest, scope="digest")
        await human.board.decide(item.id, decision="decline", digest=item.digest)
    assert (
        scoped.value.message == "Only a whole call can be remembered, not a hole or a heredoc body."
    )
    assert verdicts[0].decision == "decline"
    assert verdicts[0].reason.startswith("Heredoc hole 0.0.0: Declined `$(date)`")


async def test_it_is_loaded_by_its_entry_point_and_shares_one_board() -> None:
    services: dict[str, Any] = {}
    context = ApproverContext(config=GatewayConfig(), services=services)
    first = load_approver("human", {}, context)
    second = load_approver("human", {"timeout": 5}, context)
    assert isinstance(first, HumanApprover)
    assert isinstance(second, HumanApprover)
    assert services[SERVICE_KEY] is first.board is second.board
    assert second.wait == 5
    with pytest.raises(PluginLoadError) as bad:
        load_approver("human", {"bogus": 1}, context)
    assert "human" in str(bad.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ls\r rm -rf ~", "ls\\u{000D} rm -rf ~"),
        ("echo \u202eevil\u202c", "echo \\u{202E}evil\\u{202C}"),
        ("a\x1b[31mb", "a\\u{001B}[31mb"),
        ("zero\u200bwidth", "zero\\u{200B}width"),
        ("nbsp\u00a0x", "nbsp\\u{00A0}x"),
        ("many\n\n  lines", "many lines"),
    ],
    ids=["carriage-return", "bidi-override", "ansi", "zero-width", "nbsp", "newlines"],
)
def test_reasons_quote_commands_with_hidden_characters_escaped(text: str, expected: str) -> None:
    assert shown(text) == expected


def test_reasons_quote_long_commands_shortened() -> None:
    assert shown("x" * 100) == "x" * 59 + "…"
