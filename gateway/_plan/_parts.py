"""
The walk over the parts of a word, with what bash does to each: arithmetic, quoting.

What a part holds is said once, by `gateway._read._tree.within`; this
module adds what every analysis of the planner needs besides: whether bash
evaluates a part as arithmetic (inside ``$(( ))``, ``(( ))`` or a subscript)
and whether it is inside double quotes. The walk never enters the *body* of a
command or process substitution (that body is statements, planned as
commands of their own). Expansion kinds, the substitutions a word runs, the
variables it reads, where it evaluates numbers or binds a variable: all are
read from this walk. A word whose parts are all quoted or literal text
(`inert`) holds nothing any of them looks for, and is not walked at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final

import msgspec

from gateway._read._tree import (
    AnsiC,
    Arithmetic,
    Brace,
    CommandSubstitution,
    DoubleQuoted,
    Glob,
    Literal,
    Parameter,
    Part,
    ProcessSubstitution,
    SingleQuoted,
    Tilde,
    walk_parts as _all_parts,
    within,
)

__all__ = ["Walked", "expansion_kinds", "inert", "substitutions", "walk_parts"]

_TEXT: Final = frozenset({Literal, SingleQuoted, AnsiC})
"""The parts that are text and hold no part."""


def inert(parts: Sequence[Part]) -> bool:
    """
    True when no part of ``parts`` expands: all are text, or double quotes around text only.

    Such parts hold no parameter, substitution, arithmetic, brace, tilde or
    glob, so every walk of this module finds nothing in them. Most words an
    agent writes are so (``-n``, ``'1,200p'``, ``src/app.py``).
    """
    for part in parts:
        if type(part) in _TEXT:
            continue
        if isinstance(part, DoubleQuoted) and inert(part.parts):
            continue
        return False
    return True


class Walked(msgspec.Struct, frozen=True):
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
        yield from walk_parts(
            within(part),
            arithmetic=arithmetic or isinstance(part, Arithmetic),
            quoted=quoted or isinstance(part, DoubleQuoted),
        )


def substitutions(parts: Iterable[Part]) -> Iterator[CommandSubstitution | ProcessSubstitution]:
    """The substitutions among ``parts`` (not those inside their bodies), in source order."""
    for part in _all_parts(parts):
        if isinstance(part, CommandSubstitution | ProcessSubstitution):
            yield part


def expansion_kinds(parts: Sequence[Part], kinds: set[str]) -> None:
    """Add the kinds of expansion among ``parts`` to ``kinds`` (see `PlannedCommand.expansions`)."""
    if inert(parts):
        return
    for part in _all_parts(parts):
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
