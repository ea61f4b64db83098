"""
The gateway's exceptions: for bugs and bad configuration, never for decisions.

Decisions are data (`Decline`, an unmeasured plan); exceptions say that the
gateway cannot be started or used as configured. Every message is one
sentence naming the value and what to do.

    GatewayError
    ├── ConfigError          a config file or value is invalid
    ├── PluginError
    │   └── PluginLoadError  an approver, sink or witness named in the config cannot be loaded
    ├── AuditLogError        a record of an audit log cannot be read
    ├── SinkFailure          a sink could not write an event in time
    ├── FragmentError        a heredoc fragment cannot be expanded at all (gateway._calls._plans)
    └── ArithmeticError_     text is not valid bash arithmetic (gateway._arith)

Plugins add their own below it (the rules approver's ``RuleError``).
"""

from __future__ import annotations

__all__ = [
    "AuditLogError",
    "ConfigError",
    "GatewayError",
    "PluginError",
    "PluginLoadError",
    "SinkFailure",
]


class GatewayError(Exception):
    """The base of every exception the gateway raises on purpose."""


class ConfigError(GatewayError):
    """
    A configuration is invalid.

    Attributes:
        path: Where in the config the problem is (``$.gateway.approvers[2]``), when known.
        source: Which file or text it came from, when known.
    """

    def __init__(self, message: str, *, path: str | None = None, source: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.source = source


class PluginError(GatewayError):
    """A plugin misbehaved in a way the gateway cannot work around at start-up."""

    def __init__(self, message: str, *, plugin: str) -> None:
        super().__init__(message)
        self.plugin = plugin


class PluginLoadError(PluginError):
    """An approver, sink or witness named in the config is not installed or cannot be built."""


class AuditLogError(GatewayError):
    """
    A record of an audit log cannot be read.

    Attributes:
        index: Which record (0 for the first).
        reason: Why, as a clause.
    """

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"record {index + 1}: {reason}")
        self.index = index
        self.reason = reason


class SinkFailure(GatewayError):
    """A sink could not write an event (it raised, or stayed blocked past the timeout)."""
