"""
The git reader: what a git command line reads, writes, runs and sends, and which repository code it may run.

git's own options come first (``git.c``: exact spellings, no clusters): ``-C``
moves where it runs (a ``cwd`` fact), ``--git-dir``/``--work-tree`` move the
repository, ``-c``/``--config-env`` set configuration for this run (``bind``
facts; an ``execute`` fact when the key names code, from
`gateway._programs._gitconfig.GIT_CODE_KEYS`), ``--exec-path=`` runs git's
helpers from elsewhere, ``-p``/``--no-pager`` decide the pager. Then one
subcommand, read with its option row (`gateway._programs._git_commands`):
its options' own effects (``--output``, ``--upload-pack``, ``-O``), what it
reads (pathspecs, the work tree, the history), what it writes (``.git/…``
files, facts with ``within="git_dir"``; the work tree, ``within="work_tree"``),
whether it talks to a remote, and the **configured code** it may run:
``execute`` facts with action ``configured`` naming a `GIT_CODE_KEYS` pattern
or a hook (``hooks/pre-commit``). A configured fact is never code in the
call: whether it runs depends on the repository's configuration, which the
gateway inspects at review time (`gateway._git_trust`, docs/git-trust.md).

An alias defined in the same call (``-c alias.x=...``) is followed; any other
word that is not a subcommand the reader knows is unreadable (it may be an
alias in the configuration, or a ``git-NAME`` program).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from gateway._programs import ArgumentFact, ArgumentReading, FactBase, FactKind
from gateway._programs._git_commands import COMMANDS, HOOKS_FROM, PAGER, GitCommand
from gateway._programs._git_forms import FORMS, Invocation
from gateway._programs._gitconfig import git_code_key, split_alias

__all__ = ["read_git"]

_FLAGS: Final = frozenset(
    {
        "--no-replace-objects",
        "--bare",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-lazy-fetch",
        "--no-advice",
    }
)
"""Global options that change nothing the policy judges."""
_VALUED: Final = frozenset(
    {"--git-dir", "--work-tree", "--namespace", "--super-prefix", "--attr-source", "--shallow-file"}
)
"""Global options with a value, fused (``--git-dir=x``) or in the next word."""
_PRINTS: Final = frozenset({"--html-path", "--man-path", "--info-path", "-v", "--version"})
"""Global options that print and exit."""
_NO_REPOSITORY: Final = frozenset(
    {"version", "help", "column", "stripspace", "check-ref-format", "init", "clone", "ls-remote"}
)
"""Subcommands that run without opening a repository."""
_ALIAS_DEPTH: Final = 16


class _Line:
    """What git's own options amount to, read in order."""

    def __init__(self) -> None:
        self.facts: list[ArgumentFact] = []
        self.options: list[str] = []
        self.aliases: dict[str, tuple[str | None, int]] = {}
        self.pager: bool | None = None
        self.exits = False
        self.unreadable: str | None = None
        self.undeclared: str | None = None

    def fact(
        self,
        kind: FactKind,
        via: str,
        index: int | None,
        value: str | None,
        action: str | None = None,
        *,
        recursive: bool = False,
        within: FactBase | None = None,
    ) -> None:
        self.facts.append(
            ArgumentFact(
                kind=kind,
                via=via,
                index=index,
                value=value,
                action=action,
                recursive=recursive,
                within=within,
            )
        )

    def setting(self, setting: str | None, index: int, via: str) -> None:
        """``-c NAME=VALUE``: a bind, and code when the key names code."""
        self.fact("bind", via, index, setting)
        if setting is None:
            self.unreadable = f"the setting of `{via}` expands, so what it configures is unknown"
            return
        name, equals, value = setting.partition("=")
        pattern = git_code_key(name)
        if name.lower().startswith("alias.") and equals:
            self.aliases[name[6:].lower()] = (value, index)
            return
        if pattern is None:
            return
        code = value if equals else None
        if pattern in ("include.path", "includeif.*.path"):
            # Another configuration file: its keys apply, code ones included.
            self.fact("read", via, index, code)
            self.fact("execute", via, index, None, "code")
        else:
            self.fact("execute", via, index, code, "shell_text")

    def config_env(self, setting: str | None, index: int) -> None:
        """``--config-env=NAME=ENVVAR``: a bind whose value is read from the environment."""
        self.fact("bind", "--config-env", index, setting)
        if setting is None:
            self.unreadable = (
                "the setting of `--config-env` expands, so what it configures is unknown"
            )
            return
        name, _, variable = setting.partition("=")
        self.fact("read_environment", "--config-env", index, variable or None)
        if git_code_key(name) is not None:
            self.fact("execute", "--config-env", index, None, "shell_text")

    def option(self, args: Sequence[str | None], at: int) -> int:
        """Read the global option at ``at``; return the index after it (``-1``: stop)."""
        word = args[at]
        assert word is not None  # noqa: S101 -- the caller stops at an expanding word
        name, equals, fused = word.partition("=")
        if word in _FLAGS:
            self.options.append(word)
            return at + 1
        if word in _PRINTS or word in ("-h", "--help"):
            self.options.append(word)
            self.exits = True
            if word in ("-h", "--help"):
                self.fact("execute", word, at, "man", "program")
                for pattern in (
                    "man.viewer",
                    "man.*.cmd",
                    "man.*.path",
                    "help.browser",
                    "web.browser",
                ):
                    self.fact("execute", pattern, None, None, "configured")
            return len(args)
        if word in ("-p", "--paginate"):
            self.options.append("--paginate")
            self.pager = True
            return at + 1
        if word in ("-P", "--no-pager"):
            self.options.append("--no-pager")
            self.pager = False
            return at + 1
        if word in ("-C", "-c", "--config-env") or (name in _VALUED and not equals):
            if at + 1 >= len(args):
                self.unreadable = f"`{word}` is missing its value"
                return -1
            value, value_at = args[at + 1], at + 1
            after = at + 2
        elif word == "--exec-path":
            # Bare, it prints where git's helpers are.
            self.options.append(word)
            self.exits = True
            return len(args)
        elif equals and (name in _VALUED or name in ("--config-env", "--exec-path", "--list-cmds")):
            value, value_at, after = fused, at, at + 1
        else:
            self.undeclared = name
            return -1
        option = name if name.startswith("--") else word
        self.options.append(option)
        if option == "-C":
            self.fact("cwd", "-C", value_at, value)
        elif option == "-c":
            self.setting(value, value_at, "-c")
        elif option == "--config-env":
            self.config_env(value, value_at)
        elif option == "--exec-path":
            self.fact("execute", "--exec-path", value_at, value, "code")
        elif option in ("--git-dir", "--work-tree"):
            self.fact("read", option, value_at, value, recursive=True)
        elif option == "--list-cmds":
            self.exits = True
            return len(args)
        return after


def _pathspec(value: str | None, *, history: bool) -> str | None:
    """The path a pathspec or ``REV:PATH`` operand names, or ``None`` (magic, globs, unknown)."""
    if value is None:
        return None
    if history and ":" in value and not value.startswith(":("):
        value = value.partition(":")[2]
    if value.startswith(":") or any(char in value for char in "*?["):
        return None
    return value or "."


def _configured(reading: list[ArgumentFact], via: str) -> None:
    reading.append(
        ArgumentFact(kind="execute", via=via, index=None, value=None, action="configured")
    )


def _subcommand_facts(
    invocation: Invocation, command: GitCommand, line: _Line
) -> list[ArgumentFact]:
    """What the subcommand does beyond its options' own effects."""
    facts: list[ArgumentFact] = []
    name = invocation.name
    present = set(invocation.reading.options)
    if name not in _NO_REPOSITORY:
        facts.append(
            ArgumentFact(
                kind="read",
                via="repository",
                index=None,
                value=".git",
                recursive=True,
                within="git_dir",
            )
        )
    form = FORMS.get(command.form)
    shape = form(invocation) if form is not None else invocation.shape()
    for operand, value in shape.reads:
        facts.append(
            ArgumentFact(
                kind="read",
                via="pathspec",
                index=operand,
                value=_pathspec(value, history=command.reads == "history"),
                action="metadata" if command.reads == "names" else None,
                recursive=True,
            )
        )
    if shape.reads_work_tree:
        facts.append(
            ArgumentFact(
                kind="read",
                via="work tree",
                index=None,
                value=".",
                action="metadata" if command.reads == "names" else None,
                recursive=True,
                within="work_tree",
            )
        )
    facts.extend(shape.facts)
    facts.extend(
        ArgumentFact(
            kind="write",
            via=f"git {name}",
            index=None,
            value=path,
            action="write",
            within="git_dir",
        )
        for path in shape.writes
    )
    if shape.work_tree:
        facts.append(
            ArgumentFact(
                kind="write",
                via=f"git {name}",
                index=None,
                value=".",
                action="write",
                recursive=True,
                within="work_tree",
            )
        )
    if shape.network:
        facts.append(
            ArgumentFact(
                kind="network",
                via=f"git {name}",
                index=shape.remote_index,
                value=shape.remote,
                action="connect",
            )
        )
    code = list(shape.code)
    for option in invocation.reading.options:
        code.extend(command.option_code.get(option, ()))
    if (command.pager and line.pager is not False) or line.pager:
        code.extend(PAGER)
    hooks = [
        hook
        for hook in shape.hooks
        if not any(hook in command.quiet_hooks.get(option, ()) for option in present)
    ]
    if hooks:
        code.extend(HOOKS_FROM)
    seen: set[str] = set()
    for pattern in code:
        if pattern not in seen:
            seen.add(pattern)
            _configured(facts, pattern)
    for hook in dict.fromkeys(hooks):
        _configured(facts, f"hooks/{hook}")
    return facts


def _shift(fact: ArgumentFact, offset: int) -> ArgumentFact:
    if fact.index is None:
        return fact
    return msgspec.structs.replace(fact, index=fact.index + offset)


def _strategy(fact: ArgumentFact) -> ArgumentFact:
    """``-s NAME`` runs the program ``git-merge-NAME``."""
    if fact.via == "--strategy" and fact.value is not None:
        return msgspec.structs.replace(fact, value=f"git-merge-{fact.value}")
    return fact


def read_git(program: str, args: Sequence[str | None]) -> ArgumentReading:
    """
    Read a git command line: its global options, its subcommand, and what both do.

    Args:
        program: The basename looked up (``git``).
        args: The arguments after the program word, ``None`` for one that expands.

    Returns:
        The reading. `ArgumentReading.subcommand` is the subcommand path read
        (``("remote", "add")``); facts are in argument order, the subcommand's
        own (repository reads and writes, configured code) after its words.

    >>> reading = read_git("git", ["-C", "src", "log", "--output=log.txt", "-1"])
    >>> [(fact.kind, fact.via, fact.value) for fact in reading.facts][:3]
    [('cwd', '-C', 'src'), ('write', '--output', 'log.txt'), ('read', 'repository', '.git')]
    """
    return _read(program, args, {}, 0)


def _read(
    program: str, args: Sequence[str | None], aliases: dict[str, tuple[str | None, int]], depth: int
) -> ArgumentReading:
    """`read_git`, with the aliases earlier words defined and how deep in aliases it is."""
    line = _Line()
    line.aliases.update(aliases)
    at = 0
    while at < len(args):
        word = args[at]
        if word is None:
            line.unreadable = "an argument expands where a git option or the subcommand could stand"
            break
        if not word.startswith("-") or word == "-":
            break
        at = line.option(args, at)
        if at < 0:
            break
    if line.undeclared is not None or line.unreadable is not None or line.exits or at >= len(args):
        if (
            at >= len(args)
            and not line.exits
            and line.undeclared is None
            and line.unreadable is None
        ):
            line.unreadable = "it names no subcommand"
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(line.options),
            facts=tuple(line.facts),
            undeclared=line.undeclared,
            unreadable=line.unreadable,
        )
    name = args[at]
    assert name is not None  # noqa: S101 -- checked in the loop above
    rest = list(args[at + 1 :])
    if name not in COMMANDS and name.lower() in line.aliases and depth < _ALIAS_DEPTH:
        return _alias(program, args, at, line, depth)
    command = COMMANDS.get(name)
    if command is None:
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(line.options),
            facts=tuple(line.facts),
            unreadable=f"`git {name}` is not a subcommand the reader knows; it may be an alias in the configuration or a `git-{name}` program",
        )
    invocation = Invocation.read(name, command, rest, offset=at + 1)
    reading = invocation.reading
    facts = list(line.facts)
    for fact in reading.facts:
        if fact.kind == "execute" and fact.value is None and fact.via in command.option_code:
            # Given bare (``grep -O``), the option runs the code the
            # configuration names, which the configured facts state.
            continue
        facts.append(_strategy(_shift(fact, invocation.offset)))
    complete = reading.undeclared is None and reading.unreadable is None
    if complete:
        facts.extend(_subcommand_facts(invocation, command, line))
    return ArgumentReading(
        program=program,
        table=True,
        subcommand=invocation.path,
        options=(*line.options, *reading.options),
        operands=tuple(index + at + 1 for index in reading.operands),
        facts=tuple(facts),
        undeclared=reading.undeclared,
        unreadable=reading.unreadable or invocation.unreadable,
    )


def _alias(
    program: str, args: Sequence[str | None], at: int, line: _Line, depth: int
) -> ArgumentReading:
    """A subcommand that an alias in the same call defines: run its shell text, or read what it expands to."""
    name = args[at]
    assert name is not None  # noqa: S101 -- the caller read it
    value, index = line.aliases[name.lower()]
    if value is None:
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(line.options),
            facts=tuple(line.facts),
            unreadable="an alias in the call expands",
        )
    if value.startswith("!"):
        facts = [
            *line.facts,
            ArgumentFact(
                kind="execute",
                via=f"alias.{name}",
                index=index,
                value=value[1:],
                action="shell_text",
            ),
        ]
        return ArgumentReading(
            program=program, table=True, options=tuple(line.options), facts=tuple(facts)
        )
    words = split_alias(value)
    if not words:
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(line.options),
            facts=tuple(line.facts),
            unreadable=f"the alias `{name}` cannot be split as git splits it",
        )
    expanded = _read(program, [*words, *args[at + 1 :]], line.aliases, depth + 1)
    # The expansion's words are not the call's: only what they do is kept.
    kept = tuple(msgspec.structs.replace(fact, index=None) for fact in expanded.facts)
    return msgspec.structs.replace(
        expanded,
        options=(*line.options, *expanded.options),
        operands=(),
        facts=(*line.facts, *kept),
    )
