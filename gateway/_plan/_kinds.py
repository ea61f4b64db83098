"""The kind of a statement, by the shape rules documented on `gateway._calls._plans.StatementKind`."""

from __future__ import annotations

from gateway._calls._plans import StatementKind
from gateway._read._tree import (
    ArithCommand,
    ArithFor,
    Case,
    Coproc,
    For,
    Function,
    Group,
    If,
    SimpleCommand,
    Statement,
    Subshell,
    While,
)

__all__ = ["statement_kind"]


def statement_kind(statement: Statement) -> StatementKind:
    """Return the statement's kind by the shape rules documented on `StatementKind`."""
    andor = statement.body
    if len(andor.pipelines) > 1:
        operators = set(andor.operators)
        if operators == {"&&"}:
            return "and_chain"
        if operators == {"||"}:
            return "or_chain"
        return "list"
    pipeline = andor.pipelines[0]
    if len(pipeline.commands) > 1 or pipeline.negated or statement.terminator == "&":
        return "pipeline"
    command = pipeline.commands[0]
    if isinstance(command, Coproc):
        return "pipeline"  # a one-stage pipeline in the background, as with `&`
    if command.redirects:
        return "pipeline"
    if isinstance(command, SimpleCommand):
        if not command.words:
            return "assignment"
        return "env_scoped" if command.assignments else "command"
    if isinstance(command, Subshell):
        return "subshell"
    if isinstance(command, Group):
        return "group"
    if isinstance(command, If):
        return "if"
    if isinstance(command, For | ArithFor):
        return "for"
    if isinstance(command, While):
        return "until" if command.until else "while"
    if isinstance(command, Case):
        return "case"
    if isinstance(command, Function):
        return "function"
    if isinstance(command, ArithCommand):
        return "arith"
    return "test"
