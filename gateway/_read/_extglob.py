"""
Extended patterns: what bash reads depends on ``shopt extglob`` at the time it *parses* the text.

With ``extglob`` on, bash reads ``@(…)``, ``*(…)``, ``+(…)``, ``?(…)`` and
``!(…)`` inside a word as one pattern; with it off, the ``(`` ends the word and
the line is a syntax error — or, at the start of a command, something else
entirely: ``!(k1)`` is the negated subshell ``! ( k1 )`` with ``extglob`` off
and a command named by a pattern with it on. The option is the host shell's
state, set before the text arrives (a profile, a shell snapshot) or by an
earlier line of the text itself — ``shopt -s extglob`` on the *same* line
changes nothing, because bash parses the whole line before it runs ``shopt``.
The project cannot tell which, so it reads no text whose reading depends on
it: such a reading is unmeasured.

The one place bash reads extended patterns whatever the option says is the
right-hand side of ``==``, ``!=`` and ``=`` inside ``[[ ]]``; there (and in
the regular expression after ``=~``, where parentheses are the regular
expression's own) a pattern is read as both readers read it.

What is refused, on the reading both readers agreed on:

* an unquoted ``(`` in any word (a command's word, an assignment's value, an
  array element, a redirect target, a ``for`` item, a ``case`` pattern or
  subject) outside a substitution — with ``extglob`` off bash has no such word;
* in an argument bash reads as an array assignment (``declare -a a=(…)``) or
  another operand of ``[[ ]]``, a ``(`` right after ``@ * + ? !``;
* a function name holding one of those characters (``f*() { …; }``);
* a ``!`` right before a ``(`` (in `assemble`, where both readers' ``!`` meet).
"""

from __future__ import annotations

from typing import Final

from gateway._read._masks import declares
from gateway._read._tree import (
    Assignment,
    Case,
    For,
    Function,
    Node,
    Program,
    Redirect,
    SimpleCommand,
    Test,
    Word,
    walk,
)
from gateway._read._words import Unreadable, unquoted_characters

__all__ = ["PATTERN_OPENERS", "check_extended_patterns"]

PATTERN_OPENERS: Final = frozenset("@*+?!")
"""The characters that, right before ``(``, open an extended pattern."""
_PATTERN_OPERATORS: Final = frozenset({"==", "!=", "=", "=~"})


def _refuse(at: int, where: str) -> Unreadable:
    return Unreadable(
        f"the {where} at offset {at} holds an extended pattern, which bash reads only when "
        "`extglob` is on where it parses the text, and the readers cannot tell whether it is",
        at,
    )


def _check_word(word: Word, text: str, where: str, *, openers_only: bool = False) -> None:
    for at in unquoted_characters(word, text):
        if text[at] != "(":
            continue
        if not openers_only or (at > word.span.start and text[at - 1] in PATTERN_OPENERS):
            raise _refuse(at, where)


def _array_argument(command: SimpleCommand, word: Word) -> bool:
    return declares(command) and word is not command.words[0] and "=(" in word.text


def _check_node(node: Node, text: str) -> None:
    if isinstance(node, SimpleCommand):
        for word in node.words:
            _check_word(word, text, "word", openers_only=_array_argument(node, word))
    elif isinstance(node, Redirect):
        if node.target is not None and node.heredoc is None:
            _check_word(node.target, text, "redirect target")
    elif isinstance(node, Assignment):
        for element in (node.value, *(node.array or ())):
            if element is not None:
                _check_word(element, text, "assignment")
    elif isinstance(node, Test):
        previous: str | None = None
        for operand in node.operands:
            if previous not in _PATTERN_OPERATORS:
                _check_word(operand, text, "`[[ ]]` operand", openers_only=True)
            previous = operand.value
    elif isinstance(node, For):
        for word in node.items or ():
            _check_word(word, text, "`for` word")
    elif isinstance(node, Function):
        if any(char in PATTERN_OPENERS for char in node.name):
            raise _refuse(node.span.start, "function name")
    elif isinstance(node, Case):
        _check_word(node.subject, text, "`case` subject")
        for item in node.items:
            for pattern in item.patterns:
                _check_word(pattern, text, "`case` pattern")


def check_extended_patterns(program: Program, text: str) -> None:
    """
    Refuse a reading that depends on whether ``extglob`` is on (see the module's docstring).

    Raises:
        Unreadable: The first place where the reading depends on it.
    """
    if "(" not in text and "function" not in text:
        # Every refusal above is of a `(` in the text, or of a function's
        # name, which only `name()` or the keyword `function` defines.
        return
    for node in walk(program):
        _check_node(node, text)
