"""
Assembles a flat run of commands and operators into statements.

Both readers flatten their parser's lists and pipelines into the same token
run — commands, ``!``, and the operators between them — and this module groups
the run by bash's precedence: ``|`` binds tighter than ``&&``/``||``, which bind
tighter than ``;``/``&``/newline. Doing the grouping once, here, means a
parser's own grouping (tree-sitter nests the words after a heredoc introducer
oddly) never reaches the neutral tree, and both readers group alike.

Neither parser reads ``coproc``: each reads the text with the keyword (and
the name after it) blanked, and says where each blanked keyword stands
(`CoprocMark`); the command a reader read right after the blanks becomes the
coprocess's body here, for both readers alike.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Final, NamedTuple

import msgspec

from gateway._read._source import Source
from gateway._read._tree import (
    AndOr,
    Command,
    Coproc,
    Group,
    Pipeline,
    SimpleCommand,
    Statement,
    Subshell,
)
from gateway._read._words import Unreadable

__all__ = [
    "RESERVED_WORDS",
    "CmdToken",
    "CoprocMark",
    "NegToken",
    "OpToken",
    "TimeToken",
    "Token",
    "assemble",
]

PIPE_OPERATORS: Final = frozenset({"|", "|&"})
ANDOR_OPERATORS: Final = frozenset({"&&", "||"})
TERMINATORS: Final = frozenset({";", "&", "\n"})
# ``{name}`` or ``{name[sub]}`` written right before a redirect operator.
NAMED_DESCRIPTOR: Final = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\}")
# bash's reserved words (and `!`, `{`, `}`, `[[`, `((`): right after `time`
# (and its options) bash reads one as its keyword where tree-sitter reads an
# argument of a command named `time`; after a redirect (`> f time k`) bash
# runs a program of that name but prints the command back with the word
# first, as its keyword; as either of the first two words after `coproc`
# (`coproc k then`) bash reads one as a keyword too. Each such reading is refused.
RESERVED_WORDS: Final = frozenset(
    {
        "!",
        "{",
        "}",
        "(",
        ")",
        "((",
        "[[",
        "]]",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "case",
        "esac",
        "while",
        "until",
        "for",
        "in",
        "select",
        "function",
        "coproc",
        "time",
    }
)


class CmdToken(msgspec.Struct, frozen=True):
    """A command and its extent (``end`` reaches past any heredoc it reads)."""

    command: Command
    start: int
    end: int


class OpToken(msgspec.Struct, frozen=True):
    """A control operator between commands."""

    op: str
    start: int
    end: int


class NegToken(NamedTuple):
    """A bare ``!`` in front of a pipeline."""

    start: int
    end: int


class TimeToken(NamedTuple):
    """The ``time`` keyword in front of a pipeline, with its options (``time -p --``)."""

    start: int
    end: int


Token = CmdToken | OpToken | NegToken | TimeToken


class CoprocMark(NamedTuple):
    """
    A ``coproc`` keyword a reader read blanked: where it and its name stand, and the name.

    ``named`` is true when a name was written (``coproc N { …; }``); the
    body must then be a group or a subshell, the only compound commands the
    readers admit after a name.
    """

    start: int
    end: int
    name: str
    named: bool


class _Builder:
    def __init__(self, source: Source, reader: str) -> None:
        self.source = source
        self.reader = reader
        self.statements: list[Statement] = []
        self.pipelines: list[Pipeline] = []
        self.andor_ops: list[str] = []
        self.commands: list[Command] = []
        self.pipe_ops: list[str] = []
        self.negated = False
        self.time: TimeToken | None = None
        self.pipeline_start = -1
        self.pipeline_end = -1
        self.statement_start = -1
        self.statement_end = -1

    def close_pipeline(self, at: int) -> None:
        if not self.commands:
            raise Unreadable(
                f"the {self.reader} reader found an operator with no command before it", at
            )
        self.pipelines.append(
            Pipeline(
                span=self.source.span(self.pipeline_start, self.pipeline_end),
                negated=self.negated,
                commands=tuple(self.commands),
                operators=tuple(self.pipe_ops),
                time=None if self.time is None else self.source.span(*self.time),
            )
        )
        self.commands = []
        self.pipe_ops = []
        self.negated = False
        self.time = None
        self.pipeline_start = -1

    def close_statement(self, terminator: str | None, at: int) -> None:
        self.close_pipeline(at)
        span = self.source.span(self.statement_start, self.statement_end)
        self.statements.append(
            Statement(
                span=span,
                body=AndOr(
                    span=span, pipelines=tuple(self.pipelines), operators=tuple(self.andor_ops)
                ),
                terminator=terminator,
            )
        )
        self.pipelines = []
        self.andor_ops = []
        self.statement_start = -1

    def touch(self, start: int, end: int) -> None:
        if self.statement_start < 0:
            self.statement_start = start
            self.statement_end = end
        self.statement_end = max(self.statement_end, end)
        if self.pipeline_start < 0:
            self.pipeline_start = start
            self.pipeline_end = end
        self.pipeline_end = max(self.pipeline_end, end)


def assemble(
    tokens: list[Token],
    source: Source,
    reader: str,
    coprocs: MutableMapping[int, CoprocMark] | None = None,
) -> tuple[Statement, ...]:
    """
    Group a token run into statements.

    ``coprocs`` are the blanked ``coproc`` keywords, by where the command
    after each starts: a command starting there becomes the body of a
    `Coproc`, and its mark is taken out of the mapping (the reader refuses
    the reading when a mark is left).

    Raises:
        Unreadable: An operator with nothing to join, a dangling operator, a
            misplaced ``!`` or ``time``, or a coprocess body the readers do not read.
    """
    if coprocs:
        tokens = [_coprocess_token(token, coprocs, source) for token in tokens]
    builder = _Builder(source, reader)
    previous: Token | None = None
    for token in tokens:
        if isinstance(token, CmdToken):
            check_named_descriptor(token.command)
            if isinstance(previous, CmdToken):
                builder.close_statement(None, token.start)  # an implicit newline
            builder.touch(token.start, token.end)
            builder.commands.append(token.command)
        elif isinstance(token, NegToken):
            if builder.commands or builder.negated:
                raise Unreadable(
                    f"a `!` at offset {token.start} stands inside a pipeline", token.start
                )
            if source.text.startswith("(", token.end):
                # `!(…)`: a negated subshell with `extglob` off, a pattern with it on.
                raise Unreadable(
                    f"the `!(` at offset {token.start} is a negated subshell only when "
                    "`extglob` is off where bash parses the text, and the readers cannot tell "
                    "whether it is",
                    token.start,
                )
            if isinstance(previous, CmdToken):
                builder.close_statement(None, token.start)
            builder.touch(token.start, token.end)
            builder.negated = True
        elif isinstance(token, TimeToken):
            if builder.commands or builder.time is not None:
                raise Unreadable(
                    f"a `time` at offset {token.start} stands inside a pipeline", token.start
                )
            if isinstance(previous, CmdToken):
                builder.close_statement(None, token.start)
            builder.touch(token.start, token.end)
            builder.time = token
        else:
            op = token.op
            if not isinstance(previous, CmdToken):
                raise Unreadable(
                    f"the operator {op!r} at offset {token.start} has no command before it",
                    token.start,
                )
            if op in PIPE_OPERATORS:
                builder.pipe_ops.append(op)
            elif op in ANDOR_OPERATORS:
                builder.close_pipeline(token.start)
                builder.andor_ops.append(op)
            elif op in TERMINATORS:
                if op == "&":  # a background marker is part of the statement's text; `;` is not
                    builder.statement_end = max(builder.statement_end, token.end)
                builder.close_statement(None if op == "\n" else op, token.start)
            else:
                raise Unreadable(
                    f"the {reader} reader met the operator {op!r} at offset {token.start}",
                    token.start,
                )
        previous = token
    if isinstance(previous, OpToken) and previous.op not in TERMINATORS:
        raise Unreadable(
            f"the operator {previous.op!r} at offset {previous.start} ends the input",
            previous.start,
        )
    if isinstance(previous, NegToken):
        raise Unreadable(f"the `!` at offset {previous.start} negates nothing", previous.start)
    if isinstance(previous, TimeToken):
        raise Unreadable(f"the `time` at offset {previous.start} times nothing", previous.start)
    if builder.commands:
        builder.close_statement(None, builder.statement_end)
    return tuple(builder.statements)


def _coprocess_token(
    token: Token, coprocs: MutableMapping[int, CoprocMark], source: Source
) -> Token:
    """The token itself, or, for a command right after a blanked ``coproc``, its coprocess."""
    if not isinstance(token, CmdToken):
        return token
    mark = coprocs.pop(token.start, None)
    if mark is None:
        return token
    check_named_descriptor(token.command)
    return CmdToken(coprocess(token.command, mark, source), mark.start, token.end)


def coprocess(body: Command, mark: CoprocMark, source: Source) -> Coproc:
    """
    The coprocess of ``mark`` running ``body``, or `Unreadable` where bash would read otherwise.

    bash's ``coproc`` takes a name only before a compound command, and reads
    a reserved word as the first or second word after the keyword
    (``coproc k then``, ``coproc N ! k``): the readers admit a name before a
    group or a subshell only, and a simple command whose first two words
    are not reserved words.
    """
    admitted = isinstance(body, Group | Subshell) or (
        not mark.named
        and isinstance(body, SimpleCommand)
        and bool(body.words)
        and not any(word.text in RESERVED_WORDS for word in body.words[:2])
    )
    if not admitted:
        raise Unreadable(
            f"the `coproc` at offset {mark.start} runs a command the readers do not read after it",
            mark.start,
        )
    span = source.span(mark.start, max([body.span.end, *(r.span.end for r in body.redirects)]))
    return Coproc(
        span=span,
        redirects=(),
        name=mark.name,
        keyword=source.span(mark.start, mark.end),
        body=body,
    )


def check_named_descriptor(command: Command) -> None:
    """
    Refuse ``cmd {fd}>file``: bash opens a new descriptor and stores it in ``fd``.

    Neither parser knows this form: both read ``{fd}`` as an argument and the
    redirect as one of standard output, so the argv and the redirect they agree
    on are not what bash runs. Every command of both readers passes through
    `assemble`, so the check sits here once.

    Raises:
        Unreadable: A word ``{name}`` ends where a redirect without a descriptor starts.
    """
    if not isinstance(command, SimpleCommand) or not command.redirects:
        return
    starts = {redirect.span.start for redirect in command.redirects if redirect.fd is None}
    for word in command.words:
        if word.span.end in starts and NAMED_DESCRIPTOR.fullmatch(word.text):
            raise Unreadable(
                f"the word {word.text!r} at offset {word.span.start} names a descriptor "
                "variable for the redirect after it, which the readers do not read",
                word.span.start,
            )
