"""
Notifiers, against real HTTP receivers on loopback: a signed webhook and an ntfy-compatible server.

The service runs as users run it (`open_service` over real HTTP); a call
that waits for a person is announced to each notifier, and nothing a
notifier does — failing, hanging, refusing — changes how the call is decided.
"""

from __future__ import annotations

import http.server
import json
import queue
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from gateway_notify import NtfyNotifier, WebhookNotifier, sign, verify_signature
from web.support import WAIT, bash, serve, wait_pending

from gateway import GatewayConfig, PluginLoadError
from gateway.config import GatewaySection, NotifierConfig, ServeSection
from gateway.fleet import Notice

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """The clients run under asyncio (the service runs in a loop of its own)."""
    return "asyncio"


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@contextmanager
def receiver(status: int = 200, delay: float = 0.0) -> Iterator[tuple[str, queue.Queue[Received]]]:
    """An HTTP server on 127.0.0.1 that records every POST (and answers ``status`` after ``delay``)."""
    got: queue.Queue[Received] = queue.Queue()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            got.put(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if delay:
                time.sleep(delay)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", got
    finally:
        server.shutdown()
        server.server_close()


def _config(notifiers: dict[str, NotifierConfig]) -> GatewayConfig:
    return GatewayConfig(
        gateway=GatewaySection(approvers=()),
        serve=ServeSection(human_timeout=60.0, public_url="https://gateway.example/"),
        notifiers=notifiers,
    )


def _secret(tmp_path: Path) -> Path:
    path = tmp_path / "webhook.secret"
    path.write_text("s3cret-shared-with-the-receiver\n")
    path.chmod(0o600)
    return path


async def _decide_once_waiting(
    served: Any, call_id: str, told: queue.Queue[Received] | None = None
) -> dict[str, Any]:
    """Post a call, wait until it is pending (and ``told`` got its notice), allow it; return the verdict."""
    verdicts: list[dict[str, Any]] = []
    async with served.client() as client, anyio.create_task_group() as group:

        async def review() -> None:
            answer = await client.post(
                "/v1/review", json=bash("make deploy", call_id), headers=served.auth
            )
            verdicts.append(answer.json())

        group.start_soon(review)
        entry = await wait_pending(client, call_id)
        if told is not None:
            # A person decides once told (a notice still on its way when the
            # call is decided is dropped).
            told.put(await anyio.to_thread.run_sync(told.get, True, WAIT))
        done = await client.post(
            f"/v1/calls/{call_id}/decision",
            json={"decision": "allow", "digest": entry["digest"]},
            headers=served.auth,
        )
        assert done.status_code == 200, done.text
    return verdicts[0]


async def test_a_waiting_call_is_posted_to_the_webhook_signed_with_its_secret(
    tmp_path: Path,
) -> None:
    secret = _secret(tmp_path)
    with receiver() as (url, got):
        cfg = _config(
            {
                "team": NotifierConfig(
                    plugin="webhook",
                    options={"url": f"{url}/hook", "secret-file": str(secret)},
                )
            }
        )
        with serve(cfg, human=True) as served:
            verdict = await _decide_once_waiting(served, "n-1", got)
        request = got.get(timeout=WAIT)
    assert verdict["decision"] == "allow"
    assert request.path == "/hook"
    assert request.headers["content-type"] == "application/json"
    assert verify_signature(secret.read_bytes().strip(), request.headers, request.body)
    notice = msgspec.json.decode(request.body, type=Notice)
    assert (notice.event, notice.id, notice.call_id, notice.tool) == (
        "call.waiting",
        "n-1",
        "n-1",
        "Bash",
    )
    assert notice.summary == "make deploy"
    assert notice.link == "https://gateway.example/#call=n-1"
    # A receiver refuses what it cannot verify.
    assert not verify_signature(b"another secret", request.headers, request.body)
    assert not verify_signature(
        secret.read_bytes().strip(), request.headers, request.body.replace(b"make", b"rake")
    )
    assert not verify_signature(
        secret.read_bytes().strip(), request.headers, request.body, now=time.time() + 3600
    )


async def test_a_waiting_call_is_published_to_the_ntfy_topic_with_a_link_to_it(
    tmp_path: Path,
) -> None:
    token = tmp_path / "ntfy.token"
    token.write_text("tk_abc\n")
    with receiver() as (url, got):
        cfg = _config(
            {
                "phone": NotifierConfig(
                    plugin="ntfy",
                    options={"server": url, "topic": "gateway-team", "token-file": str(token)},
                )
            }
        )
        with serve(cfg, human=True) as served:
            await _decide_once_waiting(served, "n-2", got)
        request = got.get(timeout=WAIT)
    assert request.path == "/gateway-team"
    assert request.body.decode().startswith("`make deploy` (Bash) waits for a person until ")
    assert request.headers["title"] == "agent-gateway: a call waits for you"
    assert request.headers["click"] == "https://gateway.example/#call=n-2"
    assert request.headers["priority"] == "4"
    assert request.headers["authorization"] == "Bearer tk_abc"


async def test_failing_and_hanging_notifiers_change_nothing_about_the_call(
    tmp_path: Path,
) -> None:
    secret = _secret(tmp_path)
    with receiver(status=500) as (failing, got_failing), receiver(delay=5.0) as (hanging, _):
        cfg = _config(
            {
                "refuses": NotifierConfig(
                    plugin="webhook", options={"url": failing, "secret-file": str(secret)}
                ),
                "hangs": NotifierConfig(
                    plugin="ntfy", options={"server": hanging, "topic": "t", "timeout": 2}
                ),
                "nobody-there": NotifierConfig(
                    plugin="webhook",
                    options={"url": "http://127.0.0.1:9/", "secret-file": str(secret)},
                ),
            }
        )
        with serve(cfg, human=True) as served:
            verdict = await _decide_once_waiting(served, "n-3", got_failing)
    assert verdict["decision"] == "allow"
    assert verdict["reason"] == "Allowed `make deploy`: a person (owner) allowed it."


def test_an_unknown_notifier_stops_the_start_with_one_sentence() -> None:
    cfg = _config({"pager": NotifierConfig(plugin="pagerduty")})
    with pytest.raises(PluginLoadError) as refused, serve(cfg, human=True):
        pass
    assert str(refused.value).startswith(
        "No notifier plugin named 'pagerduty' is installed (for notifier 'pager'); installed: "
    )


@pytest.mark.parametrize(
    ("plugin", "options", "problem"),
    [
        ("webhook", {"url": "ftp://x", "secret-file": "/dev/null"}, "url must be an http"),
        ("webhook", {"url": "http://x"}, "invalid options"),
        ("webhook", {"url": "http://x", "secret-file": "/nonexistent/s"}, "cannot read the secret"),
        ("ntfy", {"topic": "a/b"}, "topic must be 1 to 64 characters"),
        ("ntfy", {"topic": "t", "priority": 9}, "invalid options"),
        ("ntfy", {"topic": "t", "colour": "red"}, "invalid options"),
    ],
    ids=["scheme", "no-secret", "secret-missing", "topic-slash", "priority", "unknown-option"],
)
def test_bad_notifier_options_are_refused_when_it_is_built(
    plugin: str, options: dict[str, Any], problem: str
) -> None:
    factory = WebhookNotifier if plugin == "webhook" else NtfyNotifier
    with pytest.raises(ValueError, match=problem):
        factory("n", NotifierConfig(plugin=plugin, options=options))


def test_the_signature_covers_the_timestamp_and_the_exact_body() -> None:
    body = json.dumps({"event": "call.waiting"}).encode()
    signature = sign(b"k", "1700000000", body)
    headers = {"x-gateway-timestamp": "1700000000", "x-gateway-signature": signature}
    assert verify_signature(b"k", headers, body, now=1700000100)
    assert not verify_signature(
        b"k", {**headers, "x-gateway-timestamp": "1700000001"}, body, now=1700000100
    )
    assert not verify_signature(b"k", headers, body + b" ", now=1700000100)
