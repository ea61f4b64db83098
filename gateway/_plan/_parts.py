"""
The one walk over the parts of a word, for every analysis of the planner.

A word's parts nest: a ``"…"`` holds parts, a ``${x:-…}`` has a subscript and
an operand, a ``$(( ))`` holds expansions, a brace holds its alternatives.
`walk_parts` yields every part in source order, each with whether bash
evaluates it as arithmetic, and never enters the *body* of a command or
process substitution (that body is statements, planned as commands of their
own). Every analysis that looks inside words — expansion kinds, the
substitutions a word runs, the variables it reads, where it evaluates numbers
or binds a variable — walks them here, so a part kind added to the tree and
handled here is seen by all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from gateway._shell._tree import (
    Arithmetic,
    Brace,
    CommandSubstitution,
    DoubleQuoted,
    Glob,
    Parameter,
    Part,
    ProcessSubstitution,
    Tilde,
)

__all__ = ["Walked", "expansion_kinds", "substitutions", "walk_parts"]


class Walked(NamedTuple):
    """One part met by `walk_parts`."""

    part: Part
    arithmetic: bool
    """Bash evaluates the part as arithmetic (inside ``$(( ))``, ``(( ))`` or a subscript)."""
    quoted: bool
    """The part is inside double quotes (no word splitting, no globbing)."""


def walk_parts(
    parts: Iterable[Part], *, arithmetic: bool = False, quoted: bool = False
) -> Iterator[Walked]:
    """
    Yield every part of ``parts`` and of the parts they hold, in source order.

    A part is yielded before the parts inside it. Substitution bodies are not
    entered (their statements are commands of their own).
    """
    for part in parts:
        yield Walked(part, arithmetic, quoted)
        if isinstance(part, Parameter):
            if part.subscript is not None:
                yield from walk_parts((part.subscript,), arithmetic=arithmetic, quoted=quoted)
            # The offset and length of `${x:off:len}` are read as arithmetic by
            # the shell reader already (an `Arithmetic` operand).
            yield from walk_parts(part.operand, arithmetic=arithmetic, quoted=quoted)
        elif isinstance(part, Arithmetic):
            yield from walk_parts(part.parts, arithmetic=True, quoted=quoted)
        elif isinstance(part, DoubleQuoted):
            yield from walk_parts(part.parts, arithmetic=arithmetic, quoted=True)
        elif isinstance(part, Brace):
            yield from walk_parts(part.parts, arithmetic=arithmetic, quoted=quoted)


def substitutions(parts: Iterable[Part]) -> Iterator[CommandSubstitution | ProcessSubstitution]:
    """The substitutions among ``parts`` (not those inside their bodies), in source order."""
    for walked in walk_parts(parts):
        if isinstance(walked.part, CommandSubstitution | ProcessSubstitution):
            yield walked.part


def expansion_kinds(parts: Iterable[Part], kinds: set[str]) -> None:
    """Add the kinds of expansion among ``parts`` to ``kinds`` (see `PlannedCommand.expansions`)."""
    for walked in walk_parts(parts):
        part = walked.part
        if isinstance(part, Parameter):
            kinds.add("parameter")
            if part.indirect:
                kinds.add("indirect")
            if part.operator is not None and part.operator.startswith("@"):
                kinds.add("transform")
        elif isinstance(part, CommandSubstitution):
            kinds.add("command_substitution")
        elif isinstance(part, ProcessSubstitution):
            kinds.add("process_substitution")
        elif isinstance(part, Arithmetic):
            kinds.add("arithmetic")
        elif isinstance(part, Brace):
            kinds.add("brace")
        elif isinstance(part, Tilde):
            kinds.add("tilde")
        elif isinstance(part, Glob):
            kinds.add("glob")
