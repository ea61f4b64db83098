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
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime
from functools import lru_cache, partial
from typing import Any, Final, Literal, NamedTuple, TypeVar, cast

import anyio
import msgspec
from anyio import AsyncContextManagerMixin
from anyio.abc import ObjectReceiveStream
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from gateway._approvers import (
    Approver,
    ApproverChain,
    ApproverContext,
    Memo,
    Outcome,
    Record,
    ReviewRequest,
    caller_cancelled,
    combine,
    load_approver,
    resolve_approver,
)
from gateway._calls._calls import ToolCall
from gateway._calls._confinement import Confinement, Confining
from gateway._calls._digest import digest_of
from gateway._calls._effects import PLAN_FORMAT, Effect
from gateway._calls._errors import ConfigError, GatewayError, SinkFailure
from gateway._calls._events import (
    GENESIS,
    CallOutcome,
    CallProposed,
    ChainCheckpoint,
    ChainGenesis,
    Event,
    GatewayStarted,
    GatewayStopped,
    HoleAnswered,
    HoleQuestion,
    HoleRef,
    HostDecided,
    LogRecovered,
    PlanReady,
    RunChanged,
    VerdictReached,
    VerdictWithdrawn,
    WitnessFailed,
)
from gateway._calls._plans import Hole, ProgramPlan, SequencePlan
from gateway._calls._text import shorten
from gateway._calls._verdicts import DECISION_VERBS, Verdict, as_ask, unconfined
from gateway._calls._version import VERSION
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
from gateway._programs._git_trust import persistence_points
from gateway._record._bus import EventBus
from gateway._record._signing import ensure_key, load_signer
from gateway._record._sinks import ChainTip, Sink, SinkSlot, load_sink, resolve_sink
from gateway._record._witness import Witness, load_witness
from gateway._review._admission import Admission
from gateway._review._analysis import CallAnalysis
from gateway._review._boundary import resolve_confinement
from gateway._review._intake import Admitted, admit, refused_call_id
from gateway._review._reading import (
    BodyText,
    CallReading,
    CallText,
    MaskText,
    mask_request,
    mask_value,
    read_body,
    read_call,
)
from gateway._settings._config import (
    GatewayConfig,
    Mode,
    ShellInput,
    ShellTool,
    secret_files,
    state_path,
)
from gateway._work._bounded import BoundedFailure, BoundedPool, cpu_account, cpu_left
from gateway._work._isolation import LoopThread, call_isolated

__all__ = ["Gateway", "GatewayStatistics"]

T = TypeVar("T")

_SHELL_FIELD_ERROR: Final = "The command of a shell tool must be a string or a list of strings."
_MIB: Final = 1024 * 1024
_PRELOAD: Final = ("gateway._review._reading:warm_up",)
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


class GatewayStatistics(msgspec.Struct, frozen=True, kw_only=True):
    """
    Counters for monitoring a gateway.

    Attributes:
        reviews: Reviews started.
        allowed: Verdicts ``allow`` released.
        asked: Verdicts ``ask`` released.
        declined: Verdicts ``decline`` released.
        plan_cache_hits: Calls read from the cache of identical calls.
        plan_cache_misses: Calls read afresh (in a worker).
        events: Events published.
        failed_sinks: Sinks that failed.
        halted: Why the gateway releases no verdict but decline, if it does not.
        workers_killed: Workers killed for overrunning their deadline (or dying).
        checkpoints: Signed checkpoints published.
        busy: Calls declined at once because the gateway could not read them
            within ``[gateway] admission-wait``.
    """

    reviews: int
    allowed: int
    asked: int
    declined: int
    plan_cache_hits: int
    plan_cache_misses: int
    events: int
    failed_sinks: tuple[str, ...]
    halted: str | None = None
    workers_killed: int = 0
    checkpoints: int = 0
    busy: int = 0


class _Counts:
    __slots__ = ("allow", "ask", "decline", "hits", "misses", "reviews")

    def __init__(self) -> None:
        self.reviews = self.allow = self.ask = self.decline = self.hits = self.misses = 0

    def count(self, verdict: Verdict) -> None:
        decision = verdict.decision
        if decision == "allow":
            self.allow += 1
        elif decision == "ask":
            self.ask += 1
        else:
            self.decline += 1


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
        "start",
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
        self.start = reading.start


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


@lru_cache(maxsize=2)
def _second(seconds: int) -> str:
    """``YYYY-MM-DDTHH:MM:SS`` of a whole second since the epoch, in UTC, as `datetime.isoformat` writes it."""
    return datetime.fromtimestamp(seconds, UTC).isoformat()[:19]


def _now() -> str:
    """
    The UTC time now, to the microsecond, as ``datetime.now(UTC).isoformat(timespec="microseconds")`` writes it.

    Every event is stamped with it, so it is built from the clock's
    microseconds and the text of the current second, made once a second:
    `datetime.now` with a time zone costs three times as much.
    """
    seconds, micro = divmod(time.time_ns() // 1000, 1_000_000)
    return f"{_second(seconds)}.{micro:06d}+00:00"


async def _on_loop_of(thread: LoopThread | None, function: Callable[[], Awaitable[T]]) -> T:
    """Await ``function()`` on ``thread``'s loop (or here, without one); what it raises is raised."""
    if thread is None:
        return await function()
    outcome = await call_isolated(thread, function)
    if outcome.error is not None:
        raise outcome.error
    return cast("T", outcome.value)


def _home_directory() -> str | None:
    """This process's home directory, when it has a usable one (``$HOME``, absolute, not ``/``)."""
    home = os.path.expanduser("~")
    return home if home.startswith("/") and home.rstrip("/") else None


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
        section = self.config.gateway
        self._given_approvers = approvers
        self._given_sinks = sinks
        self._given_witnesses = witnesses
        self._telemetry = Telemetry(tracer_provider, remember=self.config.gateway.recent_calls)
        self._metrics = Metrics(meter_provider)
        self._clock = clock or _now
        self.services: dict[str, Any] = {}
        self._pool = BoundedPool(
            workers=section.workers, memory=section.worker_memory * _MIB, preload=_PRELOAD
        )
        self._chain = ApproverChain(
            (),
            approver_timeout=section.approver_timeout,
            telemetry=self._telemetry,
            metrics=self._metrics,
        )
        self._bus: EventBus | None = None
        self._sinks: dict[str, Sink] = {}
        self._cache: OrderedDict[tuple[str, bytes, str], _Prepared] = OrderedDict()
        self._reading: dict[tuple[str, bytes, str], anyio.Event] = {}
        self._admission = Admission(wait=section.admission_wait, parallel=section.workers)
        # The home directory paths are classified against: configured, or this process's.
        self._home = self.config.paths.home or _home_directory()
        self._recent: OrderedDict[str, _Recent] = OrderedDict()
        self._requests: OrderedDict[tuple[str, tuple[tuple[str, str], ...]], str] = OrderedDict()
        self._counts = _Counts()
        self._open = False

    # ── lifecycle ──

    def _build_approvers(self) -> ApproverChain:
        section = self.config.gateway
        if self._given_approvers is not None:
            approvers = list(self._given_approvers)
        else:
            context = ApproverContext(
                config=self.config, services=self.services, bounded=self._pool
            )
            approvers = [
                load_approver(name, self.config.approver.get(name, {}), context)
                for name in section.approvers
            ]
        return ApproverChain(
            [resolve_approver(approver) for approver in approvers],
            approver_timeout=section.approver_timeout,
            telemetry=self._telemetry,
            metrics=self._metrics,
        )

    def _build_sinks(self) -> list[SinkSlot]:
        if self._given_sinks is not None:
            return [
                resolve_sink(name, sink, required=True) for name, sink in self._given_sinks.items()
            ]
        return [
            resolve_sink(name, load_sink(name, sink), required=sink.required)
            for name, sink in self.config.sinks.items()
        ]

    def _build_witnesses(self) -> list[tuple[str, Witness]]:
        if self._given_witnesses is not None:
            return list(self._given_witnesses.items())
        return [(name, load_witness(name, w)) for name, w in self.config.witnesses.items()]

    @asynccontextmanager
    async def __asynccontextmanager__(self) -> AsyncIterator[Gateway]:
        audit = self.config.audit
        signing_key, hmac_key = audit.signing_key_path, audit.hmac_key_path
        if signing_key is not None and audit.create_key:
            ensure_key(signing_key)
        signer = load_signer(
            signing_key=None if signing_key is None else str(signing_key),
            hmac_key=None if hmac_key is None else str(hmac_key),
        )
        self._chain = self._build_approvers()
        slots = self._build_sinks()
        self._sinks = {slot.name: slot.sink for slot in slots}
        witnesses = self._build_witnesses()
        opened: list[SinkSlot] = []
        # A sink that may block runs on a loop of its own: opened, written and
        # closed there, so what it opens (a connection) belongs to the loop that uses it.
        threads = {slot.name: LoopThread(slot.name) for slot in slots if not slot.shares_loop}
        witness_threads = {
            name: LoopThread(name)
            for name, witness in witnesses
            if getattr(witness, "shares_loop", False) is not True
        }
        try:
            tips: list[tuple[SinkSlot, ChainTip]] = []
            for slot in slots:
                tip = await _on_loop_of(threads.get(slot.name), slot.sink.open)
                opened.append(slot)
                if tip is not None:
                    tips.append((slot, tip))
            required = [tip for slot, tip in tips if slot.required] or [tip for _, tip in tips]
            start_seq, previous, genesis = 0, GENESIS, None
            if required:
                last = max(required, key=lambda tip: tip.seq)
                start_seq, previous, genesis = last.seq + 1, last.digest, last.genesis
            bus = EventBus(
                clock=self._clock,
                buffer=self.config.gateway.event_buffer,
                sink_timeout=self.config.gateway.audit_timeout,
                start_seq=start_seq,
                previous=previous,
                genesis=genesis,
                signer=signer,
                checkpoint_every=audit.checkpoint_every,
                checkpoint_interval=audit.checkpoint_interval,
            )
            for slot in slots:
                bus.add_sink(slot, threads.get(slot.name))
            send, receive = anyio.create_memory_object_stream[ChainGenesis | ChainCheckpoint](1024)
            self._witnessed = anyio.Event()
            self._witness_pending = 0
            self._witness_drained = anyio.Event()
            if witnesses:

                def attested(record: ChainGenesis | ChainCheckpoint) -> None:
                    with suppress(
                        anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError
                    ):
                        send.send_nowait(record)
                        self._witness_pending += 1

                bus.on_attested(attested)
            else:
                send.close()
                receive.close()
            self._bus = bus
            self._chain.start()
            async with anyio.create_task_group() as task_group:
                bus.start(task_group)
                if witnesses:
                    task_group.start_soon(self._witness, witnesses, witness_threads, receive)
                if not required:
                    await bus.publish(
                        ChainGenesis(
                            chain=uuid.uuid4().hex,
                            algorithm=signer.algorithm if signer is not None else "none",
                            key=signer.key_id if signer is not None else None,
                        )
                    )
                await bus.publish(
                    GatewayStarted(
                        version=VERSION,
                        plan_format=PLAN_FORMAT,
                        config_digest=digest_of(self.config),
                        approvers=self._chain.names,
                        sinks=tuple(slot.name for slot in slots),
                    )
                )
                for slot, tip in tips:
                    if tip.recovery is not None:
                        await bus.publish(
                            LogRecovered(
                                sink=slot.name,
                                found=tip.recovery.found,
                                torn_bytes=tip.recovery.torn_bytes,
                                set_aside=tip.recovery.set_aside,
                                last_seq=tip.seq,
                            )
                        )
                self._open = True
                try:
                    yield self
                finally:
                    self._open = False
                    with anyio.CancelScope(shield=True):
                        if witnesses:
                            # A witness's failure belongs in the chain it failed for, before
                            # the record that ends it: let them finish what they were handed.
                            with anyio.move_on_after(self.config.gateway.audit_timeout):
                                while self._witness_pending and not self._witnessed.is_set():
                                    self._witness_drained = anyio.Event()
                                    await self._witness_drained.wait()
                        with anyio.move_on_after(self.config.gateway.audit_timeout):
                            await bus.publish(GatewayStopped(events=bus.statistics().published + 1))
                            bus.checkpoint(final=True)
                        await bus.close()
                        send.close()
                        if witnesses:
                            with anyio.move_on_after(self.config.gateway.audit_timeout):
                                await self._witnessed.wait()
                    task_group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                # Closing a plugin must not hide the error that ended the gateway.
                for slot in opened:
                    with (
                        anyio.move_on_after(self.config.gateway.audit_timeout),
                        suppress(Exception),
                    ):
                        await _on_loop_of(threads.get(slot.name), slot.sink.aclose)
                for thread in (*threads.values(), *witness_threads.values()):
                    thread.close()
                for name, witness in witnesses:
                    with (
                        anyio.move_on_after(self.config.gateway.audit_timeout),
                        suppress(Exception),
                    ):
                        await _on_loop_of(threads.get(name), witness.aclose)
                await self._chain.aclose(self.config.gateway.approver_timeout)
                await self._pool.aclose()

    _witnessed: anyio.Event
    _witness_pending: int
    """Genesis and checkpoint records handed to the witnesses and not yet attested by all."""
    _witness_drained: anyio.Event
    """Set when `_witness_pending` falls to zero."""

    async def _witness(
        self,
        witnesses: list[tuple[str, Witness]],
        threads: Mapping[str, LoopThread],
        records: ObjectReceiveStream[ChainGenesis | ChainCheckpoint],
    ) -> None:
        """Hand every genesis and checkpoint to every witness, in order, each bounded; record failures."""
        timeout = self.config.gateway.audit_timeout
        try:
            async with records:
                async for record in records:
                    for name, witness in witnesses:
                        reason: str | None = None
                        with anyio.move_on_after(timeout) as scope:
                            try:
                                await _on_loop_of(
                                    threads.get(name), partial(witness.attest, record)
                                )
                            except Exception as error:  # noqa: BLE001 -- a witness's failure is recorded, never raised
                                reason = f"it failed ({type(error).__name__}: {shorten(str(error), 200)})"
                        if scope.cancelled_caught:
                            reason = f"it did not answer within {timeout:g} s"
                        if reason is not None and self._bus is not None:
                            self._bus.publish_nowait(
                                WitnessFailed(witness=name, checkpoint=record.seq, reason=reason)
                            )
                    self._witness_pending -= 1
                    if not self._witness_pending:
                        self._witness_drained.set()
        finally:
            self._witnessed.set()
            self._witness_drained.set()

    @property
    def sinks(self) -> Mapping[str, Sink]:
        """The gateway's sinks by name, as built (empty before it opens)."""
        return dict(self._sinks)

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
        counts = self._counts
        return GatewayStatistics(
            reviews=counts.reviews,
            allowed=counts.allow,
            asked=counts.ask,
            declined=counts.decline,
            plan_cache_hits=counts.hits,
            plan_cache_misses=counts.misses,
            events=0 if bus is None else bus.published,
            failed_sinks=() if bus is None else bus.failed_sinks,
            halted=None if self._bus is None else self._bus.halted,
            workers_killed=self._pool.statistics().killed,
            checkpoints=0 if bus is None else bus.checkpoints,
            busy=self._admission.refused,
        )

    def approver_timeout(self, approver: Approver) -> float:
        """
        The seconds an approver may take: its own ``timeout`` attribute when it
        has one (a person needs minutes, a rule set milliseconds), else the
        configured ``approver-timeout``. Always finite, and always cut short by
        the review's own deadline.
        """
        for slot in self._chain.slots:
            if slot.approver is approver:
                return self._chain.timeout_of(slot)
        return self._chain.timeout_of(resolve_approver(approver))

    # ── reading ──

    def shell_source(self, call: ToolCall) -> ShellInput | None:
        """
        A shell tool's command as one shell text, the directory it runs in, and what else its input says.

        ``None`` when the call's tool is not a shell (`ShellTool.read`).
        """
        tool = self.shell_tool(call)
        return None if tool is None else tool.read(call.tool, call.input, call.cwd)

    def _remaining(self, deadline: float) -> float:
        return max(0.0, deadline - anyio.current_time())

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
                self._counts.hits += 1
                return cached
            # Identical calls that arrive together (an agent retrying, a burst
            # of `git status`) wait for the one being read instead of each
            # sending the same text to a worker.
            pending = self._reading.get(key)
            if pending is None:
                break
            await pending.wait()
        admission = self._admission
        if not admission.enter():
            return _Busy(admission.busy_reason())
        self._counts.misses += 1
        shell_input = self.shell_source(call)
        is_shell = shell_input is not None
        source = shell_input.text if shell_input is not None else None
        shell = self.shell_tool(call)
        done = self._reading[key] = anyio.Event()
        try:
            timeout = min(self.config.gateway.plan_timeout, self._remaining(deadline))
            reading = await self._pool.run(
                read_call,
                CallText(
                    tool=call.tool,
                    input=call.input,
                    source=source,
                    is_shell=is_shell,
                    cwd=call.cwd,
                    start=shell_input.directory if shell_input is not None else None,
                    refusal=shell_input.refusal if shell_input is not None else None,
                    paths=self.config.paths,
                    home=self._home,
                    rows=self.config.tool_effects,
                    dialect=shell.dialect if shell is not None else "bash",
                    programs=self.config.programs,
                ),
                timeout=max(timeout, 0.001),
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
        self._counts.reviews += 1
        admitted = admit(call, self._cache)
        tool = getattr(call, "tool", None)
        started = time.perf_counter()
        telemetry = self._telemetry
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
        metrics = self._metrics
        if not metrics.quiet:
            metrics.reviewed(
                time.perf_counter() - started,
                verdict.decision,
                verdict.rule,
                verdict.approver,
                mode,
            )
        self._counts.count(verdict)
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
        config = self.config
        try:
            section = config.profile(profile).confinement
        except ConfigError as error:
            return f"its profile is not defined ({error})"
        environ = os.environ
        found = resolve_confinement(
            profile,
            section,
            cwd=call.cwd,
            home=config.paths.home or environ.get("HOME"),
            paths=config.paths,
            search_path=environ.get("PATH"),
            secret_files=secret_files(config, environ),
        )
        if isinstance(found, str):
            return found
        # What keeps the record (the logs, a file witness's copy of their
        # checkpoints) stays read-only wherever it lies.
        own = tuple(
            str(state_path(path))
            for path in (
                *(sink.path for sink in config.sinks.values()),
                *(witness.path for witness in config.witnesses.values()),
            )
            if path is not None
        )
        # Where the workspace's repository really keeps its hooks and
        # configuration (`core.hooksPath`, a `.git` file's git directory).
        points = persistence_points((*found.workspace, *found.write), environ=environ)
        if points.unknown is not None:
            return f"where its repository keeps its hooks is not known: {points.unknown}"
        protect = (*found.protect, *own, *points.patterns)
        return msgspec.structs.replace(found, protect=tuple(dict.fromkeys(protect)))

    def _confined(self, verdict: Verdict, call: ToolCall, confining: Confining | None) -> Verdict:
        """An allow as the caller can run it: inside its boundary, or an ask that says why not."""
        if verdict.decision != "allow":
            return verdict
        needed = verdict.boundary
        if confining is None:
            if needed is None:
                return verdict
            why = "this caller runs nothing inside a boundary (`gateway run` does)"
        elif confining.unavailable is not None:
            why = f"it is not confinable here: {confining.unavailable}"
        else:
            found = needed if needed is not None else self.confinement(call, confining.profile)
            if isinstance(found, Confinement):
                return msgspec.structs.replace(verdict, confinement=found)
            why = f"it cannot be confined: {found}"
        return unconfined(verdict, why, needed=needed is not None)

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
        return self.config.gateway.mode

    @staticmethod
    def _deferred(verdict: Verdict) -> Verdict:
        """What shadow mode returns: the host decides; the verdict it would have had is recorded."""
        would = DECISION_VERBS[verdict.decision].lower()
        return as_ask(
            verdict,
            f"Shadow mode: the gateway would have {would} this call ({verdict.reason.rstrip('.')}); the host decides.",
            defer=True,
        )

    def _count_unmeasured(self, plan: ProgramPlan | None) -> None:
        """Count a shell call the gateway could not measure, by why."""
        if plan is not None and plan.status != "measured":
            self._metrics.unmeasured(unmeasured_kind(plan.reason))

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
            user_request = self._requests.get((call.user_request, prepared.secrets))
            if user_request is None:
                return None
        replay = prepared.replays.get((call.session_id, call.agent_id, call.host, user_request))
        if replay is None or replay.generations != self._chain.generations():
            return None
        self._cache.move_to_end(admitted.key)
        self._counts.hits += 1
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
            self._requests.get((call.user_request, prepared.secrets))
            if call.user_request is not None
            else None,
        )
        self._telemetry.set(span, replay.attributes)
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
        self._telemetry.error(span, type(error).__name__, type(error).__name__)
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
            with self._telemetry.span(SPAN_PLAN) as plan_span:
                prepared = await self._prepare(admitted, deadline)
                if isinstance(prepared, BoundedFailure):
                    self._telemetry.error(plan_span, prepared.reason, prepared.kind)
                elif isinstance(prepared, _Busy):
                    self._telemetry.error(plan_span, prepared.reason, "busy")
                elif prepared.plan is not None:
                    self._telemetry.set(plan_span, plan_attributes(prepared.plan))
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
            user_request=await self._mask_request(call.user_request, prepared.secrets, deadline),
        )
        self._count_unmeasured(plan)
        attributes: dict[str, str | int | bool | None] = {
            **(plan_attributes(plan) if plan is not None else {}),
            ATTR_PLAN_DIGEST: prepared.digest,
            ATTR_COMMANDS: prepared.commands,
            ATTR_HOLES: len(holes),
        }
        self._telemetry.set(span, attributes)
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
        generations = self._chain.generations()
        ask = self._chain.ask
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
                with self._telemetry.span(
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
        if record.replayable and generations == self._chain.generations():
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
            self._metrics.audit_written(time.perf_counter() - writing, written=False)
            if verdict.decision == "decline":
                return verdict
            declined = self._decline(
                state,
                f"The audit record could not be written ({failure}), and there is no action without audit.",
            )
            await self._end(state, declined.reason)
            return declined
        self._metrics.audit_written(time.perf_counter() - writing, written=True)
        return verdict

    # ── after the verdict ──

    async def _mask_request(
        self, text: str | None, known: tuple[tuple[str, str], ...], deadline: float
    ) -> str | None:
        """
        The user's request as approvers may see it: every secret masked (in a worker, cached).

        A request that cannot be masked in time is left out rather than shown.
        """
        if text is None:
            return None
        key = (text, known)
        masked = self._requests.get(key)
        if masked is not None:
            self._requests.move_to_end(key)
            return masked
        timeout = max(min(self.config.gateway.plan_timeout, self._remaining(deadline)), 0.001)
        result = await self._pool.run(
            mask_request, MaskText(text=text, known=known), timeout=timeout
        )
        if isinstance(result, BoundedFailure):
            return None
        self._requests[key] = result
        while len(self._requests) > 256:
            self._requests.popitem(last=False)
        return result

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
        with self._telemetry.span(SPAN_HOLE, {ATTR_TOOL_CALL_ID: call_id}) as span:
            trace_id, span_id = self._telemetry.ids(span)
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
        reading = await self._pool.run(
            read_body,
            BodyText(
                source=recent.source,
                fragments=analysis.fragments,
                statement=question.statement,
                heredoc=question.heredoc,
                answers=valid,
                shell=owner is not None and owner.position.runs_shell,
                cwd=recent.call.cwd,
                start=recent.prepared.start,
                paths=self.config.paths,
                home=self._home,
                programs=self.config.programs,
            ),
            timeout=max(min(self.config.gateway.plan_timeout, self._remaining(deadline)), 0.001),
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
        outcome = await self._chain.ask(request, bus=bus, ids=ids, deadline=deadline)
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
        with self._telemetry.outcome(call_id, value) as span:
            trace_id, span_id = self._telemetry.ids(span)
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
        with self._telemetry.host_decision(call_id, value, who, named) as span:
            trace_id, span_id = self._telemetry.ids(span)
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
