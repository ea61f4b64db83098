"""
The service's front door: which requests get in, and the headers every answer carries.

A pure ASGI middleware, in front of every route:

* **Host**: when the service is bound to loopback, only requests naming a
  loopback host and the service's port are served (a DNS-rebinding page names
  its own host and is refused).
* **Origin**: a browser request from another origin is refused, unless the
  origin is listed in ``[serve] allowed-origins`` (then, and only then, CORS
  headers are sent). ``Sec-Fetch-Site`` backs this up for requests a
  browser sends without an ``Origin``; a link followed to the page itself is
  still fine.
* **Token and role**: every ``POST`` needs ``Authorization: Bearer <token>``
  of a role that may do it (a decision needs an ``approver`` token; a review
  or a hook event an ``approver`` or ``agent`` token); reads under ``/v1/``
  need a token that may read (``approver`` or ``viewer``) when ``[serve]
  protect-reads`` is on, and ``/v1/history`` (who decided what) always does. The identity a token names is handed to the app as
  ``request.state.identity``, so a decision records who took it.
* **Headers**: a strict Content-Security-Policy (no inline script, nothing
  from elsewhere), ``nosniff``, no framing, no referrer, and ``no-store`` for
  the API.

It never reads a request body, and it must not buffer responses (event
streams pass through as they are written).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.fleet import Identity, Permission, TokenBook
from gateway_web._http import error_response

__all__ = ["Guard"]

_PAGE_PATHS: Final = frozenset({"/", "/index.html"})
_ALWAYS_PROTECTED: Final = frozenset({"/v1/history"})
"""Reads that need a token even without ``protect-reads``: who decided what, with their notes."""
_SECURITY_HEADERS: Final = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
_CORS_ALLOW_HEADERS: Final = "authorization, content-type, last-event-id"
_NEEDS: Final[dict[Permission, str]] = {
    "decide": "decisions need an approver token",
    "review": "reviews need an agent or approver token",
    "read": "reading needs a viewer or approver token",
}


def _permission(method: str, path: str) -> Permission:
    """What a request that carries a token must be allowed to do."""
    if method in ("GET", "HEAD"):
        return "read"
    if path == "/v1/review" or path.startswith("/hooks/"):
        return "review"
    return "decide"


class Guard:
    """
    Host, origin and token checks, and security headers, for every request.

    Args:
        app: The application behind it.
        tokens: The tokens accepted, each with its identity and role.
        protect_reads: Whether ``GET /v1/…`` needs the token too.
        allowed_origins: Browser origins allowed to call the API (CORS).
        allowed_hosts: ``Host`` header values served (``host:port``,
            lowercase), or ``None`` to serve any.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        tokens: TokenBook,
        protect_reads: bool,
        allowed_origins: Iterable[str],
        allowed_hosts: Iterable[str] | None,
    ) -> None:
        self.app = app
        self.tokens = tokens
        self.protect_reads = protect_reads
        self.allowed_origins = frozenset(allowed_origins)
        self.allowed_hosts = None if allowed_hosts is None else frozenset(allowed_hosts)

    def _identity(self, headers: Headers) -> Identity | None:
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return None
        # The book is keyed by the token's SHA-256 digest: looking a token up
        # compares digests, so its timing says nothing about the token.
        return self.tokens.identify(value.strip())

    def _own_origins(self, host: str) -> frozenset[str]:
        if self.allowed_hosts is None:
            return frozenset({f"http://{host}", f"https://{host}"})
        return frozenset(f"http://{allowed}" for allowed in self.allowed_hosts)

    def _refusal(
        self, scope: Scope, headers: Headers, identity: Identity | None
    ) -> tuple[int, str, dict[str, str]] | None:
        method = scope["method"]
        path = scope["path"]
        host = headers.get("host", "").lower()
        if self.allowed_hosts is not None and host not in self.allowed_hosts:
            example = min(self.allowed_hosts)
            return (
                403,
                f"Requests naming host {host[:100]!r} are refused; use http://{example}/.",
                {},
            )
        origin = headers.get("origin")
        cors = origin is not None and origin in self.allowed_origins
        if origin is not None and not cors and origin not in self._own_origins(host):
            return (
                403,
                f"Requests from origin {origin[:100]!r} are refused; list it in [serve] allowed-origins to allow it.",
                {},
            )
        site = headers.get("sec-fetch-site")
        if (
            site in ("cross-site", "same-site")
            and not cors
            and not (
                method == "GET"
                and headers.get("sec-fetch-mode") == "navigate"
                and path in _PAGE_PATHS
            )
        ):
            return (403, "Requests from other sites are refused.", {})
        if method == "OPTIONS":
            return None
        needs_token = (
            method not in ("GET", "HEAD")
            or path in _ALWAYS_PROTECTED
            or (self.protect_reads and path.startswith("/v1/") and path != "/v1/info")
        )
        if needs_token:
            if not headers.get("authorization"):
                return (
                    401,
                    "This request needs the bearer token that `gateway serve` printed at start (Authorization: Bearer <token>).",
                    {"www-authenticate": "Bearer"},
                )
            if identity is None:
                return (
                    401,
                    "The bearer token is wrong; use the one `gateway serve` printed at start, or one made with `gateway token create`.",
                    {"www-authenticate": 'Bearer error="invalid_token"'},
                )
            permission = _permission(method, path)
            if not identity.may(permission):
                return (
                    403,
                    f"The token {identity.name!r} has the role {identity.role}, and {_NEEDS[permission]}.",
                    {},
                )
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the request, then pass it on with headers added to the answer."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        cors = origin is not None and origin in self.allowed_origins
        extra: list[tuple[bytes, bytes]] = list(_SECURITY_HEADERS)
        if scope["path"].startswith("/v1/") or scope["path"].startswith("/hooks/"):
            extra.append((b"cache-control", b"no-store"))
        if cors and origin is not None:
            extra.extend(((b"access-control-allow-origin", origin.encode()), (b"vary", b"Origin")))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message = dict(message)
                message["headers"] = [
                    *message.get("headers", []),
                    *((name, value) for name, value in extra if name not in present),
                ]
            await send(message)

        identity = self._identity(headers)
        state = scope.setdefault("state", {})
        state["authorized"] = identity is not None
        state["identity"] = identity
        refusal = self._refusal(scope, headers, identity)
        if refusal is not None:
            status, sentence, more = refusal
            response = error_response(status, sentence, more)
            await response(scope, receive, send_with_headers)
            return
        if scope["method"] == "OPTIONS" and cors:
            preflight = Response(
                status_code=204,
                headers={
                    "access-control-allow-methods": "GET, POST",
                    "access-control-allow-headers": _CORS_ALLOW_HEADERS,
                    "access-control-max-age": "600",
                },
            )
            await preflight(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)
