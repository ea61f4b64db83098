"""
Network targets as values: the host a URL or address names, and its address class.

An address written as a number — in any of the spellings the C resolver
accepts (``127.1``, ``0x7f000001``, ``2130706433``, ``017700000001``, an
IPv4-mapped IPv6 ``[::ffff:169.254.169.254]``) — is classified by its value:
``loopback``, ``link_local`` (the cloud metadata addresses live there),
``private`` or ``public``. A name is ``public`` unless it is one of the names
that always mean this machine (``localhost``) or a metadata service; a name
the text does not show is ``unknown``. Nothing here resolves a name.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Final
from urllib.parse import urlsplit

from gateway._calls._effects import AddressClass

__all__ = ["address_class", "url_host"]

_LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
_METADATA_NAMES: Final = frozenset(
    {"metadata", "metadata.google.internal", "metadata.goog", "instance-data"}
)


def _number(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = host.strip("[]")
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        pass
    try:  # the legacy spellings: 127.1, 0x7f.1, 2130706433, 0177.0.0.1
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except (OSError, ValueError):
        return None


def address_class(host: str | None) -> AddressClass:
    """
    The class of the address a host names (``None``: only known at run time).

    Examples:
        >>> address_class("169.254.169.254"), address_class("0x7f.1"), address_class("10.0.0.8")
        ('link_local', 'loopback', 'private')
        >>> address_class("example.com"), address_class(None)
        ('public', 'unknown')
    """
    if not host:
        return "unknown"
    name = host.lower().rstrip(".")
    if name in _LOOPBACK_NAMES or name.endswith(".localhost"):
        return "loopback"
    if name in _METADATA_NAMES:
        return "link_local"
    number = _number(name)
    if number is None:
        return "public"
    if isinstance(number, ipaddress.IPv6Address) and number.ipv4_mapped is not None:
        number = number.ipv4_mapped
    if number.is_loopback or number.is_unspecified:
        return "loopback"
    if number.is_link_local:
        return "link_local"
    if not number.is_global:
        return "private"
    return "public"


def url_host(target: str) -> str | None:
    """
    The host a URL or ``[user@]host[:port]`` names, or ``None`` when there is none.

    Examples:
        >>> url_host("https://user:pw@[::1]:8443/x"), url_host("git@github.com:org/repo")
        ('::1', 'github.com')
    """
    text = target.strip()
    if "://" in text:
        try:
            host = urlsplit(text).hostname
        except ValueError:
            return None
        return host or None
    text = text.rsplit("@", 1)[-1]
    if text.startswith("["):
        end = text.find("]")
        return text[1:end] if end > 0 else None
    host = text.split("/", 1)[0].split(":", 1)[0]
    return host or None
