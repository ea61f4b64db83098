"""
The git reader: what a git command line reads, writes, runs and sends, and which repository code it may run.

git's own options come first, read by the option scanner with `_GLOBALS` (``git.c``:
exact spellings, no clusters, no fused short values, ``--`` unknown): ``-C``
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
gateway inspects at review time (`gateway._programs._git_trust`, docs/git-trust.md).

An alias defined in the same call (``-c alias.x=...``) is followed; any other
word that is not a subcommand the reader knows is unreadable (it may be an
alias in the configuration, or a ``git-NAME`` program).
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from typing import Final

import msgspec

from gateway._programs import ArgumentFact, ArgumentReading, FactBase, FactKind
from gateway._programs._git_commands import COMMANDS, HOOKS_FROM, PAGER, GitCommand
from gateway._programs._git_forms import FORMS, Invocation, Shapes
from gateway._programs._gitconfig import git_code_key, split_alias
from gateway._programs._option_scanner import Met, OptionScan
from gateway._programs._rows import Option, ProgramRow, option_table

__all__ = ["read_git"]

_PRINTS: Final = ("--html-path", "--man-path", "--info-path", "-v", "--version", "-h", "--help")
"""Global options that print and exit (``-h``/``--help`` through ``man``); kept as written."""
_GLOBALS: Final = ProgramRow(
    options=option_table(
        # Options that change nothing the policy judges.
        "--no-replace-objects", "--bare", "--literal-pathspecs", "--glob-pathspecs",
        "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-lazy-fetch",
        "--no-advice", "-p --paginate", "-P --no-pager", *_PRINTS,
        "-C =", "-c =", "--config-env =", "--git-dir =", "--work-tree =", "--namespace =",
        "--super-prefix =", "--attr-source =", "--shallow-file =",
        # Bare, it prints where git's helpers are; `--exec-path=DIR` runs them from DIR.
        "--exec-path [=]",
        "--list-cmds (=)",
    ),
    abbreviations=False,
    clusters=False,
    double_dash=False,
    dash_option=True,
)  # fmt: skip
"""git's own options as ``git.c`` reads them: exact spellings, no clusters, no fused short
values (``-Cdir`` is unknown), long values fused after ``=`` or in the next word; ``--``
and ``-`` are unknown options. The first other word is the subcommand."""
_NO_REPOSITORY: Final = frozenset(
    {"version", "help", "column", "stripspace", "check-ref-format", "init", "clone", "ls-remote"}
)
"""Subcommands that run without opening a repository."""
_ALIAS_DEPTH: Final = 16


class _Line(OptionScan):
    """What git's own options amount to, read in order up to the subcommand."""

    def __init__(self, args: Sequence[str | None], one_word: Set[int]) -> None:
        super().__init__(args, one_word=one_word)
        self.facts: list[ArgumentFact] = []
        self.options: list[str] = []
        self.aliases: dict[str, tuple[str | None, int]] = {}
        self.pager: bool | None = None
        self.exits = False
        self.problem: str | None = None

    @property
    def row(self) -> ProgramRow:
        return _GLOBALS

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

    def cannot(self, clause: str) -> None:
        super().cannot(clause)
        self.problem = clause

    def unknown(self, clause: str) -> None:
        """What an option does is unknown; the reading goes on, to state what the rest does."""
        self.problem = clause

    def expansion(self, index: int) -> None:
        self.cannot("an argument expands where a git option or the subcommand could stand")

    def missing(self, option: Option, index: int) -> None:
        self.cannot(f"`{self.argv[index]}` is missing its value")

    def operand(self, index: int, value: str | None) -> None:
        self.halt(index)  # the subcommand

    def setting(self, setting: str | None, index: int, via: str) -> None:
        """``-c NAME=VALUE``: a bind, and code when the key names code."""
        self.fact("bind", via, index, setting)
        if setting is None:
            self.unknown(f"the setting of `{via}` expands, so what it configures is unknown")
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
            self.unknown("the setting of `--config-env` expands, so what it configures is unknown")
            return
        name, _, variable = setting.partition("=")
        self.fact("read_environment", "--config-env", index, variable or None)
        if git_code_key(name) is not None:
            self.fact("execute", "--config-env", index, None, "shell_text")

    def met(self, met: Met) -> None:
        option, value, at = met.option.name, met.value, met.at
        if option == "--exec-path" and not met.given:
            self.exit(option)
            return
        self.options.append(option)
        if option in _PRINTS or option == "--list-cmds":
            self.exit(None)
            if option in ("-h", "--help"):
                self.fact("execute", option, met.start, "man", "program")
                for pattern in (
                    "man.viewer",
                    "man.*.cmd",
                    "man.*.path",
                    "help.browser",
                    "web.browser",
                ):
                    self.fact("execute", pattern, None, None, "configured")
        elif option in ("--paginate", "--no-pager"):
            self.pager = option == "--paginate"
        elif option == "-C":
            self.fact("cwd", "-C", at, value)
        elif option == "-c":
            self.setting(value, at, "-c")
        elif option == "--config-env":
            self.config_env(value, at)
        elif option == "--exec-path":
            self.fact("execute", "--exec-path", at, value, "code")
        elif option in ("--git-dir", "--work-tree"):
            self.fact("read", option, at, value, recursive=True)

    def exit(self, option: str | None) -> None:
        """The option prints and exits: git reads no further word."""
        if option is not None:
            self.options.append(option)
        self.exits = True
        self.halt(len(self.argv))


_STAGE: Final = re.compile(r":[0-3]:")


def _pathspec(value: str | None, *, history: bool) -> str | None:
    """The path a pathspec or ``REV:PATH`` operand names, or ``None`` (magic, globs, unknown)."""
    if value is None:
        return None
    if history and ":" in value and not value.startswith(":("):
        stage = _STAGE.match(value)  # `:0:PATH`, a path in the index at a stage
        value = value[stage.end() :] if stage else value.partition(":")[2]
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


def read_git(
    program: str,
    args: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    """
    Read a git command line: its global options, its subcommand, and what both do.

    Args:
        program: The basename looked up (``git``).
        args: The arguments after the program word, ``None`` for one that expands.
        one_word: Indexes of expanding words known to be exactly one word
            (``-C "$d"``, ``commit -m "$msg"``); any other may be several.
        no_dash: Indexes of expanding words that cannot begin with ``-``: in
            the subcommand's words they are operands (``add "src/$f"``).

    Returns:
        The reading. `ArgumentReading.subcommand` is the subcommand path read
        (``("remote", "add")``); facts are in argument order, the subcommand's
        own (repository reads and writes, configured code) after its words.

    >>> reading = read_git("git", ["-C", "src", "log", "--output=log.txt", "-1"])
    >>> [(fact.kind, fact.via, fact.value) for fact in reading.facts][:3]
    [('cwd', '-C', 'src'), ('write', '--output', 'log.txt'), ('read', 'repository', '.git')]
    """
    return _read(program, args, Shapes(one_word, no_dash), {}, 0)


def _read(
    program: str,
    args: Sequence[str | None],
    shapes: Shapes,
    aliases: dict[str, tuple[str | None, int]],
    depth: int,
) -> ArgumentReading:
    """`read_git`, with the aliases earlier words defined and how deep in aliases it is."""
    line = _Line(args, shapes.one_word)
    line.aliases.update(aliases)
    line.scan()
    at = line.halted
    if line.undeclared is not None or line.problem is not None or line.exits or at is None:
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(line.options),
            facts=tuple(line.facts),
            undeclared=line.undeclared,
            unreadable=line.problem
            or (None if line.exits or line.undeclared else "it names no subcommand"),
        )
    name = args[at]
    assert name is not None  # noqa: S101 -- an expanding word stops the scan before it
    rest = list(args[at + 1 :])
    if name not in COMMANDS and name.lower() in line.aliases and depth < _ALIAS_DEPTH:
        return _alias(program, args, at, line, shapes, depth)
    command = COMMANDS.get(name)
    if command is None:
        return ArgumentReading(
            program=program,
            table=True,
            options=tuple(line.options),
            facts=tuple(line.facts),
            unreadable=f"`git {name}` is not a subcommand the reader knows; it may be an alias in the configuration or a `git-{name}` program",
        )
    invocation = Invocation.read(name, command, rest, offset=at + 1, shapes=shapes.after(at + 1))
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
    program: str, args: Sequence[str | None], at: int, line: _Line, shapes: Shapes, depth: int
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
    expanded = _read(
        program,
        [*words, *args[at + 1 :]],
        shapes.after(at + 1, len(words)),
        line.aliases,
        depth + 1,
    )
    # The expansion's words are not the call's: only what they do is kept.
    kept = tuple(msgspec.structs.replace(fact, index=None) for fact in expanded.facts)
    return msgspec.structs.replace(
        expanded,
        options=(*line.options, *expanded.options),
        operands=(),
        facts=(*line.facts, *kept),
    )
