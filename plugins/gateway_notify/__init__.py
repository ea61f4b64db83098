"""
First-party notifiers: a signed webhook, and ntfy (or any server that speaks its publishing API).

Registered in the ``gateway.notifiers`` entry-point group as ``webhook`` and
``ntfy``, and loaded exactly as a third-party notifier would be. Each is
told when a call starts waiting for a person, and sends one HTTP request
(standard library only, in a worker thread, bounded by ``timeout``). A
failure is logged and forgotten: it never blocks, allows or declines anything.

Configure in TOML::

    [notifiers.team]
    plugin = "webhook"
    options = { url = "https://hooks.example/gateway", secret-file = "/etc/agent-gateway/webhook.secret" }

    [notifiers.phone]
    plugin = "ntfy"
    options = { server = "https://ntfy.example", topic = "agent-gateway-team", token-file = "/etc/agent-gateway/ntfy.token" }

**webhook** posts the `gateway.fleet.Notice` as JSON, with
``X-Gateway-Timestamp`` (Unix seconds) and ``X-Gateway-Signature:
sha256=<hex>``, the HMAC-SHA256 with the shared secret of the timestamp, a
``.``, and the body exactly as sent: a receiver recomputes it, compares in
constant time, and refuses timestamps older than a few minutes (replays).
`verify_signature` is that check.

**ntfy** publishes to ``<server>/<topic>``: the summary as the message, a
title, ``Click`` (the link to the call on the page), a priority and tags,
and ``Authorization: Bearer`` with ``token-file``. With ``details = false``
the message leaves the command out (for a server outside your own).

This package imports only the gateway's public API.
"""

from __future__ import annotations

import hashlib
import hmac
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Final, TypeVar

import anyio
import anyio.to_thread
import msgspec

from gateway.config import NotifierConfig
from gateway.fleet import Notice

__all__ = [
    "NotifierError",
    "NotifierFailed",
    "NtfyNotifier",
    "WebhookNotifier",
    "sign",
    "verify_signature",
]

_ENCODER: Final = msgspec.json.Encoder()
_USER_AGENT: Final = "agent-gateway-notifier"

Timeout = Annotated[float, msgspec.Meta(gt=0, le=60)]
Options = TypeVar("Options", bound=msgspec.Struct)


class NotifierError(ValueError):
    """A notifier's options are wrong; the message says which and why."""


def _url(value: str, what: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise NotifierError(f"{what} must be an http:// or https:// URL, not {value[:80]!r}")
    return value


def _secret(path: str, what: str) -> bytes:
    try:
        data = Path(path).expanduser().read_bytes().strip()
    except OSError as error:
        raise NotifierError(f"cannot read the {what} file {path!r} ({error.strerror})") from None
    if not data:
        raise NotifierError(f"the {what} file {path!r} is empty")
    return data


def _options(config: NotifierConfig, kind: type[Options]) -> Options:
    try:
        return msgspec.convert(config.options, kind)
    except msgspec.ValidationError as error:
        raise NotifierError(f"invalid options: {error}") from None


def sign(secret: bytes, timestamp: str, body: bytes) -> str:
    """The ``X-Gateway-Signature`` of a body sent at ``timestamp``: ``sha256=`` and the hex HMAC."""
    mac = hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={mac}"


def verify_signature(
    secret: bytes,
    headers: Mapping[str, str],
    body: bytes,
    *,
    now: float | None = None,
    tolerance: float = 300.0,
) -> bool:
    """
    Whether a webhook request is one this gateway signed, sent within ``tolerance`` seconds.

    For receivers: pass the raw body, exactly as received, and the headers
    (their names in lowercase).
    """
    timestamp = headers.get("x-gateway-timestamp", "")
    signature = headers.get("x-gateway-signature", "")
    try:
        sent = float(timestamp)
    except ValueError:
        return False
    moment = time.time() if now is None else now
    if abs(moment - sent) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), signature)


class NotifierFailed(Exception):
    """The receiver did not take a notice (it answered an error status)."""


def _post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310 -- the scheme is checked to be http(s) when the notifier is built
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 -- idem
            status: int = answer.status
            return status
    except urllib.error.HTTPError as error:
        error.close()
        raise NotifierFailed(f"the receiver answered {error.code}") from None


async def _send(url: str, body: bytes, headers: dict[str, str], seconds: float) -> None:
    """POST once, in a worker thread, within ``seconds`` (an error status raises)."""
    with anyio.fail_after(seconds + 1):
        await anyio.to_thread.run_sync(_post, url, body, headers, seconds, abandon_on_cancel=True)


class WebhookOptions(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``webhook`` notifier's options.

    Attributes:
        url: Where to post.
        secret_file: The shared secret the requests are signed with.
        timeout: Seconds one request may take.
    """

    url: str
    secret_file: str
    timeout: Timeout = 5.0


class WebhookNotifier:
    """
    Posts each notice as JSON, signed with HMAC-SHA256.

    Args:
        name: The config's name for it.
        config: Its ``[notifiers.NAME]`` table.

    Raises:
        ValueError: The options are wrong, or the secret cannot be read.
    """

    def __init__(self, name: str, config: NotifierConfig) -> None:
        options = _options(config, WebhookOptions)
        self.name = name
        self.url = _url(options.url, "url")
        self.timeout = options.timeout
        self._secret = _secret(options.secret_file, "secret")

    async def notify(self, notice: Notice) -> None:
        """Post one notice."""
        body = _ENCODER.encode(notice)
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": _USER_AGENT,
            "X-Gateway-Event": notice.event,
            "X-Gateway-Timestamp": timestamp,
            "X-Gateway-Signature": sign(self._secret, timestamp, body),
        }
        await _send(self.url, body, headers, self.timeout)


class NtfyOptions(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``ntfy`` notifier's options.

    Attributes:
        server: The ntfy server (or one that speaks its publishing API).
        topic: The topic people subscribe to.
        token_file: An access token, sent as ``Authorization: Bearer``.
        priority: 1 (min) to 5 (max).
        tags: Tags (emoji short codes) shown with the message.
        details: Put the command in the message (off: only that a call waits).
        timeout: Seconds one request may take.
    """

    server: str = "https://ntfy.sh"
    topic: str
    token_file: str | None = None
    priority: Annotated[int, msgspec.Meta(ge=1, le=5)] = 4
    tags: tuple[str, ...] = ("warning",)
    details: bool = True
    timeout: Timeout = 5.0


class NtfyNotifier:
    """
    Publishes each notice to an ntfy topic, with a link to the call.

    Args:
        name: The config's name for it.
        config: Its ``[notifiers.NAME]`` table.

    Raises:
        ValueError: The options are wrong, or the token cannot be read.
    """

    def __init__(self, name: str, config: NotifierConfig) -> None:
        options = _options(config, NtfyOptions)
        if not options.topic or "/" in options.topic or len(options.topic) > 64:
            raise NotifierError(
                f"topic must be 1 to 64 characters without '/', not {options.topic!r}"
            )
        self.name = name
        self.options = options
        self.url = _url(options.server, "server").rstrip("/") + "/" + options.topic
        self._token = _secret(options.token_file, "token").decode() if options.token_file else None

    async def notify(self, notice: Notice) -> None:
        """Publish one notice."""
        what = (
            f"`{notice.summary}` ({notice.tool})"
            if self.options.details
            else f"a {notice.tool} call"
        )
        message = f"{what} waits for a person until {notice.deadline}."
        headers = {
            "Title": "agent-gateway: a call waits for you",
            "Priority": str(self.options.priority),
            "Tags": ",".join(self.options.tags),
            "User-Agent": _USER_AGENT,
            "Content-Type": "text/plain; charset=utf-8",
        }
        if notice.link:
            headers["Click"] = notice.link
            headers["Actions"] = f"view, Decide, {notice.link}"
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        await _send(self.url, message.encode(), headers, self.options.timeout)
