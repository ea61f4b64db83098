"""
The service against clients that hold on: slow headers, slow bodies, floods of idle connections
and event streams, garbage that is not HTTP, and a second service on a taken port.

Each test talks to a real server over raw sockets where a well-behaved
client library would not misbehave for us. Every refusal must be one
sentence of JSON; real reviews must still get through. Waits are bounded
generously and nothing asserts how fast anything is.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from gateway_web._connections import BUSY_ALLOWANCE

from web.support import WAIT, bash, config, events, serve
from web.test_serve_cli import gateway_serve

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn, httpx and the service run on asyncio."""
    return "asyncio"


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=WAIT)
    sock.settimeout(WAIT)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        data += chunk
    return data


def _json_refusal(raw: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    headers = dict(line.split(b": ", 1) for line in head.split(b"\r\n")[1:] if b": " in line)
    assert headers[b"content-type"].startswith(b"application/json"), head
    payload = json.loads(body)
    assert set(payload) == {"error"}
    sentence = payload["error"]
    assert sentence[0].isupper(), sentence
    assert sentence.endswith("."), sentence
    assert sentence.count(". ") == 0, sentence
    return status, payload


def test_headers_that_never_finish_get_a_408_in_json() -> None:
    """A client that starts a request and stops mid-headers is answered and cut off after header-timeout."""
    with serve(config(header_timeout=0.3)) as served, closing(_connect(served.url)) as sock:
        sock.sendall(b"GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        status, payload = _json_refusal(_read_all(sock))
    assert status == 408
    assert payload["error"] == "The request's headers did not arrive within 0.3 s."
    assert served.running.connections.timed_out == 1


def test_a_connection_that_sends_nothing_is_closed_after_the_header_timeout() -> None:
    with serve(config(header_timeout=0.3)) as served, closing(_connect(served.url)) as sock:
        status, _ = _json_refusal(_read_all(sock))
    assert status == 408


def test_time_the_server_was_too_busy_to_read_is_not_counted_against_the_client() -> None:
    """Half the headers, then the loop blocks past the deadline: the client still has its time after."""
    with serve(config(header_timeout=2.0)) as served, closing(_connect(served.url)) as sock:
        host = served.url.removeprefix("http://").encode()
        sock.sendall(b"GET /v1/info HTTP/1.1\r\nHost: " + host + b"\r\n")
        _until_open(served)
        served.portal.call(_block_the_loop, 6.0)  # three header timeouts, none of them the client's
        sock.sendall(b"Connection: close\r\n\r\n")
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    assert served.running.connections.timed_out == 0


def test_a_busy_loop_does_not_stretch_the_header_deadline_without_bound() -> None:
    """However busy the loop was, headers still unfinished after the allowance of wall time get a 408."""
    with serve(config(header_timeout=0.3)) as served, closing(_connect(served.url)) as sock:
        sock.sendall(b"GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        _until_open(served)
        served.portal.call(_block_the_loop, 0.3 * (BUSY_ALLOWANCE + 1))
        status, payload = _json_refusal(_read_all(sock))
    assert status == 408
    assert payload["error"] == "The request's headers did not arrive within 0.3 s."


def _until_open(served: Any) -> None:
    """Until the service has taken the connection in (and its header deadline runs)."""
    give_up = time.monotonic() + WAIT
    while not served.portal.call(lambda: bool(served.running.connections.open)):
        assert time.monotonic() < give_up, "the service never took the connection in"
        time.sleep(0.01)


def _block_the_loop(seconds: float) -> None:
    """Run on the service's loop: hold it, as many reviews at once on a loaded machine would."""
    time.sleep(seconds)


def test_a_body_that_never_arrives_gets_a_408_in_json() -> None:
    """
    The headers promise a body that never comes: refused after body-timeout,
    nothing reviewed, and the connection closed (it is mid-request, so it
    cannot carry another one; left open, it would idle until the client gives up).
    """
    with serve(config(body_timeout=0.3)) as served, closing(_connect(served.url)) as sock:
        host = served.url.removeprefix("http://").rstrip("/")
        sock.sendall(
            (
                f"POST /v1/review HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {served.token}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            ).encode()
        )
        raw = b""
        while b"\r\n\r\n" not in raw or not raw.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            assert chunk, raw
            raw += chunk
        closed = sock.recv(1)  # the server closes: an end of stream, not a wait for WAIT seconds
        status, payload = _json_refusal(raw)
        reviews = served.running.gateway.statistics().reviews
    assert closed == b""
    assert b"connection: close" in raw.lower()
    assert status == 408
    assert payload["error"] == "The request body did not arrive within 0.3 s."
    assert reviews == 0


@pytest.mark.parametrize(
    "garbage",
    [
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40,  # a TLS hello
        b"NOT HTTP AT ALL\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 70_000,  # headers without end
    ],
    ids=["tls", "not-http", "bad-header", "huge-header"],
)
def test_what_is_not_http_gets_one_sentence_of_json(garbage: bytes) -> None:
    with serve(config()) as served, closing(_connect(served.url)) as sock:
        sock.sendall(garbage)
        status, payload = _json_refusal(_read_all(sock))
    assert status == 400
    assert payload["error"] == "The request is not valid HTTP/1.1 (or its headers are too large)."


async def test_idle_connections_without_the_token_cannot_lock_reviews_out() -> None:
    """
    400 connections that never send a byte, from a process without the token,
    and reviews still get answered: the idle ones are closed to make room.
    """
    with serve(config(max_connections=50, header_timeout=60.0)) as served, ExitStack() as stack:
        idle = [stack.enter_context(closing(_connect(served.url))) for _ in range(400)]
        async with served.client(headers=served.auth) as client:
            verdicts = []
            for index in range(5):
                response = await client.post("/v1/review", json=bash("ls", f"r{index}"))
                verdicts.append(response.json()["decision"])
        limits = served.running.connections
        evicted, still_open = limits.evicted, len(limits.open)
    assert len(idle) == 400
    assert verdicts == ["allow"] * 5
    assert evicted >= 350
    assert still_open <= 50


async def test_a_connection_serving_a_request_is_never_closed_to_make_room() -> None:
    """With every place held by requests in progress, a newcomer is refused in JSON; nobody is cut off."""
    with serve(config(max_connections=3, header_timeout=60.0), human=True) as served:
        answered: list[int] = []
        async with anyio.create_task_group() as group:

            async def waiting(name: str) -> None:
                async with served.client(headers=served.auth) as client:
                    response = await client.post("/v1/review", json=bash("make deploy", name))
                    answered.append(response.status_code)

            async with served.client(headers=served.auth) as watcher, events(watcher) as stream:
                await stream.until("snapshot")
                for name in ("a", "b"):
                    group.start_soon(waiting, name)
                with anyio.fail_after(WAIT):
                    for _ in range(2):
                        await stream.until("pending")
                # Two reviews wait for a person and one event stream is open:
                # every place is held by a request in progress.
                with closing(_connect(served.url)) as sock:
                    status, payload = _json_refusal(_read_all(sock))
            waiting_still = answered == []
            group.cancel_scope.cancel()  # the clients leave; their reviews are declined
    assert status == 503
    assert payload["error"] == (
        "The approval service holds as many connections as it may; retry shortly."
    )
    assert waiting_still


async def test_event_streams_without_the_token_give_way_to_one_with_it() -> None:
    """Every place taken by streams opened without the token: a page with the token still gets one."""
    with serve(config(max_watchers=3)) as served:
        async with (
            served.client() as anonymous,
            served.client(headers=served.auth) as page,
            events(anonymous),
            events(anonymous),
            events(anonymous),
        ):
            refused = await anonymous.get("/v1/events")
            async with events(page) as stream:
                snapshot = await stream.until("snapshot")
    assert refused.status_code == 503
    assert refused.json() == {"error": "3 event streams are open already; close one and retry."}
    assert "pending" in snapshot.json()


async def test_an_approver_raising_system_exit_through_the_api_is_a_decline() -> None:
    """A BaseException from a plugin is a decline with its sentence, not a dropped connection."""

    class Broken:
        name = "broken"
        shares_loop = True

        async def review(self, request: Any) -> Any:
            raise SystemExit(3)

    with serve(config(), approvers=[Broken()]) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/v1/review", json=bash("ls", "x"))
    assert response.status_code == 200
    assert response.json()["decision"] == "decline"
    assert response.json()["reason"] == (
        "Approver 'broken' failed (SystemExit), and the gateway fails closed."
    )


async def test_an_application_error_before_any_answer_is_a_json_500() -> None:
    """Whatever the application raises before it answers, the client gets one sentence of JSON."""
    from gateway_web._connections import JsonErrors

    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("a bug")

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request", "body": b"", "more_body": False}

    await JsonErrors(broken)({"type": "http", "method": "GET", "path": "/"}, receive, send)
    assert sent[0]["status"] == 500
    assert dict(sent[0]["headers"])[b"content-type"] == b"application/json"
    assert json.loads(sent[1]["body"]) == {
        "error": "The service failed on this request; nothing was decided."
    }


def test_a_second_service_that_cannot_bind_leaves_the_first_ones_token_alone(
    tmp_path: Path,
) -> None:
    """Port taken: the second `gateway serve` fails in one sentence and never writes the token file."""
    with gateway_serve(tmp_path) as first:
        before = first.token_file.read_text()
        port = int(first.url.rstrip("/").rsplit(":", 1)[1])
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "gateway._cli",
                "serve",
                "--port",
                str(port),
                "--token-file",
                str(first.token_file),
            ],
            capture_output=True,
            text=True,
            timeout=WAIT * 2,
            cwd=tmp_path,
            check=False,
        )
        after = first.token_file.read_text()
        with httpx.Client(base_url=first.url, trust_env=False, timeout=WAIT) as client:
            info = client.get("/v1/info", headers={"Authorization": f"Bearer {first.token}"})
    assert second.returncode == 2
    assert second.stderr.startswith(f"gateway serve: Cannot listen on 127.0.0.1:{port} (")
    assert second.stderr.count("\n") == 1
    assert after == before
    assert info.json()["authorized"] is True
