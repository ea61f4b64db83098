"""
Where bash evaluates text as a number, and where that value comes from.

Bash evaluates a value it reads as a number as an *expression*, and an array
subscript in an expression is expanded first: ``x='a[$(id)]'; echo $((x))``
runs ``id``. So every place bash evaluates text as arithmetic is an
`Execute` effect of kind ``number`` with the origin of the text it evaluates:

* ``literal`` — written in the call (``$((i + 1))``, ``test -v 'a[1]'``);
* ``call_bound`` — the value of a variable the call bound to literal text
  (``n=5; echo $((n))``), the text given when there is one value;
* ``unknown`` — a substitution's output, a variable from outside, one bound
  to something the text does not show (``i=$(cat f); echo $((i))``).

A text that is known and holds an expansion (``a[$(id)]``, ``$x`` in quotes)
runs code when evaluated: that is an `Execute` of kind ``expansion`` too, so
an allow never rests on reading it. Bare names inside a known text are followed
(their values are evaluated in turn), to a bounded depth.

The sites, all of them found by the planner on the syntax tree (measured with
bash, see the tests): ``$(( ))``, ``$[ ]``, ``(( ))``, ``for (( ))``, array
subscripts (``a[i]=``, ``${a[i]}``, ``arr=([i]=v)``), ``${x:off:len}``,
``[[ x -eq y ]]`` (and ``-ne -lt -le -gt -ge``), ``[[ -v NAME ]]``, ``test -v``
/ ``[ -v ]``, ``let``, a name with a subscript given to ``declare``/
``typeset``/``local``/``export``/``readonly``/``read``/``printf -v``/
``unset``, ``declare -n`` targets, a read through a nameref whose target is
not known, values assigned to a variable with the integer attribute — bash's
own (``OPTIND``, ``RANDOM``…) or declared (``declare -i``, ``local -i``,
``typeset -gi``…) — by *any* binding form (``x=``, ``export``, ``read``,
``mapfile``, ``printf -v``, ``${x:=}``, ``for``, ``select``, ``getopts``),
and the target of ``>&WORD`` (bash expands it a second time).
``test``/``[`` with ``-eq`` and the ``shift``/``exit``/``return`` family read
plain integers and evaluate nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from gateway._calls._effects import Effect, Execute, Origin
from gateway._plan._paths import HOME, ROOT, expand_word
from gateway._plan._scope import Scope, Values
from gateway._read._tree import (
    Arithmetic,
    CommandSubstitution,
    Parameter,
    ProcessSubstitution,
    Word,
)

__all__ = ["NUMBER", "Numbers", "runs_code"]

NUMBER: Final = "\ue002"
"""Stands for the value of an arithmetic result (an integer) in a variable's value."""
_IDENTIFIER: Final = re.compile(r"(?<![A-Za-z0-9_#.$@])([A-Za-z_][A-Za-z0-9_]*)")
_ASSIGNED: Final = re.compile(
    r"(?<![A-Za-z0-9_$])([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*=(?!=)"
)
_MAX_DEPTH: Final = 8
_SAFE_SPECIAL: Final = frozenset({"?", "#", "$", "!"})
"""Special parameters whose value is always an integer bash made (or empty)."""


def runs_code(text: str) -> bool:
    """True when evaluating ``text`` as arithmetic expands something in it (a subscript's ``$``/backquote)."""
    return "$" in text or "`" in text


class Numbers:
    """Finds the number sites of one command (or statement) and states them as effects."""

    def __init__(self, scope: Scope, scrub: Callable[[str], str]) -> None:
        self.scope = scope
        self.scrub = scrub
        self.found: list[Effect] = []

    def _site(self, via: str, text: str | None, origin: Origin) -> None:
        shown = None if text is None else self.scrub(text)
        self.found.append(Execute(kind="number", via=via, text=shown, origin=origin))

    def _code(self, via: str, text: str, origin: Origin) -> None:
        self.found.append(Execute(kind="expansion", via=via, text=self.scrub(text), origin=origin))

    # ── the values evaluated ──

    def known(self, text: str, via: str, origin: Origin, depth: int = 0) -> None:
        """A text that is evaluated and whose value is known (``literal`` or ``call_bound``)."""
        if NUMBER in text or HOME in text or ROOT in text:
            return  # an integer, or a path: evaluating it expands nothing
        if runs_code(text):
            self._code(via, text, origin)
            return  # it runs code: what its names hold no longer matters
        if depth >= _MAX_DEPTH:
            if _IDENTIFIER.search(text):
                self._site(via, None, "unknown")
            return
        for name in dict.fromkeys(_IDENTIFIER.findall(text)):
            self.variable(name, via, depth + 1)

    def variable(self, name: str, via: str, depth: int = 0) -> None:
        """The value of variable ``name`` is evaluated as an expression."""
        if name in _SAFE_SPECIAL:
            return
        values = self.scope.values(name)
        if values is None:
            self._site(via, name, "unknown")
            return
        single = next(iter(values)) if len(values) == 1 else None
        self._site(via, single, "call_bound")
        for value in sorted(values):
            self.known(value, via, "call_bound", depth)

    def assigned(self, via: str, origin: Origin, values: Values) -> None:
        """
        Values a binding form gives an integer variable: bash evaluates each as an expression.

        ``values`` are what the variable may be given (``None``: not known, a
        line ``read`` read, a file's content); an integer bash made is
        evaluated as itself.
        """
        if values is not None and all(NUMBER in value for value in values):
            return
        if values is None or origin == "unknown":
            self._site(via, None, "unknown")
            return
        self._site(via, next(iter(values)) if len(values) == 1 else None, origin)
        for value in sorted(values):
            self.known(value, via, origin)

    # ── the sites ──

    def arithmetic(self, part: Arithmetic, via: str) -> None:
        """An arithmetic expression (``$(( ))``, ``(( ))``, a subscript, ``${x:off:len}``)."""
        self._site(via, part.expression.strip(), "literal")
        for name in _read_names(part.expression, part.variables):
            self.variable(name, via)
        for inner in part.parts:
            if isinstance(inner, Parameter):
                if inner.length or (inner.special and inner.name in _SAFE_SPECIAL):
                    continue  # an integer bash made
                if _dynamic(inner):
                    self._site(via, None, "unknown")
                else:
                    self.variable(inner.name, via)
            elif isinstance(inner, CommandSubstitution | ProcessSubstitution):
                self._site(via, None, "unknown")

    def word(self, word: Word, via: str) -> None:
        """A word whose expansion is evaluated as an expression (``[[ $x -eq 1 ]]``, ``test -v``)."""
        if word.value is not None:
            self._site(via, word.value, "literal")
            self.known(word.value, via, "literal")
            return
        resolved = expand_word(word, self.scope)
        if resolved.values is None:
            self._site(via, None, "unknown")
            return
        single = resolved.values[0] if len(resolved.values) == 1 else None
        self._site(via, single, "call_bound")
        for value in resolved.values:
            self.known(value, via, "call_bound")

    def value(self, value: str | None, word: Word | None, via: str) -> None:
        """A value (a word's, or a part of one such as ``NAME[SUB]``) evaluated as an expression."""
        if value is not None:
            self._site(via, value, "literal")
            self.known(value, via, "literal")
        elif word is not None:
            self.word(word, via)
        else:
            self._site(via, None, "unknown")


def _read_names(expression: str, names: Sequence[str]) -> list[str]:
    """The names an expression reads: all of them but those it only assigns (``i = 0``)."""
    assigned = _ASSIGNED.findall(expression)
    found: list[str] = []
    for name in dict.fromkeys(names):
        uses = len(re.findall(rf"(?<![A-Za-z0-9_$]){re.escape(name)}(?![A-Za-z0-9_])", expression))
        if uses > assigned.count(name):
            found.append(name)
    return found


def _dynamic(part: Parameter) -> bool:
    """A parameter whose value the scope cannot give (``${!x}``, ``${x:-…}``, ``${a[i]}``, ``$1``…)."""
    if part.special:
        return part.name not in _SAFE_SPECIAL
    return part.indirect or part.operator is not None or part.subscript is not None
