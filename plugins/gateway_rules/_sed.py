"""
Reading a sed command's scripts, to tell whether they can run commands or write files.

GNU sed runs commands with ``e`` and ``s///e`` and writes files with ``w``,
``W`` and ``s///w``, and an address may stand in front of any command
(``/x/e id``, ``1,/re/w out``, ``$!e id``). No regular expression over the
raw arguments finds all of these without also matching ordinary file names,
so this module finds the scripts (the ``-e``/``--expression`` values, or
else the first operand) and reads them command by command, the way
``compile.c`` does. Whenever it is unsure it answers with the reason it
cannot tell, and the caller treats that like a command that runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

__all__ = ["sed_effect"]

_LONG: Final = {
    "debug": 0,
    "expression": 1,
    "file": 1,
    "follow-symlinks": 0,
    "help": 0,
    "in-place": -1,
    "line-length": 1,
    "null-data": 0,
    "zero-terminated": 0,
    "posix": 0,
    "quiet": 0,
    "silent": 0,
    "regexp-extended": 0,
    "sandbox": 0,
    "separate": 0,
    "unbuffered": 0,
    "binary": 0,
    "version": 0,
}
"""GNU sed's long options and whether they take a value (1), may (-1) or do not (0)."""
_SHORT_FLAGS: Final = frozenset("nrEsuzb")
_HARMLESS_FILES: Final = frozenset({"/dev/stdout", "/dev/stderr"})
_SIMPLE: Final = frozenset("=dDgGhHnNpPxzF")
_S_FLAGS: Final = frozenset("gpiImM0123456789")
_END: Final = frozenset(";\n}#")


def sed_effect(args: Sequence[str | None]) -> str | None:
    """
    What makes a sed command's scripts run commands or write files, as a clause, or ``None``.

    ``args`` are the arguments after ``sed`` (``None`` for one that expands).
    A script that cannot be read, an option sed does not have, a script file
    (``-f``) and editing in place (``-i``) all count, since none of them lets
    the script be shown to be harmless.
    """
    scripts, problem = _scripts(args)
    if problem is not None:
        return problem
    for script in scripts:
        problem = _read_script(script)
        if problem is not None:
            return problem
    return None


def _scripts(args: Sequence[str | None]) -> tuple[list[str], str | None]:
    """The scripts of a sed command line (``-e`` values, else the first operand)."""
    expressions: list[str] = []
    operands: list[str] = []
    index = 0
    options_end = False
    while index < len(args):
        arg = args[index]
        index += 1
        if arg is None:
            return [], "an argument expands, so the script cannot be read"
        if options_end or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
            continue
        if arg == "--":
            options_end = True
            continue
        if arg.startswith("--"):
            name, has_value, value = arg[2:].partition("=")
            matches = [long for long in _LONG if long.startswith(name)] if name else []
            if name in _LONG:
                matches = [name]
            if len(matches) != 1:
                return [], f"`{arg}` is not an option sed is known to have"
            long = matches[0]
            if long == "in-place":
                return [], "it edits files in place"
            if long == "file":
                return [], "its script comes from a file"
            if _LONG[long] == 1 and not has_value:
                if index >= len(args):
                    return [], f"`{arg}` has no value"
                value_arg = args[index]
                index += 1
                if value_arg is None:
                    return [], "an argument expands, so the script cannot be read"
                value = value_arg
            if long == "expression":
                expressions.append(value)
            continue
        # A cluster of short options: flags, then at most one option with a value.
        position = 1
        while position < len(arg):
            letter = arg[position]
            position += 1
            if letter in _SHORT_FLAGS:
                continue
            if letter == "i":
                return [], "it edits files in place"
            if letter == "f":
                return [], "its script comes from a file"
            if letter in "el":
                fused: str | None = arg[position:]
                if not fused:
                    if index >= len(args):
                        return [], f"`-{letter}` has no value"
                    fused = args[index]
                    index += 1
                if fused is None:
                    return [], "an argument expands, so the script cannot be read"
                if letter == "e":
                    expressions.append(fused)
                break
            return [], f"`-{letter}` is not an option sed is known to have"
    if expressions:
        return expressions, None
    return operands[:1], None


class _Reader:
    """A cursor over one script."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.at += 1
        return char

    def blanks(self) -> None:
        while self.peek() in (" ", "\t"):
            self.at += 1

    def rest_of_line(self) -> str:
        end = self.text.find("\n", self.at)
        end = len(self.text) if end < 0 else end
        found = self.text[self.at : end]
        self.at = end
        return found

    def delimited(self, delimiter: str) -> bool:
        """Skip to just past the next unescaped ``delimiter``; false when there is none."""
        while self.at < len(self.text):
            char = self.take()
            if char == "\\":
                self.at += 1
            elif char == delimiter:
                return True
            elif char == "\n" and delimiter != "\n":
                # GNU sed allows a newline only escaped, inside s and y parts.
                return False
        return False


def _address(reader: _Reader) -> bool:
    """Read one address, if there is one; false when it is malformed."""
    char = reader.peek()
    if char.isdigit():
        while reader.peek().isdigit():
            reader.take()
        if reader.peek() == "~":
            reader.take()
            while reader.peek().isdigit():
                reader.take()
        return True
    if char == "$":
        reader.take()
        return True
    if char in ("/", "\\"):
        reader.take()
        delimiter = "/" if char == "/" else reader.take()
        if delimiter in ("", "\n", "\\") or not reader.delimited(delimiter):
            return False
        while reader.peek() in ("I", "M"):
            reader.take()
        return True
    return True


def _second_address(reader: _Reader) -> bool:
    char = reader.peek()
    if char in ("+", "~"):
        reader.take()
        if not reader.peek().isdigit():
            return False
        while reader.peek().isdigit():
            reader.take()
        return True
    if not (char.isdigit() or char in ("$", "/", "\\")):
        return False
    return _address(reader)


def _label(reader: _Reader) -> None:
    """
    Skip the label of ``:``, ``b``, ``t``, ``T`` (or the version of ``v``).

    As GNU sed's ``read_label``: it ends at a blank, ``;`` or a newline, and
    what follows is read as the next command (``:a p`` prints).
    """
    reader.blanks()
    while reader.peek() not in ("", "\n", ";", " ", "\t"):
        reader.take()


def _read_script(script: str) -> str | None:
    """The first thing in one script that runs a command or writes a file (or cannot be read)."""
    reader = _Reader(script)
    depth = 0
    while True:
        while reader.peek() in (" ", "\t", "\n", ";"):
            reader.take()
        if not reader.peek():
            return None
        if reader.peek() == "#":
            reader.rest_of_line()
            continue
        start = reader.at
        had_address = reader.peek() not in ("}", "{") and (
            reader.peek().isdigit() or reader.peek() in ("$", "/", "\\")
        )
        if not _address(reader):
            return f"its script `{script}` cannot be read"
        reader.blanks()
        if had_address and reader.peek() == ",":
            reader.take()
            reader.blanks()
            if not _second_address(reader):
                return f"its script `{script}` cannot be read"
        reader.blanks()
        while reader.peek() == "!":
            reader.take()
            reader.blanks()
        command = reader.take()
        if command == "{":
            depth += 1
            continue
        if command == "}":
            depth -= 1
            if depth < 0:
                return f"its script `{script}` cannot be read"
        elif command in ("e", "w", "W"):
            target = reader.rest_of_line().strip()
            if command in ("w", "W") and target in _HARMLESS_FILES:
                continue
            shown = script[start : reader.at].strip()
            verb = "runs a command" if command == "e" else "writes a file"
            return f"its script {verb} (`{shown}`)"
        elif command in ("r", "R"):
            reader.rest_of_line()
            continue
        elif command in ("a", "i", "c"):
            # The text runs to the end of the line; a continued line is read as
            # commands again, which can only find more.
            reader.rest_of_line()
            continue
        elif command in (":", "b", "t", "T", "v"):
            _label(reader)
            continue
        elif command in ("q", "Q", "l", "L"):
            reader.blanks()
            while reader.peek().isdigit():
                reader.take()
        elif command in ("s", "y"):
            delimiter = reader.take()
            if delimiter in ("", "\n", "\\"):
                return f"its script `{script}` cannot be read"
            if not (reader.delimited(delimiter) and reader.delimited(delimiter)):
                return f"its script `{script}` cannot be read"
            if command == "s":
                while reader.peek() in _S_FLAGS:
                    reader.take()
                flag = reader.peek()
                if flag in ("e", "w"):
                    reader.take()
                    target = reader.rest_of_line().strip() if flag == "w" else ""
                    if flag == "w" and target in _HARMLESS_FILES:
                        continue
                    shown = script[start : reader.at].strip()
                    verb = "runs a command" if flag == "e" else "writes a file"
                    return f"its script {verb} (`{shown}`)"
        elif command not in _SIMPLE:
            return f"its script `{script}` cannot be read"
        reader.blanks()
        if reader.peek() and reader.peek() not in _END:
            return f"its script `{script}` cannot be read"
