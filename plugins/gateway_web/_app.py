"""
The HTTP API and the page: routes over an `ApprovalService`.

Every handler answers JSON; every refusal is ``{"error": "<one sentence>"}``
with a 4xx status, and a bug is a 500 with a sentence, never a dropped
connection. Access checks live in `gateway_web._guard`, in front of all of it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Final, Literal

import anyio
import anyio.to_thread
import msgspec
from gateway_hooks import HookReply, LinkStore, answer_hook, load_host
from gateway_human import DecisionRefused, Scope as RememberScope
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

import gateway
from gateway import GatewayConfig, PluginLoadError, ToolCall, Verdict
from gateway.audit import read_audit_log
from gateway.events import trace_context
from gateway.fleet import Identity, TokenBook
from gateway_web._guard import Guard
from gateway_web._history import QueryError, parse_query
from gateway_web._http import BadRequest, error_response, json_response, read_json
from gateway_web._service import ApprovalService, CallEntry, Message

__all__ = ["DecisionBody", "create_app", "review_limit"]

STATIC: Final = Path(__file__).resolve().parent / "static"
KEEPALIVE: Final = 15.0
"""Seconds between comments on an idle event stream (so dead connections are noticed)."""

_log = logging.getLogger("gateway_web")


class DecisionBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    A person's decision, as posted to ``/v1/calls/{id}/decision``.

    Attributes:
        decision: ``allow`` or ``decline``.
        digest: The plan digest the person saw; it must be the call's.
        scope: What to remember with an allow: ``once`` (nothing), ``digest``,
            ``session`` or ``prefix``.
        prefix: The leading arguments for a ``prefix`` scope.
        note: A note (kept in the decision record and the verdict's reason).
    """

    decision: Literal["allow", "decline"]
    digest: str
    scope: RememberScope | None = None
    prefix: tuple[str, ...] | None = None
    note: str | None = None


def _identity(request: Request) -> Identity | None:
    """Who the request's token belongs to (the guard looked it up), if anyone."""
    identity = getattr(request.state, "identity", None)
    return identity if isinstance(identity, Identity) else None


class _CallIdOnly(msgspec.Struct):
    call_id: str | None = None


Handler = Callable[[Request], Awaitable[Response]]


class _NoVerdict(Exception):
    """The review ended without a verdict; the answer to send is kept on the reviewer."""


class _Reviewing:
    """A reviewer for `answer_hook` that reviews while the HTTP client waits (see `_Api.waiting_review`)."""

    def __init__(self, api: _Api, request: Request) -> None:
        self.api = api
        self.request = request
        self.response: Response | None = None
        self.config = api.service.gateway.config

    async def review(self, call: ToolCall) -> Verdict:
        """The verdict; a client that left or a stopping gateway is kept as the answer to send."""
        verdict = await self.api.waiting_review(self.request, call)
        if isinstance(verdict, Response):
            self.response = verdict
            raise _NoVerdict
        return verdict

    async def record_outcome(
        self, call_id: str | None, outcome: str, detail: str | None = None
    ) -> None:
        """Record what the host did with the call (in the caller's trace, when it sent one)."""
        with trace_context(self.request.headers):
            await self.api.service.gateway.record_outcome(call_id, outcome, detail)


def _answers(handler: Handler) -> Handler:
    """Turn refusals into 4xx answers and bugs into a 500 with a sentence (never a crash)."""

    async def handle(request: Request) -> Response:
        try:
            return await handler(request)
        except BadRequest as refusal:
            # A body that never arrived leaves the connection mid-request: it
            # cannot carry another one, so it is closed, not left to idle.
            closing = {"connection": "close"} if refusal.status == 408 else None
            return error_response(refusal.status, refusal.message, closing)
        except ClientDisconnect:
            return Response(status_code=499)  # Nobody is left to read an answer.
        except Exception:  # noqa: BLE001 -- the one boundary where a bug becomes a 500 answer
            _log.exception("The approval service failed on %s %s", request.method, request.url.path)
            return error_response(500, "The service failed on this request; nothing was decided.")

    return handle


def _query_int(request: Request, name: str, default: int | None, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(400, f"The query parameter {name!r} must be a whole number.") from None
    if not low <= value <= high:
        raise BadRequest(400, f"The query parameter {name!r} must be between {low} and {high}.")
    return value


def review_limit(config: GatewayConfig) -> float:
    """Seconds a review may take in the service: a net under the gateway's own ``review-timeout``, which it returns within."""
    return config.gateway.review_timeout + 5


class _Api:
    def __init__(self, service: ApprovalService) -> None:
        self.service = service
        self.review_limit = review_limit(service.gateway.config)
        self._body = (service.settings.max_body, service.settings.body_timeout)

    # ── the page ──

    async def page(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    async def info(self, request: Request) -> Response:
        board = self.service.board
        return json_response(
            {
                "version": gateway.__version__,
                "authorized": bool(getattr(request.state, "authorized", False)),
                "identity": _identity(request),
                "replica": getattr(board, "replica", None),
                "policy": getattr(
                    self.service.gateway.services.get("rules"), "policy_version", None
                ),
                "human": board is not None,
                "remembers": board is not None and board.remembers,
                "protect_reads": self.service.settings.protect_reads,
                "human_timeout": self.service.settings.human_timeout,
                "audit": self.service.audit_path is not None,
                "seq": self.service.last_seq,
                "instance": self.service.instance,
            }
        )

    # ── reviews ──

    async def waiting_review(self, request: Request, call: ToolCall) -> Verdict | Response:
        """Review while the client waits: a client that leaves cancels the review (a decline)."""
        verdicts: list[Verdict] = []
        left = False
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                nonlocal left
                while True:
                    message = await request.receive()
                    if message["type"] == "http.disconnect":
                        left = True
                        group.cancel_scope.cancel()
                        return

            group.start_soon(watch)
            # A caller's W3C traceparent makes the review a child of its span.
            with anyio.move_on_after(self.review_limit), trace_context(request.headers):
                try:
                    verdicts.append(await self.service.gateway.review(call))
                except RuntimeError:
                    group.cancel_scope.cancel()
                    return error_response(503, "The gateway is stopping; retry later.")
            group.cancel_scope.cancel()
        if verdicts:
            return verdicts[0]
        if left:
            return Response(status_code=499)
        return error_response(
            504, f"The review took longer than {self.review_limit:g} s, and it was declined."
        )

    async def review(self, request: Request) -> Response:
        call = await read_json(request, ToolCall, *self._body)
        verdict = await self.waiting_review(request, call)
        if isinstance(verdict, Response):
            return verdict
        return json_response(verdict)

    async def hook(self, request: Request) -> Response:
        """
        ``POST /hooks/{host}``: a host's hook event in, the host's own answer out.

        For hosts that can post their hook events (Claude Code's ``http``
        hook type). A call the hook would block is answered with the host's
        own denial (200), so the host blocks it even without a blocking
        failure setting; an event that cannot be read is a 4xx.
        """
        name = request.path_params["host"]
        try:
            host = load_host(name)
        except PluginLoadError as error:
            raise BadRequest(404, str(error)) from None
        event = await read_json(request, dict[str, Any], *self._body)
        data = msgspec.json.encode(event)
        reviewer = _Reviewing(self, request)
        reply: HookReply = await answer_hook(
            host,
            reviewer,
            data,
            allow=self.service.gateway.config.hosts.allow,
            links=LinkStore.default(),
            within=self.review_limit,
        )
        if reviewer.response is not None:
            return reviewer.response
        if reply.status == 0:
            return Response((reply.stdout or "{}").encode(), media_type="application/json")
        denial = host.denial(str(event.get("hook_event_name", "")), reply.stderr)
        if denial is None:
            raise BadRequest(400, reply.stderr)
        return Response(denial.encode(), media_type="application/json")

    # ── calls and decisions ──

    async def calls(self, request: Request) -> Response:
        state = request.query_params.get("state", "all")
        if state not in ("pending", "decided", "all"):
            raise BadRequest(400, "The query parameter 'state' must be pending, decided or all.")
        history = self.service.settings.history
        limit = _query_int(request, "limit", history, 1, history)
        board = self.service.board
        entries: list[CallEntry] = []
        if board is not None:
            if state in ("pending", "all"):
                entries.extend(self.service.entry(item, None) for item in board.pending())
            if state in ("decided", "all"):
                entries.extend(
                    self.service.entry(item, record) for item, record in board.decided(limit)
                )
        return json_response(
            {"seq": self.service.last_seq, "human": board is not None, "calls": entries}
        )

    async def call(self, request: Request) -> Response:
        board_id = request.path_params["board_id"]
        found = self.service.board.get(board_id) if self.service.board is not None else None
        if found is None:
            raise BadRequest(
                404,
                f"No call with id {board_id[:100]!r} waits for a person or was decided recently.",
            )
        return json_response(self.service.entry(*found))

    async def decide(self, request: Request) -> Response:
        board_id = request.path_params["board_id"]
        body = await read_json(request, DecisionBody, *self._body)
        board = self.service.board
        if board is None:
            raise BadRequest(
                404, "No human approver is in the approver chain, so no call waits for a person."
            )
        identity = _identity(request)
        try:
            record = await board.decide(
                board_id,
                decision=body.decision,
                digest=body.digest,
                scope=body.scope,
                prefix=body.prefix,
                note=body.note,
                decided_by=None if identity is None else identity.name,
            )
        except DecisionRefused as refusal:
            return error_response(refusal.status, refusal.message)
        final = await board.wait_decided(board_id, 30.0)
        return json_response({"accepted": True, "decision": final or record})

    async def history(self, request: Request) -> Response:
        """``GET /v1/history``: the kept decisions, filtered, searched and paginated (token required)."""
        params = request.query_params
        if len(params.multi_items()) != len(set(params.keys())):
            raise BadRequest(400, "Give each query parameter of the history at most once.")
        try:
            query = parse_query(params, params.keys())
        except QueryError as error:
            raise BadRequest(400, str(error)) from None
        return json_response(self.service.history(query))

    # ── the audit log ──

    async def audit(self, request: Request) -> Response:
        path = self.service.audit_path
        if path is None:
            raise BadRequest(
                404,
                "No audit log is configured; start with `gateway serve --audit FILE` or add a [sinks.audit] table.",
            )
        call_id = request.query_params.get("call")
        headers = {"content-disposition": 'inline; filename="audit.jsonl"'}
        media = "text/plain; charset=utf-8"
        if call_id is None and not path.endswith((".msgpack", ".mpk")):
            return StreamingResponse(_file_chunks(path), media_type=media, headers=headers)
        lines = await anyio.to_thread.run_sync(_audit_lines, path, call_id)
        return Response(b"".join(lines), media_type=media, headers=headers)


async def _file_chunks(path: str) -> Any:
    try:
        async with await anyio.open_file(path, "rb") as stream:
            while chunk := await stream.read(65_536):
                yield chunk
    except OSError:
        return


def _audit_lines(path: str, call_id: str | None) -> list[bytes]:
    encoder = msgspec.json.Encoder()
    decoder = msgspec.json.Decoder(_CallIdOnly)
    found: list[bytes] = []
    try:
        if path.endswith((".msgpack", ".mpk")):
            found.extend(
                encoder.encode(event) + b"\n"
                for event in read_audit_log(path)
                if call_id is None or event.call_id == call_id
            )
            return found
        with open(path, "rb") as stream:
            for line in stream:
                try:
                    if decoder.decode(line).call_id == call_id:
                        found.append(line if line.endswith(b"\n") else line + b"\n")
                except (msgspec.DecodeError, msgspec.ValidationError):
                    continue
    except (OSError, ValueError):
        return found
    return found


class EventStream:
    """
    ``GET /v1/events``: Server-Sent Events of every gateway event, with resume.

    Each gateway event is one message whose ``id`` is its sequence number and
    whose data is the event as JSON. ``Last-Event-ID`` (or ``?after=SEQ``)
    resumes after that number from the kept history; ``?call=ID`` keeps only
    one call's messages. Named messages come without an id: ``snapshot``
    first (what waits for a person now), then ``pending`` and ``decided`` as
    calls start and stop waiting, and ``gap`` when events cannot be delivered.
    """

    def __init__(self, service: ApprovalService) -> None:
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            after, call_id = self._params(request)
        except BadRequest as refusal:
            await error_response(refusal.status, refusal.message)(scope, receive, send)
            return
        try:
            watch = self.service.watch(
                after, call_id, authorized=bool(scope.get("state", {}).get("authorized"))
            )
        except RuntimeError as error:
            await error_response(503, str(error))(scope, receive, send)
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-store"),
                        (b"x-accel-buffering", b"no"),
                    ],
                }
            )
            if request.method == "HEAD":
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            async with anyio.create_task_group() as group:

                async def watch_disconnect() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(watch_disconnect)
                await self._stream(watch.backlog, watch.stream, send)
                group.cancel_scope.cancel()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watch.stop()

    def _params(self, request: Request) -> tuple[int | None, str | None]:
        if request.method not in ("GET", "HEAD"):
            raise BadRequest(405, "Use GET for the event stream.")
        call_id = request.query_params.get("call")
        if call_id is not None and not 0 < len(call_id) <= 512:
            raise BadRequest(400, "The query parameter 'call' must be a call id.")
        header = request.headers.get("last-event-id")
        if header is not None and header.strip():
            try:
                return int(header.strip()), call_id
            except ValueError:
                raise BadRequest(
                    400, "The Last-Event-ID header must be a sequence number."
                ) from None
        return _query_int(request, "after", None, -1, 2**62), call_id

    async def _stream(self, backlog: list[Message], stream: Any, send: Send) -> None:
        first = b"retry: 2000\n\n" + b"".join(_frames(backlog))
        await send({"type": "http.response.body", "body": first, "more_body": True})
        async with stream:
            while True:
                messages: list[Message] = []
                with anyio.move_on_after(KEEPALIVE):
                    try:
                        messages.append(await stream.receive())
                    except anyio.EndOfStream:
                        return
                if not messages:
                    await send(
                        {
                            "type": "http.response.body",
                            "body": b": keep-alive\n\n",
                            "more_body": True,
                        }
                    )
                    continue
                while len(messages) < 256:
                    try:
                        messages.append(stream.receive_nowait())
                    except (anyio.WouldBlock, anyio.EndOfStream):
                        break
                await send(
                    {
                        "type": "http.response.body",
                        "body": b"".join(_frames(messages)),
                        "more_body": True,
                    }
                )


def _frames(messages: list[Message]) -> Iterator[bytes]:
    for message in messages:
        if message.kind == "event":
            yield b"id: %d\ndata: %s\n\n" % (message.seq or 0, message.data)
        else:
            yield b"event: %s\ndata: %s\n\n" % (message.kind.encode(), message.data)


def create_app(
    service: ApprovalService, *, tokens: TokenBook, allowed_hosts: set[str] | None
) -> ASGIApp:
    """
    The approval service's ASGI application: the page, the API and the guard in front.

    Args:
        service: The state it serves.
        tokens: The tokens accepted (decisions, reviews and, when configured,
            reads need one whose role allows it).
        allowed_hosts: ``Host`` values served (``host:port``), or ``None`` for any.
    """
    api = _Api(service)
    routes = [
        Route("/", _answers(api.page), methods=["GET"]),
        Route("/index.html", _answers(api.page), methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/v1/info", _answers(api.info), methods=["GET"]),
        Route("/v1/review", _answers(api.review), methods=["POST"]),
        Route("/hooks/{host}", _answers(api.hook), methods=["POST"]),
        Route("/v1/events", EventStream(service)),
        Route("/v1/calls", _answers(api.calls), methods=["GET"]),
        Route("/v1/calls/{board_id:path}/decision", _answers(api.decide), methods=["POST"]),
        Route("/v1/calls/{board_id:path}", _answers(api.call), methods=["GET"]),
        Route("/v1/history", _answers(api.history), methods=["GET"]),
        Route("/v1/audit", _answers(api.audit), methods=["GET"]),
    ]

    async def http_error(request: Request, error: Exception) -> Response:
        if isinstance(error, HTTPException):
            if error.status_code == 404:
                return error_response(404, f"There is nothing at {request.url.path[:100]!r}.")
            if error.status_code == 405:
                return error_response(
                    405, f"{request.method} is not allowed on {request.url.path[:100]!r}."
                )
            return error_response(error.status_code, f"The request failed ({error.status_code}).")
        return error_response(500, "The service failed on this request; nothing was decided.")

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    return Guard(
        app,
        tokens=tokens,
        protect_reads=service.settings.protect_reads,
        allowed_origins=service.settings.allowed_origins,
        allowed_hosts=allowed_hosts,
    )
