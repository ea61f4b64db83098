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

__all__ = [
    "SYSTEM_DIRECTORIES",
    "TRANSPARENT_LAUNCHERS",
    "CommandView",
    "command_text",
    "matches",
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
TRANSPARENT_LAUNCHERS: Final = frozenset(
    {
        "env",
        "timeout",
        "nice",
        "nohup",
        "stdbuf",
        "time",
        "ionice",
        "chrt",
        "taskset",
        "setsid",
        "command",
        "builtin",
        "exec",
    }
)
"""Launchers that run the named program unchanged: a rule about the program decides for the whole chain."""

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
        assigned = [a.name for a in command.assignments]
        # Assignment operands of launchers (``env PATH=… cmd``, ``sudo VAR=… cmd``).
        ends = [step.index for step in position.launchers[1:]] + [
            program.index if program and program.index is not None else len(argv)
        ]
        for step, end in zip(position.launchers, ends, strict=False):
            assigned.extend(
                found.group(1)
                for value in argv[step.index + 1 : end]
                if value is not None and (found := _ASSIGNMENT.match(value)) is not None
            )
        self.assigned = tuple(assigned)


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


def option_present(args: Sequence[str | None], options: Iterable[str]) -> str | None:
    """
    The first argument that spells one of ``options``, or ``None``.

    Short options are found anywhere in a cluster (``-rf`` spells ``-f``,
    ``-ofile`` spells ``-o``); long options in all their spellings and any
    abbreviation of two characters or more (``--compress-prog``); single-dash
    long options (``-exec``) exactly or fused with ``=``; globs as globs.
    Arguments after ``--`` are operands.
    """
    specs = [_option_spec(option) for option in options]
    for arg in args:
        if arg is None or not arg.startswith("-") or arg == "-":
            continue
        if arg == "--":
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
                    if name == value or (len(name) >= 2 and value.startswith(name)):
                        return arg
            elif kind == "single":
                if arg == value or arg.startswith(value + "="):
                    return arg
            elif not arg.startswith("--") and value in arg[1:]:
                return arg
    return None


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
        if option_present(scope, rule.options) is None:
            return False
    if rule.without_options and option_present(view.args, rule.without_options) is not None:
        return False
    if rule.without_options and rule.decision == "allow" and any(a is None for a in view.args):
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
    if rule.assigns and not set(rule.assigns) & set(view.assigned):
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
    if rule.cwd_under:
        if cwd is None:
            return False
        if not any(
            cwd == root.rstrip("/") or cwd.startswith(root.rstrip("/") + "/")
            for root in rule.cwd_under
        ):
            return False
    return True
