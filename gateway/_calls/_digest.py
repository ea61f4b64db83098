"""
Digests: canonical bytes → ``sha256:<hex>``.

The one encoder used for every digest the gateway publishes. Encoding is
msgspec JSON with object keys sorted, so equal values always give equal bytes
whatever order fields were declared or built in; golden tests pin the bytes.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import msgspec

__all__ = ["canonical_bytes", "digest_bytes", "digest_of"]

_ENCODER: Final = msgspec.json.Encoder(order="sorted")
PREFIX: Final = "sha256:"


def canonical_bytes(value: Any) -> bytes:
    """Return the canonical encoding of ``value`` (msgspec JSON, keys sorted)."""
    return _ENCODER.encode(value)


def digest_bytes(data: bytes) -> str:
    """Return ``sha256:<hex>`` of ``data``."""
    return PREFIX + hashlib.sha256(data).hexdigest()


def digest_of(value: Any) -> str:
    """
    Return the digest of a value's canonical encoding.

    Examples:
        >>> digest_of({"b": 1, "a": 2}) == digest_of({"a": 2, "b": 1})
        True
    """
    return digest_bytes(canonical_bytes(value))
