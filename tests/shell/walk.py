"""
Helpers the shell-reader tests share: read a source, and walk the neutral tree.

The walks are generic (they follow every msgspec field), so a node kind added
to the tree is visited without changing this file.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from gateway._read import ShellReading, read_shell
from gateway._read._tree import (
    Command,
    CommandSubstitution,
    Heredoc,
    Program,
    SimpleCommand,
    Span,
    Statement,
    Word,
)


def measured(text: str) -> Program:
    """Read ``text`` and return its program, failing the test when it is unmeasured."""
    reading = read_shell(text)
    assert reading.status == "measured", reading.reason
    assert reading.reason is None
    assert reading.program is not None
    return reading.program


def nodes(root: msgspec.Struct) -> Iterator[msgspec.Struct]:
    """Every Struct under ``root`` (itself included), depth first, in field order."""
    stack: list[object] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, msgspec.Struct):
            yield item
            stack.extend(reversed([getattr(item, field) for field in type(item).__struct_fields__]))
        elif isinstance(item, tuple):
            stack.extend(reversed(item))


def spans(root: msgspec.Struct) -> Iterator[tuple[msgspec.Struct, Span]]:
    """Every (node, span) pair under ``root``, heredoc body spans included."""
    for node in nodes(root):
        for field in ("span", "body_span"):
            span = getattr(node, field, None)
            if isinstance(span, Span):
                yield node, span


def words(root: msgspec.Struct) -> list[Word]:
    """Every `Word` under ``root``."""
    return [node for node in nodes(root) if isinstance(node, Word)]


def heredocs(root: msgspec.Struct) -> list[Heredoc]:
    """Every `Heredoc` under ``root``."""
    return [node for node in nodes(root) if isinstance(node, Heredoc)]


def simple_commands(root: msgspec.Struct) -> list[SimpleCommand]:
    """Every `SimpleCommand` under ``root``, in walk order."""
    return [node for node in nodes(root) if isinstance(node, SimpleCommand)]


def command_names(root: msgspec.Struct) -> list[str]:
    """The first word of every simple command under ``root``: its value, or its text when dynamic."""
    names = []
    for command in simple_commands(root):
        if command.words:
            first = command.words[0]
            names.append(first.text if first.value is None else first.value)
    return names


def substitutions(root: msgspec.Struct) -> list[CommandSubstitution]:
    """Every `CommandSubstitution` under ``root``."""
    return [node for node in nodes(root) if isinstance(node, CommandSubstitution)]


def only_command(program: Program) -> Command:
    """The one command of a one-statement, one-pipeline, one-command program."""
    (statement,) = program.statements
    (pipeline,) = statement.body.pipelines
    (command,) = pipeline.commands
    return command


def only_simple(program: Program) -> SimpleCommand:
    """The one simple command of a program that holds just one."""
    command = only_command(program)
    assert isinstance(command, SimpleCommand)
    return command


def statement_texts(source: str, statements: tuple[Statement, ...]) -> list[str]:
    """The source text of each statement, sliced by its span."""
    return [source[s.span.start : s.span.end] for s in statements]


def check_spans(source: str, reading: ShellReading) -> None:
    """Assert that every span of a measured reading slices back in characters and in bytes."""
    if reading.program is None:
        return
    data = source.encode("utf-8")
    for node, span in spans(reading.program):
        assert 0 <= span.start <= span.end <= len(source), (node, span)
        assert 0 <= span.start_byte <= span.end_byte <= len(data), (node, span)
        chars = source[span.start : span.end]
        assert chars.encode("utf-8") == data[span.start_byte : span.end_byte], (node, span)
        if isinstance(node, Word):
            assert node.text == chars, (node, span)
        if isinstance(node, Heredoc):
            assert node.body == chars, (node, span)
