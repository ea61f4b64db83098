"""
Connections: how many the service holds, how long a client may take to ask, and refusals in JSON.

uvicorn alone bounds neither how many connections stay open nor how long a
client may take to send its headers, so a process without the token could
hold hundreds of idle or half-sent connections and starve real reviews. This
protocol (uvicorn's h11 one, extended) adds:

* a **header deadline**: from connecting, and from the first byte of each
  later request, a client has ``[serve] header-timeout`` seconds to finish its
  headers, or it gets a 408 and the connection closes;
* a **connection cap**: past ``[serve] max-connections``, a new connection
  closes the longest-idle connection that has no request in progress (idle
  keep-alives, half-sent headers); with none to close, the newcomer gets a
  503. A connection serving a request — a review waiting for a person, an
  event stream — is never closed to make room;
* **JSON refusals**: uvicorn's own answers (a request that is not HTTP, an
  application error before any answer) are ``{"error": "<one sentence>"}``
  like every other refusal of the service.

The body deadline is the application's (`gateway_web._http.read_body`).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any, ClassVar, Final

import h11
import msgspec
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["ConnectionLimits", "JsonErrors", "guarded_protocol"]

_ENCODER: Final = msgspec.json.Encoder()


def _raw_refusal(status: int, phrase: str, sentence: str) -> bytes:
    body = _ENCODER.encode({"error": sentence})
    return (
        f"HTTP/1.1 {status} {phrase}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n"
        "cache-control: no-store\r\n\r\n"
    ).encode("ascii") + body


class ConnectionLimits:
    """
    The limits one service puts on its connections, and the connections it holds.

    Args:
        max_connections: Connections open at once.
        header_timeout: Seconds a client has to finish a request's headers.
    """

    def __init__(self, *, max_connections: int, header_timeout: float) -> None:
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        # Oldest first; a connection moves to the end whenever it is active.
        self.open: OrderedDict[_GuardedProtocol, None] = OrderedDict()
        self.evicted = 0
        self.refused = 0
        self.timed_out = 0

    def admit(self, connection: _GuardedProtocol) -> bool:
        """Make room for a new connection, closing the longest-idle one if need be; whether it is in."""
        if len(self.open) >= self.max_connections:
            idle = next((c for c in self.open if not c.busy), None)
            if idle is None:
                self.refused += 1
                return False
            idle.close_idle()
            self.evicted += 1
        self.open[connection] = None
        return True


class _GuardedProtocol(H11Protocol):
    limits: ClassVar[ConnectionLimits]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    @property
    def busy(self) -> bool:
        """Whether a request is in progress (its headers are in, its response not done)."""
        cycle: Any = self.cycle  # None until the first request's headers are in
        return cycle is not None and not cycle.response_complete

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(
                self.limits.header_timeout, self._headers_late
            )

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.limits.admit(self):
            transport.write(
                _raw_refusal(
                    503,
                    "Service Unavailable",
                    "The approval service holds as many connections as it may; retry shortly.",
                )
            )
            transport.close()
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.limits.open.pop(self, None)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self in self.limits.open:
            self.limits.open.move_to_end(self)
        if not self.busy:
            self._arm()  # the first bytes of a request: its headers are now due
        super().data_received(data)
        if self.busy:
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self in self.limits.open:
            self.limits.open.move_to_end(self)

    def _headers_late(self) -> None:
        # The client's time is up, but a loop busy with many reviews may not
        # have read what already arrived: let it poll the socket once more
        # (a callback scheduled now runs before the reads the next poll
        # finds, so the check goes two turns later) and judge only then.
        self.loop.call_soon(self.loop.call_soon, self._judge_headers, self._header_timer)

    def _judge_headers(self, late: asyncio.TimerHandle | None) -> None:
        # The expired timer stays set until now, so bytes trickling in
        # meanwhile do not start a fresh one; a request whose headers came in
        # meanwhile disarmed it.
        if self._header_timer is not late:
            return
        self._header_timer = None
        if self.busy or self.transport.is_closing():
            return
        self.limits.timed_out += 1
        self.transport.write(
            _raw_refusal(
                408,
                "Request Timeout",
                f"The request's headers did not arrive within {self.limits.header_timeout:g} s.",
            )
        )
        self.transport.close()

    def close_idle(self) -> None:
        """Close this connection to make room for another (it has no request in progress)."""
        self._disarm()
        self.limits.open.pop(self, None)
        if not self.transport.is_closing():
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        body = _ENCODER.encode(
            {"error": "The request is not valid HTTP/1.1 (or its headers are too large)."}
        )
        try:
            for event in (
                h11.Response(
                    status_code=400,
                    headers=[
                        (b"content-type", b"application/json"),
                        (b"connection", b"close"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                    reason=b"Bad Request",
                ),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                self.transport.write(self.conn.send(event))
        except h11.LocalProtocolError:
            pass  # a response had begun: nothing more can be said on this connection
        self.transport.close()


def guarded_protocol(limits: ConnectionLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol class, bound to one service's limits (pass it as ``http=``)."""
    return type("GuardedH11Protocol", (_GuardedProtocol,), {"limits": limits})


class JsonErrors:
    """The outermost ASGI layer: an application error before any answer is a JSON 500, not uvicorn's text."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception:
            if started or scope["type"] != "http":
                raise
            body = _ENCODER.encode(
                {"error": "The service failed on this request; nothing was decided."}
            )
            await send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body, "more_body": False})
