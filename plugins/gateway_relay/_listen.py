"""
The listening end of a hook socket: bound user-only, and who connected to it.

Shared by ``gateway serve`` (``gateway_web._socket``) and the warm worker
(``gateway_hooks._worker``): one definition of how a hook socket is bound.
Standard library only.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from pathlib import Path
from typing import Final

from gateway_relay import at_socket_path

__all__ = ["LISTEN_BACKLOG", "bind_hook_socket", "peer_pid", "private_directory"]

LISTEN_BACKLOG: Final = 4096
"""Connections the kernel queues before the service accepts them (capped by ``net.core.somaxconn``): a hook a host started is answered, busy or not, never refused at connect."""


def private_directory(path: Path) -> None:
    """
    Make ``path`` (and its missing parents) a directory only its owner, this user, may enter.

    The parents it makes are made 0700 too (``mkdir -p`` would give them the
    umask's mode): a first hook usually makes the state directory itself,
    which holds the signing key, the tokens and the sockets.

    Raises:
        PermissionError: It exists and belongs to another user.
        OSError: It cannot be made.
    """
    missing = [path, *(parent for parent in path.parents if not parent.exists())]
    for directory in reversed(missing):
        directory.mkdir(mode=0o700, exist_ok=True)
    status = path.stat()
    if status.st_uid != os.getuid():
        raise PermissionError(f"{path} belongs to another user")
    os.chmod(path, stat.S_IMODE(status.st_mode) & 0o700)


def bind_hook_socket(path: Path) -> socket.socket:
    """
    Bind the hook socket at ``path``: its directory user-only, the socket mode 0600.

    A socket file left by a service that died is replaced; anything else at
    ``path``, or a socket another service still answers on, is an error.

    Raises:
        OSError: The path is taken, or cannot be bound.
    """
    private_directory(path.parent)
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise FileExistsError(f"{path} exists and is not a socket")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.settimeout(1.0)
            at_socket_path(str(path), probe.connect)
        except OSError:
            path.unlink()  # nobody answers: a socket left behind
        else:
            raise FileExistsError(f"another gateway serves hooks at {path}")
        finally:
            probe.close()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        at_socket_path(str(path), listener.bind)
        os.chmod(path, 0o600)
        listener.listen(LISTEN_BACKLOG)
        listener.setblocking(False)  # noqa: FBT003 -- the socket API's own flag
    except OSError:
        listener.close()
        raise
    return listener


def peer_pid(connection: socket.socket | None) -> int | None:
    """The connected hook's process, as the kernel names it (``SO_PEERCRED``), where it does."""
    peercred = getattr(socket, "SO_PEERCRED", None)
    if connection is None or peercred is None:
        return None
    try:
        pid, _, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, peercred, 12))
    except OSError:
        return None
    return pid if pid > 0 else None
