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
    Write ``token`` to ``path`` with user-only permissions (0600), replacing it atomically.

    The directory is made (0700) when missing. The file is written under a
    temporary name opened with ``O_EXCL | O_NOFOLLOW`` and renamed over the
    old one, so it is never readable by others, not even for a moment, and a
    symbolic link planted at the temporary name is not followed.

    Returns:
        The path written.

    Raises:
        OSError: It cannot be written.
    """
    return write_private(path, (token + "\n").encode())
