"""
What a program and its launchers do, as effects: from the launcher table and the option tables.

The launchers in front of a program are read with the launcher table
(`gateway._launchers`): a privileged launcher runs the program as another
user, ``nohup``/``setsid`` detach it, ``timeout`` bounds it, ``env -C`` and
``sudo -D`` move where it runs, ``env A=1`` binds its environment, ``time
-o`` and ``flock FILE`` write files of their own.

The program itself is read by `gateway._programs.read_arguments` (its option
table, or the reader of its language), which says what each argument makes
it do; each `ArgumentFact` becomes an effect here, with its paths resolved
against the effective working directory (a ``cwd`` fact — ``git -C``, ``make
-C``, ``tar -C`` — moves the paths after it). A program without a table, an
option its table does not declare, or arguments it cannot read, is `Opaque`:
what it does is not known, so nothing may allow it on its effects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from gateway._effects import (
    ChangeDirectory,
    Execute,
    Lifetime,
    Network,
    NetworkKind,
    Privilege,
    ReadEnvironment,
    WriteAction,
)
from gateway._launchers import LAUNCHERS
from gateway._plan._addresses import address_class, url_host
from gateway._plan._collect import EffectSink
from gateway._plan._paths import join
from gateway._position import PositionReading
from gateway._programs import ArgumentFact, ArgumentReading
from gateway._shell._tree import Word

try:  # the option tables and language readers, when they are installed in this tree
    from gateway._programs import read_arguments as _read_arguments  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - replaced once the tables are in place
    _read_arguments = None

__all__ = [
    "ArgumentReader",
    "bounded",
    "launcher_effects",
    "program_effects",
    "read_arguments",
    "tables_installed",
]

ArgumentReader = Callable[[str, Sequence[str | None]], ArgumentReading]
"""``(basename, argv after the program word) -> ArgumentReading``: `gateway._programs.read_arguments`."""

_WRITE_ACTIONS: Final[Mapping[str, WriteAction]] = {
    "write": "write",
    "append": "append",
    "create": "create",
    "delete": "delete",
    "move": "move",
    "copy": "copy",
    "link": "link",
    "mode": "mode",
    "owner": "owner",
    "directory": "directory",
}
_NETWORK_KINDS: Final[Mapping[str, NetworkKind]] = {
    "connect": "connect",
    "listen": "listen",
    "resolve": "resolve",
}


def tables_installed() -> bool:
    """Whether the option tables and language readers are installed (`read_arguments` knows programs)."""
    return _read_arguments is not None


def read_arguments(basename: str, argv: Sequence[str | None]) -> ArgumentReading:
    """
    What ``basename`` does with ``argv``, from its option table or language reader.

    Without the tables installed every program is table-less: its effects are
    `Opaque`, the safe side.
    """
    if _read_arguments is None:  # pragma: no cover - replaced once the tables are in place
        return ArgumentReading(program=basename, table=False)
    reading: ArgumentReading = _read_arguments(basename, argv)
    return reading


# ───────────────────────── launchers ─────────────────────────


def launcher_effects(
    reading: PositionReading, words: Sequence[Word], sink: EffectSink
) -> tuple[str | None, ...] | None:
    """
    State the launchers' own effects; return where the program runs when a launcher moves it.

    Returns:
        The program's working directories when a launcher sets them (``env
        -C``, ``sudo -D``), else ``None`` (where the command runs).
    """
    directories: tuple[str | None, ...] | None = None
    for launcher in reading.launchers:
        row = LAUNCHERS[launcher.basename]
        name = launcher.basename
        user: str | None = row.default_user
        named_user = False
        for option in launcher.options:
            value_word = (
                words[option.word] if option.word is not None and option.word < len(words) else None
            )
            if option.option in row.user_options:
                user, named_user = option.value, True
            elif option.option in row.cwd_options:
                base = directories if directories is not None else sink.scope.directories
                paths = sink.paths_of(
                    value_word, value=option.value if value_word is None else None, directories=base
                )
                for path in paths:
                    sink.add(ChangeDirectory(path=path, via=f"{name} {option.option}"))
                values = (
                    frozenset({option.value})
                    if option.value is not None
                    else (None if value_word is None else sink.values(value_word))
                )
                directories = (
                    (None,)
                    if values is None
                    else tuple(dict.fromkeys(join(b, v) for v in sorted(values) for b in base))
                )
            elif option.option in row.unset_options:
                sink.bind(option.value, "unset", "literal", frozenset({""}), apply=False)
            elif option.option in row.file_options:
                action = row.file_options[option.option]
                via = f"{name} {option.option}"
                value = option.value if value_word is None else None
                if action == "read":
                    sink.read(value_word, via, value=value)
                else:
                    sink.write(value_word, via, action, value=value)
        for index in launcher.operands:
            word = words[index]
            text = word.value
            if row.assignment_operands and text is not None and "=" in text:
                variable, _, bound = text.partition("=")
                sink.bind(variable, "prefix", "literal", frozenset({bound}), apply=False)
            elif row.user_operand and not named_user:
                user, named_user = text, True
            elif row.file_operands is not None:
                action = row.file_operands
                if action == "read":
                    sink.read(word, name)
                else:
                    sink.write(word, name, action)
        if row.privileged:
            sink.add(Privilege(via=name, user=None if user is None else sink.scrub(user)))
        if row.new_root:
            sink.opaque(
                f"`{name}` runs the program under another root directory, so its paths are not the ones written"
            )
        if row.lifetime in ("detached", "unbounded"):
            sink.add(Lifetime(kind=row.lifetime, via=name))
    return directories


def bounded(reading: PositionReading) -> bool:
    """True when a launcher bounds how long the program may run (``timeout``)."""
    return any(LAUNCHERS[step.basename].lifetime == "bounded" for step in reading.launchers)


# ───────────────────────── the program's own arguments ─────────────────────────


def program_effects(
    program: str,
    arguments: ArgumentReading,
    words: Sequence[Word],
    sink: EffectSink,
    *,
    directories: tuple[str | None, ...] | None,
    bounded: bool,
) -> list[ArgumentFact]:
    """
    State what the program does with its arguments (``words``: those after the program word).

    Returns:
        The facts that run commands the planner plans in turn: a command made
        of the program's own words (``find -exec …``: action ``program`` with
        ``words``) or shell text (action ``shell_text``: ``ssh host CMD``, a
        git alias ``!…``).
    """
    if not arguments.table:
        sink.opaque(
            f"`{program}` has no option table, so what it does with its arguments is not known"
        )
        return []
    if arguments.undeclared is not None:
        sink.opaque(
            f"`{program}` is given the option `{arguments.undeclared}`, which its table does not declare",
            arguments.undeclared,
        )
    if arguments.unreadable is not None:
        sink.opaque(f"the arguments of `{program}` cannot be read: {arguments.unreadable}")
    runs: list[ArgumentFact] = []
    base = directories if directories is not None else sink.scope.directories
    for fact in arguments.facts:
        word = words[fact.index] if fact.index is not None and fact.index < len(words) else None
        value = fact.value if word is None else None
        via = f"{program} {fact.via}" if fact.via != "operand" else program
        if fact.kind == "read":
            sink.read(word, via, value=value, directories=base, recursive=fact.recursive)
        elif fact.kind == "write":
            action = _WRITE_ACTIONS.get(fact.action or "", "write")
            sink.write(word, via, action, value=value, directories=base, recursive=fact.recursive)
        elif fact.kind == "cwd":
            for path in sink.paths_of(word, value=value, directories=base):
                sink.add(ChangeDirectory(path=path, via=via))
            values = (
                frozenset({fact.value})
                if fact.value is not None
                else (None if word is None else sink.values(word))
            )
            base = (
                (None,)
                if values is None
                else tuple(dict.fromkeys(join(b, v) for v in sorted(values) for b in base))
            )
        elif fact.kind == "network":
            kind = _NETWORK_KINDS.get(fact.action or "", "connect")
            target = fact.value
            sink.add(
                Network(
                    kind=kind,
                    via=via,
                    target=None if target is None else sink.scrub(target),
                    address=address_class(None if target is None else url_host(target)),
                )
            )
        elif fact.kind == "read_environment":
            sink.add(ReadEnvironment(via=via))
        elif fact.kind == "lifetime":
            if fact.action == "detached":
                sink.add(Lifetime(kind="detached", via=via))
            elif not bounded:
                sink.add(Lifetime(kind="unbounded", via=via))
        elif fact.kind == "execute":
            if (fact.action == "program" and fact.words is not None) or fact.action == "shell_text":
                runs.append(fact)
                continue
            sink.add(
                Execute(
                    kind="code",
                    via=via,
                    text=None if fact.value is None else sink.scrub(fact.value),
                    origin="literal" if fact.value is not None else "unknown",
                )
            )
    return runs
