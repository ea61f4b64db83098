"""
Bounded HTTP for the delegates that ask a server (``webhook``, ``model``).

One POST, under a deadline that holds however slowly the server answers,
with a body cut off past a limit, over TLS verified against the system's
certificates (or a bundle the config names). Redirects are not followed,
proxies and ``.netrc`` from the environment are not used, and a response is
read raw (``Accept-Encoding: identity``), so a compressed body cannot grow
past the limit. Retries are bounded, and only for what a retry can fix: a
server that could not be reached, timed out, or answered 429 or 5xx.

The only module that imports httpx.
"""

from __future__ import annotations

import ipaddress
import os
import ssl
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Final, NamedTuple
from urllib.parse import urlsplit

import anyio

from gateway.config import MAX_SECONDS
from gateway_delegates._contract import GRACE, Failure, OnFailure, failed

try:
    import httpx
except ImportError as error:  # pragma: no cover -- the extra is installed wherever tests run
    raise ImportError(
        "The `webhook` and `model` approvers need httpx: pip install 'agent-gateway[delegates]'."
    ) from error

__all__ = ["Reply", "check_url", "make_client", "post", "time_needed"]

_RETRY_STATUSES: Final = frozenset({408, 425, 429, 500, 502, 503, 504})
_BACKOFF: Final = 0.25
"""Seconds before the first retry; each later one waits twice as long."""


def time_needed(seconds: float, retries: int) -> float:
    """What a delegate that POSTs needs in all: every attempt, the pauses between them, and a grace."""
    attempts = retries + 1
    return min(attempts * seconds + sum(_pause(n) for n in range(1, attempts)) + GRACE, MAX_SECONDS)


def _pause(attempt: int) -> float:
    """Seconds before attempt ``attempt`` (the first retry is attempt 1)."""
    return min(_BACKOFF * 2.0 ** (attempt - 1), 2.0)


class Reply(NamedTuple):
    """A server's answer: its status and its body (at most the limit)."""

    status: int
    body: bytes


def check_url(url: str, table: str, *, plain_loopback: bool) -> str:
    """
    The URL's host, for sentences; the URL must be ``https`` (or, when
    ``plain_loopback``, ``http`` to a loopback address) and carry no credentials.

    Raises:
        ValueError: It is not such a URL.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("https", "http") or not host:
        raise ValueError(f"Invalid [{table}] options: {url!r} is not an https URL.")
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            f"Invalid [{table}] options: the URL carries credentials; keep secrets in the environment."
        )
    if parts.scheme == "http" and not (plain_loopback and _loopback(host)):
        allowed = " (plain http only to a loopback address)" if plain_loopback else ""
        raise ValueError(
            f"Invalid [{table}] options: {url!r} is not https; TLS is required{allowed}."
        )
    return host if parts.port is None else f"{host}:{parts.port}"


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_client(ca_file: str | None, concurrency: int, table: str) -> httpx.AsyncClient:
    """
    A client that verifies TLS (against ``ca_file`` alone when given) and takes nothing from the environment.

    Raises:
        ValueError: ``ca_file`` cannot be read as a certificate bundle.
    """
    try:
        context = ssl.create_default_context(
            cafile=None if ca_file is None else str(Path(ca_file).expanduser())
        )
    except (OSError, ssl.SSLError) as error:
        raise ValueError(
            f"Invalid [{table}] options: the CA bundle {ca_file!r} cannot be read ({type(error).__name__})."
        ) from None
    return httpx.AsyncClient(
        verify=context,
        trust_env=False,
        follow_redirects=False,
        limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
    )


async def post(
    client: httpx.AsyncClient,
    url: str,
    body: bytes,
    headers: Callable[[], Mapping[str, str]],
    *,
    seconds: float,
    retries: int,
    limit: int,
    who: str,
    on_failure: OnFailure,
) -> Reply | Failure:
    """
    POST ``body``; the reply, or the failure of the last attempt.

    Args:
        headers: Called for each attempt (a signature carries the time it is sent).
        seconds: What one attempt may take, connecting and reading included.
        retries: Attempts after the first, for failures a retry can fix.
        limit: Bytes of reply body; more is a failure.
    """
    outcome: Reply | Failure = failed("timeout", on_failure, who=who, seconds=seconds)
    for attempt in range(retries + 1):
        if attempt:
            await anyio.sleep(_pause(attempt))
        outcome = await _attempt(
            client, url, body, headers(), seconds, limit, who=who, on_failure=on_failure
        )
        if isinstance(outcome, Reply):
            if outcome.status not in _RETRY_STATUSES:
                return outcome
        elif outcome.kind not in ("unreachable", "timeout"):
            return outcome
    return outcome


async def _attempt(
    client: httpx.AsyncClient,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    seconds: float,
    limit: int,
    *,
    who: str,
    on_failure: OnFailure,
) -> Reply | Failure:
    with anyio.move_on_after(seconds):
        try:
            async with client.stream(
                "POST",
                url,
                content=body,
                headers={**headers, "Accept-Encoding": "identity"},
                timeout=seconds,
            ) as response:
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    return failed("oversized", on_failure, who=who, limit=limit)
                received = bytearray()
                chunks = response.aiter_raw()
                async for chunk in chunks:
                    received += chunk
                    if len(received) > limit:
                        # Close the response, then let the iteration end with
                        # the error that follows: httpx's nested generators
                        # then finish instead of being collected half-read.
                        await response.aclose()
                        with suppress(httpx.HTTPError):
                            async for _ in chunks:
                                pass
                        return failed("oversized", on_failure, who=who, limit=limit)
                return Reply(status=response.status_code, body=bytes(received))
        except httpx.TimeoutException:
            return failed("timeout", on_failure, who=who, seconds=seconds)
        except httpx.HTTPError as error:
            certificate = _certificate_problem(error)
            if certificate is not None:
                return failed("tls", on_failure, who=who, detail=certificate)
            return failed("unreachable", on_failure, who=who, detail=_cause(error))
    return failed("timeout", on_failure, who=who, seconds=seconds)


def _chain(error: BaseException) -> list[BaseException]:
    """The error, its causes and contexts, and the members of any group among them, in order."""
    found: list[BaseException] = []
    pending: list[BaseException] = [error]
    while pending and len(found) < 32:
        current = pending.pop(0)
        if any(current is seen for seen in found):
            continue
        found.append(current)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        following = current.__cause__ or current.__context__
        if following is not None:
            pending.append(following)
    return found


def _certificate_problem(error: BaseException) -> str | None:
    for cause in _chain(error):
        if isinstance(cause, ssl.SSLCertVerificationError):
            return str(cause.verify_message or "the certificate does not verify").rstrip(".")
        if isinstance(cause, ssl.SSLError):
            return str(cause.reason or "the TLS handshake failed").lower().replace("_", " ")
    return None


def _cause(error: BaseException) -> str:
    """Why a connection failed, in words a person reads (``connection refused``; no addresses)."""
    for cause in _chain(error):
        if isinstance(cause, OSError) and cause.errno:
            return os.strerror(cause.errno).lower()
    if isinstance(error, httpx.RemoteProtocolError):
        return "the connection closed before the answer was complete"
    return type(error).__name__
