"""
Matching one planned command against one rule.

Everything here reads the plan, never the raw text: the program that really
runs comes from the program position, options from the literal ``argv``
values, redirects from the planned redirects. A value that expands (``None``
in ``argv``) is never taken to match an allow condition it might not meet.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final

from gateway import PlannedCommand, PlannedRedirect, PlannedValue
from gateway_rules._schema import Rule
from gateway_rules._sed import sed_effect

__all__ = [
    "SYSTEM_DIRECTORIES",
    "CommandView",
    "command_text",
    "matches",
    "may_spell_option",
    "option_present",
    "redirect_writes",
]

SYSTEM_DIRECTORIES: Final = (
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/sbin/",
)

_HARMLESS_TARGETS: Final = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_WRITE_OPERATOR: Final = re.compile(r"^[0-9]*(?:>|>>|>\||&>|&>>|<>)$|^&>>?$")
_ASSIGNMENT: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")


def shown(value: PlannedValue | None) -> str | None:
    """A planned value's text for matching (``None`` when it expands)."""
    return None if value is None else value.display


class CommandView:
    """What the rules read of one planned command, computed once."""

    __slots__ = (
        "args",
        "assigned",
        "command",
        "environment",
        "hidden_assignment",
        "launcher_args",
        "launchers",
        "program",
        "program_path",
        "written",
        "written_name",
    )

    def __init__(self, command: PlannedCommand) -> None:
        self.command = command
        position = command.position
        argv = [shown(value) for value in command.argv]
        program = position.program
        self.program = program.basename if program is not None else None
        self.written_name = program.name if program is not None else None
        self.program_path = program.name if program is not None and "/" in program.name else None
        start = (
            program.index + 1 if program is not None and program.index is not None else len(argv)
        )
        self.args: list[str | None] = argv[start:]
        written = [command.name, *(value.display for value in command.args)]
        self.written: list[str] = (
            written[start:] if len(written) == len(argv) else [a or "" for a in self.args]
        )
        self.launchers = tuple(step.basename for step in position.launchers)
        environment = [a.name for a in command.assignments]
        # Assignment operands of launchers (``env PATH=… cmd``, ``sudo VAR=… cmd``).
        ends = [step.index for step in position.launchers[1:]] + [
            program.index if program and program.index is not None else len(argv)
        ]
        self.launcher_args: list[tuple[str, list[str | None]]] = []
        for step, end in zip(position.launchers, ends, strict=False):
            own = argv[step.index + 1 : end]
            self.launcher_args.append((step.basename, own))
            environment.extend(
                found.group(1)
                for value in own
                if value is not None and (found := _ASSIGNMENT.match(value)) is not None
            )
        self.environment = tuple(environment)
        """Variables set in the environment of the program (``A=1 cmd``, ``env A=1 cmd``)."""
        shell, hidden = builtin_assignments(self.program, self.args, self.written)
        self.assigned = (*self.environment, *shell)
        """Every variable the command sets: for the program, or in the shell (``export``, ``read``…)."""
        self.hidden_assignment = hidden
        """The word when the command sets a variable whose name the plan cannot see (``export $v=1``)."""


_DECLARATIONS: Final = frozenset({"export", "declare", "typeset", "local", "readonly"})
_READERS: Final = frozenset({"read", "mapfile", "readarray"})
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LITERAL_ASSIGNMENT: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")


def builtin_assignments(
    program: str | None, args: Sequence[str | None], written: Sequence[str] = ()
) -> tuple[list[str], str | None]:
    """
    The variables a shell builtin sets by name, and the first word whose name is hidden.

    ``export``/``declare``/``typeset``/``local``/``readonly`` set their
    ``NAME=VALUE`` and ``NAME`` operands (with ``-n``, the variable a nameref
    points to as well); ``read``, ``mapfile`` and ``readarray`` set every
    operand that is a name (and the value of ``read -a``); ``printf -v NAME``
    and ``getopts OPTSTRING NAME`` set ``NAME``. The plan's bound variables
    do not list these, yet ``read PATH <<< /tmp`` changes which ``ls`` runs.
    An operand that expands keeps its name when the name is written literally
    (``export PYTHONPATH=$PWD``); otherwise the name is hidden.
    """
    names: list[str] = []
    if program in _DECLARATIONS:
        nameref = option_present(args, ["-n"]) is not None
        for index, arg in enumerate(args):
            if arg is None:
                text = written[index] if index < len(written) else ""
                literal = _LITERAL_ASSIGNMENT.match(text)
                if literal is None:
                    return names, f"`{text}`" if text else "an operand that expands"
                names.append(literal.group(1))
                continue
            if arg.startswith(("-", "+")):
                continue
            found = _ASSIGNMENT.match(arg)
            name = found.group(1) if found else arg
            if not _NAME.fullmatch(name):
                return names, arg
            names.append(name)
            if nameref and found:
                names.append(arg[found.end() :])
    elif program in _READERS:
        for index, arg in enumerate(args):
            if arg is None:
                text = written[index] if index < len(written) else ""
                return names, f"`{text}`" if text else "an operand that expands"
            if _NAME.fullmatch(arg):
                names.append(arg)
    elif program == "printf":
        for index, arg in enumerate(args):
            if arg is None or not arg.startswith("-v"):
                if arg is None or not arg.startswith("-"):
                    break
                continue
            name = arg[2:] or (args[index + 1] if index + 1 < len(args) else "")
            if name is None:
                return names, "a variable name that expands"
            names.append(name)
            break
    elif program == "getopts" and len(args) >= 2:
        if args[1] is None:
            return names, "a variable name that expands"
        names.append(args[1])
    return names, None


def command_text(command: PlannedCommand, limit: int = 60) -> str:
    """The command shortened for a reason sentence, with control characters made visible."""
    words = [f"{a.name}={a.value.display}" for a in command.assignments]
    words += [command.name, *(value.display for value in command.args)]
    text = " ".join(word for word in words if word)
    text = "".join(
        char
        if char.isprintable()
        else f"\\x{ord(char):02x}"
        if ord(char) < 0x100
        else f"\\u{ord(char):04x}"
        for char in text
    )
    text = text.replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@lru_cache(maxsize=4096)
def _option_spec(option: str) -> tuple[str, str]:
    """Classify an option spelling: ``("short", letter)``, ``("long", name)``, ``("single", word)`` or ``("glob", pattern)``."""
    if "*" in option or "?" in option:
        return "glob", option
    if option.startswith("--"):
        return "long", option[2:]
    if len(option) == 2:
        return "short", option[1]
    return "single", option


def option_present(
    args: Sequence[str | None], options: Iterable[str], *, wide: bool = True
) -> str | None:
    """
    The first argument that spells one of ``options``, or ``None``.

    Short options are found anywhere in a cluster (``-rf`` spells ``-f``,
    ``-ofile`` spells ``-o``); long options as ``--long`` and ``--long=value``;
    single-dash long options (``-exec``) exactly or fused with ``=``; globs as
    globs. Arguments after ``--`` are operands.

    ``wide`` reads the arguments the way that finds the most, as a rule that
    refuses an option must: any abbreviation of a long option counts, down to
    one letter (getopt takes ``--i`` for sed's ``--in-place``), and a ``--``
    right after an option does not end the options, since that option may take
    it as its value (``awk -F -- -f prog.awk``). Without ``wide`` (an allow rule
    that needs an option) only full names count and every ``--`` ends them.
    """
    specs = [_option_spec(option) for option in options]
    previous: str | None = None
    for arg in args:
        before, previous = previous, arg
        if arg is None or not arg.startswith("-") or arg == "-":
            continue
        if arg == "--":
            if wide and _may_take_value(before):
                continue
            return None
        for kind, value in specs:
            if kind == "glob":
                if fnmatch.fnmatchcase(arg, value) or fnmatch.fnmatchcase(
                    arg.split("=", 1)[0], value
                ):
                    return arg
            elif kind == "long":
                if arg.startswith("--"):
                    name = arg[2:].split("=", 1)[0]
                    if name == value or (wide and name and value.startswith(name)):
                        return arg
            elif kind == "single":
                if arg == value or arg.startswith(value + "="):
                    return arg
            elif not arg.startswith("--") and value in arg[1:]:
                return arg
    return None


def _may_take_value(arg: str | None) -> bool:
    """True when ``arg`` is an option that may take the next argument as its value."""
    if arg is None or not arg.startswith("-") or arg in ("-", "--"):
        return False
    return not (arg.startswith("--") and "=" in arg)


_CANNOT_START_OPTION: Final = frozenset("/._:,=+@%^~")


def may_spell_option(written: str) -> bool:
    """
    True when an argument that expands, written as ``written``, could expand to an option.

    A word cannot when it starts with a literal character other than ``-`` and
    nothing in it is split into more words: ``~/dir``, ``./*``, ``"src/$name"``.
    A word that starts with an expansion, a glob or a brace (``$X``, ``*``,
    ``{-delete,x}``) can, and so can one with an unquoted ``$`` or backquote
    (``/x$(cmd)`` splits on blanks) or an ``@`` expansion (``"${a[@]}"``).
    """
    text = written.removeprefix('"')
    if not text or not (text[0].isalnum() or text[0] in _CANNOT_START_OPTION):
        return True
    if "$" in written and "@" in written:
        return True
    quote = ""
    index = 0
    while index < len(written):
        char = written[index]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            index += 1
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char in "$`":
            return True
        index += 1
    return False


def redirect_writes(redirect: PlannedRedirect) -> bool:
    """True when a redirect writes to a file (not a harmless device, not a descriptor duplication)."""
    if redirect.target is None or not _WRITE_OPERATOR.match(redirect.kind):
        return False
    return redirect.target.display not in _HARMLESS_TARGETS


def _target_matches(target: PlannedValue | None, patterns: Iterable[str]) -> bool:
    if target is None:
        return False
    text = target.display.strip("'\"")
    return any(fnmatch.fnmatchcase(text, pattern) for pattern in patterns)


def _operands(args: Sequence[str | None], global_options: dict[str, int]) -> list[str | None]:
    """The arguments after the program's global options (``git -C dir push`` → ``push …``)."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg is None or not arg.startswith("-"):
            break
        name = arg.split("=", 1)[0]
        index += 1 + (global_options.get(name, 0) if "=" not in arg else 0)
    return list(args[index:])


def _leading_options(
    args: Sequence[str | None], global_options: dict[str, int]
) -> list[str | None]:
    """The arguments before the first operand (with the values of declared global options)."""
    operands = _operands(args, global_options)
    return list(args[: len(args) - len(operands)])


def _program_matches(view: CommandView, rule: Rule) -> bool:
    if rule.paths and view.written_name in rule.paths:
        return True
    if not rule.programs or view.program not in rule.programs:
        return False
    # `./ls` or `/tmp/ls` is not the system's ls: only a bare name or a system
    # directory names the program a rule about `ls` means.
    path = view.program_path
    return rule.any_path or path is None or path.startswith(SYSTEM_DIRECTORIES)


def matches(rule: Rule, view: CommandView, cwd: str | None = None) -> bool:
    """True when every condition the rule gives holds for the command."""
    command = view.command
    if rule.tools:
        return False
    if (rule.programs or rule.paths) and not _program_matches(view, rule):
        return False
    if rule.launchers and not set(rule.launchers) & set(view.launchers):
        return False
    if rule.contexts and command.context not in rule.contexts:
        return False
    if rule.subcommands or rule.prefix:
        operands = _operands(view.args, rule.global_options)
        if rule.subcommands and (not operands or operands[0] not in rule.subcommands):
            return False
        if rule.prefix and list(view.args[: len(rule.prefix)]) != list(rule.prefix):
            return False
    if rule.options:
        scope = (
            _leading_options(view.args, rule.global_options)
            if rule.before_subcommand
            else view.args
        )
        # Read the arguments the way that makes the rule stricter: a rule
        # that refuses finds every spelling, one that allows only sure ones.
        if option_present(scope, rule.options, wide=rule.decision != "allow") is None:
            return False
    if (
        rule.without_options
        and option_present(view.args, rule.without_options, wide=rule.decision == "allow")
        is not None
    ):
        return False
    if (
        rule.without_options
        and rule.decision == "allow"
        and any(
            value is None and may_spell_option(text)
            for value, text in zip(view.args, view.written, strict=False)
        )
    ):
        # An argument that expands could spell an excluded option.
        return False
    if rule.arg_patterns:
        patterns = [_compiled(p) for p in rule.arg_patterns]
        texts = [
            value if value is not None else written
            for value, written in zip(view.args, view.written, strict=False)
        ]
        if not any(p.search(text) for text in texts for p in patterns):
            return False
    if rule.dynamic_args is not None and (None in view.args) != rule.dynamic_args:
        return False
    if rule.max_args is not None and len(view.args) > rule.max_args:
        return False
    if rule.max_operands is not None:
        operands = [a for a in view.args if a is None or not a.startswith("-") or a == "-"]
        if len(operands) > rule.max_operands:
            return False
    if rule.expansions and not set(rule.expansions) & set(command.expansions):
        return False
    if rule.assigns and not any(
        fnmatch.fnmatchcase(name, pattern) for name in view.assigned for pattern in rule.assigns
    ):
        return False
    if (
        rule.writes is not None
        and any(redirect_writes(r) for r in command.redirects) != rule.writes
    ):
        return False
    if rule.write_targets and not any(
        redirect_writes(r) and _target_matches(r.target, rule.write_targets)
        for r in command.redirects
    ):
        return False
    if rule.redirect_targets and not any(
        _target_matches(r.target, rule.redirect_targets) for r in command.redirects
    ):
        return False
    if rule.fed_by and not set(rule.fed_by) & set(command.fed_by):
        return False
    if rule.runs_shell is not None and command.position.runs_shell != rule.runs_shell:
        return False
    if rule.sed_runs is not None and (sed_effect(view.args) is not None) != rule.sed_runs:
        return False
    if rule.cwd_under:
        if cwd is None:
            return False
        if not any(
            cwd == root.rstrip("/") or cwd.startswith(root.rstrip("/") + "/")
            for root in rule.cwd_under
        ):
            return False
    return True
