"""
Program position: which word of a simple command names the program bash really runs.

The one reader of that question. In order it strips bare control words (with
their declared options), leading assignments, and a chain of launchers read
with the launcher table (`gateway._plan._launchers`), and names what is left. When
it cannot, it says why as data — a *refusal* (an option no row declares;
shell syntax or a shell where a program should be) and/or a *decline*
(``unreadable_program_position``, ``stream_fed_operands``) — each minted into
one sentence here and nowhere else, all ending with `NOT_AUTO_ALLOWED`.

A quoted or escaped control word (``'if'``, ``\\time``) is a program name, not
a keyword, so the reader works on each word's source text as well as its value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, NamedTuple

from gateway._calls._plans import (
    LauncherStep,
    PositionDecline,
    PositionRefusal,
    ProgramName,
    ProgramPosition,
)
from gateway._plan._launchers import LAUNCHERS, SHELLS, LauncherRow
from gateway._programs._option_scanner import Met, OptionScan
from gateway._programs._rows import Option, ProgramRow

__all__ = [
    "CONTROL_WORDS",
    "NOT_AUTO_ALLOWED",
    "LauncherOption",
    "LauncherReading",
    "PositionReading",
    "PositionWord",
    "direct_position",
    "program_basename",
    "read_position",
]

NOT_AUTO_ALLOWED: Final = "— not auto-allowed."
"""The suffix of every refusal and decline sentence: one consequence, spelled once."""

CONTROL_WORDS: Final = frozenset(
    {
        "!",
        "time",
        "if",
        "then",
        "elif",
        "else",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "for",
        "case",
        "esac",
        "in",
        "{",
        "}",
        "[[",
        "]]",
        "((",
        "))",
        "select",
        "coproc",
        "function",
    }
)
# Bare control words that may stand in front of a command, with their declared options.
_LEADING_CONTROL: Final = {
    "!": {},
    "time": {"-p": 0},
    "if": {},
    "then": {},
    "elif": {},
    "else": {},
    "do": {},
    "while": {},
    "until": {},
    "{": {},
}
_ASSIGNMENT_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_LAUNCHER_ASSIGNMENT: Final = re.compile(r"[^=\s]+=")


class PositionWord(NamedTuple):
    """
    One word as the position reader needs it: as written, its value, and whether it is bare.

    ``one_word``: a word that expands is known to stay exactly one word
    (every expansion in it is double-quoted); an unquoted ``$U`` may be no
    word or several, and shift every word after it.
    """

    text: str
    value: str | None
    bare: bool
    one_word: bool = False


class LauncherOption(NamedTuple):
    """
    One option a launcher was given, as its row declares it.

    Attributes:
        option: The option's spelling (``-u``, ``--chdir``), without a fused value.
        value: Its value (fused or the next word) after quote removal; ``None``
            when it has none or the value expands.
        word: The word index of the value when it is a word of its own
            (``-u root``); ``None`` for a switch or a fused value (``-uroot``,
            ``--user=root``), whose value is always literal.
    """

    option: str
    value: str | None
    word: int | None


class LauncherReading(NamedTuple):
    """
    What one launcher of the chain was given: its options and the operands it took.

    Attributes:
        word: The launcher's word index.
        basename: Its basename (its row in the launcher table).
        options: Its options, in order.
        operands: Word indexes of the operands it consumed before the program
            (``timeout 5``, ``env A=1``, ``flock FILE``, ``su USER``).
    """

    word: int
    basename: str
    options: tuple[LauncherOption, ...]
    operands: tuple[int, ...]


class PositionReading(NamedTuple):
    """
    The position, plus what the planner needs to find nested shell text and launcher effects.

    Attributes:
        position: The program position.
        command_string: ``(via, text)`` when a launcher option carries a whole
            command line (``env -S``, ``su -c``); ``text`` is ``None`` when dynamic.
        shell_text_from: The first word index of shell-text operands (``watch``).
        launchers: What each launcher of the chain was given, in order.
    """

    position: ProgramPosition
    command_string: tuple[str, str | None] | None = None
    shell_text_from: int | None = None
    launchers: tuple[LauncherReading, ...] = ()


def program_basename(word: str) -> str:
    """
    Return argv[0] as bash resolves it: ``/usr/bin/cat`` and ``cat`` are one name.

    Examples:
        >>> program_basename("/usr/bin/cat")
        'cat'
    """
    return word.rsplit("/", 1)[-1] if "/" in word.rstrip("/") else word


# ───────────────────────── sentences ─────────────────────────


def _sentence(body: str) -> str:
    return f"{body[0].upper()}{body[1:]} {NOT_AUTO_ALLOWED}"


def refusal_option(owner: str, option: str, *, missing_value: bool = False) -> PositionRefusal:
    """The refusal for an option no launcher row declares, or a declared one missing its value."""
    why = (
        " without the value it takes"
        if missing_value
        else ", which its launcher table row does not declare"
    )
    return PositionRefusal(
        kind="option_at_program_position",
        owner=owner,
        option=option,
        sentence=_sentence(
            f"`{owner}` is given the option `{option}`{why}, so which program runs cannot be read"
        ),
    )


def refusal_shell(owner: str, word: str) -> PositionRefusal:
    """The refusal for a shell standing where the program should be."""
    return PositionRefusal(
        kind="control_syntax_at_program_position",
        owner=owner,
        word=word,
        runs_shell=True,
        sentence=_sentence(
            f"`{owner}` hands `{word}` to a shell, so shell text runs rather than a named program"
        ),
    )


def refusal_control(owner: str, word: str) -> PositionRefusal:
    """The refusal for shell control syntax where the program should be."""
    return PositionRefusal(
        kind="control_syntax_at_program_position",
        owner=owner,
        word=word,
        sentence=_sentence(
            f"`{owner}` is followed by the shell control word `{word}` where a program should be"
        ),
    )


def decline_sentence(kind: PositionDecline, detail: str) -> str:
    """The sentence of a decline; ``detail`` says what was found."""
    if kind == "stream_fed_operands":
        return _sentence(
            f"{detail} takes its operands from standard input, which the plan cannot see"
        )
    return _sentence(f"{detail}, so which program runs cannot be read")


# ───────────────────────── the reader ─────────────────────────


class _Options(NamedTuple):
    end: int
    seen: frozenset[str]
    command_string: tuple[str, str | None] | None
    refusal: PositionRefusal | None
    dynamic: bool
    taken: tuple[LauncherOption, ...] = ()
    operands: tuple[int, ...] = ()


_NEGATIVE: Final = Option(name="-NUM")
"""``nice -5``: a negative number is the launcher's own argument, not an option."""
_GRAMMARS: dict[int, tuple[LauncherRow, ProgramRow]] = {}


def _grammar(row: LauncherRow) -> ProgramRow:
    """A launcher's options as the option scanner reads them (exact spellings, no prefixes)."""
    cached = _GRAMMARS.get(id(row))
    if cached is not None:
        return cached[1]
    options = {
        spelling: Option(name=spelling, arity=1 if arity else 0)
        for spelling, arity in row.options.items()
    }
    for spelling in row.fused_only:
        options[spelling] = Option(name=spelling, arity="optional")
    for spelling in row.command_string:
        options[spelling] = Option(name=spelling, arity=1)
    grammar = ProgramRow(
        options=options,
        abbreviations=False,
        double_dash=False,
        numeric=_NEGATIVE if row.negative_integer_is_own_argument else None,
    )
    # Keeping the row with its grammar keeps its id from being reused.
    _GRAMMARS[id(row)] = (row, grammar)
    return grammar


class _LauncherScan(OptionScan):
    """A launcher's options, read up to the first operand that is not its own."""

    def __init__(self, words: Sequence[PositionWord], row: LauncherRow, owner: str) -> None:
        super().__init__(
            [word.value for word in words],
            one_word=frozenset(index for index, word in enumerate(words) if word.one_word),
        )
        self.launcher = row
        self.owner = owner
        self._row = _grammar(row)
        self.seen: set[str] = set()
        self.taken: list[LauncherOption] = []
        self.operands: list[int] = []
        self.command_string: tuple[str, str | None] | None = None
        self.refusal: PositionRefusal | None = None
        self.dynamic = False

    @property
    def row(self) -> ProgramRow:
        return self._row

    def met(self, met: Met) -> None:
        if met.option is _NEGATIVE:
            return
        name = met.option.name
        if name in self.launcher.command_string:
            self.command_string = (f"{self.owner} {met.written}", met.value)
            self.halt(met.at + 1)
            return
        self.seen.add(name)
        separated = met.value_at is not None and met.value_at != met.start
        self.taken.append(LauncherOption(name, met.value, met.value_at if separated else None))

    def operand(self, index: int, value: str | None) -> None:
        launcher = self.launcher
        if value == "-":
            if "-" in launcher.options:
                self.seen.add(value)
                self.taken.append(LauncherOption(value, None, None))
            else:
                self.refuse(value)
            return
        if value is not None and launcher.assignment_operands and _LAUNCHER_ASSIGNMENT.match(value):
            self.operands.append(index)
            return
        self.halt(index)

    def expansion(self, index: int) -> None:
        self.dynamic = True
        self.halt(index)

    def value_after(self, option: Option, index: int) -> tuple[int, str | None] | None:
        found = super().value_after(option, index)
        if found is None and self.unreadable is not None:
            # `sudo -u $U rm x`: with `$U` empty, `rm` is the user and `x` runs.
            self.dynamic = True
            self.halt(index + 1)
        return found

    def refuse(self, word: str) -> None:
        super().refuse(word)
        self.refusal = refusal_option(self.owner, word)

    def missing(self, option: Option, index: int) -> None:
        super().refuse(option.name)
        self.refusal = refusal_option(self.owner, option.name, missing_value=True)


def _read_options(
    words: Sequence[PositionWord], start: int, row: LauncherRow, owner: str
) -> _Options:
    """Read a launcher's options from ``start``; stop at the first operand."""
    scan = _LauncherScan(words, row, owner)
    reached = scan.scan(start)
    end = reached if scan.halted is None else scan.halted
    return _Options(
        end,
        frozenset(scan.seen),
        scan.command_string,
        scan.refusal,
        scan.dynamic,
        tuple(scan.taken),
        tuple(scan.operands),
    )


def _permuted_command_string(
    words: Sequence[PositionWord], start: int, row: LauncherRow, owner: str
) -> tuple[str, str | None] | None:
    """A command-string option written after the operands (``su root -c CMD``), if any."""
    for k in range(start, len(words)):
        value = words[k].value
        if value is None or value == "--":
            return None  # unknowable, or the rest goes to the shell as its own arguments
        if value in row.command_string and k + 1 < len(words):
            return (f"{owner} {value}", words[k + 1].value)
        option, equals, text = value.partition("=")
        if equals and option.startswith("--") and option in row.command_string:
            return (f"{owner} {option}", text)
    return None


def direct_position(value: str, text: str, assignments: Sequence[str]) -> PositionReading | None:
    """
    The position of a command whose first word, of value ``value``, names the program itself.

    The common case, read without `PositionWord`s: ``None`` when the word may
    be a control word, an assignment or a launcher (`read_position` reads those).

    Args:
        value: The first word's value (it has no expansion).
        text: The first word as written.
        assignments: Names of the leading assignments the parser separated.
    """
    if value in _LEADING_CONTROL or _ASSIGNMENT_WORD.match(text):
        return None
    return _direct(value, 0, [], assignments)


def _direct(
    name: str, index: int, control: Sequence[str], names: Sequence[str]
) -> PositionReading | None:
    """The reading when the word at ``index`` names the program itself (no launcher stands in front)."""
    base = program_basename(name)
    if base in LAUNCHERS:
        return None
    return PositionReading(
        ProgramPosition(
            control_words=tuple(control),
            assignments=tuple(names),
            program=ProgramName(index=index, name=name, basename=base),
            runs_shell=base in SHELLS,
        )
    )


def read_position(
    words: Sequence[PositionWord], assignments: Sequence[str] = ()
) -> PositionReading:
    """
    Read the program position of one simple command.

    Args:
        words: The command's words (after any leading assignments the parser
            already separated), as written.
        assignments: Names of the leading assignments the parser separated.

    Returns:
        The position and what a planner needs to find nested shell text.
    """
    control: list[str] = []
    names = list(assignments)
    i = 0
    # Bare control words, with their declared options.
    while i < len(words) and words[i].bare and words[i].value in _LEADING_CONTROL:
        keyword = words[i].value or ""
        control.append(keyword)
        i += 1
        declared = _LEADING_CONTROL[keyword]
        while i < len(words) and words[i].bare and words[i].value in declared:
            i += 1
        following = words[i].value if i < len(words) else None
        if following is not None and following.startswith("-") and following != "-":
            refusal = refusal_option(keyword, following)
            return PositionReading(
                ProgramPosition(
                    control_words=tuple(control),
                    assignments=tuple(names),
                    refusal=refusal,
                    decline="unreadable_program_position",
                    reason=refusal.sentence,
                )
            )
    # Leading assignments written bare (the parser separates most of them).
    while i < len(words) and words[i].bare and _ASSIGNMENT_WORD.match(words[i].text):
        names.append(words[i].text.split("=", 1)[0].split("[", 1)[0].rstrip("+"))
        i += 1

    value = words[i].value if i < len(words) else None
    if value is not None:
        direct = _direct(value, i, control, names)
        if direct is not None:
            return direct

    launchers: list[LauncherStep] = []
    readings: list[LauncherReading] = []

    def result(
        *,
        program: ProgramName | None = None,
        refusal: PositionRefusal | None = None,
        decline: PositionDecline | None = None,
        detail: str = "",
        runs_shell: bool = False,
        argv_from_stdin: bool = False,
        runs_default_program: bool = False,
        command_string: tuple[str, str | None] | None = None,
        shell_text_from: int | None = None,
        dynamic_program: bool = False,
    ) -> PositionReading:
        reason: str | None = None
        if refusal is not None and not refusal.runs_shell:
            decline = decline or "unreadable_program_position"
            reason = refusal.sentence
        elif decline is not None:
            reason = decline_sentence(decline, detail)
        elif refusal is not None:
            reason = refusal.sentence
        position = ProgramPosition(
            control_words=tuple(control),
            assignments=tuple(names),
            launchers=tuple(launchers),
            program=program,
            argv_from_stdin=argv_from_stdin,
            runs_default_program=runs_default_program,
            runs_shell=runs_shell or (refusal is not None and refusal.runs_shell),
            refusal=refusal,
            decline=decline,
            reason=reason,
            dynamic_program=dynamic_program,
        )
        return PositionReading(position, command_string, shell_text_from, tuple(readings))

    argv_from_stdin = False
    runs_shell = False
    if i >= len(words):
        if control and control[-1] in ("then", "else", "do", "{"):
            return result()
        # `if` alone names no program either, and has no assignments to blame.
        detail = (
            "no program is named, only assignments"
            if names or not control
            else f"no program is named after `{control[-1]}`"
        )
        return result(decline="unreadable_program_position", detail=detail)
    while True:
        if i >= len(words):  # pragma: no cover - every path below returns before running out
            return result(
                decline="unreadable_program_position", detail="the launcher chain names no program"
            )
        word = words[i]
        if word.value is None:
            owner = f" after `{launchers[0].name}`" if launchers else ""
            return result(
                argv_from_stdin=argv_from_stdin,
                runs_shell=runs_shell,
                decline="unreadable_program_position",
                detail=f"the program word `{word.text}`{owner} is an expansion that is only known when it runs",
                dynamic_program=True,
            )
        name = word.value
        base = program_basename(name)
        if launchers and word.bare and name in CONTROL_WORDS:
            return result(
                refusal=refusal_control(launchers[0].name, name), argv_from_stdin=argv_from_stdin
            )
        row = LAUNCHERS.get(base)
        if row is None:
            program = ProgramName(index=i, name=name, basename=base)
            runs_shell = runs_shell or base in SHELLS
            if not argv_from_stdin:
                return result(program=program, runs_shell=runs_shell)
            owner = next(
                (step.name for step in launchers if LAUNCHERS[step.basename].argv_from_stdin), ""
            )
            return result(
                program=program,
                argv_from_stdin=True,
                runs_shell=runs_shell,
                decline="stream_fed_operands",
                detail=f"`{owner}` runs `{name}` but",
            )
        launchers.append(LauncherStep(index=i, name=name, basename=base))
        owner = launchers[0].name
        if row.always_refuse:
            return result(refusal=refusal_shell(name, name), runs_shell=True, argv_from_stdin=True)
        argv_from_stdin = argv_from_stdin or row.argv_from_stdin
        options = _read_options(words, i + 1, row, name)
        readings.append(LauncherReading(i, base, options.taken, options.operands))
        if options.dynamic:
            return result(
                argv_from_stdin=argv_from_stdin,
                decline="unreadable_program_position",
                detail=f"`{name}` is given an option from an expansion (`{words[options.end].text}`)",
            )
        if options.refusal is not None:
            return result(refusal=options.refusal, argv_from_stdin=argv_from_stdin)
        if options.command_string is not None:
            via, _ = options.command_string
            return result(
                refusal=refusal_shell(name, via.split(" ", 1)[1]),
                runs_shell=True,
                argv_from_stdin=argv_from_stdin,
                command_string=options.command_string,
            )
        j = options.end
        if options.seen & row.no_run_options:
            launchers.pop()
            readings.pop()
            return result(
                program=ProgramName(index=i, name=name, basename=base),
                argv_from_stdin=argv_from_stdin,
            )
        for _ in range(row.required_operands):
            if j >= len(words):
                return result(
                    argv_from_stdin=argv_from_stdin,
                    decline="unreadable_program_position",
                    detail=f"`{name}` is missing an operand it requires",
                )
            if words[j].value is None:
                return result(
                    argv_from_stdin=argv_from_stdin,
                    decline="unreadable_program_position",
                    detail=f"`{name}` is given an operand from an expansion (`{words[j].text}`)",
                )
            j += 1
        taken = tuple(range(options.end, j))
        if row.operands_are_shell_arguments and j < len(words):
            taken += (j,)  # `su USER`: the user, whatever follows
        readings[-1] = readings[-1]._replace(operands=options.operands + taken)
        if row.command_string and j < len(words) and words[j].value in row.command_string:
            # ``flock FILE -c CMD``: getopt permutes, so the option may follow the operand.
            option = words[j].value or ""
            text = words[j + 1].value if j + 1 < len(words) else None
            return result(
                refusal=refusal_shell(name, option),
                runs_shell=True,
                argv_from_stdin=argv_from_stdin,
                command_string=(f"{name} {option}", text),
            )
        if row.operands_are_shell_arguments and not options.seen & row.program_options:
            # GNU getopt permutes, so `su - postgres -c CMD` still hands CMD to the
            # shell: find a command-string option among the operands.
            command_string = _permuted_command_string(words, j, row, name)
            if command_string is not None:
                return result(
                    refusal=refusal_shell(name, command_string[0].split(" ", 1)[1]),
                    runs_shell=True,
                    argv_from_stdin=argv_from_stdin,
                    command_string=command_string,
                )
            return result(
                refusal=refusal_shell(name, name), runs_shell=True, argv_from_stdin=argv_from_stdin
            )
        if row.shell_text and not options.seen & row.exec_options and j < len(words):
            return result(
                refusal=refusal_shell(name, words[j].text),
                runs_shell=True,
                argv_from_stdin=argv_from_stdin,
                shell_text_from=j,
            )
        if options.seen & row.shell_options:
            runs_shell = True
        if j >= len(words):
            if runs_shell:
                shell_option = min(options.seen & row.shell_options)
                return result(
                    refusal=refusal_shell(name, shell_option),
                    runs_shell=True,
                    argv_from_stdin=argv_from_stdin,
                )
            if row.when_no_program == "shell":
                return result(
                    refusal=refusal_shell(name, name),
                    runs_shell=True,
                    argv_from_stdin=argv_from_stdin,
                )
            if row.when_no_program == "default" and row.default_program is not None:
                return result(
                    program=ProgramName(
                        index=None, name=row.default_program, basename=row.default_program
                    ),
                    argv_from_stdin=argv_from_stdin,
                    runs_default_program=True,
                    decline="stream_fed_operands" if argv_from_stdin else None,
                    detail=f"`{name}` runs `{row.default_program}` but",
                )
            launchers.pop()
            readings.pop()
            program = ProgramName(index=i, name=name, basename=base)
            return result(
                program=program,
                argv_from_stdin=argv_from_stdin and bool(launchers),
                decline="stream_fed_operands" if argv_from_stdin and launchers else None,
                detail=f"`{name}`",
            )
        i = j
