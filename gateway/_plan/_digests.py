"""
The preimages of plan digests, as named types: what exactly a digest binds.

A statement's digest is over its `Plan` (every command and effect in it); a
program's digest is over a `ProgramDigestInput`: the source, the status, the
reason and the statements' digests. Encoded with the one canonical encoder
(`gateway._calls._digest`), a Struct gives the same bytes as a mapping with the same
keys, so these names change no digest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from gateway._calls._digest import digest_of

__all__ = ["ProgramDigestInput", "program_digest"]


class ProgramDigestInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What a program digest is computed over.

    Attributes:
        source: The call's text, unredacted.
        status: ``measured`` or ``unmeasured``.
        reason: The unmeasured reason, else ``None``.
        statements: The digest of each statement's unredacted plan, in order
            (empty when unmeasured).
    """

    source: str
    status: Literal["measured", "unmeasured"]
    reason: str | None
    statements: tuple[str, ...]


def program_digest(
    source: str,
    status: Literal["measured", "unmeasured"],
    reason: str | None,
    statements: Sequence[str] = (),
) -> str:
    """The digest of a program: over its `ProgramDigestInput`."""
    return digest_of(
        ProgramDigestInput(
            source=source, status=status, reason=reason, statements=tuple(statements)
        )
    )
