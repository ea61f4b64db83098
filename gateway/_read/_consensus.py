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

from collections.abc import Callable
from typing import Any, Final

from gateway._read._tree import (
    AndOr,
    Assignment,
    Command,
    CommandSubstitution,
    Coproc,
    For,
    Function,
    Heredoc,
    Pipeline,
    ProcessSubstitution,
    Program,
    Redirect,
    SimpleCommand,
    Statement,
    Word,
    walk,
)

__all__ = ["compare", "project"]

Fact = tuple[Any, ...]


def project(program: Program) -> list[Fact]:
    """Return the facts of a reading, in walk order, each tagged with what it is and an offset."""
    facts: list[Fact] = []
    handlers = _HANDLERS
    for node in walk(program):
        kind = type(node)
        handler = handlers.get(kind)
        if handler is None:
            handler = handlers[kind] = _handler(kind)
        if handler is not _none:
            facts.extend(handler(node))
    return facts


def compare(first: Program, second: Program, names: tuple[str, str]) -> str | None:
    """
    Compare two readings; return ``None`` when they agree, else one sentence on the first difference.

    Two equal trees have equal projections (a projection is a function of
    the tree), so equal readings — most plain texts, read alike to the last
    span by tree-sitter and the plain-word reader — are not projected at all.
    """
    if first == second:
        return None
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


# The facts one node contributes (most parts and expressions contribute none),
# by node type: `project` finds each type's function once (`_handler`).


def _none(node: Any) -> tuple[Fact, ...]:
    del node
    return ()


def _word(node: Word) -> tuple[Fact, ...]:
    return (("word", node.span.start, node.span.end),)


def _command_substitution(node: CommandSubstitution) -> tuple[Fact, ...]:
    return (("substitution", node.span.start, node.span.end, "`" if node.backtick else "$("),)


def _process_substitution(node: ProcessSubstitution) -> tuple[Fact, ...]:
    return (("substitution", node.span.start, node.span.end, node.direction + "("),)


def _statement(node: Statement) -> tuple[Fact, ...]:
    return (("statement", node.span.start, node.terminator),)


def _andor(node: AndOr) -> tuple[Fact, ...]:
    return (("andor", node.span.start, node.operators),)


def _pipeline(node: Pipeline) -> tuple[Fact, ...]:
    first = node.commands[0].span.start if node.commands else -1
    time = None if node.time is None else (node.time.start, node.time.end)
    return (("pipeline", first, node.negated, node.operators, time),)


def _simple(node: SimpleCommand) -> tuple[Fact, ...]:
    starts = [
        *(a.span.start for a in node.assignments),
        *(w.span.start for w in node.words),
        *(r.span.start for r in node.redirects),
    ]
    at = min(starts) if starts else node.span.start
    return (("command", at, type(node), len(node.words)),)


def _assignment(node: Assignment) -> tuple[Fact, ...]:
    return (("assignment", node.span.start, node.span.end, node.name, node.append),)


def _redirect(node: Redirect) -> tuple[Fact, ...]:
    target = node.target
    extent = None if target is None else (target.span.start, target.span.end)
    return (("redirect", node.span.start, node.fd, node.operator, extent),)


def _heredoc(node: Heredoc) -> tuple[Fact, ...]:
    body = node.body_span
    return (("heredoc", body.start, node.operator, node.delimiter, node.quoted, body.end),)


def _compound(node: Any) -> tuple[Fact, ...]:
    command: Fact = ("command", node.span.start, type(node))
    if isinstance(node, For):
        return (
            command,
            ("word", node.span.start, node.variable, node.items is None, node.select),
        )
    if isinstance(node, Function):
        return (command, ("word", node.span.start, node.name))
    if isinstance(node, Coproc):
        return (command, ("word", node.keyword.start, node.keyword.end, node.name))
    return (command,)


_ORDER: Final[tuple[tuple[Any, Callable[[Any], tuple[Fact, ...]]], ...]] = (
    (Word, _word),
    (CommandSubstitution, _command_substitution),
    (ProcessSubstitution, _process_substitution),
    (Statement, _statement),
    (AndOr, _andor),
    (Pipeline, _pipeline),
    (SimpleCommand, _simple),
    (Assignment, _assignment),
    (Redirect, _redirect),
    (Heredoc, _heredoc),
    (Command, _compound),
)
_HANDLERS: Final[dict[type, Callable[[Any], tuple[Fact, ...]]]] = {}


def _handler(kind: type) -> Callable[[Any], tuple[Fact, ...]]:
    """The facts function of a node type: the first row of `_ORDER` it is a subclass of."""
    for base, handler in _ORDER:
        if issubclass(kind, base):
            return handler
    return _none
