"""
Configuration: TOML → frozen Structs, validated in full at start-up.

``load_config`` decodes bytes (or a file) into a `GatewayConfig`; any unknown
key or wrong type is a `ConfigError` naming the key and its path
(``$.gateway.approver-timeout``). Keys are kebab-case. Plugin options
(``[approver.NAME]``, ``[sinks.NAME.options]``) are passed to the plugin, which
validates them itself when it is built. The default config,
``config/default.toml``, ships inside the package.
"""

from __future__ import annotations

import fnmatch
import importlib.resources
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from gateway._errors import ConfigError

__all__ = [
    "DEFAULT_SHELL_TOOLS",
    "AllowMode",
    "GatewayConfig",
    "GatewaySection",
    "HookSection",
    "HostsSection",
    "ServeSection",
    "ShellDialect",
    "ShellTool",
    "SinkConfig",
    "default_config",
    "default_config_bytes",
    "default_token_file",
    "load_config",
]


ShellDialect = Literal["bash", "powershell"]
ShellDialect.__doc__ = "The language a shell tool's text is in; the gateway reads only bash."


class ShellTool(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    A tool whose input holds a shell command.

    Attributes:
        tool: The tool's name, or a pattern of names (``*`` matches any run
            of characters, ``?`` one: ``mcp__*__run_command`` is every MCP
            server's ``run_command`` tool as Claude Code and Codex name it).
            The first entry that matches a call's tool decides.
        fields: Dotted paths into the input, tried in order (``command``,
            ``action.command``); the value is a string, or an argv list that is
            quoted into one.
        dialect: The language of the text: ``bash`` is planned; any other
            (``powershell``) is a shell the gateway cannot read, so its calls
            are unmeasured and never auto-allowed.
    """

    tool: str
    fields: tuple[str, ...] = ("command",)
    dialect: ShellDialect = "bash"

    def matches(self, name: str) -> bool:
        """Whether this entry covers the tool ``name`` (case-sensitive)."""
        if "*" in self.tool or "?" in self.tool:
            return fnmatch.fnmatchcase(name, self.tool)
        return name == self.tool


# MCP shell servers in common use, by the tool names they offer; Claude Code
# and Codex call them ``mcp__<server>__<tool>``, the MCP proxy by the bare name.
_MCP_SHELL_TOOLS: Final = (
    ("run_command", ("command",)),
    ("execute_command", ("command",)),
    ("execute-command", ("command",)),
    ("shell_execute", ("command",)),
    ("start_process", ("command",)),
    ("run_shell_command", ("command",)),
    ("bash", ("command",)),
    ("shell", ("command",)),
)

DEFAULT_SHELL_TOOLS: Final = (
    ShellTool(tool="Bash", fields=("command",)),
    ShellTool(tool="Monitor", fields=("command",)),
    ShellTool(tool="PowerShell", fields=("command",), dialect="powershell"),
    ShellTool(tool="shell", fields=("command",)),
    ShellTool(tool="run_shell_command", fields=("command",)),
    ShellTool(tool="local_shell", fields=("command", "action.command")),
    ShellTool(tool="exec_command", fields=("cmd",)),
    *(ShellTool(tool=f"mcp__*__{name}", fields=fields) for name, fields in _MCP_SHELL_TOOLS),
    *(ShellTool(tool=name, fields=fields) for name, fields in _MCP_SHELL_TOOLS[:5]),
)
"""
The shell tools known without configuration: Claude Code (``Bash``,
``Monitor``, ``PowerShell``), Codex and the OpenAI Agents SDK (``shell``,
``local_shell``, ``exec_command``), Gemini CLI (``run_shell_command``), and
the common MCP shell servers, by Claude Code's and Codex's ``mcp__*__`` names
and by their own.
"""


class SinkConfig(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    One event sink.

    Attributes:
        plugin: The sink plugin's entry-point name (``jsonl``, ``msgpack``).
        path: Where it writes, for file sinks.
        required: The verdict waits until this sink has durably written the
            events behind it; if it cannot, the verdict is ``decline``.
        options: Plugin-specific options.
    """

    plugin: str
    path: str | None = None
    required: bool = False
    options: dict[str, Any] = msgspec.field(default_factory=dict)


class GatewaySection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[gateway]`` table.

    Attributes:
        approvers: The approver chain, in order, by entry-point name.
        approver_timeout: Seconds each approver call may take; past it, decline.
        ask_holes: Put every heredoc hole to the approvers as its own question.
        plan_cache_size: Plans kept for repeated identical calls (by source and cwd).
        event_buffer: Events a sink may lag behind before publishers wait.
        audit_timeout: Seconds a verdict waits for required sinks to write its events.
        planning_threads: Plans computed at once (each in a worker thread).
        recent_calls: Calls remembered for `Gateway.answer` and outcomes.
    """

    approvers: tuple[str, ...] = ("rules",)
    approver_timeout: float = 10.0
    ask_holes: bool = True
    plan_cache_size: int = 1024
    event_buffer: int = 256
    audit_timeout: float = 5.0
    planning_threads: int = 4
    recent_calls: int = 4096

    def __post_init__(self) -> None:
        for name, value in (
            ("approver-timeout", self.approver_timeout),
            ("audit-timeout", self.audit_timeout),
        ):
            if not 0 < value <= 86_400:
                raise ValueError(f"{name} must be between 0 and 86400 seconds, not {value}")
        for name, number in (
            ("plan-cache-size", self.plan_cache_size),
            ("event-buffer", self.event_buffer),
            ("planning-threads", self.planning_threads),
            ("recent-calls", self.recent_calls),
        ):
            if not 1 <= number <= 1_000_000:
                raise ValueError(f"{name} must be between 1 and 1000000, not {number}")


class ServeSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[serve]`` table: the approval service (``gateway serve``).

    Attributes:
        host: The address to bind (loopback by default).
        port: The port (0 picks a free one).
        human_timeout: Seconds a call waits for a person before it is declined.
        token_file: Where the bearer token is stored (user-only permissions);
            unset: ``$XDG_STATE_HOME/agent-gateway/token`` (``~/.local/state/…``).
        protect_reads: Require the token for reads (events, calls, the audit log) too.
        allowed_origins: Origins allowed to call the API from a browser (none by default).
        history: Decided calls kept for the page.
        event_history: Events kept for ``Last-Event-ID`` resume.
        max_pending: Calls that may wait for a person at once; more are declined.
        max_body: Bytes a request body may have.
        max_watchers: Event streams that may be open at once.
    """

    host: str = "127.0.0.1"
    port: int = 8787
    human_timeout: float = 300.0
    token_file: str | None = None
    protect_reads: bool = False
    allowed_origins: tuple[str, ...] = ()
    history: int = 500
    event_history: int = 10_000
    max_pending: int = 1000
    max_body: int = 1_048_576
    max_watchers: int = 64

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65_535:
            raise ValueError(f"port must be between 0 and 65535, not {self.port}")
        # A day less the human approver's grace for saving a remembered approval.
        if not 0 < self.human_timeout <= 86_340:
            raise ValueError(
                f"human-timeout must be between 0 and 86340 seconds, not {self.human_timeout}"
            )
        for name, number, top in (
            ("history", self.history, 1_000_000),
            ("event-history", self.event_history, 1_000_000),
            ("max-pending", self.max_pending, 1_000_000),
            ("max-body", self.max_body, 64 * 1_048_576),
            ("max-watchers", self.max_watchers, 10_000),
        ):
            if not 1 <= number <= top:
                raise ValueError(f"{name} must be between 1 and {top}, not {number}")
        for origin in self.allowed_origins:
            if not origin.startswith(("http://", "https://")) or origin.endswith("/"):
                raise ValueError(
                    f"allowed-origins entries look like 'https://example.com:8443', not {origin!r}"
                )


class HookSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[hook]`` table: how ``gateway hook`` adapters run.

    Attributes:
        server: URL of a running ``gateway serve`` to forward to (a person can
            then decide); empty to review in-process.
        token_file: The bearer token for the server (default: where
            ``gateway serve`` stores it, see `default_token_file`).
        timeout: Seconds the hook waits for a verdict before it blocks the call:
            longer than ``[serve] human-timeout`` (300 s) so that, forwarding, a
            person's decision arrives before the hook gives up.
    """

    server: str = ""
    token_file: str | None = None
    timeout: float = 330.0


AllowMode = Literal["founded", "host"]
AllowMode.__doc__ = "Which allows an adapter gives a host that has permission checks of its own (``[hosts] allow``)."


class HostsSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[hosts]`` table: how adapters answer hosts with permission checks of their own.

    Claude Code, Codex, Gemini CLI, Cursor and the Claude Agent SDK check
    calls themselves (paths outside the project, sandboxes, their own rules).
    An adapter never answers them with an allow weaker than those checks.

    Attributes:
        allow: ``founded`` (the default): answer an allow only when it is
            founded (`Verdict.founded`: every effect known and inside the
            workspace or a temporary directory, or a person decided), and
            leave every other allow to the host's own checks. ``host``: leave
            every allow to the host; the gateway then only declines and asks.
    """

    allow: AllowMode = "founded"


class GatewayConfig(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The whole configuration.

    Attributes:
        gateway: The ``[gateway]`` table.
        shell_tools: Which tools are shells (``[[shell-tools]]``).
        sinks: Event sinks by name (``[sinks.NAME]``).
        approver: Options for each approver by name (``[approver.NAME]``).
        serve: The approval service (``[serve]``).
        hook: Hook adapters (``[hook]``).
        hosts: How adapters answer hosts with checks of their own (``[hosts]``).
    """

    gateway: GatewaySection = GatewaySection()
    shell_tools: tuple[ShellTool, ...] = DEFAULT_SHELL_TOOLS
    sinks: dict[str, SinkConfig] = msgspec.field(default_factory=dict)
    approver: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    serve: ServeSection = ServeSection()
    hook: HookSection = HookSection()
    hosts: HostsSection = HostsSection()


def default_token_file(environ: Mapping[str, str] | None = None) -> Path:
    """
    Where ``gateway serve`` stores its bearer token and ``gateway hook`` reads it, unless configured.

    ``$XDG_STATE_HOME/agent-gateway/token``, or ``~/.local/state/agent-gateway/token``.
    """
    environ = os.environ if environ is None else environ
    state = environ.get("XDG_STATE_HOME") or str(Path("~/.local/state").expanduser())
    return Path(state) / "agent-gateway" / "token"


def load_config(path_or_bytes: str | Path | bytes, *, name: str | None = None) -> GatewayConfig:
    """
    Load and validate a TOML configuration.

    Args:
        path_or_bytes: A file path, or the TOML text as bytes.
        name: What to call the source in messages (defaults to the path).

    Raises:
        ConfigError: The file cannot be read, is not TOML, or has an unknown
            key or a wrong value (the message names the key's path).

    Examples:
        >>> load_config(b'[gateway]\\napprovers = []').gateway.approvers
        ()
    """
    if isinstance(path_or_bytes, bytes):
        data = path_or_bytes
        source = name or "<bytes>"
    else:
        source = name or str(path_or_bytes)
        try:
            data = Path(path_or_bytes).read_bytes()
        except OSError as error:
            raise ConfigError(
                f"Cannot read the config file {source!r}: {error.strerror}.", source=source
            ) from None
    try:
        return msgspec.toml.decode(data, type=GatewayConfig)
    except msgspec.ValidationError as error:
        message = str(error)
        path = message.rsplit(" - at `", 1)[1].rstrip("`") if " - at `" in message else None
        text = message.split(" - at `", 1)[0]
        if path is not None and path.startswith("$.sinks[...]"):
            path = _name_sink(data, path)
        where = f" at {path}" if path else ""
        raise ConfigError(
            f"Invalid config {source!r}{where}: {text}.", path=path, source=source
        ) from None
    except msgspec.DecodeError as error:
        raise ConfigError(
            f"The config {source!r} is not valid TOML: {error}.", source=source
        ) from None


def _name_sink(data: bytes, path: str) -> str:
    """
    Put the sink's name into a path msgspec reports as ``$.sinks[...]``.

    msgspec does not name the key of a dict entry that fails, so with several
    sinks the path alone would not say which one: decode each entry on its
    own and name the first that does not validate.
    """
    raw = msgspec.toml.decode(data)
    sinks = raw.get("sinks") if isinstance(raw, dict) else None
    if not isinstance(sinks, dict):
        return path
    for name, entry in sinks.items():
        try:
            msgspec.convert(entry, SinkConfig)
        except msgspec.ValidationError as error:
            inner = (
                str(error).rsplit(" - at `", 1)[1].rstrip("`") if " - at `" in str(error) else "$"
            )
            return f"$.sinks.{name}{inner[1:]}"
    return path


def default_config_bytes() -> bytes:
    """The embedded default config (``config/default.toml``)."""
    packaged = importlib.resources.files("gateway") / "_data" / "default.toml"
    if packaged.is_file():
        return packaged.read_bytes()
    # A source checkout or an editable install: the file sits beside the package.
    return (Path(__file__).resolve().parent.parent / "config" / "default.toml").read_bytes()


def default_config() -> GatewayConfig:
    """Load the embedded default config."""
    return load_config(default_config_bytes(), name="default.toml")
