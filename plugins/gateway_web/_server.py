"""
Running the approval service: a gateway, its board, the app, and a real HTTP server.

`open_service` binds the socket first (so the URL is known, and port 0 picks
a free port), opens the gateway, starts the event recorder and uvicorn in one
task group, and yields a `RunningService`. Leaving it stops in order:
waiting calls are declined, event streams end, uvicorn finishes the open
requests and the hook socket answers the hooks connected (both bounded),
then the gateway closes. Signals are left to the caller.
"""

from __future__ import annotations

import contextlib
import ipaddress
import secrets
import socket
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import anyio
import msgspec
import uvicorn
from anyio.abc import TaskStatus
from gateway_human import SERVICE_KEY, Board

from gateway import Approver, Gateway, GatewayConfig, Sink
from gateway.audit import AuditSource
from gateway.fleet import OWNER, Identity, TokenBook
from gateway_web._app import create_app, review_limit
from gateway_web._connections import ConnectionLimits, JsonErrors, guarded_protocol
from gateway_web._service import ApprovalService
from gateway_web._socket import LISTEN_BACKLOG, bind_hook_socket, serve_hook_socket

__all__ = ["RunningService", "audit_path_of", "open_service"]

STOP_TIMEOUT: Final = 10.0
"""Seconds the server may take to finish open requests when the service stops."""

KEEP_ALIVE: Final = 30
"""Seconds an idle keep-alive connection stays open."""


class RunningService(msgspec.Struct, frozen=True, kw_only=True):
    """
    A started approval service.

    Attributes:
        url: Where the page is (``http://127.0.0.1:8787/``).
        host: The address bound.
        port: The port bound.
        token: The bearer token it made at start (named ``owner``, role ``approver``).
        tokens: Every token it accepts (people's too), by identity.
        service: Its state (the gateway, the board, the event history).
        connections: Its connection limits and counters.
        hook_socket: The Unix socket hooks forward to (``gateway-hook HOST``), if any.
    """

    url: str
    host: str
    port: int
    token: str
    tokens: TokenBook
    service: Any
    connections: Any = None
    hook_socket: str | None = None

    @property
    def gateway(self) -> Gateway:
        """The gateway behind the service."""
        gateway: Gateway = self.service.gateway
        return gateway

    @property
    def board(self) -> Board | None:
        """The human approver's board, when a ``human`` approver is in the chain."""
        board: Board | None = self.service.board
        return board


class _Server(uvicorn.Server):
    """uvicorn, with signal handling left to whoever runs the service."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(LISTEN_BACKLOG)
        sock.settimeout(0.0)  # non-blocking: the event loop owns it
    except OSError:
        sock.close()
        raise
    return sock


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", ""):  # noqa: S104 -- naming the wildcard, not binding it
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def audit_path_of(config: GatewayConfig, sinks: Mapping[str, Any] | None = None) -> str | None:
    """
    The log the service serves: that of the first sink that writes one (`AuditSource`).

    Without the built sinks at hand, the first ``jsonl`` or ``msgpack`` sink
    of the config.
    """
    for sink in (sinks or {}).values():
        if isinstance(sink, AuditSource):
            return sink.audit_path
    for entry in config.sinks.values():
        if entry.plugin in ("jsonl", "msgpack") and entry.path:
            return entry.path
    return None


@asynccontextmanager
async def open_service(
    config: GatewayConfig,
    *,
    host: str | None = None,
    port: int | None = None,
    token: str | None = None,
    approvers: Sequence[Approver] | None = None,
    sinks: Mapping[str, Sink] | None = None,
    services: Mapping[str, Any] | None = None,
    audit_path: str | None = None,
    tokens: TokenBook | None = None,
    hook_socket: str | Path | None = None,
    tracer_provider: Any = None,
    meter_provider: Any = None,
) -> AsyncIterator[RunningService]:
    """
    Start the approval service; stop it on leaving.

    Args:
        config: The gateway configuration (its ``[serve]`` table too).
        host: The address to bind (default: ``[serve] host``).
        port: The port (default: ``[serve] port``; 0 picks a free one).
        token: The service's own bearer token (default: a new random one),
            accepted as ``owner`` with the approver role.
        approvers: Approvers to use instead of the configured ones.
        sinks: Sinks to use instead of the configured ones.
        services: Entries to put in the gateway's shared services first (a
            board made beforehand, for approvers built outside the gateway).
        audit_path: The audit log to serve (default: the config's first file sink).
        tokens: People's tokens to accept as well (kept current by their
            store: the state directory's file, or the broker's bucket).
        hook_socket: Also answer hook events on this Unix socket (mode 0600), where
            ``gateway-hook HOST`` forwards them (see ``gateway_web._socket``).
        tracer_provider: Where the gateway's spans go (default: the global provider).
        meter_provider: Where the gateway's metrics go (default: the global provider).

    Raises:
        OSError: The address cannot be bound.
        GatewayError: The gateway cannot start (a plugin, the config).
    """
    settings = config.serve
    host = settings.host if host is None else host
    port = settings.port if port is None else port
    token = token or secrets.token_urlsafe(32)
    book = tokens if tokens is not None else TokenBook()
    book.pin(token, Identity(name=OWNER, role="approver"))
    sock = _bind(host, port)
    hooks = None
    hooks_path = None if hook_socket is None else Path(hook_socket)
    try:
        if hooks_path is not None:
            hooks = bind_hook_socket(hooks_path)
        bound_port = int(sock.getsockname()[1])
        url_host = _url_host(host)
        allowed_hosts: set[str] | None = None
        if _is_loopback(host):
            allowed_hosts = {
                f"{name}:{bound_port}" for name in ("127.0.0.1", "localhost", "[::1]", url_host)
            }
        gateway = Gateway(
            config,
            approvers=approvers,
            sinks=sinks,
            tracer_provider=tracer_provider,
            meter_provider=meter_provider,
        )
        gateway.services.update(services or {})
        async with gateway:
            found = gateway.services.get(SERVICE_KEY)
            board = found if isinstance(found, Board) else None
            service = ApprovalService(
                gateway,
                board,
                settings,
                audit_path=audit_path
                if audit_path is not None
                else audit_path_of(config, gateway.sinks),
            )
            app = JsonErrors(create_app(service, tokens=book, allowed_hosts=allowed_hosts))
            limits = ConnectionLimits(
                max_connections=settings.max_connections, header_timeout=settings.header_timeout
            )
            server = _Server(
                uvicorn.Config(
                    app,
                    lifespan="off",
                    # uvicorn listens on the bound socket again, with this.
                    backlog=LISTEN_BACKLOG,
                    http=guarded_protocol(limits),
                    ws="none",
                    log_config=None,
                    log_level="warning",
                    access_log=False,
                    server_header=False,
                    timeout_graceful_shutdown=int(STOP_TIMEOUT),
                    # Longer than clients keep idle connections (httpx: 5 s), so a
                    # client never reuses a connection the server is closing.
                    timeout_keep_alive=KEEP_ALIVE,
                )
            )
            async with anyio.create_task_group() as group:
                await group.start(service.run)
                stopping = anyio.Event()
                hooks_stopped = anyio.Event()
                if hooks is not None and hooks_path is not None:

                    async def run_hooks(
                        *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
                    ) -> None:
                        try:
                            await serve_hook_socket(
                                hooks,
                                gateway,
                                path=hooks_path,
                                max_body=settings.max_body,
                                review_limit=review_limit(config),
                                stop=stopping,
                                drain=STOP_TIMEOUT,
                                task_status=task_status,
                            )
                        finally:
                            hooks_stopped.set()

                    await group.start(run_hooks)
                else:
                    hooks_stopped.set()
                stopped = anyio.Event()

                async def run_server() -> None:
                    try:
                        await server.serve(sockets=[sock])
                    finally:
                        stopped.set()

                group.start_soon(run_server)
                try:
                    yield RunningService(
                        url=f"http://{url_host}:{bound_port}/",
                        host=host,
                        port=bound_port,
                        token=token,
                        tokens=book,
                        service=service,
                        connections=limits,
                        hook_socket=str(hook_socket) if hooks is not None else None,
                    )
                finally:
                    with anyio.CancelScope(shield=True):
                        if board is not None:
                            board.close("the approval service is stopping")
                        service.close()
                        server.should_exit = True
                        stopping.set()
                        # Both finish what they hold (bounded): a verdict given is a verdict sent.
                        with anyio.move_on_after(STOP_TIMEOUT + 5):
                            await stopped.wait()
                            await hooks_stopped.wait()
                    group.cancel_scope.cancel()
    finally:
        sock.close()
        if hooks is not None:
            hooks.close()
