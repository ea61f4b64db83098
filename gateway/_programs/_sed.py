"""
The sed reader: what a sed command line and its scripts read, write and run.

GNU sed runs commands with ``e`` and ``s///e``, writes files with ``w``,
``W``, ``s///w`` and ``-i``, and reads them with ``r``, ``R`` and its file
operands; an address may stand in front of any command (``/x/e id``,
``1,/re/w out``, ``$!e id``). No pattern over the raw words finds all of
these without also matching ordinary text, so this module reads the scripts
(the ``-e`` values, or else the first operand) command by command, the way
GNU sed's ``compile.c`` does: addresses, ``{}`` blocks, labels, comments, the
three forms of ``a``/``i``/``c`` text (a GNU one-liner's text runs to the end
of its line, ``;`` included), the delimiters of ``s`` and ``y`` with bracket
expressions, and file names that run to the end of the line.

What GNU sed would refuse to compile is `ArgumentReading.unreadable`, and
so is what GNU and BSD sed read differently; a script file (``-f``) is
unreadable too, since its commands are not in the call. busybox sed reads a
subset of the same language.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence, Set
from functools import cache
from typing import Final, NamedTuple

from gateway._programs import ArgumentFact, ArgumentReading, FactKind
from gateway._programs._option_scanner import Scanner, table

__all__ = ["read_sed"]

_OPTIONS: Final = table(
    "--quiet -n --silent",
    "--debug",
    "--expression -e =",
    "--file -f =",
    "--follow-symlinks",
    "--in-place -i [=]",
    "--line-length -l =",
    "--posix",
    "--regexp-extended -E -r",
    "--separate -s",
    "--sandbox",
    "--unbuffered -u",
    "--null-data -z --zero-terminated",
    "--binary -b",
    "--help",
    "--version",
)
"""GNU sed 4.9's options (busybox sed's are a subset)."""

_SPECIAL_FILES: Final = frozenset({"/dev/stdin", "/dev/stdout", "/dev/stderr"})
"""Names GNU sed's ``r``/``w`` treat as its own streams, never opening a file."""
_SIMPLE: Final = frozenset("=dDFgGhHnNpPxz")
_BRANCHES: Final = frozenset("btT")
_REFILLS: Final = frozenset("Ggxsy")
"""Commands that can put a newline into the pattern space without reading a line."""
_BLANK_RUN: Final = re.compile(r"[ \t]*")
_DIGIT_RUN: Final = re.compile(r"[0-9]*")
_SEPARATORS: Final = re.compile(r"[; \t\n\v\f\r]*")
"""What sed skips before a command: ``;`` and white space."""
_TEXT_LINE: Final = re.compile(r"(?:[^\\\n]|\\.)*", re.DOTALL)
"""A line of ``a``/``i``/``c``/``e`` text up to its end: a backslash takes the next character."""


@cache
def _ordinary(delimiter: str, *, regex: bool) -> re.Pattern[str]:
    """A run of characters `_Script.delimited` passes over one by one, doing nothing else."""
    special = delimiter + "\\\n" + ("[" if regex else "")
    return re.compile(f"[^{re.escape(special)}]*")


class _Unreadable(Exception):
    """The script cannot be read as GNU sed reads it; the message is the clause."""


class _Script:
    """
    A cursor over the scripts of one command line, joined as GNU sed joins ``-e`` scripts.

    Each ``-e`` script is compiled after the previous one as if a newline
    stood between them (pending ``a\\`` text and open blocks carry over), so
    reading the texts joined by newlines reads them as sed does.
    """

    def __init__(self, parts: Sequence[tuple[str, int]]) -> None:
        self.text = "\n".join(text for text, _ in parts)
        self.offsets: list[int] = []
        self.indexes: list[int] = []
        offset = 0
        for text, index in parts:
            self.offsets.append(offset)
            self.indexes.append(index)
            offset += len(text) + 1
        self.at = 0
        self.facts: list[ArgumentFact] = []

    def index_at(self, offset: int) -> int:
        """The argv index of the script that holds ``offset``."""
        return self.indexes[max(bisect.bisect_right(self.offsets, offset) - 1, 0)]

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.at += 1
        return char

    def blanks(self) -> None:
        if self.at < len(self.text):
            self.at = _BLANK_RUN.match(self.text, self.at).end()  # type: ignore[union-attr]

    def nonblank(self) -> str:
        self.blanks()
        return self.take()

    def fail(self, why: str) -> _Unreadable:
        return _Unreadable(why)

    def fact(
        self, kind: FactKind, via: str, start: int, value: str | None, action: str | None
    ) -> None:
        self.facts.append(
            ArgumentFact(kind=kind, via=via, index=self.index_at(start), value=value, action=action)
        )

    # The pieces of GNU sed's compile.c, one method each.

    def integer(self) -> None:
        if self.at < len(self.text):
            self.at = _DIGIT_RUN.match(self.text, self.at).end()  # type: ignore[union-attr]

    def end_of_command(self) -> None:
        """``read_end_of_cmd``: blanks, then ``;``, a newline, the end, or a ``}``/``#`` left to read."""
        char = self.nonblank()
        if char in ("}", "#"):
            self.at -= 1
        elif char not in ("", "\n", ";"):
            raise self.fail("it has extra characters after a command")

    def label(self) -> str:
        """``read_label``: up to a blank, ``;``, ``}``, ``#`` or the end of the line."""
        self.blanks()
        start = self.at
        while self.peek() and self.peek() not in " \t\n;}#":
            self.at += 1
        return self.text[start : self.at]

    def filename(self) -> str:
        """``read_filename``: after blanks, everything to the end of the line."""
        self.blanks()
        end = self.text.find("\n", self.at)
        end = len(self.text) if end < 0 else end
        name = self.text[self.at : end]
        self.at = end
        return name

    def text_block(self) -> None:
        """``read_text``: to the first newline no backslash escapes (a backslash takes the next character)."""
        end = _TEXT_LINE.match(self.text, self.at).end()  # type: ignore[union-attr]
        if end >= len(self.text):
            self.at = end
        elif self.text[end] == "\n":
            self.at = end + 1
        else:  # a backslash that ends the text takes the nothing after it
            self.at = end + 2

    def bracket(self) -> None:
        """``snarf_char_class``: skip a bracket expression, whose ``]`` and delimiter are literal."""
        if self.peek() == "^":
            self.at += 1
        if self.peek() == "]":
            self.at += 1
        state = 0
        close = ""
        while True:
            char = self.take()
            if char in ("", "\n"):
                raise self.fail("a bracket expression in it is not closed")
            if char in ".:=":
                if state == 1:
                    close, state = char, 2
                    continue
                if state == 2 and char == close:
                    state = 3
                    continue
            elif char == "[":
                if state == 0:
                    state = 1
                continue
            elif char == "]":
                if state in (0, 1):
                    return
                if state == 3:
                    state = 0
            state &= ~1

    def delimited(self, delimiter: str, *, regex: bool) -> None:
        """``match_slash``: skip to just past the next unescaped delimiter."""
        ordinary = _ordinary(delimiter, regex=regex)
        while True:
            self.at = ordinary.match(self.text, self.at).end()  # type: ignore[union-attr]
            char = self.take()
            if char in ("", "\n"):
                raise self.fail("a delimited part of it is not closed")
            if char == delimiter:
                return
            if char == "\\":
                escaped = self.take()
                if escaped == "":
                    raise self.fail("a delimited part of it is not closed")
                if regex and escaped == "c" and self.peek() in (delimiter, "\\", "[", "\n", ""):
                    # GNU sed 4.9 reads `\c` and the next character as one
                    # escape, earlier versions do not: where that moves the
                    # end of the part, the versions read different scripts.
                    raise self.fail("it has `\\c` before a character sed versions read differently")
            elif char == "[" and regex:
                self.bracket()

    def address(self) -> bool:
        """``compile_address``; true when an address was read."""
        char = self.peek()
        if char in ("/", "\\"):
            self.at += 1
            delimiter = self.take() if char == "\\" else "/"
            if delimiter in ("", "\n"):
                raise self.fail("an address in it is not closed")
            self.delimited(delimiter, regex=True)
            while True:
                self.blanks()
                if self.peek() in ("I", "M") and self.peek():
                    self.at += 1
                    continue
                return True
        if char.isdigit() and char.isascii():
            self.integer()
            save = self.at
            if self.nonblank() == "~":
                self.blanks()
                self.integer()
            else:
                self.at = save
            return True
        if char in ("+", "~") and char:
            self.at += 1
            self.blanks()
            self.integer()
            return True
        if char == "$":
            self.at += 1
            return True
        return False


class _Command(NamedTuple):
    """One command of a script, as far as `_endless` needs it."""

    name: str
    addressed: bool
    block: int
    """Which ``{}`` block holds it (0: none; each ``{`` opens a new number)."""
    label: str
    start: int


def _read_script(script: _Script) -> None:
    """Read every command of the joined scripts, stating their facts (``compile_program``)."""
    depth = 0
    blocks = [0]
    opened = 0
    commands: list[_Command] = []
    while True:
        script.at = _SEPARATORS.match(script.text, script.at).end()  # type: ignore[union-attr]
        if script.at >= len(script.text):
            break
        start = script.at
        addressed = script.address()
        if addressed:
            char = script.nonblank()
            if char == ",":
                script.blanks()
                if not script.address():
                    raise script.fail("it has a `,` with no second address")
                char = script.nonblank()
        else:
            char = script.take()
        if char == "!":
            char = script.nonblank()
            if char == "!":
                raise script.fail("it has more than one `!`")
        commands.append(_Command(char, addressed, blocks[-1], "", start))
        if char == "#":
            if addressed:
                raise script.fail("it has a comment with an address")
            end = script.text.find("\n", script.at)
            script.at = len(script.text) if end < 0 else end
        elif char == "{":
            depth += 1
            opened += 1
            blocks.append(opened)
        elif char == "}":
            if depth == 0 or addressed:
                raise script.fail("it has a `}` with no `{`")
            depth -= 1
            blocks.pop()
            script.end_of_command()
        elif char == "e":
            script.blanks()
            if script.peek() in ("", "\n"):
                script.fact("execute", "e", start, None, "shell_text")
            else:
                text_start = script.at
                script.text_block()
                command = script.text[text_start : script.at].removesuffix("\n")
                # sed turns backslash escapes in the text into other
                # characters before the shell sees it; only text without
                # one is the command as written.
                script.fact(
                    "execute", "e", start, None if "\\" in command else command, "shell_text"
                )
        elif char in ("a", "i", "c"):
            script.blanks()
            lead = script.take()
            if lead == "":
                raise script.fail(f"its `{char}` command has no text")
            if lead == "\\":
                if script.take() == "\n":
                    pass
            elif lead == "\n":
                # The one-liner form with nothing after the command: an empty line of text.
                continue
            script.text_block()
        elif char in (":", "b", "t", "T", "v"):
            label = script.label()
            if char == ":" and (addressed or label.strip() == ""):
                raise script.fail("it has a `:` with an address or no label")
            commands[-1] = commands[-1]._replace(label=label)
        elif char in ("q", "Q", "l"):
            script.blanks()
            script.integer()
            script.end_of_command()
        elif char in _SIMPLE:
            script.end_of_command()
        elif char in ("r", "R", "w", "W"):
            name = script.filename()
            if not name:
                raise script.fail(f"its `{char}` command has no file name")
            if name not in _SPECIAL_FILES:
                if char in ("r", "R"):
                    script.fact("read", char, start, name, None)
                else:
                    script.fact("write", char, start, name, "write")
        elif char == "s":
            delimiter = script.take()
            if delimiter in ("", "\n", "\\"):
                raise script.fail("its `s` command has no delimiter sed accepts")
            script.delimited(delimiter, regex=True)
            script.delimited(delimiter, regex=False)
            _substitution_flags(script, start)
        elif char == "y":
            delimiter = script.take()
            if delimiter in ("", "\n", "\\"):
                raise script.fail("its `y` command has no delimiter sed accepts")
            script.delimited(delimiter, regex=False)
            script.delimited(delimiter, regex=False)
            script.end_of_command()
        elif char == "":
            raise script.fail("an address in it has no command")
        else:
            raise script.fail(f"it has `{char}`, which is not a sed command")
    if depth:
        raise script.fail("it has a `{` with no `}`")
    endless = _endless(commands)
    if endless is not None:
        script.fact("lifetime", endless.name + endless.label, endless.start, None, "unbounded")


def _endless(commands: Sequence[_Command]) -> _Command | None:
    """
    The command that may make the script run forever without reading a line; ``None`` when every loop reads one.

    sed ends when its input does, so a script is bounded when every way it
    can go round without reading input is shown to read some. Two commands
    go round: a branch back to an earlier label (``:a;p;ba`` prints
    forever), and ``D``, which starts the cycle again without reading when
    a newline is left (``G;D`` never ends). A loop back to a label is
    bounded when, between the label and the branch, an ``n`` or ``N`` with
    no address stands in the label's own block and no branch on the way to
    it can jump past it within the loop: at the end of the input those
    commands end sed (``:a;N;$!ba`` joins the lines and ends; ``:a;$!N;ba``
    does not). ``D`` is bounded when no command can put a newline back into
    the pattern space without reading (``G``, ``g``, ``x``, ``s``, ``y``).
    A label defined twice, which sed versions treat differently, is not
    shown to be bounded.

    Examples:
        >>> def endless(text):
        ...     script = _Script([(text, 0)])
        ...     _read_script(script)
        ...     return [fact.via for fact in script.facts if fact.kind == "lifetime"]
        >>> endless(":a;p;ba"), endless(":a;N;$!ba;s/,/ /g"), endless(":a;$!N;ba")
        (['ba'], [], ['ba'])
        >>> endless("G;D"), endless("$!N;P;D"), endless("s/a/b/;ta;:a")
        (['D'], [], [])
    """
    labels: dict[str, int] = {}
    for at, command in enumerate(commands):
        if command.name == ":":
            if command.label in labels:
                return command
            labels[command.label] = at
    for at, command in enumerate(commands):
        if command.name not in _BRANCHES or not command.label:
            continue  # no label: to the end of the script, where the next cycle reads a line
        target = labels.get(command.label)
        if target is None or target > at:
            continue  # forward, or to no label (sed refuses the script)
        if not any(
            _reads_each_round(commands, labels, target, read, at) for read in range(target + 1, at)
        ):
            return command
    names = {command.name for command in commands}
    if "D" in names and names & _REFILLS:
        return next(command for command in commands if command.name == "D")
    return None


def _reads_each_round(
    commands: Sequence[_Command], labels: Mapping[str, int], label: int, read: int, branch: int
) -> bool:
    """True when every round from ``label`` back to ``branch`` runs the ``n``/``N`` at ``read``."""
    command = commands[read]
    if command.name not in ("n", "N") or command.addressed:
        return False
    if command.block != commands[label].block:
        return False
    for jump in commands[label + 1 : read]:
        if jump.name not in _BRANCHES:
            continue
        target = labels.get(jump.label) if jump.label else len(commands)
        if target is not None and read < target <= branch:
            return False
    return True


def _substitution_flags(script: _Script, start: int) -> None:
    """``mark_subst_opts``: the flags of ``s``, each after optional blanks."""
    seen: set[str] = set()
    while True:
        flag = script.nonblank()
        if flag in ("i", "I", "m", "M"):
            continue
        if flag in ("p", "g", "e"):
            if flag in seen and flag != "e":
                raise script.fail(f"its `s` command has `{flag}` twice")
            seen.add(flag)
            if flag == "e":
                script.fact("execute", "s///e", start, None, "shell_text")
            continue
        if flag.isdigit() and flag.isascii():
            script.integer()
            continue
        if flag == "w":
            name = script.filename()
            if not name:
                raise script.fail("its `s///w` has no file name")
            if name not in _SPECIAL_FILES:
                script.fact("write", "s///w", start, name, "write")
            return
        if flag in ("}", "#"):
            script.at -= 1
            return
        if flag in ("", "\n", ";"):
            return
        if flag == "\r" and script.peek() == "\n":
            script.at += 1
            return
        raise script.fail(f"its `s` command has the flag `{flag}`, which sed does not have")


def _backup(operand: str, suffix: str) -> str:
    """The backup file ``-i SUFFIX`` makes for ``operand`` (a ``*`` in it stands for the file's name)."""
    if "*" not in suffix:
        return operand + suffix
    directory, slash, name = operand.rpartition("/")
    return f"{directory}{slash}{suffix.replace('*', name)}"


def read_sed(
    program: str,
    args: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    """
    Read a sed command line: its options, its scripts, and its input files.

    Facts, in argument order: ``read`` for each input file (or, with ``-i``,
    ``write`` for each, and ``create`` for its backup), ``read`` for a script
    file (``-f``), and what the scripts do: ``e`` and ``s///e`` execute
    (``shell_text``: the command when ``e`` names one, ``None`` when it runs
    the pattern space), ``w``/``W``/``s///w`` write, ``r``/``R`` read. sed's
    own names ``/dev/stdin``, ``/dev/stdout`` and ``/dev/stderr`` are no files.

    Args:
        program: The basename looked up (``sed``, ``gsed``).
        args: The arguments after the program word, ``None`` for one that expands.
        one_word: Not used: every expanding word may be several words.
        no_dash: Not used: every expanding word may begin with a dash.

    Returns:
        The reading; `ArgumentReading.unreadable` when a script cannot be
        read, comes from a file, or is missing.

    >>> reading = read_sed("sed", ["-n", "1,/re/w out.txt", "in.txt"])
    >>> [(fact.kind, fact.via, fact.value) for fact in reading.facts]
    [('write', 'w', 'out.txt'), ('read', 'operand', 'in.txt')]
    """
    scanner = Scanner(args, _OPTIONS, permute=True)
    options: list[str] = []
    scripts: list[tuple[str, int]] = []
    facts: list[ArgumentFact] = []
    operands: list[tuple[int, str | None]] = []
    in_place: str | None = None
    from_file = False
    expressions = False
    unreadable: str | None = None
    for item in scanner:
        if item.kind == "option":
            options.append(item.name)
            if item.name == "--expression":
                expressions = True
                if item.value is None:
                    unreadable = "its script expands, so it cannot be read"
                else:
                    scripts.append((item.value, item.indexes[0]))
            elif item.name == "--file":
                from_file = True
                facts.append(
                    ArgumentFact(
                        kind="read", via=item.written, index=item.indexes[0], value=item.value
                    )
                )
            elif item.name == "--in-place":
                in_place = item.value if item.values else ""
        elif item.kind == "operand":
            operands.append((item.start, item.value))
    problem = scanner.problem
    if problem is not None:
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(options),
            undeclared=problem.undeclared,
            unreadable=problem.unreadable,
        )
    if not expressions and not from_file:
        if not operands:
            return ArgumentReading(
                program=program, table=True, options=tuple(options), unreadable="it has no script"
            )
        index, text = operands.pop(0)
        if text is None:
            unreadable = "its script expands, so it cannot be read"
        else:
            scripts.append((text, index))
    if from_file:
        unreadable = (
            unreadable or "its script comes from a file, whose commands are not in the call"
        )
    if scripts and unreadable is None:
        script = _Script(scripts)
        try:
            _read_script(script)
        except _Unreadable as why:
            unreadable = f"its script cannot be read: {why}"
        facts.extend(script.facts)
    for index, value in operands:
        if value == "-":
            continue
        if in_place is None:
            facts.append(ArgumentFact(kind="read", via="operand", index=index, value=value))
            continue
        facts.append(ArgumentFact(kind="read", via="operand", index=index, value=value))
        facts.append(
            ArgumentFact(kind="write", via="--in-place", index=index, value=value, action="write")
        )
        if "--follow-symlinks" in options:
            # The file written is the link's target, which only the file system knows.
            facts.append(
                ArgumentFact(
                    kind="write", via="--follow-symlinks", index=index, value=None, action="write"
                )
            )
        if in_place:
            backup = None if value is None else _backup(value, in_place)
            facts.append(
                ArgumentFact(
                    kind="write", via="--in-place", index=index, value=backup, action="create"
                )
            )
    facts.sort(key=lambda fact: -1 if fact.index is None else fact.index)
    return ArgumentReading(
        program=program,
        table=True,
        options=tuple(options),
        operands=tuple(index for index, _ in operands),
        facts=tuple(facts),
        unreadable=unreadable,
    )
