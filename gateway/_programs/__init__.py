"""
What a program does with its own arguments: option tables and the readers of program languages.

The planner knows which program runs (`gateway._position`); this package says
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
classifies them (`gateway._effects`).
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["ArgumentFact", "ArgumentReading", "FactKind"]

FactKind = Literal[
    "read",
    "write",
    "execute",
    "network",
    "cwd",
    "read_environment",
    "lifetime",
]
"""What one argument (or option) makes the program do; see `ArgumentFact`."""


class ArgumentFact(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One thing a program does because of its arguments.

    Attributes:
        kind: ``read`` / ``write`` a path, ``execute`` code, ``network``
            (connect to, listen on or resolve ``value``), ``cwd`` (the program
            runs in ``value``: ``git -C``, ``make -C``, ``tar -C``; later path
            facts of the same reading are relative to it), ``read_environment``
            (it prints or reads the whole environment), ``lifetime`` (it may
            never end or it detaches: ``tail -f``, ``yes``).
        via: The option or role that causes it (``--output``, ``operand``,
            ``-exec``, ``system()``), for display.
        index: The argument's index in the argv the reader was given (``None``
            when the fact comes from no single argument, such as a default file).
        value: The path, URL, host or code, as the argument's value (``None``
            when the argument expands, so the value is unknown).
        action: For ``write``: ``write``, ``append``, ``create``, ``delete``,
            ``move``, ``copy``, ``link``, ``mode``, ``owner`` or ``directory``.
            For ``execute``: ``program``, ``shell_text`` or ``code``. For
            ``network``: ``connect``, ``listen`` or ``resolve``. For
            ``lifetime``: ``unbounded`` or ``detached``. Else ``None``.
        recursive: For ``write``: the change reaches everything below the path.
        words: For ``execute`` with action ``program``: the argv index range
            ``[start, end)`` of the command it runs (``find -exec CMD ARGS ;``),
            so the planner can plan that command from the same words.
    """

    kind: FactKind
    via: str
    index: int | None
    value: str | None
    action: str | None = None
    recursive: bool = False
    words: tuple[int, int] | None = None


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
    """

    program: str
    table: bool
    subcommand: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    operands: tuple[int, ...] = ()
    facts: tuple[ArgumentFact, ...] = ()
    undeclared: str | None = None
    unreadable: str | None = None
