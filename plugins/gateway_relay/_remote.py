"""
``gateway-hook HOST --server URL``: forward to an approval service on another machine, over HTTP.

Only when asked for: the default is the local Unix socket, where no token is
needed. A fleet's agents run on machines without a service of their own, so
they post each event to a replica's ``POST /hooks/HOST`` with an agent token
(``--token-file``); use ``https://`` for anything but loopback. Environment
proxies and redirects are not followed (the event and the token go only to
the URL given), the whole exchange is bounded by the timeout (a service that
trickles bytes is abandoned at the deadline), and the answer is relayed only
if it is a JSON object, which the service wrote in the host's own format.
Anything else blocks the call. A host that runs its hooks inside a trace
(``TRACEPARENT`` in the hook's environment) has it sent as ``traceparent``,
so the review joins that trace.

Standard library only; imported only in this mode (``urllib`` is slow to
import, and the socket path does not need it).
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from gateway_relay import MAX_REPLY_BYTES, Blocked, Reply

__all__ = ["forward_http", "hook_url", "trace_headers"]

_LIMIT: Final = MAX_REPLY_BYTES

_TRACE_VARIABLES: Final = (("TRACEPARENT", "traceparent"), ("TRACESTATE", "tracestate"))
"""The host's W3C trace context, as OpenTelemetry's environment carriers name it."""

_TRACE_LIMIT: Final = 512


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect would send the event and the token somewhere not configured: refuse it."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def hook_url(server: str, host: str) -> str:
    """The service's hook endpoint for ``host`` (``URL/hooks/HOST``), from an http or https URL."""
    parts = urllib.parse.urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise Blocked(f"The server {server!r} is not an http:// or https:// URL.")
    path = parts.path.rstrip("/")
    if not path.endswith(f"/hooks/{host}"):
        path += f"/hooks/{host}"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _token(token_file: str | None) -> str | None:
    if not token_file:
        return None
    try:
        token = Path(token_file).expanduser().read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8"
        raise Blocked(f"Cannot read the token file {token_file!r} ({reason}).") from None
    if not token:
        raise Blocked(f"The token file {token_file!r} is empty.")
    return token


def trace_headers(environ: Mapping[str, str]) -> dict[str, str]:
    """
    The host's trace context to send along (``TRACEPARENT``, ``TRACESTATE``), when it sets one.

    Only short printable ASCII is sent; the service reads the context and
    ignores one that is not valid W3C trace context. Without a
    ``TRACEPARENT`` nothing is sent.
    """
    if "TRACEPARENT" not in environ:
        return {}
    headers: dict[str, str] = {}
    for variable, header in _TRACE_VARIABLES:
        value = environ.get(variable, "")
        if value and len(value) <= _TRACE_LIMIT and value.isascii() and value.isprintable():
            headers[header] = value
    return headers


def _post(url: str, body: bytes, token: str | None, timeout: float) -> bytes:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    # The review joins the host's trace when the host runs the hook inside one.
    headers.update(trace_headers(os.environ))
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310 -- the scheme is checked in hook_url
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
    try:
        with opener.open(request, timeout=timeout) as response:
            data: bytes = response.read(_LIMIT + 1)
    except urllib.error.HTTPError as error:
        raise Blocked(
            f"The approval service answered HTTP {error.code} ({error.reason})."
        ) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", None) or error
        raise Blocked(f"The approval service at {url!r} is unreachable ({reason}).") from None
    if len(data) > _LIMIT:
        raise Blocked(f"The approval service's answer is larger than {_LIMIT} bytes.")
    return data


def forward_http(
    server: str, token_file: str | None, host: str, data: bytes, timeout: float
) -> Reply:
    """Post the event to the service at ``server``; its checked answer, within ``timeout`` seconds in all."""
    url = hook_url(server, host)
    token = _token(token_file)
    result: list[bytes | BaseException] = []

    def work() -> None:
        try:
            result.append(_post(url, data, token, timeout))
        except BaseException as error:  # noqa: BLE001 -- handed to the caller, which re-raises it
            result.append(error)

    worker = threading.Thread(target=work, name="gateway-hook-remote", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive() or not result:
        raise Blocked(f"The approval service did not answer within {timeout:g} s.")
    answer = result[0]
    if isinstance(answer, BaseException):
        raise answer
    try:
        value = json.loads(answer.decode("utf-8", "strict"))
    except (UnicodeDecodeError, ValueError):
        raise Blocked("The approval service's answer is not JSON.") from None
    if not isinstance(value, dict):
        raise Blocked("The approval service's answer is not a JSON object.")
    return Reply(0, json.dumps(value) if value else "", "")
