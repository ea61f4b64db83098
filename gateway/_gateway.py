"""
The Gateway: from a proposed tool call to a verdict, with events, approvers and traces.

An async context manager that owns everything it uses — its task group, event
bus, sinks, approvers, plan cache and tracer — so two gateways in one process
never interfere. It works under asyncio and trio (anyio).

For each call, `Gateway.review`:

1. publishes ``call.proposed`` (secrets masked);
2. plans the shell text, if the tool is a shell (in a worker thread, through a
   bounded cache), and publishes ``plan.ready`` with the digest every later
   decision is bound to;
3. puts every hole of every unquoted heredoc to the approvers as its own
   question (``hole.question``);
4. asks the approver chain about the call and each hole — each approver under
   a timeout, every failure a decline;
5. publishes ``verdict.reached`` and, by default, releases the verdict only
   once the required sinks have durably written it ("no audit, no action").

Nothing that fails — an approver, a sink, the planner, a cancellation — ever
becomes an allow, and no exception from a plugin escapes `review`.
"""

from __future__ import annotations

import os
import shlex
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

import anyio
import anyio.to_thread
import msgspec
from anyio import AsyncContextManagerMixin
from anyio.abc import ObjectReceiveStream
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from gateway._analysis import (
    CallAnalysis,
    analyse_call,
    analysis_context,
    mask_text,
    row_for,
    tool_directory,
    tool_effects,
)
from gateway._approvers import (
    Approver,
    ApproverContext,
    ApproverRole,
    EarlierAnswer,
    ReviewRequest,
    approver_role,
    load_approver,
)
from gateway._bus import EventBus
from gateway._calls import ToolCall
from gateway._config import GatewayConfig, Mode, ShellTool
from gateway._digest import digest_of
from gateway._effects import PLAN_FORMAT, Effect
from gateway._errors import SinkFailure
from gateway._events import (
    GENESIS,
    ApproverDecided,
    ApproverFailed,
    CallOutcome,
    CallProposed,
    Event,
    GatewayStarted,
    GatewayStopped,
    HoleAnswered,
    HoleQuestion,
    HoleRef,
    HostDecided,
    PlanReady,
    VerdictReached,
)
from gateway._fragments import expand_planned
from gateway._grounds import plan_founded
from gateway._metrics import Metrics
from gateway._plan import iter_commands, unreadable_plan
from gateway._plan._paths import path_context
from gateway._plans import FragmentAddr, FragmentError, Hole, ProgramPlan, SequencePlan
from gateway._redact import Redactor, find_secrets
from gateway._sinks import Sink, load_sink
from gateway._telemetry import (
    ATTR_APPROVER_NAME,
    ATTR_APPROVER_ROLE,
    ATTR_COMMANDS,
    ATTR_CONVERSATION_ID,
    ATTR_HOLES,
    ATTR_PLAN_DIGEST,
    ATTR_QUESTION,
    ATTR_TOOL_CALL_ID,
    ATTR_TOOL_NAME,
    REVIEW_ATTRIBUTES,
    SPAN_APPROVE,
    SPAN_HOLE,
    SPAN_PLAN,
    SPAN_REVIEW,
    Telemetry,
    answer_attributes,
    plan_attributes,
    unmeasured_kind,
    verdict_attributes,
)
from gateway._verdicts import Abstain, Allow, Answer, Decision, Decline, Verdict, strictest

__all__ = ["Gateway", "GatewayStatistics"]

VERSION: Final = "0.1.0"
_SHELL_FIELD_ERROR: Final = "The command of a shell tool must be a string or a list of strings."


class GatewayStatistics(msgspec.Struct, frozen=True, kw_only=True):
    """Counters for monitoring a gateway."""

    reviews: int
    allowed: int
    asked: int
    declined: int
    plan_cache_hits: int
    plan_cache_misses: int
    events: int
    failed_sinks: tuple[str, ...]


class _Outcome(NamedTuple):
    decision: Decision
    reason: str
    approver: str | None
    rule: str | None
    decided_by: str | None = None
    policy: str | None = None


class _Recent(NamedTuple):
    call: ToolCall
    source: str | None
    analysis: CallAnalysis | None
    digest: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Stands in for a value when asking the shared secret patterns whether a key
# names a secret: 40 letters and digits that no value-only pattern matches.
_KEY_PROBE: Final = "0123456789abcdefghij0123456789ABCDEFGHIJ"


def _secret_key_kind(key: Any) -> str | None:
    """The kind of secret a mapping key names (``password``, ``api_key``, ``DB_PASSWORD``…), if any."""
    if not isinstance(key, str) or not key or len(key) > 200:
        return None
    probe = f"{key}: {_KEY_PROBE}"
    return next((s.kind for s in find_secrets(probe) if s.start == len(key) + 2), None)


def source_secrets(source: str | None) -> tuple[tuple[str, str], ...]:
    """The secrets of a shell text as ``(value, kind)`` pairs, to mask wherever the values reappear."""
    if not source:
        return ()
    return tuple((source[s.start : s.end], s.kind) for s in find_secrets(source))


def mask_value(value: Any, known: Sequence[tuple[str, str]] = ()) -> Any:
    """
    A JSON-like value with the secrets of every string in it masked.

    ``known`` secrets (found in the whole shell text, see `source_secrets`)
    are masked wherever they appear: an argv list split ``mysql -p…`` into
    items that, one by one, no pattern recognises.
    """
    if isinstance(value, str):
        return mask_text(value, known)
    if isinstance(value, list | tuple):
        return [mask_value(item, known) for item in value]
    if isinstance(value, dict):
        masked: dict[Any, Any] = {}
        for key, item in value.items():
            # A string under a key that names a secret ({"password": "…"}, an
            # env map's "GITHUB_TOKEN") holds nothing the value patterns can
            # see: without its key it would be published verbatim.
            named = _secret_key_kind(key) if isinstance(item, str) and item else None
            masked[key] = f"<{named}>" if named is not None else mask_value(item, known)
        return masked
    return value


def mask_call(call: ToolCall, source: str | None) -> ToolCall:
    """The call as approvers see it: its input and the user's request with their secrets masked."""
    known = source_secrets(source)
    request = None if call.user_request is None else str(mask_value(call.user_request, known))
    return msgspec.structs.replace(call, input=mask_value(call.input, known), user_request=request)


def _well_formed(answer: Allow | Decline | Abstain) -> bool:
    """
    Whether an answer's fields have their declared types.

    Structs do not check types when built, so ``Allow(reason="ok", rule=42)``
    is an `Allow` that would be counted, then written to the audit log as a
    record no reader can decode.
    """
    try:
        again = msgspec.convert(msgspec.to_builtins(answer), type=Answer)
    except (msgspec.ValidationError, TypeError):
        return False
    # Equal after the round trip, or some value changed on the way (bytes
    # become base64 text, and the logged record would not match its digest).
    return bool(again == answer)


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
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        clock: Callable[[], str] | None = None,
    ) -> None:
        self.config = config if config is not None else GatewayConfig()
        self._given_approvers = approvers
        self._given_sinks = sinks
        self._telemetry = Telemetry(tracer_provider, remember=self.config.gateway.recent_calls)
        self._metrics = Metrics(meter_provider)
        self._clock = clock or _now
        self.services: dict[str, Any] = {}
        self._approvers: list[Approver] = []
        self._roles: list[ApproverRole] = []
        self._bus: EventBus | None = None
        self._cache: OrderedDict[tuple[str, str], CallAnalysis] = OrderedDict()
        self._planning: dict[tuple[str, str], anyio.Event] = {}
        # The home directory paths are classified against: configured, or this process's.
        self._home = self.config.paths.home or _home_directory()
        self._recent: OrderedDict[str, _Recent] = OrderedDict()
        self._limiter = anyio.CapacityLimiter(self.config.gateway.workers)
        self._counts = {"reviews": 0, "allow": 0, "ask": 0, "decline": 0, "hits": 0, "misses": 0}
        self._open = False

    # ── lifecycle ──

    def _build_approvers(self) -> list[Approver]:
        if self._given_approvers is not None:
            return list(self._given_approvers)
        context = ApproverContext(config=self.config, services=self.services)
        return [
            load_approver(name, self.config.approver.get(name, {}), context)
            for name in self.config.gateway.approvers
        ]

    def _build_sinks(self) -> list[tuple[str, Sink, bool]]:
        if self._given_sinks is not None:
            return [(name, sink, True) for name, sink in self._given_sinks.items()]
        return [
            (name, load_sink(name, sink), sink.required) for name, sink in self.config.sinks.items()
        ]

    @asynccontextmanager
    async def __asynccontextmanager__(self) -> AsyncIterator[Gateway]:
        self._approvers = self._build_approvers()
        self._roles = [approver_role(approver) for approver in self._approvers]
        sinks = self._build_sinks()
        opened: list[Sink] = []
        try:
            tips = []
            for _, sink, required in sinks:
                tip = await sink.open()
                opened.append(sink)
                if required and tip is not None:
                    tips.append(tip)
            start_seq, previous = (0, GENESIS)
            if tips:
                last = max(tips, key=lambda tip: tip.seq)
                start_seq, previous = last.seq + 1, last.digest
            bus = EventBus(
                clock=self._clock,
                buffer=self.config.gateway.event_buffer,
                sink_timeout=self.config.gateway.audit_timeout,
                start_seq=start_seq,
                previous=previous,
            )
            for name, sink, required in sinks:
                bus.add_sink(name, sink, required=required)
            self._bus = bus
            async with anyio.create_task_group() as task_group:
                bus.start(task_group)
                await bus.publish(
                    GatewayStarted,
                    None,
                    version=VERSION,
                    plan_format=PLAN_FORMAT,
                    config_digest=digest_of(self.config),
                    approvers=tuple(a.name for a in self._approvers),
                    sinks=tuple(name for name, _, _ in sinks),
                )
                self._open = True
                try:
                    yield self
                finally:
                    self._open = False
                    with anyio.CancelScope(shield=True):
                        with anyio.move_on_after(self.config.gateway.audit_timeout):
                            await bus.publish(
                                GatewayStopped, None, events=bus.statistics().published + 1
                            )
                        await bus.close()
        finally:
            with anyio.CancelScope(shield=True):
                # Closing a plugin must not hide the error that ended the gateway.
                for sink in opened:
                    with (
                        anyio.move_on_after(self.config.gateway.audit_timeout),
                        suppress(Exception),
                    ):
                        await sink.aclose()
                for approver in self._approvers:
                    closer = getattr(approver, "aclose", None)
                    if closer is not None:
                        with (
                            anyio.move_on_after(self.config.gateway.approver_timeout),
                            suppress(Exception),
                        ):
                            await closer()

    @property
    def bus(self) -> EventBus:
        """The event bus (only while the gateway is open)."""
        if self._bus is None or not self._open:
            raise RuntimeError(
                "The gateway is not open; use it as `async with Gateway(...) as gateway`."
            )
        return self._bus

    @asynccontextmanager
    async def subscribe(self, buffer: int = 1024) -> AsyncIterator[ObjectReceiveStream[Event]]:
        """Watch every event as it is published (a watcher that falls behind is cut off)."""
        async with self.bus.subscribe(buffer) as stream:
            yield stream

    def statistics(self) -> GatewayStatistics:
        """Counters for monitoring."""
        bus = self._bus.statistics() if self._bus is not None else None
        return GatewayStatistics(
            reviews=self._counts["reviews"],
            allowed=self._counts["allow"],
            asked=self._counts["ask"],
            declined=self._counts["decline"],
            plan_cache_hits=self._counts["hits"],
            plan_cache_misses=self._counts["misses"],
            events=0 if bus is None else bus.published,
            failed_sinks=() if bus is None else bus.failed_sinks,
        )

    # ── planning ──

    def shell_source(self, call: ToolCall) -> tuple[bool, str | None]:
        """
        Whether the call's tool is a shell, and its command as one shell text.

        An argv list is quoted into one command. Returns ``(True, None)`` for a
        shell tool whose command field is missing or of the wrong type.
        """
        tool = self.shell_tool(call)
        if tool is not None:
            for field in tool.fields:
                value = _lookup(call.input, field)
                if isinstance(value, str):
                    return True, value
                if (
                    isinstance(value, list)
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

    async def analyse(self, source: str, cwd: str = "") -> CallAnalysis:
        """
        The `CallAnalysis` of a shell text run in ``cwd``: from the bounded cache, or one reading.

        The text is read once, in a worker thread; hole questions, answers and
        everything published reuse the analysis.
        """
        key = (source, cwd)
        while True:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                self._counts["hits"] += 1
                return cached
            # Identical calls that arrive together (an agent retrying, a burst of
            # `git status`) wait for the one being planned instead of each
            # planning the same text in a worker thread of its own.
            pending = self._planning.get(key)
            if pending is None:
                break
            await pending.wait()
        self._counts["misses"] += 1
        context = analysis_context(self.config.paths, cwd or None, home=self._home)

        def analyse() -> CallAnalysis:
            return analyse_call(source, context)

        done = self._planning[key] = anyio.Event()
        try:
            result = await anyio.to_thread.run_sync(analyse, limiter=self._limiter)
            self._cache[key] = result
            while len(self._cache) > self.config.gateway.plan_cache_size:
                self._cache.popitem(last=False)
        finally:
            del self._planning[key]
            done.set()
        return result

    async def plan(self, source: str, cwd: str = "") -> tuple[ProgramPlan, SequencePlan]:
        """The plan and sequence plan of a shell text (from its cached `analyse`)."""
        analysis = await self.analyse(source, cwd)
        return analysis.plan, analysis.sequence

    @staticmethod
    def holes_of(analysis: CallAnalysis) -> list[tuple[HoleRef, Hole]]:
        """Every hole of every unquoted heredoc of an analysed call, in order (nothing is read)."""
        return [(entry.ref, entry.hole) for entry in analysis.holes]

    def tool_effects(
        self, call: ToolCall, *, is_shell: bool
    ) -> tuple[tuple[Effect, ...], str | None]:
        """
        What a call does by its tool's input, and where its shell text runs.

        For a tool that is not a shell, every effect its ``[[tool-effects]]``
        row states (one ``opaque`` effect when none maps it). For a shell tool,
        what its row adds besides the command (``local_shell``'s ``env``,
        ``user`` and ``working_directory``), and the working directory that
        gives its command.
        """
        rows = self.config.tool_effects
        if is_shell and row_for(call.tool, rows) is None:
            return (), call.cwd
        paths = path_context(self.config.paths, call.cwd, self._home)
        return (
            tool_effects(call.tool, call.input, rows, paths),
            tool_directory(call.tool, call.input, rows, call.cwd),
        )

    # ── reviewing ──

    async def review(self, call: ToolCall) -> Verdict:
        """
        Review one proposed call; return the verdict.

        Never raises for a bad call or a failing plugin: those are declines.
        If the review is cancelled, a decline is recorded before the
        cancellation propagates.

        Raises:
            RuntimeError: The gateway is not open.
        """
        bus = self.bus
        if not call.call_id:
            call = msgspec.structs.replace(call, call_id=uuid.uuid4().hex)
        call_id = call.call_id
        self._counts["reviews"] += 1
        started = time.perf_counter()
        attributes: dict[str, str | int | bool] = {**REVIEW_ATTRIBUTES, ATTR_TOOL_NAME: call.tool}
        if call_id:
            attributes[ATTR_TOOL_CALL_ID] = call_id
        if call.session_id:
            attributes[ATTR_CONVERSATION_ID] = call.session_id
        with self._telemetry.span(SPAN_REVIEW, attributes) as span:
            trace_id, span_id = self._telemetry.ids(span)
            ids = {"trace_id": trace_id, "span_id": span_id}
            digest = digest_of({"tool": call.tool, "input": call.input})
            try:
                verdict = await self._review(call, ids, span)
            except anyio.get_cancelled_exc_class():
                with (
                    anyio.CancelScope(shield=True),
                    anyio.move_on_after(self.config.gateway.audit_timeout),
                ):
                    cancelled = Verdict(
                        decision="decline",
                        reason="The review was cancelled before a verdict, so nothing may run.",
                        digest=digest,
                        call_id=call_id,
                    )
                    await bus.publish(
                        VerdictReached, call_id, verdict=cancelled, mode=self._mode, **ids
                    )
                raise
            except Exception as error:  # noqa: BLE001 -- a bug must still end in a decline, never an exception
                verdict = Verdict(
                    decision="decline",
                    reason=f"The gateway failed while reviewing ({type(error).__name__}), and it fails closed.",
                    digest=digest,
                    call_id=call_id,
                )
                self._telemetry.error(span, type(error).__name__, type(error).__name__)
                with anyio.move_on_after(self.config.gateway.audit_timeout):
                    await bus.publish(
                        VerdictReached, call_id, verdict=verdict, mode=self._mode, **ids
                    )
            self._telemetry.set(span, verdict_attributes(verdict, self._mode))
            self._telemetry.reviewed(call_id, call.tool, span)
        self._metrics.reviewed(
            time.perf_counter() - started,
            verdict.decision,
            verdict.rule,
            verdict.approver,
            self._mode,
        )
        self._counts[verdict.decision] += 1
        return self._deferred(verdict) if self._mode == "shadow" else verdict

    @property
    def _mode(self) -> Mode:
        return self.config.gateway.mode

    @staticmethod
    def _deferred(verdict: Verdict) -> Verdict:
        """What shadow mode returns: the host decides; the verdict it would have had is recorded."""
        would = {"allow": "allowed", "ask": "asked about", "decline": "declined"}[verdict.decision]
        return Verdict(
            decision="ask",
            reason=f"Shadow mode: the gateway would have {would} this call ({verdict.reason.rstrip('.')}); the host decides.",
            digest=verdict.digest,
            approver=verdict.approver,
            rule=verdict.rule,
            call_id=verdict.call_id,
            decided_by=verdict.decided_by,
            policy=verdict.policy,
            defer=True,
        )

    async def _review(self, call: ToolCall, ids: dict[str, str | None], span: Any) -> Verdict:
        bus = self.bus
        call_id = call.call_id
        is_shell, source = self.shell_source(call)
        masked_call = mask_call(call, source)
        await bus.publish(
            CallProposed,
            call_id,
            tool=call.tool,
            input=masked_call.input,
            session_id=call.session_id,
            agent_id=call.agent_id,
            cwd=call.cwd,
            host=call.host,
            **ids,
        )
        plan: ProgramPlan | None = None
        sequence: SequencePlan | None = None
        analysis: CallAnalysis | None = None
        digest = digest_of({"tool": call.tool, "input": call.input})
        own, cwd = self.tool_effects(call, is_shell=is_shell)
        shell_tool = self.shell_tool(call)
        dialect = shell_tool.dialect if shell_tool is not None else "bash"
        if is_shell and source is not None and dialect != "bash":
            # A shell in a language the planner does not read: the text is kept,
            # and the call is unmeasured (never auto-allowed), like unreadable bash.
            plan = unreadable_plan(
                source,
                f"`{call.tool}` runs {dialect} text, which the gateway does not read; a person must decide.",
            )
            digest = plan.digest
        elif is_shell and source is not None:
            with self._telemetry.span(SPAN_PLAN) as plan_span:
                analysis = await self.analyse(source, cwd or "")
                plan, sequence = analysis.plan, analysis.sequence
                self._telemetry.set(plan_span, plan_attributes(plan))
            if plan.status != "measured":
                self._metrics.unmeasured(unmeasured_kind(plan.reason))
            digest = plan.digest
        commands = [c for s in (plan.statements if plan else ()) for c in iter_commands(s.plan)]
        holes = self.holes_of(analysis) if analysis is not None and analysis.measured else []
        self._telemetry.set(
            span,
            {
                **(plan_attributes(plan) if plan is not None else {}),
                ATTR_PLAN_DIGEST: digest,
                ATTR_COMMANDS: len(commands),
                ATTR_HOLES: len(holes),
            },
        )
        await bus.publish(
            PlanReady,
            call_id,
            shell=is_shell,
            plan_digest=digest,
            plan=plan,
            sequence=sequence,
            commands=len(commands),
            holes=len(holes),
            effects=own,
            **ids,
        )
        self._remember(call, source, analysis, digest)
        if is_shell and source is None:
            verdict = Verdict(
                decision="decline", reason=_SHELL_FIELD_ERROR, digest=digest, call_id=call_id
            )
            return await self._conclude(verdict, ids, None)
        for ref, hole in holes:
            await bus.publish(HoleQuestion, call_id, ref=ref, hole=hole, **ids)
        request = ReviewRequest(
            kind="call",
            call=masked_call,
            digest=digest,
            plan=plan,
            positions=tuple(c.position for c in commands),
            holes=tuple(ref for ref, _ in holes),
            sequence=sequence,
            effects=own + (analysis.effects if analysis is not None else ()),
        )
        outcomes: list[tuple[HoleRef | None, _Outcome]] = [(None, await self._ask(request, ids))]
        if self.config.gateway.ask_holes:
            for ref, hole in holes:
                with self._telemetry.span(
                    SPAN_HOLE, {ATTR_QUESTION: f"{ref.statement}.{ref.heredoc}.{ref.hole}"}
                ):
                    question = msgspec.structs.replace(
                        request, kind="hole", question=ref, hole=hole
                    )
                    outcomes.append((ref, await self._ask(question, ids)))
        verdict = self._combine(outcomes, digest, call_id, plan, len(holes))
        return await self._conclude(verdict, ids, None)

    def _combine(
        self,
        outcomes: list[tuple[HoleRef | None, _Outcome]],
        digest: str,
        call_id: str | None,
        plan: ProgramPlan | None,
        holes: int = 0,
    ) -> Verdict:
        decision = strictest([outcome.decision for _, outcome in outcomes])
        ref, decisive = next((ref, o) for ref, o in outcomes if o.decision == decision)
        reason = decisive.reason
        if ref is not None:
            reason = f"Heredoc hole {ref.statement}.{ref.heredoc}.{ref.hole}: {reason}"
        if (
            decision == "ask"
            and decisive.approver is None
            and plan is not None
            and plan.status != "measured"
        ):
            reason = f"The command could not be read with confidence ({plan.reason}); a person must decide."
        # An allow a host may take instead of its own checks: a person allowed
        # the call and each of its holes, or the plan's facts alone carry it.
        founded = decision == "allow" and (
            all(outcome.decided_by is not None for _, outcome in outcomes)
            or plan_founded(plan, holes=holes)
        )
        return Verdict(
            decision=decision,
            reason=reason,
            digest=digest,
            approver=decisive.approver,
            rule=decisive.rule,
            call_id=call_id,
            founded=founded,
            decided_by=decisive.decided_by,
            policy=decisive.policy,
        )

    async def _conclude(
        self, verdict: Verdict, ids: dict[str, str | None], question: HoleRef | None
    ) -> Verdict:
        """Publish the verdict; release it only once required sinks have written it."""
        bus = self.bus
        event = await bus.publish(
            VerdictReached,
            verdict.call_id,
            verdict=verdict,
            question=question,
            mode=self._mode,
            **ids,
        )
        if not bus.required_sinks:
            return verdict
        writing = time.perf_counter()
        try:
            await bus.wait_written(event.seq, self.config.gateway.audit_timeout)
        except SinkFailure as failure:
            self._metrics.audit_written(time.perf_counter() - writing, written=False)
            if verdict.decision == "decline":
                return verdict
            declined = Verdict(
                decision="decline",
                reason=f"The audit record could not be written ({failure}), and there is no action without audit.",
                digest=verdict.digest,
                call_id=verdict.call_id,
            )
            with anyio.move_on_after(self.config.gateway.audit_timeout):
                await bus.publish(
                    VerdictReached,
                    verdict.call_id,
                    verdict=declined,
                    question=question,
                    mode=self._mode,
                    **ids,
                )
            return declined
        self._metrics.audit_written(time.perf_counter() - writing, written=True)
        return verdict

    def approver_timeout(self, approver: Approver) -> float:
        """
        The seconds an approver may take: its own ``timeout`` attribute when it
        has one (a person needs minutes, a rule set milliseconds), else the
        configured ``approver-timeout``. Always finite.
        """
        own = getattr(approver, "timeout", None)
        if isinstance(own, int | float) and not isinstance(own, bool) and 0 < own <= 86_400:
            return float(own)
        return self.config.gateway.approver_timeout

    async def _ask(self, request: ReviewRequest, ids: dict[str, str | None]) -> _Outcome:
        """
        Run the approver chain on one question: the first allow or decline decides.

        Each approver is told what the ones before it answered. A delegate's
        allow is held rather than final: the chain goes on asking only the
        policy approvers after it, and a decline among them decides; otherwise
        the held allow stands (a policy's allow decides as ever).
        """
        bus = self.bus
        call_id = request.call.call_id
        what = "the call" if request.kind == "call" else f"this {request.kind}"
        asked: _Outcome | None = None
        held: _Outcome | None = None
        earlier: list[EarlierAnswer] = []
        for approver, role in zip(self._approvers, self._roles, strict=True):
            if held is not None and role != "policy":
                continue
            name = str(getattr(approver, "name", type(approver).__name__))
            timeout = self.approver_timeout(approver)
            with self._telemetry.span(
                SPAN_APPROVE, {ATTR_APPROVER_NAME: name, ATTR_APPROVER_ROLE: role}
            ) as span:
                failure: str | None = None
                kind = "timeout"
                answer: Any = None
                late = f"Approver {name!r} did not answer within {timeout:g} s, and the gateway fails closed."
                asked_at = time.perf_counter()
                if role == "person":
                    self._metrics.waiting(+1)
                try:
                    with anyio.fail_after(timeout) as deadline:
                        answer = await approver.review(
                            msgspec.structs.replace(request, earlier=tuple(earlier))
                        )
                except TimeoutError:
                    failure = late
                except (Exception, SystemExit) as error:  # noqa: BLE001 -- the one boundary where plugin failures become declines
                    failure = f"Approver {name!r} failed ({type(error).__name__}), and the gateway fails closed."
                    kind = "exception"
                else:
                    if deadline.cancel_called:
                        # It swallowed the timeout's cancellation and answered
                        # anyway: an answer after the deadline never counts.
                        failure, kind = late, "late"
                    elif not isinstance(answer, Allow | Decline | Abstain):
                        failure = (
                            f"Approver {name!r} answered {type(answer).__name__!r}, not Allow, Decline or Abstain, "
                            "and the gateway fails closed."
                        )
                        kind = "wrong_type"
                    elif not _well_formed(answer):
                        failure = (
                            f"Approver {name!r} answered a malformed {type(answer).__name__} "
                            "(a field of the wrong type), and the gateway fails closed."
                        )
                        kind = "malformed"
                finally:
                    if role == "person":
                        self._metrics.waiting(-1)
                waited = time.perf_counter() - asked_at
                self._metrics.answered(
                    name,
                    role,
                    waited,
                    "decline" if failure is not None else answer.decision,
                    kind if failure is not None else None,
                )
                if failure is not None:
                    self._telemetry.error(span, failure, kind)
                    await bus.publish(
                        ApproverFailed,
                        call_id,
                        approver=name,
                        reason=failure,
                        question=request.question,
                        **ids,
                    )
                    return _Outcome("decline", failure, name, None)
                self._telemetry.set(span, answer_attributes(answer, role, waited))
                policy = getattr(approver, "policy_version", None)
                policy = policy if isinstance(policy, str) else None
                decided_by = answer.decided_by if not isinstance(answer, Abstain) else None
                note = None
                # A completed heredoc body fed to a shell is judged by its own
                # plan: when that could not be measured, neither could the call.
                unmeasured = (request.plan is not None and not request.measured) or (
                    request.body_plan is not None and request.body_plan.status != "measured"
                )
                if (
                    isinstance(answer, Allow)
                    and unmeasured
                    and not getattr(approver, "reviews_raw_text", False)
                ):
                    note = "An allow of a plan that could not be measured counts only from an approver that reviews raw text."
                await bus.publish(
                    ApproverDecided,
                    call_id,
                    approver=name,
                    decision=answer.decision,
                    reason=answer.reason,
                    rule=answer.rule,
                    question=request.question,
                    note=note,
                    decided_by=decided_by,
                    policy=policy,
                    **ids,
                )
                earlier.append(
                    EarlierAnswer(
                        approver=name,
                        decision=answer.decision,
                        reason=answer.reason,
                        rule=answer.rule,
                        note=note,
                    )
                )
                if (
                    isinstance(answer, Abstain)
                    and answer.reason
                    and (asked is None or role != "person")
                ):
                    # The last approver to say why it would not decide explains
                    # the ask, except a person's: their abstain only says that
                    # nobody could be asked, and the person the host asks next
                    # must be told the policy's reason.
                    asked = _Outcome("ask", answer.reason, None, answer.rule)
                if note is not None or isinstance(answer, Abstain):
                    continue
                reason = answer.reason.strip() or f"Approver {name!r} decided on {what}."
                if isinstance(answer, Allow) and role == "delegate":
                    held = _Outcome("allow", reason, name, answer.rule, decided_by, policy)
                    continue
                return _Outcome(answer.decision, reason, name, answer.rule, decided_by, policy)
        if held is not None:
            return held
        if asked is not None:
            return asked
        return _Outcome("ask", f"No approver decided on {what}; a person must decide.", None, None)

    # ── after the verdict ──

    def _remember(
        self, call: ToolCall, source: str | None, analysis: CallAnalysis | None, digest: str
    ) -> None:
        if call.call_id is None:
            return
        self._recent[call.call_id] = _Recent(call, source, analysis, digest)
        self._recent.move_to_end(call.call_id)
        while len(self._recent) > self.config.gateway.recent_calls:
            self._recent.popitem(last=False)

    async def answer(
        self, call_id: str, statement: int, heredoc: int, answers: Mapping[int, str]
    ) -> Verdict:
        """
        Hand back the output of holes the host ran, and review the completed heredoc body.

        The body is expanded with the answers (verbatim, trailing newlines
        removed, never re-scanned); if it is still blocked the verdict is
        ``ask``. A complete body is put to the approvers (kind ``body``, with a
        plan of it when the command reading it is a shell).

        Raises:
            KeyError: The gateway does not remember the call.
            RuntimeError: The gateway is not open.
        """
        verdict = await self._answer(call_id, statement, heredoc, answers)
        return self._deferred(verdict) if self._mode == "shadow" else verdict

    async def _answer(
        self, call_id: str, statement: int, heredoc: int, answers: Mapping[int, str]
    ) -> Verdict:
        bus = self.bus
        recent = self._recent[call_id]
        analysis = recent.analysis
        if recent.source is None or analysis is None:
            raise KeyError(call_id)
        with self._telemetry.span(SPAN_HOLE, {ATTR_TOOL_CALL_ID: call_id}) as span:
            trace_id, span_id = self._telemetry.ids(span)
            ids = {"trace_id": trace_id, "span_id": span_id}
            for index, text in sorted(answers.items()):
                ref = HoleRef(statement=statement, heredoc=heredoc, hole=index)
                await bus.publish(
                    HoleAnswered,
                    call_id,
                    ref=ref,
                    answer_digest=digest_of(text),
                    length=len(text),
                    **ids,
                )
            question = HoleRef(statement=statement, heredoc=heredoc, hole=-1)
            if not analysis.measured:
                verdict = Verdict(
                    decision="decline",
                    reason=analysis.plan.reason or "The source could not be read.",
                    digest=recent.digest,
                    call_id=call_id,
                )
                return await self._conclude(verdict, ids, question)
            try:
                # From the analysis kept for the call: nothing is read again.
                expansion = expand_planned(
                    recent.source,
                    analysis.fragments,
                    FragmentAddr(statement=statement, heredoc=heredoc),
                    {},
                    answers,
                    strict=False,
                )
            except FragmentError as error:
                verdict = Verdict(
                    decision="decline", reason=error.message, digest=recent.digest, call_id=call_id
                )
                return await self._conclude(verdict, ids, question)
            if expansion.complete is None:
                verdict = Verdict(
                    decision="ask",
                    reason="The heredoc body is still blocked by unanswered holes; a person must decide.",
                    digest=recent.digest,
                    call_id=call_id,
                )
                return await self._conclude(verdict, ids, question)
            body = expansion.complete
            body_plan = None
            statements = analysis.plan.statements
            reader = statements[statement].plan.commands if statement < len(statements) else ()
            owner = next((c for c in reader for h in c.heredocs if h.index == heredoc), None)
            if owner is not None and owner.position.runs_shell:
                body_plan = (await self.analyse(body, recent.call.cwd or "")).plan
            request = ReviewRequest(
                kind="body",
                call=mask_call(recent.call, recent.source),
                digest=recent.digest,
                plan=analysis.plan,
                question=question,
                body=Redactor(body).mask(0, len(body)),
                body_plan=body_plan,
            )
            outcome = await self._ask(request, ids)
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
            return await self._conclude(verdict, ids, question)

    async def record_outcome(
        self, call_id: str | None, outcome: str, detail: str | None = None
    ) -> None:
        """Record what happened when the host ran (or did not run) a call."""
        value = outcome if outcome in ("succeeded", "failed", "denied") else "unknown"
        bus = self.bus
        with self._telemetry.outcome(call_id, value) as span:
            trace_id, span_id = self._telemetry.ids(span)
            await bus.publish(
                CallOutcome,
                call_id,
                outcome=value,
                detail=None if detail is None else _short(mask_value(detail), 500),
                trace_id=trace_id,
                span_id=span_id,
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
        value = "allow" if decision == "allow" else "decline"
        who = by if by in ("person", "timeout", "failed", "nobody") else "failed"
        bus = self.bus
        with self._telemetry.host_decision(call_id, value, who, host) as span:
            trace_id, span_id = self._telemetry.ids(span)
            await bus.publish(
                HostDecided,
                call_id,
                decision=value,
                by=who,
                host=host,
                detail=None if detail is None else _short(mask_value(detail), 500),
                trace_id=trace_id,
                span_id=span_id,
            )
