"""
Sinks: where events go. The protocol, its optional members, and loading by entry point.

A sink is built from its `SinkConfig` by the factory its plugin registers in
the ``gateway.sinks`` entry-point group; only sinks the config names are
loaded. The optional members a sink may have are declared on `Sink` and read
once, when it is loaded (`resolve_sink`), never probed per event. The audit
log's formats and reading live in `gateway._record._auditlog`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from gateway._calls._errors import PluginLoadError
from gateway._calls._events import Event
from gateway._settings._config import SinkConfig
from gateway._settings._plugins import SINK_GROUP, build_plugin, installed as installed

__all__ = [
    "AuditSource",
    "ChainTip",
    "Recovery",
    "Sink",
    "SinkSlot",
    "installed",
    "load_sink",
    "resolve_sink",
]


class Recovery(NamedTuple):
    """
    What a sink found when it opened a log that did not end cleanly.

    Attributes:
        found: One sentence: how the log ended and what the sink did about it.
        torn_bytes: Bytes after the last whole record.
        set_aside: Where those bytes were moved.
    """

    found: str
    torn_bytes: int = 0
    set_aside: str | None = None


class ChainTip(NamedTuple):
    """
    The last event a sink already holds: the chain continues after it.

    Attributes:
        seq: Its sequence number.
        digest: Its digest.
        genesis: The digest of the first record of the chain it holds, which
            later checkpoints name.
        recovery: What the sink found, when the log did not end cleanly.
    """

    seq: int
    digest: str
    genesis: str | None = None
    recovery: Recovery | None = None


@runtime_checkable
class Sink(Protocol):
    """
    Where a gateway's events are written.

    `open` is called once before any event and returns the tip of a chain the
    sink already holds (an existing audit log), so a restarted gateway continues
    it. `write` returns only when the event is durably written — written and
    flushed — because a required sink's write is what releases a verdict.
    `aclose` is called once at the end.

    Optional members, read once when the sink is loaded (see `resolve_sink`):

    * ``write_batch(events)``, async: write several events at once, durably,
      in order (one flush for all); used instead of `write` when present.
    * ``fence(keep_through: int)``: the gateway stopped waiting for this sink
      (it failed, or stayed blocked past the audit timeout). Records after
      sequence number ``keep_through`` (the last it confirmed in time, or the
      one before a verdict whose withdrawal it never confirmed) may now
      disagree with what callers were told, so the sink must write nothing
      more and take back any such record it wrote or is writing, before it
      closes. The file sinks truncate the log right after ``keep_through``.
    * ``shares_loop: bool``: ``True`` when the sink never blocks the event
      loop (it awaits all its I/O); otherwise it runs on an event loop of its
      own, in a thread of its own, so that a sink that blocks cannot stop the
      gateway's timers.
    * ``write_now(events) -> bool``, not async: write several events at
      once, durably, in order, without awaiting anything, when the sink can
      do so at once without blocking the loop (a small append to a local
      file); ``False`` when it cannot now (the bus then hands them to
      ``write_batch``). A review waiting for its record calls it, so that
      whoever waits first commits everything queued, in one write, with no
      task switch (group commit).
    * ``finished() -> float``, not async: the ``time.monotonic()`` at which
      the sink last finished a write (0 before the first), as the sink's own
      writer (a thread) sees it. A sink that has it is judged by it: it has
      failed once a batch it was handed stays unfinished for the audit
      timeout, counted from when it was handed, while a loop too busy to see
      its writes in time (thousands of reviews at once) is not held against
      it — the verdicts wait, past the audit timeout, for as long as the
      review's deadline allows. A sink without it is judged by the review's
      wait: its record must be seen written within the audit timeout.
    * ``catches_up: bool``: ``True`` when the sink never gives up an event:
      a write it cannot make now (a broker away) it retries until it can,
      in order, and never leaves a gap. Such a required sink that falls
      behind past the audit timeout is not failed: each verdict waiting for
      it is declined (and withdrawn in the record, which follows once it is
      written), and verdicts are released again once it has caught up. A
      sink that raises from ``write`` has failed all the same.
    """

    async def open(self) -> ChainTip | None:
        """Open the sink; return the tip of the chain it already holds, if any."""

    async def write(self, event: Event) -> None:
        """Write one event durably (write and flush)."""

    async def aclose(self) -> None:
        """Flush and close."""


@runtime_checkable
class AuditSource(Protocol):
    """A sink that writes a log file others may read (the approval service serves it)."""

    @property
    def audit_path(self) -> str:
        """The file it writes."""


class SinkSlot(NamedTuple):
    """A loaded sink with its optional members resolved once."""

    name: str
    sink: Sink
    required: bool
    write_batch: Callable[[Sequence[Event]], Awaitable[None]] | None
    fence: Callable[[int], None] | None
    shares_loop: bool
    catches_up: bool = False
    write_now: Callable[[Sequence[Event]], bool] | None = None
    finished: Callable[[], float] | None = None


def resolve_sink(name: str, sink: Sink, *, required: bool) -> SinkSlot:
    """
    Read a sink's optional members once.

    Raises:
        PluginLoadError: An optional member has the wrong type.
    """
    write_batch = getattr(sink, "write_batch", None)
    fence = getattr(sink, "fence", None)
    write_now = getattr(sink, "write_now", None)
    finished = getattr(sink, "finished", None)
    shares_loop = getattr(sink, "shares_loop", False)
    catches_up = getattr(sink, "catches_up", False)
    for member, found in (
        ("write_batch", write_batch),
        ("fence", fence),
        ("write_now", write_now),
        ("finished", finished),
    ):
        if found is not None and not callable(found):
            raise PluginLoadError(
                f"The sink {name!r} has a {member} that is not a method.", plugin=name
            )
    for flag, value in (("shares_loop", shares_loop), ("catches_up", catches_up)):
        if not isinstance(value, bool):
            raise PluginLoadError(
                f"The sink {name!r} says {flag} = {value!r}, which is not True or False.",
                plugin=name,
            )
    if not shares_loop:
        # Written on a loop of its own: nothing may be written from the gateway's.
        write_now = None
    return SinkSlot(
        name, sink, required, write_batch, fence, shares_loop, catches_up, write_now, finished
    )


def load_sink(name: str, config: SinkConfig) -> Sink:
    """
    Build the sink ``config`` names, through its entry point.

    Raises:
        PluginLoadError: No such sink is installed, or its factory failed.
    """
    built: Sink = build_plugin(
        SINK_GROUP,
        config.plugin,
        kind="sink",
        name=name,
        build=lambda factory: factory(config),
        check=Sink,
    )
    return built
