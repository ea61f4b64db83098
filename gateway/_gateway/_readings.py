"""
Reading calls: each once, in a bounded worker, through a cache of identical calls.

`Readings.prepare` gives a call's `Prepared` reading — its plan, holes,
effects and masked input, and what follows from them (its digest) — from the
cache when an identical call was read, else from a worker under the review's
deadline, once the call is admitted (`gateway._review._admission`).
Identical calls that arrive together wait for the one being read.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import TYPE_CHECKING, NamedTuple

import anyio

from gateway._approvers import Memo
from gateway._calls._calls import ToolCall
from gateway._calls._digest import digest_of
from gateway._calls._effects import Effect
from gateway._calls._errors import GatewayError
from gateway._calls._events import HoleRef
from gateway._calls._plans import Hole, ProgramPlan
from gateway._gateway._parts import Parts
from gateway._observe._telemetry import unmeasured_kind
from gateway._review._admission import worker_timeout
from gateway._review._analysis import CallAnalysis
from gateway._review._intake import Admitted, admit
from gateway._review._reading import CallReading, CallText, read_call
from gateway._settings._config import ShellInput, ShellTool
from gateway._work._bounded import BoundedFailure

if TYPE_CHECKING:
    from gateway._gateway._replay import Replay

__all__ = ["Busy", "Prepared", "Readings", "Situation", "count_unmeasured"]

Situation = tuple[str | None, str | None, str | None, str | None]
"""Who asks, as an answer may depend on it: the session, agent, host and masked user request."""


class Prepared:
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
        self.memo: dict[Situation, Memo] = {}
        self.replays: dict[Situation, Replay] = {}
        self.masked = reading.input
        self.secrets = reading.secrets
        self.start = reading.start


class Busy(NamedTuple):
    """A call not read because the gateway is busy (`Admission`), and why."""

    reason: str


def count_unmeasured(parts: Parts, plan: ProgramPlan | None) -> None:
    """Count a shell call the gateway could not measure, by why."""
    if plan is not None and plan.status != "measured":
        parts.metrics.unmeasured(unmeasured_kind(plan.reason))


def _home_directory() -> str | None:
    """This process's home directory, when it has a usable one (``$HOME``, absolute, not ``/``)."""
    home = os.path.expanduser("~")
    return home if home.startswith("/") and home.rstrip("/") else None


class Readings:
    """
    The readings of one gateway's calls, and the cache of identical calls they are kept in.

    Attributes:
        cache: The readings of recent calls, by their door key (`Admitted.key`),
            at most ``[gateway] plan-cache-size``, the least recently used first out.
        home: The home directory paths are classified against: configured, or this process's.
    """

    def __init__(self, parts: Parts) -> None:
        self._parts = parts
        self.cache: OrderedDict[tuple[str, bytes, str], Prepared] = OrderedDict()
        self._reading: dict[tuple[str, bytes, str], anyio.Event] = {}
        self.home = parts.config.paths.home or _home_directory()

    def shell_source(self, call: ToolCall) -> ShellInput | None:
        """The call's shell input, or ``None`` for a tool that is not a shell: `Gateway.shell_source`."""
        tool = self.shell_tool(call)
        return None if tool is None else tool.read(call.tool, call.input, call.cwd)

    def shell_tool(self, call: ToolCall) -> ShellTool | None:
        """The call's ``[[shell-tools]]`` entry: `Gateway.shell_tool`."""
        return next(
            (tool for tool in self._parts.config.shell_tools if tool.matches(call.tool)), None
        )

    async def prepare(
        self, admitted: Admitted, deadline: float
    ) -> Prepared | BoundedFailure | Busy:
        """
        The call's reading: from the cache of identical calls, or from a worker under its deadline.

        A reading afresh must be admitted first (`Admission`): when the gateway
        cannot read it within ``[gateway] admission-wait``, nothing is read.
        """
        parts = self._parts
        key = admitted.key
        call = admitted.call
        while True:
            cached = self.cache.get(key)
            if cached is not None and cached.input == call.input:
                self.cache.move_to_end(key)
                parts.counts.hits += 1
                return cached
            # Identical calls that arrive together (an agent retrying, a burst
            # of `git status`) wait for the one being read instead of each
            # sending the same text to a worker.
            pending = self._reading.get(key)
            if pending is None:
                break
            await pending.wait()
        admission = parts.admission
        if not admission.enter():
            return Busy(admission.busy_reason())
        parts.counts.misses += 1
        shell_input = self.shell_source(call)
        is_shell = shell_input is not None
        source = shell_input.text if shell_input is not None else None
        shell = self.shell_tool(call)
        config = parts.config
        done = self._reading[key] = anyio.Event()
        try:
            reading = await parts.pool.run(
                read_call,
                CallText(
                    tool=call.tool,
                    input=call.input,
                    source=source,
                    is_shell=is_shell,
                    cwd=call.cwd,
                    start=shell_input.directory if shell_input is not None else None,
                    refusal=shell_input.refusal if shell_input is not None else None,
                    paths=config.paths,
                    home=self.home,
                    rows=config.tool_effects,
                    dialect=shell.dialect if shell is not None else "bash",
                    programs=config.programs,
                ),
                timeout=worker_timeout(config.gateway.plan_timeout, deadline),
            )
            if isinstance(reading, BoundedFailure):
                return reading
            prepared = Prepared(call, is_shell=is_shell, source=source, reading=reading)
            self.cache[key] = prepared
            while len(self.cache) > config.gateway.plan_cache_size:
                self.cache.popitem(last=False)
        finally:
            admission.leave()
            del self._reading[key]
            done.set()
        return prepared

    async def analyse(self, source: str, cwd: str = "") -> CallAnalysis:
        """A shell text's `CallAnalysis`, read through the cache: `Gateway.analyse`."""
        config = self._parts.config
        tool = config.shell_tools[0] if config.shell_tools else None
        name = tool.tool if tool is not None and not any(c in tool.tool for c in "*?[") else "Bash"
        field = tool.fields[0].split(".")[0] if tool is not None else "command"
        admitted = admit(ToolCall(name, {field: source}, cwd=cwd or None))
        if isinstance(admitted, str):
            raise GatewayError(f"The text cannot be read: {admitted}.")
        deadline = anyio.current_time() + config.gateway.plan_timeout
        prepared = await self.prepare(admitted, deadline)
        if isinstance(prepared, Busy):
            raise GatewayError(prepared.reason)
        if isinstance(prepared, BoundedFailure):
            raise GatewayError(f"The text could not be read ({prepared.reason}).")
        if prepared.analysis is None:  # pragma: no cover - read as a shell tool's command
            raise GatewayError("The text was not read as shell.")
        return prepared.analysis
