"""
Text shown to a person in one sentence: one place for how it is shortened.

A refusal, a summary or an error names a command, a path or an error
message inside a sentence of its own. Each is shown on one line, at most so
many characters long, with ``…`` where the rest was cut; shown between
backticks, its own backticks become quotes; an error's message loses its
final period, so that the sentence around it ends once. This module imports
nothing, so the reading half may use it too.
"""

from __future__ import annotations

__all__ = ["clip", "error_detail", "shorten", "shorten_quoted"]


def clip(text: str, limit: int) -> str:
    """
    ``text`` cut to at most ``limit`` characters, ``…`` standing for what was cut (lines kept).

    Examples:
        >>> clip("abcdef", 4)
        'abc…'
        >>> clip("abc", 4)
        'abc'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten(text: str, limit: int = 60) -> str:
    """
    ``text`` on one line (each run of whitespace one space), cut to ``limit`` characters with ``…``.

    Examples:
        >>> shorten("git commit\\n  -m 'a long message'", 20)
        "git commit -m 'a lo…"
    """
    return clip(" ".join(text.split()), limit)


def shorten_quoted(text: str, limit: int = 60) -> str:
    """
    `shorten`, with backticks turned to quotes: the text can sit between backticks in a sentence.

    Examples:
        >>> f"`{shorten_quoted('echo `id`')}`"
        "`echo 'id'`"
    """
    return shorten(text, limit).replace("`", "'")


def error_detail(error: BaseException, limit: int = 200) -> str:
    """
    An error's message as a clause of another sentence: `shorten`, without its final period.

    Falls back to the error's type name when it has no message.

    Examples:
        >>> import msgspec
        >>> try:
        ...     msgspec.json.decode(b"{nope")
        ... except msgspec.DecodeError as error:
        ...     print(f"The body is not JSON ({error_detail(error)}).")
        The body is not JSON (JSON is malformed: object keys must be strings (byte 1)).
    """
    return shorten(str(error), limit).rstrip(".") or type(error).__name__
