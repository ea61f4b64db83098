"""
What the option tables share: the row constructor and the common operand layouts.

Every table module builds its rows with `row` and these layouts, so a table
states only what is particular to its programs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from gateway._programs._rows import (
    METADATA,
    READ,
    Effect,
    Operands,
    OptionSpec,
    ProgramRow,
    option_table,
    role,
)

__all__ = ["GNU", "LISTS", "NO_OPERANDS", "READS", "READS_OR_DOT", "row"]

GNU: Final[tuple[str, ...]] = ("--help", "--version")
"""The two options every GNU program has."""

READS: Final[Operands] = Operands(rest=role(READ))
"""Every operand is a file the program reads (standard input without one)."""

LISTS: Final[Operands] = Operands(
    rest=role(METADATA), empty=(Effect(kind="read", action="metadata", value="."),)
)
"""Every operand is a path whose names or metadata are read; without one, ``.``."""

READS_OR_DOT: Final[Operands] = Operands(rest=role(READ), empty=(Effect(kind="read", value="."),))
"""Every operand is read, recursively; without one, ``.`` is."""

NO_OPERANDS: Final[Operands] = Operands()
"""Operands are data: names, patterns, numbers."""


def row(*specs: OptionSpec, ends: Iterable[str] = (), **fields: Any) -> ProgramRow:
    """A `ProgramRow` whose options are built from spelling specs (`option_table`)."""
    return ProgramRow(options=option_table(*specs, ends=ends), **fields)
