"""
What the fleet shares besides the queue: the managed policy, remembered approvals, people's tokens.

* A policy published with ``gateway policy publish`` decides on every
  replica without a restart, and every verdict names the version that
  decided it; a version that does not hash to its digest is refused, and
  the last good one keeps deciding; a pinned replica keeps its version.
* An approval a person asks to remember on one replica is applied on the others.
* A token made once works on every replica; revoked, on none.
"""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from gateway_nats import MANAGED_KEY, PolicyVersion, open_broker

from broker.nats_server import NatsServer
from broker.replicas import WAIT, Replica, bash, fleet_config, gateway, make_token, serve
from gateway.config import BrokerSection

pytestmark = pytest.mark.anyio

RULES_THEN_PERSON = '["rules", "human"]'
_IDS = count()

NO_LISTING = b"""
[[approver.rules.rule]]
id = "managed.no-listing"
decision = "decline"
programs = ["ls"]
reason = "listing is paused by the platform team"
match = ["ls -la"]
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def review(replica: Replica, command: str) -> dict[str, Any]:
    async with replica.client() as client:
        answer = await client.post("/v1/review", json=bash(command, f"c-{next(_IDS)}"))
    assert answer.status_code == 200, answer.text
    verdict: dict[str, Any] = answer.json()
    return verdict


async def until_verdict(replica: Replica, command: str, predicate: Any) -> dict[str, Any]:
    """Review ``command`` (a new call each time) until the verdict is the awaited one (bounded)."""
    with anyio.fail_after(WAIT):
        while True:
            verdict = await review(replica, command)
            if predicate(verdict):
                return verdict
            await anyio.sleep(0.2)


async def test_a_published_policy_decides_on_every_replica_without_a_restart(
    nats_server: NatsServer, prefix: str, tmp_path: Path
) -> None:
    config = fleet_config(tmp_path, prefix, approvers=RULES_THEN_PERSON)
    url = nats_server.url
    policy = tmp_path / "managed.toml"
    policy.write_bytes(NO_LISTING)
    with serve(config, url, "a") as a, serve(config, url, "b") as b:
        before = await review(a, "ls -la")
        assert before["decision"] == "allow"
        assert before["policy"].startswith("local:sha256:")
        published = gateway(
            "policy",
            "publish",
            str(policy),
            "--broker",
            url,
            "--config",
            str(config),
            "--by",
            "platform",
            cwd=tmp_path,
        )
        assert published.returncode == 0, published.stderr
        version = json.loads(published.stdout)
        assert version["label"] == f"managed@{version['version']}:{version['sha256']}"
        assert version["by"] == "platform"
        for replica in (a, b):
            verdict = await until_verdict(replica, "ls -la", lambda v: v["decision"] == "decline")
            assert verdict["rule"] == "managed.no-listing"
            assert verdict["policy"] == version["label"]
        # A version whose bytes do not hash to its digest is refused: the last good one decides.
        async with open_broker(
            msgspec.convert({"url": url, "prefix": prefix}, BrokerSection)
        ) as broker:
            forged = PolicyVersion(
                sha256=version["sha256"], toml="[gateway]\n", published="2026-01-01T00:00:00+00:00"
            )
            await broker.policy.put(MANAGED_KEY, msgspec.json.encode(forged))
        await anyio.sleep(1.0)
        for replica in (a, b):
            verdict = await review(replica, "ls -la")
            assert (verdict["decision"], verdict["policy"]) == ("decline", version["label"])
        # Every version stays listed.
        shown = gateway("policy", "show", "--broker", url, "--config", str(config), cwd=tmp_path)
        versions = json.loads(shown.stdout)["versions"]
        assert [v["version"] for v in versions][-2] == version["version"]
        # A replica started pinned to a version uses exactly that one.
        (tmp_path / "pinned").mkdir()
        pinned = fleet_config(
            tmp_path / "pinned",
            prefix,
            approvers=RULES_THEN_PERSON,
            extra=f'policy-pin = "{version["sha256"]}"',
        )
        with serve(pinned, url, "p") as p:
            assert version["label"] in p.lines[2]
            verdict = await review(p, "ls -la")
            assert verdict["policy"] == version["label"]


def test_a_policy_that_fails_its_checks_is_not_published(
    nats_server: NatsServer, prefix: str, tmp_path: Path
) -> None:
    config = fleet_config(tmp_path, prefix)
    broken = tmp_path / "broken.toml"
    broken.write_bytes(NO_LISTING.replace(b'match = ["ls -la"]', b'match = ["cat x"]'))
    done = gateway(
        "policy",
        "publish",
        str(broken),
        "--broker",
        nats_server.url,
        "--config",
        str(config),
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "does not behave as it says on its example `cat x`" in done.stderr
    files = tmp_path / "files.toml"
    files.write_bytes(b'[approver.rules]\nfiles = ["team.toml"]\n')
    done = gateway(
        "policy",
        "publish",
        str(files),
        "--broker",
        nats_server.url,
        "--config",
        str(config),
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "holds its rules inline" in done.stderr


async def test_an_approval_remembered_on_one_replica_is_applied_on_the_other(
    nats_server: NatsServer, prefix: str, tmp_path: Path
) -> None:
    config = fleet_config(tmp_path, prefix, approvers=RULES_THEN_PERSON)
    url = nats_server.url
    alice = make_token("alice", "approver", broker=url, config=config)
    with serve(config, url, "a") as a, serve(config, url, "b") as b:
        verdicts: list[dict[str, Any]] = []
        async with a.client() as on_a, b.client(alice) as on_b, anyio.create_task_group() as group:

            async def first() -> None:
                answer = await on_a.post("/v1/review", json=bash("make deploy", "rem-1"))
                verdicts.append(answer.json())

            group.start_soon(first)
            with anyio.fail_after(WAIT):
                while True:
                    calls = (await on_b.get("/v1/calls?state=pending")).json()["calls"]
                    if calls:
                        break
                    await anyio.sleep(0.05)
            done = await on_b.post(
                "/v1/calls/rem-1/decision",
                json={"decision": "allow", "digest": calls[0]["digest"], "scope": "digest"},
            )
            assert done.status_code == 200, done.text
        assert verdicts[0]["decision"] == "allow"
        async with b.client() as reader:
            with anyio.fail_after(WAIT):
                while True:
                    shown = (await reader.get("/v1/calls/rem-1")).json()
                    if shown["decision"] and shown["decision"]["remembered"]:
                        break
                    await anyio.sleep(0.05)
        # The same command, on the other replica, is allowed without asking anyone.
        again = await until_verdict(b, "make deploy", lambda v: v["approver"] == "rules")
        assert again["decision"] == "allow"
        # `gateway remembered` lists the fleet's, and forgetting one takes it back everywhere.
        fleet = ("--broker", url, "--config", str(config))
        listed = gateway("remembered", "list", *fleet, cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        rows = json.loads(listed.stdout)["approvals"]
        assert [(row["command"], row["decided_by"]) for row in rows] == [("make deploy", "alice")]
        assert again["rule"] == f"remembered.{rows[0]['id']}"
        forgot = gateway("remembered", "forget", rows[0]["id"], *fleet, cwd=tmp_path)
        assert forgot.returncode == 0, forgot.stderr
        async with a.client() as on_a, b.client(alice) as on_b, anyio.create_task_group() as group:

            async def later() -> None:
                await on_a.post("/v1/review", json=bash("make deploy", "rem-2"))

            group.start_soon(later)
            with anyio.fail_after(WAIT):
                while True:
                    waiting = (await on_b.get("/v1/calls?state=pending")).json()["calls"]
                    if "rem-2" in [call["id"] for call in waiting]:
                        break
                    await anyio.sleep(0.05)
            group.cancel_scope.cancel()
        assert (
            json.loads(gateway("remembered", "list", *fleet, cwd=tmp_path).stdout)["approvals"]
            == []
        )


async def test_a_token_made_once_works_on_every_replica_and_revoked_on_none(
    nats_server: NatsServer, prefix: str, tmp_path: Path
) -> None:
    config = fleet_config(tmp_path, prefix)
    url = nats_server.url
    carol = make_token("carol", "viewer", broker=url, config=config)
    with serve(config, url, "a") as a, serve(config, url, "b") as b:
        for replica in (a, b):
            async with replica.client(carol) as client:
                info = (await client.get("/v1/info")).json()
            assert info["authorized"] is True
            assert info["identity"] == {"name": "carol", "role": "viewer"}
        revoked = gateway(
            "token", "revoke", "carol", "--broker", url, "--config", str(config), cwd=tmp_path
        )
        assert revoked.returncode == 0, revoked.stderr
        for replica in (a, b):
            async with replica.client(carol) as client:
                with anyio.fail_after(WAIT):
                    while True:
                        if not (await client.get("/v1/info")).json()["authorized"]:
                            break
                        await anyio.sleep(0.05)
        listed = gateway("token", "list", "--broker", url, "--config", str(config), cwd=tmp_path)
        assert json.loads(listed.stdout)["tokens"] == []
