"""
What in a call's text can make a person see something other than what runs.

A plan fact, computed once by the planner over the call's unredacted text
(`ProgramPlan.display_hazard`): nothing after the planner scans shell text for
it. Control characters other than tab and newline (a carriage return, an ANSI
escape…); Unicode format characters (bidirectional overrides, zero-width
characters, tag characters, the soft hyphen…), separators other than the plain
space, private-use and surrogate code points, and letters that show as
nothing; a long run of blanks that pushes text out of sight.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["display_hazards"]

_ASCII_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_NOT_ASCII: Final = re.compile("[^\x00-\x7f]")
_INVISIBLE_LETTERS: Final = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f"
)
"""Characters that are letters or marks to Unicode but show as nothing."""
_HAZARD_CATEGORIES: Final = frozenset({"Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cs"})
_PADDING_RUN: Final = 48
"""How many blanks in a row push text out of sight."""
_PADDING: Final = re.compile(rf"[ \t]{{{_PADDING_RUN},}}")
_SPACES: Final = " " * _PADDING_RUN
"""Without a tab, a run of `_PADDING` is this many spaces: a substring test finds it faster."""


def _hazard_character(text: str) -> str | None:
    """The first character of ``text`` that shows as something other than itself, or nothing."""
    found = _ASCII_CONTROL.search(text)
    if text.isascii():
        return found.group() if found is not None else None
    first = found.start() if found is not None else len(text)
    for other in _NOT_ASCII.finditer(text, 0, first):
        char = other.group()
        code = ord(char)
        if (
            unicodedata.category(char) in _HAZARD_CATEGORIES
            or char in _INVISIBLE_LETTERS
            or 0xFE00 <= code <= 0xFE0D  # variation selectors (not the emoji ones)
            or 0xE0100 <= code <= 0xE01EF
        ):
            return char
    return found.group() if found is not None else None


def display_hazards(text: str) -> str | None:
    """
    What in ``text`` can make a person see something other than what runs, as a clause.

    Examples:
        >>> display_hazards("echo ok") is None
        True
        >>> display_hazards("echo 'a\\rb'")
        'it contains a carriage return, which can hide or reorder what a person sees'
    """
    char = _hazard_character(text)
    if char is not None:
        name = {"\r": "a carriage return", "\x1b": "an ANSI escape"}.get(char)
        if name is None:
            label = unicodedata.name(char, "")
            name = f"the invisible or control character U+{ord(char):04X}" + (
                f" ({label.lower()})" if label else ""
            )
        return f"it contains {name}, which can hide or reorder what a person sees"
    if ("\t" in text or _SPACES in text) and _PADDING.search(text):
        return "it contains a long run of blanks, which can push text out of sight"
    return None
