"""
The fleet under faults, with real processes: a replica killed, the broker stopped, a thousand reviews.

* ``kill -9`` a replica while calls wait on it: its clients get no answer
  (a hook blocks the call), nothing is allowed that nobody allowed, its
  waiting calls stay on every other replica's board — a person may still
  decide them, a client that retries on another replica picks them up
  there, and the rest time out — and nothing it published is lost from the
  audit stream (its chain verifies, open).
* Stop nats-server: every review fails closed with one sentence, a decision
  is refused with nothing decided, and once the server is back the service
  decides again — and the events of the outage reach the stream, in order.
* A thousand concurrent reviews across two replicas, a hundred of them
  waiting for people: every one gets the verdict it should.

Outcomes are counted; no test here measures time.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from broker.nats_server import NatsServer
from broker.replicas import WAIT, Replica, bash, fleet_config, gateway, make_token, serve

pytestmark = pytest.mark.anyio

RULES_THEN_PERSON = '["rules", "human"]'


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _pending(
    replica: Replica, count: int, token: str | None = None, *, within: float = WAIT * 2
) -> list[dict[str, Any]]:
    """The calls pending on a replica's board, once there are ``count`` of them (within ``within`` seconds)."""
    async with replica.client(token) as client:
        with anyio.fail_after(within):
            while True:
                answer = await client.get("/v1/calls?state=pending")
                calls: list[dict[str, Any]] = answer.json()["calls"]
                if len(calls) >= count:
                    return calls
                await anyio.sleep(0.1)


async def _decide(
    replica: Replica, token: str, call: dict[str, Any], decision: str
) -> httpx.Response:
    """
    Decide as a person's page does: a connection lost before the answer is tried again.

    A retry that finds the call already decided (409) after a lost answer
    means the first try took effect; the counts of verdicts and deciders
    the tests assert say whether it took effect once and as asked.
    """
    lost: httpx.TransportError | None = None
    for _ in range(3):
        try:
            async with replica.client(token) as client:
                answer = await client.post(
                    f"/v1/calls/{call['id']}/decision",
                    json={"decision": decision, "digest": call["digest"]},
                )
        except httpx.TransportError as error:
            lost = error
            continue
        if answer.status_code == 409 and lost is not None:
            return httpx.Response(200, json={"retried": True})
        return answer
    assert lost is not None
    raise lost


async def _review(replica: Replica, body: dict[str, Any], into: dict[str, Any]) -> None:
    """Post one review; record its verdict, or the error when no answer came."""
    try:
        async with replica.client() as client:
            answer = await client.post("/v1/review", json=body)
        into[body["call_id"]] = answer.json() if answer.status_code == 200 else answer.status_code
    except httpx.HTTPError as error:
        into[body["call_id"]] = type(error).__name__


def _stream(tmp_path: Path, config: Path, broker: str) -> list[dict[str, Any]]:
    done = gateway("audit", "export", "--broker", broker, "--config", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _verdicts(stream: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each call's verdicts as recorded: reached, and what was released instead of one withdrawn."""
    found: dict[str, list[str]] = {}
    for event in stream:
        if event["event"] == "verdict.reached":
            found.setdefault(event["call_id"], []).append(event["verdict"]["decision"])
        elif event["event"] == "verdict.withdrawn":
            found.setdefault(event["call_id"], []).append(event["released"]["decision"])
    return found


async def test_killing_a_replica_while_calls_wait_allows_nothing_and_loses_nothing(
    nats_server: NatsServer, prefix: str, tmp_path: Path
) -> None:
    config = (
        fleet_config(tmp_path, prefix)
        .read_text()
        .replace("human-timeout = 120", "human-timeout = 20")
    )
    (tmp_path / "fleet.toml").write_text(config)
    path = tmp_path / "fleet.toml"
    broker = nats_server.url
    alice = make_token("alice", "approver", broker=broker, config=path)
    answers: dict[str, Any] = {}
    with serve(path, broker, "a") as a, serve(path, broker, "b") as b:
        calls = {f"k{n}": bash(f"terraform apply -target=module.m{n}", f"k{n}") for n in (1, 2, 3)}
        async with anyio.create_task_group() as group:
            for body in calls.values():
                group.start_soon(_review, a, body, answers)
            waiting = await _pending(b, 3, alice)
            assert {call["replica"] for call in waiting} == {a.replica}
            a.kill()
        # Its clients got no answer at all: a hook blocks a call it gets no answer for.
        assert all(not isinstance(answers[name], dict) for name in calls), answers
        # Every other replica still shows them; a person may decide one.
        by_id = {call["id"]: call for call in await _pending(b, 3, alice)}
        decided = await _decide(b, alice, by_id["k1"], "allow")
        assert decided.status_code == 200, decided.text
        # The clients retry on B: k1 gets the person's decision, k2 waits there
        # until a person decides it. A retry before A's lease ran out is refused
        # (the call still belongs to A): the client tries again.
        retried: dict[str, Any] = {}
        async with anyio.create_task_group() as group:
            for name in ("k1", "k2"):
                group.start_soon(_retry, b, calls[name], retried)
            with anyio.fail_after(WAIT * 2):
                while "k1" not in retried:  # noqa: ASYNC110 -- the retry loop fills it
                    await anyio.sleep(0.1)
            await _until_held(b, "k2", alice)
            second = await _decide(b, alice, by_id["k2"], "allow")
            assert second.status_code == 200, second.text
        assert retried["k1"]["decision"] == retried["k2"]["decision"] == "allow"
        assert retried["k1"]["decided_by"] == retried["k2"]["decided_by"] == "alice"
        # Nobody decides k3: once its deadline has passed by a lease, B times it out.
        async with b.client(alice) as client:
            with anyio.fail_after(WAIT * 2):
                while True:
                    shown = (await client.get("/v1/calls/k3")).json()
                    if shown.get("state") == "decided":
                        break
                    await anyio.sleep(0.2)
        assert (shown["decision"]["decision"], shown["decision"]["by"]) == ("decline", "timeout")
    # Nothing is allowed that nobody allowed, and nothing is lost from the stream.
    stream = _stream(tmp_path, path, broker)
    verdicts = _verdicts(stream)
    allowed = {call for call, decisions in verdicts.items() if "allow" in decisions}
    assert allowed == {"k1", "k2"}
    for name in ("k1", "k2"):
        # The retries refused while A's lease ran are declines; then one allow.
        assert verdicts[name][-1] == "allow"
        assert set(verdicts[name][:-1]) <= {"decline"}
    for name in ("k1", "k2", "k3"):
        proposed = [e for e in stream if e["call_id"] == name and e["event"] == "call.proposed"]
        assert len(proposed) >= 1  # A's own record of the call is in the stream.
    checked = gateway("verify", "--broker", broker, "--config", str(path), "--open", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    chains = {chain["replica"]: chain for chain in json.loads(checked.stdout)["chains"]}
    assert chains[a.replica]["intact"]
    assert not chains[a.replica]["stopped"]
    assert chains[b.replica]["complete"]


async def _retry(replica: Replica, body: dict[str, Any], into: dict[str, Any]) -> None:
    """A client retrying one call until it is no longer refused for its id (bounded)."""
    with anyio.fail_after(WAIT * 2):
        while True:
            async with replica.client() as client:
                answer = (await client.post("/v1/review", json=body)).json()
            if "ids must be unique" not in answer["reason"]:
                into[body["call_id"]] = answer
                return
            await anyio.sleep(0.5)


async def _until_held(replica: Replica, board_id: str, token: str) -> None:
    """Until ``replica`` holds the waiting review of ``board_id`` (picked up from a stopped one)."""
    async with replica.client(token) as client:
        with anyio.fail_after(WAIT * 2):
            while True:
                shown = (await client.get(f"/v1/calls/{board_id}")).json()
                if shown.get("state") == "pending" and (
                    shown["request"] and replica.replica in json.dumps(shown)
                ):
                    return
                await anyio.sleep(0.1)


def _one_sentence(reason: str) -> bool:
    body = reason.rstrip(".")
    return reason.endswith(".") and "\n" not in reason and ". " not in body.replace("e.g. ", "")


async def test_when_nats_server_stops_every_review_fails_closed_and_the_service_recovers(
    own_nats: NatsServer, prefix: str, tmp_path: Path
) -> None:
    path = fleet_config(tmp_path, prefix, approvers=RULES_THEN_PERSON)
    broker = own_nats.url
    alice = make_token("alice", "approver", broker=broker, config=path)
    with serve(path, broker, "r") as replica:
        before: dict[str, Any] = {}
        await _review(replica, bash("ls -la", "before-ls"), before)
        assert before["before-ls"]["decision"] == "allow"
        async with anyio.create_task_group() as group:
            waiting: dict[str, Any] = {}
            group.start_soon(_review, replica, bash("terraform apply", "w1"), waiting)
            [call] = await _pending(replica, 1, alice)
            own_nats.stop()
            during: dict[str, Any] = {}
            async with anyio.create_task_group() as reviews:
                reviews.start_soon(_review, replica, bash("ls -la", "down-ls"), during)
                reviews.start_soon(_review, replica, bash("terraform plan", "down-ask"), during)
                reviews.start_soon(_review, replica, bash("rm -rf /", "down-rm"), during)
            for name in ("down-ls", "down-ask", "down-rm"):
                verdict = during[name]
                assert verdict["decision"] == "decline", (name, verdict)
                assert _one_sentence(verdict["reason"]), verdict["reason"]
            refused = await _decide(replica, alice, call, "allow")
            assert refused.status_code == 503
            assert refused.json()["error"].startswith("Nothing was decided: the broker at nats://")
            own_nats.start()
            # Back: the service decides again (the first reviews may still wait
            # for the stream to take the outage's events).
            with anyio.fail_after(WAIT * 2):
                while True:
                    after: dict[str, Any] = {}
                    await _review(replica, bash("ls -la", "after-ls"), after)
                    if after["after-ls"]["decision"] == "allow":
                        break
            released = await _decide(replica, alice, call, "allow")
            assert released.status_code == 200, released.text
        assert waiting["w1"]["decision"] == "allow"
        assert waiting["w1"]["decided_by"] == "alice"
    checked = gateway("verify", "--broker", broker, "--config", str(path), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    [chain] = json.loads(checked.stdout)["chains"]
    assert chain["complete"]
    verdicts = _verdicts(_stream(tmp_path, path, broker))
    assert verdicts["down-ls"] == ["allow", "decline"] or verdicts["down-ls"] == ["decline"]
    assert "allow" not in verdicts["down-rm"]
    assert "allow" not in verdicts["down-ask"]


ALLOWED = ("ls -la", "wc -l README.md", "cat README.md", "pwd", "head -n 3 README.md")

# Deadlines sized to a thousand reviews in flight on two replicas of a busy
# machine: this test judges the fleet's verdicts, not how fast an overloaded
# gateway reads, judges and records (tests/chaos and tests/gateway judge the
# deadlines). A person's wait ([serve] human-timeout) stays within the review's.
LOADED_WAIT = WAIT * 12
"""Seconds one review or the wait for the hundred asks may take: past the review deadline below."""
LOADED_GATEWAY = """
review-timeout = 600
plan-timeout = 120
approver-timeout = 120
audit-timeout = 60
"""


async def test_a_thousand_concurrent_reviews_on_two_replicas_with_a_hundred_waiting_for_people(
    nats_server: NatsServer, prefix: str, tmp_path: Path
) -> None:
    path = fleet_config(tmp_path, prefix, approvers=RULES_THEN_PERSON, gateway_keys=LOADED_GATEWAY)
    broker = nats_server.url
    alice = make_token("alice", "approver", broker=broker, config=path)
    bob = make_token("bob", "approver", broker=broker, config=path)
    answers: dict[str, Any] = {}
    with serve(path, broker, "a") as a, serve(path, broker, "b") as b:
        bodies = [
            bash(f"terraform apply -target=module.m{n}", f"ask-{n}")
            if n % 10 == 0
            else bash(ALLOWED[n % len(ALLOWED)], f"run-{n}")
            for n in range(1000)
        ]
        limits = httpx.Limits(max_connections=600, max_keepalive_connections=600)
        async with (
            httpx.AsyncClient(
                base_url=a.url.rstrip("/"),
                trust_env=False,
                timeout=httpx.Timeout(LOADED_WAIT),
                limits=limits,
                headers={"Authorization": f"Bearer {a.token}"},
            ) as to_a,
            httpx.AsyncClient(
                base_url=b.url.rstrip("/"),
                trust_env=False,
                timeout=httpx.Timeout(LOADED_WAIT),
                limits=limits,
                headers={"Authorization": f"Bearer {b.token}"},
            ) as to_b,
            anyio.create_task_group() as group,
        ):

            async def review(client: httpx.AsyncClient, body: dict[str, Any]) -> None:
                try:
                    answer = await client.post("/v1/review", json=body)
                    answers[body["call_id"]] = (
                        answer.json() if answer.status_code == 200 else answer.status_code
                    )
                except httpx.HTTPError as error:
                    answers[body["call_id"]] = type(error).__name__

            for index, body in enumerate(bodies):
                group.start_soon(review, to_a if index % 2 else to_b, body)
            waiting = await _pending(a, 100, alice, within=LOADED_WAIT)
            for index, call in enumerate(sorted(waiting, key=lambda c: c["id"])):
                decider, token = (a, alice) if index % 2 else (b, bob)
                decision = "allow" if index < 50 else "decline"
                done = await _decide(decider, token, call, decision)
                assert done.status_code == 200, done.text
    outcomes = Counter(
        (
            name.split("-")[0],
            answer["decision"] if isinstance(answer, dict) else f"error {answer}",
            answer.get("approver") if isinstance(answer, dict) else None,
        )
        for name, answer in answers.items()
    )
    assert outcomes == {
        ("run", "allow", "rules"): 900,
        ("ask", "allow", "human"): 50,
        ("ask", "decline", "human"): 50,
    }
    deciders = Counter(
        answer["decided_by"] for name, answer in answers.items() if name.startswith("ask")
    )
    assert deciders == {"alice": 50, "bob": 50}
