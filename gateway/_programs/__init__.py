"""
What a program does with its own arguments: option tables and the readers of program languages.

The planner knows which program runs (`gateway._plan._position`); this package says
what that program then does with the words it is given. Every program the
policy may allow has an *option table* (data, like the launcher table): each
option's spellings, arity and effect. Programs with a language of their own
(awk, sed, jq, find, git) are read with a tokenizer for that language. What a
table does not declare, or a language reader cannot read, is stated as such
(`ArgumentReading.undeclared`, `ArgumentReading.unreadable`): it is never
guessed, and it refuses an allow.

The readers see argument *values* after quote removal (``None`` for a word
that expands), never shell text. They are pure, synchronous and linear in the
size of their input. Paths are reported as written; the planner resolves and
classifies them (`gateway._calls._effects`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from functools import cache
from typing import TYPE_CHECKING, Literal

import msgspec

if TYPE_CHECKING:
    from gateway._programs._languages import LanguageReader
    from gateway._programs._rows import ProgramRow

__all__ = [
    "ArgumentFact",
    "ArgumentReading",
    "FactBase",
    "FactKind",
    "read_arguments",
    "reading_problem",
]

FactKind = Literal[
    "read",
    "write",
    "execute",
    "network",
    "cwd",
    "read_environment",
    "lifetime",
    "bind",
]
"""What one argument (or option) makes the program do; see `ArgumentFact`."""

FactBase = Literal["git_dir", "work_tree"]
"""What a fact's path is relative to when it is not the working directory; see `ArgumentFact.within`."""


class ArgumentFact(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One thing a program does because of its arguments.

    Attributes:
        kind: ``read`` / ``write`` a path, ``execute`` code, ``network``
            (connect to, listen on or resolve ``value``), ``cwd`` (the program
            runs in ``value``: ``git -C``, ``make -C``, ``tar -C``; later path
            facts of the same reading are relative to it), ``read_environment``
            (it prints or reads the whole environment, or one variable of it),
            ``lifetime`` (it may never end or it detaches: ``tail -f``,
            ``yes``), ``bind`` (it sets one of the program's own settings for
            this run: ``git -c name=value``).
        via: The option or role that causes it (``--output``, ``operand``,
            ``-exec``, ``system()``), for display.
        index: The argument's index in the argv the reader was given (``None``
            when the fact comes from no single argument, such as a default file).
        value: The path, URL, host or code, as the argument's value (``None``
            when the argument expands, so the value is unknown). A path may be
            derived from the argument: ``gzip f`` creates ``f.gz``, ``cp a
            dir`` may write ``dir/a``, ``ln -s /x/.bashrc`` creates ``.bashrc``.
            For ``read_environment``: the one variable read (``ENVIRON["HOME"]``,
            ``$ENV.PATH``), or ``None`` for the whole environment or a name
            only known at run time. For ``bind``: the setting as written
            (``core.autocrlf=true``). For ``execute`` with action
            ``configured``: ``None``, since the code is in a configuration
            file, not in the call.
        action: For ``write``: ``write``, ``append``, ``create``, ``delete``,
            ``move``, ``copy``, ``link``, ``mode``, ``owner`` or ``directory``.
            For ``execute``: ``program`` (`value` names a program),
            ``shell_text`` (`value` is shell text), ``code`` (`value` is
            code in the program's own language: ``python -c``, ``perl -e``),
            ``script`` (`value` is a file whose code runs: ``python x.py``,
            ``source FILE``), ``module`` (`value` names a module or package
            that is found and run: ``python -m``, ``npx``), or ``configured``
            (the program may run code its configuration names rather than the
            call: git's ``core.fsmonitor``, ``core.pager``, a textconv driver,
            a hook; ``via`` then names the configuration key pattern from
            `gateway._programs._gitconfig.GIT_CODE_KEYS` or the hook,
            ``hooks/pre-commit``). For ``network``: ``connect``, ``listen`` or
            ``resolve``. For ``lifetime``: ``unbounded`` or ``detached``. For
            ``read``: ``metadata`` when only names, sizes, modes or types are
            read (``ls``, ``stat``), else ``None``.
        recursive: For ``write``: the change reaches everything below the path
            (``rm -r``, ``chmod -R``). For ``read``: the program reads
            everything below it (a search root of ``find``, ``grep -r``, ``cp
            -r`` sources), so a directory that holds secrets is read with them.
        prefix: For ``write``: `value` is the beginning of the paths written,
            not a whole path (``split IN part_`` writes ``part_aa``,
            ``part_ab``…; ``mktemp /tmp/fooXXXXXX``).
        within: ``None`` when a relative `value` is relative to the working
            directory (as it nearly always is). ``git_dir``: the value names a
            file of the repository's git directory, spelled as if that
            directory were ``.git`` (``.git/config``, ``.git/index``); where
            the git directory really is, only the repository can say at run
            time, so such a value must never be resolved against the working
            directory alone. ``work_tree``: the value is relative to the top
            of the repository's work tree (``.`` for all of it).
        words: For ``execute`` with action ``program``: the argv index range
            ``[start, end)`` of the command it runs (``find -exec CMD ARGS ;``,
            ``jobs -x CMD ARGS``), so the planner can plan that command from
            the same words. For ``script`` and ``module``: the script and its
            own arguments. For ``shell_text`` from words joined by spaces
            (``ssh HOST CMD ARGS``): those words.
    """

    kind: FactKind
    via: str
    index: int | None
    value: str | None
    action: str | None = None
    recursive: bool = False
    prefix: bool = False
    words: tuple[int, int] | None = None
    within: FactBase | None = None


class ArgumentReading(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What a program does with its arguments, as far as its table or language reader can say.

    Attributes:
        program: The program's basename, as looked up.
        table: The program has an option table (or a language reader). Without
            one nothing is known of its arguments and nothing may allow it on
            its effects.
        subcommand: The subcommand path read (``("remote", "add")`` for git),
            empty when the program has none.
        options: The declared options present, in their canonical spelling, in order.
        operands: The argv indexes of the operands, in order.
        facts: What it does, in argument order.
        undeclared: The first option the table does not declare (as written).
        unreadable: One clause saying why the arguments cannot be read at all
            (a word that expands where an option could stand; a program text the
            language reader cannot tokenize), or ``None``.
        environment: Variables whose value the program reads as code, a
            program or options (``PAGER`` for ``man``, ``LESSOPEN`` for
            ``less``): a bind of one in the same call makes the program run it.
    """

    program: str
    table: bool
    subcommand: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    operands: tuple[int, ...] = ()
    facts: tuple[ArgumentFact, ...] = ()
    undeclared: str | None = None
    unreadable: str | None = None
    environment: tuple[str, ...] = ()


def read_arguments(
    basename: str,
    argv: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    """
    Read what a program does with its arguments: its language reader, else its option table.

    A program with a language of its own (``LANGUAGE_READERS``) is read by its
    reader; any other by its option table; a program with neither is
    ``table=False`` and nothing is known of its arguments. Pure, linear in
    ``argv``, no I/O.

    Args:
        basename: The program's basename (``cat`` for ``/usr/bin/cat``).
        argv: The argument values after the program word, quotes removed;
            ``None`` for a word that expands.
        one_word: Indexes of expanding words known to be exactly one word
            (double-quoted, with no ``"$@"`` or ``"${a[@]}"`` in them). Any
            other expanding word may be no word or several.
        no_dash: Indexes of expanding words none of whose words can begin
            with ``-`` (``"src/$f"``, ``./*``). Any other expanding word may
            spell an option, so where an option could stand it makes the
            reading unreadable.

    Returns:
        The reading: options, operands, facts in argument order, and what
        could not be read (`ArgumentReading.undeclared`, ``unreadable``).

    Examples:
        >>> reading = read_arguments("sort", ["-o", "out.txt", "in.txt"])
        >>> [(fact.kind, fact.value) for fact in reading.facts]
        [('write', 'out.txt'), ('read', 'in.txt')]
        >>> read_arguments("sort", ["--co=gzip", "big"]).options
        ('--compress-program',)
        >>> read_arguments("xxd", ["-l", "64", "image.png"]).operands
        (2,)
    """
    readers, tables, read_row = _readers()
    reader = readers.get(basename)
    if reader is not None:
        return reader(basename, argv, one_word=one_word, no_dash=no_dash)
    row = tables.get(basename)
    if row is None:
        return ArgumentReading(program=basename, table=False)
    return read_row(basename, row, argv, one_word=one_word, no_dash=no_dash)


@cache
def _readers() -> tuple[
    Mapping[str, LanguageReader], Mapping[str, ProgramRow], Callable[..., ArgumentReading]
]:
    """The language readers, the option tables and the table reader, imported at first use."""
    # Imported here: the readers and the tables build on the Structs above.
    from gateway._programs._languages import LANGUAGE_READERS
    from gateway._programs._table_reader import read_row
    from gateway._programs._tables import PROGRAM_TABLES

    return LANGUAGE_READERS, PROGRAM_TABLES, read_row


def reading_problem(reading: ArgumentReading) -> str | None:
    """
    Why nothing may be allowed on this reading's facts, as one sentence; ``None`` when it was read in full.

    The one place the table's and the language readers' findings become a
    sentence: a program without a table, an option the table does not
    declare (named as written), or words that cannot be read.

    Examples:
        >>> reading_problem(read_arguments("sort", ["--frobnicate"]))
        '`sort` is given the option `--frobnicate`, which its option table does not declare.'
        >>> reading_problem(read_arguments("cat", [None]))
        "`cat`'s arguments cannot be read: argument 1 is an expansion where an option could stand."
        >>> reading_problem(read_arguments("cat", ["README.md"])) is None
        True
    """
    program = reading.program
    if not reading.table:
        return f"`{program}` has no option table, so what it does with its arguments is unknown."
    if reading.undeclared is not None:
        word = reading.undeclared
        what = f"the option `{word}`" if word.startswith(("-", "+")) else f"`{word}`"
        return f"`{program}` is given {what}, which its option table does not declare."
    if reading.unreadable is not None:
        return f"`{program}`'s arguments cannot be read: {reading.unreadable}."
    return None
