"""
Globs against patterns: whether a path bash globs could be one that a pattern names.

Bash expands a word with ``*``, ``?`` or ``[…]`` segment by segment: a segment
with no pattern character is taken as it is written (``.AWS`` never names
``.aws``, whatever ``nocaseglob`` says), one with a pattern character matches
the names in the directory, and a name starting with ``.`` is only matched
when the segment starts with a written ``.`` (``.[a]ws`` matches ``.aws``,
``[.]aws`` and ``?aws`` do not) unless ``dotglob`` is on. With ``globstar``
on, a segment ``**`` matches any number of directories (hidden ones only with
``dotglob``); with ``extglob`` on, ``@(…)``, ``!(…)``, ``*(…)``, ``+(…)`` and
``?(…)`` match (here: may match) any name.

The patterns of `gateway._calls._places` (secret files, persistence points) are
globs too: ``*`` and ``?`` never cross a ``/`` but do match a leading ``.``,
and a segment ``**`` spans any number of directories.

`could_match` says whether *some* path is matched by both: the glob could
name a file the pattern names. It decides without the file system, so a
pattern that could match a protected file is that file, whatever exists
now. Character sets are kept as code point intervals, so classes and ranges
(``[a-c]``, ``[[:alpha:]]``, ``[!.]``) compare exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final, NamedTuple

__all__ = ["GLOB_OPTIONS", "GlobOptions", "could_match", "is_glob", "name_matches"]

GLOB_OPTIONS: Final = frozenset({"dotglob", "nocaseglob", "globstar", "extglob", "nullglob"})
"""The shell options that change what a glob matches (and ``nullglob``: what it becomes)."""

GlobOptions = frozenset[str]

_MAX: Final = 0x10FFFF
_Set = tuple[tuple[int, int], ...]
"""A set of characters: sorted, disjoint, inclusive code point intervals."""
_ANY: Final[_Set] = ((0, ord("/") - 1), (ord("/") + 1, _MAX))
_NOT_DOT: Final[_Set] = ((0, ord(".") - 1), (ord(".") + 1, ord("/") - 1), (ord("/") + 1, _MAX))
_STAR: Final = "*"
_DIRECTORIES: Final = "**"
"""A segment that spans any number of directories (``**`` in a pattern, or with ``globstar``)."""
_EXTGLOB_OPENERS: Final = frozenset("@!*+?")
_GLOB_CHARACTERS: Final = frozenset("*?[")
_CLASSES: Final[dict[str, _Set]] = {
    "alpha": ((65, 90), (97, 122), (128, _MAX)),
    "upper": ((65, 90), (128, _MAX)),
    "lower": ((97, 122), (128, _MAX)),
    "digit": ((48, 57),),
    "xdigit": ((48, 57), (65, 70), (97, 102)),
    "alnum": ((48, 57), (65, 90), (97, 122), (128, _MAX)),
    "space": ((9, 13), (32, 32)),
    "blank": ((9, 9), (32, 32)),
    "punct": ((33, 47), (58, 64), (91, 96), (123, 126)),
    "print": ((32, 126), (128, _MAX)),
    "graph": ((33, 126), (128, _MAX)),
    "cntrl": ((0, 31), (127, 127)),
    "word": ((48, 57), (65, 90), (95, 95), (97, 122), (128, _MAX)),
}
"""POSIX classes; outside ASCII a class may hold any character (it errs towards matching)."""


class _Char(NamedTuple):
    chars: _Set
    written: bool
    """The character is written (not ``?`` or a class of several)."""


class _Segment(NamedTuple):
    tokens: tuple[str | _Char, ...]
    """``*``, or one character."""
    hidden: bool
    """It may match a name that starts with ``.``."""


def is_glob(text: str) -> bool:
    """Whether a path has a character bash globs with (``*``, ``?``, ``[``)."""
    return bool(_GLOB_CHARACTERS & set(text))


def _normal(intervals: list[tuple[int, int]]) -> _Set:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(intervals):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(intervals: _Set) -> _Set:
    out: list[tuple[int, int]] = []
    start = 0
    for low, high in intervals:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= _MAX:
        out.append((start, _MAX))
    return _intersect(tuple(out), _ANY)


def _intersect(a: _Set, b: _Set) -> _Set:
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if low <= high:
            out.append((low, high))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def _folded(intervals: _Set) -> _Set:
    """The set with both cases of every ASCII letter in it (``nocaseglob``)."""
    extra: list[tuple[int, int]] = list(intervals)
    for low, high in intervals:
        for start, end, shift in ((65, 90, 32), (97, 122, -32)):
            a, b = max(low, start), min(high, end)
            if a <= b:
                extra.append((a + shift, b + shift))
    return _normal(extra)


def _bracket(text: str, start: int) -> tuple[_Set, int] | None:
    """The set of a bracket expression at ``text[start] == "["`` and the index after it."""
    index = start + 1
    negated = index < len(text) and text[index] in "!^"
    if negated:
        index += 1
    found: list[tuple[int, int]] = []
    first = True
    while index < len(text):
        char = text[index]
        if char == "]" and not first:
            chosen = _normal(found)
            return (_complement(chosen) if negated else _intersect(chosen, _ANY)), index + 1
        first = False
        if char == "[" and text[index + 1 : index + 2] in (":", "=", "."):
            kind = text[index + 1]
            end = text.find(kind + "]", index + 2)
            if end >= 0:
                name = text[index + 2 : end]
                if kind == ":":
                    found.extend(_CLASSES.get(name, ((0, _MAX),)))
                else:
                    found.extend((ord(c), ord(c)) for c in name)
                index = end + 2
                continue
        if char == "\\" and index + 1 < len(text):
            index += 1
            char = text[index]
        low = ord(char)
        if text[index + 1 : index + 2] == "-" and index + 2 < len(text) and text[index + 2] != "]":
            high_char = text[index + 2]
            step = 3
            if high_char == "\\" and index + 3 < len(text):
                high_char, step = text[index + 3], 4
            if ord(high_char) >= low:
                found.append((low, ord(high_char)))
            index += step
            continue
        found.append((low, low))
        index += 1
    return None  # no closing `]`: a literal `[`


def _extglob_end(text: str, start: int) -> int | None:
    """The index after the ``)`` closing an extended pattern opened at ``text[start + 1] == "("``."""
    depth = 0
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return None


def _segment(text: str, *, bash: bool, options: GlobOptions) -> _Segment:
    """
    One segment as tokens.

    ``bash``: a segment of a word bash globs (its leading-dot rule and
    options apply), else of a pattern of `gateway._calls._places`.
    """
    tokens: list[str | _Char] = []
    globbing = not bash or is_glob(text)
    nocase = bash and globbing and "nocaseglob" in options
    extended = False
    index = 0
    while index < len(text):
        char = text[index]
        if (
            bash
            and "extglob" in options
            and char in _EXTGLOB_OPENERS
            and text[index + 1 : index + 2] == "("
        ):
            end = _extglob_end(text, index)
            if end is not None:
                tokens.append(_STAR)
                extended = True
                index = end
                continue
        if globbing and char == "*":
            if not tokens or tokens[-1] != _STAR:
                tokens.append(_STAR)
            index += 1
            continue
        if globbing and char == "?":
            tokens.append(_Char(_ANY, written=False))
            index += 1
            continue
        if globbing and char == "[":
            found = _bracket(text, index)
            if found is not None:
                chosen, index = found
                tokens.append(_Char(_folded(chosen) if nocase else chosen, written=False))
                continue
        if bash and char == "\\" and index + 1 < len(text):
            index += 1
            char = text[index]
        point = ord(char)
        chars: _Set = ((point, point),)
        tokens.append(_Char(_folded(chars) if nocase else chars, written=True))
        index += 1
    leading_dot = bool(tokens) and tokens[0] == _Char(((46, 46),), written=True)
    hidden = not bash or leading_dot or "dotglob" in options or extended
    return _Segment(tuple(tokens), hidden)


def _segment_could_match(a: _Segment, b: _Segment) -> bool:
    """
    Whether one name is matched by both segments (``a`` may be bash's, with its dot rule).

    A name counts unless each side's ``*`` must take characters the other
    side wrote: ``*.py`` and ``id_rsa*`` meet only in ``id_rsa….py``, which
    is neither a key nor a script anyone means; ``*.json`` and
    ``credentials.json``, ``.bash_hist?ry`` and ``.*_history`` do meet.
    """
    if not a.tokens or not b.tokens:
        return not a.tokens and not b.tokens  # the empty segment of an absolute path
    # State: positions, at the name's first character, a's `*` took b's
    # written characters, b's `*` took a's.
    start = (0, 0, True, False, False)
    seen = {start}
    pending = [start]
    while pending:
        i, j, first, a_took, b_took = pending.pop()
        if i == len(a.tokens) and j == len(b.tokens) and not first:
            return True
        steps: list[tuple[int, int, bool, bool, bool]] = []
        if i < len(a.tokens) and a.tokens[i] == _STAR:
            steps.append((i + 1, j, first, a_took, b_took))
        if j < len(b.tokens) and b.tokens[j] == _STAR:
            steps.append((i, j + 1, first, a_took, b_took))
        if i < len(a.tokens) and j < len(b.tokens):
            token_a, token_b = a.tokens[i], b.tokens[j]
            char_a = token_a if isinstance(token_a, _Char) else _Char(_ANY, written=False)
            char_b = token_b if isinstance(token_b, _Char) else _Char(_ANY, written=False)
            chars = _intersect(char_a.chars, char_b.chars)
            if first and not (a.hidden and b.hidden):
                chars = _intersect(chars, _NOT_DOT)
            took_a = a_took or (token_a == _STAR and char_b.written)
            took_b = b_took or (token_b == _STAR and char_a.written)
            if chars and not (took_a and took_b):
                steps.append(
                    (
                        i if token_a == _STAR else i + 1,
                        j if token_b == _STAR else j + 1,
                        False,
                        took_a,
                        took_b,
                    )
                )
        for step in steps:
            if step not in seen:
                seen.add(step)
                pending.append(step)
    return False


def _segments(text: str, *, bash: bool, options: GlobOptions) -> tuple[_Segment | str, ...]:
    out: list[_Segment | str] = []
    for piece in text.split("/"):
        if piece == "**" and (not bash or "globstar" in options):
            out.append(_DIRECTORIES)
        else:
            out.append(_segment(piece, bash=bash, options=options))
    return tuple(out)


_ANY_NAME: Final = _Segment((_STAR,), hidden=True)
_VISIBLE_NAME: Final = _Segment((_STAR,), hidden=False)


@lru_cache(maxsize=4096)
def could_match(
    glob: str, pattern: str, *, below: bool = False, options: GlobOptions = frozenset()
) -> bool:
    """
    Whether a path bash globs from ``glob`` could be one ``pattern`` names.

    Args:
        glob: An absolute path (or one under a marker) with pattern characters;
            a backslash makes the next character literal.
        pattern: A pattern of `gateway._calls._places`, spelled in the same form.
        below: The glob reaches everything below what it matches (``rm -rf``,
            ``grep -r``): a file under it counts when the pattern places it
            there (``.gi?`` holds ``.git/config``, ``~/.s*`` holds
            ``~/.ssh/id_rsa``); one the pattern places anywhere (``**/*.pem``)
            is for a walk of the disk to find, as for a directory named
            without a glob.
        options: The shell options in force (`GLOB_OPTIONS`).
    """
    a: tuple[_Segment | str, ...] = _segments(glob, bash=True, options=options)
    if below:
        a = (*a, _DIRECTORIES)
    b = _segments(pattern, bash=False, options=options)
    hidden_directories = "dotglob" in options
    return _path_could_match(a, b, hidden_directories=hidden_directories, below=below)


def _path_could_match(
    a: Sequence[_Segment | str],
    b: Sequence[_Segment | str],
    *,
    hidden_directories: bool,
    below: bool,
) -> bool:
    """Segment by segment; ``**`` on either side takes any number of the other's segments."""
    last_a = len(a) - 1
    seen = {(0, 0)}
    pending = [(0, 0)]
    while pending:
        i, j = pending.pop()
        if i == len(a) and j == len(b):
            return True
        steps: list[tuple[int, int]] = []
        if i < len(a) and a[i] == _DIRECTORIES:
            steps.append((i + 1, j))
            if j < len(b):
                # What a recursive effect reaches is everything; bash's `**` skips hidden names.
                name = _ANY_NAME if (below and i == last_a) or hidden_directories else _VISIBLE_NAME
                if b[j] == _DIRECTORIES or _segment_could_match(name, b[j]):  # type: ignore[arg-type]
                    steps.append((i, j + 1))
        if j < len(b) and b[j] == _DIRECTORIES:
            steps.append((i, j + 1))
            # What lies below a glob is only the pattern's when the glob's own last
            # segment is one of the pattern's (`.gi?` of `**/.git/config`): a
            # pattern that may lie anywhere (`**/*.pem`) may lie below any directory,
            # and a walk of what the glob matches on disk tells.
            if i < len(a) and a[i] != _DIRECTORIES and not (below and i == last_a - 1):
                steps.append((i + 1, j))
        if (
            i < len(a)
            and j < len(b)
            and a[i] != _DIRECTORIES
            and b[j] != _DIRECTORIES
            and _segment_could_match(a[i], b[j])  # type: ignore[arg-type]
        ):
            steps.append((i + 1, j + 1))
        for step in steps:
            if step not in seen:
                seen.add(step)
                pending.append(step)
    return False


def name_matches(segment: str, name: str, options: GlobOptions = frozenset()) -> bool:
    """
    Whether bash's glob ``segment`` (one piece of a path) matches the file name ``name``.

    The on-disk side of `could_match`: a directory's names are matched one
    by one, with the leading-dot rule and ``options`` as bash applies them.
    """
    if name in (".", ".."):
        return False  # `globskipdots`: never matched, even by `.*`
    written = _Segment(tuple(_Char(((ord(c), ord(c)),), written=True) for c in name), hidden=True)
    return _segment_could_match(_segment(segment, bash=True, options=options), written)
