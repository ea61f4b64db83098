"""
Connecting to NATS: the ``[broker]`` table as the options ``nats-py`` takes, and the names a fleet uses.

Credentials and TLS are read here, once, before connecting: a password or
token from its file, a credentials file or an NKey seed passed to the
client by path, a TLS context built from the CA, certificate and key files.
Nothing secret is ever logged or put in an error message; errors name the
file and what is wrong with it.

The client reconnects for ever (every second), so a broker that comes back
is used again without a restart; while it is away, every request fails
after ``request-timeout`` and whatever it was for fails closed.
"""

from __future__ import annotations

import logging
import socket
import ssl
from pathlib import Path
from typing import Any, Final, NamedTuple

from gateway import ConfigError
from gateway.config import BrokerSection

__all__ = ["Names", "connect_options", "replica_name"]

_log = logging.getLogger("gateway_nats")

RECONNECT_WAIT: Final = 1.0
"""Seconds between attempts to reach a broker that went away."""

PING_INTERVAL: Final = 5
"""Seconds between pings that check the connection still works."""


class Names(NamedTuple):
    """
    The JetStream names a fleet uses, all derived from ``[broker] prefix``.

    Attributes:
        calls: The bucket of calls that wait for a person, and their decisions.
        tokens: The bucket of people's tokens (digests only).
        remembered: The bucket of remembered approvals.
        policy: The bucket of managed configuration versions.
        replicas: The bucket of replica heartbeats.
        stream: The audit stream.
        subjects: The audit stream's subjects (``<prefix>.audit.>``).
    """

    calls: str
    tokens: str
    remembered: str
    policy: str
    replicas: str
    stream: str
    subjects: str

    @classmethod
    def of(cls, prefix: str) -> Names:
        """The names for a prefix."""
        return cls(
            calls=f"{prefix}_calls",
            tokens=f"{prefix}_tokens",
            remembered=f"{prefix}_remembered",
            policy=f"{prefix}_policy",
            replicas=f"{prefix}_replicas",
            stream=f"{prefix.upper()}_AUDIT",
            subjects=f"{prefix}.audit.>",
        )

    def subject(self, replica: str) -> str:
        """The audit subject one replica's chain is published on."""
        return self.subjects[:-1] + replica


def replica_name(section: BrokerSection) -> str:
    """This process's replica name: the configured one, or the host name and a random suffix."""
    if section.replica:
        return section.replica
    import secrets

    host = "".join(c if c.isalnum() or c in "-_" else "-" for c in socket.gethostname())[:20]
    return f"{host or 'replica'}-{secrets.token_hex(4)}"


def _secret(path: str, what: str) -> str:
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        detail = getattr(error, "strerror", None) or "not UTF-8 text"
        raise ConfigError(
            f"Cannot read the broker's {what} file {path!r} ({detail}).",
            path=f"$.broker.{what}-file",
        ) from None
    if not text:
        raise ConfigError(
            f"The broker's {what} file {path!r} is empty.", path=f"$.broker.{what}-file"
        )
    return text


def _readable(path: str, key: str) -> str:
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise ConfigError(
            f"The broker's {key} {path!r} is not a readable file.", path=f"$.broker.{key}"
        )
    return str(resolved)


def _tls(section: BrokerSection) -> ssl.SSLContext | None:
    wants = any(s.startswith(("tls://", "wss://")) for s in section.servers)
    if not (wants or section.tls_ca or section.tls_cert):
        return None
    try:
        context = ssl.create_default_context(
            cafile=_readable(section.tls_ca, "tls-ca") if section.tls_ca else None
        )
        if section.tls_cert and section.tls_key:
            context.load_cert_chain(
                _readable(section.tls_cert, "tls-cert"), _readable(section.tls_key, "tls-key")
            )
    except ssl.SSLError as error:
        raise ConfigError(
            f"The broker's TLS files cannot be used ({error.reason or error}).", path="$.broker"
        ) from None
    return context


def connect_options(section: BrokerSection, *, name: str) -> dict[str, Any]:
    """
    The keyword arguments of ``nats.connect`` for a ``[broker]`` table.

    Args:
        section: The table.
        name: The connection's name (shown in the server's monitoring).

    Raises:
        ConfigError: There is no URL, or a credential or TLS file cannot be read.
    """
    if not section.servers:
        raise ConfigError(
            "No broker is configured; set [broker] url or pass --broker nats://HOST:PORT.",
            path="$.broker.url",
        )

    async def disconnected() -> None:
        _log.warning("The broker connection was lost; reconnecting.")

    async def reconnected() -> None:
        _log.warning("The broker connection is back.")

    async def error(problem: Exception) -> None:
        _log.debug("Broker connection: %s", type(problem).__name__)

    options: dict[str, Any] = {
        "servers": list(section.servers),
        "name": name,
        "connect_timeout": section.connect_timeout,
        "allow_reconnect": True,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": RECONNECT_WAIT,
        # A broker that stops answering without closing the connection (a
        # cut network) is noticed after two missed pings, not minutes later.
        "ping_interval": PING_INTERVAL,
        "max_outstanding_pings": 2,
        "disconnected_cb": disconnected,
        "reconnected_cb": reconnected,
        "error_cb": error,
    }
    if section.user is not None:
        options["user"] = section.user
    if section.password_file:
        options["password"] = _secret(section.password_file, "password")
    if section.token_file:
        options["token"] = _secret(section.token_file, "token")
    if section.credentials:
        options["user_credentials"] = _readable(section.credentials, "credentials")
    if section.nkey_seed:
        options["nkeys_seed"] = _readable(section.nkey_seed, "nkey-seed")
    context = _tls(section)
    if context is not None:
        options["tls"] = context
    if section.tls_hostname:
        options["tls_hostname"] = section.tls_hostname
    if section.tls_handshake_first:
        options["tls_handshake_first"] = True
    return options
