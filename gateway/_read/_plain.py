"""
The plain-word reader: the second reading of texts made only of plain words.

Most agent commands are plain: words of letters, digits and ``._/:,@%+=^-``,
single-quoted strings, double-quoted strings without ``$``, backtick or
backslash, joined by ``|``, ``&&``, ``;`` and newlines, with ``>`` or ``>>`` to
a plain word (``git status``, ``cd src && grep -rn "def main" .``,
``python3 -m pytest -q > out.txt``). In that class nothing expands, nothing is
a reserved word, and the grammar is a handful of rules, so this module reads
it directly — as a second, independent reading that tree-sitter's must agree
with, in place of bashlex's. Anything outside the class (a ``$``, a glob, a
``(``, ``&`` alone, ``||``, a reserved word at a command's start, a
descriptor before ``>``…) is no plain reading at all: the text is read by
both parsers as always.

Why skipping bashlex is safe there: bash's reading of this class is checked by
the oracle over a large generated set of exactly the class
(``tests/oracle/test_plain.py``), and on every text of it the plain reading
equals bashlex's wherever bashlex reads it.
"""

from __future__ import annotations

import re
from typing import Final

from gateway._read._assemble import CmdToken, OpToken, Token, assemble
from gateway._read._limits import ReadingBudget
from gateway._read._source import Source
from gateway._read._tree import Assignment, Program, Redirect, SimpleCommand, Word
from gateway._read._words import (
    PLAIN_CHARACTERS,
    PLAIN_STRINGS,
    Unreadable,
    WordMemo,
    WordScanner,
    split_assignment,
)

__all__ = ["READER", "read_plain"]

READER: Final = "plain-word"

_NEVER: Final = re.compile(r"[$`\\]")
"""Characters no text of the class holds outside single quotes, found at C speed before any reading."""
# Runs are safe here: the pattern is only ever `match`ed, which stops at the
# longest prefix instead of backtracking to fail.
_WORD: Final = re.compile(f"(?:[{PLAIN_CHARACTERS}]+|{PLAIN_STRINGS})+")
_BLANKS: Final = re.compile(r"[ \t]*")
_BLANKS_AND_NEWLINES: Final = re.compile(r"[ \t\n]*")
_RESERVED: Final = frozenset(
    {
        "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while",
        "until", "for", "in", "function", "select", "time", "coproc",
    }
)  # fmt: skip
"""Words bash reads as reserved at a command's start (``{``, ``}``, ``!``, ``[[`` are outside the class)."""


class _NotPlain(Exception):
    """The text is outside the class."""


class _Command:
    def __init__(self, source: Source, scanner: WordScanner) -> None:
        self.source = source
        self.scanner = scanner
        self.assignments: list[Assignment] = []
        self.words: list[Word] = []
        self.redirects: list[Redirect] = []
        self.start = -1
        self.end = -1

    def touch(self, start: int, end: int) -> None:
        if self.start < 0:
            self.start = start
        self.end = end

    def word(self, start: int, end: int) -> None:
        text = self.source.text[start:end]
        self.touch(start, end)
        split = split_assignment(text) if not self.words else None
        if split is not None:
            name, subscript, append, value_at = split
            if subscript is not None:  # pragma: no cover - `[` is outside the class
                raise _NotPlain
            value = None
            if value_at < len(text):
                value = self.scanner.word(start + value_at, end, assignment=True)
            self.assignments.append(
                Assignment(
                    span=self.source.span(start, end),
                    name=name,
                    subscript=None,
                    append=append,
                    value=value,
                    array=None,
                )
            )
            return
        if not self.words and text in _RESERVED:
            raise _NotPlain
        self.words.append(self.scanner.word(start, end))

    def token(self) -> CmdToken:
        if self.start < 0:
            raise _NotPlain  # an operator with no command before it
        command = SimpleCommand(
            span=self.source.span(self.start, self.end),
            redirects=tuple(self.redirects),
            assignments=tuple(self.assignments),
            words=tuple(self.words),
        )
        return CmdToken(command, self.start, self.end)


def read_plain(
    source: Source, budget: ReadingBudget, remember: WordMemo | None = None
) -> Program | None:
    """
    Read a text of the plain class; ``None`` when the text is outside it.

    ``remember``: where to put each word the reading scanned, for the other reader.
    """
    text = source.text
    if "'" not in text and _NEVER.search(text) is not None:
        return None
    scanner = WordScanner(source, {}, READER, budget=budget, remember=remember)
    try:
        tokens = _tokens(source, scanner)
        return Program(statements=assemble(tokens, source, READER)) if tokens else None
    except (_NotPlain, Unreadable):
        # Outside the class, or a word the scanner refuses: the two parsers
        # read it (and say why, when it is unreadable).
        return None


def _tokens(source: Source, scanner: WordScanner) -> list[Token]:
    text = source.text
    size = len(text)
    tokens: list[Token] = []
    command = _Command(source, scanner)
    at = _BLANKS_AND_NEWLINES.match(text, 0).end()  # type: ignore[union-attr]
    while at < size:
        char = text[at]
        if char == "\n" and command.start < 0:
            pass  # a blank line, or the end of a line ended by `;` (operators skip their own)
        elif char in ";\n":
            if text.startswith(";;", at) or text.startswith(";&", at):
                raise _NotPlain
            tokens.append(command.token())
            tokens.append(OpToken(char, at, at + 1))
            command = _Command(source, scanner)
        elif char in "&|":
            # `&&` or `|`; `&` alone, `||` and `|&` are outside the class.
            operator = "&&" if char == "&" else "|"
            if not text.startswith(operator, at) or text.startswith(("||", "|&"), at):
                raise _NotPlain
            tokens.append(command.token())
            tokens.append(OpToken(operator, at, at + len(operator)))
            command = _Command(source, scanner)
            at = _BLANKS_AND_NEWLINES.match(text, at + len(operator)).end()  # type: ignore[union-attr]
            continue
        elif char == ">":
            at = _redirect(source, scanner, command, at)
        elif char in " \t":
            pass
        else:
            match = _WORD.match(text, at)
            if match is None:
                raise _NotPlain
            end = match.end()
            if end < size and text[end] == ">" and match.group().isdigit():
                raise _NotPlain  # `2>f`: a descriptor, not a word
            command.word(at, end)
            at = end
            continue
        at = _BLANKS.match(text, at + 1).end()  # type: ignore[union-attr]
    if command.start >= 0:
        tokens.append(command.token())
    elif tokens and isinstance(tokens[-1], OpToken) and tokens[-1].op not in ";\n":
        raise _NotPlain  # `a |` or `a &&` at the end: bash would want more
    return tokens


def _redirect(source: Source, scanner: WordScanner, command: _Command, at: int) -> int:
    """Read ``>`` or ``>>`` and its plain target; return the offset of the target's last character."""
    text = source.text
    operator = ">>" if text.startswith(">>", at) else ">"
    after = at + len(operator)
    target_at = _BLANKS.match(text, after).end()  # type: ignore[union-attr]
    match = _WORD.match(text, target_at)
    if match is None:
        raise _NotPlain  # `>&`, `>|`, `>(`, `>>>`, or no target
    end = match.end()
    if end < len(text) and text[end] == ">" and match.group().isdigit():
        raise _NotPlain  # `>2>f`: bash reads `2>` as a descriptor, and the text is an error
    command.touch(at, end)
    command.redirects.append(
        Redirect(
            span=source.span(at, end),
            fd=None,
            operator=operator,
            target=scanner.word(target_at, end),
        )
    )
    return end - 1
