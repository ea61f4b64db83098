"""
The bearer token: made at start, printed once, stored where only its owner can read it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["new_token", "remove_token", "store_token"]


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
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    handle = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            os.fchmod(stream.fileno(), 0o600)
            stream.write(token + "\n")
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target


def remove_token(path: str | Path, token: str) -> None:
    """
    Remove the token file if it still holds ``token`` (a service stopping removes its own token only).

    Another service may have replaced it since; then it is left alone.
    """
    target = Path(path).expanduser()
    try:
        if target.read_text("utf-8").strip() == token:
            target.unlink()
    except (OSError, UnicodeDecodeError):
        return
