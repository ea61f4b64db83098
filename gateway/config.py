"""
The configuration's sections, and the files and directories it names.

A namespace of the public API (like ``trio.lowlevel``): `gateway.GatewayConfig`,
`gateway.load_config` and `gateway.default_config` are at the root; here are
the Structs of the sections a config is made of (``[gateway]``, ``[audit]``,
``[[sinks]]``, ``[profiles.NAME]``…), the types of their fields, and where the
gateway keeps its state (`state_directory`, `state_path`). docs/configuration.md
describes every key.

Examples:
    >>> from gateway import default_config
    >>> from gateway.config import GatewaySection
    >>> isinstance(default_config().gateway, GatewaySection)
    True
"""

from gateway._calls._confinement import (
    ConfinementSection as ConfinementSection,
    ProfileSection as ProfileSection,
)
from gateway._settings._config import (
    MAX_SECONDS as MAX_SECONDS,
    AllowMode as AllowMode,
    AuditSection as AuditSection,
    BrokerSection as BrokerSection,
    GatewaySection as GatewaySection,
    HookSection as HookSection,
    HostsSection as HostsSection,
    NotifierConfig as NotifierConfig,
    ServeSection as ServeSection,
    ShellDialect as ShellDialect,
    ShellInput as ShellInput,
    ShellTool as ShellTool,
    SinkConfig as SinkConfig,
    TelemetrySection as TelemetrySection,
    TiersSection as TiersSection,
    WitnessConfig as WitnessConfig,
    default_config_bytes as default_config_bytes,
    default_profiles as default_profiles,
    default_token_file as default_token_file,
    secret_files as secret_files,
    state_directory as state_directory,
    state_path as state_path,
    validation_path as validation_path,
)

__all__ = [
    "MAX_SECONDS",
    "AllowMode",
    "AuditSection",
    "BrokerSection",
    "ConfinementSection",
    "GatewaySection",
    "HookSection",
    "HostsSection",
    "NotifierConfig",
    "ProfileSection",
    "ServeSection",
    "ShellDialect",
    "ShellInput",
    "ShellTool",
    "SinkConfig",
    "TelemetrySection",
    "TiersSection",
    "WitnessConfig",
    "default_config_bytes",
    "default_profiles",
    "default_token_file",
    "secret_files",
    "state_directory",
    "state_path",
    "validation_path",
]
