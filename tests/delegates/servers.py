"""
Local stand-in servers for the delegate tests: a TLS webhook receiver and two model APIs.

Each is a real HTTP server (the standard library's, in a thread) on a free
loopback port, so the approvers are tested through real sockets, real TLS
(a throwaway certificate authority made with ``trustme``; verification stays
on) and real HTTP framing. A server answers from a script — a queue of
`Reply` — and records every request. `Reply(hang=True)` accepts the request
and never answers until the server closes; `Reply(delay=S)` answers after S
seconds (with ``headers_first``, the status and headers at once and the body
after S seconds): a late answer. `Reply(cut=True)` declares twice the body's
length, sends the body and closes: a server that dies mid-answer.

* `webhook_receiver` checks the signature as a receiver would, with its own
  HMAC code (not the gateway's), and answers 401 to a request it cannot verify.
* `anthropic_standin` answers ``POST /v1/messages`` like the Messages API
  (``x-api-key``, ``anthropic-version``; text blocks, ``stop_reason``).
* `openai_standin` answers ``POST /v1/chat/completions`` like an
  OpenAI-compatible endpoint (``Authorization: Bearer``; ``choices``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final, NamedTuple

import trustme

HANG_LIMIT: Final = 120.0
"""Seconds a hanging reply waits at most, if the server is never closed (it always is)."""


class Reply(NamedTuple):
    """One scripted HTTP response."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    hang: bool = False
    headers: tuple[tuple[str, str], ...] = ()
    chunked: bool = False
    delay: float = 0.0
    headers_first: bool = False
    cut: bool = False


class Recorded(NamedTuple):
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body, decoded."""
        return json.loads(self.body)


Script = Callable[[Recorded], Reply]


class Server:
    """
    A scripted HTTP(S) server on a free loopback port, serving in a thread.

    Attributes:
        requests: Every request received, in order.
        url: The base URL (``https://127.0.0.1:PORT`` with TLS).
    """

    def __init__(self, script: Script, *, tls: ssl.SSLContext | None) -> None:
        self.requests: list[Recorded] = []
        self._closing = threading.Event()
        self._script = script
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read `requests`."""

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(min(length, 64 * 1024 * 1024))
                recorded = Recorded(
                    method="POST",
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                server.requests.append(recorded)
                reply = server._script(recorded)
                if reply.hang:
                    server._closing.wait(HANG_LIMIT)
                    self.close_connection = True
                    return
                try:
                    self._send(reply)
                except OSError:
                    self.close_connection = True  # the client stopped reading: as it should

            def _send(self, reply: Reply) -> None:
                late = reply.delay > 0
                if late and not reply.headers_first and server._closing.wait(reply.delay):
                    self.close_connection = True
                    return
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                if reply.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    declared = len(reply.body) * (2 if reply.cut else 1)
                    self.send_header("Content-Length", str(declared))
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.end_headers()
                if late and reply.headers_first:
                    self.wfile.flush()
                    if server._closing.wait(reply.delay):
                        self.close_connection = True
                        return
                if not reply.chunked:
                    self.wfile.write(reply.body)
                    self.close_connection = reply.cut
                    return
                for start in range(0, len(reply.body), 4096):
                    piece = reply.body[start : start + 4096]
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        scheme = "http"
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
            scheme = "https"
        host, port = self._httpd.server_address[:2]
        self.url = f"{scheme}://{host!s}:{port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop serving; release every hanging request."""
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(10)


class Authority(NamedTuple):
    """A throwaway certificate authority: the server's TLS context and the CA bundle clients trust."""

    server_context: ssl.SSLContext
    ca_file: str


def authority(directory: Path, *, hosts: Iterable[str] = ("127.0.0.1", "localhost")) -> Authority:
    """A new CA, a certificate for ``hosts`` signed by it, and the CA's PEM file in ``directory``."""
    ca = trustme.CA()
    certificate = ca.issue_cert(*hosts)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(context)
    path = directory / f"ca-{id(ca)}.pem"
    ca.cert_pem.write_to_path(str(path))
    return Authority(server_context=context, ca_file=str(path))


@contextmanager
def serve(script: Script, *, tls: ssl.SSLContext | None = None) -> Iterator[Server]:
    """Run a scripted server for the length of the block."""
    server = Server(script, tls=tls)
    try:
        yield server
    finally:
        server.close()


def queue(replies: Iterable[Reply]) -> Script:
    """A script answering with ``replies`` in order (the last one again, once they run out)."""
    pending = deque(replies)
    last = [Reply(status=500, body=b'{"error": "no reply scripted"}')]

    def script(_: Recorded) -> Reply:
        if pending:
            last[0] = pending.popleft()
        return last[0]

    return script


def answer(decision: str, reason: str) -> bytes:
    """An answer object's bytes."""
    return json.dumps({"decision": decision, "reason": reason}).encode()


# ── the webhook receiver ──


def webhook_receiver(key: bytes, replies: Iterable[Reply], *, tolerance: int = 300) -> Script:
    """
    A receiver that verifies each request's signature with its own HMAC code, then answers from ``replies``.

    Unverifiable requests get 401 and do not use up a reply.
    """
    scripted = queue(replies)

    def script(request: Recorded) -> Reply:
        timestamp = request.headers.get("x-gateway-timestamp", "")
        delivery = request.headers.get("x-gateway-delivery", "")
        signature = request.headers.get("x-gateway-signature", "")
        expected = hmac.new(
            key, timestamp.encode() + b"." + delivery.encode() + b"." + request.body, hashlib.sha256
        ).hexdigest()
        fresh = timestamp.isdigit() and abs(time.time() - int(timestamp)) <= tolerance
        if not (fresh and hmac.compare_digest(signature, "v1=" + expected)):
            return Reply(status=401, body=b'{"error": "the signature does not verify"}')
        return scripted(request)

    return script


# ── the model APIs ──


def anthropic_text(text: str, *, stop_reason: str = "end_turn") -> Reply:
    """A Messages API reply whose content is one text block."""
    body = {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": "standin",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }
    return Reply(body=json.dumps(body).encode())


def openai_text(
    text: str | None, *, finish_reason: str = "stop", refusal: str | None = None
) -> Reply:
    """A chat completions reply with one choice."""
    body = {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "created": 0,
        "model": "standin",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": refusal},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }
    return Reply(body=json.dumps(body).encode())


def anthropic_standin(key: str, replies: Iterable[Reply]) -> Script:
    """The Messages API: 401 without the key or the version header, 404 off its path."""
    scripted = queue(replies)

    def script(request: Recorded) -> Reply:
        if request.path != "/v1/messages":
            return Reply(
                status=404, body=b'{"type": "error", "error": {"type": "not_found_error"}}'
            )
        if request.headers.get("x-api-key") != key or "anthropic-version" not in request.headers:
            return Reply(
                status=401, body=b'{"type": "error", "error": {"type": "authentication_error"}}'
            )
        return scripted(request)

    return script


def openai_standin(key: str, replies: Iterable[Reply]) -> Script:
    """A chat completions endpoint under ``/v1``: 401 without the bearer key, 404 off its path."""
    scripted = queue(replies)

    def script(request: Recorded) -> Reply:
        if request.path != "/v1/chat/completions":
            return Reply(status=404, body=b'{"error": {"message": "not found"}}')
        if key and request.headers.get("authorization") != f"Bearer {key}":
            return Reply(status=401, body=b'{"error": {"message": "invalid api key"}}')
        return scripted(request)

    return script
