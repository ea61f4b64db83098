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
import re
import shlex
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Final, Literal, NamedTuple

import msgspec

from gateway._calls._confinement import ProfileSection, profile_problem
from gateway._calls._errors import ConfigError
from gateway._calls._places import PathsSection
from gateway._plan._paths import normalise
from gateway._plan._redact import Redactor
from gateway._programs._user import UserTable, user_rows
from gateway._settings._tools import ToolEffects, field_value, unknown_fields

__all__ = [
    "DEFAULT_SHELL_TOOLS",
    "MAX_SECONDS",
    "AllowMode",
    "AuditSection",
    "BrokerSection",
    "GatewayConfig",
    "GatewaySection",
    "HookSection",
    "HostsSection",
    "Mode",
    "NotifierConfig",
    "ServeSection",
    "ShellDialect",
    "ShellInput",
    "ShellTool",
    "SinkConfig",
    "TelemetrySection",
    "TiersSection",
    "WitnessConfig",
    "config_from_table",
    "default_config",
    "default_config_bytes",
    "default_profiles",
    "default_token_file",
    "load_config",
    "secret_files",
    "state_directory",
    "state_path",
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

_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
_DIGEST: Final = re.compile(r"sha256:[0-9a-f]{64}")


class ShellInput(NamedTuple):
    """
    What a shell tool's input says (`ShellTool.read`).

    Attributes:
        text: The command as one shell text; ``None`` when its field is
            missing, or holds neither a string nor an argv list of strings.
        directory: The directory a ``cwd`` field names (absolute,
            normalised); ``None``: the call's own working directory.
        refusal: Why what runs is not all known (a clause naming the field),
            if so: then the call has an ``opaque`` effect and is never
            allowed without a person.
    """

    text: str | None
    directory: str | None = None
    refusal: str | None = None


class ShellTool(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    A tool whose input holds a shell command, and every other field of that input.

    Attributes:
        tool: The tool's name, or a pattern of names (``*`` matches any run
            of characters, ``?`` one: ``mcp__*__run_command`` is every MCP
            server's ``run_command`` tool as Claude Code and Codex name it).
            The first entry that matches a call's tool decides.
        fields: Dotted paths into the input, tried in order (``command``,
            ``action.command``); the value is a string, or an argv list that is
            quoted into one. Only one of them may hold a command.
        dialect: The language of the text: ``bash`` is planned; any other
            (``powershell``) is a shell the gateway cannot read, so its calls
            are unmeasured and never auto-allowed.
        cwd: Fields naming the directory the command runs in (``workdir``):
            a relative one resolves against the call's working directory.
            A directory that hosts may read differently (``~/x``, ``a/../b``,
            blanks at its ends), or a relative one where the call's working
            directory is not known, makes the call ``opaque``.
        other_fields: Fields that change nothing of what runs or where (a
            description, a timeout). Any field the entry does not declare (a
            ``shell``, an ``env``, ``args``) may change what runs, so the call
            is ``opaque``: never allowed without a person.

    A shell tool that a ``[[tool-effects]]`` row maps too (``local_shell``)
    is read by that row instead: its fields, its directory, its environment.
    """

    tool: str
    fields: tuple[str, ...] = ("command",)
    dialect: ShellDialect = "bash"
    cwd: tuple[str, ...] = ()
    other_fields: tuple[str, ...] = ()

    def matches(self, name: str) -> bool:
        """Whether this entry covers the tool ``name`` (case-sensitive)."""
        if "*" in self.tool or "?" in self.tool:
            return fnmatch.fnmatchcase(name, self.tool)
        return name == self.tool

    def read(self, name: str, data: Mapping[str, Any], cwd: str | None) -> ShellInput:
        """
        The command of a call's input, the directory it runs in, and why the input says more than that.

        Args:
            name: The call's tool (this entry's ``tool`` may be a pattern).
            data: The call's input.
            cwd: The call's working directory, if known.

        Examples:
            >>> tool = ShellTool(tool="shell", cwd=("workdir",), other_fields=("timeout_ms",))
            >>> tool.read("shell", {"command": ["cat", "a b"], "workdir": "docs"}, "/work/app")
            ShellInput(text="cat 'a b'", directory='/work/app/docs', refusal=None)
            >>> tool.read("shell", {"command": "ls", "shell": "./x.sh"}, "/work/app").refusal
            'the input of the shell tool `shell` has a field its `[[shell-tools]]` entry does not declare (`shell`), which may change what runs'
        """
        commands = [
            (field, value)
            for field in self.fields
            if (value := field_value(data, field)) is not None
        ]
        text = _command_text(commands[0][1]) if commands else None
        directory, refusal = self._directory(name, data, cwd)
        unknown = unknown_fields(data, frozenset((*self.fields, *self.cwd, *self.other_fields)))
        if unknown:
            names = ", ".join(f"`{_shown(field)}`" for field in unknown[:3])
            refusal = (
                f"the input of the shell tool `{name}` has a field its `[[shell-tools]]` "
                f"entry does not declare ({names}), which may change what runs"
            )
        elif len(commands) > 1:
            names = ", ".join(f"`{field}`" for field, _ in commands)
            refusal = f"the input of the shell tool `{name}` holds a command in more than one field ({names})"
        return ShellInput(text=text, directory=directory, refusal=refusal)

    def _directory(
        self, name: str, data: Mapping[str, Any], cwd: str | None
    ) -> tuple[str | None, str | None]:
        """The directory the ``cwd`` fields name (``None``: the call's), and why it is not known."""
        given = [
            (field, value)
            for field in self.cwd
            if (value := field_value(data, field)) not in (None, "")
        ]
        if not given:
            return None, None
        if len(given) > 1:
            names = ", ".join(f"`{field}`" for field, _ in given)
            return (
                None,
                f"the input of the shell tool `{name}` names its directory in more than one field ({names})",
            )
        field, value = given[0]
        problem = _directory_problem(value, cwd)
        if problem is not None:
            return (
                None,
                f"`{field}` of the shell tool `{name}` {problem}, so where its command runs is not known",
            )
        assert isinstance(value, str)  # noqa: S101 -- `_directory_problem` refuses anything else
        return normalise(value if value.startswith("/") else f"{cwd}/{value}"), None


def _command_text(value: object) -> str | None:
    """A command field's value as one shell text: a string, or an argv list quoted into one."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(item, str) for item in value):
        return shlex.join(value)
    return None


def _directory_problem(value: object, cwd: str | None) -> str | None:
    """Why a directory field's value may not be where the command runs (a clause), or ``None``."""
    if not isinstance(value, str):
        return "is not a string"
    if value != value.strip():
        # Some executors trim it and some do not: two different directories.
        return "has blanks at its ends"
    if "\0" in value:
        return "holds a NUL character"
    if value.startswith("~"):
        # Hosts that spawn the command in it take `~` literally; a shell expands it.
        return "starts with `~`"
    if ".." in value.split("/"):
        # `chdir` climbs from where a link leads, a lexical reading from the link.
        return "climbs with `..`"
    if not value.startswith("/") and (cwd is None or not cwd.startswith("/")):
        return "is relative, and the call's working directory is not known"
    return None


def _shown(name: str) -> str:
    """A field name of an input as a reason may show it: secrets masked."""
    return Redactor(name).mask(0, len(name))


# MCP shell servers in common use, by the tool names they offer; Claude Code
# and Codex call them ``mcp__<server>__<tool>``, Gemini CLI ``mcp_<server>_<tool>``
# (the one pattern ``mcp_*_<tool>`` covers both), the MCP proxy and Cursor by
# the bare name. Servers differ in what they call the directory; their
# ``shell``, ``env``, ``args`` or ``stdin`` are not declared (each changes what runs).
_MCP_SHELL_TOOLS: Final = (
    "run_command",
    "execute_command",
    "execute-command",
    "shell_execute",
    "start_process",
    "run_shell_command",
    "bash",
    "shell",
)
_MCP_DIRECTORY: Final = (
    "cwd",
    "workdir",
    "working_directory",
    "workingDirectory",
    "directory",
    "dir_path",
)
_MCP_OTHER: Final = ("description", "timeout", "timeout_ms")
# Claude Code's Bash: what the call is for, how long it may take, whether it
# runs in the background. (`dangerouslyDisableSandbox` is left undeclared: a
# call that asks to leave the host's sandbox is one for a person.)
_CLAUDE_OTHER: Final = ("description", "timeout", "run_in_background")
# Codex: a justification and a rule the host offers its user when it asks
# itself, and whether its own sandbox applies (the gateway judges every call
# as run outside one).
_CODEX_OTHER: Final = (
    "justification",
    "prefix_rule",
    "sandbox_permissions",
    "with_escalated_permissions",
)

DEFAULT_SHELL_TOOLS: Final = (
    ShellTool(tool="Bash", fields=("command",), other_fields=_CLAUDE_OTHER),
    ShellTool(tool="Monitor", fields=("command",), other_fields=("description",)),
    ShellTool(
        tool="PowerShell", fields=("command",), dialect="powershell", other_fields=_CLAUDE_OTHER
    ),
    ShellTool(
        tool="shell",
        fields=("command",),
        cwd=("workdir",),
        other_fields=("timeout_ms", "timeout", *_CODEX_OTHER),
    ),
    ShellTool(
        tool="run_shell_command",
        fields=("command",),
        cwd=("dir_path", "directory"),
        other_fields=("description", "is_background", "delay_ms"),
    ),
    # Its `[[tool-effects]]` row reads the rest of its action (`DEFAULT_TOOL_EFFECTS`).
    ShellTool(tool="local_shell", fields=("command", "action.command")),
    ShellTool(
        tool="exec_command",
        fields=("cmd",),
        cwd=("workdir",),
        other_fields=("yield_time_ms", "max_output_tokens", "tty", "login", *_CODEX_OTHER),
    ),
    ShellTool(tool="Shell", fields=("command",)),
    *(
        ShellTool(tool=f"mcp_*_{name}", cwd=_MCP_DIRECTORY, other_fields=_MCP_OTHER)
        for name in _MCP_SHELL_TOOLS
    ),
    *(
        ShellTool(tool=name, cwd=_MCP_DIRECTORY, other_fields=_MCP_OTHER)
        for name in _MCP_SHELL_TOOLS[:5]
    ),
)
"""
The shell tools known without configuration: Claude Code (``Bash``,
``Monitor``, ``PowerShell``), Codex and the OpenAI Agents SDK (``shell``,
``local_shell``, ``exec_command``), Gemini CLI (``run_shell_command``), Cursor
(``Shell``), and the common MCP shell servers, by the hosts' ``mcp_*_`` names
and by their own; each with the fields of its input known to name its
directory or to change nothing of what runs.
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


Mode = Literal["enforce", "shadow"]
"""``enforce``: verdicts are returned; ``shadow``: verdicts are recorded and the host decides."""


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
        admission_wait: Seconds a call that must be read afresh may expect its
            reading to take, queued behind the readings in progress (estimated
            from the rate at which they end); past it, the call is declined
            at once as busy, and nothing of it is read.
        review_cpu: CPU seconds the work of one review may use in worker
            processes, all of it together: reading, planning and judging
            the call. Past it, what is left unread is unmeasured (the rules
            ask), or the judging declines.
        workers: Worker processes that read call texts and judge large calls
            (started when first needed; each is killed and replaced when it
            overruns).
        worker_memory: MiB of memory each worker may add to what it needs at
            start; past it, the reading fails and the call is declined.
        recent_calls: Calls remembered for `Gateway.answer` and outcomes.
        mode: ``enforce`` (the default) returns every verdict; ``shadow``
            computes and records every verdict (with ``mode = "shadow"``)
            but returns `Verdict.defer` for each: the host decides as it
            would without the gateway, and nobody is asked to wait.
    """

    approvers: tuple[str, ...] = ("rules",)
    review_timeout: Seconds = 325.0
    approver_timeout: Seconds = 10.0
    ask_holes: bool = True
    plan_cache_size: Count = 1024
    event_buffer: Count = 4096
    audit_timeout: Seconds = 5.0
    plan_timeout: Seconds = 5.0
    review_cpu: Seconds = 0.4
    admission_wait: Seconds = 2.0
    workers: Annotated[int, msgspec.Meta(ge=1, le=64)] = 2
    worker_memory: Annotated[int, msgspec.Meta(ge=64, le=65_536)] = 192
    recent_calls: Count = 4096
    mode: Mode = "enforce"


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
            read (mode 0600); ``gateway keygen`` makes one. A relative path
            is in the state directory (`state_path`).
        create_key: Make the ``signing-key`` pair when the gateway first
            starts, if no file is there (the embedded default does, in the
            state directory); without it a missing key is an error.
        hmac_key: Instead: a shared secret in a 0600 file; checkpoints carry an
            HMAC-SHA256 that whoever holds the secret can check.
        checkpoint_every: Events between signed checkpoints.
        checkpoint_interval: Seconds between signed checkpoints while events arrive.
    """

    signing_key: str | None = None
    create_key: bool = False
    hmac_key: str | None = None
    checkpoint_every: Count = 1000
    checkpoint_interval: Seconds = 60.0

    def __post_init__(self) -> None:
        if self.signing_key and self.hmac_key:
            raise ValueError("set signing-key or hmac-key, not both")
        if self.create_key and not self.signing_key:
            raise ValueError("create-key needs signing-key: the file the key is made in")

    @property
    def signing_key_path(self) -> Path | None:
        """The ``signing-key`` file (a relative path is in the state directory)."""
        return state_path(self.signing_key) if self.signing_key else None

    @property
    def hmac_key_path(self) -> Path | None:
        """The ``hmac-key`` file (a relative path is in the state directory)."""
        return state_path(self.hmac_key) if self.hmac_key else None


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
            from its first byte (or, on a new connection, from connecting);
            time the service's loop was too busy to read is not counted,
            within a bound of wall time (`BUSY_ALLOWANCE` timeouts, in the
            approval service).
        body_timeout: Seconds a client has to send a request's body.
        public_url: The page's address as people reach it (behind a proxy,
            on another host); links in notifications point there. Unset: the
            address the service prints at start.
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
    public_url: str = ""

    def __post_init__(self) -> None:
        if self.public_url and not self.public_url.startswith(("http://", "https://")):
            raise ValueError(
                f"public-url must start with http:// or https://, not {self.public_url!r}"
            )
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


class BrokerSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[broker]`` table: a NATS JetStream a fleet of approval services shares.

    With a ``url``, ``gateway serve`` keeps the calls that wait for a person,
    the decisions, the tokens, remembered approvals and the managed policy in
    JetStream key-value buckets, and publishes every event to a JetStream
    stream; without one, everything stays in the process (the default). The
    ``gateway_nats`` plugin (the ``nats`` extra) reads this table; the core
    never connects to anything.

    Credentials and TLS are given as NATS clients take them: user and
    password (in the URL, or ``user`` and ``password-file``), a token
    (``token-file``), a credentials file (``credentials``: a JWT and NKey
    seed, as ``nsc`` writes it), an NKey seed file (``nkey-seed``); TLS with
    a ``tls://`` URL or ``tls-ca``, a client certificate (``tls-cert``,
    ``tls-key``), ``tls-hostname`` and ``tls-handshake-first``.

    Attributes:
        url: The server, or several separated by commas (``nats://a:4222,nats://b:4222``).
        prefix: Names the buckets (``<prefix>_calls`` …), the audit stream
            (``<PREFIX>_AUDIT``) and its subjects (``<prefix>.audit.…``), so
            several fleets can share one account.
        replica: This replica's name, unique in the fleet (default: the host
            name and a random suffix, new at every start).
        user: The user name (the password comes from ``password-file``).
        password_file: A file holding the password.
        token_file: A file holding a NATS authentication token.
        credentials: A NATS credentials file (``.creds``).
        nkey_seed: A file holding an NKey seed.
        tls_ca: CA certificates to verify the server with (PEM).
        tls_cert: The client certificate (PEM), for mutual TLS.
        tls_key: The client certificate's key (PEM).
        tls_hostname: The name the server's certificate must have.
        tls_handshake_first: Start TLS before the NATS greeting.
        connect_timeout: Seconds connecting may take at start.
        request_timeout: Seconds one JetStream request may take; past it the
            request fails, and whatever it was for fails closed.
        stream_replicas: Copies JetStream keeps of each bucket and of the
            audit stream (1 on a single server; 3 on a cluster of three).
        lease: Seconds a replica's heartbeat lasts: a replica not seen for
            this long is gone, and a client may pick its waiting calls up again.
        history_ttl: Seconds decided calls stay in the calls bucket.
        audit_max_age: Seconds the audit stream keeps events (0: forever).
        policy_pin: The ``sha256:`` digest the managed policy must have;
            another one is refused (unset: any published version is taken).
    """

    url: str = ""
    prefix: str = "gateway"
    replica: str = ""
    user: str | None = None
    password_file: str | None = None
    token_file: str | None = None
    credentials: str | None = None
    nkey_seed: str | None = None
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_hostname: str | None = None
    tls_handshake_first: bool = False
    connect_timeout: float = 5.0
    request_timeout: float = 5.0
    stream_replicas: int = 1
    lease: float = 15.0
    history_ttl: float = 7 * 86_400.0
    audit_max_age: float = 0.0
    policy_pin: str = ""

    def __post_init__(self) -> None:
        for server in filter(None, (part.strip() for part in self.url.split(","))):
            if not server.startswith(("nats://", "tls://", "ws://", "wss://")):
                raise ValueError(
                    f"url entries look like 'nats://host:4222' or 'tls://host:4222', not {server!r}"
                )
        if not _NAME.fullmatch(self.prefix):
            raise ValueError(
                f"prefix must be letters, digits and '-' or '_' (at most 32), not {self.prefix!r}"
            )
        if self.replica and not _NAME.fullmatch(self.replica):
            raise ValueError(
                f"replica must be letters, digits and '-' or '_' (at most 32), not {self.replica!r}"
            )
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls-cert and tls-key go together: give both or neither")
        for name, value, low, top in (
            ("connect-timeout", self.connect_timeout, 0.0, 600.0),
            ("request-timeout", self.request_timeout, 0.0, 600.0),
            ("lease", self.lease, 0.0, 3600.0),
            ("history-ttl", self.history_ttl, 0.0, 366 * 86_400.0),
        ):
            if not low < value <= top:
                raise ValueError(f"{name} must be between {low:g} and {top:g} seconds, not {value}")
        if not 0 <= self.audit_max_age <= 100 * 366 * 86_400:
            raise ValueError(
                f"audit-max-age must be 0 (forever) or seconds, not {self.audit_max_age}"
            )
        if not 1 <= self.stream_replicas <= 5:
            raise ValueError(f"stream-replicas must be between 1 and 5, not {self.stream_replicas}")
        if self.policy_pin and not _DIGEST.fullmatch(self.policy_pin):
            raise ValueError(
                f"policy-pin must be 'sha256:' and 64 hex digits, not {self.policy_pin!r}"
            )

    @property
    def servers(self) -> tuple[str, ...]:
        """The server URLs, in order."""
        return tuple(filter(None, (part.strip() for part in self.url.split(","))))


class NotifierConfig(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    One notifier (``[notifiers.NAME]``): who is told when a call starts waiting for a person.

    Attributes:
        plugin: The notifier's entry-point name in ``gateway.notifiers``
            (``webhook``, ``ntfy``, or a third-party one).
        options: Plugin-specific options (validated by the plugin at start).
    """

    plugin: str
    options: dict[str, Any] = msgspec.field(default_factory=dict)


class TiersSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[tiers]`` table: how the managed, user and project configs combine.

    Attributes:
        trust_project: Let a project's config (``.agent-gateway.toml``,
            which the agent itself may be able to write) loosen as well as
            tighten: add ``allow`` rules and set keys other than the strict
            ones. Off by default: a project may only make things stricter.
            Read from the managed and user tiers only.
    """

    trust_project: bool = False


_HEADER_NAME: Final = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}")


class TelemetrySection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[telemetry]`` table: where ``gateway serve`` sends its traces and metrics (OTLP).

    Without an ``endpoint`` nothing is exported (the default). The library
    itself never exports: only the ``gateway`` command's entry points install
    the OpenTelemetry SDK and its OTLP exporters (the ``otlp`` extra, or
    ``otlp-grpc`` for ``protocol = "grpc"``).

    Attributes:
        endpoint: The OTLP receiver's base URL (``http://127.0.0.1:4318``);
            over HTTP, traces go to ``/v1/traces`` and metrics to
            ``/v1/metrics`` under it.
        protocol: ``http/protobuf`` (the default) or ``grpc``.
        headers: Headers sent with every export (``x-tenant = "ops"``). They
            are printed by ``gateway config show``: put a secret in
            ``headers-file`` instead.
        headers_file: A file only its owner can read (mode 0600) of
            ``name=value`` lines (an API key: ``authorization=Bearer …``).
        traces_endpoint: Where traces go instead (a full URL), or ``off``.
        metrics_endpoint: Where metrics go instead (a full URL), or ``off``
            (Arize Phoenix takes traces, not metrics).
        export_interval: Seconds between exports of spans and of metrics.
        timeout: Seconds one export may take.
        service_name: The ``service.name`` of the resource.
    """

    endpoint: str = ""
    protocol: Literal["http/protobuf", "grpc"] = "http/protobuf"
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    headers_file: str | None = None
    traces_endpoint: str = ""
    metrics_endpoint: str = ""
    export_interval: Annotated[float, msgspec.Meta(ge=0.1, le=3600.0)] = 10.0
    timeout: Annotated[float, msgspec.Meta(gt=0, le=600.0)] = 10.0
    service_name: str = "agent-gateway"

    def __post_init__(self) -> None:
        for key, value in (
            ("endpoint", self.endpoint),
            ("traces-endpoint", self.traces_endpoint),
            ("metrics-endpoint", self.metrics_endpoint),
        ):
            if value and value != "off" and not value.startswith(("http://", "https://")):
                raise ValueError(
                    f"{key} must start with http:// or https:// (or be 'off'), not {value!r}"
                )
        if self.endpoint == "off":
            raise ValueError("endpoint is a URL; leave it empty to export nothing")
        for name, value in self.headers.items():
            if not _HEADER_NAME.fullmatch(name):
                raise ValueError(f"headers has a name that is not an HTTP header name: {name!r}")
            if not value.isprintable() or len(value) > 8192:
                raise ValueError(
                    f"headers.{name} must be printable text of at most 8192 characters"
                )
        if not self.service_name or not self.service_name.isprintable():
            raise ValueError("service-name must be printable text")


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
        paths: How the paths of effects are classified (``[paths]``).
        tool_effects: What tools that are not shells do, read from their
            input (``[[tool-effects]]``); the built-in rows come after these.
        audit: How the event chain is signed (``[audit]``).
        witnesses: Where signed checkpoints are also sent (``[witnesses.NAME]``).
        broker: The NATS JetStream a fleet shares (``[broker]``).
        notifiers: Who is told when a call starts waiting (``[notifiers.NAME]``).
        tiers: How configuration tiers combine (``[tiers]``).
        hosts: How adapters answer hosts with checks of their own (``[hosts]``).
        telemetry: Where traces and metrics are exported (``[telemetry]``).
        programs: Option tables for programs the gateway has none for
            (``[programs.NAME]``; docs/option-tables.md).
        profiles: Profiles by name (``[profiles.NAME]``): what each lets a
            confined run read, write and reach. The built-in ones
            (`default_profiles`: ``read-only``, ``workspace-write``) are
            defined even where this table does not name them; an entry here
            with the same name replaces one (`profile`).
    """

    gateway: GatewaySection = GatewaySection()
    shell_tools: tuple[ShellTool, ...] = DEFAULT_SHELL_TOOLS
    sinks: dict[str, SinkConfig] = msgspec.field(default_factory=dict)
    approver: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    serve: ServeSection = ServeSection()
    hook: HookSection = HookSection()
    paths: PathsSection = PathsSection()
    tool_effects: tuple[ToolEffects, ...] = ()
    audit: AuditSection = AuditSection()
    witnesses: dict[str, WitnessConfig] = msgspec.field(default_factory=dict)
    broker: BrokerSection = BrokerSection()
    notifiers: dict[str, NotifierConfig] = msgspec.field(default_factory=dict)
    tiers: TiersSection = TiersSection()
    hosts: HostsSection = HostsSection()
    telemetry: TelemetrySection = TelemetrySection()
    programs: dict[str, UserTable] = msgspec.field(default_factory=dict)
    profiles: dict[str, ProfileSection] = msgspec.field(default_factory=lambda: default_profiles())

    def __post_init__(self) -> None:
        user_rows(self.programs)  # a name that is no basename, or has a built-in table
        for name in self.profiles:
            problem = profile_problem(name)
            if problem is not None:
                raise ValueError(problem)

    @property
    def profile_names(self) -> tuple[str, ...]:
        """Every profile defined: the built-in ones, then those this config adds."""
        return tuple(dict.fromkeys((*default_profiles(), *self.profiles)))

    @property
    def rules_profile(self) -> str:
        """The profile the rules approver reviews under: its ``profile`` setting, else ``read-only``."""
        return str(self.approver.get("rules", {}).get("profile") or "read-only")

    def profile(self, name: str) -> ProfileSection:
        """
        The profile ``name``: this config's ``[profiles.NAME]``, else the built-in one.

        Raises:
            ConfigError: No profile has that name (the message lists those defined).
        """
        found = self.profiles.get(name) or default_profiles().get(name)
        if found is None:
            defined = ", ".join(repr(known) for known in self.profile_names)
            raise ConfigError(
                f"The profile {name!r} is not defined; defined: {defined} (add [profiles.{name}] to define it).",
                path=f"$.profiles.{name}",
            )
        return found


def state_directory(environ: Mapping[str, str] | None = None) -> Path:
    """
    Where the gateway keeps its state for this user: ``$XDG_STATE_HOME/agent-gateway``, or ``~/.local/state/agent-gateway``.

    The bearer token, people's tokens, the hooks' socket and the approvals
    a person asked to remember live here, outside any workspace an agent
    works in (`secret_files` names it).
    """
    environ = os.environ if environ is None else environ
    state = environ.get("XDG_STATE_HOME") or str(Path("~/.local/state").expanduser())
    return Path(state) / "agent-gateway"


def state_path(option: str) -> Path:
    """
    Where a file option puts its file: ``~`` is the home directory, and a
    relative path is in the `state_directory` — never the working directory,
    which an agent may see and write.
    """
    path = Path(option).expanduser()
    return path if path.is_absolute() else state_directory() / path


def default_token_file(environ: Mapping[str, str] | None = None) -> Path:
    """
    Where ``gateway serve`` stores its bearer token and ``gateway hook`` reads it, unless configured.

    ``token`` in the `state_directory`.
    """
    return state_directory(environ) / "token"


_SECRET_OPTION: Final = re.compile(r"(token|password|secret|credential|seed|key)")


def secret_files(
    config: GatewayConfig, environ: Mapping[str, str] | None = None
) -> tuple[str, ...]:
    """
    Every file the configuration names that holds a secret, as absolute paths, sorted.

    The bearer token files (configured, and `default_token_file`), the state
    directory that file is in (``gateway serve`` keeps people's token
    digests, its links and its hooks' socket there too), the audit
    signing keys, the broker's credentials and client key, and, in every
    plugin's options (``[approver.NAME]``, ``[sinks.NAME.options]``,
    ``[witnesses.NAME.options]``, ``[notifiers.NAME.options]``), a string
    under a key that ends in ``-file`` and names a token, password, secret,
    credential, seed or key (``token-file``, ``password-file``), or is
    ``credentials``. What runs on the gateway's behalf must not read them.

    Examples:
        >>> config = GatewayConfig(serve=ServeSection(token_file="/srv/token"))
        >>> "/srv/token" in secret_files(config)
        True
    """
    broker, audit = config.broker, config.audit
    named: list[str | None] = [
        config.serve.token_file,
        str(default_token_file(environ)),
        str(default_token_file(environ).parent),
        *(str(key) for key in (audit.signing_key_path, audit.hmac_key_path) if key),
        broker.password_file,
        broker.token_file,
        broker.credentials,
        broker.nkey_seed,
        broker.tls_key,
    ]
    tables: list[Mapping[str, Any]] = [
        *config.approver.values(),
        *(sink.options for sink in config.sinks.values()),
        *(witness.options for witness in config.witnesses.values()),
        *(notifier.options for notifier in config.notifiers.values()),
    ]
    for table in tables:
        named.extend(
            value
            for key, value in table.items()
            if isinstance(value, str)
            and (key == "credentials" or (key.endswith("-file") and _SECRET_OPTION.search(key)))
        )
    return tuple(sorted({os.path.abspath(os.path.expanduser(path)) for path in named if path}))


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
        raise _invalid(error, source, lambda: msgspec.toml.decode(data)) from None
    except msgspec.DecodeError as error:
        raise ConfigError(
            f"The config {source!r} is not valid TOML: {error}.", source=source
        ) from None


def config_from_table(table: dict[str, Any], *, name: str) -> GatewayConfig:
    """
    Validate a config given as the table TOML decodes to (kebab-case keys).

    Raises:
        ConfigError: An unknown key or a wrong value (the message names the key's path).
    """
    try:
        return msgspec.convert(table, GatewayConfig)
    except msgspec.ValidationError as error:
        raise _invalid(error, name, lambda: table) from None


def _invalid(error: msgspec.ValidationError, source: str, raw: Callable[[], Any]) -> ConfigError:
    text, path = validation_path(error)
    if path is not None and path.startswith(tuple(f"$.{table}[...]" for table in _NAMED_TABLES)):
        path = _name_entry(raw(), path)
    where = f" at {path}" if path else ""
    return ConfigError(f"Invalid config {source!r}{where}: {text}.", path=path, source=source)


_NAMED_TABLES: Final[dict[str, type[msgspec.Struct]]] = {
    "sinks": SinkConfig,
    "witnesses": WitnessConfig,
    "profiles": ProfileSection,
}


def _name_entry(raw: Any, path: str) -> str:
    """
    Put the entry's name into a path msgspec reports as ``$.sinks[...]`` (``$.witnesses[...]``, ``$.profiles[...]``).

    msgspec does not name the key of a dict entry that fails, so with several
    sinks the path alone would not say which one: decode each entry on its
    own and name the first that does not validate.
    """
    table = path.removeprefix("$.").split("[", 1)[0]
    kind = _NAMED_TABLES[table]
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
    return (Path(__file__).resolve().parents[2] / "config" / "default.toml").read_bytes()


def default_config() -> GatewayConfig:
    """Load the embedded default config."""
    return load_config(default_config_bytes(), name="default.toml")


@cache
def _built_in_profiles() -> tuple[tuple[str, ProfileSection], ...]:
    raw = msgspec.toml.decode(default_config_bytes())
    table = raw.get("profiles", {}) if isinstance(raw, dict) else {}
    return tuple(msgspec.convert(table, dict[str, ProfileSection]).items())


def default_profiles() -> dict[str, ProfileSection]:
    """
    The built-in profiles, as ``config/default.toml`` defines them (``[profiles.NAME]``).

    Examples:
        >>> sorted(default_profiles())
        ['read-only', 'workspace-write']
    """
    return dict(_built_in_profiles())
