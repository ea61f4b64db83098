"""
The words of ``[[ … ]]`` as bash splits them, and the grammar they must make.

Inside ``[[ ]]`` bash reads words with its own rules, and bashlex reads none
of it (the text is masked before bashlex sees it), so tree-sitter's grouping
of the operands is checked here, by the project's own reading of bash's
conditional grammar (``cond_term`` in bash's parser):

* An unquoted ``<``, ``>``, ``;``, ``&``, ``|``, ``(``, ``)`` or blank ends a
  word, except in two places: the regular expression after ``=~``, where a
  ``(`` opens a group read to its matching ``)`` (anything may stand inside)
  and a ``|`` is a plain character; and the pattern after ``==``, ``=`` or
  ``!=``, where ``@( *( +( ?( !(`` open an extended pattern read to its
  matching ``)``. tree-sitter keeps such characters inside a word
  (``[[ x =~ a<b ]]``, which bash rejects; ``[[ a&&b ]]``, which bash reads
  as two words): a word holding one is not read.
* The words must make bash's grammar: ``( e )``, ``! e``, ``e && e``,
  ``e || e``, a unary operator and its word, a word, a binary operator and
  the words on both sides — where an operator is what bash takes for one
  (its unquoted spelling).

Either failing is `Unreadable`: the text is unmeasured. The check is
conservative: a few texts bash accepts (``[[ ! ]]``, ``[[ x =~ && ]]``) are
refused with the rest, never the other way round.
"""

from __future__ import annotations

from typing import Final

from gateway._read._extglob import PATTERN_OPENERS
from gateway._read._tree import Literal, Test, Word
from gateway._read._words import Unreadable, unquoted_characters

__all__ = ["ARITHMETIC_OPERATORS", "check_conditional"]

UNARY_OPERATORS: Final = frozenset(
    {
        "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t",
        "-u", "-w", "-x", "-G", "-L", "-N", "-O", "-S", "-o", "-v", "-R", "-z", "-n",
    }
)  # fmt: skip
"""bash's unary ``[[ ]]`` operators (``test_unop``)."""
ARITHMETIC_OPERATORS: Final = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
"""The binary operators whose two sides bash evaluates as arithmetic."""
BINARY_OPERATORS: Final = ARITHMETIC_OPERATORS | frozenset(
    {"==", "=", "!=", "=~", "<", ">", "-nt", "-ot", "-ef"}
)
"""bash's binary ``[[ ]]`` operators (``test_binop``, with ``=~``, ``<`` and ``>``)."""
_TOKENS: Final = frozenset({"(", ")", "!", "&&", "||", "<", ">"})
"""What an operand is when it is one of these, unquoted: an operator token of the grammar."""
_ENDS_A_WORD: Final = frozenset("<>;&|() \t\n")
_PATTERN_OPERATORS: Final = frozenset({"==", "=", "!="})


def _token(word: Word) -> str | None:
    """The operator token the word is, or ``None`` for a word."""
    parts = word.parts
    if len(parts) == 1 and isinstance(parts[0], Literal) and word.text in _TOKENS:
        return word.text
    return None


def _check_word(word: Word, text: str, context: str) -> None:
    """Refuse a word holding a character where bash ends it (``context``: word, regex, pattern)."""
    depth = 0
    previous = -2
    for at in unquoted_characters(word, text):
        char = text[at]
        if char == "(" and (
            depth
            or context == "regex"
            or (context == "pattern" and previous == at - 1 and text[previous] in PATTERN_OPENERS)
        ):
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif not depth and char in _ENDS_A_WORD and not (context == "regex" and char == "|"):
            raise Unreadable(
                f"bash ends the `[[ ]]` word at offset {word.span.start} before the {char!r} at "
                f"offset {at}, which tree-sitter reads inside it",
                at,
            )
        previous = at
    if depth:
        raise Unreadable(
            f"the `(` in the `[[ ]]` word at offset {word.span.start} is not closed",
            word.span.start,
        )


class _Grammar:
    def __init__(self, test: Test, text: str) -> None:
        self.words = test.operands
        self.tokens = [_token(w) for w in test.operands]
        self.text = text
        self.start = test.span.start

    def refuse(self, at: int) -> Unreadable:
        offset = self.words[at].span.start if at < len(self.words) else self.start
        return Unreadable(
            f"the `[[ ]]` at offset {self.start} is not a conditional expression bash reads "
            f"(at offset {offset})",
            offset,
        )

    def word(self, at: int, context: str = "word") -> None:
        if at >= len(self.words) or self.tokens[at] is not None:
            raise self.refuse(at)
        _check_word(self.words[at], self.text, context)

    def either(self, at: int) -> int:
        at = self.both(at)
        while at < len(self.words) and self.tokens[at] == "||":
            at = self.both(at + 1)
        return at

    def both(self, at: int) -> int:
        at = self.term(at)
        while at < len(self.words) and self.tokens[at] == "&&":
            at = self.term(at + 1)
        return at

    def term(self, at: int) -> int:
        while at < len(self.words) and self.tokens[at] == "!":
            at += 1
        if at < len(self.words) and self.tokens[at] == "(":
            at = self.either(at + 1)
            if at >= len(self.words) or self.tokens[at] != ")":
                raise self.refuse(at)
            return at + 1
        self.word(at)
        spelled = self.words[at].text
        if spelled in UNARY_OPERATORS:
            self.word(at + 1)
            return at + 2
        following = self.words[at + 1].text if at + 1 < len(self.words) else None
        operator = self.tokens[at + 1] if at + 1 < len(self.words) else None
        if following in BINARY_OPERATORS and operator in (None, "<", ">"):
            context = (
                "regex"
                if following == "=~"
                else "pattern"
                if following in _PATTERN_OPERATORS
                else "word"
            )
            self.word(at + 2, context)
            return at + 3
        return at + 1


def check_conditional(test: Test, text: str) -> None:
    """
    Refuse a ``[[ ]]`` whose operands are not the words bash reads, or make no expression.

    Raises:
        Unreadable: Where bash's reading and tree-sitter's part.
    """
    grammar = _Grammar(test, text)
    # Only `( )` recurses, and the reader's depth limit bounds how deep they nest.
    at = grammar.either(0)
    if at != len(grammar.words):
        raise grammar.refuse(at)
