"""
What a rule says about *which* command it is about: programs, launchers, options, where it sits.

Everything here reads plan data, never text: the program that really runs
comes from the program position, its subcommand and options from what its
option table read (`PlannedCommand.subcommand`, `PlannedCommand.options`,
canonical spellings), arguments from the literal ``argv`` values (a value
that expands is ``None`` and matches no glob). What the command *does* is
judged by the effect conditions (`gateway_rules._conditions`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from gateway.plans import PlannedCommand, PlannedValue
from gateway.shell import LAUNCHERS
from gateway_rules._glob import Glob, compile_glob
from gateway_rules._schema import Rule

__all__ = ["SYSTEM_DIRECTORIES", "CommandView", "Selectors", "command_text", "under"]

SYSTEM_DIRECTORIES: Final = (
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/sbin/",
)


def _plain(value: PlannedValue | None) -> str | None:
    """A planned value's literal text (``None`` when it expands or is a masked secret)."""
    return None if value is None else value.plain


class CommandView:
    """What the selectors read of one planned command, computed once."""

    __slots__ = ("args", "command", "launchers", "opaque_launchers", "program", "program_path")

    def __init__(self, command: PlannedCommand, found: Mapping[str, str] | None = None) -> None:
        self.command = command
        position = command.position
        program = position.program
        self.program = program.basename if program is not None else None
        self.program_path = (
            None
            if program is None
            else program.name
            if "/" in program.name
            else (found or {}).get(program.name)  # `PATH` finds it where the agent can write
        )
        start = (
            program.index + 1
            if program is not None and program.index is not None
            else len(command.argv)
        )
        self.args: tuple[str | None, ...] = tuple(_plain(v) for v in command.argv[start:])
        self.launchers = tuple(step.basename for step in position.launchers)
        self.opaque_launchers = tuple(
            name for name in self.launchers if name in LAUNCHERS and not LAUNCHERS[name].transparent
        )
        """Launchers that do more than run the program unchanged (``sudo``, ``xargs``, ``watch``)."""


def under(path: str, roots: Sequence[str]) -> bool:
    """True when ``path`` is one of ``roots`` or inside one."""
    return any(
        path == root.rstrip("/") or path.startswith(root.rstrip("/") + "/") for root in roots
    )


class Selectors:
    """
    A rule's conditions on which command (or tool call) it is about, compiled once.

    Attributes:
        rule: The rule.
        about_programs: It names programs, paths or launchers.
        about_tools: It names host tools.
        command_only: It names something only a shell command has (programs,
            launchers, fed-by, contexts), so it never applies to a tool call.
    """

    __slots__ = (
        "_args",
        "_options",
        "_without",
        "about_programs",
        "about_tools",
        "command_only",
        "rule",
    )

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.about_programs = rule.about_commands
        self.about_tools = bool(rule.tools)
        self.command_only = bool(rule.about_commands or rule.fed_by or rule.contexts)
        self._args: tuple[Glob, ...] = tuple(compile_glob(a, path=False) for a in rule.args)
        self._options = frozenset(rule.options)
        self._without = frozenset(rule.without_options)

    def _program(self, view: CommandView) -> bool:
        rule = self.rule
        if rule.paths and view.program_path in rule.paths:
            return True
        if not rule.programs:
            return not rule.paths
        if view.program not in rule.programs:
            return False
        # `./ls` or `/tmp/ls` is not the system's ls: only a bare name or a system
        # directory names the program a rule about `ls` means.
        path = view.program_path
        return rule.any_path or path is None or path.startswith(SYSTEM_DIRECTORIES)

    def command(self, view: CommandView, cwd: str | None) -> bool:
        """True when every selector the rule gives holds for a shell command."""
        rule = self.rule
        command = view.command
        if self.about_tools:
            return False
        if (rule.programs or rule.paths) and not self._program(view):
            return False
        if rule.launchers and not set(rule.launchers) & set(view.launchers):
            return False
        if rule.contexts and command.context not in rule.contexts:
            return False
        if rule.subcommands and not any(
            tuple(entry.split()) == command.subcommand[: len(entry.split())]
            for entry in rule.subcommands
        ):
            return False
        present = set(command.options)
        if self._options and not self._options & present:
            return False
        if self._without and self._without & present:
            return False
        if rule.prefix and view.args[: len(rule.prefix)] != rule.prefix:
            return False
        if self._args and not any(
            arg is not None and glob.matches(arg) for arg in view.args for glob in self._args
        ):
            return False
        if rule.fed_by and not set(rule.fed_by) & set(command.fed_by):
            return False
        return self._cwd(cwd)

    def tool(self, tool: str, cwd: str | None) -> bool:
        """True when every selector the rule gives holds for a call of a tool that is not a shell."""
        if self.command_only or (self.about_tools and tool not in self.rule.tools):
            return False
        return self._cwd(cwd)

    def _cwd(self, cwd: str | None) -> bool:
        if not self.rule.cwd_under:
            return True
        return cwd is not None and under(cwd, self.rule.cwd_under)


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
