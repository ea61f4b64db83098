"""
The ``webhook`` approver, against a local TLS receiver that checks signatures with its own code.

TLS verification stays on throughout: the receiver's certificate comes from
a throwaway certificate authority the approver is told to trust. Every
failure kind (a receiver that hangs, answers an allow too late, answers 500,
redirects, answers garbage or too much, refuses the signature; a certificate
that does not verify; nothing listening) ends in a decline, or an abstain
when configured.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_delegates import CONTRACT_VERSION, verify_signature
from gateway_delegates.webhook import WebhookApprover

from delegates.servers import (
    Authority,
    Reply,
    Server,
    answer,
    authority,
    queue,
    serve,
    webhook_receiver,
)
from delegates.support import BOUND, context, request_for
from gateway import Abstain, Allow, Decline, Gateway, ToolCall, load_config

pytestmark = pytest.mark.anyio

KEY = "9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0"
CALL = ToolCall("Bash", {"command": "make test"}, session_id="s-9", agent_id="a-9")


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The signing key, in the variable the approver reads by default."""
    monkeypatch.setenv("GATEWAY_WEBHOOK_SECRET", KEY)
    return KEY


@pytest.fixture
def ca(tmp_path: Path) -> Authority:
    """A throwaway certificate authority and a server certificate for 127.0.0.1."""
    return authority(tmp_path)


@pytest.fixture
def receiver(ca: Authority, key: str) -> Iterator[Any]:
    """Start a receiver that verifies signatures with ``key`` and answers the given replies."""
    servers: list[Server] = []

    def start(*replies: Reply, receiver_key: str = key) -> Server:
        script = webhook_receiver(receiver_key.encode(), replies)
        server = Server(script, tls=ca.server_context)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def _approver(server: Server | str, ca: Authority, **options: Any) -> WebhookApprover:
    url = server if isinstance(server, str) else server.url + "/gateway"
    return WebhookApprover({"url": url, "ca-file": ca.ca_file, **options}, context())


async def _review(approver: WebhookApprover, call: ToolCall = CALL) -> Any:
    request = await request_for(call)
    try:
        with anyio.fail_after(BOUND):
            return await approver.review(request)
    finally:
        await approver.aclose()


# ── answers ──


@pytest.mark.parametrize(
    ("decision", "kind"),
    [("allow", Allow), ("decline", Decline), ("abstain", Abstain)],
    ids=["allow", "decline", "abstain"],
)
async def test_the_receivers_answer_is_the_approvers(
    receiver: Any, ca: Authority, decision: str, kind: type
) -> None:
    server = receiver(Reply(body=answer(decision, f"The receiver said {decision}.")))
    result = await _review(_approver(server, ca))
    assert (type(result), result.reason) == (kind, f"The receiver said {decision}.")
    (request,) = server.requests
    assert request.path == "/gateway"
    assert request.headers["content-type"] == "application/json"
    assert verify_signature(KEY.encode(), request.headers, request.body)
    document = request.json()
    assert document["version"] == CONTRACT_VERSION
    assert document["call"]["tool"] == "Bash"
    assert document["call"]["session_id"] == "s-9"
    assert document["plan"]["source"] == "make test"


async def test_a_retry_carries_the_same_delivery_and_a_fresh_signature(
    receiver: Any, ca: Authority
) -> None:
    server = receiver(Reply(status=503), Reply(body=answer("allow", "Fine on the second try.")))
    result = await _review(_approver(server, ca, retries=2))
    assert result == Allow(reason="Fine on the second try.")
    first, second = server.requests
    assert first.headers["x-gateway-delivery"] == second.headers["x-gateway-delivery"]
    assert first.body == second.body
    assert all(verify_signature(KEY.encode(), r.headers, r.body) for r in server.requests)


# ── failures ──


@pytest.mark.parametrize(
    ("replies", "options", "clause", "attempts"),
    [
        pytest.param(
            [Reply(hang=True)],
            {"timeout": 1, "retries": 0},
            "did not answer within 1 s",
            1,
            id="hangs",
        ),
        pytest.param(
            [Reply(hang=True)],
            {"timeout": 1, "retries": 1},
            "did not answer within 1 s",
            2,
            id="hangs-twice",
        ),
        pytest.param(
            [Reply(delay=30, body=answer("allow", "Too late."))],
            {"timeout": 1, "retries": 0},
            "did not answer within 1 s",
            1,
            id="late-allow",
        ),
        pytest.param(
            [Reply(delay=30, headers_first=True, body=answer("allow", "Too late."))],
            {"timeout": 1, "retries": 0},
            "did not answer within 1 s",
            1,
            id="late-body",
        ),
        pytest.param(
            [Reply(cut=True, body=answer("allow", "Cut short."))],
            {"retries": 1},
            "could not be reached (the connection closed before the answer was complete)",
            2,
            id="dies-mid-answer",
        ),
        pytest.param([Reply(status=500)], {"retries": 2}, "answered HTTP 500", 3, id="500"),
        pytest.param([Reply(status=429)], {"retries": 1}, "answered HTTP 429", 2, id="429"),
        pytest.param(
            [Reply(status=404)], {"retries": 3}, "answered HTTP 404", 1, id="404-is-not-retried"
        ),
        pytest.param(
            [Reply(status=302, headers=(("Location", "https://127.0.0.1:1/other"),))],
            {},
            "answered HTTP 302",
            1,
            id="redirect-is-not-followed",
        ),
        pytest.param(
            [Reply(status=201, body=answer("allow", "Created?"))],
            {},
            "answered HTTP 201",
            1,
            id="201",
        ),
        pytest.param(
            [Reply(body=b"<html>OK</html>", content_type="text/html")],
            {},
            "answered something that is not one JSON object",
            1,
            id="garbage",
        ),
        pytest.param(
            [Reply(body=answer("allow", "x" * 5000))],
            {"max-response": 1000},
            "answered more than 1000 bytes",
            1,
            id="huge",
        ),
        pytest.param(
            [Reply(body=answer("allow", "x" * 100_000), chunked=True)],
            {"max-response": 1000},
            "answered more than 1000 bytes",
            1,
            id="huge-chunked",
        ),
        pytest.param(
            [Reply(body=b'{"decision": "allow", "reason": "Fine.", "until": "forever"}')],
            {},
            "answered JSON that is not a decision (object contains unknown field `until`)",
            1,
            id="unknown-field",
        ),
        pytest.param(
            [Reply(body=b'{"decision": "decline", "reason": "No.", "decision": "allow"}')],
            {},
            "answered JSON that is not a decision (the key `decision` appears twice)",
            1,
            id="decision-twice",
        ),
        pytest.param(
            [Reply(body=b'{"decision": "allow"}')],
            {},
            "answered JSON that is not a decision (object missing required field `reason`)",
            1,
            id="no-reason",
        ),
    ],
)
async def test_every_failure_declines_with_one_sentence(
    receiver: Any,
    ca: Authority,
    replies: list[Reply],
    options: dict[str, Any],
    clause: str,
    attempts: int,
) -> None:
    server = receiver(*replies)
    result = await _review(_approver(server, ca, **options))
    assert isinstance(result, Decline)
    assert (
        result.reason
        == f"The webhook at 127.0.0.1:{server.url.rsplit(':', 1)[1]} {clause}, and the gateway fails closed."
    )
    assert len(server.requests) == attempts


async def test_a_failure_abstains_when_configured(receiver: Any, ca: Authority) -> None:
    server = receiver(Reply(status=500))
    result = await _review(_approver(server, ca, retries=0, **{"on-failure": "abstain"}))
    assert isinstance(result, Abstain)
    assert result.reason is not None
    assert result.reason.endswith(
        "answered HTTP 500, so the next approver or a person must decide."
    )


async def test_a_receiver_with_another_key_refuses_the_signature(
    receiver: Any, ca: Authority
) -> None:
    """A bad signature setup: the receiver holds another key, so it answers 401, and that declines."""
    server = receiver(Reply(body=answer("allow", "Never reached.")), receiver_key="another" * 8)
    result = await _review(_approver(server, ca))
    assert isinstance(result, Decline)
    assert "answered HTTP 401" in result.reason


async def test_a_certificate_from_an_authority_not_trusted_is_refused(
    receiver: Any, ca: Authority, tmp_path: Path
) -> None:
    server = receiver(Reply(body=answer("allow", "Never reached.")))
    (tmp_path / "other").mkdir()
    stranger = authority(tmp_path / "other")
    result = await _review(_approver(server, stranger, retries=1))
    assert isinstance(result, Decline)
    assert (
        "could not be verified over TLS (unable to get local issuer certificate)" in result.reason
    )
    assert server.requests == []


async def test_the_systems_authorities_are_used_when_no_ca_file_is_given(
    receiver: Any, key: str
) -> None:
    server = receiver(Reply(body=answer("allow", "Never reached.")))
    approver = WebhookApprover({"url": server.url}, context())
    result = await _review(approver)
    assert isinstance(result, Decline)
    assert "could not be verified over TLS" in result.reason


async def test_a_certificate_for_another_host_is_refused(tmp_path: Path, key: str) -> None:
    other = authority(tmp_path, hosts=("review.example.com",))
    with serve(
        queue([Reply(body=answer("allow", "Never reached."))]), tls=other.server_context
    ) as server:
        result = await _review(_approver(server, other))
    assert isinstance(result, Decline)
    assert (
        "could not be verified over TLS (IP address mismatch, certificate is not valid for '127.0.0.1')"
        in result.reason
    )
    assert server.requests == []


async def test_plain_http_behind_an_https_url_is_refused(ca: Authority, key: str) -> None:
    with serve(queue([Reply(body=answer("allow", "Never reached."))])) as server:
        result = await _review(_approver(server.url.replace("http:", "https:"), ca, retries=0))
    assert isinstance(result, Decline)
    assert "could not be verified over TLS" in result.reason


async def test_nothing_listening_is_unreachable(ca: Authority, key: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = await _review(_approver(f"https://127.0.0.1:{port}/gateway", ca, retries=1))
    assert isinstance(result, Decline)
    assert result.reason == (
        f"The webhook at 127.0.0.1:{port} could not be reached (connection refused), "
        "and the gateway fails closed."
    )


async def test_a_call_too_large_is_not_sent(receiver: Any, ca: Authority) -> None:
    server = receiver(Reply(body=answer("allow", "Never reached.")))
    big = ToolCall("Write", {"file_path": "a.txt", "content": "y" * 5000})
    result = await _review(_approver(server, ca, **{"max-document": 2000}), big)
    assert isinstance(result, Decline)
    assert "The call is too large to hand to the webhook" in result.reason
    assert server.requests == []


# ── loading ──


async def test_the_gateway_loads_it_by_name_from_the_config(receiver: Any, ca: Authority) -> None:
    server = receiver(Reply(body=answer("decline", "Not on a Friday.")))
    config = load_config(
        (
            '[gateway]\napprovers = ["webhook"]\n'
            f"[approver.webhook]\nurl = {json.dumps(server.url)}\nca-file = {json.dumps(ca.ca_file)}\n"
        ).encode()
    )
    with anyio.fail_after(BOUND):
        async with Gateway(config) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": "ls"}))
    assert (verdict.decision, verdict.approver, verdict.reason) == (
        "decline",
        "webhook",
        "Not on a Friday.",
    )


@pytest.mark.parametrize(
    ("options", "environment", "message"),
    [
        (
            {"url": "https://r.example/hook"},
            {},
            "The `webhook` approver's signing key $GATEWAY_WEBHOOK_SECRET is not set; set it to a long random secret shared with the receiver (openssl rand -hex 32).",
        ),
        (
            {"url": "https://r.example/hook"},
            {"GATEWAY_WEBHOOK_SECRET": "short"},
            "The `webhook` approver's signing key $GATEWAY_WEBHOOK_SECRET holds fewer than 32 bytes; set it to a long random secret shared with the receiver (openssl rand -hex 32).",
        ),
        (
            {"url": "https://r.example/hook", "secret-env": "REVIEW_KEY"},
            {"GATEWAY_WEBHOOK_SECRET": KEY},
            "The `webhook` approver's signing key $REVIEW_KEY is not set; set it to a long random secret shared with the receiver (openssl rand -hex 32).",
        ),
        (
            {"url": "http://r.example/hook"},
            {"GATEWAY_WEBHOOK_SECRET": KEY},
            "Invalid [approver.webhook] options: 'http://r.example/hook' is not https; TLS is required.",
        ),
        (
            {"url": "http://127.0.0.1:8080/hook"},
            {"GATEWAY_WEBHOOK_SECRET": KEY},
            "Invalid [approver.webhook] options: 'http://127.0.0.1:8080/hook' is not https; TLS is required.",
        ),
        (
            {"url": "https://user:pw@r.example/hook"},
            {"GATEWAY_WEBHOOK_SECRET": KEY},
            "Invalid [approver.webhook] options: the URL carries credentials; keep secrets in the environment.",
        ),
        (
            {"url": "ftp://r.example/hook"},
            {"GATEWAY_WEBHOOK_SECRET": KEY},
            "Invalid [approver.webhook] options: 'ftp://r.example/hook' is not an https URL.",
        ),
        (
            {},
            {"GATEWAY_WEBHOOK_SECRET": KEY},
            "Invalid [approver.webhook] options: object missing required field `url`.",
        ),
        (
            {"url": "https://r.example/hook", "retries": 9},
            {"GATEWAY_WEBHOOK_SECRET": KEY},
            "Invalid [approver.webhook] options: expected `int` <= 5 (at `retries`).",
        ),
        (
            {"url": "https://r.example/hook", "ca-file": "/no/such/ca.pem"},
            {"GATEWAY_WEBHOOK_SECRET": KEY},
            "Invalid [approver.webhook] options: the CA bundle '/no/such/ca.pem' cannot be read (FileNotFoundError).",
        ),
    ],
    ids=[
        "no-key",
        "short-key",
        "key-in-another-variable",
        "plain-http",
        "plain-http-loopback",
        "credentials-in-url",
        "not-http",
        "no-url",
        "too-many-retries",
        "no-ca-file",
    ],
)
def test_a_bad_setup_stops_the_start_with_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
    options: dict[str, Any],
    environment: dict[str, str],
    message: str,
) -> None:
    monkeypatch.delenv("GATEWAY_WEBHOOK_SECRET", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        WebhookApprover(options, context())
