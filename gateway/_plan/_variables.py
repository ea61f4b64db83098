"""
Variable analysis: which names a statement reads and which it binds lexically.

Reads are every parameter expansion (``$x``, ``${x}``, ``${#x}``, ``${x:-d}``
and the reads inside ``d``, subscripts, ``${!x}``), every bare name in
arithmetic, and the reads of unquoted heredoc bodies — anywhere in the
statement, substitution bodies included. Binds are assignment targets, ``for``
variables and ``NAME=value`` operands of declaration builtins (``export``,
``local``…). Special parameters (``$1 $? $$ $@ $# $! $- $0 $*``) are never
variables. Runtime binders (``read``, ``unset``, ``declare NAME``) bind
nothing lexically.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from gateway._plan._parts import inert, walk_parts
from gateway._read._conditional import ARITHMETIC_OPERATORS
from gateway._read._tree import (
    Arithmetic,
    Command,
    CommandSubstitution,
    Coproc,
    For,
    Function,
    Heredoc,
    Parameter,
    Part,
    ProcessSubstitution,
    SimpleCommand,
    Statement,
    Test,
    Word,
    inside,
)
from gateway._read._words import NAME, split_assignment

__all__ = [
    "DECLARATION_BUILTINS",
    "Names",
    "arithmetic_binds",
    "heredoc_reads",
    "statement_names",
]

DECLARATION_BUILTINS: Final = frozenset({"export", "local", "declare", "typeset", "readonly"})
_ARITHMETIC_ASSIGNMENT: Final = re.compile(
    r"(?<![A-Za-z0-9_$])([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>|\*\*)?=(?!=)"
)
_ARITHMETIC_STEP: Final = re.compile(
    r"(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)|(?<![A-Za-z0-9_$])([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--)"
)


class Names:
    """Reads and binds, in the order met."""

    __slots__ = ("arithmetic", "binds", "functions", "reads")

    def __init__(self) -> None:
        self.reads: list[str] = []
        self.binds: list[str] = []
        self.arithmetic: list[str] = []
        self.functions: list[str] = []

    def free_and_bound(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Sorted free (read, not bound) and bound names."""
        bound = set(self.binds)
        free = {name for name in self.reads if name not in bound}
        return tuple(sorted(free)), tuple(sorted(bound))


def arithmetic_binds(expression: str) -> list[str]:
    """The names an arithmetic expression assigns: ``i=0``, ``i+=2``, ``i++``, ``--i``."""
    found = list(_ARITHMETIC_ASSIGNMENT.findall(expression))
    found.extend(a or b for a, b in _ARITHMETIC_STEP.findall(expression))
    return found


def _parts(parts: Sequence[Part], names: Names, *, arithmetic: bool = False) -> None:
    if inert(parts):
        return
    for walked in walk_parts(parts, arithmetic=arithmetic):
        part = walked.part
        if isinstance(part, Parameter):
            if not part.special:
                names.reads.append(part.name)
                if walked.arithmetic:
                    names.arithmetic.append(part.name)
        elif isinstance(part, Arithmetic):
            # bash evaluates a variable read in arithmetic as an expression in
            # turn, so its value can hold a subscript that runs a command.
            names.reads.extend(part.variables)
            names.arithmetic.extend(part.variables)
            # `i=0`, `i+=2`, `i++`, `--i` bind `i` (the `for ((i=0; …))` loop variable).
            names.binds.extend(arithmetic_binds(part.expression))
        elif isinstance(part, CommandSubstitution | ProcessSubstitution):
            _statements(part.body, names)


def _word(word: Word | None, names: Names) -> None:
    if word is not None:
        _parts(word.parts, names)


def heredoc_reads(heredoc: Heredoc) -> tuple[str, ...]:
    """The sorted, de-duplicated names an unquoted heredoc body reads (empty when literal)."""
    if heredoc.quoted:
        return ()
    names = Names()
    _parts(heredoc.parts, names)
    return tuple(sorted(set(names.reads)))


def _command(command: Command, names: Names) -> None:
    for redirect in command.redirects:
        _word(redirect.target if redirect.heredoc is None else None, names)
        if redirect.heredoc is not None and not redirect.heredoc.quoted:
            _parts(redirect.heredoc.parts, names)
    if isinstance(command, SimpleCommand):
        for assignment in command.assignments:
            names.binds.append(assignment.name)
            if assignment.subscript is not None:
                _parts((assignment.subscript,), names)
            _word(assignment.value, names)
            for element in assignment.array or ():
                _word(element, names)
        declares = bool(command.words) and command.words[0].value in DECLARATION_BUILTINS
        for index, word in enumerate(command.words):
            if word.value is None:  # a word with a value reads no variable
                _parts(word.parts, names)
            elif declares and index:
                split = split_assignment(word.value)
                if split is not None:
                    names.binds.append(split[0])
    elif isinstance(command, Test):
        operands = command.operands
        for index, operand in enumerate(operands):
            # Both sides of an arithmetic comparison are evaluated as arithmetic.
            around = {w.value for w in operands[max(index - 1, 0) : index + 2] if w is not operand}
            if around & ARITHMETIC_OPERATORS:
                _parts(operand.parts, names, arithmetic=True)
                if operand.value is not None and NAME.fullmatch(operand.value):
                    names.arithmetic.append(operand.value)
                    names.reads.append(operand.value)
            else:
                _word(operand, names)
    else:
        if isinstance(command, For):
            names.binds.append(command.variable)
            if command.select:
                names.binds.append("REPLY")
        elif isinstance(command, Function):
            names.functions.append(command.name)
        elif isinstance(command, Coproc):
            names.binds.extend((command.name, command.name + "_PID"))
        for child in inside(command):
            if isinstance(child, tuple):
                _statements(child, names)
            elif isinstance(child, Word):
                _word(child, names)
            elif isinstance(child, Arithmetic):
                _parts((child,), names)
            else:
                _command(child, names)


def _statements(statements: Iterable[Statement], names: Names) -> None:
    for statement in statements:
        for pipeline in statement.body.pipelines:
            for command in pipeline.commands:
                _command(command, names)


def statement_names(statement: Statement) -> Names:
    """
    Return what the statement reads and binds; `Names.free_and_bound` gives the
    sorted free and bound variables (a name both read and bound is bound only).
    """
    names = Names()
    _statements((statement,), names)
    return names
