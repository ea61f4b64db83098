"""
The hard limits every reading obeys, in one place.

Past any of them a reading is unmeasured, never an error and never a partial
plan. The numbers are inclusive: a source of exactly `MAX_SOURCE_BYTES` bytes
is read.
"""

from typing import Final

__all__ = [
    "BASHLEX_TOKENS_PER_CHAR",
    "BASHLEX_TOKEN_FLOOR",
    "INPROCESS_MAX_BYTES",
    "MAX_NESTING",
    "MAX_SOURCE_BYTES",
    "PARSE_BUDGET_SECONDS",
    "SCAN_STEPS_PER_CHAR",
    "SCAN_STEP_FLOOR",
    "WORKER_MEMORY_BYTES",
    "WORKER_START_SECONDS",
]

MAX_SOURCE_BYTES: Final = 65_536
"""The largest source read, in UTF-8 bytes."""

MAX_NESTING: Final = 64
"""How deep substitutions, subshells, groups and compound commands may nest."""

PARSE_BUDGET_SECONDS: Final = 2.0
"""The wall-clock budget for reading one source, whatever it holds."""

WORKER_MEMORY_BYTES: Final = 256 * 1024 * 1024
"""The address-space growth allowed to the worker process that runs bashlex on large input."""

INPROCESS_MAX_BYTES: Final = 16_384
"""Sources up to this size are read by bashlex in the calling thread.

bashlex is pure Python and cannot be interrupted from a thread, so its work
is metered from inside its own tokenizer (`BASHLEX_TOKENS_PER_CHAR` and the
deadline, checked every 64 tokens): in the calling thread it is bounded in
time and, through the tokens, in memory (a few MiB at most on the hostile
table, ``benchmarks/parse.py``). Larger sources run it in a worker process
with an address-space cap, killed at the deadline."""

WORKER_START_SECONDS: Final = 30.0
"""How long starting a bashlex worker (importing bashlex builds its parser tables) may take.

Starting is not the text's cost: the time it took is added to the reading's
budget, once per worker."""

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
