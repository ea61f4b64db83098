"""
The awk reader: what an awk command line and its program read, write, run and send.

awk's own options read and write files (``-f``, gawk's ``-i``, ``-d``,
``-p``, ``-o``), load code (gawk's ``-l``) or take program text (gawk's and
busybox's ``-e``); its first operand is the program unless ``-f`` gave one;
the rest are files to read, except ``name=value`` assignments. The program
text is read by `gateway._programs._awk_program`, with a tokenizer for awk.

``awk`` and ``nawk`` may be gawk, mawk, the one true awk or busybox awk,
depending on the machine: they are read with the options of all of them,
each read the way that gives it the most effects.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Final

from gateway._programs import ArgumentFact, ArgumentReading, FactKind
from gateway._programs._awk_program import Dialect, Unreadable, program_facts
from gateway._programs._option_scanner import Item, Scanner, long_option, option_lookup, table

__all__ = ["read_awk"]

_DIALECTS: Final[dict[str, Dialect]] = {
    "awk": "any",
    "nawk": "any",
    "gawk": "gawk",
    "mawk": "mawk",
    "original-awk": "bwk",
    "bwk-awk": "bwk",
    "one-true-awk": "bwk",
}

# --- the command line ---------------------------------------------------------

_POSIX: Final = ("--file -f =", "--field-separator -F =", "--assign -v =")
_GAWK: Final = (
    "--characters-as-bytes -b",
    "--traditional -c",
    "--copyright -C",
    "--dump-variables -d [=]",
    "--debug -D [=]",
    "--source -e =",
    "--exec -E =",
    "--gen-pot -g",
    "--help -h",
    "--include -i =",
    "--trace -I",
    "--csv -k",
    "--load -l =",
    "--lint -L [=]",
    "--bignum -M",
    "--use-lc-numeric -N",
    "--non-decimal-data -n",
    "--pretty-print -o [=]",
    "--optimize -O",
    "--profile -p [=]",
    "--posix -P",
    "--re-interval -r",
    "--no-optimize -s",
    "--sandbox -S",
    "--lint-old -t",
    "--version -V",
    "-W =",
)
_BWK_WORDS: Final = ("-safe", "-version")
"""The one true awk's whole-word options (``-safe`` forbids ``system`` and redirections)."""
_BWK: Final = ("--version -V", "--csv", "-d [=]", *_BWK_WORDS)

_TABLES: Final = {
    "gawk": table(*_POSIX, *_GAWK),
    # awk and nawk may be gawk, mawk, the one true awk or busybox: the
    # options of gawk (which reads busybox's `-e` as its own) and `-W` read
    # both ways, and the one true awk's whole words.
    "any": table(*_POSIX, *_GAWK, *_BWK_WORDS),
    "mawk": table(*_POSIX, "-W =", abbreviate=False),
    "bwk": table(*_POSIX, *_BWK, abbreviate=False),
}
_GAWK_LONG: Final = option_lookup([_TABLES["gawk"].row])
"""gawk's long options, for ``-W NAME`` (gawk reads ``-W name`` as ``--name``)."""

_MAWK_W: Final = (
    "version", "dump", "help", "interactive", "exec", "random", "sprintf", "posix_space", "usage",
)  # fmt: skip
"""mawk's ``-W`` options; each may be abbreviated, and several joined by commas."""

_DEFAULT_OUTPUT: Final = {
    "--dump-variables": "awkvars.out",
    "--profile": "awkprof.out",
    "--pretty-print": "awkprof.out",
}
"""gawk's options that write a file, and the file they write when none is named."""


_EXITS: Final = frozenset({"--help", "--version", "--copyright", "-version"})
"""Options after which awk prints and exits, needing no program."""
_MAWK_EXITS: Final = frozenset({"version", "help", "usage"})
_INPLACE: Final = frozenset({"inplace", "inplace.awk"})
"""gawk's library that writes every file operand in its place."""


def _is_assignment(operand: str) -> bool:
    """Whether an awk operand is ``name=value`` (an assignment, not a file to read)."""
    name, equals, _ = operand.partition("=")
    return bool(
        equals
        and name.isascii()
        and name[:1].isidentifier()
        and all(char.isalnum() or char == "_" for char in name)
    )


def _mawk_names(value: str) -> list[str] | None:
    """The mawk ``-W`` options a value names (each a unique prefix, joined by commas), or ``None``."""
    names = []
    for part in value.split(","):
        prefix = part.partition("=")[0]
        matches = [name for name in _MAWK_W if prefix and name.startswith(prefix)]
        if len(matches) != 1:
            return None
        names.append(matches[0])
    return names


class _Line:
    """What the options of one awk command line amount to, as they are read."""

    def __init__(self, program: str, dialect: Dialect, scanner: Scanner) -> None:
        self.program = program
        self.dialect = dialect
        self.scanner = scanner
        self.options: list[str] = []
        self.facts: list[ArgumentFact] = []
        self.texts: list[tuple[str, int]] = []
        self.unreadable: str | None = None
        self.from_file = False
        self.exits = False
        self.in_place = False

    def refuse(self, why: str) -> None:
        if self.unreadable is None:
            self.unreadable = why

    def fact(
        self, item: Item, kind: FactKind, action: str | None = None, value: str | None = None
    ) -> None:
        index = item.indexes[0] if item.indexes else item.start
        shown = item.value if value is None else value
        self.facts.append(
            ArgumentFact(kind=kind, via=item.written, index=index, value=shown, action=action)
        )

    def program_file(self, item: Item) -> None:
        self.from_file = True
        self.fact(item, "read")
        self.refuse("its program comes from a file, whose code is not in the call")

    def option(self, item: Item) -> None:
        name = item.name
        self.options.append(name)
        self.exits = self.exits or name in _EXITS
        if name == "-W":
            self.w_option(item)
        elif name in ("--file", "--exec"):
            self.program_file(item)
            if name == "--exec":
                self.scanner.end_options()
        elif name == "--source":
            if item.value is None:
                self.refuse("its program text expands, so it cannot be read")
            else:
                self.texts.append((item.value, item.indexes[0]))
        elif name == "--include":
            self.fact(item, "read")
            self.refuse(f"its program includes `{item.value}`, whose code is not in the call")
            self.in_place = self.in_place or item.value in _INPLACE
        elif name == "--load":
            self.fact(item, "execute", "code")
            self.refuse(f"it loads the library `{item.value}`, whose code is not in the call")
        elif name in _DEFAULT_OUTPUT:
            self.fact(item, "write", "write", item.value if item.values else _DEFAULT_OUTPUT[name])
        elif name == "--debug":
            if item.values:
                self.fact(item, "read")
            self.refuse("it runs gawk's debugger, which takes commands from its input")

    def w_option(self, item: Item) -> None:
        """``-W``: a gawk long option, or (mawk) a comma-separated list of mawk's own; both for ``awk``."""
        value = item.value
        if value is None:
            self.refuse("the value of its `-W` expands, so its options cannot be read")
            return
        name, equals, rest = value.partition("=")
        gawk = None
        if self.dialect in ("gawk", "any") and "," not in value and name:
            gawk = long_option(_GAWK_LONG, "--" + name)
        mawk = _mawk_names(value) if self.dialect in ("mawk", "any") else None
        if gawk is None and mawk is None:
            self.refuse(f"`-W {value}` is not an option {self.program} is known to have")
            return
        if gawk is not None:
            values: tuple[str | None, ...] = (rest,) if equals else ()
            indexes: tuple[int, ...] = item.indexes if equals else ()
            if gawk.arity == 1 and not equals:
                taken = self.scanner.take(f"-W {name}")
                if taken is None:
                    return
                values, indexes = (taken[0],), (taken[1],)
            self.option(Item("option", item.start, gawk.name, f"-W {name}", values, indexes))
        for mawk_name in mawk or ():
            self.exits = self.exits or mawk_name in _MAWK_EXITS
            if mawk_name == "exec" and (gawk is None or gawk.name != "--exec"):
                # mawk reads the next word as its program file, and stops reading options.
                taken = self.scanner.take("-W exec")
                if taken is None:
                    return
                self.program_file(
                    Item("option", item.start, "-W", "-W exec", (taken[0],), (taken[1],))
                )
                self.scanner.end_options()


def read_awk(
    program: str,
    args: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    """
    Read an awk command line: its options, its program text, and its operands.

    Facts, in argument order: what the options do (``-f``/``-E``/``-i`` read
    a file, ``-l`` loads code, ``-d``/``-p``/``-o`` write one), what the
    program does (``execute`` ``shell_text`` for ``system()``, ``print |``
    and ``| getline``, with the command when it is one plain string literal;
    ``write`` for ``print >``/``>>``; ``read`` for ``getline <`` and for any
    use of ``ARGV``/``ARGC``; ``read_environment`` for ``ENVIRON``;
    ``network`` for gawk's ``/inet`` files), and a ``read`` for each operand
    that is not a ``name=value`` assignment. With gawk's ``inplace`` library
    the operands are written too.

    Args:
        program: The basename looked up (``awk``, ``gawk``, ``mawk``, ``nawk``…).
        args: The arguments after the program word, ``None`` for one that expands.
        one_word: Not used: every expanding word may be several words.
        no_dash: Not used: every expanding word may begin with a dash.

    Returns:
        The reading; `ArgumentReading.unreadable` when the program cannot be
        tokenized, is not in the call, or loads code.

    >>> reading = read_awk("awk", ['NR > 1 { print $2 > "out.txt" }', "in.txt"])
    >>> [(fact.kind, fact.via, fact.value) for fact in reading.facts]
    [('write', 'print >', 'out.txt'), ('read', 'operand', 'in.txt')]
    """
    dialect = _DIALECTS.get(program, "any")
    scanner = Scanner(args, _TABLES[dialect], permute=False)
    line = _Line(program, dialect, scanner)
    operands: list[tuple[int, str | None]] = []
    for item in scanner:
        if item.kind == "option":
            line.option(item)
        elif item.kind == "operand":
            operands.append((item.start, item.value))
    problem = scanner.problem
    if problem is not None:
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(line.options),
            facts=tuple(line.facts),
            undeclared=problem.undeclared,
            unreadable=problem.unreadable,
        )
    if not line.texts and not line.from_file and not line.exits:
        if not operands:
            line.refuse("it has no program")
        else:
            index, text = operands.pop(0)
            if text is None:
                line.refuse("its program text expands, so it cannot be read")
            else:
                line.texts.append((text, index))
    facts = list(line.facts)
    in_place = line.in_place
    for text, index in line.texts:
        try:
            found = program_facts(text, index, dialect)
        except Unreadable as why:
            line.refuse(f"its program cannot be read: {why}")
            continue
        facts.extend(found.facts)
        for clause in found.refusals:
            line.refuse(clause)
        in_place = in_place or found.in_place
    read_operands: list[int] = []
    for index, value in operands:
        if value is not None and (_is_assignment(value) or value == "-"):
            continue
        read_operands.append(index)
        facts.append(ArgumentFact(kind="read", via="operand", index=index, value=value))
        if in_place:
            facts.append(
                ArgumentFact(kind="write", via="inplace", index=index, value=value, action="write")
            )
    facts.sort(key=lambda fact: -1 if fact.index is None else fact.index)
    return ArgumentReading(
        program=program,
        table=True,
        options=tuple(line.options),
        operands=tuple(read_operands),
        facts=tuple(facts),
        unreadable=line.unreadable,
    )
