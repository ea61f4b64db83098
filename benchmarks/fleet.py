"""
What the broker costs and what a fleet sustains: review latency with and without it, decisions per second.

Run: ``.venv/bin/python benchmarks/fleet.py [--reviews N] [--decisions N]``.

It starts a real nats-server (JetStream on, a temporary store) and real
``gateway serve`` processes, the way users run them, on loopback:

* **embedded**: one ``gateway serve`` without a broker (in-memory board,
  a ``jsonl`` audit log written and flushed before each verdict);
* **fleet**: two ``gateway serve --broker`` replicas (the board in a
  JetStream bucket, every event acknowledged by the audit stream before
  each verdict).

It prints, for each:

(a) review latency of a call the rules allow (p50/p95/p99 in ms, sequential,
    plan cache warm), and the ratio fleet / embedded: what the broker adds;
(b) reviews per second with 100 in flight;
(c) a person's decision: from posting it to the waiting review's verdict
    (p50/p95 in ms); in the fleet the review waits on replica A and the
    decision is posted to replica B;
(d) decisions per second: N calls waiting, all decided at once (in the
    fleet, half on each replica, each on the replica the call does not wait on).

Nothing here is asserted: speed is measured here, never in unit tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import AsyncExitStack, ExitStack, contextmanager
from pathlib import Path
from typing import Any, Final

import anyio
import httpx

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from broker.nats_server import NatsServer  # noqa: E402 -- after the path to the test helpers
from broker.replicas import Replica, fleet_config, make_token, serve  # noqa: E402
from serving import gateway_serve  # noqa: E402

WAIT: Final = 120.0


def _ms(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(fraction * len(ordered)))], 2)


def _summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": _ms(values, 0.50),
        "p95_ms": _ms(values, 0.95),
        "p99_ms": _ms(values, 0.99),
        "mean_ms": round(1000 * statistics.fmean(values), 2),
    }


def _client(replica: Replica, token: str | None = None) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=replica.url.rstrip("/"),
        trust_env=False,
        timeout=httpx.Timeout(WAIT),
        limits=httpx.Limits(max_connections=400, max_keepalive_connections=400),
        headers={"Authorization": f"Bearer {token or replica.token}"},
    )


def _call(command: str, call_id: str) -> dict[str, Any]:
    return {"tool": "Bash", "input": {"command": command}, "call_id": call_id}


async def _latency(replica: Replica, count: int, tag: str) -> list[float]:
    taken: list[float] = []
    async with _client(replica) as client:
        for warm in range(10):
            await client.post("/v1/review", json=_call("ls -la", f"{tag}-warm-{warm}"))
        for index in range(count):
            start = time.perf_counter()
            answer = await client.post("/v1/review", json=_call("ls -la", f"{tag}-{index}"))
            taken.append(time.perf_counter() - start)
            if answer.json()["decision"] != "allow":
                raise RuntimeError(f"expected an allow, got {answer.text}")
    return taken


async def _throughput(replica: Replica, count: int, tag: str) -> float:
    async with _client(replica) as client, anyio.create_task_group() as group:
        start = time.perf_counter()
        limiter = anyio.Semaphore(100)

        async def one(index: int) -> None:
            async with limiter:
                await client.post("/v1/review", json=_call("git status", f"{tag}-{index}"))

        for index in range(count):
            group.start_soon(one, index)
    return round(count / (time.perf_counter() - start), 1)


async def _pending(replica: Replica, token: str, count: int) -> list[dict[str, Any]]:
    async with _client(replica, token) as client:
        with anyio.fail_after(WAIT):
            while True:
                calls: list[dict[str, Any]] = (await client.get("/v1/calls?state=pending")).json()[
                    "calls"
                ]
                if len(calls) >= count:
                    return calls
                await anyio.sleep(0.05)


async def _wait_for_verdict(
    client: httpx.AsyncClient, call_id: str, released: list[float], done: anyio.Event
) -> None:
    await client.post("/v1/review", json=_call("make deploy", call_id))
    released.append(time.perf_counter())
    done.set()


async def _round_trips(
    waits: Replica, decides: Replica, token: str, count: int, tag: str
) -> list[float]:
    """Park one call on ``waits``, decide it on ``decides``: seconds from the decision to the verdict."""
    taken: list[float] = []
    async with _client(waits) as on_wait, _client(decides, token) as on_decide:
        for index in range(count):
            call_id = f"{tag}-{index}"
            done = anyio.Event()
            released: list[float] = []
            async with anyio.create_task_group() as group:
                group.start_soon(_wait_for_verdict, on_wait, call_id, released, done)
                call = None
                while call is None:
                    calls = await _pending(decides, token, 1)
                    call = next((c for c in calls if c["id"] == call_id), None)
                start = time.perf_counter()
                await on_decide.post(
                    f"/v1/calls/{call_id}/decision",
                    json={"decision": "allow", "digest": call["digest"]},
                )
                await done.wait()
            taken.append(released[0] - start)
    return taken


async def _decisions_per_second(
    replicas: Sequence[Replica], token: str, count: int, tag: str
) -> float:
    """``count`` calls wait (spread over the replicas); all are decided at once, each on another one."""
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(_client(r)) for r in replicas]
        deciders = [await stack.enter_async_context(_client(r, token)) for r in replicas]
        async with anyio.create_task_group() as group:
            for index in range(count):
                group.start_soon(_post_review, clients[index % len(clients)], f"{tag}-{index}")
            waiting = await _pending(replicas[0], token, count)
            start = time.perf_counter()
            async with anyio.create_task_group() as deciding:
                for index, call in enumerate(waiting):
                    deciding.start_soon(_post_decision, deciders[(index + 1) % len(deciders)], call)
            elapsed = time.perf_counter() - start
    return round(count / elapsed, 1)


async def _post_review(client: httpx.AsyncClient, call_id: str) -> None:
    await client.post("/v1/review", json=_call("make deploy", call_id))


async def _post_decision(client: httpx.AsyncClient, call: dict[str, Any]) -> None:
    answer = await client.post(
        f"/v1/calls/{call['id']}/decision", json={"decision": "decline", "digest": call["digest"]}
    )
    if answer.status_code != 200:
        raise RuntimeError(answer.text)


@contextmanager
def embedded(tmp: Path) -> Iterator[Replica]:
    """One ``gateway serve`` without a broker (rules, then a person; a jsonl audit log)."""
    config = tmp / "embedded.toml"
    config.write_text(
        '[gateway]\napprovers = ["rules", "human"]\n[serve]\nhuman-timeout = 120\nmax-pending = 5000\n'
        f'[sinks.audit]\nplugin = "jsonl"\npath = "{tmp / "audit.jsonl"}"\nrequired = true\n'
    )
    with serve_plain(config) as replica:
        yield replica


@contextmanager
def serve_plain(config: Path) -> Iterator[Replica]:
    with gateway_serve(
        "--config",
        str(config),
        "--token-file",
        str(config.parent / "embedded-token"),
        cwd=config.parent,
    ) as served:
        yield Replica(served.process, served.url, served.token, "embedded")


async def measure(reviews: int, decisions: int) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="gateway-fleet-bench-") as scratch,
        ExitStack() as stack,
    ):
        tmp = Path(scratch)
        server = NatsServer(store=tmp / "nats")
        server.start()
        stack.callback(server.stop)
        config = fleet_config(tmp, "bench", approvers='["rules", "human"]').read_text()
        (tmp / "fleet.toml").write_text(config.replace("max-pending = 2000", "max-pending = 5000"))
        path = tmp / "fleet.toml"
        alice = make_token("alice", "approver", broker=server.url, config=path)
        one = stack.enter_context(embedded(tmp))
        a = stack.enter_context(serve(path, server.url, "a"))
        b = stack.enter_context(serve(path, server.url, "b"))
        results: dict[str, Any] = {}
        plain = await _latency(one, reviews, "e")
        fleet = await _latency(a, reviews, "f")
        results["review_latency"] = {
            "embedded": _summary(plain),
            "fleet": _summary(fleet),
            "fleet_over_embedded_p50": round(
                statistics.median(fleet) / statistics.median(plain), 2
            ),
        }
        results["reviews_per_second_100_in_flight"] = {
            "embedded": await _throughput(one, reviews * 2, "te"),
            "fleet_one_replica": await _throughput(a, reviews * 2, "tf"),
        }
        owner = one.token
        results["decision_to_verdict"] = {
            "embedded": _summary(await _round_trips(one, one, owner, 50, "re")),
            "fleet_a_waits_b_decides": _summary(await _round_trips(a, b, alice, 50, "rf")),
        }
        results["decisions_per_second"] = {
            "embedded": await _decisions_per_second([one], owner, decisions, "de"),
            "fleet_two_replicas": await _decisions_per_second([a, b], alice, decisions, "df"),
        }
        return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--reviews", type=int, default=300, help="sequential reviews per setup")
    parser.add_argument("--decisions", type=int, default=200, help="calls decided at once")
    arguments = parser.parse_args(argv)
    results = anyio.run(measure, arguments.reviews, arguments.decisions, backend="asyncio")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
