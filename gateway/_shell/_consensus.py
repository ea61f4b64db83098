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

from collections.abc import Iterator
from typing import Any

from gateway._shell._tree import (
    AndOr,
    Assignment,
    Command,
    CommandSubstitution,
    For,
    Function,
    Heredoc,
    Node,
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
    return [fact for node in walk(program) for fact in _facts(node)]


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


def _facts(node: Node) -> Iterator[Fact]:
    """The facts one node contributes (most parts and expressions contribute none)."""
    if isinstance(node, Word):
        yield ("word", node.span.start, node.span.end)
    elif isinstance(node, CommandSubstitution):
        yield ("substitution", node.span.start, node.span.end, "`" if node.backtick else "$(")
    elif isinstance(node, ProcessSubstitution):
        yield ("substitution", node.span.start, node.span.end, node.direction + "(")
    elif isinstance(node, Statement):
        yield ("statement", node.span.start, node.terminator)
    elif isinstance(node, AndOr):
        yield ("andor", node.span.start, node.operators)
    elif isinstance(node, Pipeline):
        first = node.commands[0].span.start if node.commands else -1
        time = None if node.time is None else (node.time.start, node.time.end)
        yield ("pipeline", first, node.negated, node.operators, time)
    elif isinstance(node, SimpleCommand):
        starts = [
            *(a.span.start for a in node.assignments),
            *(w.span.start for w in node.words),
            *(r.span.start for r in node.redirects),
        ]
        at = min(starts) if starts else node.span.start
        yield ("command", at, type(node), len(node.words))
    elif isinstance(node, Assignment):
        yield ("assignment", node.span.start, node.span.end, node.name, node.append)
    elif isinstance(node, Redirect):
        target = node.target
        extent = None if target is None else (target.span.start, target.span.end)
        yield ("redirect", node.span.start, node.fd, node.operator, extent)
    elif isinstance(node, Heredoc):
        body = node.body_span
        yield ("heredoc", body.start, node.operator, node.delimiter, node.quoted, body.end)
    elif isinstance(node, Command):
        yield ("command", node.span.start, type(node))
        if isinstance(node, For):
            yield ("word", node.span.start, node.variable, node.items is None, node.select)
        elif isinstance(node, Function):
            yield ("word", node.span.start, node.name)
