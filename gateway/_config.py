"""
Configuration: TOML → frozen Structs, validated in full at start-up.

``load_config`` decodes bytes (or a file) into a `GatewayConfig`; any unknown
key, wrong type or value out of range is a `ConfigError` naming the key and its
path (``$.gateway.approver-timeout``). Ranges are declared on the fields
(`msgspec.Meta`), so the JSON schema of the config states them too, and every
duration is at most `MAX_SECONDS`. Keys are kebab-case. Plugin options
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
from typing import Annotated, Any, Final, Literal

import msgspec

from gateway._errors import ConfigError

__all__ = [
    "DEFAULT_SHELL_TOOLS",
    "MAX_SECONDS",
    "AllowMode",
    "AuditSection",
    "GatewayConfig",
    "GatewaySection",
    "HookSection",
    "HostsSection",
    "ServeSection",
    "ShellDialect",
    "ShellTool",
    "SinkConfig",
    "WitnessConfig",
    "default_config",
    "default_config_bytes",
    "default_token_file",
    "load_config",
    "validation_path",
]

MAX_SECONDS: Final = 86_400.0
"""The longest any duration of the gateway may be: a day. Every wait is finite."""

Seconds = Annotated[float, msgspec.Meta(gt=0, le=MAX_SECONDS)]
"""A duration in seconds: more than 0, at most `MAX_SECONDS`."""

Count = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
"""How many of something may be kept or may wait: 1 to a million."""

_AT: Final = " - at `"


def validation_path(error: msgspec.ValidationError) -> tuple[str, str | None]:
    """
    A msgspec validation error as its message and the path it names.

    msgspec puts the path only in the message text (``Expected `int`, got
    `str` - at `$.serve.port```); this is the one place that takes it out.

    Returns:
        The message without the path, and the path (``$.serve.port``), or
        ``None`` when the message names none.

    Examples:
        >>> import msgspec
        >>> try:
        ...     msgspec.convert({"port": "x"}, ServeSection)
        ... except msgspec.ValidationError as error:
        ...     validation_path(error)
        ('Expected `int`, got `str`', '$.port')
    """
    text = str(error)
    head, at, tail = text.rpartition(_AT)
    if not at or not tail.endswith("`"):
        return text, None
    return head, tail[:-1]


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
# and Codex call them ``mcp__<server>__<tool>``, Gemini CLI ``mcp_<server>_<tool>``
# (the one pattern ``mcp_*_<tool>`` covers both), the MCP proxy and Cursor by
# the bare name.
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
    ShellTool(tool="Shell", fields=("command",)),
    *(ShellTool(tool=f"mcp_*_{name}", fields=fields) for name, fields in _MCP_SHELL_TOOLS),
    *(ShellTool(tool=name, fields=fields) for name, fields in _MCP_SHELL_TOOLS[:5]),
)
"""
The shell tools known without configuration: Claude Code (``Bash``,
``Monitor``, ``PowerShell``), Codex and the OpenAI Agents SDK (``shell``,
``local_shell``, ``exec_command``), Gemini CLI (``run_shell_command``), Cursor
(``Shell``), and the common MCP shell servers, by the hosts' ``mcp_*_`` names
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
        review_timeout: Seconds one review may take from start to verdict,
            whatever it waits for (planning, every approver and hole
            question, the audit write); past it, decline. The one deadline
            every other wait of a review fits inside.
        approver_timeout: Seconds each approver call may take; past it, decline.
        ask_holes: Put every heredoc hole to the approvers as its own question.
        plan_cache_size: Calls kept with their plans for repeated identical
            calls (by tool, input and working directory).
        event_buffer: Events a sink may lag behind before publishers wait.
        audit_timeout: Seconds a verdict waits for required sinks to write its events.
        plan_timeout: Seconds the reading of one call's text (plans, secrets,
            holes) may take in a worker process before the worker is killed
            and the call is declined.
        workers: Worker processes that read call texts (started when first
            needed; each is killed and replaced when it overruns).
        worker_memory: MiB of memory each worker may add to what it needs at
            start; past it, the reading fails and the call is declined.
        recent_calls: Calls remembered for `Gateway.answer` and outcomes.
    """

    approvers: tuple[str, ...] = ("rules",)
    review_timeout: Seconds = 325.0
    approver_timeout: Seconds = 10.0
    ask_holes: bool = True
    plan_cache_size: Count = 1024
    event_buffer: Count = 256
    audit_timeout: Seconds = 5.0
    plan_timeout: Seconds = 5.0
    workers: Annotated[int, msgspec.Meta(ge=1, le=64)] = 2
    worker_memory: Annotated[int, msgspec.Meta(ge=64, le=65_536)] = 512
    recent_calls: Count = 4096


class WitnessConfig(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    One witness: somewhere outside the audit log that keeps a copy of every signed checkpoint.

    Attributes:
        plugin: The witness plugin's entry-point name (``file``, ``webhook``).
        path: Where a ``file`` witness appends.
        url: Where a ``webhook`` witness posts.
        options: Plugin-specific options.
    """

    plugin: str
    path: str | None = None
    url: str | None = None
    options: dict[str, Any] = msgspec.field(default_factory=dict)


class AuditSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[audit]`` table: how the event chain is signed, so an outsider can check it.

    With a key, the chain starts with a signed ``chain.genesis`` and carries
    signed ``chain.checkpoint`` records (every ``checkpoint-every`` events,
    every ``checkpoint-interval`` seconds, and when the gateway stops); whoever
    rewrites the log without the key cannot sign again. Without a key the
    records are still chained, but only the chain's own digests vouch for them.

    Attributes:
        signing_key: An Ed25519 private key (PEM) in a file only its owner can
            read (mode 0600); ``gateway keygen`` makes one.
        hmac_key: Instead: a shared secret in a 0600 file; checkpoints carry an
            HMAC-SHA256 that whoever holds the secret can check.
        checkpoint_every: Events between signed checkpoints.
        checkpoint_interval: Seconds between signed checkpoints while events arrive.
    """

    signing_key: str | None = None
    hmac_key: str | None = None
    checkpoint_every: Count = 1000
    checkpoint_interval: Seconds = 60.0

    def __post_init__(self) -> None:
        if self.signing_key and self.hmac_key:
            raise ValueError("set signing-key or hmac-key, not both")


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
        max_connections: Connections open at once; past it the longest idle
            one is closed to make room, and with none idle the new one is
            refused.
        header_timeout: Seconds a client has to send a request's headers
            from its first byte (or, on a new connection, from connecting).
        body_timeout: Seconds a client has to send a request's body.
    """

    host: str = "127.0.0.1"
    port: Annotated[int, msgspec.Meta(ge=0, le=65_535)] = 8787
    human_timeout: Seconds = 300.0
    token_file: str | None = None
    protect_reads: bool = False
    allowed_origins: tuple[str, ...] = ()
    history: Count = 500
    event_history: Count = 10_000
    max_pending: Count = 1000
    max_body: Annotated[int, msgspec.Meta(ge=1, le=64 * 1_048_576)] = 1_048_576
    max_watchers: Annotated[int, msgspec.Meta(ge=1, le=10_000)] = 64
    max_connections: Annotated[int, msgspec.Meta(ge=2, le=100_000)] = 1024
    header_timeout: Seconds = 10.0
    body_timeout: Seconds = 30.0

    def __post_init__(self) -> None:
        for origin in self.allowed_origins:
            if not origin.startswith(("http://", "https://")) or origin.endswith("/"):
                raise ValueError(
                    f"allowed-origins entries look like 'https://example.com:8443', not {origin!r}"
                )


class HookSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[hook]`` table: how ``gateway-hook HOST`` runs (read by the hook with ``--config``).

    Attributes:
        socket: The Unix socket of a running ``gateway serve`` to forward to
            (default: ``gateway.sock`` beside `default_token_file`). When
            nothing listens there, the hook reviews in-process.
        require_service: Block every call when no service listens, instead
            of reviewing in-process (a person can then always be asked).
        timeout: Seconds the hook waits for a verdict before it blocks the call:
            longer than ``[serve] human-timeout`` (300 s) so that, forwarding, a
            person's decision arrives before the hook gives up.
    """

    socket: str | None = None
    require_service: bool = False
    timeout: Seconds = 330.0


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
        audit: How the event chain is signed (``[audit]``).
        witnesses: Where signed checkpoints are also sent (``[witnesses.NAME]``).
        hosts: How adapters answer hosts with checks of their own (``[hosts]``).
    """

    gateway: GatewaySection = GatewaySection()
    shell_tools: tuple[ShellTool, ...] = DEFAULT_SHELL_TOOLS
    sinks: dict[str, SinkConfig] = msgspec.field(default_factory=dict)
    approver: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    serve: ServeSection = ServeSection()
    hook: HookSection = HookSection()
    audit: AuditSection = AuditSection()
    witnesses: dict[str, WitnessConfig] = msgspec.field(default_factory=dict)
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
        text, path = validation_path(error)
        if path is not None and path.startswith(("$.sinks[...]", "$.witnesses[...]")):
            path = _name_entry(data, path)
        where = f" at {path}" if path else ""
        raise ConfigError(
            f"Invalid config {source!r}{where}: {text}.", path=path, source=source
        ) from None
    except msgspec.DecodeError as error:
        raise ConfigError(
            f"The config {source!r} is not valid TOML: {error}.", source=source
        ) from None


def _name_entry(data: bytes, path: str) -> str:
    """
    Put the entry's name into a path msgspec reports as ``$.sinks[...]`` (or ``$.witnesses[...]``).

    msgspec does not name the key of a dict entry that fails, so with several
    sinks the path alone would not say which one: decode each entry on its
    own and name the first that does not validate.
    """
    table, kind = (
        ("sinks", SinkConfig) if path.startswith("$.sinks") else ("witnesses", WitnessConfig)
    )
    raw = msgspec.toml.decode(data)
    entries = raw.get(table) if isinstance(raw, dict) else None
    if not isinstance(entries, dict):
        return path
    for name, entry in entries.items():
        try:
            msgspec.convert(entry, kind)
        except msgspec.ValidationError as error:
            inner = validation_path(error)[1] or "$"
            return f"$.{table}.{name}{inner[1:]}"
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
