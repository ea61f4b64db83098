"""
What a program and its launchers do, as effects: from the launcher table and the option tables.

The launchers in front of a program are read with the launcher table
(`gateway._plan._launchers`): a privileged launcher runs the program as another
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

from collections.abc import Mapping, Sequence, Set
from typing import Final, Protocol

from gateway._calls._effects import (
    Bind,
    ChangeDirectory,
    Execute,
    Lifetime,
    Network,
    NetworkKind,
    Privilege,
    ReadEnvironment,
    WriteAction,
)
from gateway._calls._places import shown_variable
from gateway._plan._addresses import address_class, url_host
from gateway._plan._builtins import literal_text, may_be_option
from gateway._plan._collect import EffectSink
from gateway._plan._launchers import LAUNCHERS
from gateway._plan._paths import HOME, ROOT, join
from gateway._plan._position import PositionReading
from gateway._programs import ArgumentFact, ArgumentReading, read_arguments as _read_arguments
from gateway._read._tree import DoubleQuoted, Glob, Parameter, Tilde, Word, walk_parts

__all__ = [
    "ArgumentReader",
    "bounded",
    "fact_via",
    "launcher_effects",
    "program_effects",
    "read_arguments",
    "stand_ins",
    "stays_one_word",
    "word_shapes",
]


class ArgumentReader(Protocol):
    """What reads a program's arguments: `gateway._programs.read_arguments` (or a test's stand-in)."""

    def __call__(
        self,
        basename: str,
        argv: Sequence[str | None],
        *,
        one_word: Set[int] = frozenset(),
        no_dash: Set[int] = frozenset(),
    ) -> ArgumentReading:
        """Read ``argv`` (after the program word) as ``basename`` does."""
        ...


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


def read_arguments(
    basename: str,
    argv: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    """What ``basename`` does with ``argv``, from its option table or language reader."""
    return _read_arguments(basename, argv, one_word=one_word, no_dash=no_dash)


def word_shapes(words: Sequence[Word], sink: EffectSink) -> tuple[frozenset[int], frozenset[int]]:
    """
    Of the words that expand: those known to stay one word, and those that cannot start with ``-``.

    One word: every expansion in it is inside double quotes and none is
    ``"$@"`` or ``"${a[@]}"`` (which may be no word or several); a leading
    ``~`` is one word too; so is a word whose values the text shows
    (``$HOME/x``, a variable the call bound). No dash: it starts with literal
    text other than ``-``, or with ``~``, or none of its known values does.
    With ``nullglob`` on, a glob that matches nothing is no word at all, and
    the words after it move into its place (``sort -o x* ~/.bashrc``).
    """
    one_word: set[int] = set()
    no_dash: set[int] = set()
    vanishes = "nullglob" in sink.scope.globbing
    for index, word in enumerate(words):
        if word.value is not None:
            continue
        values = sink.values(word)
        gone = vanishes and any(isinstance(part, Glob) for part in word.parts)
        if not gone and (values is not None or stays_one_word(word)):
            one_word.add(index)
        if not may_be_option(word) or (
            values is not None and not any(v.startswith("-") for v in values)
        ):
            no_dash.add(index)
    return frozenset(one_word), frozenset(no_dash)


def stays_one_word(word: Word) -> bool:
    """Every expansion in ``word`` is double-quoted (and none is ``"$@"``), or a leading ``~``: one word."""
    for index, part in enumerate(word.parts):
        if isinstance(part, Tilde) and index == 0:
            continue
        if isinstance(part, DoubleQuoted):
            if any(
                isinstance(inner, Parameter)
                and (
                    inner.name == "@"
                    or (
                        inner.subscript is not None
                        and inner.subscript.expression.strip() in ("@", "*")
                    )
                )
                for inner in walk_parts(part.parts)
            ):
                return False
            continue
        if literal_text(part) is None:
            return False
    return True


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


def fact_via(program: str, fact: ArgumentFact) -> str:
    """How a fact's effect came about, for display: the program and the option (``tar -C``)."""
    return program if fact.via == "operand" else f"{program} {fact.via}"


def _single(word: Word | None, sink: EffectSink) -> str | None:
    """The one value a word has, as far as the text shows."""
    if word is None:
        return None
    if word.value is not None:
        return word.value
    values = sink.values(word)
    return next(iter(values)) if values is not None and len(values) == 1 else None


def stand_ins(words: Sequence[Word], sink: EffectSink) -> list[str | None]:
    """
    The argv to give a program's reader: each word's value, or the one value the text shows.

    A word that expands to one value the scope knows (``~``, ``$HOME/x``, a
    variable the call bound) is given as that value, spelled as it is
    published (``~/x``), so the reader can tell an option from an operand;
    the planner still resolves the path from the word itself.
    """
    given: list[str | None] = []
    for word in words:
        if word.value is not None:
            given.append(word.value)
            continue
        values = sink.values(word)
        if values is None or len(values) != 1 or word.span.start in sink.placeholders:
            given.append(None)
            continue
        value = next(iter(values))
        if value.startswith(HOME):
            value = "~" + value[1:]
        elif value.startswith(ROOT):
            value = "." + value[1:]
        given.append(value)
    return given


def _derived(
    value: str, words: Sequence[Word], given: Sequence[str | None], sink: EffectSink
) -> str:
    """
    A value a reader derived from the arguments, in the planner's form.

    When it starts with a stand-in (``~/f.gz`` from the stand-in ``~/f``),
    the stand-in is replaced by the value it stands for; otherwise it is the
    literal the reader gave.
    """
    for word, stand_in in zip(words, given, strict=False):
        if stand_in is None or word.value is not None or not value.startswith(stand_in):
            continue
        values = sink.values(word)
        if values is not None and len(values) == 1:
            return next(iter(values)) + value[len(stand_in) :]
    return value


def _execute(
    fact: ArgumentFact,
    via: str,
    word: Word | None,
    value: str | None,
    base: Sequence[str | None],
    sink: EffectSink,
    runs: list[ArgumentFact],
) -> None:
    """One ``execute`` fact: planned in turn, or an `Execute` effect (and the script it reads)."""
    action = fact.action
    if (action == "program" and fact.words is not None) or action == "shell_text":
        runs.append(fact)  # the planner plans the command or the text
        return
    shown = None if fact.value is None else sink.scrub(fact.value)
    if action == "program":  # a program named by its value (`nice`-like, `-e PROGRAM`)
        sink.add(
            Execute(kind="program", via=via, text=shown, origin="literal" if shown else "unknown")
        )
    elif action == "script":  # the code of a file runs: it is read, and its code is not in the call
        sink.read(word, via, value=value, directories=base)
        sink.add(Execute(kind="code", via=via, text=None, origin="unknown"))
    elif (
        action == "module"
    ):  # a module found and run (`python -m`, `npx`): its code is not in the call
        sink.add(Execute(kind="code", via=via, text=shown, origin="unknown"))
    elif action == "configured":
        sink.add(Execute(kind="configured", via=via, text=None, origin="unknown"))
    else:  # code written in the program's own language (`python -c`, `awk 'BEGIN{…}'`)
        sink.add(
            Execute(kind="code", via=via, text=shown, origin="literal" if shown else "unknown")
        )


def environment_code(names: Sequence[str], program: str, sink: EffectSink) -> None:
    """
    Variables the program reads as code (``PAGER`` for ``man``): bound by the call, they run.

    A variable the call binds before the program (``PAGER='sh -c id' man ls``,
    ``env LESSOPEN=… less``, an earlier ``export``) is code the program runs.
    """
    if not names:
        return
    bound = {
        effect.name: effect
        for effect in sink.found
        if isinstance(effect, Bind) and effect.via == "prefix" and effect.name is not None
    }
    for name in names:
        prefix = bound.get(name)
        if prefix is None and not sink.scope.bound(name):
            continue
        values = sink.scope.values(name) if prefix is None else None
        text = prefix.text if prefix is not None else sink.shown(values)
        known = (prefix is not None and prefix.origin != "unknown") or values is not None
        sink.add(
            Execute(
                kind="code",
                via=f"{program} reads ${name}",
                text=text,
                origin="call_bound" if known else "unknown",
            )
        )


def bounded(reading: PositionReading) -> bool:
    """True when a launcher bounds how long the program may run (``timeout``)."""
    launchers = reading.launchers
    return bool(launchers) and any(
        LAUNCHERS[step.basename].lifetime == "bounded" for step in launchers
    )


# ───────────────────────── the program's own arguments ─────────────────────────


def program_effects(
    program: str,
    arguments: ArgumentReading,
    words: Sequence[Word],
    sink: EffectSink,
    *,
    directories: tuple[str | None, ...] | None,
    bounded: bool,
    given: Sequence[str | None] = (),
) -> list[ArgumentFact]:
    """
    State what the program does with its arguments (``words``: those after the program word).

    ``given`` is the argv the reader was given (`stand_ins`): a fact whose
    value is the given value of its word is resolved from the word itself;
    one derived from it (``gzip ~/f`` writes ``~/f.gz``) keeps the
    derivation on the word's resolved value.

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
        index = fact.index
        word = words[index] if index is not None and index < len(words) else None
        value: str | None = None
        if word is None:
            # From no argument (a default file), or named after one (`find d
            # -name x -delete` deletes below `d/`).
            value = None if fact.value is None else _derived(fact.value, words, given, sink)
            if value is not None and (value == "~" or value.startswith("~/")):
                # The reader's own path under the home directory (`git config
                # --global` writes `~/.gitconfig`).
                value = HOME + value[1:]
        elif fact.value is not None:
            own = given[index] if index is not None and index < len(given) else word.value
            if fact.value != own:  # derived from an argument (`gzip f` writes `f.gz`)
                word, value = None, _derived(fact.value, words, given, sink)
        via = fact_via(program, fact)
        if fact.kind == "read":
            sink.read(
                word,
                via,
                value=value,
                directories=base,
                recursive=fact.recursive,
                metadata=fact.action == "metadata",
                within=fact.within,
            )
        elif fact.kind == "write":
            action = _WRITE_ACTIONS.get(fact.action or "", "write")
            if fact.prefix:  # `split IN part_`: the paths that start so
                start = value if value is not None else _single(word, sink)
                word, value = None, None if start is None else start + "*"
            sink.write(
                word,
                via,
                action,
                value=value,
                directories=base,
                recursive=fact.recursive,
                pattern=fact.prefix,
                within=fact.within,
            )
        elif fact.kind == "cwd":
            for path in sink.paths_of(word, value=value, directories=base, within=fact.within):
                sink.add(ChangeDirectory(path=path, via=via))
            values = (
                frozenset({fact.value})
                if fact.value is not None
                else (None if word is None else sink.values(word))
            )
            base = (
                (None,)
                if values is None or fact.within is not None
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
            if fact.value is None:
                sink.add(ReadEnvironment(via=via))
            elif not shown_variable(fact.value, sink.paths.shown_variables):  # one variable
                sink.add(ReadEnvironment(via=f"${sink.scrub(fact.value)}"))
        elif fact.kind == "lifetime":
            if fact.action == "detached":
                sink.add(Lifetime(kind="detached", via=via))
            elif not bounded:
                sink.add(Lifetime(kind="unbounded", via=via))
        elif fact.kind == "bind":
            setting = fact.value
            sink.bind(
                None if setting is None else setting.partition("=")[0],
                "setting",
                "unknown" if setting is None else "literal",
                text=None if setting is None else setting.partition("=")[2],
                apply=False,
            )
        elif fact.kind == "execute":
            _execute(fact, via, word, value, base, sink, runs)
    environment_code(arguments.environment, program, sink)
    return runs
