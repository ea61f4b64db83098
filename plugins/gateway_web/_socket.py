"""
The hook socket: where ``gateway-hook HOST`` forwards each event to a running ``gateway serve``.

A Unix socket, mode 0600, in a user-only directory (the state directory,
beside the token): only the user's own processes can connect, so no token is
sent, and nothing crosses a TCP port. Each connection carries one event:

* the hook sends ``GATEWAY-HOOK 1 HOST N\n``, then the event's ``N`` bytes
  as the host wrote them;
* the service answers ``STATUS STDOUT-LENGTH STDERR-LENGTH\n`` and those
  bytes (a `gateway_hooks.HookReply`), and closes.

The hook's process id comes from the kernel (``SO_PEERCRED``), never from
the request: a host whose answer depends on how it runs finds itself from
there (`gateway_hooks.HookEvent.hook_pid`).

The framing is ``gateway_relay``'s (`gateway_relay.read_request_line`,
`gateway_relay.reply_frame`): one definition for both ends.

The review runs while the hook waits; a hook that goes away (the host gave up
on it) cancels the review, which the gateway records as a decline. A header
that is not that, a body longer than ``max_body``, an unknown host, a client
that stalls: each is answered with a block, never an allow.
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path
from typing import Final

import anyio
from anyio.abc import SocketAttribute, SocketListener, SocketStream, TaskStatus
from anyio.streams.buffered import BufferedByteReceiveStream
from gateway_hooks import HookHost, HookReply, answer_connected, load_host
from gateway_relay import read_request_line, reply_frame
from gateway_relay._listen import LISTEN_BACKLOG, bind_hook_socket, peer_pid

from gateway import Gateway, PluginLoadError

__all__ = ["LISTEN_BACKLOG", "bind_hook_socket", "serve_hook_socket"]

HEADER_LIMIT: Final = 4096
"""The longest header line accepted."""

READ_TIMEOUT: Final = 10.0
"""Seconds a client may take to send its request."""

SEND_TIMEOUT: Final = 5.0
"""Seconds sending an answer may take, even while the service stops."""


def _peer_pid(client: SocketStream) -> int | None:
    """The connected hook's process, as the kernel names it (``SO_PEERCRED``), where it does."""
    return peer_pid(client.extra(SocketAttribute.raw_socket, None))  # noqa: S610 -- anyio's typed attribute, not Django


async def _request(stream: BufferedByteReceiveStream, max_body: int) -> tuple[str, bytes]:
    host, length = read_request_line(await stream.receive_until(b"\n", HEADER_LIMIT))
    if length > max_body:
        raise ValueError(f"The hook event is larger than {max_body} bytes.")
    return host, await stream.receive_exactly(length)


async def _read(client: SocketStream, max_body: int) -> tuple[HookHost, bytes] | HookReply | None:
    """The host and the event; a block to send back; or ``None`` when the hook is gone."""
    try:
        with anyio.fail_after(READ_TIMEOUT):
            name, data = await _request(BufferedByteReceiveStream(client), max_body)
        return load_host(name), data
    except (ValueError, PluginLoadError) as error:
        return HookReply.block(str(error))
    except (TimeoutError, anyio.IncompleteRead, anyio.DelimiterNotFound):
        return HookReply.block("The hook's request did not arrive whole.")
    except (anyio.EndOfStream, anyio.BrokenResourceError):
        return None


async def _handle(
    client: SocketStream, gateway: Gateway, max_body: int, review_limit: float
) -> None:
    async with client:
        request = await _read(client, max_body)
        if request is None:
            return
        if isinstance(request, HookReply):
            reply = request
        else:
            host, data = request
            answered = await answer_connected(
                client,
                host,
                gateway,
                data,
                allow=gateway.config.hosts.allow,
                within=review_limit,
                hook_pid=_peer_pid(client),
            )
            if answered is None:
                return
            reply = answered
        # Shielded: a verdict the gateway released (and recorded) is sent even
        # when the service stops meanwhile; a hook that cannot take it is gone.
        with (
            anyio.CancelScope(shield=True),
            anyio.move_on_after(SEND_TIMEOUT),
            contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError),
        ):
            await client.send(reply_frame(reply.status, reply.stdout, reply.stderr))


async def serve_hook_socket(
    listener_socket: socket.socket,
    gateway: Gateway,
    *,
    path: Path,
    max_body: int,
    review_limit: float,
    stop: anyio.Event | None = None,
    drain: float = 0.0,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """
    Answer hook events on the socket bound at ``path`` until ``stop`` is set (or cancelled).

    Once ``stop`` is set, no new connection is accepted and the socket's file
    is removed, but every hook already connected is answered, within
    ``drain`` seconds: a verdict the gateway gave (and recorded) reaches its
    hook rather than being cut off by the service stopping. Past ``drain``,
    the reviews still running are cancelled, which the gateway records as
    declines. Cancelling the task stops at once.

    The path is passed, not asked of the socket: a socket bound through a
    directory's descriptor (`at_socket_path`) names that descriptor, long closed.
    """
    listener = await SocketListener.from_socket(listener_socket)

    async def handle(client: SocketStream) -> None:
        await _handle(client, gateway, max_body, review_limit)

    try:
        async with anyio.create_task_group() as hooks:
            async with listener, anyio.create_task_group() as accepting:
                task_status.started()
                accepting.start_soon(listener.serve, handle, hooks)
                await (stop.wait() if stop is not None else anyio.sleep_forever())
                accepting.cancel_scope.cancel()
            with contextlib.suppress(OSError):
                os.unlink(path)  # new hooks find no service; those connected are answered
            hooks.cancel_scope.deadline = anyio.current_time() + drain
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # a short, local call: the service is stopping
