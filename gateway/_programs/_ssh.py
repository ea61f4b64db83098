"""
What one ssh configuration setting does: ``ssh -o Key=Value``, also for scp and sftp.

An ``-o`` option is a line of ``ssh_config``, so its effect depends on its
key: ``ProxyCommand`` runs shell text on this machine, ``PKCS11Provider``
loads a library, ``LocalForward`` listens on a port, ``IdentityFile`` reads a
key. Every key OpenSSH documents is listed here with what it does; a key not
listed is undeclared, so an allow never stands on a setting nobody read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from gateway._programs._rows import (
    APPEND,
    CREATE,
    ENVIRONMENT,
    LISTEN,
    NETWORK,
    READ,
    RESOLVE,
    RUN_CODE,
    RUN_PROGRAM,
    RUN_SHELL,
    Effect,
)

__all__ = ["SSH_SETTINGS", "ssh_option_effect"]

_DETACHED: Final = Effect(kind="lifetime", action="detached")

_HARMLESS: Final = (
    "AddKeysToAgent AddressFamily BatchMode CASignatureAlgorithms CheckHostIP Ciphers "
    "ClearAllForwardings Compression ConnectTimeout ConnectionAttempts EnableEscapeCommandline "
    "EnableSSHKeysign EscapeChar ExitOnForwardFailure FingerprintHash ForwardX11Timeout "
    "ForwardX11Trusted GSSAPIAuthentication GSSAPIClientIdentity GSSAPIDelegateCredentials "
    "GSSAPIKexAlgorithms GSSAPIKeyExchange GSSAPIRenewalForcesRekey GSSAPIServerIdentity "
    "GSSAPITrustDns HashKnownHosts HostKeyAlgorithms HostKeyAlias HostbasedAcceptedAlgorithms "
    "HostbasedAuthentication IPQoS IdentitiesOnly IgnoreUnknown KbdInteractiveAuthentication "
    "KbdInteractiveDevices KexAlgorithms LogLevel LogVerbose MACs "
    "NoHostAuthenticationForLocalhost NumberOfPasswordPrompts PasswordAuthentication "
    "PreferredAuthentications ProxyUseFdpass PubkeyAcceptedAlgorithms PubkeyAuthentication "
    "RekeyLimit RequestTTY RequiredRSASize ServerAliveCountMax ServerAliveInterval SessionType "
    "StdinNull StreamLocalBindMask StreamLocalBindUnlink StrictHostKeyChecking SyslogFacility "
    "TCPKeepAlive User VisualHostKey"
)

_EFFECTS: Final[dict[str, Effect]] = {
    # Shell text or a program run on this machine (or, for RemoteCommand, on the host).
    "proxycommand": RUN_SHELL,
    "localcommand": RUN_SHELL,
    "knownhostscommand": RUN_SHELL,
    "remotecommand": RUN_SHELL,
    "permitlocalcommand": Effect(kind="execute", action="shell_text"),
    "xauthlocation": RUN_PROGRAM,
    # Libraries loaded into ssh.
    "pkcs11provider": RUN_CODE,
    "securitykeyprovider": RUN_CODE,
    # Files it reads: keys, certificates, known hosts, more configuration.
    "identityfile": READ,
    "certificatefile": READ,
    "globalknownhostsfile": READ,
    "revokedhostkeys": READ,
    "identityagent": READ,
    # Files it writes.
    "userknownhostsfile": APPEND,
    "updatehostkeys": Effect(kind="write", action="write"),
    "controlpath": CREATE,
    # Where it connects, listens, resolves.
    "hostname": NETWORK,
    "proxyjump": NETWORK,
    "port": NETWORK,
    "bindaddress": NETWORK,
    "bindinterface": NETWORK,
    "localforward": LISTEN,
    "remoteforward": LISTEN,
    "dynamicforward": LISTEN,
    "gatewayports": LISTEN,
    "permitremoteopen": NETWORK,
    "tunnel": NETWORK,
    "tunneldevice": NETWORK,
    "forwardagent": NETWORK,
    "forwardx11": NETWORK,
    "verifyhostkeydns": RESOLVE,
    "canonicalizehostname": RESOLVE,
    "canonicaldomains": RESOLVE,
    "canonicalizefallbacklocal": RESOLVE,
    "canonicalizemaxdots": RESOLVE,
    "canonicalizepermittedcnames": RESOLVE,
    # Environment variables sent to the host.
    "sendenv": ENVIRONMENT,
    "setenv": ENVIRONMENT,
    # A master connection that outlives the call.
    "controlmaster": _DETACHED,
    "controlpersist": _DETACHED,
    "forkafterauthentication": _DETACHED,
}

SSH_SETTINGS: Final[Mapping[str, Effect | None]] = MappingProxyType(
    {**{key.lower(): None for key in _HARMLESS.split()}, **_EFFECTS}
)
"""Every ssh configuration key (lower case) → what it does, ``None`` for nothing the policy judges."""

# Settings whose value is a switch, not the path, host or code the fact names.
_VALUELESS: Final = frozenset(
    {
        "permitlocalcommand",
        "updatehostkeys",
        "forwardagent",
        "forwardx11",
        "gatewayports",
        "verifyhostkeydns",
        "canonicalizehostname",
        "canonicalizefallbacklocal",
        "canonicalizemaxdots",
        "controlmaster",
        "controlpersist",
        "forkafterauthentication",
    }
)

_SETTING: Final = re.compile(r"\s*([A-Za-z0-9]+)(?:\s*=\s*|\s+)(.*)", re.DOTALL)


def ssh_option_effect(text: str) -> tuple[Effect | None, str | None] | None:
    """
    What ``ssh -o TEXT`` does: ``(effect, its value)``, or ``None`` for a key no table lists.

    Examples:
        >>> ssh_option_effect("ProxyCommand=nc %h %p")[0].action
        'shell_text'
        >>> ssh_option_effect("BatchMode yes")
        (None, 'yes')
        >>> ssh_option_effect("Match exec id") is None
        True
    """
    match = _SETTING.fullmatch(text)
    if match is None:
        return None
    key = match.group(1).lower()
    if key not in SSH_SETTINGS:
        return None
    return SSH_SETTINGS[key], None if key in _VALUELESS else match.group(2)
