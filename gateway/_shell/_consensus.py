"""
Consensus: two readings must say the same thing about what runs.

Each reading is projected onto the facts that decide what a call would do —
statement boundaries, the and-or and pipeline structure, every command
(anywhere: in bodies, substitutions, heredoc bodies) with its assignments,
words and redirects, every substitution, every heredoc (operator, delimiter,
quotedness, body span) — and the two projections must be equal. The first
difference is reported as one sentence naming what differs and where.

Spans of containers (a statement's end, a subshell's end) are not compared:
the parsers legitimately disagree on where whitespace belongs, and nothing
that runs depends on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gateway._shell._tree import (
    Arithmetic,
    Brace,
    Command,
    CommandSubstitution,
    DoubleQuoted,
    For,
    Function,
    Parameter,
    Part,
    ProcessSubstitution,
    Program,
    Redirect,
    SimpleCommand,
    Statement,
    Word,
    inside,
)

__all__ = ["compare", "project"]

Fact = tuple[Any, ...]


def project(program: Program) -> list[Fact]:
    """Return the facts of a reading, in walk order, each tagged with what it is and an offset."""
    facts: list[Fact] = []
    _statements(program.statements, facts)
    return facts


def compare(first: Program, second: Program, names: tuple[str, str]) -> str | None:
    """
    Compare two readings; return ``None`` when they agree, else one sentence on the first difference.
    """
    left = project(first)
    right = project(second)
    if left == right:
        return None
    for a, b in zip(left, right, strict=False):
        if a != b:
            return _difference(a, b, names)
    longer, name = (left, names[0]) if len(left) > len(right) else (right, names[1])
    extra = longer[min(len(left), len(right))]
    return f"the {name} reader sees more {_WHAT[extra[0]]} than the other, from offset {extra[1]}"


_WHAT = {
    "statement": "statements",
    "andor": "and-or lists",
    "pipeline": "pipelines",
    "command": "commands",
    "word": "words",
    "assignment": "assignments",
    "redirect": "redirects",
    "heredoc": "heredocs",
    "substitution": "substitutions",
}


def _difference(a: Fact, b: Fact, names: tuple[str, str]) -> str:
    if a[0] != b[0]:
        at = min(a[1], b[1])
        return f"the readers disagree on the structure at offset {at} ({names[0]} sees {_WHAT[a[0]][:-1]}, {names[1]} sees {_WHAT[b[0]][:-1]})"
    at = min(a[1], b[1])
    return f"the readers disagree on the {_WHAT[a[0]]} at offset {at}"


def _statements(statements: Iterable[Statement], facts: list[Fact]) -> None:
    for statement in statements:
        facts.append(("statement", statement.span.start, statement.terminator))
        andor = statement.body
        facts.append(("andor", statement.span.start, andor.operators))
        for pipeline in andor.pipelines:
            facts.append(
                (
                    "pipeline",
                    pipeline.commands[0].span.start if pipeline.commands else -1,
                    pipeline.negated,
                    pipeline.operators,
                )
            )
            for command in pipeline.commands:
                _command(command, facts)


def _command(command: Command, facts: list[Fact]) -> None:
    kind = type(command).__name__
    if isinstance(command, SimpleCommand):
        first = [
            *(a.span.start for a in command.assignments),
            *(w.span.start for w in command.words),
            *(r.span.start for r in command.redirects),
        ]
        facts.append(
            ("command", min(first) if first else command.span.start, kind, len(command.words))
        )
        for assignment in command.assignments:
            facts.append(
                (
                    "assignment",
                    assignment.span.start,
                    assignment.span.end,
                    assignment.name,
                    assignment.append,
                )
            )
            if assignment.subscript is not None:
                _parts((assignment.subscript,), facts)
            if assignment.value is not None:
                _word(assignment.value, facts)
            for element in assignment.array or ():
                _word(element, facts)
        for word in command.words:
            _word(word, facts)
    else:
        facts.append(("command", command.span.start, kind))
        if isinstance(command, For):
            facts.append(("word", command.span.start, command.variable, command.items is None))
        elif isinstance(command, Function):
            facts.append(("word", command.span.start, command.name))
        for child in inside(command):
            if isinstance(child, tuple):
                _statements(child, facts)
            elif isinstance(child, Word):
                _word(child, facts)
            elif isinstance(child, Arithmetic):
                _parts((child,), facts)
            else:
                _command(child, facts)
    for redirect in command.redirects:
        _redirect(redirect, facts)


def _redirect(redirect: Redirect, facts: list[Fact]) -> None:
    target = redirect.target
    facts.append(
        (
            "redirect",
            redirect.span.start,
            redirect.fd,
            redirect.operator,
            None if target is None else (target.span.start, target.span.end),
        )
    )
    if target is not None:
        _parts(target.parts, facts)
    heredoc = redirect.heredoc
    if heredoc is not None:
        facts.append(
            (
                "heredoc",
                heredoc.body_span.start,
                heredoc.operator,
                heredoc.delimiter,
                heredoc.quoted,
                heredoc.body_span.end,
            )
        )
        _parts(heredoc.parts, facts)


def _word(word: Word, facts: list[Fact]) -> None:
    facts.append(("word", word.span.start, word.span.end))
    _parts(word.parts, facts)


def _parts(parts: Iterable[Part], facts: list[Fact]) -> None:
    for part in parts:
        if isinstance(part, CommandSubstitution):
            facts.append(
                ("substitution", part.span.start, part.span.end, "`" if part.backtick else "$(")
            )
            _statements(part.body, facts)
        elif isinstance(part, ProcessSubstitution):
            facts.append(("substitution", part.span.start, part.span.end, part.direction + "("))
            _statements(part.body, facts)
        elif isinstance(part, DoubleQuoted | Brace):
            _parts(part.parts, facts)
        elif isinstance(part, Parameter):
            if part.subscript is not None:
                _parts((part.subscript,), facts)
            _parts(part.operand, facts)
        elif isinstance(part, Arithmetic):
            _parts(part.parts, facts)
