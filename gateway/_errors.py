"""
The gateway's exceptions: for bugs and bad configuration, never for decisions.

Decisions are data (`Decline`, an unmeasured plan); exceptions say that the
gateway cannot be started or used as configured. Every message is one
sentence naming the value and what to do.

    GatewayError
    ├── ConfigError          a config file or value is invalid
    └── PluginError
        └── PluginLoadError  an approver or sink named in the config cannot be loaded
"""

from __future__ import annotations

__all__ = ["ConfigError", "GatewayError", "PluginError", "PluginLoadError"]


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
    """An approver or sink named in the config is not installed or cannot be built."""
