"""
Bash arithmetic, evaluated without running anything.

Integers only (64-bit, wrapping as bash does), the operators of bash's
``$(( ))`` with its precedence, variables taken from a scope that the caller
supplies (never from the environment). Used to expand heredoc fragments.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from gateway._calls._errors import GatewayError

__all__ = ["ArithmeticError_", "evaluate"]

_TOKEN: Final = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+|[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>\*\*=|<<=|>>=|\*\*|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&^|]=|[-+*/%<>=!~&^|?:(),]))"
)
_MAX_DEPTH: Final = 64
_BITS: Final = 64


class ArithmeticError_(GatewayError):
    """The expression is not valid bash arithmetic, or divides by zero."""


def _wrap(value: int) -> int:
    value &= (1 << _BITS) - 1
    return value - (1 << _BITS) if value >> (_BITS - 1) else value


def _number(text: str) -> int:
    try:
        if "#" in text:
            base_text, digits = text.split("#", 1)
            base = int(base_text)
            if not 2 <= base <= 64:
                raise ArithmeticError_(f"invalid arithmetic base {base}")
            alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"
            if base <= 36:
                digits = digits.lower()
            value = 0
            for char in digits:
                digit = alphabet.index(char)
                if digit >= base:
                    raise ArithmeticError_(f"value too great for base ({text})")
                value = value * base + digit
            return _wrap(value)
        if text.lower().startswith("0x"):
            return _wrap(int(text, 16))
        if len(text) > 1 and text.startswith("0"):
            return _wrap(int(text, 8))
        return _wrap(int(text, 10))
    except ValueError:
        raise ArithmeticError_(f"invalid number {text!r}") from None


_BINARY: Final[dict[str, tuple[int, Callable[[int, int], int]]]] = {
    "||": (1, lambda a, b: int(bool(a) or bool(b))),
    "&&": (2, lambda a, b: int(bool(a) and bool(b))),
    "|": (3, lambda a, b: a | b),
    "^": (4, lambda a, b: a ^ b),
    "&": (5, lambda a, b: a & b),
    "==": (6, lambda a, b: int(a == b)),
    "!=": (6, lambda a, b: int(a != b)),
    "<": (7, lambda a, b: int(a < b)),
    ">": (7, lambda a, b: int(a > b)),
    "<=": (7, lambda a, b: int(a <= b)),
    ">=": (7, lambda a, b: int(a >= b)),
    "<<": (8, lambda a, b: a << (b & 63)),
    ">>": (8, lambda a, b: a >> (b & 63)),
    "+": (9, lambda a, b: a + b),
    "-": (9, lambda a, b: a - b),
    "*": (10, lambda a, b: a * b),
    "/": (10, lambda a, b: _divide(a, b)),
    "%": (10, lambda a, b: _remainder(a, b)),
    "**": (11, lambda a, b: _power(a, b)),
}


def _divide(a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticError_("division by 0")
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _remainder(a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticError_("division by 0")
    return a - b * _divide(a, b)


def _power(a: int, b: int) -> int:
    if b < 0:
        raise ArithmeticError_("exponent less than 0")
    return pow(a, b, 1 << _BITS)


class _Parser:
    def __init__(self, text: str, lookup: Callable[[str, int], int], depth: int) -> None:
        self.tokens: list[tuple[str, str]] = []
        position = 0
        text = text.rstrip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                raise ArithmeticError_(
                    f"syntax error in expression (error token is {text[position:].strip()!r})"
                )
            kind = match.lastgroup or "op"
            self.tokens.append((kind, match.group(kind)))
            position = match.end()
        self.index = 0
        self.lookup = lookup
        self.depth = depth
        self.assigned: dict[str, int] = {}

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, op: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (op is not None and token != ("op", op)):
            raise ArithmeticError_(f"syntax error: expected {op or 'an operand'}")
        self.index += 1
        return token

    def variable(self, name: str) -> int:
        if name in self.assigned:
            return self.assigned[name]
        return self.lookup(name, self.depth + 1)

    def expression(self) -> int:
        value = self.assignment()
        while self.peek() == ("op", ","):
            self.take(",")
            value = self.assignment()
        return value

    def assignment(self) -> int:
        token = self.peek()
        following = self.tokens[self.index + 1] if self.index + 1 < len(self.tokens) else None
        if (
            token is not None
            and token[0] == "name"
            and following is not None
            and following[0] == "op"
            and following[1]
            in ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", "**=")
        ):
            self.index += 2
            value = self.assignment()
            if following[1] != "=":
                operator = following[1][:-1]
                value = _wrap(_BINARY[operator][1](self.variable(token[1]), value))
            self.assigned[token[1]] = value
            return value
        return self.conditional()

    def conditional(self) -> int:
        condition = self.binary(1)
        if self.peek() == ("op", "?"):
            self.take("?")
            yes = self.assignment()
            self.take(":")
            no = self.assignment()
            return yes if condition else no
        return condition

    def binary(self, level: int) -> int:
        left = self.unary()
        while True:
            token = self.peek()
            if token is None or token[0] != "op" or token[1] not in _BINARY:
                return left
            precedence, function = _BINARY[token[1]]
            if precedence < level:
                return left
            self.index += 1
            # ``**`` is right-associative; everything else is left-associative.
            right = self.binary(precedence if token[1] == "**" else precedence + 1)
            left = _wrap(function(left, right))

    def unary(self) -> int:
        token = self.peek()
        if token is None:
            raise ArithmeticError_("syntax error: operand expected")
        if token[0] == "op" and token[1] in ("-", "+", "!", "~"):
            self.index += 1
            value = self.unary()
            return _wrap({"-": -value, "+": value, "!": int(not value), "~": ~value}[token[1]])
        if token[0] == "op" and token[1] in ("++", "--"):
            self.index += 1
            name = self.take()
            if name[0] != "name":
                raise ArithmeticError_("syntax error: ++/-- needs a variable")
            value = _wrap(self.variable(name[1]) + (1 if token[1] == "++" else -1))
            self.assigned[name[1]] = value
            return value
        return self.postfix()

    def postfix(self) -> int:
        token = self.take()
        if token == ("op", "("):
            value = self.expression()
            self.take(")")
            return value
        if token[0] == "num":
            return _number(token[1])
        if token[0] == "name":
            value = self.variable(token[1])
            following = self.peek()
            if following in (("op", "++"), ("op", "--")):
                self.index += 1
                self.assigned[token[1]] = _wrap(value + (1 if following == ("op", "++") else -1))
            return value
        raise ArithmeticError_(f"syntax error: operand expected (error token is {token[1]!r})")


def evaluate(text: str, lookup: Callable[[str, int], int], depth: int = 0) -> int:
    """
    Evaluate a bash arithmetic expression.

    Args:
        text: The expression, with parameter expansions already substituted.
        lookup: Gives a variable's value; called with the name and the
            recursion depth (a variable's value is itself an expression).
        depth: The current recursion depth.

    Raises:
        ArithmeticError_: The expression is invalid, divides by zero, or nests
            variable references too deeply.

    Examples:
        >>> evaluate("1 + 2 * 3", lambda name, depth: 0)
        7
        >>> evaluate("2 ** 10 - x", lambda name, depth: 24)
        1000
    """
    if depth > _MAX_DEPTH:
        raise ArithmeticError_("expression recursion level exceeded")
    if not text.strip():
        return 0
    parser = _Parser(text, lookup, depth)
    value = parser.expression()
    if parser.peek() is not None:
        raise ArithmeticError_(f"syntax error in expression (error token is {parser.peek()[1]!r})")  # type: ignore[index]
    return value
