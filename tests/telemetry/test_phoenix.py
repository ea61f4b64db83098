"""
End to end, as a user runs it: ``gateway serve`` exports over OTLP to a real Arize Phoenix,
and Phoenix's own client reads the spans back.

The service runs as a subprocess with ``[telemetry]`` pointing at Phoenix
(traces) and at an OTLP/HTTP metrics receiver. Calls come the ways hosts send
them: ``gateway-hook claude-code --server`` with the host's ``TRACEPARENT`` in
its environment (then its ``PostToolUse``), and ``POST /v1/review`` with a
``traceparent`` header; one waits for a person, who decides through the API.
Then the service stops (flushing what it buffered) and Phoenix is asked, with
``phoenix.client``, for the spans: their names, attributes and parents, the
outcome joined to its review, and the review joined to the host's trace.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx
import serving

from telemetry.conftest import MetricsReceiver, Phoenix

WAIT: Final = 60.0
"""Seconds any one step may wait (the machine may be busy)."""

HOST_TRACE: Final = "5bd66ef5095369c7b0d1f8f4bd33716a"
HOST_SPAN: Final = "c532cb4098ac3dd2"
API_TRACE: Final = "0af7651916cd43dd8448eb211c80319c"
API_SPAN: Final = "b7ad6b7169203331"


@dataclass
class Served:
    """A running ``gateway serve``."""

    url: str
    token: str
    token_file: Path
    audit: Path


@contextmanager
def gateway_serve(tmp_path: Path, phoenix: Phoenix, receiver: MetricsReceiver) -> Iterator[Served]:
    """``gateway serve`` exporting to Phoenix and the receiver; stopped (SIGTERM) on leaving."""
    config = tmp_path / "gateway.toml"
    config.write_text(
        "\n".join(
            [
                "[gateway]",
                'approvers = ["rules", "human"]',
                "[serve]",
                "human-timeout = 120",
                "[telemetry]",
                f'endpoint = "{phoenix.url}"',
                f'metrics-endpoint = "{receiver.url}/v1/metrics"',
                "export-interval = 0.5",
                'headers = { "x-test" = "telemetry" }',
                "",
            ]
        )
    )
    token_file = tmp_path / "state" / "token"
    audit = tmp_path / "audit.jsonl"
    with serving.gateway_serve(
        "--config",
        str(config),
        "--token-file",
        str(token_file),
        "--audit",
        str(audit),
        # Hooks come over HTTP here (the way that carries the host's trace context).
        "--no-socket",
        cwd=tmp_path,
    ) as served:
        yield Served(served.url, served.token, token_file, audit)
    assert served.process.returncode == 0, "gateway serve did not stop cleanly"


def _hook(served: Served, event: Mapping[str, Any], environment: Mapping[str, str]) -> str:
    """Run ``gateway-hook claude-code --server`` on one event; its output."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gateway_relay",
            "claude-code",
            "--server",
            served.url,
            "--token-file",
            str(served.token_file),
            "--timeout",
            str(WAIT),
        ],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env={**os.environ, **environment},
        timeout=WAIT * 2,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _first_pending(client: httpx.Client, call_id: str) -> dict[str, Any]:
    with client.stream("GET", "/v1/events", params={"call": call_id}) as stream:
        kind = None
        for line in stream.iter_lines():
            if not line:
                kind = None
            elif line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: ") and kind in ("snapshot", "pending"):
                data = json.loads(line.removeprefix("data: "))
                pending = data["pending"] if kind == "snapshot" else [data]
                if pending:
                    return dict(pending[0])
    raise AssertionError("the event stream ended before the call waited")


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """Attributes as dotted keys, whether Phoenix hands them back nested or flat."""
    if isinstance(value, Mapping):
        found: dict[str, Any] = {}
        for key, item in value.items():
            found.update(_flat(item, f"{prefix}{key}."))
        return found
    return {prefix[:-1]: value}


def _spans(phoenix: Phoenix, trace_ids: list[str], expected: int) -> list[dict[str, Any]]:
    """The spans of some traces, read back through Phoenix's client once all have arrived."""
    with warnings.catch_warnings():
        # Importing the client imports the server's package too, which warns about its own deps.
        warnings.simplefilter("ignore")
        from phoenix.client import Client

    client = Client(base_url=phoenix.url)
    deadline = time.monotonic() + WAIT
    while True:
        spans = [
            dict(span)
            for span in client.spans.get_spans(
                project_identifier="default", trace_ids=trace_ids, limit=1000, timeout=30
            )
        ]
        if len(spans) >= expected or time.monotonic() > deadline:
            return spans
        time.sleep(0.5)


def test_reviews_exported_by_gateway_serve_read_back_from_phoenix(
    tmp_path: Path, phoenix: Phoenix, metrics_receiver: MetricsReceiver
) -> None:
    event = {
        "session_id": "sess-1",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_trace_1",
    }
    host = {"TRACEPARENT": f"00-{HOST_TRACE}-{HOST_SPAN}-01"}
    with gateway_serve(tmp_path, phoenix, metrics_receiver) as served:
        answer = json.loads(_hook(served, event, host))
        assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"
        # The host ran the tool and says so: the outcome joins the review's trace.
        _hook(served, {**event, "hook_event_name": "PostToolUse", "tool_response": {}}, host)
        headers = {
            "Authorization": f"Bearer {served.token}",
            # The caller says "not sampled": the service records the review all the same.
            "traceparent": f"00-{API_TRACE}-{API_SPAN}-00",
        }
        with httpx.Client(
            base_url=served.url, trust_env=False, timeout=WAIT, headers=headers
        ) as client:
            declined = client.post(
                "/v1/review",
                json={"tool": "Bash", "input": {"command": "rm -rf /"}, "call_id": "rm-1"},
            ).json()
            assert declined["decision"] == "decline"
            # A call the rules leave to a person: it waits until someone decides.
            verdicts: list[dict[str, Any]] = []
            asking = threading.Thread(
                target=lambda: verdicts.append(
                    client.post(
                        "/v1/review",
                        json={
                            "tool": "Bash",
                            "input": {"command": "curl https://example.com/x"},
                            "call_id": "curl-1",
                        },
                    ).json()
                )
            )
            asking.start()
            entry = _first_pending(client, "curl-1")
            decided = client.post(
                "/v1/calls/curl-1/decision",
                json={"decision": "allow", "digest": entry["digest"], "note": "looked at it"},
            )
            assert decided.status_code == 200, decided.text
            asking.join(timeout=WAIT)
            assert verdicts
            assert verdicts[0]["decision"] == "allow"
        # Metrics are exported while the service runs (every half second).
        deadline = time.monotonic() + WAIT
        while "agent_gateway.verdicts" not in metrics_receiver.names():
            assert time.monotonic() < deadline, "no metrics reached the OTLP receiver"
            time.sleep(0.2)
    # The service has stopped: everything buffered was flushed on the way out.
    records = [json.loads(line) for line in served.audit.read_text().splitlines()]
    traces = {
        record["call_id"]: record["trace_id"]
        for record in records
        if record.get("event") == "verdict.reached"
    }
    assert traces["toolu_trace_1"] == HOST_TRACE
    assert traces["rm-1"] == API_TRACE
    spans = _spans(phoenix, sorted(set(traces.values())), expected=11)
    by_id = {span["context"]["span_id"]: span for span in spans}
    attributes = {span["context"]["span_id"]: _flat(span.get("attributes", {})) for span in spans}

    def reviews_of(call_id: str) -> dict[str, Any]:
        (review,) = [
            span
            for span in spans
            if span["name"] == "gateway.review"
            and attributes[span["context"]["span_id"]].get("gen_ai.tool.call.id") == call_id
        ]
        return review

    def children(span: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [s for s in spans if s.get("parent_id") == span["context"]["span_id"]]

    # The hook's review: a guardrail span, child of the host's span, in the host's trace.
    review = reviews_of("toolu_trace_1")
    found = attributes[review["context"]["span_id"]]
    assert review["span_kind"] == "GUARDRAIL"
    assert review["context"]["trace_id"] == HOST_TRACE
    assert review["parent_id"] == HOST_SPAN
    assert found["gen_ai.operation.name"] == "apply_guardrail"
    assert found["gen_ai.guardrail.component.name"] == "agent-gateway"
    assert found["gen_ai.guardrail.source"] == "tool_input"
    assert found["gen_ai.guardrail.result.type"] == "decision"
    assert found["gen_ai.guardrail.result.value"] == "allow"
    assert found["gen_ai.guardrail.policy.id"] == "read.look"
    assert found["gen_ai.guardrail.result.reason"].startswith("Allowed `ls`")
    assert found["gen_ai.tool.name"] == "Bash"
    assert found["gen_ai.conversation.id"] == "sess-1"
    assert found["agent_gateway.plan.digest"].startswith("sha256:")
    assert found["agent_gateway.plan.status"] == "measured"
    assert found["agent_gateway.verdict.approver"] == "rules"
    # Founded: the allow stands on what the plan states, so the hook answered it.
    assert found["agent_gateway.verdict.founded"] is True
    assert sorted(s["name"] for s in children(review)) == [
        "gateway.approve",
        "gateway.outcome",
        "gateway.plan",
    ]
    # The outcome joined the review: same trace, the review its parent.
    (outcome,) = [s for s in children(review) if s["name"] == "gateway.outcome"]
    assert attributes[outcome["context"]["span_id"]]["agent_gateway.outcome"] == "succeeded"
    assert outcome["context"]["trace_id"] == HOST_TRACE

    # The API's review: in the caller's trace although it said "not sampled".
    declined_review = reviews_of("rm-1")
    assert declined_review["context"]["trace_id"] == API_TRACE
    assert declined_review["parent_id"] == API_SPAN
    found = attributes[declined_review["context"]["span_id"]]
    assert found["gen_ai.guardrail.result.value"] == "decline"
    assert found["gen_ai.guardrail.policy.id"] == "delete.outside"

    # The person's decision: on the human approver's span, with their wait.
    asked = reviews_of("curl-1")
    approvals = {
        attributes[s["context"]["span_id"]]["agent_gateway.approver.name"]: attributes[
            s["context"]["span_id"]
        ]
        for s in children(asked)
        if s["name"] == "gateway.approve"
    }
    assert approvals["rules"]["agent_gateway.approver.decision"] == "abstain"
    person = approvals["human"]
    assert person["agent_gateway.approver.role"] == "person"
    assert person["agent_gateway.approver.decision"] == "allow"
    assert person["agent_gateway.human.decided_by"] == "owner"
    assert person["agent_gateway.human.scope"] == "once"
    assert person["agent_gateway.human.wait"] > 0
    found = attributes[asked["context"]["span_id"]]
    assert found["gen_ai.guardrail.result.value"] == "allow"
    assert found["agent_gateway.human.decided_by"] == "owner"
    # Nothing was cut off: every span's parent is in Phoenix or is the caller's.
    for span in spans:
        parent = span.get("parent_id")
        assert parent in (None, HOST_SPAN, API_SPAN) or parent in by_id

    # The metrics arrived over OTLP from the service too.
    names = metrics_receiver.names()
    assert {
        "agent_gateway.review.duration",
        "agent_gateway.verdicts",
        "agent_gateway.approver.duration",
        "agent_gateway.human.wait.duration",
        "agent_gateway.audit.write.duration",
        "agent_gateway.human.waiting",
    } <= names
    decisions = {
        point["attributes"]["gen_ai.guardrail.result.value"]
        for point in metrics_receiver.points["agent_gateway.verdicts"]
    }
    assert decisions == {"allow", "decline"}
