"""
The Gateway: from a proposed tool call to a verdict, with events, approvers and traces.

An async context manager that owns everything it uses — its task group, event
bus, sinks, approvers, worker processes, reading cache and tracer — so two
gateways in one process never interfere. It works under asyncio and trio
(anyio).

For each call, `Gateway.review`:

1. checks the call at the door (`gateway._review._intake`): anything a caller can
   build that is not a well-formed call is declined with one sentence;
2. reads the call — plans its shell text, finds its holes, masks its secrets
   — in a worker process under a hard deadline (`gateway._work._bounded`), through
   a bounded cache of identical calls;
3. publishes ``call.proposed`` and ``plan.ready`` with the digest every later
   decision is bound to, and puts every hole of every unquoted heredoc to the
   approvers as its own question (``hole.question``);
4. asks the approver chain about the call and each hole — each approver under
   its deadline, every failure a decline (`gateway._approvers`);
5. publishes the one ``verdict.reached`` record of the review and releases the
   verdict only once the required sinks have durably written it ("no audit,
   no action").

One deadline bounds it all: ``[gateway] review-timeout``. The verdict is
reached twice ``audit-timeout`` before it, so its record (and, should that
fail, the decline's) can still be written in time. Nothing that fails — an
approver, a sink, a worker, the tracer, a cancellation — ever becomes an
allow, and no exception from a plugin escapes `review`.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from functools import partial
from typing import Any, Final, Literal, NamedTuple

import anyio
import msgspec
from anyio import AsyncContextManagerMixin
from anyio.abc import ObjectReceiveStream
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from gateway._approvers import (
    Approver,
    Memo,
    Outcome,
    Record,
    ReviewRequest,
    caller_cancelled,
    combine,
    resolve_approver,
)
from gateway._calls._calls import ToolCall
from gateway._calls._confinement import Confinement, Confining
from gateway._calls._digest import digest_of
from gateway._calls._effects import Effect
from gateway._calls._errors import GatewayError, SinkFailure
from gateway._calls._events import (
    CallOutcome,
    CallProposed,
    Event,
    HoleAnswered,
    HoleQuestion,
    HoleRef,
    HostDecided,
    PlanReady,
    RunChanged,
    VerdictReached,
    VerdictWithdrawn,
)
from gateway._calls._plans import Hole, ProgramPlan, SequencePlan
from gateway._calls._text import shorten
from gateway._calls._verdicts import Verdict, unconfined
from gateway._gateway._lifecycle import Lifecycle
from gateway._gateway._parts import Parts, deferred, now
from gateway._gateway._statistics import GatewayStatistics, statistics
from gateway._observe._metrics import Metrics
from gateway._observe._telemetry import (
    ATTR_COMMANDS,
    ATTR_CONVERSATION_ID,
    ATTR_HOLES,
    ATTR_PLAN_DIGEST,
    ATTR_QUESTION,
    ATTR_TOOL_CALL_ID,
    ATTR_TOOL_NAME,
    REVIEW_ATTRIBUTES,
    SPAN_HOLE,
    SPAN_PLAN,
    SPAN_REVIEW,
    Telemetry,
    plan_attributes,
    unmeasured_kind,
    verdict_attributes,
)
from gateway._record._bus import EventBus
from gateway._record._sinks import Sink
from gateway._record._witness import Witness
from gateway._review._admission import worker_timeout
from gateway._review._analysis import CallAnalysis
from gateway._review._confining import confined, confinement
from gateway._review._intake import Admitted, admit, refused_call_id
from gateway._review._masking import RequestMasks
from gateway._review._reading import (
    BodyText,
    CallReading,
    CallText,
    mask_value,
    read_body,
    read_call,
)
from gateway._settings._config import GatewayConfig, Mode, ShellTool
from gateway._work._bounded import BoundedFailure, cpu_account, cpu_left

__all__ = ["Gateway", "GatewayStatistics"]


_SHELL_FIELD_ERROR: Final = "The command of a shell tool must be a string or a list of strings."
_OUTCOMES: Final[dict[str, Literal["succeeded", "failed", "denied", "unknown"]]] = {
    "succeeded": "succeeded",
    "failed": "failed",
    "denied": "denied",
}
_DECIDERS: Final[dict[str, Literal["person", "timeout", "failed", "nobody"]]] = {
    "person": "person",
    "timeout": "timeout",
    "failed": "failed",
    "nobody": "nobody",
}


class _Prepared:
    """A call read once, for every identical call after it: the reading, and what follows from it."""

    __slots__ = (
        "analysis",
        "commands",
        "digest",
        "effects",
        "holes",
        "input",
        "is_shell",
        "masked",
        "memo",
        "plan",
        "positions",
        "replays",
        "secrets",
        "sequence",
        "source",
    )

    def __init__(
        self, call: ToolCall, *, is_shell: bool, source: str | None, reading: CallReading
    ) -> None:
        analysis = reading.analysis
        self.input = call.input
        self.is_shell = is_shell
        self.source = source
        self.analysis = analysis
        self.plan = reading.plan if analysis is None else analysis.plan
        self.sequence = None if analysis is None else analysis.sequence
        self.holes: tuple[tuple[HoleRef, Hole], ...] = (
            tuple((entry.ref, entry.hole) for entry in analysis.holes)
            if analysis is not None and analysis.measured
            else ()
        )
        self.positions = () if analysis is None else analysis.positions
        self.commands = len(self.positions)
        # What the call's tool input does; a shell's plan says the rest.
        self.effects: tuple[Effect, ...] = reading.effects
        self.digest = (
            self.plan.digest
            if self.plan is not None
            else digest_of({"tool": call.tool, "input": call.input})
        )
        self.memo: dict[tuple[str | None, str | None, str | None, str | None], Memo] = {}
        self.replays: dict[tuple[str | None, str | None, str | None, str | None], _Replay] = {}
        self.masked = reading.input
        self.secrets = reading.secrets


class _Busy(NamedTuple):
    """A call not read because the gateway is busy (`Admission`), and why."""

    reason: str


class _Replay(NamedTuple):
    """What an identical call published and was told, to give again (see `Gateway._replay`)."""

    prepared: _Prepared
    generations: tuple[tuple[int | None, str | None], ...]
    drafts: tuple[Event, ...]
    verdict: Verdict
    attributes: dict[str, str | int | bool | None]


class _Review:
    """What a review has done so far, so that any way it ends still leaves the right record."""

    __slots__ = ("_digest", "_of", "call_id", "ids", "question", "until", "verdict_seq")

    def __init__(self, call_id: str, of: Any, ids: dict[str, str | None]) -> None:
        self.call_id = call_id
        self._of = of
        self._digest: str | None = None
        self.ids = ids
        self.question: HoleRef | None = None
        self.verdict_seq: int | None = None
        # The loop time by which the review must be over (its record written):
        # what a sink judged by its writer may take when the loop is behind.
        self.until: float | None = None

    @property
    def digest(self) -> str:
        """The digest a decline is bound to: the plan's once there is one, else of what was proposed."""
        if self._digest is None:
            of = self._of
            # A call admitted at the door is bound by its tool and input, built
            # only when a decline needs it (a replayed call is bound by its plan).
            if isinstance(of, ToolCall):
                of = {"tool": of.tool, "input": of.input}
            self._digest = digest_of(of)
        return self._digest

    @digest.setter
    def digest(self, value: str) -> None:
        self._digest = value


class _Recent(NamedTuple):
    call: ToolCall  # as proposed; approvers see it with `masked` as its input
    prepared: _Prepared
    user_request: str | None  # masked

    @property
    def source(self) -> str | None:
        return self.prepared.source

    @property
    def plan(self) -> ProgramPlan | None:
        return self.prepared.plan

    @property
    def analysis(self) -> CallAnalysis | None:
        return self.prepared.analysis

    @property
    def digest(self) -> str:
        return self.prepared.digest

    @property
    def masked(self) -> ToolCall:
        """The call as approvers see it: its secrets masked."""
        return msgspec.structs.replace(
            self.call, input=self.prepared.masked, user_request=self.user_request
        )


def _home_directory() -> str | None:
    """This process's home directory, when it has a usable one (``$HOME``, absolute, not ``/``)."""
    home = os.path.expanduser("~")
    return home if home.startswith("/") and home.rstrip("/") else None


def _lookup(data: Mapping[str, Any], path: str) -> Any:
    value: Any = data
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


class Gateway(AsyncContextManagerMixin):
    """
    Reviews proposed tool calls before anything runs.

    Args:
        config: The configuration (default: built-in defaults — the ``rules``
            approver with its default policy, no sinks).
        approvers: Approvers to use instead of loading the configured ones.
        sinks: Sinks to use (all required) instead of the configured ones.
        witnesses: Witnesses to use instead of the configured ones.
        tracer_provider: Where spans go (default: the global provider).
        meter_provider: Where metrics go (default: the global provider).
        clock: Gives event timestamps (default: the UTC time now).

    Examples:
        >>> import anyio
        >>> from gateway import Gateway, ToolCall
        >>> from gateway.testing import StaticApprover
        >>> async def main() -> str:
        ...     async with Gateway(approvers=[StaticApprover("allow")]) as gateway:
        ...         verdict = await gateway.review(ToolCall("Bash", {"command": "ls"}))
        ...     return verdict.decision
        >>> anyio.run(main)
        'allow'
    """

    def __init__(
        self,
        config: GatewayConfig | None = None,
        *,
        approvers: Sequence[Approver] | None = None,
        sinks: Mapping[str, Sink] | None = None,
        witnesses: Mapping[str, Witness] | None = None,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        clock: Callable[[], str] | None = None,
    ) -> None:
        self.config = config if config is not None else GatewayConfig()
        self.services: dict[str, Any] = {}
        parts = self._parts = Parts(
            self.config,
            telemetry=Telemetry(tracer_provider, remember=self.config.gateway.recent_calls),
            metrics=Metrics(meter_provider),
            clock=clock or now,
        )
        self._pool = parts.pool
        self._lifecycle = Lifecycle(
            parts, approvers=approvers, sinks=sinks, witnesses=witnesses, services=self.services
        )
        self._cache: OrderedDict[tuple[str, bytes, str], _Prepared] = OrderedDict()
        self._reading: dict[tuple[str, bytes, str], anyio.Event] = {}
        # The home directory paths are classified against: configured, or this process's.
        self._home = self.config.paths.home or _home_directory()
        self._recent: OrderedDict[str, _Recent] = OrderedDict()
        self._masks = RequestMasks(parts.pool, self.config.gateway.plan_timeout)

    # ── lifecycle ──

    @asynccontextmanager
    async def __asynccontextmanager__(self) -> AsyncIterator[Gateway]:
        async with self._lifecycle.opened():
            yield self

    @property
    def sinks(self) -> Mapping[str, Sink]:
        """The gateway's sinks by name, as built (empty before it opens)."""
        return dict(self._lifecycle.sinks)

    @property
    def bus(self) -> EventBus:
        """The event bus (only while the gateway is open)."""
        return self._parts.opened_bus()

    @asynccontextmanager
    async def subscribe(self, buffer: int = 1024) -> AsyncIterator[ObjectReceiveStream[Event]]:
        """Watch every event as it is published (a watcher that falls behind is cut off)."""
        async with self.bus.subscribe(buffer) as stream:
            yield stream

    def statistics(self) -> GatewayStatistics:
        """Counters for monitoring."""
        parts = self._parts
        return statistics(parts.counts, parts.bus, parts.pool, parts.admission)

    def approver_timeout(self, approver: Approver) -> float:
        """
        The seconds an approver may take: its own ``timeout`` attribute when it
        has one (a person needs minutes, a rule set milliseconds), else the
        configured ``approver-timeout``. Always finite, and always cut short by
        the review's own deadline.
        """
        for slot in self._parts.chain.slots:
            if slot.approver is approver:
                return self._parts.chain.timeout_of(slot)
        return self._parts.chain.timeout_of(resolve_approver(approver))

    # ── reading ──

    def shell_source(self, call: ToolCall) -> tuple[bool, str | None]:
        """
        Whether the call's tool is a shell, and its command as one shell text.

        An argv list is quoted into one command. Returns ``(True, None)`` for a
        shell tool whose command field is missing or of the wrong type.
        """
        import shlex

        tool = self.shell_tool(call)
        if tool is not None:
            for field in tool.fields:
                value = _lookup(call.input, field)
                if isinstance(value, str):
                    return True, value
                if (
                    isinstance(value, list | tuple)
                    and value
                    and all(isinstance(item, str) for item in value)
                ):
                    return True, shlex.join(value)
                if value is not None:
                    return True, None
            return True, None
        return False, None

    def shell_tool(self, call: ToolCall) -> ShellTool | None:
        """The first ``[[shell-tools]]`` entry whose name or pattern covers the call's tool."""
        return next((tool for tool in self.config.shell_tools if tool.matches(call.tool)), None)

    async def _prepare(
        self, admitted: Admitted, deadline: float
    ) -> _Prepared | BoundedFailure | _Busy:
        """
        The call's reading: from the cache of identical calls, or from a worker under its deadline.

        A reading afresh must be admitted first (`Admission`): when the gateway
        cannot read it within ``[gateway] admission-wait``, nothing is read.
        """
        key = admitted.key
        call = admitted.call
        while True:
            cached = self._cache.get(key)
            if cached is not None and cached.input == call.input:
                self._cache.move_to_end(key)
                self._parts.counts.hits += 1
                return cached
            # Identical calls that arrive together (an agent retrying, a burst
            # of `git status`) wait for the one being read instead of each
            # sending the same text to a worker.
            pending = self._reading.get(key)
            if pending is None:
                break
            await pending.wait()
        admission = self._parts.admission
        if not admission.enter():
            return _Busy(admission.busy_reason())
        self._parts.counts.misses += 1
        is_shell, source = self.shell_source(call)
        shell = self.shell_tool(call)
        done = self._reading[key] = anyio.Event()
        try:
            reading = await self._parts.pool.run(
                read_call,
                CallText(
                    tool=call.tool,
                    input=call.input,
                    source=source,
                    is_shell=is_shell,
                    cwd=call.cwd,
                    paths=self.config.paths,
                    home=self._home,
                    rows=self.config.tool_effects,
                    dialect=shell.dialect if shell is not None else "bash",
                    programs=self.config.programs,
                ),
                timeout=worker_timeout(self.config.gateway.plan_timeout, deadline),
            )
            if isinstance(reading, BoundedFailure):
                return reading
            prepared = _Prepared(call, is_shell=is_shell, source=source, reading=reading)
            self._cache[key] = prepared
            while len(self._cache) > self.config.gateway.plan_cache_size:
                self._cache.popitem(last=False)
        finally:
            admission.leave()
            del self._reading[key]
            done.set()
        return prepared

    async def analyse(self, source: str, cwd: str = "") -> CallAnalysis:
        """
        The `CallAnalysis` of a shell text run in ``cwd`` (as the first of ``[[shell-tools]]``).

        Read once, in a worker under ``plan-timeout``, through the cache of
        identical calls.

        Raises:
            GatewayError: The text could not be read in time, or is not a text a call may carry.
        """
        tool = self.config.shell_tools[0] if self.config.shell_tools else None
        name = tool.tool if tool is not None and not any(c in tool.tool for c in "*?[") else "Bash"
        field = tool.fields[0].split(".")[0] if tool is not None else "command"
        admitted = admit(ToolCall(name, {field: source}, cwd=cwd or None))
        if isinstance(admitted, str):
            raise GatewayError(f"The text cannot be read: {admitted}.")
        deadline = anyio.current_time() + self.config.gateway.plan_timeout
        prepared = await self._prepare(admitted, deadline)
        if isinstance(prepared, _Busy):
            raise GatewayError(prepared.reason)
        if isinstance(prepared, BoundedFailure):
            raise GatewayError(f"The text could not be read ({prepared.reason}).")
        if prepared.analysis is None:  # pragma: no cover - read as a shell tool's command
            raise GatewayError("The text was not read as shell.")
        return prepared.analysis

    async def plan(self, source: str, cwd: str = "") -> tuple[ProgramPlan, SequencePlan]:
        """The plan and sequence plan of a shell text (from its `analyse`)."""
        analysis = await self.analyse(source, cwd)
        return analysis.plan, analysis.sequence

    @staticmethod
    def holes_of(analysis: CallAnalysis) -> list[tuple[HoleRef, Hole]]:
        """Every hole of every unquoted heredoc of an analysed call, in order (nothing is read)."""
        return [(entry.ref, entry.hole) for entry in analysis.holes]

    # ── reviewing ──

    async def review(self, call: ToolCall, *, confining: Confining | None = None) -> Verdict:
        """
        Review one proposed call; return the verdict.

        ``confining`` is for a caller that runs calls inside a boundary
        (`Confining`): then every allow carries the `Confinement` to run the
        call in (`Verdict.confinement`), or becomes an ask that says why
        there is none. Without it, an allow that holds only inside a
        boundary is an ask.

        Never raises for a bad call, a failing plugin, a worker that overruns
        or a bug: those are declines, each with its record. If the review is
        cancelled, a decline is recorded before the cancellation propagates.
        It returns within ``[gateway] review-timeout``.

        Raises:
            RuntimeError: The gateway is not open.
        """
        bus = self.bus  # raises when the gateway is not open
        section = self.config.gateway
        self._parts.counts.reviews += 1
        admitted = admit(call, self._cache)
        tool = getattr(call, "tool", None)
        started = time.perf_counter()
        telemetry = self._parts.telemetry
        if isinstance(admitted, Admitted):
            call = admitted.call
        # Without a provider that records, no attribute is built.
        quiet = telemetry.quiet
        attributes = None if quiet else self._review_attributes(admitted, tool)
        with telemetry.span(SPAN_REVIEW, attributes, quiet=quiet) as span:
            trace_id, span_id = telemetry.ids(span)
            ids: dict[str, str | None] = {"trace_id": trace_id, "span_id": span_id}
            refusal = (
                None
                if isinstance(admitted, Admitted)
                else f"The call cannot be reviewed: {admitted}."
            )
            if isinstance(admitted, Admitted):
                state = _Review(admitted.call.call_id or "", admitted.call, ids)
            else:
                state = _Review(refused_call_id(call), {"refused": refusal}, ids)
            try:
                replay = self._replay(admitted, bus) if isinstance(admitted, Admitted) else None
                if isinstance(admitted, Admitted) and replay is not None and not bus.pressed:
                    # An identical call was read and answered by deterministic
                    # approvers alone: its answer is given again, and nothing
                    # can wait, so no deadline is armed.
                    verdict = self._replayed(admitted, state, span, replay, bus)
                    if bus.recording:
                        await self._publish_again(state, replay, bus)
                elif isinstance(admitted, Admitted):
                    state.until = anyio.current_time() + section.review_timeout
                    decide_by = state.until - 2 * section.audit_timeout
                    with anyio.CancelScope(deadline=decide_by) as scope:
                        if replay is not None:
                            # The same, but a sink is behind: publishing may wait.
                            verdict = self._replayed(admitted, state, span, replay, bus)
                            if bus.recording:
                                await self._publish_again(state, replay, bus)
                        else:
                            verdict = await self._decide(admitted, state, span, decide_by)
                    if scope.cancelled_caught:
                        verdict = Verdict(
                            decision="decline",
                            reason=f"The review did not reach a verdict within {section.review_timeout:g} s, and the gateway fails closed.",
                            digest=state.digest,
                            call_id=state.call_id,
                        )
                else:
                    verdict = self._decline(state, refusal or "The call cannot be reviewed.")
                if isinstance(admitted, Admitted):
                    verdict = self._confined(verdict, admitted.call, confining)
                # Without a required sink nothing is awaited: no coroutine is made for it.
                seq = self._record_verdict(verdict, state)
                if seq is not None:
                    verdict = await self._released(verdict, state, seq)
            except BaseException as error:  # noqa: BLE001 -- _failed records it, and re-raises what must go on
                verdict = await self._failed(error, state, span)
            if not quiet:
                telemetry.set(span, verdict_attributes(verdict, self._mode))
            if isinstance(admitted, Admitted) and trace_id is not None:
                # A span without ids (one that does not record, with no parent) is not remembered.
                telemetry.reviewed(admitted.call.call_id, admitted.call.tool, span)
        mode = self._mode
        metrics = self._parts.metrics
        if not metrics.quiet:
            metrics.reviewed(
                time.perf_counter() - started,
                verdict.decision,
                verdict.rule,
                verdict.approver,
                mode,
            )
        self._parts.counts.count(verdict)
        return self._deferred(verdict) if mode == "shadow" else verdict

    def confinement(self, call: ToolCall, profile: str) -> Confinement | str:
        """
        The boundary of a profile for one call, or why the call cannot be confined (a clause).

        Resolved against the call's working directory, the home directory
        (``[paths] home``, else ``HOME``) and this process's ``PATH``; the gateway's own secret files are hidden,
        and the files its sinks and witnesses write are kept read-only, as are
        the hooks directory and git directory the workspace's repository
        really uses (`gateway.persistence_points`: bounded reads of git's
        configuration files).
        """
        return confinement(self.config, call, profile)

    def _confined(self, verdict: Verdict, call: ToolCall, confining: Confining | None) -> Verdict:
        """An allow as the caller can run it: inside its boundary, or an ask that says why not."""
        return confined(verdict, call, confining, self.confinement)

    @staticmethod
    def _review_attributes(admitted: Admitted | str, tool: object) -> dict[str, str | int | bool]:
        """What a review span carries from its start."""
        attributes: dict[str, str | int | bool] = dict(REVIEW_ATTRIBUTES)
        if isinstance(admitted, Admitted):
            call = admitted.call
            attributes[ATTR_TOOL_NAME] = call.tool
            attributes[ATTR_TOOL_CALL_ID] = call.call_id or ""
            if call.session_id:
                attributes[ATTR_CONVERSATION_ID] = call.session_id
        elif isinstance(tool, str) and len(tool) <= 256 and tool.isprintable():
            attributes[ATTR_TOOL_NAME] = tool
        return attributes

    @property
    def _mode(self) -> Mode:
        return self._parts.mode

    @staticmethod
    def _deferred(verdict: Verdict) -> Verdict:
        """What shadow mode returns: the host decides; the verdict it would have had is recorded."""
        return deferred(verdict)

    def _count_unmeasured(self, plan: ProgramPlan | None) -> None:
        """Count a shell call the gateway could not measure, by why."""
        if plan is not None and plan.status != "measured":
            self._parts.metrics.unmeasured(unmeasured_kind(plan.reason))

    def _replay(self, admitted: Admitted, bus: EventBus) -> _Replay | None:
        """What an identical call got, if it can be given again now (nothing changed, nothing would wait)."""
        # The door already found the entry when the input matched it.
        prepared = admitted.known or self._cache.get(admitted.key)
        call = admitted.call
        if (
            prepared is None
            or not prepared.replays
            or (prepared is not admitted.known and prepared.input != call.input)
            or bus.halted is not None
        ):
            return None
        user_request = None
        if call.user_request is not None:
            user_request = self._masks.get(call.user_request, prepared.secrets)
            if user_request is None:
                return None
        replay = prepared.replays.get((call.session_id, call.agent_id, call.host, user_request))
        if replay is None or replay.generations != self._parts.chain.generations():
            return None
        self._cache.move_to_end(admitted.key)
        self._parts.counts.hits += 1
        return replay

    def _replayed(
        self, admitted: Admitted, state: _Review, span: Any, replay: _Replay, bus: EventBus
    ) -> Verdict:
        """
        Give an identical call's answer again, for this call; its verdict.

        What that call published is published again by `_publish_again` —
        when someone records or watches; else it is only numbered, here, so
        that a review without sinks awaits nothing. ``bus`` is the one
        `review` read, with nothing awaited since: the gateway is still open.
        """
        call = admitted.call
        prepared = replay.prepared
        state.digest = prepared.digest
        self._remember(
            call,
            prepared,
            self._masks.get(call.user_request, prepared.secrets)
            if call.user_request is not None
            else None,
        )
        self._parts.telemetry.set(span, replay.attributes)
        self._count_unmeasured(prepared.plan)
        if not bus.recording:
            bus.count(len(replay.drafts))
        return msgspec.structs.replace(replay.verdict, call_id=state.call_id)

    @staticmethod
    async def _publish_again(state: _Review, replay: _Replay, bus: EventBus) -> None:
        """Publish what an identical call published, for this call (after `_replayed`, when ``bus.recording``)."""
        ids = state.ids
        for draft in replay.drafts:
            await bus.publish(
                msgspec.structs.replace(
                    draft, call_id=state.call_id, trace_id=ids["trace_id"], span_id=ids["span_id"]
                )
            )

    @staticmethod
    def _request(prepared: _Prepared, masked_call: ToolCall) -> ReviewRequest:
        analysis = prepared.analysis
        return ReviewRequest(
            kind="call",
            call=masked_call,
            digest=prepared.digest,
            plan=prepared.plan,
            positions=prepared.positions,
            holes=tuple(ref for ref, _ in prepared.holes),
            sequence=prepared.sequence,
            effects=prepared.effects + (analysis.effects if analysis is not None else ()),
        )

    async def _failed(self, error: BaseException, state: _Review, span: Any) -> Verdict:
        """
        End a review that raised, in its record first.

        A caller's cancellation is recorded as such and goes on. Anything else
        (a bug, a BaseException that is not ours to let through) ends in a
        recorded decline; a process being stopped goes on once it is recorded.
        """
        audit_timeout = self.config.gateway.audit_timeout
        if isinstance(error, anyio.get_cancelled_exc_class()) and caller_cancelled():
            with anyio.CancelScope(shield=True), anyio.move_on_after(audit_timeout):
                await self._end(
                    state,
                    "The review was cancelled before a verdict was released, so nothing may run.",
                )
            raise error
        self._parts.telemetry.error(span, type(error).__name__, type(error).__name__)
        verdict = self._decline(
            state,
            f"The gateway failed while reviewing ({type(error).__name__}), and it fails closed.",
        )
        with anyio.CancelScope(shield=True), anyio.move_on_after(audit_timeout):
            await self._end(state, verdict.reason)
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise error
        return verdict

    @staticmethod
    def _decline(state: _Review, reason: str) -> Verdict:
        return Verdict(
            decision="decline", reason=reason, digest=state.digest, call_id=state.call_id
        )

    def _verdict_record(self, verdict: Verdict, state: _Review) -> VerdictReached:
        """The record of the verdict a review released."""
        return VerdictReached(
            call_id=verdict.call_id,
            verdict=verdict,
            question=state.question,
            mode=self._mode,
            trace_id=state.ids["trace_id"],
            span_id=state.ids["span_id"],
        )

    async def _end(self, state: _Review, reason: str) -> None:
        """Record the decline of a review that ended abnormally: its verdict, or the withdrawal of one already recorded."""
        bus = self.bus
        released = self._decline(state, reason)
        if state.verdict_seq is None:
            draft: Event = self._verdict_record(released, state)
        else:
            bus.withdrawing(state.verdict_seq)
            draft = VerdictWithdrawn(
                call_id=state.call_id,
                withdrawn=state.verdict_seq,
                reason=reason,
                released=released,
                question=state.question,
                trace_id=state.ids["trace_id"],
                span_id=state.ids["span_id"],
            )
        seq = bus.publish_nowait(draft)
        if state.verdict_seq is None:
            state.verdict_seq = seq
        if bus.required_sinks:
            with suppress(SinkFailure):
                # A decline that lands late still says what the caller was told.
                await bus.wait_written(
                    seq, self.config.gateway.audit_timeout, late_fails=False, until=state.until
                )

    async def _decide(
        self, admitted: Admitted, state: _Review, span: Any, deadline: float
    ) -> Verdict:
        """
        Everything up to the verdict, within the review's CPU budget (``[gateway] review-cpu``).

        Every call to a worker the review makes — its reading, planning and
        the judging of approvers that use the pool — shares the one budget.
        """
        with cpu_account(self.config.gateway.review_cpu):
            return await self._decide_within(admitted, state, span, deadline)

    async def _decide_within(
        self, admitted: Admitted, state: _Review, span: Any, deadline: float
    ) -> Verdict:
        """Everything up to the verdict: read the call, publish what it is, ask the approvers."""
        bus = self.bus
        call = admitted.call
        call_id = state.call_id
        ids = state.ids
        trace_id, span_id = ids["trace_id"], ids["span_id"]
        halted = bus.halted
        if halted is not None:
            return self._decline(
                state,
                f"The audit log failed ({halted}), so until the gateway restarts every call is declined: there is no action without audit.",
            )
        if self.shell_tool(call) is not None:
            with self._parts.telemetry.span(SPAN_PLAN) as plan_span:
                prepared = await self._prepare(admitted, deadline)
                if isinstance(prepared, BoundedFailure):
                    self._parts.telemetry.error(plan_span, prepared.reason, prepared.kind)
                elif isinstance(prepared, _Busy):
                    self._parts.telemetry.error(plan_span, prepared.reason, "busy")
                elif prepared.plan is not None:
                    self._parts.telemetry.set(plan_span, plan_attributes(prepared.plan))
        else:
            prepared = await self._prepare(admitted, deadline)
        if isinstance(prepared, _Busy):
            return self._decline(state, prepared.reason)
        if isinstance(prepared, BoundedFailure):
            return self._decline(
                state,
                f"The call could not be read safely ({prepared.reason}), and the gateway fails closed.",
            )
        plan = prepared.plan
        holes = prepared.holes
        state.digest = prepared.digest
        masked_call = msgspec.structs.replace(
            call,
            input=prepared.masked,
            user_request=await self._masks.mask(call.user_request, prepared.secrets, deadline),
        )
        self._count_unmeasured(plan)
        attributes: dict[str, str | int | bool | None] = {
            **(plan_attributes(plan) if plan is not None else {}),
            ATTR_PLAN_DIGEST: prepared.digest,
            ATTR_COMMANDS: prepared.commands,
            ATTR_HOLES: len(holes),
        }
        self._parts.telemetry.set(span, attributes)
        record = Record()
        record.drafts.append(
            CallProposed(
                tool=call.tool,
                input=prepared.masked,
                session_id=call.session_id,
                agent_id=call.agent_id,
                cwd=call.cwd,
                host=call.host,
            )
        )
        record.drafts.append(
            PlanReady(
                shell=prepared.is_shell,
                plan_digest=prepared.digest,
                plan=plan,
                sequence=prepared.sequence,
                commands=prepared.commands,
                holes=len(holes),
                effects=prepared.effects,
            )
        )
        if not prepared.is_shell or prepared.source is not None:
            record.drafts.extend(HoleQuestion(ref=ref, hole=hole) for ref, hole in holes)
        # Nobody records or watches: the events are numbered, not built.
        for draft in record.drafts:
            if bus.recording:
                await bus.publish(
                    msgspec.structs.replace(
                        draft, call_id=call_id, trace_id=trace_id, span_id=span_id
                    )
                )
            else:
                bus.count()
        self._remember(call, prepared, masked_call.user_request)
        if prepared.is_shell and prepared.source is None:
            return self._decline(state, _SHELL_FIELD_ERROR)
        request = self._request(prepared, masked_call)
        situation = (call.session_id, call.agent_id, call.host, masked_call.user_request)
        memo = prepared.memo.setdefault(situation, {})
        generations = self._parts.chain.generations()
        ask = self._parts.chain.ask
        outcomes: list[tuple[HoleRef | None, Outcome]] = [
            (
                None,
                await ask(request, bus=bus, ids=ids, deadline=deadline, memo=memo, record=record),
            )
        ]
        if self.config.gateway.ask_holes:
            for ref, hole in holes:
                left = cpu_left()
                if left is not None and left <= 0:
                    # Each question costs the review CPU time: once it is spent, no more are asked.
                    outcomes.append((ref, Outcome("ask", self._spent_on_holes(), None, None)))
                    break
                with self._parts.telemetry.span(
                    SPAN_HOLE, {ATTR_QUESTION: f"{ref.statement}.{ref.heredoc}.{ref.hole}"}
                ):
                    question = msgspec.structs.replace(
                        request, kind="hole", question=ref, hole=hole
                    )
                    outcome = await ask(
                        question, bus=bus, ids=ids, deadline=deadline, memo=memo, record=record
                    )
                    outcomes.append((ref, outcome))
        verdict = combine(
            outcomes,
            digest=prepared.digest,
            call_id=None,
            plan=plan,
            holes=len(holes),
            confine=partial(self.confinement, call),
        )
        if record.replayable and generations == self._parts.chain.generations():
            prepared.replays[situation] = _Replay(
                prepared,
                generations,
                tuple(
                    msgspec.structs.replace(draft, call_id=None, trace_id=None, span_id=None)
                    for draft in record.drafts
                ),
                verdict,
                attributes,
            )
        return msgspec.structs.replace(verdict, call_id=call_id)

    def _spent_on_holes(self) -> str:
        """Why the heredoc holes left were not asked: the review's CPU time ran out."""
        return (
            f"The review used all the {self.config.gateway.review_cpu:g} s of CPU time it may use"
            " before every heredoc hole was judged, so a person must decide."
        )

    async def _conclude(self, verdict: Verdict, state: _Review) -> Verdict:
        """
        Record the verdict, then release it — only once the required sinks have written it.

        When they cannot, the caller gets a decline, and a ``verdict.withdrawn``
        record says so wherever the first record was written; the failed sink
        is fenced, and the gateway halts (no action without audit). Bounded
        by twice the audit timeout.
        """
        seq = self._record_verdict(verdict, state)
        return verdict if seq is None else await self._released(verdict, state, seq)

    def _record_verdict(self, verdict: Verdict, state: _Review) -> int | None:
        """
        Publish the record of the verdict (the first half of `_conclude`).

        Returns:
            Its sequence number when a required sink must write it before the
            verdict is released (`_released`), else ``None``.
        """
        bus = self.bus
        # Past any back-pressure: the verdict's record is never kept waiting
        # behind the events it concludes. Numbered only, when nobody records.
        seq = state.verdict_seq = (
            bus.publish_nowait(self._verdict_record(verdict, state))
            if bus.recording
            else bus.count()
        )
        return seq if bus.required_sinks else None

    async def _released(self, verdict: Verdict, state: _Review, seq: int) -> Verdict:
        """The verdict once every required sink has written record ``seq``, or the decline that replaces it (the second half of `_conclude`)."""
        bus = self.bus
        writing = time.perf_counter()
        try:
            await bus.wait_written(seq, self.config.gateway.audit_timeout, until=state.until)
        except SinkFailure as failure:
            self._parts.metrics.audit_written(time.perf_counter() - writing, written=False)
            if verdict.decision == "decline":
                return verdict
            declined = self._decline(
                state,
                f"The audit record could not be written ({failure}), and there is no action without audit.",
            )
            await self._end(state, declined.reason)
            return declined
        self._parts.metrics.audit_written(time.perf_counter() - writing, written=True)
        return verdict

    # ── after the verdict ──

    def _remember(self, call: ToolCall, prepared: _Prepared, user_request: str | None) -> None:
        if call.call_id is None:
            return
        self._recent[call.call_id] = _Recent(call, prepared, user_request)
        self._recent.move_to_end(call.call_id)
        while len(self._recent) > self.config.gateway.recent_calls:
            self._recent.popitem(last=False)

    async def answer(
        self, call_id: str, statement: int, heredoc: int, answers: Mapping[int, str]
    ) -> Verdict:
        """
        Hand back the output of holes the host ran, and review the completed heredoc body.

        The body is expanded with the answers (verbatim, trailing newlines
        removed, never re-scanned) in a worker; if it is still blocked the
        verdict is ``ask``. A complete body is put to the approvers (kind
        ``body``, with a plan of it when the command reading it is a shell).

        Raises:
            KeyError: The gateway does not remember the call.
            RuntimeError: The gateway is not open.
        """
        self.bus  # noqa: B018 -- raises when the gateway is not open
        recent = self._recent[call_id]
        if recent.source is None or recent.analysis is None:
            raise KeyError(call_id)
        section = self.config.gateway
        until = anyio.current_time() + section.review_timeout
        decide_by = until - 2 * section.audit_timeout
        with self._parts.telemetry.span(SPAN_HOLE, {ATTR_TOOL_CALL_ID: call_id}) as span:
            trace_id, span_id = self._parts.telemetry.ids(span)
            ids: dict[str, str | None] = {"trace_id": trace_id, "span_id": span_id}
            state = _Review(call_id, None, ids)
            state.until = until
            state.digest = recent.digest
            state.question = HoleRef(statement=statement, heredoc=heredoc, hole=-1)
            try:
                with anyio.CancelScope(deadline=decide_by) as scope:
                    verdict = await self._decide_body(recent, state, answers, decide_by)
                if scope.cancelled_caught:
                    verdict = self._decline(
                        state,
                        f"The heredoc body was not judged within {section.review_timeout:g} s, and the gateway fails closed.",
                    )
                verdict = await self._conclude(verdict, state)
                return self._deferred(verdict) if self._mode == "shadow" else verdict
            except BaseException as error:  # noqa: BLE001 -- _failed records it, and re-raises what must go on
                return await self._failed(error, state, span)

    async def _decide_body(
        self, recent: _Recent, state: _Review, answers: Mapping[int, str], deadline: float
    ) -> Verdict:
        bus = self.bus
        call_id = state.call_id
        ids = state.ids
        question = state.question
        assert question is not None  # noqa: S101 -- set by answer()
        analysis = recent.analysis
        if recent.source is None or analysis is None:  # pragma: no cover - checked by answer()
            raise KeyError(call_id)
        valid = {
            index: text
            for index, text in answers.items()
            if type(index) is int and isinstance(text, str)
        }
        if len(valid) != len(answers):
            return self._decline(state, "The answers must map hole numbers to text.")
        for index, text in sorted(valid.items()):
            ref = HoleRef(statement=question.statement, heredoc=question.heredoc, hole=index)
            await bus.publish(
                HoleAnswered(
                    call_id=call_id,
                    ref=ref,
                    answer_digest=digest_of(text),
                    length=len(text),
                    trace_id=ids["trace_id"],
                    span_id=ids["span_id"],
                )
            )
        if not analysis.measured:
            return self._decline(state, analysis.plan.reason or "The source could not be read.")
        statements = analysis.plan.statements
        reader = (
            statements[question.statement].plan.commands
            if 0 <= question.statement < len(statements)
            else ()
        )
        owner = next((c for c in reader for h in c.heredocs if h.index == question.heredoc), None)
        reading = await self._parts.pool.run(
            read_body,
            BodyText(
                source=recent.source,
                fragments=analysis.fragments,
                statement=question.statement,
                heredoc=question.heredoc,
                answers=valid,
                shell=owner is not None and owner.position.runs_shell,
                cwd=recent.call.cwd,
                paths=self.config.paths,
                home=self._home,
                programs=self.config.programs,
            ),
            timeout=worker_timeout(self.config.gateway.plan_timeout, deadline),
        )
        if isinstance(reading, BoundedFailure):
            return self._decline(
                state,
                f"The heredoc body could not be read safely ({reading.reason}), and the gateway fails closed.",
            )
        if reading.error is not None:
            return self._decline(state, reading.error)
        if reading.blocked or reading.body is None:
            return Verdict(
                decision="ask",
                reason="The heredoc body is still blocked by unanswered holes; a person must decide.",
                digest=recent.digest,
                call_id=call_id,
            )
        request = ReviewRequest(
            kind="body",
            call=recent.masked,
            digest=recent.digest,
            plan=recent.plan,
            question=question,
            body=reading.body,
            body_plan=reading.body_plan,
        )
        outcome = await self._parts.chain.ask(request, bus=bus, ids=ids, deadline=deadline)
        verdict = Verdict(
            decision=outcome.decision,
            reason=outcome.reason,
            digest=recent.digest,
            approver=outcome.approver,
            rule=outcome.rule,
            call_id=call_id,
            decided_by=outcome.decided_by,
            policy=outcome.policy,
        )
        if verdict.decision == "allow" and outcome.within is not None:
            # The host runs the completed call as it is: nothing confines it.
            return unconfined(verdict, "a completed heredoc body is run by the host, unconfined")
        return verdict

    async def record_outcome(
        self, call_id: str | None, outcome: str, detail: str | None = None
    ) -> None:
        """Record what happened when the host ran (or did not run) a call."""
        value = _OUTCOMES.get(outcome, "unknown") if type(outcome) is str else "unknown"
        shown = None
        if isinstance(detail, str):
            # Cut before masking: the scan is bounded by what is shown (and
            # a little more, so a secret cut at the edge is still found).
            shown = shorten(str(mask_value(detail[:2000])), 500)
        call_id = call_id if isinstance(call_id, str) else None
        bus = self.bus
        with self._parts.telemetry.outcome(call_id, value) as span:
            trace_id, span_id = self._parts.telemetry.ids(span)
            await bus.publish(
                CallOutcome(
                    call_id=call_id,
                    outcome=value,
                    detail=shown,
                    trace_id=trace_id,
                    span_id=span_id,
                )
            )

    async def record_changes(self, call_id: str | None, changes: RunChanged) -> None:
        """Record what a confined run of a call changed in its writable roots (``run.changed``)."""
        await self.bus.publish(
            msgspec.structs.replace(changes, call_id=call_id if isinstance(call_id, str) else None)
        )

    async def record_decision(
        self,
        call_id: str | None,
        decision: str,
        *,
        by: str = "person",
        host: str | None = None,
        detail: str | None = None,
    ) -> None:
        """
        Record a person's answer given inside the host (``host.decided``).

        ``decision`` other than ``allow`` is recorded as ``decline``, and ``by``
        other than ``person``, ``timeout``, ``failed`` or ``nobody`` as
        ``failed``: the record never says more than what happened.
        """
        shown = None
        if isinstance(detail, str):
            shown = shorten(str(mask_value(detail[:2000])), 500)
        call_id = call_id if isinstance(call_id, str) else None
        value: Literal["allow", "decline"] = "allow" if decision == "allow" else "decline"
        who = _DECIDERS.get(by, "failed") if type(by) is str else "failed"
        named = shorten(host, 200) if isinstance(host, str) else None
        bus = self.bus
        with self._parts.telemetry.host_decision(call_id, value, who, named) as span:
            trace_id, span_id = self._parts.telemetry.ids(span)
            await bus.publish(
                HostDecided(
                    call_id=call_id,
                    decision=value,
                    by=who,
                    host=named,
                    detail=shown,
                    trace_id=trace_id,
                    span_id=span_id,
                )
            )
