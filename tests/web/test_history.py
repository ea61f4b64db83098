"""
``GET /v1/history``: the decisions the service keeps, over real HTTP.

Who decided, when, with what note; filters by session, agent, decision, rule
and person; a search; pages with a cursor that holds while new decisions
arrive; a token always required; one-sentence errors for every bad query.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import msgspec
import pytest
from gateway_human import DecisionRecord
from gateway_web._history import HistoryItem, Kept, history_page, parse_query

from gateway.config import SinkConfig
from gateway.fleet import Identity
from web.support import (
    KEY_HEREDOC,
    WAIT,
    Served,
    bash,
    config,
    decided,
    events,
    serve,
    team,
    three_decisions,
    wait_pending,
)

pytestmark = pytest.mark.anyio

ALICE = "alice-token-0123456789abcdef"
VIEWER = "viewer-token-0123456789abcdef"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _served() -> Any:
    return team(
        "ask.install",
        {
            ALICE: Identity(name="alice", role="approver"),
            VIEWER: Identity(name="val", role="viewer"),
        },
    )


async def _three(served: Served, client: httpx.AsyncClient) -> None:
    await three_decisions(client, served.token, ALICE, "h")


def _is_alices_decline(key: dict[str, Any]) -> None:
    """The second of `three_decisions`, as the history shows it (from this run or the audit log)."""
    assert key["summary"] == "Sends `~/.ssh/id_rsa` to deploy.example and writes `deploy.sh`."
    assert key["session"] == "s-2"
    assert key["agent"] == "coder"
    assert key["text"] == KEY_HEREDOC
    assert key["rules"] == ["ask.install", "human"]
    assert key["decision"]["decided_by"] == "alice"
    assert key["decision"]["decision"] == "decline"
    assert key["decision"]["reason"].endswith("their note: never send keys.")


async def test_the_history_says_who_decided_when_with_what_note_and_what_the_call_does() -> None:
    with _served() as served:
        async with served.client(headers=served.auth) as client:
            await _three(served, client)
            answer = await client.get("/v1/history")
            info = (await client.get("/v1/info")).json()
    assert answer.status_code == 200
    page = answer.json()
    assert page["instance"] == info["instance"]
    assert page["total"] == 3
    assert page["next"] is None
    assert [item["call_id"] for item in page["items"]] == ["h-3", "h-2", "h-1"]
    key = page["items"][1]
    _is_alices_decline(key)
    assert key["decision"]["note"] == "never send keys"
    assert key["decision"]["decided"]
    assert page["items"][2]["decision"]["decided_by"] == "owner"
    assert {f["value"]: f["count"] for f in page["sessions"]} == {"s-1": 2, "s-2": 1}
    assert {f["value"]: f["count"] for f in page["agents"]} == {"coder": 2, "planner": 1}
    assert {f["value"]: f["count"] for f in page["people"]} == {"owner": 2, "alice": 1}
    assert {f["value"] for f in page["rules"]} == {"ask.install", "human"}


@pytest.mark.parametrize(
    ("query", "calls"),
    [
        ("session=s-1", ["h-3", "h-1"]),
        ("agent=coder", ["h-2", "h-1"]),
        ("decision=decline", ["h-2"]),
        ("person=alice", ["h-2"]),
        ("rule=ask.install", ["h-3", "h-2", "h-1"]),
        ("rule=nothing.such", []),
        ("q=LOCK+FILE", ["h-1"]),  # the note, case-insensitively
        ("q=deploy.example", ["h-2"]),  # the command
        ("q=sends", ["h-2"]),  # the summary
        ("session=s-1&decision=allow&agent=planner", ["h-3"]),
    ],
)
async def test_the_history_filters_and_searches(query: str, calls: list[str]) -> None:
    with _served() as served:
        async with served.client(headers=served.auth) as client:
            await _three(served, client)
            page = (await client.get(f"/v1/history?{query}")).json()
    assert [item["call_id"] for item in page["items"]] == calls
    assert page["total"] == len(calls)


async def test_pages_follow_their_cursor_while_new_decisions_arrive() -> None:
    with _served() as served:
        async with served.client(headers=served.auth) as client:
            await _three(served, client)
            first = (await client.get("/v1/history?limit=2")).json()
            await decided(client, bash("ls", "h-4", session_id="s-3"), "allow", served.token)
            second = (await client.get(f"/v1/history?limit=2&cursor={first['next']}")).json()
    assert [item["call_id"] for item in first["items"]] == ["h-3", "h-2"]
    assert first["next"]
    assert [item["call_id"] for item in second["items"]] == ["h-1"]
    assert second["next"] is None
    assert second["total"] == 4


async def test_the_history_needs_a_token_that_may_read() -> None:
    with _served() as served:
        async with served.client() as client:
            anonymous = await client.get("/v1/history")
            viewer = await client.get("/v1/history", headers={"Authorization": f"Bearer {VIEWER}"})
            wrong = await client.get("/v1/history", headers={"Authorization": "Bearer nope"})
    assert anonymous.status_code == 401
    assert anonymous.json()["error"].startswith("This request needs the bearer token")
    assert viewer.status_code == 200
    assert wrong.status_code == 401


@pytest.mark.parametrize(
    ("query", "sentence"),
    [
        ("limit=0", "The query parameter 'limit' must be a whole number from 1 to 100."),
        ("limit=101", "The query parameter 'limit' must be a whole number from 1 to 100."),
        ("limit=x", "The query parameter 'limit' must be a whole number from 1 to 100."),
        ("decision=ask", "The query parameter 'decision' must be allow or decline."),
        (
            "cursor=nonsense",
            "The query parameter 'cursor' must be a cursor a previous page gave as 'next'.",
        ),
        ("q=" + "x" * 201, "The query parameter 'q' may have at most 200 characters."),
        (
            "colour=red",
            "The query parameter 'colour' is not known; use agent, cursor, decision, limit, person, q, rule, session.",
        ),
        ("q=a&q=b", "Give each query parameter of the history at most once."),
    ],
)
async def test_a_bad_query_is_one_sentence(query: str, sentence: str) -> None:
    with _served() as served:
        async with served.client(headers=served.auth) as client:
            answer = await client.get(f"/v1/history?{query}")
    assert answer.status_code == 400
    assert answer.json() == {"error": sentence}


async def test_a_page_is_bounded_and_the_kept_history_too() -> None:
    cfg = config(history=3)
    with serve(cfg, human=True) as served:
        async with served.client(headers=served.auth) as client:
            for number in range(5):
                await decided(client, bash(f"make t{number}", f"b-{number}"), "allow", served.token)
            page = (await client.get("/v1/history?limit=100")).json()
    assert [item["call_id"] for item in page["items"]] == ["b-4", "b-3", "b-2"]


async def test_every_start_has_its_own_instance_named_by_info_and_the_snapshot() -> None:
    seen: list[tuple[str, str]] = []
    for _ in range(2):
        with serve(human=True) as served:
            async with served.client() as client:
                info = (await client.get("/v1/info")).json()
                async with events(client) as stream:
                    snapshot = (await stream.until("snapshot")).json()
        seen.append((info["instance"], snapshot["instance"]))
    assert seen[0][0] == seen[0][1]
    assert seen[1][0] == seen[1][1]
    assert seen[0][0] != seen[1][0]
    assert len(seen[0][0]) == 16


def _audited(path: Path, **serve_options: Any) -> Any:
    plugin = "msgpack" if path.suffix == ".msgpack" else "jsonl"
    cfg = msgspec.structs.replace(
        config(), sinks={"audit": SinkConfig(plugin=plugin, path=str(path), required=True)}
    )
    return team(
        "ask.install", {ALICE: Identity(name="alice", role="approver")}, cfg=cfg, **serve_options
    )


@pytest.mark.parametrize("name", ["audit.jsonl", "audit.msgpack"])
async def test_decisions_of_an_earlier_run_come_back_from_the_audit_log(
    tmp_path: Path, name: str
) -> None:
    log = tmp_path / name
    with _audited(log) as served:
        async with served.client(headers=served.auth) as client:
            await _three(served, client)
    if log.suffix == ".jsonl":
        with log.open("ab") as stream:
            stream.write(b'{"event": "call.proposed", "not": "a record the gateway writes"}\n')
    with _audited(log) as served:
        async with served.client(headers=served.auth) as client:
            await decided(client, bash("ls", "h-4", session_id="s-3"), "allow", served.token)
            page = (await client.get("/v1/history")).json()
            alice = (await client.get("/v1/history?person=alice")).json()
    assert [item["call_id"] for item in page["items"]] == ["h-4", "h-3", "h-2", "h-1"]
    _is_alices_decline(page["items"][2])
    assert [item["call_id"] for item in alice["items"]] == ["h-2"]


async def test_an_unreadable_audit_log_gives_no_earlier_decisions_and_no_error(
    tmp_path: Path,
) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_bytes(b"\xff\xfe not json at all\n" * 10)
    with _audited(tmp_path / "other.jsonl", audit_path=str(log)) as served:
        async with served.client(headers=served.auth) as client:
            page = (await client.get("/v1/history")).json()
    assert page["items"] == []


async def test_a_waiting_call_carries_its_summary() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client:

            async def send() -> None:
                await client.post("/v1/review", json=bash(KEY_HEREDOC, "w-1"))

            async with anyio.create_task_group() as group:
                group.start_soon(send)
                with anyio.fail_after(WAIT):
                    streamed = await wait_pending(client, "w-1")
                listed = (await client.get("/v1/calls?state=pending")).json()["calls"]
                group.cancel_scope.cancel()
    sentence = "Sends `~/.ssh/id_rsa` to deploy.example and writes `deploy.sh`."
    assert streamed["summary"] == sentence
    assert [call["summary"] for call in listed] == [sentence]


def _kept(board_id: str, decided: str, run: int) -> Kept:
    record = DecisionRecord(
        id=board_id,
        call_id=board_id,
        decision="allow",
        by="person",
        digest="sha256:0",
        reason="Allowed.",
        decided=decided,
        decided_by="owner",
    )
    item = HistoryItem(
        id=board_id,
        call_id=board_id,
        kind="call",
        tool="Bash",
        text="ls",
        summary="Lists `.`.",
        session=None,
        agent=None,
        host=None,
        cwd=None,
        digest="sha256:0",
        created=decided,
        rules=(),
        decision=record,
    )
    return Kept(item, "ls", run)


def test_within_one_second_this_run_comes_before_an_earlier_one_and_pages_follow() -> None:
    kept = [
        _kept("a", "2026-12-01T10:00:05+00:00", 1),  # the board: to the second
        _kept("b", "2026-12-01T10:00:05.900000+00:00", 0),  # the audit log: fractions
        _kept("c", "2026-12-01T10:00:04.100000Z", 0),
        _kept("d", "2026-12-01T10:00:06+00:00", 1),
    ]
    first = history_page("i", kept, parse_query({"limit": "2"}, ["limit"]))
    cursor = first.next
    assert cursor is not None
    second = history_page(
        "i", kept, parse_query({"limit": "2", "cursor": cursor}, ["limit", "cursor"])
    )
    assert [item.id for item in first.items] == ["d", "a"]
    assert [item.id for item in second.items] == ["b", "c"]
    assert second.next is None


async def test_a_call_a_remembered_approval_allowed_is_in_the_history_naming_it(
    tmp_path: Path,
) -> None:
    """Nobody was asked, because someone said so before: the history says which memory, also after a restart."""
    from gateway_human import HumanApprover
    from gateway_rules import RulesApprover
    from rules.support import request_for

    from gateway import Approver, ApproverContext

    memory = tmp_path / "memory.json"
    RulesApprover({"memory": str(memory)}).remember(
        request_for("pip install requests"), "prefix", prefix=["install"], decided_by="alice"
    )
    log = tmp_path / "audit.jsonl"
    cfg = msgspec.structs.replace(
        config(), sinks={"audit": SinkConfig(plugin="jsonl", path=str(log), required=True)}
    )
    pages = []
    verdict: dict[str, Any] = {}
    for run in (1, 2):
        services: dict[str, Any] = {}
        context = ApproverContext(config=cfg, services=services)
        chain: list[Approver] = [
            RulesApprover({"memory": str(memory)}, context),
            HumanApprover({}, context),
        ]
        with serve(cfg, approvers=chain, services=services) as served:
            async with served.client(headers=served.auth) as client:
                if run == 1:
                    verdict = (
                        await client.post("/v1/review", json=bash("pip install flask", "m-1"))
                    ).json()
                pages.append((await client.get("/v1/history")).json())
    rule = verdict["rule"]
    assert rule.startswith("remembered.")
    assert (verdict["decision"], verdict["approver"]) == ("allow", "rules")
    for page in pages:
        [item] = page["items"]
        assert item["call_id"] == "m-1"
        assert item["text"] == "pip install flask"
        assert rule in item["rules"]
        assert item["decision"]["by"] == "remembered"
        assert item["decision"]["decision"] == "allow"
        assert "a person (alice) remembered `pip install`" in item["decision"]["reason"]
    assert pages[0]["people"] == [{"value": "remembered", "count": 1}]
