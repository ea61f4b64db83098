"""
The bearer token: made at start, printed once, stored where only its owner can read it.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from gateway.fleet import write_private

__all__ = ["new_token", "store_token"]


def new_token() -> str:
    """A new random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def store_token(path: str | Path, token: str) -> Path:
    """
    Write ``token`` to ``path``, readable by its owner alone (see `gateway.fleet.write_private`).

    Raises:
        OSError: It cannot be written.
    """
    return write_private(path, (token + "\n").encode())
