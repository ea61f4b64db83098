"""
The differential harness: what the reader says a text runs, against what bash says.

For one text, `compare` puts side by side

* **the reading** — `read_shell`, and every simple command in its tree
  (bodies, substitutions, heredoc holes, function bodies alike);
* **bash's trace** (`oracle.bash.read`) — every command bash reached, with the
  argv its expansions gave, inside substitutions too;
* **bash's re-print** — ``declare -f`` of the text wrapped in a function, which
  the reader then reads in turn.

and reports, when the reading is measured:

* a **miss** — a command bash ran that no command of the reading accounts for
  (the words the reading knows literally must be the words bash ran, up to
  the first word the reading marks as expanding). This is the release blocker;
* an **extra** or a **static miss** — the reading and bash's own canonical
  print of the same text disagree on the commands there are (compared as the
  multiset of their literal words): the reader sees a command bash does not
  have, or bash has one the reader does not (in a branch the trace did not
  take, for one). bash prints every coprocess with its name, that of a
  simple command too (``coproc k a`` prints as ``coproc COPROC k a``, which
  bash itself would read as running ``COPROC k a``): in the re-print, the
  first word of a simple command's coprocess is that name, not a word of
  the command;
* a **heredoc** difference — the heredocs (delimiter, quotedness, body) of
  the reading and of bash's re-print differ;
* **measured but invalid** — the reader measured a text bash refuses to parse.

An unmeasured reading claims nothing, so it has no mismatch (but it is
counted: the coverage the reader gives up is the price of its caution).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Literal, NamedTuple

from gateway._read import ShellReading, read_shell
from gateway._read._tree import Coproc, Heredoc, Program, SimpleCommand, Word, walk
from oracle import bash

__all__ = ["Comparison", "Mismatch", "argv_of", "commands_of", "compare", "compare_reading"]

Key = tuple[str | None, ...]
"""A command's words as the reader knows them: the literal value, or ``None`` for an expanding word."""

MismatchKind = Literal[
    "miss", "extra", "static-miss", "heredoc", "measured-but-invalid", "trace-escaped"
]


class Mismatch(NamedTuple):
    """One disagreement between the reading and bash."""

    kind: MismatchKind
    detail: str


class Comparison(NamedTuple):
    """
    The reading and bash's answer for one text, and how they differ.

    Attributes:
        text: The text compared.
        reading: What `read_shell` said.
        bash: What bash said.
        mismatches: Every disagreement found; empty when the two agree (or the
            reading is unmeasured).
        reprint_measured: Whether the reader measured bash's re-print, so the
            static comparison ran.
    """

    text: str
    reading: ShellReading
    bash: bash.Reading
    mismatches: tuple[Mismatch, ...]
    reprint_measured: bool

    @property
    def measured(self) -> bool:
        """The reading was measured."""
        return self.reading.status == "measured"

    @property
    def bash_valid(self) -> bool:
        """bash parsed the text (it could define a function of it)."""
        return self.bash.reprint is not None


def commands_of(program: Program) -> list[SimpleCommand]:
    """Every simple command in a tree, in walk order."""
    return [node for node in walk(program) if isinstance(node, SimpleCommand)]


def _word_key(word: Word | None) -> str | None:
    return None if word is None else word.value


def argv_of(command: SimpleCommand) -> Key:
    """
    The argv a simple command runs as far as the reader knows it literally.

    Assignments first (``name=value``, as bash's probe sees them), then the
    words; ``None`` for each element the reader marks as expanding (which
    may become any number of words).
    """
    elements: list[str | None] = []
    for assignment in command.assignments:
        if assignment.subscript is not None or assignment.array is not None:
            elements.append(None)
            continue
        operator = "+=" if assignment.append else "="
        value = "" if assignment.value is None else _word_key(assignment.value)
        elements.append(None if value is None else assignment.name + operator + value)
    elements.extend(_word_key(word) for word in command.words)
    return tuple(elements)


def _first_text(command: SimpleCommand) -> str:
    """How ``$BASH_COMMAND`` starts for ``command`` when bash prints it as written."""
    if command.assignments:
        return command.assignments[0].name
    return command.words[0].text if command.words else ""


def _names_a_program_of(printed: str, keys: list[Key]) -> bool:
    """
    Whether bash's print of a command it did not run names the program word one of ``keys`` does.

    ``$BASH_COMMAND`` is bash's own print of the command, not its text:
    ``$'\\x41'`` is printed ``'A'``, ``$"t"`` is ``"t"``, and a substitution's
    body is printed back canonically (``$(⏎k1⏎)`` is ``$(k1)``). So the print
    is read back with the reader and its program word compared with the
    reader's, literal for literal, an expansion for an expansion.
    """
    reading = read_shell(printed)
    if reading.program is None:
        return False
    commands = commands_of(reading.program)
    if not commands:
        return False
    program = argv_of(commands[0])[:1]
    return any(key[:1] == program for key in keys)


def _accounts_for(known: Key, ran: tuple[str, ...]) -> bool:
    """True when a command the reader knows as ``known`` can have run as ``ran``."""
    for index, element in enumerate(known):
        if element is None:
            return True  # expands: any words from here on
        if index >= len(ran) or ran[index] != element:
            return False
    return len(ran) == len(known)


def _bash_commands(reading: bash.Reading) -> Iterator[bash.Command]:
    for command in reading.walk():
        if not command.head:
            yield command


def _static_keys(program: Program, *, reprint: bool = False) -> Counter[Key]:
    named = set()
    if reprint:
        # bash's print of a simple command's coprocess: `coproc COPROC k a`.
        named = {
            id(node.body)
            for node in walk(program)
            if isinstance(node, Coproc)
            and isinstance(node.body, SimpleCommand)
            and node.body.words
            and node.body.words[0].value == "COPROC"
        }
    return Counter(
        argv_of(command)[1:] if id(command) in named else argv_of(command)
        for command in commands_of(program)
    )


def _heredoc_keys(program: Program) -> Counter[tuple[str, bool, str]]:
    """
    Each heredoc as bash re-prints it: delimiter, quotedness, body with ``<<-`` tabs stripped.

    bash strips the tabs of a *logical* line: an unquoted body's backslash-newlines
    are removed first, so the tabs of a continued line stay where they are.
    """
    keys: Counter[tuple[str, bool, str]] = Counter()
    for node in walk(program):
        if isinstance(node, Heredoc):
            body = node.body if node.quoted else _join_continued_lines(node.body)
            if node.operator == "<<-":
                body = re.sub(r"(?m)^\t+", "", body)  # lines end at a newline only, not at \r
            keys[(node.delimiter, node.quoted, body)] += 1
    return keys


def _join_continued_lines(body: str) -> str:
    """An unquoted body as bash stores it: each unescaped backslash-newline removed."""
    out: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            if body[i + 1] != "\n":
                out.append(body[i : i + 2])
            i += 2
            continue
        out.append(body[i])
        i += 1
    return "".join(out)


def _show(key: Iterable[str | None]) -> str:
    return " ".join("<expands>" if element is None else repr(element) for element in key)


def compare(text: str) -> Comparison:
    """Read ``text`` with the reader and with bash, and compare (see the module docstring)."""
    return compare_reading(text, read_shell(text), bash.read(text))


def compare_reading(text: str, reading: ShellReading, answer: bash.Reading) -> Comparison:
    """Compare a reading already made with bash's answer for the same text."""
    mismatches: list[Mismatch] = []
    reprint_measured = False
    program = reading.program
    parsed_running = bool(answer.logged) and program is None and answer.reprint is None
    if (answer.logged and not parsed_running) or (answer.escaped and program is not None):
        # The harness's own guarantee failed; never a pass. A program that ran
        # (logged) fails, but for the one exception below. A command that reached the trap inside a
        # probe or while defining was skipped, so nothing ran, but the trace
        # around it cannot be trusted: that fails wherever there is a plan to
        # compare with it. An unmeasured reading has none (it is never an
        # allow), so there it only says the text is beyond what the trace reads.
        # One exception (`parsed_running`): bash 5.2 runs a `$( )` while it
        # is still *reading* some texts it then refuses (two heredocs in a
        # substitution whose body lines start with the delimiter and hold a
        # `)`: it pushes the rest of such a line back into its input), before
        # any trap can see a command. Only the confinement bounds that (a
        # logger ran), and a reading that refuses the text claims nothing.
        mismatches.append(
            Mismatch("trace-escaped", f"escaped {answer.escaped!r}, logged {answer.logged!r}")
        )
    if program is None:
        return Comparison(text, reading, answer, tuple(mismatches), reprint_measured)
    ours = commands_of(program)
    keys = [argv_of(command) for command in ours]
    if answer.reprint is None:
        if not answer.closed_early:
            mismatches.append(
                Mismatch("measured-but-invalid", answer.errors.strip().splitlines()[-1:].__str__())
            )
        return Comparison(text, reading, answer, tuple(mismatches), reprint_measured)
    for ran in _bash_commands(answer):
        if ran.argv is not None:
            if not any(_accounts_for(key, ran.argv) for key in keys):
                mismatches.append(Mismatch("miss", f"bash ran {_show(ran.argv)} ({ran.text!r})"))
        elif not any(
            ran.text.startswith(_first_text(command)) for command in ours
        ) and not _names_a_program_of(ran.text, keys):
            mismatches.append(Mismatch("miss", f"bash ran {ran.text!r} (its argv unknown)"))
    again = read_shell(answer.reprint)
    if again.program is not None:
        reprint_measured = True
        theirs = _static_keys(again.program, reprint=True)
        mine = Counter(keys)
        mismatches.extend(
            Mismatch("extra", f"the reader sees {_show(key)}, bash does not")
            for key in sorted(mine - theirs, key=_show)
        )
        mismatches.extend(
            Mismatch("static-miss", f"bash has {_show(key)}, the reader does not")
            for key in sorted(theirs - mine, key=_show)
        )
        ours_heredocs, bash_heredocs = _heredoc_keys(program), _heredoc_keys(again.program)
        if ours_heredocs != bash_heredocs:
            mismatches.append(
                Mismatch(
                    "heredoc",
                    f"the reader reads the heredocs {sorted(ours_heredocs)!r}, "
                    f"bash {sorted(bash_heredocs)!r}",
                )
            )
    return Comparison(text, reading, answer, tuple(mismatches), reprint_measured)
