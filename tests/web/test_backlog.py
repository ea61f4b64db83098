"""
The listening sockets queue thousands of connections: a burst of hooks is answered, never refused at connect.

A host starts one hook process per tool call; the service accepts them one
at a time, so during a burst the kernel's queue of connections not yet
accepted is what holds them. Nothing here accepts: every connection must
still be queued.
"""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path
from typing import Final

from gateway_relay import at_socket_path
from gateway_web._socket import LISTEN_BACKLOG, bind_hook_socket

BURST: Final = 2000
"""Connections made at once: far past the 256 the hook socket once queued."""


def test_the_hook_socket_queues_a_burst_of_connections(tmp_path: Path) -> None:
    assert BURST <= LISTEN_BACKLOG
    path = tmp_path / "state" / "hooks.sock"
    listener = bind_hook_socket(path)
    clients: list[socket.socket] = []
    try:
        for _ in range(BURST):
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            clients.append(client)
            client.setblocking(False)
            # A full queue refuses a non-blocking connect at once (BlockingIOError).
            at_socket_path(str(path), client.connect)
    finally:
        for client in clients:
            with contextlib.suppress(OSError):
                client.close()
        listener.close()
    assert len(clients) == BURST
