"""
Connections: how many the service holds, how long a client may take to ask, and refusals in JSON.

uvicorn alone bounds neither how many connections stay open nor how long a
client may take to send its headers, so a process without the token could
hold hundreds of idle or half-sent connections and starve real reviews. This
protocol (uvicorn's h11 one, extended) adds:

* a **header deadline**: from connecting, and from the first byte of each
  later request, a client has ``[serve] header-timeout`` seconds to finish its
  headers, or it gets a 408 and the connection closes. The deadline bounds a
  slow client, not a busy server: time the event loop was too busy to run
  what was due (many reviews at once, a starved process) is not counted
  against the client, up to `BUSY_ALLOWANCE` times the timeout in all;
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

TICK: Final = 0.1
"""Seconds between the loop clock's ticks while a header deadline runs: how finely busy time is seen."""

BUSY_ALLOWANCE: Final = 5.0
"""A header deadline never stretches past this many header timeouts of wall time, however busy the loop."""


class LoopClock:
    """
    How long the event loop was too busy to run what was due: the seconds its ticks came late.

    It ticks only while someone holds it (a header deadline runs), so an idle
    service does not wake up for it.
    """

    def __init__(self) -> None:
        self._late = 0.0
        self._holders = 0
        self._due = 0.0
        self._tick: asyncio.TimerHandle | None = None

    def hold(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start measuring (or keep measuring) for one more holder."""
        self._holders += 1
        if self._tick is None:
            self._schedule(loop, loop.time())

    def release(self) -> None:
        """One holder is done; with none left, stop ticking."""
        self._holders = max(0, self._holders - 1)
        if self._holders == 0 and self._tick is not None:
            self._tick.cancel()
            self._tick = None

    def busy(self, loop: asyncio.AbstractEventLoop) -> float:
        """Seconds the loop has been late so far, including a tick overdue now."""
        overdue = max(0.0, loop.time() - self._due) if self._tick is not None else 0.0
        return self._late + overdue

    def _schedule(self, loop: asyncio.AbstractEventLoop, now: float) -> None:
        self._due = now + TICK
        self._tick = loop.call_at(self._due, self._ticked, loop)

    def _ticked(self, loop: asyncio.AbstractEventLoop) -> None:
        now = loop.time()
        self._late += max(0.0, now - self._due)
        self._schedule(loop, now)


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
        self.clock = LoopClock()

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
        # When the headers became due (loop time), and how busy the loop had been by then.
        self._due_since = 0.0
        self._busy_since = 0.0

    @property
    def busy(self) -> bool:
        """Whether a request is in progress (its headers are in, its response not done)."""
        cycle: Any = self.cycle  # None until the first request's headers are in
        return cycle is not None and not cycle.response_complete

    def _arm(self) -> None:
        if self._header_timer is None:
            clock = self.limits.clock
            clock.hold(self.loop)
            self._due_since = self.loop.time()
            self._busy_since = clock.busy(self.loop)
            self._header_timer = self.loop.call_later(
                self.limits.header_timeout, self._headers_late
            )

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
            self.limits.clock.release()

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
        if self.busy or self.transport.is_closing():
            self._disarm()
            return
        timeout = self.limits.header_timeout
        waited = self.loop.time() - self._due_since
        busy = self.limits.clock.busy(self.loop) - self._busy_since
        left = min(timeout - (waited - busy), BUSY_ALLOWANCE * timeout - waited)
        if left > 0:
            # The loop was busy for part of the client's time: that part is
            # given back (within the allowance), and the deadline runs on.
            self._header_timer = self.loop.call_later(left, self._headers_late)
            return
        self._disarm()
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
