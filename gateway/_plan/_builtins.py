"""
What bash's builtins do with their arguments: the effects of commands the shell runs itself.

A builtin has no option table in `gateway._programs`: the shell *is* its
implementation, so its account is written here, one handler per builtin. A
builtin that binds states every `Bind` (``export``, ``declare``, ``read``,
``mapfile``, ``printf -v``, ``unset``, ``set``, ``shopt``, ``trap``,
``alias``, ``getopts``, ``hash``, ``enable``…), one that moves states a
`ChangeDirectory` (``cd``, ``pushd``, ``popd``), one that prints the whole
environment states a `ReadEnvironment` (``set``, ``declare -p``, ``export``
with no names…), and one this module does not describe is `Opaque`.

An argument that expands, given where the builtin reads options, may be an
option (``printf "$f"`` may be ``printf -v NAME``): its binding is then of a
name only known at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Final, NamedTuple

from gateway._calls._effects import (
    BindVia,
    ChangeDirectory,
    Execute,
    Lifetime,
    Origin,
    ReadEnvironment,
)
from gateway._calls._places import shown_variable
from gateway._plan._collect import EffectSink
from gateway._plan._globs import GLOB_OPTIONS
from gateway._plan._numbers import NUMBER
from gateway._plan._paths import HOME, expand_parts, expand_tildes, join, literal_text
from gateway._plan._scope import BASH_INTEGERS, Values
from gateway._plan._variables import arithmetic_binds
from gateway._programs._option_scanner import Lookup, Met, OptionScan
from gateway._programs._rows import Option, ProgramRow
from gateway._read._tree import (
    DoubleQuoted,
    Literal,
    Parameter,
    Part,
    Tilde,
    Word,
)
from gateway._read._words import NAME

__all__ = [
    "BASH_BUILTINS",
    "CHANGES_DIRECTORY",
    "SET_LETTERS",
    "builtin_effects",
    "literal_text",
    "may_be_option",
]

BASH_BUILTINS: Final = frozenset(
    {
        ".",
        ":",
        "[",
        "alias",
        "bg",
        "bind",
        "break",
        "builtin",
        "caller",
        "cd",
        "command",
        "compgen",
        "complete",
        "compopt",
        "continue",
        "declare",
        "dirs",
        "disown",
        "echo",
        "enable",
        "eval",
        "exec",
        "exit",
        "export",
        "false",
        "fc",
        "fg",
        "getopts",
        "hash",
        "help",
        "history",
        "jobs",
        "kill",
        "let",
        "local",
        "logout",
        "mapfile",
        "popd",
        "printf",
        "pushd",
        "pwd",
        "read",
        "readarray",
        "readonly",
        "return",
        "set",
        "shift",
        "shopt",
        "source",
        "suspend",
        "test",
        "times",
        "trap",
        "true",
        "type",
        "typeset",
        "ulimit",
        "umask",
        "unalias",
        "unset",
        "wait",
    }
)
"""Every builtin of bash 5: a bare name among these runs in the shell itself."""

CHANGES_DIRECTORY: Final = frozenset({"cd", "pushd", "popd"})
"""Builtins that change the shell's directory, and leave it unchanged when they fail."""

SET_LETTERS: Final = {
    "a": "allexport",
    "b": "notify",
    "e": "errexit",
    "f": "noglob",
    "h": "hashall",
    "k": "keyword",
    "m": "monitor",
    "n": "noexec",
    "p": "privileged",
    "t": "onecmd",
    "u": "nounset",
    "v": "verbose",
    "x": "xtrace",
    "B": "braceexpand",
    "C": "noclobber",
    "E": "errtrace",
    "H": "histexpand",
    "P": "physical",
    "T": "functrace",
}
"""The one-letter options of ``set`` (and of bash at start, ``bash -k``), by their ``set -o`` names."""
_DECLARATIONS: Final[Mapping[str, BindVia]] = {
    "export": "export",
    "declare": "declare",
    "typeset": "declare",
    "local": "local",
    "readonly": "readonly",
}
_NOTHING: Final = frozenset(
    {
        ":",
        "true",
        "false",
        "echo",
        "pwd",
        "dirs",
        "jobs",
        "times",
        "help",
        "caller",
        "type",
        "shift",
        "exit",
        "return",
        "break",
        "continue",
        "logout",
        "bg",
        "fg",
        "suspend",
        "compgen",
        "complete",
        "compopt",
        "bind",
        "test",
        "[",
        "builtin",
        "command",
        "exec",
        "eval",
        "source",
        ".",
    }
)
"""Builtins that bind, move, read or write nothing by themselves (their nested text is planned)."""


class _Options(NamedTuple):
    """A builtin's options as getopt reads them, and where its operands start."""

    options: list[tuple[str, str | None, Word | None]]
    operands: list[Word]
    dynamic: bool
    """A word that expands stood where an option may: it may be one."""


def may_be_option(word: Word, *, plus: bool = False) -> bool:
    """
    Whether a word that expands may expand to an option.

    It cannot when it starts with literal text other than ``-`` (or ``+``),
    with ``~`` (a home directory is absolute): ``~/dir``, ``"src/$name"``;
    when it is one of ``$!``, ``$$``, ``$?``, ``$#`` alone (a number, or
    nothing: ``wait $!``); or when it starts, inside double quotes, with one
    that is never empty (``"$$-x"``, ``"$?.log"``: a digit comes first). But
    ``"$!-R"`` is ``-R`` before any job started, and unquoted ``$?-R`` splits
    where ``IFS`` holds a digit.
    """
    parts = word.parts
    opened = _unquoted(parts)
    if len(opened) == 1 and _numeric_parameter(opened[0], _NUMBER_OR_NOTHING):
        return False
    quoted = opened is not parts
    leading = "-+" if plus else "-"
    for index, part in enumerate(opened):
        if isinstance(part, Tilde) or (quoted and index == 0 and _numeric_parameter(part, _NUMBER)):
            return False
        text = literal_text(part)
        if text is None:
            return True
        if text:
            return text[0] in leading
    return True  # pragma: no cover - a word of empty literals has a value


def _unquoted(parts: Sequence[Part]) -> Sequence[Part]:
    """The parts of a word with a leading double-quoted part opened: ``"$!"`` starts with ``$!``."""
    if parts and isinstance(parts[0], DoubleQuoted) and not parts[0].locale and parts[0].parts:
        return [*parts[0].parts, *parts[1:]]
    return parts


_NUMBER: Final = frozenset("$?#")
"""Special parameters that always expand to a number: ``$$``, ``$?``, ``$#``."""
_NUMBER_OR_NOTHING: Final = _NUMBER | {"!"}
"""And ``$!``: nothing until a job was started in the background."""


def _numeric_parameter(part: Part, names: frozenset[str]) -> bool:
    """One of the special parameters ``names`` (of ``$!``, ``$$``, ``$?``, ``$#``) as written: a number, or (``$!``) nothing."""
    return (
        isinstance(part, Parameter)
        and part.name in names
        and part.operator is None
        and not (part.length or part.indirect or part.subscript is not None)
    )


class _AnyLetter(Mapping[str, Option]):
    """
    bash's getopt for a builtin: every ``-X`` is an option; ``with_value`` letters take a value.

    A letter the builtin does not have makes bash refuse the command, which
    then binds nothing: reading it as a switch only states more.
    """

    def __init__(self, with_value: str) -> None:
        self.with_value = with_value

    def __getitem__(self, spelling: str) -> Option:
        if len(spelling) != 2 or spelling[0] != "-":
            raise KeyError(spelling)
        return Option(name=spelling, arity=1 if spelling[1] in self.with_value else 0)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


_ROWS: Final = {plus: ProgramRow(abbreviations=False, plus_clusters=plus) for plus in (False, True)}
"""A builtin's grammar: clusters, no long options, ``+`` clusters where it reads them."""


class _Getopt(OptionScan):
    """A builtin's arguments read with the option scanner, as bash's own getopt reads them."""

    def __init__(self, args: Sequence[Word], with_value: str, *, plus: bool) -> None:
        super().__init__(
            [word.value for word in args],
            # bash takes the next word as the value whatever it is: one word.
            one_word=frozenset(range(len(args))),
            no_dash=frozenset(
                index
                for index, word in enumerate(args)
                if word.value is None and not may_be_option(word, plus=plus)
            ),
        )
        self.args = args
        self._row = _ROWS[plus]
        self._letters = Lookup(_AnyLetter(with_value), (), abbreviations=False)
        self.options: list[tuple[str, str | None, Word | None]] = []
        self.first_operand = len(args)
        self.dynamic = False

    @property
    def row(self) -> ProgramRow:
        return self._row

    def lookup(self) -> Lookup:
        return self._letters

    def met(self, met: Met) -> None:
        separated = met.value_at is not None and met.value_at != met.start
        word = self.args[met.value_at] if separated and met.value_at is not None else None
        self.options.append((met.written, met.value, word))

    def missing(self, option: Option, index: int) -> None:
        self.options.append((option.name, None, None))

    def operand(self, index: int, value: str | None) -> None:
        self.first_operand = index
        self.halt(index)

    def expansion(self, index: int) -> None:
        self.dynamic = True
        self.operand(index, None)


def _getopt(args: Sequence[Word], with_value: str = "", *, plus: bool = False) -> _Options:
    scan = _Getopt(args, with_value, plus=plus)
    scan.scan()
    return _Options(scan.options, list(args[scan.first_operand :]), scan.dynamic)


def _flags(options: _Options) -> set[str]:
    return {option for option, _, _ in options.options}


# ───────────────────────── names and assignments ─────────────────────────


def _name_site(sink: EffectSink, name: str, via: str) -> str:
    """The variable a name operand binds; a subscript in it is evaluated as a number."""
    base, bracket, rest = name.partition("[")
    if bracket and rest.endswith("]"):
        sink.numbers.value(rest[:-1], None, f"{via} {base}[…]")
    return base


def _split(word: Word) -> tuple[str | None, Sequence[Part]]:
    """
    A dynamic ``NAME=VALUE`` word as ``(NAME, value parts)``.

    The name is read from the literal text before the first ``=``; when an
    expansion comes first the name is ``None`` (only known at run time).
    """
    prefix: list[str] = []
    for index, part in enumerate(word.parts):
        text = literal_text(part)
        if text is None:
            return None, ()
        if "=" in text and isinstance(part, Literal):
            before, _, after = text.partition("=")
            tail: list[Part] = [Literal(span=part.span, text=after)] if after else []
            return "".join(prefix) + before, [*tail, *word.parts[index + 1 :]]
        if "=" in text:
            return None, ()  # `NAME"=…"`: the value is quoted text, read below as literal
        prefix.append(text)
    return None, ()  # pragma: no cover - a word with no `=` and no expansion is literal


def _bind_through(
    sink: EffectSink,
    name: str,
    via: BindVia,
    origin: Origin,
    values: Values,
    *,
    text: str | None = None,
    keeps: bool = False,
) -> None:
    """Bind ``name`` and, when it is a nameref, the variable it names."""
    target = sink.scope.namerefs.get(name)
    sink.bind(name, via, origin, values, text=text, keeps=keeps)
    if target is not None:
        sink.bind(target.partition("[")[0] or None, via, origin, values, text=text, keeps=keeps)


def _assignment(sink: EffectSink, word: Word, via: BindVia, *, nameref: bool) -> None:
    """One operand of a declaration builtin: ``NAME`` or ``NAME=VALUE``."""
    if word.value is not None:
        name_text, equals, value = word.value.partition("=")
        name = _name_site(sink, name_text.removesuffix("+"), via)
        if not NAME.fullmatch(name):
            sink.opaque(f"`{via}` is given `{word.value}`, which is not a variable name")
            return
        if not equals:  # `export NAME`: its value, whatever it was
            values = sink.scope.values(name) if sink.scope.bound(name) else None
            origin: Origin = "unknown" if values is None else "call_bound"
            _bind_through(sink, name, via, origin, values, keeps=True)
            return
        if sink.scope.integer(name):
            sink.numbers.value(value, None, f"{via} -i {name}")
            _bind_through(sink, name, via, "literal", frozenset({NUMBER}), text=value)
            return
        if nameref:
            _name_site(sink, value, f"{via} -n")
        expanded = expand_tildes(value, sink.scope)
        origin = "literal" if expanded == value else "call_bound"
        values = None if expanded is None else frozenset({expanded})
        _bind_through(sink, name, via, "unknown" if values is None else origin, values, text=value)
        if nameref:
            sink.scope.namerefs[name] = value
        return
    written, parts = _split(word)
    if written is None or not NAME.fullmatch(written.partition("[")[0].removesuffix("+")):
        # `export "$x"=1`, `declare $v`: the name is only known at run time,
        # and it may hold a subscript bash evaluates.
        sink.numbers.value(None, word, via)
        sink.bind(None, via, "unknown")
        return
    name = _name_site(sink, written.removesuffix("+"), via)
    if sink.scope.integer(name):
        sink.numbers.value(None, word, f"{via} -i {name}")
        _bind_through(sink, name, via, "unknown", frozenset({NUMBER}))
        return
    resolved = expand_parts(parts, sink.scope, first=False)
    values = None if resolved.values is None or resolved.pattern else frozenset(resolved.values)
    _bind_through(sink, name, via, "unknown" if values is None else "call_bound", values)
    if nameref:
        # The name it refers to, subscript and all, is evaluated at each use.
        if values is None:
            sink.numbers.value(None, None, f"{via} -n {name}")
        else:
            for target in sorted(values):
                _name_site(sink, target, f"{via} -n")
        sink.scope.namerefs[name] = "" if values is None or len(values) != 1 else next(iter(values))


# ───────────────────────── the builtins ─────────────────────────


def _cd(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    scope = sink.scope
    options = _getopt(args)
    operands = options.operands
    unknown = (
        options.dynamic
        or (name == "popd" and (operands or not scope.stack))
        or (name == "pushd" and (not operands or (operands[0].value or "-").startswith(("+", "-"))))
    )
    if unknown or len(operands) > 1:
        written = sink.written(args[0]) if args else name
        sink.add(ChangeDirectory(path=sink.located(None, written), via=name))
        scope.forget_directories()  # or rotates the stack in a way the text does not show
        return
    if name == "popd":
        top, rest = scope.stack[0], scope.stack[1:]
        for directory in top:
            sink.add(ChangeDirectory(path=sink.located(directory, "popd"), via=name))
        scope.change_directory(top)
        scope.stack = rest
        return
    # `cd -P`: bash resolves the links on the way, and `..` climbs from where they led.
    physical = [option for option, _, _ in options.options if option in ("-L", "-P")][-1:] == ["-P"]
    word = operands[0] if operands else None
    if word is not None and word.value == "-":
        targets: tuple[str | None, ...] = scope.previous or (None,)
        written = "-"
    else:
        if word is None:
            texts = (
                (HOME,)
                if not scope.bound("HOME")
                else tuple(sorted(scope.values("HOME") or ())) or None
            )
            written = "~"
        else:
            values = sink.values(word)
            texts = None if values is None else tuple(sorted(values))
            written = sink.written(word)
        if (physical or scope.physical) and texts is not None and any(map(_climbs, texts)):
            # `cd -P link/..`, `cd ..` after `cd -P link`: where it climbs from is on disk.
            texts = None
        targets = (
            (None,)
            if texts is None
            else tuple(
                dict.fromkeys(join(base, text) for text in texts for base in scope.directories)
            )
        )
    for target in targets:
        sink.add(ChangeDirectory(path=sink.located(target, written), via=name))
    before = scope.directories
    scope.change_directory(targets)
    # A logical move to a path written whole is where `$PWD` then is, links or not.
    whole = word is not None and word.value not in (None, "-") and not physical
    scope.physical = physical or (
        scope.physical and not (whole and all(t is not None and t.startswith("/") for t in targets))
    )
    if name == "pushd":
        scope.stack = (before, *scope.stack)


def _climbs(path: str) -> bool:
    """Whether a path has a ``..`` component."""
    return ".." in path.split("/")


def _declaration(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    via = _DECLARATIONS[name]
    options = _getopt(args, plus=True)
    flags = _flags(options)
    if options.dynamic:
        sink.numbers.value(None, None, via)
        sink.bind(None, via, "unknown")
        return
    if not options.operands:
        if not flags & {"-f", "-F"}:
            sink.add(ReadEnvironment(via=" ".join([name, *sorted(flags)])))
        return  # or lists functions
    if flags & {"-f", "-F"}:
        return  # exports, lists or marks functions: no variable changes
    if "-p" in flags:  # prints the named variables: one not declared harmless is read
        for word in options.operands:
            if word.value is not None and not shown_variable(
                word.value.partition("=")[0], sink.paths.shown_variables
            ):
                sink.add(ReadEnvironment(via=f"${sink.scrub(word.value.partition('=')[0])}"))
    for word in options.operands:
        written = _split(word)[0] if word.value is None else word.value.partition("=")[0]
        variable = None if written is None else written.removesuffix("+").partition("[")[0]
        scope = sink.scope
        if "-i" in flags:
            # The attribute comes first: the value given with it is evaluated.
            # Given to a nameref, it goes to the variable the nameref names.
            referent = variable
            if variable is not None and "-n" not in flags:
                referent = scope.referent(variable)
            if variable is None or referent is None:
                sink.numbers.value(None, None, f"{via} -i")
            else:
                scope.integers = scope.integers | {variable, referent}
        elif "+i" in flags and variable not in scope.namerefs and variable not in BASH_INTEGERS:
            scope.integers = scope.integers - {variable}  # taken back (bash's own keep theirs)
        if variable is not None and "+n" in flags:
            scope.namerefs.pop(variable, None)  # a plain variable again
        elif "-n" in flags and "=" not in (word.value or "=") and variable not in scope.namerefs:
            # `declare -n r`: the value r holds, or the first one given to it
            # later, names the variable it stands for.
            scope.namerefs[str(variable)] = ""
        _assignment(sink, word, via, nameref="-n" in flags)


def _read(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args, "adinNptu")
    if options.dynamic:
        sink.numbers.value(None, None, name)
        sink.bind(None, "read", "unknown")
        return
    arrays = [(value, word) for option, value, word in options.options if option == "-a"]
    for value, word in arrays:
        if value is None:
            sink.numbers.value(None, word, "read -a")
            sink.bind(None, "read", "unknown")
        else:
            sink.bind(_name_site(sink, value, "read -a"), "read", "unknown")
    if not options.operands and not arrays:
        sink.bind("REPLY", "read", "unknown")
    for word in options.operands:
        if word.value is None:
            sink.numbers.value(None, word, "read")
            sink.bind(None, "read", "unknown")
        else:
            _bind_through(sink, _name_site(sink, word.value, "read"), "read", "unknown", None)


def _mapfile(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args, "dnOsuCc")
    if options.dynamic:
        sink.bind(None, "mapfile", "unknown")
        return
    for option, value, _ in options.options:
        if option == "-C":  # evaluated for every line read
            sink.add(
                Execute(
                    kind="shell_text",
                    via=f"{name} -C",
                    text=None if value is None else sink.scrub(value),
                    origin="literal" if value is not None else "unknown",
                )
            )
    if not options.operands:
        sink.bind("MAPFILE", "mapfile", "unknown")
    for word in options.operands[:1]:
        sink.bind(word.value, "mapfile", "unknown")


def _printf(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args, "v")
    if options.dynamic:
        # `printf -v"$n" …` (fused, the name expands), or an argument that
        # expands where an option may stand: it may spell `-v NAME`.
        word = options.operands[0]
        fused = word.text.startswith("-v")
        sink.numbers.value(None, word if fused else None, "printf -v")
        sink.bind(None, "printf", "unknown")
        return
    for option, target, target_word in options.options:
        if option != "-v":
            continue
        if target is None:
            sink.numbers.value(None, target_word, "printf -v")
            sink.bind(None, "printf", "unknown")
        else:
            _bind_through(sink, _name_site(sink, target, "printf -v"), "printf", "unknown", None)


def _unset(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args)
    if options.dynamic:
        sink.numbers.value(None, None, "unset")
        sink.bind(None, "unset", "unknown")
        return
    flags = _flags(options)
    functions = "-f" in flags
    for word in options.operands:
        if word.value is None:
            sink.numbers.value(None, word, "unset")
            sink.bind(None, "unset", "unknown")
            continue
        base = _name_site(sink, word.value, "unset")
        if functions:
            sink.bind(base, "unset", "literal", frozenset({""}), apply=False)
        elif "-n" in flags:  # the nameref itself, which is a plain variable no more
            sink.bind(base, "unset", "literal", frozenset({""}))
            sink.scope.namerefs.pop(base, None)
        else:  # unsetting a nameref unsets the variable it names
            _bind_through(sink, base, "unset", "literal", frozenset({""}))


def _set(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    if not args:
        sink.add(ReadEnvironment(via="set"))
        return
    index = 0
    while index < len(args):
        value = args[index].value
        if value is None:  # may be an option (`-o allexport`) or the positional parameters
            sink.bind(None, "set", "unknown", apply=False)
            return
        if value in ("--", "-") or len(value) < 2 or value[0] not in "-+":
            rest = args[index + (1 if value in ("--", "-") else 0) :]
            origin: Origin = "literal" if all(a.value is not None for a in rest) else "unknown"
            sink.bind("@", "set", origin, apply=False)
            return
        state = "on" if value[0] == "-" else "off"
        following = index + 1  # each `o` of the cluster takes the next unread word
        for letter in value[1:]:
            if letter != "o":
                sink.bind(
                    SET_LETTERS.get(letter, letter), "set", "literal", text=state, apply=False
                )
                continue
            option = args[following].value if following < len(args) else ""
            if option is not None and option[:1] in ("", "-", "+"):
                continue  # `set -o`, `set -o -x`: lists the options; `-x` is read next
            following += 1
            sink.bind(
                option, "set", "unknown" if option is None else "literal", text=state, apply=False
            )
        index = following


def _shopt(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args)
    if options.dynamic:
        sink.bind(None, "shopt", "unknown", apply=False)
        sink.scope.globbing = GLOB_OPTIONS
        return
    flags = _flags(options)
    state = "on" if "-s" in flags else "off" if "-u" in flags else None
    if state is None:
        return  # prints or queries
    if "-o" not in flags:  # `shopt -o` names `set -o` options
        for word in options.operands:
            if word.value is None:
                sink.scope.globbing = GLOB_OPTIONS
            elif word.value in GLOB_OPTIONS and state == "on":
                sink.scope.globbing = sink.scope.globbing | {word.value}
            elif word.value in GLOB_OPTIONS:
                sink.scope.globbing = sink.scope.globbing - {word.value}
    for word in options.operands:
        sink.bind(
            word.value,
            "shopt",
            "unknown" if word.value is None else "literal",
            text=state,
            apply=False,
        )


def _trap(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args)
    if options.dynamic:
        sink.bind(None, "trap", "unknown", apply=False)
        return
    operands = options.operands
    if _flags(options) & {"-l", "-p"} or not operands:
        return  # prints
    if len(operands) == 1:
        action, signals = None, operands  # `trap SIG`: resets
    else:
        action, signals = operands[0], operands[1:]
    text = None if action is None else action.value
    origin: Origin = "literal" if action is None or text is not None else "unknown"
    for word in signals:
        sink.bind(
            word.value,
            "trap",
            origin if word.value is not None else "unknown",
            text=text,
            apply=False,
        )


def _alias(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args)
    if options.dynamic:
        sink.bind(None, "alias", "unknown", apply=False)
        return
    for word in options.operands:
        if word.value is None:
            sink.bind(None, "alias", "unknown", apply=False)
        elif name == "unalias":
            sink.bind(word.value, "alias", "literal", apply=False)
        else:
            alias, equals, text = word.value.partition("=")
            if equals:
                sink.bind(alias, "alias", "literal", text=text, apply=False)


def _getopts(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    """
    ``getopts OPTSTRING NAME [ARG…]``: NAME gets an option letter of OPTSTRING, ``?`` or ``:``.

    OPTARG gets an argument (a value not known), OPTIND the index of the next
    one (a number bash made).
    """
    if len(args) >= 2:
        target = args[1].value
        if target is None:
            sink.numbers.value(None, args[1], "getopts")
            sink.bind(None, "getopts", "unknown")
        else:
            letters = args[0].value
            values = None if letters is None else frozenset({*letters.replace(":", ""), "?", ":"})
            origin: Origin = "unknown" if values is None else "literal"
            _bind_through(sink, _name_site(sink, target, "getopts"), "getopts", origin, values)
    sink.bind("OPTARG", "getopts", "unknown")
    sink.bind("OPTIND", "getopts", "literal", frozenset({NUMBER}))


def _wait(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    """``wait -p NAME``: the id of the job waited for is assigned to NAME (a subscript in it is evaluated; a nameref NAME is made plain)."""
    options = _getopt(args, "p")
    for option, value, word in options.options:
        if option != "-p":
            continue
        if value is None:
            sink.numbers.value(None, word, "wait -p")
            sink.bind(None, "wait", "unknown")
        else:
            # Not through a nameref: bash unbinds NAME's own value, nameref and
            # all, and NAME becomes a plain variable holding the job's id.
            bound = _name_site(sink, value, "wait -p")
            sink.bind(bound, "wait", "unknown")
            sink.scope.namerefs.pop(bound, None)
    if options.dynamic:
        sink.numbers.value(None, None, "wait")
        sink.bind(None, "wait", "unknown")


def _let(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    for word in args:
        sink.numbers.value(word.value, word, "let")
        if word.value is None:
            sink.bind(None, "arithmetic", "unknown")
            continue
        for bound in arithmetic_binds(word.value):
            sink.bind(bound, "arithmetic", "literal", frozenset({NUMBER}))


def _test(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    for index, word in enumerate(args[:-1]):
        if word.value == "-v":
            operand = args[index + 1]
            sink.numbers.value(operand.value, operand, f"{name} -v")


def _hash(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args, "p")
    if options.dynamic:
        sink.bind(None, "hash", "unknown", apply=False)
        return
    paths = [value for option, value, _ in options.options if option == "-p"]
    if paths:  # `hash -p /tmp/evil ls`: `ls` now runs that file
        for word in options.operands:
            sink.bind(
                word.value, "hash", "literal" if paths[0] else "unknown", text=paths[0], apply=False
            )


def _enable(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args, "f")
    if options.dynamic:
        sink.opaque("`enable` is given an argument from an expansion")
        return
    for option, value, word in options.options:
        if option == "-f":  # loads a shared object into the shell
            sink.add(
                Execute(
                    kind="code",
                    via="enable -f",
                    text=None if value is None else sink.scrub(value),
                    origin="literal" if value is not None else "unknown",
                )
            )
            sink.read(word, "enable -f", value=value if word is None else None)
    flags = _flags(options)
    for word in options.operands:
        sink.bind(
            word.value, "enable", "literal", text="off" if "-n" in flags else "on", apply=False
        )


def _limits(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    options = _getopt(args)
    if options.operands or options.dynamic:
        value = options.operands[0].value if options.operands else None
        via: BindVia = "umask" if name == "umask" else "ulimit"
        sink.bind(name, via, "unknown" if value is None else "literal", text=value, apply=False)


def _disown(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    sink.add(Lifetime(kind="detached", via="disown"))


def _kill(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    if not args or args[0].value not in ("-l", "-L"):
        sink.opaque("`kill` signals processes the plan does not know")


def _history(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    if args:
        sink.opaque("`history` with arguments reads or writes the history file")


def _fc(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    if not args or args[0].value != "-l":
        sink.opaque("`fc` runs an editor and commands from the history")


_HANDLERS: Final[Mapping[str, Callable[[str, Sequence[Word], EffectSink], None]]] = {
    "cd": _cd,
    "pushd": _cd,
    "popd": _cd,
    "export": _declaration,
    "declare": _declaration,
    "typeset": _declaration,
    "local": _declaration,
    "readonly": _declaration,
    "read": _read,
    "mapfile": _mapfile,
    "readarray": _mapfile,
    "printf": _printf,
    "unset": _unset,
    "set": _set,
    "shopt": _shopt,
    "trap": _trap,
    "alias": _alias,
    "unalias": _alias,
    "getopts": _getopts,
    "let": _let,
    "wait": _wait,
    "test": _test,
    "[": _test,
    "hash": _hash,
    "enable": _enable,
    "umask": _limits,
    "ulimit": _limits,
    "disown": _disown,
    "kill": _kill,
    "history": _history,
    "fc": _fc,
}


def builtin_effects(name: str, args: Sequence[Word], sink: EffectSink) -> None:
    """State the effects of builtin ``name`` given ``args`` (the words after it) into ``sink``."""
    handler = _HANDLERS.get(name)
    if handler is not None:
        handler(name, args, sink)
    elif name not in _NOTHING:  # pragma: no cover - every builtin is handled or listed
        sink.opaque(f"the builtin `{name}` is not described")
