"""
Links from a host's permission event to the review of its pre-tool event.

Claude Code's ``PermissionRequest`` carries no ``tool_use_id``: the only way
to know it is about the call the ``PreToolUse`` hook just reviewed is the
call itself (host, session, tool, input). Each hook runs in its own process,
so the review is kept in a small file, named by the digest of those four,
in a user-only directory; the permission hook finds it there and answers
without a second review.

A link can only refuse: a permission event linked to a decline is denied
again, and linked to anything else it is left to the host (which asks its
user). So a link written by someone else (the directory belongs to the user,
whose agent may write files) can make a call stricter, never let one run.
Links expire after ``ttl`` seconds, and at most ``keep`` are kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from pathlib import Path
from typing import Final

import msgspec
from gateway_relay._listen import private_directory

from gateway import Decision, ToolCall, Verdict
from gateway.config import default_token_file

__all__ = ["Link", "LinkStore"]

_CANONICAL: Final = msgspec.json.Encoder(order="sorted")


class Link(msgspec.Struct, frozen=True, kw_only=True):
    """
    The review of one call, as a later permission event of the same call finds it.

    Attributes:
        call_id: The reviewed call's id.
        decision: Its verdict's decision.
        reason: Its verdict's reason.
        time: When it was reviewed (seconds since the epoch).
    """

    call_id: str | None
    decision: Decision
    reason: str
    time: float


class LinkStore:
    """
    Reviews kept by (host, session, tool, input), in files under ``directory``.

    Args:
        directory: Where the links are kept (created user-only).
        ttl: Seconds a link is found after its review.
        keep: Links kept at most; the oldest go first.
    """

    def __init__(self, directory: Path, *, ttl: float = 3600.0, keep: int = 512) -> None:
        self.directory = directory
        self.ttl = ttl
        self.keep = keep

    @classmethod
    def default(cls) -> LinkStore:
        """The user's store, beside the approval service's token (``~/.local/state/agent-gateway/links``)."""
        return cls(default_token_file().parent / "links")

    @staticmethod
    def key(host: str, call: ToolCall) -> str:
        """The digest a call is linked by: its host, session, tool and input."""
        preimage = _CANONICAL.encode([host, call.session_id, call.tool, call.input])
        return hashlib.sha256(preimage).hexdigest()

    def remember(self, host: str, call: ToolCall, verdict: Verdict) -> None:
        """Keep a call's verdict for its permission event (best effort: linking never blocks a call)."""
        link = Link(
            call_id=verdict.call_id or call.call_id,
            decision=verdict.decision,
            reason=verdict.reason,
            time=time.time(),
        )
        with contextlib.suppress(OSError):
            private_directory(self.directory)
            target = self.directory / self.key(host, call)
            temporary = target.with_name(f".{target.name}.{os.getpid()}")
            descriptor = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600
            )
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(msgspec.json.encode(link))
            os.replace(temporary, target)
            self._prune()

    def find(self, host: str, call: ToolCall) -> Link | None:
        """The linked review of this call, if one was kept within ``ttl`` seconds."""
        path = self.directory / self.key(host, call)
        try:
            with open(path, "rb") as stream:
                link = msgspec.json.decode(stream.read(65_536), type=Link)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        if not 0 <= time.time() - link.time <= self.ttl:
            return None
        return link

    def _prune(self) -> None:
        entries = []
        for path in self.directory.iterdir():
            with contextlib.suppress(OSError):
                entries.append((path.stat().st_mtime, path))
        now = time.time()
        entries.sort()
        surplus = len(entries) - self.keep
        for index, (modified, path) in enumerate(entries):
            if index < surplus or now - modified > self.ttl:
                with contextlib.suppress(OSError):
                    path.unlink()
