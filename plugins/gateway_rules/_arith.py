"""
Where bash evaluates text as arithmetic, and whether that text can be trusted.

Bash evaluates an array subscript inside arithmetic with expansions, so a
value such as ``a[$(rm -rf ~)]`` runs ``rm`` wherever it is read as a
number: in ``$(( ))`` and ``(( ))``, in ``[[ x -eq y ]]`` and ``test x -eq
y``, in ``printf %d``, ``shift``, ``exit``, ``return``, ``let``, in a name
given to ``read``, ``unset``, ``declare``, ``test -v``… The plan shows
these values as plain words. This module finds the two ways in:

* text written in the call that looks like a subscript with an expansion in
  it (``'a[$(id)]'``), wherever it is — quoted text is not expanded by the
  word, but it is by the arithmetic that later reads it;
* values that reach arithmetic without being literal numbers the plan can
  see: variables read by arithmetic that the call did not set to a literal
  (``n=$(cat f); echo $((n))``), and expansions given to builtins that
  evaluate their operands as numbers (``[ "$n" -eq 1 ]``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from gateway import Plan

__all__ = ["SUBSCRIPT_TEXT", "arithmetic_operand", "literal_bindings", "test_statement_operand"]

SUBSCRIPT_TEXT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[[^\]\n]*(?:\$[({\[]|`)")
"""A subscript whose text holds a command substitution, a parameter or an old ``$[ ]`` expansion."""

_LITERAL: Final = r"[A-Za-z0-9_.,:/+%@-]*"
_NAME: Final = r"[A-Za-z_][A-Za-z0-9_]*"
_LITERAL_ASSIGNMENTS: Final = re.compile(rf"{_NAME}={_LITERAL}(?:[ \t]+{_NAME}={_LITERAL})*")
_LITERAL_FOR: Final = re.compile(rf"for[ \t]+({_NAME})[ \t]+in(?:[ \t]+{_LITERAL})*[ \t]*[;\n]")
_REFERENCE: Final = re.compile(r"\$(?:\{[#!]?)?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[?#$!*@-])")
_SAFE_SPECIAL: Final = frozenset({"?", "#", "$", "!", "-"})
_TEST_ARITHMETIC: Final = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v"})
_NUMBER_BUILTINS: Final = frozenset(
    {"shift", "exit", "return", "break", "continue", "let", "ulimit", "kill", "wait", "umask"}
)
_INTEGER_FORMAT: Final = re.compile(r"%[-+ #0]*(?:[0-9]+|\*)?(?:\.(?:[0-9]+|\*))?[diouxXc]")


def literal_bindings(plans: Iterable[Plan]) -> set[str]:
    """
    The variables a call sets only to literal text the plan shows.

    ``n=5``, ``for i in 1 2 3``, and ``(( i = 0 ))`` (arithmetic stores a
    number) count; ``n=$(cat f)``, ``read n``, ``for f in *`` do not.
    """
    found: set[str] = set()
    for plan in plans:
        rendered = plan.rendered.strip()
        if (
            plan.statement_kind == "assignment" and _LITERAL_ASSIGNMENTS.fullmatch(rendered)
        ) or plan.statement_kind == "arith":
            found.update(plan.bound_variables)
        elif plan.statement_kind == "for":
            head = _LITERAL_FOR.match(rendered)
            if head is not None:
                found.add(head.group(1))
    return found


def _unsafe_reference(text: str, trusted: set[str]) -> str | None:
    """The first expansion in ``text`` whose value the plan cannot see to be a number."""
    if "$(" in text or "`" in text or "$[" in text:
        return text
    for found in _REFERENCE.finditer(text):
        name = found.group(1)
        if name in _SAFE_SPECIAL or name in trusted:
            continue
        return f"${name}"
    return None


def arithmetic_operand(
    program: str | None,
    args: Sequence[str | None],
    written: Sequence[str],
    trusted: set[str],
) -> str | None:
    """
    An expansion a builtin evaluates as a number, when its value is not a literal the plan sees.

    ``test``/``[`` with an arithmetic operator (``-eq``…) or ``-v``,
    ``printf`` with an integer format, and ``shift``, ``exit``, ``return``,
    ``break``, ``continue``, ``let``, ``ulimit``, ``kill``, ``wait``,
    ``umask`` with any argument that expands.
    """
    if program in ("test", "["):
        if not any(arg in _TEST_ARITHMETIC for arg in args):
            return None
    elif program == "printf":
        formats = [arg for arg in args if arg is not None and not arg.startswith("-")]
        if not formats or not _INTEGER_FORMAT.search(formats[0]):
            return None
    elif program not in _NUMBER_BUILTINS:
        return None
    for value, text in zip(args, written, strict=False):
        if value is None:
            reference = _unsafe_reference(text, trusted)
            if reference is not None:
                return reference
    return None


def test_statement_operand(plan: Plan, trusted: set[str]) -> str | None:
    """
    An expansion a ``[[ ]]`` in this statement may evaluate as a number, when it is not a literal.

    ``[[ ]]`` is not a command in the plan, so this reads the statement's
    text: any ``[[`` with an arithmetic operator or ``-v`` and an expansion
    in the same statement counts.
    """
    rendered = plan.rendered
    if "[[" not in rendered or not any(
        re.search(rf"(?<![\w-]){operator}(?![\w-])", rendered) for operator in _TEST_ARITHMETIC
    ):
        return None
    return _unsafe_reference(rendered, trusted)
