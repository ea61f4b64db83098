"""
Option tables a configuration declares for its own programs (``[programs.NAME]``).

A program with no table can never be allowed: nothing says what it does with
its words. A configuration may declare one, in the row format of the
built-in tables: each option's spellings with ``=``, ``[=]``, ``(=)``,
``[_]`` or ``[0]`` for its value, and the effect it has; the operands'
roles; whether long options may be abbreviated and where options end. The
table is complete or it refuses: an option it does not declare refuses the
allow, exactly as for a built-in table. A name that already has a built-in
table or a language reader cannot be declared again.

    >>> table = msgspec.convert(
    ...     {"options": ["-v --verbose", {"spelling": "-o --output =", "effect": "write"}],
    ...      "operands": {"rest": "read"}},
    ...     UserTable,
    ... )
    >>> reader = user_reader({"report": table})
    >>> [(f.kind, f.value) for f in reader("report", ["-vo", "out.txt", "data.csv"]).facts]
    [('write', 'out.txt'), ('read', 'data.csv')]
    >>> reader("report", ["--frobnicate"]).undeclared
    '--frobnicate'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from typing import Final

import msgspec

from gateway._programs import ArgumentReading, read_arguments
from gateway._programs._rows import (
    APPEND,
    CHDIR,
    CREATE,
    DELETE,
    DIRECTORY,
    METADATA,
    NETWORK,
    READ,
    RUN_CODE,
    RUN_PROGRAM,
    RUN_SHELL,
    WRITE,
    Effect,
    Operands,
    OptionSpec,
    ProgramRow,
    Role,
    RowExample,
    option_table,
)

__all__ = ["USER_EFFECTS", "UserOperands", "UserOption", "UserTable", "user_reader", "user_rows"]

USER_EFFECTS: Final[Mapping[str, Effect | None]] = {
    "none": None,
    "read": READ,
    "metadata": METADATA,
    "write": WRITE,
    "append": APPEND,
    "create": CREATE,
    "delete": DELETE,
    "directory": DIRECTORY,
    "code": RUN_CODE,
    "program": RUN_PROGRAM,
    "shell_text": RUN_SHELL,
    "connect": NETWORK,
    "cwd": CHDIR,
}
"""The effects a declared option or operand may have, by the name a configuration gives."""

_NAME: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}")


def _effect(name: str, where: str) -> Effect | None:
    if name not in USER_EFFECTS:
        raise ValueError(
            f"{where} has the effect {name!r}, which is none of {', '.join(USER_EFFECTS)}"
        )
    return USER_EFFECTS[name]


class UserOption(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    One option with an effect: ``{ spelling = "-o --output =", effect = "write" }``.

    Attributes:
        spelling: Its spellings and value mark, as in the built-in tables.
        effect: What its value is to the program (`USER_EFFECTS`): ``write``
            for a file it writes, ``read`` for one it reads, ``code`` for code it runs…
    """

    spelling: str
    effect: str = "none"

    def __post_init__(self) -> None:
        _effect(self.effect, f"the option {self.spelling!r}")


class UserOperands(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The operands' roles: the first ones in order (``head``), every other one (``rest``).

    Each is an effect name (`USER_EFFECTS`): ``read`` for a file the program
    reads, ``none`` for a word that is only data (a name, a pattern).
    """

    head: tuple[str, ...] = ()
    rest: str = "none"

    def __post_init__(self) -> None:
        for index, name in enumerate(self.head):
            _effect(name, f"operand {index + 1}")
        _effect(self.rest, "the rest of the operands")

    def layout(self) -> Operands:
        """The `Operands` of the built-in row format."""

        def role(name: str) -> Role:
            effect = USER_EFFECTS[name]
            return Role(effects=() if effect is None else (effect,))

        return Operands(head=tuple(role(name) for name in self.head), rest=role(self.rest))


class UserTable(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    A program's option table, as a configuration declares it (``[programs.NAME]``).

    Attributes:
        options: Every option the program accepts: a spelling string
            (``"-v --verbose"``, ``"-n --lines ="``) for an option without
            effects, or a `UserOption` for one whose value the program reads,
            writes or runs. Any option not listed refuses an allow.
        operands: The operands' roles (every operand is data by default).
        abbreviations: Unique prefixes of long options are accepted, as GNU
            ``getopt_long`` and Python's argparse accept them.
        options_end_after: Options stop after this many operands (``1``: at
            the first operand, as POSIX ``getopt``); by default they may
            follow operands until ``--``.
        double_dash: ``--`` ends the options.
        examples: Commands the policy must decide as each says
            (`gateway.effects.RowExample`: ``{ command, decision, profile }``),
            judged with the whole policy when the ``rules`` approver loads.
    """

    options: tuple[str | UserOption, ...] = ()
    operands: UserOperands = UserOperands()
    abbreviations: bool = False
    options_end_after: int | None = None
    double_dash: bool = True
    examples: tuple[RowExample, ...] = ()

    def __post_init__(self) -> None:
        if self.options_end_after is not None and self.options_end_after < 1:
            raise ValueError("options-end-after is a number of operands, 1 or more")
        self.row()

    def row(self) -> ProgramRow:
        """The table as a `ProgramRow` (raises ``ValueError`` with one sentence when it is malformed)."""
        specs: list[OptionSpec] = []
        for option in self.options:
            if isinstance(option, str):
                specs.append(option)
            else:
                effect = USER_EFFECTS[option.effect]
                specs.append(option.spelling if effect is None else (option.spelling, effect))
        try:
            options = option_table(*specs)
        except (ValueError, IndexError) as error:
            raise ValueError(f"an option is malformed: {str(error).rstrip('.')}") from None
        return ProgramRow(
            options=options,
            operands=self.operands.layout(),
            abbreviations=self.abbreviations,
            options_end_after=self.options_end_after,
            double_dash=self.double_dash,
            examples=self.examples,
        )


def user_rows(programs: Mapping[str, UserTable]) -> Mapping[str, ProgramRow]:
    """
    The rows of a configuration's tables, by program name.

    Raises:
        ValueError: A name is not a program's basename, or it names a program
            the gateway already reads (a built-in table or a language reader).
    """
    # Imported here: the built-in tables import this package's Structs.
    from gateway._programs._languages import LANGUAGE_READERS
    from gateway._programs._tables import PROGRAM_TABLES

    rows: dict[str, ProgramRow] = {}
    for name, table in programs.items():
        if not _NAME.fullmatch(name):
            raise ValueError(
                f"programs.{name!r} is not a program's basename (letters, digits, '_', '.', '+', '-')"
            )
        if name in PROGRAM_TABLES or name in LANGUAGE_READERS:
            raise ValueError(
                f"programs.{name} has a built-in table already, which a configuration cannot replace"
            )
        rows[name] = table.row()
    return rows


class _UserReader:
    """An `ArgumentReader` that reads a configured program by its table, any other as built in."""

    def __init__(self, rows: Mapping[str, ProgramRow]) -> None:
        self.rows = rows

    def __call__(
        self,
        basename: str,
        argv: Sequence[str | None],
        *,
        one_word: Set[int] = frozenset(),
        no_dash: Set[int] = frozenset(),
    ) -> ArgumentReading:
        from gateway._programs._table_reader import read_row

        found = self.rows.get(basename)
        if found is None:
            return read_arguments(basename, argv, one_word=one_word, no_dash=no_dash)
        return read_row(basename, found, argv, one_word=one_word, no_dash=no_dash)


def user_reader(programs: Mapping[str, UserTable]) -> _UserReader:
    """What reads a program's arguments when a configuration declares ``programs``."""
    return _UserReader(user_rows(programs))
