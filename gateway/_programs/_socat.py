"""
What one socat address opens: ``TCP:host:port`` connects, ``EXEC:cmd`` runs a program.

socat joins two addresses; each is ``TYPE:PARAMETERS,OPTIONS`` and its type
decides what it touches. Every type socat documents that this table knows is
listed with its effect; an address of another type is undeclared, so an
allow never stands on an address nobody read.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from gateway._programs._rows import (
    CREATE,
    LISTEN,
    NETWORK,
    READ,
    RUN_PROGRAM,
    RUN_SHELL,
    WRITE,
    Effect,
)

__all__ = ["SOCAT_TYPES", "socat_address_effects"]

_CONNECTS: Final = (
    "TCP TCP4 TCP6 TCP-CONNECT TCP4-CONNECT TCP6-CONNECT UDP UDP4 UDP6 UDP-CONNECT "
    "UDP4-CONNECT UDP6-CONNECT UDP-SENDTO UDP4-SENDTO UDP6-SENDTO UDP-DATAGRAM "
    "UDP4-DATAGRAM UDP6-DATAGRAM SCTP-CONNECT SCTP4-CONNECT SCTP6-CONNECT DCCP-CONNECT "
    "OPENSSL OPENSSL-CONNECT SSL SOCKS SOCKS4 SOCKS4A SOCKS5 SOCKS5-CONNECT PROXY "
    "PROXY-CONNECT IP-SENDTO IP4-SENDTO IP6-SENDTO IP-DATAGRAM IP4-DATAGRAM IP6-DATAGRAM "
    "UNIX-CONNECT UNIX-SENDTO UNIX-CLIENT ABSTRACT-CONNECT ABSTRACT-SENDTO ABSTRACT-CLIENT "
    "VSOCK-CONNECT SOCKET-CONNECT SOCKET-SENDTO SOCKET-DATAGRAM OPENSSL-DTLS-CLIENT "
    "DTLS INTERFACE"
)
_LISTENS: Final = (
    "TCP-LISTEN TCP4-LISTEN TCP6-LISTEN TCP-L TCP4-L TCP6-L UDP-LISTEN UDP4-LISTEN "
    "UDP6-LISTEN UDP-RECV UDP4-RECV UDP6-RECV UDP-RECVFROM UDP4-RECVFROM UDP6-RECVFROM "
    "SCTP-LISTEN SCTP4-LISTEN SCTP6-LISTEN DCCP-LISTEN OPENSSL-LISTEN SSL-L "
    "OPENSSL-DTLS-SERVER IP-RECV IP4-RECV IP6-RECV IP-RECVFROM IP4-RECVFROM IP6-RECVFROM "
    "UNIX-LISTEN UNIX-RECV UNIX-RECVFROM ABSTRACT-LISTEN ABSTRACT-RECV ABSTRACT-RECVFROM "
    "VSOCK-LISTEN SOCKET-LISTEN SOCKET-RECV SOCKET-RECVFROM TUN"
)
_NOTHING: Final = "STDIO STDIN STDOUT STDERR - FD PTY READLINE PIPE"

SOCAT_TYPES: Final[Mapping[str, tuple[Effect, ...]]] = MappingProxyType(
    {
        **dict.fromkeys(_CONNECTS.split(), (NETWORK,)),
        **dict.fromkeys(_LISTENS.split(), (LISTEN,)),
        **dict.fromkeys(_NOTHING.split(), ()),
        "EXEC": (RUN_PROGRAM,),
        "SYSTEM": (RUN_SHELL,),
        "SHELL": (RUN_SHELL,),
        "OPEN": (READ, WRITE),
        "FILE": (READ, WRITE),
        "GOPEN": (READ, WRITE),
        "CREATE": (CREATE,),
        "CREAT": (CREATE,),
        "NAMED-PIPE": (CREATE,),
    }
)
"""Every socat address type this table knows (upper case) → what it does to its first parameter."""

_OPTION_EFFECTS: Final[Mapping[str, Effect]] = MappingProxyType(
    {
        "link": CREATE,
        "symbolic-link": CREATE,
        "fork": Effect(kind="lifetime", action="unbounded"),
        "cert": READ,
        "key": READ,
        "cafile": READ,
        "capath": READ,
        "dhparam": READ,
        "lockfile": WRITE,
        "waitlock": WRITE,
        "chroot": Effect(kind="cwd"),
    }
)


def socat_address_effects(address: str) -> tuple[tuple[Effect, str | None], ...] | None:
    """
    What a socat address does: ``(effect, value)`` pairs, or ``None`` for a type no table lists.

    A path-like address (``/dev/ttyS0``, ``./f``) is GOPEN, as socat reads it.

    Examples:
        >>> [effect.kind for effect, _ in socat_address_effects("TCP:example.com:80")]
        ['network']
        >>> socat_address_effects("EXEC:/bin/sh,pty")[0][1]
        '/bin/sh'
        >>> socat_address_effects("FROBNICATE:x") is None
        True
    """
    head, _, options = address.partition(",")
    kind, colon, parameter = head.partition(":")
    name = kind.upper()
    if not colon and name not in SOCAT_TYPES and address.startswith(("/", ".", "~")):
        name, parameter = "GOPEN", head
    effects = SOCAT_TYPES.get(name)
    if effects is None:
        return None
    found: list[tuple[Effect, str | None]] = [(effect, parameter or None) for effect in effects]
    for option in options.split(",") if options else ():
        key, _, value = option.partition("=")
        effect = _OPTION_EFFECTS.get(key.strip().lower())
        if effect is not None:
            found.append((effect, value or None))
    return tuple(found)
