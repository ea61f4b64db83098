"""
The fleet, as users run it: one nats-server, two ``gateway serve --broker`` processes.

A review posted to replica A waits; replica B lists it as pending; a person
with an approver token decides on B with the right digest, and A's waiting
review comes back with that decision and their name; a second decision is
refused (409); viewers and agents cannot decide; the audit stream holds the
call's events, and every chain in it verifies.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from broker.nats_server import NatsServer
from broker.replicas import WAIT, bash, events_of, fleet_config, gateway, make_token, serve

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_review_waiting_on_one_replica_is_decided_on_the_other(
    nats_server: NatsServer, prefix: str, tmp_path: Path
) -> None:
    config = fleet_config(tmp_path, prefix)
    url = nats_server.url
    alice = make_token("alice", "approver", broker=url, config=config)
    viewer = make_token("vic", "viewer", broker=url, config=config)
    agent = make_token("agent-1", "agent", broker=url, config=config)
    with serve(config, url, "a") as a, serve(config, url, "b") as b:
        assert a.replica != b.replica
        verdicts: list[dict[str, object]] = []
        async with (
            a.client(agent) as on_a,
            b.client(viewer) as seen_on_b,
            anyio.create_task_group() as group,
        ):

            async def review() -> None:
                answer = await on_a.post("/v1/review", json=bash("terraform apply", "fleet-1"))
                assert answer.status_code == 200, answer.text
                verdicts.append(answer.json())

            group.start_soon(review)
            with anyio.fail_after(WAIT):
                while True:
                    listed = (await seen_on_b.get("/v1/calls?state=pending")).json()
                    if listed["calls"]:
                        break
                    await anyio.sleep(0.05)
            [call] = listed["calls"]
            assert (call["id"], call["state"]) == ("fleet-1", "pending")
            assert call["request"]["call"]["input"] == {"command": "terraform apply"}
            digest = call["digest"]
            decision = {"decision": "allow", "digest": digest, "note": "change approved"}
            # Neither a viewer nor an agent may decide.
            for token, role in ((viewer, "viewer"), (agent, "agent")):
                async with b.client(token) as other:
                    refused = await other.post("/v1/calls/fleet-1/decision", json=decision)
                assert refused.status_code == 403
                assert refused.json()["error"] == (
                    f"The token {'vic' if role == 'viewer' else 'agent-1'!r} has the role {role}, and decisions need an approver token."
                )
            # The wrong digest is refused, and the call still waits.
            async with b.client(alice) as as_alice:
                wrong = await as_alice.post(
                    "/v1/calls/fleet-1/decision",
                    json={**decision, "digest": "sha256:" + "0" * 64},
                )
                assert wrong.status_code == 409
                taken = await as_alice.post("/v1/calls/fleet-1/decision", json=decision)
                assert taken.status_code == 200, taken.text
                assert taken.json()["decision"]["decided_by"] == "alice"
        [verdict] = verdicts
        assert verdict["decision"] == "allow"
        assert verdict["decided_by"] == "alice"
        assert verdict["approver"] == "human"
        assert verdict["reason"] == (
            "Allowed `terraform apply`: a person (alice) allowed it; their note: change approved."
        )
        # The second decision, on either replica, is refused.
        for replica in (a, b):
            async with replica.client(alice) as again:
                second = await again.post(
                    "/v1/calls/fleet-1/decision", json={"decision": "decline", "digest": digest}
                )
            assert second.status_code == 409
            assert "was already decided (allow by alice" in second.json()["error"]
        # Both replicas show the decision and who took it.
        for replica in (a, b):
            async with replica.client() as reader:
                with anyio.fail_after(WAIT):
                    while True:
                        shown = (await reader.get("/v1/calls/fleet-1")).json()
                        if shown["state"] == "decided":
                            break
                        await anyio.sleep(0.05)
            assert shown["decision"]["decided_by"] == "alice"
    # The audit stream holds the call's events, in order, and every chain verifies.
    exported = gateway(
        "audit",
        "export",
        "--broker",
        url,
        "--config",
        str(config),
        "--call",
        "fleet-1",
        cwd=tmp_path,
    )
    assert exported.returncode == 0, exported.stderr
    stream = [json.loads(line) for line in exported.stdout.splitlines()]
    assert events_of(stream, "fleet-1") == [
        "call.proposed",
        "plan.ready",
        "approver.decided",
        "verdict.reached",
    ]
    decided = stream[2]
    assert (decided["approver"], decided["decision"], decided["decided_by"]) == (
        "human",
        "allow",
        "alice",
    )
    assert stream[3]["verdict"]["decided_by"] == "alice"
    checked = gateway("verify", "--broker", url, "--config", str(config), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    report = json.loads(checked.stdout)
    assert report["intact"] is True
    assert {chain["replica"] for chain in report["chains"]} == {a.replica, b.replica}
    assert all(chain["complete"] for chain in report["chains"])
