"""
awk program text, tokenized: what a program runs, writes, reads, sends and loads.

An awk program runs commands (``system()``, ``print | "cmd"``, ``"cmd" |
getline``, gawk's ``|&`` coprocesses and indirect calls ``@f()``), writes
files (``print > "f"``, ``>>``), reads them (``getline < "f"``, and whatever
it puts in ``ARGV``), reads the environment (``ENVIRON``), talks over the
network (gawk's ``/inet/…`` special files) and loads code (gawk's
``@include``, ``@load``). This module tokenizes the text as awk does
(strings, regular expression literals told from division by what comes
before them, comments, backslash-newline continuations joined inside and
between tokens as mawk, gawk, the one true awk and busybox all do) and finds
each of those forms in the tokens, never in the raw text.

Where awks disagree or the grammar is ambiguous the reading is conservative:
a ``>`` at the top level of a ``print`` statement is a redirection (it is one
in every awk); a redirection or command that is more than one plain string
literal has an unknown target; a ``/`` that awks split differently (after
``++``, ``--``, ``$`` or ``getline``; inside a bracket expression of a regular
expression literal, where busybox ends the literal) makes the text
unreadable, and so does every character awk would not read.

Pure and linear: one pass to tokenize, one to match brackets, one to read.
"""

from __future__ import annotations

import math
from typing import Final, Literal, NamedTuple

from gateway._programs import ArgumentFact, FactKind
from gateway._programs._lasting import MOST_ROUNDS

__all__ = ["ProgramFacts", "Unreadable", "program_facts"]

Dialect = Literal["gawk", "mawk", "bwk", "any"]
"""Which awk reads the text; ``any`` when it may be any of them."""

# fmt: off
_KEYWORDS: Final = frozenset({
    "BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for",
    "do", "break", "continue", "next", "nextfile", "exit", "return", "delete", "print",
    "printf", "in", "switch", "case", "default",
})
"""Names after which a ``/`` starts a regular expression (awk expects an operand there)."""

_OPERATORS: Final = (
    "**=", "&&", "||", "|&", ">>", "==", "!=", "<=", ">=", "!~", "++", "--", "+=", "-=", "*=",
    "/=", "%=", "^=", "**", "+", "-", "*", "/", "%", "^", "!", ">", "<", "|", "?", ":", "~",
    "=", ",", ";", "{", "}", "(", ")", "[", "]", "$",
)
"""awk's operators and punctuation, longest first."""
_OPERATORS_AT: Final = {
    first: tuple(operator for operator in _OPERATORS if operator[0] == first) for first in {o[0] for o in _OPERATORS}
}
"""The operators by their first character, longest first (one dictionary lookup per operator)."""

_NEWLINE_AFTER: Final = frozenset({",", "{", "&&", "||", "do", "else"})
"""Tokens after which awk ignores a newline (the statement goes on)."""

_BOUNDARY: Final = frozenset({
    "\n", "(", "{", "}", ";", ",", "&&", "||", "?", ":", "=", "+=", "-=", "*=", "/=", "%=",
    "^=", "**=", "return", "do", "else",
})
"""Tokens after which a string literal starts an expression of its own (no concatenation reaches back)."""

_FILE_END: Final = frozenset({
    "", "\n", ";", "}", ")", ",", "&&", "||", "?", ":", ">", "<", "==", "!=", "<=", ">=", "]",
})
"""Tokens after ``getline < "file"`` that show the file's name is that one string."""
# fmt: on

_PRINT_END: Final = frozenset(["", "\n", ";", "}", "else"])
"""Tokens that end a ``print`` statement at its own level."""

_OUTPUT_STREAMS: Final = frozenset({"/dev/stdout", "/dev/stderr"})
"""Output names every awk writes to its own standard streams."""
_INPUT_STREAMS: Final = frozenset({"-", "/dev/stdin"})

_PAIRS: Final = {")": "(", "]": "[", "}": "{"}


_ASSIGNING: Final = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**=", "++", "--"})
"""Operators that write the variable before them (``++``/``--`` also the one after them)."""
_COUNTS: Final = frozenset({"NF", "NR", "FNR"})
"""Variables that count what was read: a loop up to one of them ends with the input."""
_EDITS: Final = frozenset({"sub", "gsub"})
"""Functions that write their last argument (``$0`` when it is left out)."""
_UP: Final = frozenset({"<", "<="})
_DOWN: Final = frozenset({">", ">="})


class Unreadable(Exception):
    """The text cannot be tokenized as awk reads it; the message is the clause."""


class _Token(NamedTuple):
    """One token: ``text`` is the operator, name or number; strings are ``"`` with their body in ``value``."""

    kind: Literal["name", "number", "string", "regex", "op", "newline", "at", "end"]
    text: str
    value: str = ""


_END: Final = _Token("end", "")


def _starts_name(char: str) -> bool:
    return char.isascii() and (char.isalpha() or char == "_")


def _digit(char: str) -> bool:
    return "0" <= char <= "9" and len(char) == 1


def _name_end(source: str, at: int) -> int:
    while at < len(source) and source[at].isascii() and (source[at].isalnum() or source[at] == "_"):
        at += 1
    return at


def _tokens(source: str) -> list[_Token]:
    """Tokenize awk program text; raises `Unreadable` for what awks would not read the same way."""
    tokens: list[_Token] = []
    at = 0
    length = len(source)
    while at < length:
        char = source[at]
        last = tokens[-1] if tokens else None
        if char == "\\":
            if source.startswith("\\\n", at):
                at += 2
                continue
            raise Unreadable("it has a backslash outside a string or regular expression")
        if char in " \t\r":
            at += 1
        elif char == "\n":
            if last is None or last.kind == "string" or last.text not in _NEWLINE_AFTER:
                tokens.append(_Token("newline", "\n"))
            at += 1
        elif char == "#":
            # A comment ends at the newline; a backslash before it continues nothing.
            end = source.find("\n", at)
            at = length if end < 0 else end
        elif char == '"':
            at = _string(source, at + 1, tokens)
        elif char == "/" and _regex_allowed(last):
            at = _regex(source, at + 1)
            tokens.append(_Token("regex", "/"))
        elif _starts_name(char):
            start = at
            at = _name_end(source, at)
            # gawk's namespaces: ns::name is one name.
            while source.startswith("::", at) and _starts_name(source[at + 2 : at + 3]):
                at = _name_end(source, at + 2)
            tokens.append(_Token("name", source[start:at]))
        elif _digit(char) or (char == "." and _digit(source[at + 1 : at + 2])):
            start = at
            while (
                at < length and source[at].isascii() and (source[at].isalnum() or source[at] == ".")
            ):
                at += 2 if source[at] in "eE" and source[at + 1 : at + 2] in ("+", "-") else 1
            tokens.append(_Token("number", source[start:at]))
        elif char == "@":
            tokens.append(_Token("at", "@"))
            at += 1
            if source[at : at + 1] == "/":
                at = _regex(source, at + 1)
                tokens.append(_Token("regex", "/"))
        else:
            operator = next(
                (o for o in _OPERATORS_AT.get(char, ()) if source.startswith(o, at)), None
            )
            if operator is None:
                raise Unreadable(f"it has the character {char!r}, which awk does not read")
            if (
                operator in ("/", "/=")
                and last is not None
                and last.text in ("++", "--", "$", "getline")
            ):
                raise Unreadable(f"it has a `/` after `{last.text}`, which awks split differently")
            tokens.append(_Token("op", operator))
            at += len(operator)
    tokens.append(_END)
    return tokens


def _string(source: str, at: int, tokens: list[_Token]) -> int:
    """Read a string literal's body (``at`` is just past the quote); return the index past its end."""
    start = at
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 2
        elif char == "\n":
            raise Unreadable("a string in it is not closed on its line")
        elif char == '"':
            tokens.append(_Token("string", '"', source[start:at]))
            return at + 1
        else:
            at += 1
    raise Unreadable("a string in it is not closed")


def _regex_allowed(last: _Token | None) -> bool:
    """Whether a ``/`` after ``last`` starts a regular expression (awk expects an operand)."""
    if last is None:
        return True
    if last.kind in ("number", "string", "regex"):
        return False
    if last.kind == "name":
        return last.text in _KEYWORDS
    if last.kind == "op":
        return last.text not in (")", "]", "++", "--", "$")
    return True


def _regex(source: str, at: int) -> int:
    """
    Skip a regular expression literal's body (``at`` is just past its ``/``); return the index past its end.

    A bracket expression is followed the longest way any awk follows one (a
    ``]`` first is literal; ``[:``, ``[.``, ``[=`` open a class that only their
    own ``:]``, ``.]``, ``=]`` close), and a ``/`` inside one is unreadable:
    gawk, mawk and the one true awk read on, busybox ends the literal there.
    """
    length = len(source)
    bracket = False
    close = ""
    while at < length:
        char = source[at]
        if char == "\\":
            if at + 1 >= length:
                break
            at += 2
            continue
        if char == "\n":
            break
        if close:
            if source.startswith(close, at):
                at += 2
                close = ""
                continue
            if char == "/":
                raise Unreadable(
                    "it has a `/` inside a bracket expression, which awks read differently"
                )
        elif bracket:
            if char == "[" and source[at + 1 : at + 2] in (":", ".", "="):
                close = source[at + 1] + "]"
                at += 2
                continue
            if char == "]":
                bracket = False
            elif char == "/":
                raise Unreadable(
                    "it has a `/` inside a bracket expression, which awks read differently"
                )
        elif char == "[":
            bracket = True
            at += 1
            if source[at : at + 1] == "^":
                at += 1
            if source[at : at + 1] == "]":
                at += 1
            continue
        elif char == "/":
            return at + 1
        at += 1
    raise Unreadable("a regular expression in it is not closed")


def _matches(tokens: list[_Token]) -> dict[int, int]:
    """Each opening bracket's position → its closing one's; `Unreadable` when they do not pair."""
    matches: dict[int, int] = {}
    stack: list[int] = []
    for position, token in enumerate(tokens):
        if token.kind != "op":
            continue
        if token.text in ("(", "[", "{"):
            stack.append(position)
        elif token.text in _PAIRS:
            if not stack or tokens[stack[-1]].text != _PAIRS[token.text]:
                raise Unreadable(f"it has a `{token.text}` that closes nothing")
            matches[stack.pop()] = position
    if stack:
        raise Unreadable(f"it has a `{tokens[stack[-1]].text}` that is never closed")
    return matches


class ProgramFacts(NamedTuple):
    """What one piece of program text does, and the clauses that make it unreadable (``@include``…)."""

    facts: list[ArgumentFact]
    refusals: list[str]
    in_place: bool
    """gawk's ``inplace`` library is included: the program writes its file operands."""


class _Reader:
    """The facts of one piece of program text, found in its tokens."""

    def __init__(self, tokens: list[_Token], index: int, dialect: Dialect) -> None:
        self.tokens = tokens
        self.matches = _matches(tokens)
        self.index = index
        self.gawk = dialect in ("gawk", "any")
        self.facts: list[ArgumentFact] = []
        self.refusals: list[str] = []
        self.in_place = False

    def fact(self, kind: FactKind, via: str, value: str | None, action: str | None = None) -> None:
        # A file the program names only at run time (`getline < f`, ARGV) is
        # no argument's value: given no index, the planner does not take the
        # program text itself for its path.
        unnamed = value is None and kind in ("read", "write")
        index = None if unnamed else self.index
        self.facts.append(ArgumentFact(kind=kind, via=via, index=index, value=value, action=action))

    def at(self, position: int) -> _Token:
        return self.tokens[position] if 0 <= position < len(self.tokens) else _END

    def op(self, position: int, *texts: str) -> bool:
        token = self.at(position)
        return token.kind == "op" and token.text in texts

    def literal(self, position: int) -> str | None:
        """The value of the string literal at ``position``, when it has no escape to decode (awks decode them differently)."""
        token = self.at(position)
        if token.kind != "string" or "\\" in token.value:
            return None
        return token.value

    def after_group(self, position: int) -> int:
        """Just past the group that opens at ``position`` (or ``position`` when none opens there)."""
        closing = self.matches.get(position)
        return position if closing is None else closing + 1

    def network(self, target: str | None, via: str) -> bool:
        """State gawk's ``/inet`` special file as network; true when ``target`` is one."""
        if not self.gawk or target is None:
            return False
        parts = target.split("/")
        if len(parts) < 6 or parts[0] != "" or parts[1] not in ("inet", "inet4", "inet6"):
            return False
        local, host, port = parts[3], parts[4], parts[5]
        if host == "0" and port == "0":
            self.fact("network", via, f"port {local}", "listen")
        else:
            self.fact("network", via, f"{host}:{port}", "connect")
        return True

    def unknown_target(self, via: str) -> None:
        """A file name only known at run time may be gawk's ``/inet`` special file."""
        if self.gawk:
            self.fact("network", via, None, "connect")

    def read(self) -> None:
        """Walk the tokens once, stating every fact (`Unreadable` for what cannot be read)."""
        level = 0
        statement: int | None = None
        """The bracket level of the ``print`` statement being read, if any."""
        redirect: tuple[str, int] | None = None
        for position, token in enumerate(self.tokens):
            if (
                statement is not None
                and level == statement
                and (token.kind != "string" and token.text in _PRINT_END)
            ):
                if redirect is not None:
                    self.redirect(redirect[0], redirect[1] + 1, position)
                statement, redirect = None, None
            if token.kind == "op" and token.text in ("(", "[", "{"):
                level += 1
            elif token.kind == "op" and token.text in _PAIRS:
                level -= 1
            elif token.kind == "name":
                self.name(position)
                if token.text in ("print", "printf") and statement is None:
                    statement = level
            elif token.kind == "at":
                self.directive(position)
            elif token.kind == "op" and token.text in ("|", "|&"):
                if self.at(position + 1) == _Token("name", "getline"):
                    self.command_getline(position)
                elif statement == level and redirect is None:
                    redirect = (token.text, position)
                else:
                    raise Unreadable(
                        f"it has a `{token.text}` that is neither output to a command nor `getline`"
                    )
            elif (
                token.kind == "op"
                and token.text in (">", ">>")
                and statement == level
                and redirect is None
            ):
                redirect = (token.text, position)

    def loops(self) -> None:
        """
        State a loop that may never end: any but counting ``for`` loops, and functions that may call themselves.

        awk ends with its input, and so does a loop over an array (``for (k
        in a)``) or a counting loop whose bounds are numbers written in the
        program (at most `MOST_ROUNDS` apart) or counts of what was read
        (``NF``, ``NR``, ``FNR``): ``for (i = 1; i <= NF; i++)``, stepping
        towards its bound, with a counter neither its body nor a function
        writes (and, for ``NF``, no field written and no ``sub``/``gsub``
        there, which may add fields). Every other loop (``while (1)``, ``do``, ``for
        (;;)``, ``for (i = 0; i < n; i++)``) may go round forever, and so
        may a function that calls a function of the program.
        """
        functions: dict[str, int] = {}
        for position, token in enumerate(self.tokens):
            if token.kind != "name":
                continue
            if token.text == "do" or (token.text == "while" and not self.reading(position + 1)):
                self.fact("lifetime", token.text, None, "unbounded")
                return
            if (
                token.text == "for"
                and self.op(position + 1, "(")
                and not self.counting(position + 1)
            ):
                self.fact("lifetime", "for", None, "unbounded")
                return
            if token.text in ("function", "func") and self.at(position + 1).kind == "name":
                functions[self.at(position + 1).text] = position
        for name, position in functions.items():
            body = next((at for at in range(position, len(self.tokens)) if self.op(at, "{")), None)
            end = self.matches.get(body, len(self.tokens)) if body is not None else position
            calls = any(
                self.tokens[at].kind == "name"
                and self.tokens[at].text in functions
                and self.op(at + 1, "(")
                for at in range(position + 2, end)
            )
            if calls:
                self.fact("lifetime", f"function {name}", None, "unbounded")
                return

    def reading(self, opening: int) -> bool:
        """
        True when the ``while`` condition opening at ``opening`` is ``((… getline …) > 0)``.

        Each round reads a line, and ``getline`` gives 0 at the end and -1
        on an error, so the loop ends with what it reads (``while (getline)``
        alone goes round forever on a file it cannot open), unless the
        program calls ``close``, which starts what it reads again.
        """
        closing = self.matches.get(opening)
        inner = self.matches.get(opening + 1)
        if closing is None or inner is None or not self.op(opening + 1, "("):
            return False
        return (
            closing == inner + 3
            and self.op(inner + 1, ">")
            and self.at(inner + 2) == _Token("number", "0")
            and any(token == _Token("name", "getline") for token in self.tokens[opening:inner])
            and _Token("name", "close") not in self.tokens
        )

    def counting(self, opening: int) -> bool:
        """True when the ``for`` header opening at ``opening`` is an array loop or a bounded counting loop."""
        closing = self.matches[opening]
        header = [token for token in self.tokens[opening + 1 : closing] if token.kind != "newline"]
        parts: list[list[_Token]] = [[]]
        for token in header:
            if token == _Token("op", ";"):
                parts.append([])
            else:
                parts[-1].append(token)
        if len(parts) == 1:
            return True  # `for (k in a)`: once for each element
        if len(parts) != 3 or len(parts[0]) != 3 or len(parts[1]) != 3:
            return False
        (counter, assign, first), (named, compare, bound), step = parts
        if (
            counter.kind != "name"
            or assign != _Token("op", "=")
            or named != counter
            or compare.kind != "op"
            or not (_bounded(first) and _bounded(bound))
        ):
            return False
        if compare.text in _UP:
            steps = {("++",), ("+=", "number")}
        elif compare.text in _DOWN:
            steps = {("--",), ("-=", "number")}
        else:
            return False
        shape = tuple(
            token.kind if token.kind == "number" else token.text
            for token in step
            if token != counter
        )
        if (
            counter not in step
            or shape not in steps
            or any(token.kind == "number" and not _number(token.text) > 0 for token in step)
        ):
            return False
        written = {counter.text, bound.text} if bound.kind == "name" else {counter.text}
        return not any(self.writes(at, written, counter.text) for at in self.reached(closing))

    def reached(self, closing: int) -> list[int]:
        """The positions a loop's round may run: its body (after ``closing``) and every function."""
        body = closing + 1
        while self.at(body).kind == "newline":
            body += 1
        if self.op(body, "{"):
            end = self.matches[body]
        else:  # one statement: a simple one ends at `;` or a newline, any other with its block
            simple = self.at(body).text not in ("if", "for", "while", "do", "else")
            ends = {";", "\n", "}"} if simple else {"}"}
            end, level = body, 0
            while end < len(self.tokens) and not (level == 0 and self.at(end).text in ends):
                level += self.op(end, "(", "[", "{") - self.op(end, ")", "]", "}")
                end += 1
        positions = list(range(body, end + 1))
        for at, token in enumerate(self.tokens):
            if token.kind == "name" and token.text in ("function", "func"):
                opening = next((i for i in range(at, len(self.tokens)) if self.op(i, "{")), at)
                positions.extend(range(at, self.matches.get(opening, at) + 1))
        return positions

    def writes(self, position: int, names: set[str], counter: str) -> bool:
        """
        True when the token at ``position`` may write one of ``names`` (or, for ``NF``, add a field).

        A field the counter indexes (``$i = x``, ``sub(/a/, "b", $i)``) is
        one the loop's ``NF`` already counts: writing it adds none.
        """
        token = self.at(position)
        if token.kind == "name" and token.text in _EDITS:
            inside = self.tokens[position + 1 : self.after_group(position + 1)]
            if inside[-4:] == [
                _Token("op", ","),
                _Token("op", "$"),
                _Token("name", counter),
                _Token("op", ")"),
            ]:
                return False
            return "NF" in names or any(
                other.kind == "name" and other.text in names for other in inside
            )
        if self.op(position, "$") and "NF" in names:
            if self.at(position + 1) == _Token("name", counter) and not self.op(
                position + 2, "[", "("
            ):
                return False
            end = self.lvalue_end(position)
            return self.op(end, *_ASSIGNING) or self.op(position - 1, "++", "--")
        if token.kind != "name" or token.text not in names:
            return False
        before = self.at(position - 1)
        if self.op(position - 1, "$") and self.at(position - 2) != _Token("op", "$"):
            return False  # `$i = x` writes the field, not the counter
        return (
            self.op(position + 1, *_ASSIGNING)
            or self.op(position - 1, "++", "--")
            or (before.kind == "name" and before.text == "getline")
        )

    def name(self, position: int) -> None:
        text = self.tokens[position].text
        if text == "system":
            value = (
                self.literal(position + 2)
                if self.op(position + 1, "(") and self.op(position + 3, ")")
                else None
            )
            self.fact("execute", "system()", value, "shell_text")
        elif text == "ENVIRON":
            value = (
                self.literal(position + 2)
                if self.op(position + 1, "[") and self.op(position + 3, "]")
                else None
            )
            self.fact("read_environment", "ENVIRON", value)
        elif text == "SYMTAB":
            # gawk's table of every global: `SYMTAB["ENVIRON"]["TOKEN"]`, and ARGV too.
            self.fact("read_environment", "SYMTAB", None)
            self.fact("read", text, None)
        elif text in ("ARGV", "ARGC"):
            # A program that changes ARGV changes which files it reads.
            self.fact("read", text, None)
        elif text == "getline" and not self.op(position - 1, "|", "|&"):
            after = self.lvalue_end(position + 1)
            if not self.op(after, "<"):
                return
            end = self.at(after + 2)
            target = (
                self.literal(after + 1) if end.kind != "string" and end.text in _FILE_END else None
            )
            if target in _INPUT_STREAMS or self.network(target, "getline <"):
                return
            self.fact("read", "getline <", target)
            if target is None:
                self.unknown_target("getline <")

    def lvalue_end(self, position: int) -> int:
        """Just past the variable ``getline`` reads into (``x``, ``a[i]``, ``$2``, ``$(i+1)``), if there is one."""
        token = self.at(position)
        if token.kind == "name" and token.text not in _KEYWORDS:
            return self.after_group(position + 1) if self.op(position + 1, "[") else position + 1
        while self.op(position, "$"):
            position += 1
            if self.op(position, "++", "--"):
                position += 1
            token = self.at(position)
            if token.kind in ("number", "string"):
                return position + 1
            if token.kind == "name":
                return (
                    self.after_group(position + 1) if self.op(position + 1, "[") else position + 1
                )
            if self.op(position, "("):
                return self.after_group(position)
        return position

    def command_getline(self, position: int) -> None:
        """``cmd | getline`` or ``cmd |& getline``: the command is the expression left of the bar."""
        coprocess = self.tokens[position].text == "|&"
        before = self.at(position - 2)
        command = None
        if position < 2 or (before.kind != "string" and before.text in _BOUNDARY):
            command = self.literal(position - 1)
        via = "|& getline" if coprocess else "| getline"
        if coprocess and self.network(command, via):
            return
        self.fact("execute", via, command, "shell_text")
        if coprocess and command is None:
            self.unknown_target(via)

    def redirect(self, operator: str, start: int, end: int) -> None:
        """The target of a ``print`` redirection: the tokens from ``start`` to ``end``."""
        target = self.literal(start) if end == start + 1 else None
        via = f"print {operator}"
        if self.network(target, via):
            return
        if operator in ("|", "|&"):
            self.fact("execute", via, target, "shell_text")
        elif target not in _OUTPUT_STREAMS:
            self.fact("write", via, target, "append" if operator == ">>" else "write")
        if target is None and (operator != "|"):
            self.unknown_target(via)

    def directive(self, position: int) -> None:
        """gawk's ``@include``, ``@load``, ``@namespace``, ``@/re/`` and indirect calls ``@f()``."""
        following = self.at(position + 1)
        if following.kind == "regex":
            return
        if following.kind != "name":
            raise Unreadable("it has an `@` gawk does not read")
        name = following.text
        named = self.at(position + 2)
        if name in ("include", "load", "nsinclude", "namespace") and named.kind != "string":
            raise Unreadable(f"its `@{name}` names nothing")
        if name == "load":
            self.fact("execute", "@load", self.literal(position + 2), "code")
            self.refusals.append(
                f"it loads the library `{named.value}`, whose code is not in the call"
            )
        elif name in ("include", "nsinclude"):
            self.fact("read", f"@{name}", self.literal(position + 2))
            self.refusals.append(
                f"its program includes `{named.value}`, whose code is not in the call"
            )
            self.in_place = self.in_place or named.value in ("inplace", "inplace.awk")
        elif name == "namespace":
            return
        elif self.op(position + 2, "("):
            # An indirect call: the function is named at run time, and may be system().
            self.fact("execute", "@indirect call", None, "code")
        else:
            raise Unreadable(f"it has `@{name}`, which gawk does not read")


def _bounded(token: _Token) -> bool:
    """True when a loop's bound is a count of what was read or a number of at most `MOST_ROUNDS`."""
    if token.kind == "name":
        return token.text in _COUNTS
    return token.kind == "number" and 0 <= _number(token.text) <= MOST_ROUNDS


def _number(text: str) -> float:
    """The value of a number token; NaN for a form awks read differently (``0x1A``, ``011``)."""
    try:
        return (
            float(text)
            if not text.startswith("0") or text == "0" or text[1:2] in ".eE"
            else math.nan
        )
    except ValueError:
        return math.nan


def program_facts(text: str, index: int, dialect: Dialect) -> ProgramFacts:
    """
    What a piece of awk program text does; every fact carries ``index``, the argv index of the text.

    Raises:
        Unreadable: The text cannot be tokenized as every awk reads it.
    """
    reader = _Reader(_tokens(text), index, dialect)
    reader.read()
    reader.loops()
    return ProgramFacts(reader.facts, reader.refusals, reader.in_place)
