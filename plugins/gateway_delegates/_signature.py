"""
The webhook signature: HMAC-SHA256 over a timestamp, a delivery id and the exact body.

A request carries three headers:

* ``X-Gateway-Timestamp``: when it was sent, in whole seconds since the epoch;
* ``X-Gateway-Delivery``: an id for the question, the same on every retry
  (a receiver that remembers ids recognises a replay);
* ``X-Gateway-Signature``: ``v1=`` and the hex HMAC-SHA256, keyed with the
  shared secret, of ``TIMESTAMP.DELIVERY.`` followed by the body's bytes.

A receiver recomputes the HMAC over the body exactly as received (before
parsing it), compares in constant time, and refuses a timestamp more than a
few minutes from its own clock. Nothing here does I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping
from typing import Final

__all__ = [
    "DELIVERY_HEADER",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "TOLERANCE",
    "sign_document",
    "verify_signature",
]

TIMESTAMP_HEADER: Final = "X-Gateway-Timestamp"
DELIVERY_HEADER: Final = "X-Gateway-Delivery"
SIGNATURE_HEADER: Final = "X-Gateway-Signature"
TOLERANCE: Final = 300
"""Seconds a receiver should accept between a request's timestamp and its own clock."""
_SCHEME: Final = "v1="


def sign_document(key: bytes, body: bytes, *, timestamp: int, delivery: str) -> dict[str, str]:
    """
    The headers that sign ``body``.

    Examples:
        >>> sign_document(b"k" * 32, b"{}", timestamp=1700000000, delivery="d1")[SIGNATURE_HEADER][:9]
        'v1=fc53d6'
    """
    message = f"{timestamp}.{delivery}.".encode() + body
    digest = hmac.new(key, message, hashlib.sha256).hexdigest()
    return {
        TIMESTAMP_HEADER: str(timestamp),
        DELIVERY_HEADER: delivery,
        SIGNATURE_HEADER: _SCHEME + digest,
    }


def verify_signature(
    key: bytes,
    headers: Mapping[str, str],
    body: bytes,
    *,
    now: float | None = None,
    tolerance: int = TOLERANCE,
) -> bool:
    """
    Whether a request was signed with ``key`` within ``tolerance`` seconds of ``now``.

    Args:
        key: The shared secret.
        headers: The request's headers (names matched case-insensitively).
        body: The body exactly as received.
        now: The receiver's clock (default: the time now).
        tolerance: Seconds of clock difference accepted, either way.
    """
    folded = {name.lower(): value for name, value in headers.items()}
    timestamp = folded.get(TIMESTAMP_HEADER.lower(), "")
    delivery = folded.get(DELIVERY_HEADER.lower(), "")
    signature = folded.get(SIGNATURE_HEADER.lower(), "")
    if not timestamp.isascii() or not timestamp.isdigit() or len(timestamp) > 12:
        return False
    clock = time.time() if now is None else now
    if abs(clock - int(timestamp)) > tolerance:
        return False
    expected = sign_document(key, body, timestamp=int(timestamp), delivery=delivery)
    return hmac.compare_digest(expected[SIGNATURE_HEADER].encode(), signature.encode())
