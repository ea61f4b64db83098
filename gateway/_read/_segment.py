"""
Splits one command *segment* into words without requiring a complete program.

A segment is what sits between control operators: ``if make`` or
``time -p make`` are segments but not complete bash programs, so the
consensus reader cannot read them. This splitter reads only word boundaries
(blanks, quotes, escapes, and balanced ``$( )``, ``${ }``, backticks) and
refuses — returns ``None`` — at any unquoted operator character, so it never
guesses at structure. Its words carry no substitution bodies: it serves the
program-position reader, which needs each word's text and literal value only.
"""

from __future__ import annotations

from typing import Final

from gateway._read._source import Source
from gateway._read._tree import Word
from gateway._read._words import SubEntry, SubKind, Unreadable, WordScanner

__all__ = ["split_segment"]

_OPERATOR_CHARACTERS: Final = frozenset(";&|<>()\n")


def _closing(text: str, start: int, opener: str, closer: str) -> int:
    """Offset just past the ``closer`` balancing the ``opener`` at ``start`` (-1 if none)."""
    depth = 0
    i = start
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "'" and opener != "`":
            close = text.find("'", i + 1)
            if close < 0:
                return -1
            i = close + 1
            continue
        if char == '"' and opener != "`":
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if opener == "`" and char == "`" and i > start:
            return i + 1
        if char == opener and opener != "`":
            depth += 1
        elif char == closer and opener != "`":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def split_segment(text: str) -> tuple[Word, ...] | None:
    """
    Split one segment into words; ``None`` when it holds an operator or does not scan.

    Examples:
        >>> [w.value for w in split_segment("time -p 'ma''ke' all") or ()]
        ['time', '-p', 'make', 'all']
    """
    source = Source(text)
    subs: dict[int, SubEntry] = {}
    spans: list[tuple[int, int]] = []
    i = 0
    start = -1
    while i < len(text):
        char = text[i]
        if char in " \t":
            if start >= 0:
                spans.append((start, i))
                start = -1
            i += 1
            continue
        if start < 0:
            start = i
        if char == "\\":
            i += 2
            continue
        if char in "'\"":
            if char == "'":
                close = text.find("'", i + 1)
                i = -1 if close < 0 else close + 1
            else:
                j = i + 1
                while j < len(text) and text[j] != '"':
                    if text[j] == "$" and text.startswith("$(", j):
                        end = _closing(text, j + 1, "(", ")")
                        if end < 0:
                            return None
                        subs[j] = SubEntry(end, "dollar", ())
                        j = end
                        continue
                    if text[j] == "`":
                        end = _closing(text, j, "`", "`")
                        if end < 0:
                            return None
                        subs[j] = SubEntry(end, "backtick", ())
                        j = end
                        continue
                    j += 2 if text[j] == "\\" else 1
                i = -1 if j >= len(text) else j + 1
            if i < 0:
                return None
            continue
        if char == "$" and i + 1 < len(text) and text[i + 1] in "({":
            opener, closer = ("(", ")") if text[i + 1] == "(" else ("{", "}")
            end = _closing(text, i + 1, opener, closer)
            if end < 0:
                return None
            if opener == "(" and not text.startswith("$((", i):
                subs[i] = SubEntry(end, "dollar", ())
            i = end
            continue
        if char == "`":
            end = _closing(text, i, "`", "`")
            if end < 0:
                return None
            subs[i] = SubEntry(end, "backtick", ())
            i = end
            continue
        if char in _OPERATOR_CHARACTERS:
            return None
        i += 1
    if start >= 0:
        spans.append((start, len(text)))
    scanner = WordScanner(source, subs, "segment", resolve=_no_body)
    try:
        return tuple(scanner.word(lo, hi) for lo, hi in spans)
    except Unreadable:
        return None


def _no_body(at: int, kind: SubKind) -> SubEntry:
    raise Unreadable(f"the segment splitter cannot read the substitution at offset {at}", at)
