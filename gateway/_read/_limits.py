"""
The hard limits every reading obeys, in one place.

Past any of them a reading is unmeasured, never an error and never a partial
plan. The numbers are inclusive: a source of exactly `MAX_SOURCE_BYTES` bytes
is read.
"""

import math
import time
from typing import Final

from gateway._work._bounded import thread_cpu_seconds

__all__ = [
    "BASHLEX_TOKENS_PER_CHAR",
    "BASHLEX_TOKEN_FLOOR",
    "INPROCESS_MAX_BYTES",
    "MAX_NESTING",
    "MAX_SOURCE_BYTES",
    "PARSE_BACKSTOP_SECONDS",
    "PARSE_BUDGET_SECONDS",
    "SCAN_STEPS_PER_CHAR",
    "SCAN_STEP_FLOOR",
    "UNLIMITED",
    "WORKER_MEMORY_BYTES",
    "WORKER_START_SECONDS",
    "ReadingBudget",
]

MAX_SOURCE_BYTES: Final = 65_536
"""The largest source read, in UTF-8 bytes."""

MAX_NESTING: Final = 64
"""How deep substitutions, subshells, groups and compound commands may nest."""

PARSE_BUDGET_SECONDS: Final = 2.0
"""The CPU-time budget for reading one source, whatever it holds.

It counts the CPU time of the thread (and of the worker process) doing the
reading, not the wall clock: the work a text costs does not change when the
machine is busy, so neither does the verdict. The slowest text of the hostile
table costs well under half of it (``benchmarks/parse.py``)."""

PARSE_BACKSTOP_SECONDS: Final = 30.0
"""The wall-clock bound on one reading, however little CPU time it used.

A reader that stops getting CPU time at all — a stopped or starved worker — is
still cut off: past this many seconds the reading is unmeasured (and a worker
is killed)."""

WORKER_MEMORY_BYTES: Final = 256 * 1024 * 1024
"""The address-space growth allowed to the worker process that runs bashlex on large input."""

INPROCESS_MAX_BYTES: Final = 16_384
"""Sources up to this size are read by bashlex in the calling thread.

bashlex is pure Python and cannot be interrupted from a thread, so its work
is metered from inside its own tokenizer (`BASHLEX_TOKENS_PER_CHAR` and the
budget, looked at every 64 tokens): in the calling thread it is bounded in
time and, through the tokens, in memory (a few MiB at most on the hostile
table, ``benchmarks/parse.py``). Larger sources run it in a bounded worker
process with an address-space cap and a kernel-enforced CPU-time cap
(``gateway._read._worker``) — unless the reading runs in a bounded worker
already."""

WORKER_START_SECONDS: Final = 30.0
"""How long starting a bashlex worker (importing bashlex builds its parser tables) may take.

Starting is not the text's cost: it is bounded on its own, and the reading's
budget starts when the worker has the text."""

SCAN_STEPS_PER_CHAR: Final = 32
"""How many loop steps the word scanner may take per source character.

The scanner's look-ahead helpers (brace, bracket and parenthesis matching, the
end of a ``${x:…}`` operand) rescan text, and hostile input can make that
quadratic (``{{{{…``) or exponential (nested ``${x:${x:…}}``). The scanner runs
in-process for the tree-sitter reader and cannot be interrupted, so its total
work is bounded instead: past this many steps a character (plus
`SCAN_STEP_FLOOR`), the reading is unmeasured. No command in the
corpora takes two."""

SCAN_STEP_FLOOR: Final = 65_536
"""Steps every reading may take on top of `SCAN_STEPS_PER_CHAR`, so short sources are never cut short."""

BASHLEX_TOKENS_PER_CHAR: Final = 8
"""How many tokens bashlex may read per source character, all its parsers together.

bashlex re-reads a substitution's text with a parser of its own, so nested
substitutions read the same characters again; past this many tokens a
character (plus `BASHLEX_TOKEN_FLOOR`) the reading is unmeasured. It bounds the
work of a reader that cannot be interrupted: with it, bashlex runs in the
calling thread in time and memory proportional to the text."""

BASHLEX_TOKEN_FLOOR: Final = 1_024
"""Tokens every bashlex reading may take on top of `BASHLEX_TOKENS_PER_CHAR`."""


class ReadingBudget:
    """
    One reading's budget: CPU seconds of the thread doing it, and a wall-clock backstop.

    The CPU clock is `thread_cpu_seconds` of the thread that made the budget (a
    worker process makes its own from `cpu_left`); the backstop is
    `time.monotonic`, which every process of the machine shares.

    ``stated``: the CPU and wall-clock bounds its sentences name, when the
    budget is what is left of a larger one (a worker's): the reader is told
    the bound of the reading, not what remained of it when the worker began.
    """

    __slots__ = (
        "cpu_deadline",
        "cpu_seconds",
        "cpu_stated",
        "started",
        "wall_deadline",
        "wall_seconds",
        "wall_stated",
    )

    def __init__(
        self,
        cpu_seconds: float = math.inf,
        wall_seconds: float = math.inf,
        *,
        stated: tuple[float, float] | None = None,
    ) -> None:
        self.cpu_seconds = cpu_seconds
        self.wall_seconds = wall_seconds
        self.cpu_stated, self.wall_stated = stated or (cpu_seconds, wall_seconds)
        self.started = time.monotonic()  # before the CPU clock: see `overrun`
        self.cpu_deadline = thread_cpu_seconds() + cpu_seconds
        self.wall_deadline = self.started + wall_seconds

    @property
    def bounded(self) -> bool:
        """Whether there is any bound to check."""
        return self.cpu_deadline != math.inf or self.wall_deadline != math.inf

    def cpu_left(self) -> float:
        """CPU seconds left (negative when spent)."""
        return self.cpu_deadline - thread_cpu_seconds()

    def wall_left(self) -> float:
        """Wall-clock seconds left before the backstop (negative when past it)."""
        return self.wall_deadline - time.monotonic()

    def overrun(self) -> str | None:
        """
        How the reading ran out of its budget, as a clause; ``None`` while it has not.

        A thread runs on one CPU at a time, so it cannot have used more CPU
        time than the wall-clock time since the budget was made: until that
        much time has passed, the CPU clock (a system call) is not read.
        """
        now = time.monotonic()
        if now - self.started > self.cpu_seconds and thread_cpu_seconds() > self.cpu_deadline:
            return f"used more than its {self.cpu_stated:g} s of CPU time"
        if now > self.wall_deadline:
            return f"ran past the {self.wall_stated:g} s wall-clock bound"
        return None


UNLIMITED: Final = ReadingBudget()
"""The budget of a reading nobody bounded (tests, direct reader calls)."""
