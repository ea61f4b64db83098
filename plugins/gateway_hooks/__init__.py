"""
Hook hosts: agent hosts that run a command before each tool call (Claude Code, Codex, Gemini CLI, Cursor).

Each host is a plugin in the ``gateway.hosts`` entry-point group whose entry
point names a `HookHost`: how to read the host's event (`HookHost.read`) and
how to answer it in the host's own format (`HookHost.reply`), and where and
how its hook is installed. Everything else is shared and lives here:

* `answer_hook`: one event in, one `HookReply` out (what to print, how to
  exit): the event is read, reviewed once (a permission event is linked to
  the review of its pre-tool event, `LinkStore`), and answered through
  `gateway_guard.host_decision`, so an allow the plan does not found is left
  to the host's own checks;
* ``gateway hook HOST`` (and the faster ``gateway-hook HOST``, see
  ``gateway_relay``): run by the host per call; forwards to a running
  ``gateway serve`` over its Unix socket, or reviews in-process;
* ``gateway install HOST`` / ``gateway uninstall HOST`` / ``gateway doctor``
  (``gateway_hooks._commands``).

Adding a hook-kind host is one plugin with one `HookHost`; the core, the
hook command and the approval service name no host.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping, Sequence
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Final, Literal, Protocol, TypeVar, runtime_checkable

import anyio
import anyio.abc
import msgspec
from gateway_guard import (
    DEFAULT_TIMEOUT,
    HostDecision,
    Reviewer,
    guarded_outcome,
    guarded_review,
    host_decision,
)

from gateway import PluginLoadError, ToolCall, Verdict
from gateway.config import AllowMode
from gateway.plugins import HOSTS_GROUP
from gateway.text import error_detail
from gateway_hooks._links import Link, LinkStore
from gateway_hooks._routing import ConfiningReviewer, Routing
from gateway_hooks._settings import (
    HookScope,
    gateway_commands,
    gateway_handlers,
    install_events,
    is_gateway_hook,
    matcher_groups_install,
    matcher_groups_uninstall,
    read_settings,
    settings_findings,
    uninstall_events,
)

__all__ = [
    "HOSTS_GROUP",
    "MAX_EVENT_BYTES",
    "HookAnswer",
    "HookError",
    "HookEvent",
    "HookHost",
    "HookKind",
    "HookReply",
    "HookScope",
    "Link",
    "LinkStore",
    "Routing",
    "answer_connected",
    "answer_hook",
    "decode_event",
    "gateway_commands",
    "gateway_handlers",
    "install_events",
    "installed_hosts",
    "is_gateway_hook",
    "load_host",
    "matcher_groups_install",
    "matcher_groups_uninstall",
    "read_event",
    "read_settings",
    "settings_findings",
    "uninstall_events",
]

MAX_EVENT_BYTES: Final = 8 * 1024 * 1024
"""The largest hook event read; a larger one is blocked."""

HookKind = Literal["review", "permission", "outcome"]
"""
What a hook event asks: ``review`` (before a tool runs: allow, ask or block
it), ``permission`` (the host is about to ask its user: answer for them, or
leave it), ``outcome`` (after the tool ran: record what happened).
"""


class HookError(Exception):
    """The hook cannot answer this event; its message is one sentence, and the hook blocks the call."""


class HookEvent(msgspec.Struct, frozen=True, kw_only=True):
    """
    A host's hook event, read into the gateway's vocabulary.

    Attributes:
        name: The host's name for the event (``PreToolUse``, ``BeforeTool``,
            ``beforeShellExecution``…), which the answer must name again.
        kind: What it asks (`HookKind`).
        call: The tool call it is about.
        outcome: For ``outcome``: ``succeeded`` or ``failed``.
        detail: For ``outcome``: the host's error text, if any.
        hook_pid: The hook process the host started for this event, when it
            is known (the hook runs here, or forwarded over the local socket):
            a host whose answer depends on how it runs (Gemini CLI cannot ask
            a person when headless) looks for itself among its ancestors.
    """

    name: str
    kind: HookKind
    call: ToolCall
    outcome: Literal["succeeded", "failed"] | None = None
    detail: str | None = None
    hook_pid: int | None = None


class HookAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """
    What the gateway tells a host about one event, before the host's format is applied.

    Attributes:
        decision: ``allow``, ``ask``, ``decline`` or ``host`` (no decision:
            the host's own checks decide), from `gateway_guard.host_decision`.
        reason: One sentence: the rule's reason (shown to the person for an
            ask, to the model for a decline).
        call_id: The call the answer is about.
        updated_input: For an ``allow`` a confining hook routes: the call's
            input with its command run through ``gateway run`` inside the
            boundary (`Routing`); the host runs that instead.
    """

    decision: HostDecision
    reason: str
    call_id: str | None = None
    updated_input: dict[str, Any] | None = None


class HookReply(msgspec.Struct, frozen=True, kw_only=True):
    """
    What the hook process does: print ``stdout``, write ``stderr``, exit with ``status``.

    Attributes:
        status: ``0`` (the host reads ``stdout``) or ``2`` (the host blocks
            the call; ``stderr`` is the reason). Nothing else is ever used:
            most hosts let a call through on any other status.
        stdout: The answer in the host's format (JSON text), or empty.
        stderr: One sentence when ``status`` is 2, else empty.
    """

    status: Literal[0, 2] = 0
    stdout: str = ""
    stderr: str = ""

    @classmethod
    def block(cls, reason: str) -> HookReply:
        """Exit 2 with ``reason``: every host blocks the call."""
        return cls(status=2, stderr=reason)


@runtime_checkable
class HookHost(Protocol):
    """
    One agent host's hook contract, as a plugin provides it.

    Attributes:
        name: The host's name on the command line (``claude-code``), its
            entry point's name.
        title: How people call it (``Claude Code``).
    """

    name: str
    title: str

    def read(self, event: Mapping[str, Any]) -> HookEvent:
        """
        Read one decoded event; raise `HookError` (one sentence) for one it cannot answer.

        Unknown fields must be accepted: hosts add fields over time, and a
        hook that rejected them would block every call.
        """

    def reply(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        """The host's answer to ``event``: its JSON output, or exit 2 where that is how it blocks."""

    def denial(self, name: str, reason: str) -> str | None:
        """
        JSON that blocks event ``name`` with ``reason``, for answers that cannot exit 2.

        Used by the approval service's ``POST /hooks/HOST`` (the host's HTTP
        hook type). ``None`` when the event cannot be blocked that way.
        """

    def settings_file(self, scope: HookScope, project: Path, home: Path) -> Path:
        """Where the host reads its hook settings for ``scope``."""

    def install(self, settings: dict[str, Any], command: str, timeout: float) -> dict[str, Any]:
        """
        ``settings`` with the gateway's hooks added (pure; idempotent; the user's other settings kept).

        Args:
            settings: The settings file's JSON object (``{}`` when it does not exist).
            command: The hook command: the absolute path of ``gateway-hook``
                and this host's name, quoted for a shell.
            timeout: Seconds the hook may take before the host gives up on it.
        """

    def uninstall(self, settings: dict[str, Any]) -> dict[str, Any]:
        """``settings`` without any of the gateway's hooks for this host (pure)."""

    def notes(self) -> tuple[str, ...]:
        """Sentences ``gateway install`` shows after writing (steps the host needs, limits)."""

    def commands(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """The gateway's hook commands in ``settings``, each once (what ``gateway doctor`` runs)."""

    def problems(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """What in ``settings`` would let a call through when the hook fails (one sentence each)."""

    def probe(self, cwd: str) -> dict[str, Any]:
        """A harmless review event (the shell command ``ls`` in ``cwd``) for ``gateway doctor`` to send."""

    def consulted(
        self, project: Path, home: Path, commands: Sequence[str]
    ) -> list[tuple[bool, str]]:
        """
        Whether the host would really run the installed hook ``commands`` in ``project``.

        A host may skip an installed hook without a word: Codex one its user
        has not trusted, Claude Code every hook when a settings file sets
        ``disableAllHooks``, Gemini CLI one its settings disable. Each finding
        is whether it is fine and one sentence, with the step that fixes it.
        """


def installed_hosts() -> dict[str, EntryPoint]:
    """The hook hosts installed, by name."""
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=HOSTS_GROUP):
        found.setdefault(entry.name, entry)
    return found


@functools.cache
def load_host(name: str) -> HookHost:
    """
    The hook host ``name``, loaded once through its entry point.

    Raises:
        PluginLoadError: No such host is installed, or its entry point is not a `HookHost`.
    """
    available = installed_hosts()
    entry = available.get(name)
    if entry is None:
        names = ", ".join(repr(n) for n in sorted(available)) or "none"
        raise PluginLoadError(
            f"No hook host named {name!r} is installed; installed: {names}.", plugin=name
        )
    try:
        host = entry.load()
    except Exception as error:
        raise PluginLoadError(
            f"The hook host {name!r} could not be loaded: {error}", plugin=name
        ) from error
    if not isinstance(host, HookHost) or host.name != name:
        raise PluginLoadError(
            f"The hook host {name!r} is not a HookHost named {name!r}.", plugin=name
        )
    return host


def decode_event(data: bytes) -> dict[str, Any]:
    """
    One hook event as a JSON object.

    Raises:
        HookError: It is larger than `MAX_EVENT_BYTES`, not UTF-8, not JSON,
            or not an object (one sentence each).
    """
    if len(data) > MAX_EVENT_BYTES:
        raise HookError(f"The hook event is larger than {MAX_EVENT_BYTES} bytes.")
    try:
        text = data.decode("utf-8", "strict")
    except UnicodeDecodeError as error:
        raise HookError(f"The hook event is not valid UTF-8 (byte offset {error.start}).") from None
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError as error:
        detail = error_detail(error, 160)
        raise HookError(f"The hook event is not JSON ({detail}).") from None
    if not isinstance(value, dict):
        raise HookError("The hook event is not a JSON object.")
    return value


E = TypeVar("E")


def read_event(
    event: Mapping[str, Any], events: Mapping[str, HookKind], as_type: type[E]
) -> tuple[HookKind, E]:
    """
    What a host's event asks, and the event as the host's own type.

    Raises:
        HookError: The event names no event in ``events``, or does not
            fit ``as_type`` (one sentence each).
    """
    name = event.get("hook_event_name")
    kind = events.get(name) if isinstance(name, str) else None
    if kind is None:
        raise HookError(
            f"The hook cannot handle the event {name!r}; it handles {', '.join(events)}."
        )
    try:
        return kind, msgspec.convert(event, as_type)
    except msgspec.ValidationError as error:
        detail = error_detail(error, 160)
        raise HookError(f"The {name} event is malformed ({detail}).") from None


def _linked_answer(link: Link) -> HookAnswer:
    # The review of the pre-tool event already decided. A permission event
    # is answered from it only to refuse again; it never turns into an allow
    # here (the host asks exactly when its own rule wants a person).
    decision: HostDecision = "decline" if link.decision == "decline" else "host"
    return HookAnswer(decision=decision, reason=link.reason, call_id=link.call_id)


async def answer_hook(
    host: HookHost,
    reviewer: Reviewer,
    data: bytes,
    *,
    allow: AllowMode = "founded",
    links: LinkStore | None = None,
    within: float = DEFAULT_TIMEOUT,
    shadow: bool = False,
    hook_pid: int | None = None,
    routing: Routing | None = None,
) -> HookReply:
    """
    Answer one hook event: read it, review it once, reply in the host's format.

    Never raises for a bad event or a failing gateway: those block the call
    (exit 2 with one sentence). A ``review`` event is reviewed and its verdict
    kept in ``links``; a ``permission`` event of the same call (same session,
    tool and input) is answered from that verdict without a second review, or
    reviewed once when there is none; an ``outcome`` is recorded.

    Args:
        host: The host's format.
        reviewer: The gateway (or a test double).
        data: The event as the host wrote it.
        allow: ``[hosts] allow`` (see `gateway_guard.host_decision`).
        links: Where reviews are kept for linking (``None``: no linking).
        within: Seconds the review may take before the call is blocked.
        shadow: Record only; the host decides every call.
        hook_pid: The hook process the host started (`HookEvent.hook_pid`), when known.
        routing: For a confining hook (``--confine``): a shell call is
            reviewed for a caller that runs it inside a boundary, and an
            allow is answered with its command rewritten to run through
            ``gateway run`` (`Routing`). ``None``, a reviewer that cannot
            review for a confining caller, or any other tool: no routing.
    """
    try:
        event = host.read(decode_event(data))
    except HookError as error:
        return HookReply.block(str(error))
    if hook_pid is not None:
        event = msgspec.structs.replace(event, hook_pid=hook_pid)
    call = event.call
    if event.kind == "outcome":
        if not call.call_id and links is not None:
            # Hosts whose events carry no call id: the outcome belongs to the
            # call reviewed with the same session, tool and input.
            link = links.find(host.name, call)
            call = msgspec.structs.replace(call, call_id=link.call_id if link else None)
        await guarded_outcome(reviewer, call.call_id, event.outcome or "unknown", event.detail)
        return host.reply(event, HookAnswer(decision="host", reason="", call_id=call.call_id))
    if event.kind == "permission" and links is not None:
        link = links.find(host.name, call)
        if link is not None:
            return host.reply(event, _linked_answer(link))
        if not call.call_id:
            call = msgspec.structs.replace(
                call, call_id=f"permission-{links.key(host.name, call)[:32]}"
            )
    field = None
    if routing is not None and event.kind == "review" and isinstance(reviewer, ConfiningReviewer):
        field = routing.field(call)
    if field is not None and isinstance(reviewer, ConfiningReviewer):
        verdict = await guarded_review(_Confining(reviewer, routing), call, within=within)
    else:
        verdict = await guarded_review(reviewer, call, within=within)
    if event.kind == "review" and links is not None:
        links.remember(host.name, call, verdict)
    decision = host_decision(verdict, allow=allow, shadow=shadow)
    updated = None
    if (
        field is not None
        and routing is not None
        and verdict.allowed
        and verdict.boundary is not None
        and allow == "founded"
        and not shadow
        and not verdict.defer
    ):
        # It runs inside its boundary, through the runner: the gateway
        # answers for it (the boundary, not the host's checks, stands behind it).
        decision = "allow"
        updated = routing.updated_input(call, field, verdict)
    return host.reply(
        event,
        HookAnswer(
            decision=decision,
            reason=verdict.reason,
            call_id=verdict.call_id,
            updated_input=updated,
        ),
    )


class _Confining:
    """A reviewer that reviews every call for a caller running it inside a boundary."""

    def __init__(self, reviewer: ConfiningReviewer, routing: Routing | None) -> None:
        self._reviewer = reviewer
        self._confining = routing.confining if routing is not None else None

    async def review(self, call: ToolCall) -> Verdict:
        return await self._reviewer.review(call, confining=self._confining)


async def answer_connected(
    client: anyio.abc.ByteReceiveStream,
    host: HookHost,
    reviewer: Reviewer,
    data: bytes,
    *,
    allow: AllowMode,
    within: float,
    hook_pid: int | None,
    routing: Routing | None = None,
) -> HookReply | None:
    """
    `answer_hook` for a hook connected on ``client``; ``None`` when it hung up first.

    The hook sends nothing after its event: data or the end of the stream
    means it is gone (the host gave up on it), so the review is cancelled,
    which the gateway records as a decline. Links are the user's
    (`LinkStore.default`), as for a hook answered in its own process.
    """
    replies: list[HookReply] = []
    try:
        async with anyio.create_task_group() as group:

            async def hang_up() -> None:
                with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError):
                    await client.receive()
                group.cancel_scope.cancel()

            group.start_soon(hang_up)
            replies.append(
                await answer_hook(
                    host,
                    reviewer,
                    data,
                    allow=allow,
                    links=LinkStore.default(),
                    within=within,
                    hook_pid=hook_pid,
                    routing=routing,
                )
            )
            group.cancel_scope.cancel()
    except anyio.get_cancelled_exc_class():
        # A stop that reaches the task group's end after the gateway released
        # (and recorded) the verdict must not swallow it: the hook is still
        # told what the log says, and the stop goes on at the next checkpoint.
        if not replies:
            raise
    return replies[0] if replies else None
