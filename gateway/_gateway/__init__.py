"""
The Gateway: from a proposed tool call to a verdict, with events, approvers and traces.

An async context manager that owns everything it uses — its task group, event
bus, sinks, approvers, worker processes, reading cache and tracer — so two
gateways in one process never interfere. It works under asyncio and trio
(anyio).

`Gateway` is a thin façade: each of its nouns has a module of its own, and
they share one `Parts` (`_parts`: the configuration, workers, approver chain,
bus, traces and tally):

- `_lifecycle` builds the approvers, sinks and witnesses, opens them and the
  bus, and drains and closes them;
- `_stages` holds the stages of a review, `_deciding` what reaches a verdict
  afresh, `_readings` the reading of calls through the cache of identical
  ones, `_replay` the answers of identical calls given again (and the calls
  remembered by id), `_recording` the record of every verdict and of what
  follows it, `_answers` the heredoc bodies completed by a host's answers,
  `_statistics` the counters;
- `gateway._review` holds what needs no approver, record or trace: the door
  (`_intake`), admission, masking the user's request (`_masking`) and
  confinement (`_confining`).

For each call, `Gateway.review` runs four stages (`_stages`):

1. the door: the call is checked (`gateway._review._intake`) — anything a
   caller can build that is not a well-formed call is declined with one
   sentence — and its review span opened;
2. the verdict: an identical call's answer given again, or else the call is
   read — its shell text planned, its holes found, its secrets masked — in a
   worker process under a hard deadline (`gateway._work._bounded`), through
   a bounded cache of identical calls; ``call.proposed`` and ``plan.ready``
   are published with the digest every later decision is bound to, every hole
   of every unquoted heredoc is put to the approvers as its own question
   (``hole.question``), and the approver chain is asked about the call and
   each hole — each approver under its deadline, every failure a decline
   (`gateway._approvers`);
3. the record: the one ``verdict.reached`` record of the review is published,
   and the verdict released only once the required sinks have durably written
   it ("no audit, no action");
4. the end: the span, the metrics and the counters say the verdict.

One deadline bounds it all: ``[gateway] review-timeout``. The verdict is
reached twice ``audit-timeout`` before it, so its record (and, should that
fail, the decline's) can still be written in time. Nothing that fails — an
approver, a sink, a worker, the tracer, a cancellation — ever becomes an
allow, and no exception from a plugin escapes `review`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from anyio import AsyncContextManagerMixin
from anyio.abc import ObjectReceiveStream
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from gateway._approvers import Approver, resolve_approver
from gateway._calls._calls import ToolCall
from gateway._calls._confinement import Confinement, Confining
from gateway._calls._events import Event, HoleRef, RunChanged
from gateway._calls._plans import Hole, ProgramPlan, SequencePlan
from gateway._calls._verdicts import Verdict
from gateway._gateway._answers import Answers
from gateway._gateway._deciding import Decider
from gateway._gateway._lifecycle import Lifecycle
from gateway._gateway._parts import Parts, now
from gateway._gateway._readings import Readings
from gateway._gateway._recording import Recorder
from gateway._gateway._replay import Replays
from gateway._gateway._stages import Stages
from gateway._gateway._statistics import GatewayStatistics, statistics
from gateway._observe._metrics import Metrics
from gateway._observe._telemetry import Telemetry
from gateway._record._bus import EventBus
from gateway._record._sinks import Sink
from gateway._record._witness import Witness
from gateway._review._analysis import CallAnalysis
from gateway._review._confining import confinement
from gateway._review._masking import RequestMasks
from gateway._settings._config import GatewayConfig, ShellInput, ShellTool

__all__ = ["Gateway", "GatewayStatistics"]


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
        self._readings = readings = Readings(parts)
        self._cache = readings.cache
        masks = RequestMasks(parts.pool, self.config.gateway.plan_timeout)
        self._replays = replays = Replays(parts, readings, masks)
        self._recorder = recorder = Recorder(parts)
        decider = Decider(parts, readings, masks, replays)
        self._stages = Stages(parts, readings, replays, decider, recorder)
        self._answers = Answers(parts, readings, replays, recorder)

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
        chain = self._parts.chain
        for slot in chain.slots:
            if slot.approver is approver:
                return chain.timeout_of(slot)
        return chain.timeout_of(resolve_approver(approver))

    # ── reading ──

    def shell_source(self, call: ToolCall) -> ShellInput | None:
        """
        A shell tool's command as one shell text, the directory it runs in, and what else its input says.

        ``None`` when the call's tool is not a shell (`ShellTool.read`).
        """
        return self._readings.shell_source(call)

    def shell_tool(self, call: ToolCall) -> ShellTool | None:
        """The first ``[[shell-tools]]`` entry whose name or pattern covers the call's tool."""
        return self._readings.shell_tool(call)

    async def analyse(self, source: str, cwd: str = "") -> CallAnalysis:
        """
        The `CallAnalysis` of a shell text run in ``cwd`` (as the first of ``[[shell-tools]]``).

        Read once, in a worker under ``plan-timeout``, through the cache of
        identical calls.

        Raises:
            GatewayError: The text could not be read in time, or is not a text a call may carry.
        """
        return await self._readings.analyse(source, cwd)

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
        stages = self._stages
        review = stages.open(call)  # raises when the gateway is not open
        try:
            verdict = await stages.decide(review, confining)
            verdict = await stages.record(review, verdict)
        except BaseException as error:  # noqa: BLE001 -- failed records it, and re-raises what must go on
            verdict = await stages.failed(error, review)
        return stages.close(review, verdict)

    def confinement(self, call: ToolCall, profile: str) -> Confinement | str:
        """
        The boundary of a profile for one call, or why the call cannot be confined (a clause).

        Resolved against the call's working directory, the home directory
        (``[paths] home``, else ``HOME``) and this process's ``PATH``; the gateway's own secret files are hidden,
        and the files its sinks and witnesses write are kept read-only, as are
        the hooks directory and git directory the workspace's repository
        really uses (`gateway.git.persistence_points`: bounded reads of git's
        configuration files).
        """
        return confinement(self.config, call, profile)

    # ── after the verdict ──

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
        return await self._answers.answer(call_id, statement, heredoc, answers)

    async def record_outcome(
        self, call_id: str | None, outcome: str, detail: str | None = None
    ) -> None:
        """Record what happened when the host ran (or did not run) a call."""
        await self._recorder.outcome(call_id, outcome, detail)

    async def record_changes(self, call_id: str | None, changes: RunChanged) -> None:
        """Record what a confined run of a call changed in its writable roots (``run.changed``)."""
        await self._recorder.changes(call_id, changes)

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
        await self._recorder.decision(call_id, decision, by=by, host=host, detail=detail)
