"""
The shapes of git subcommands whose effects depend on their words: listing or writing, local or remote.

``git branch`` lists branches, ``git branch topic`` creates one; ``git config
user.name`` reads a setting, ``git config user.name x`` writes the
repository's configuration; ``git remote -v`` reads, ``git remote update``
fetches. An `Invocation` reads a subcommand's words (its second-level
subcommand too: ``stash pop``, ``worktree add``) with its row, and a form
function turns the reading into a `Shape`: what is read, written, sent and
may run. Subcommands with no form get the shape their `GitCommand` declares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Final, NamedTuple

from gateway._programs import ArgumentFact, ArgumentReading
from gateway._programs._git_commands import (
    CHECKOUT_HOOKS,
    CONFIG,
    EDITOR,
    EXTERNAL_DIFF,
    FILTERS,
    FSMONITOR,
    INDEX,
    LOG_ROW,
    OBJECTS,
    REF_HOOKS,
    REFS,
    SIGNING,
    TEXTCONV,
    TRANSPORT,
    GitCommand,
    _row,
)
from gateway._programs._git_options import DIFF, REVISIONS, SUBCOMMANDS
from gateway._programs._gitconfig import PLAIN_KEYS, git_code_key, key_name
from gateway._programs._rows import ProgramRow
from gateway._programs._table_reader import read_row

__all__ = ["FORMS", "Invocation", "Shape", "Shapes"]


@dataclass(frozen=True)
class Shape:
    """What one invocation of a subcommand reads, writes, sends and may run."""

    reads: tuple[tuple[int, str | None], ...] = ()
    """Operands read as paths: (argv index, value)."""
    reads_work_tree: bool = False
    writes: tuple[str, ...] = ()
    work_tree: bool = False
    network: bool = False
    remote: str | None = None
    remote_index: int | None = None
    code: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()
    facts: tuple[ArgumentFact, ...] = field(default_factory=tuple)


_ANY: Final = _row((), unknown_is_operand=True)
"""A row for words read as operands whatever they spell (``bisect``, ``submodule``)."""
_SECOND: Final[Mapping[str, Mapping[str, ProgramRow]]] = MappingProxyType(
    {
        "remote": {
            "add": _row(SUBCOMMANDS["remote add"]),
            "rename": _row(SUBCOMMANDS["remote rename"]),
            "remove": _row(()),
            "rm": _row(()),
            "set-head": _row(SUBCOMMANDS["remote set-head"]),
            "set-branches": _row(SUBCOMMANDS["remote set-branches"]),
            "get-url": _row(SUBCOMMANDS["remote get-url"]),
            "set-url": _row(SUBCOMMANDS["remote set-url"]),
            "show": _row(SUBCOMMANDS["remote show"]),
            "prune": _row(SUBCOMMANDS["remote prune"]),
            "update": _row(SUBCOMMANDS["remote update"]),
        },
        "stash": {
            "list": LOG_ROW,
            "show": _row(SUBCOMMANDS["stash show"], DIFF, abbreviations=False),
            "push": _row(SUBCOMMANDS["stash push"]),
            "save": _row(SUBCOMMANDS["stash push"]),
            "apply": _row(SUBCOMMANDS["stash apply"]),
            "pop": _row(SUBCOMMANDS["stash pop"]),
            "drop": _row(SUBCOMMANDS["stash drop"]),
            "clear": _row(()),
            "branch": _row(()),
            "create": _row(()),
            "store": _row(SUBCOMMANDS["stash store"]),
        },
        "worktree": {
            "list": _row(SUBCOMMANDS["worktree list"]),
            "add": _row(SUBCOMMANDS["worktree add"]),
            "prune": _row(SUBCOMMANDS["worktree prune"]),
            "move": _row(SUBCOMMANDS["worktree move"]),
            "remove": _row(("-f --force",)),
            "lock": _row(SUBCOMMANDS["worktree lock"]),
            "unlock": _row(()),
            "repair": _row(()),
        },
        "reflog": {
            "show": LOG_ROW,
            "expire": _row(
                (
                    "--expire =",
                    "--expire-unreachable =",
                    "--rewrite",
                    "--updateref",
                    "--stale-fix",
                    "-n --dry-run",
                    "--verbose",
                    "--all",
                    "--single-worktree",
                )
            ),
            "delete": _row(("--rewrite", "--updateref", "-n --dry-run", "--verbose")),
            "exists": _row(()),
        },
        "notes": {
            "list": _row(()),
            "show": _row(()),
            "add": _row(SUBCOMMANDS["notes add"]),
            "append": _row(SUBCOMMANDS["notes add"]),
            "copy": _row(("-f --force", "--stdin", "--for-rewrite =")),
            "edit": _row(("--allow-empty",)),
            "remove": _row(SUBCOMMANDS["notes remove"]),
            "prune": _row(("-n --dry-run", "-v --verbose")),
            "merge": _row(("-v --verbose", "-q --quiet", "-s --strategy =", "--commit", "--abort")),
            "get-ref": _row(()),
        },
        "config": {
            "list": _row(SUBCOMMANDS["config"]),
            "get": _row(SUBCOMMANDS["config"], ("--all", "--regexp", "--value =", "--url =")),
            "set": _row(SUBCOMMANDS["config"], ("--all", "--value =", "--append", "--comment =")),
            "unset": _row(SUBCOMMANDS["config"], ("--all", "--value =")),
            "rename-section": _row(SUBCOMMANDS["config"]),
            "remove-section": _row(SUBCOMMANDS["config"]),
            "edit": _row(SUBCOMMANDS["config"]),
        },
        "submodule": dict.fromkeys(
            (
                "add",
                "status",
                "init",
                "deinit",
                "update",
                "set-branch",
                "set-url",
                "summary",
                "foreach",
                "sync",
                "absorbgitdirs",
            ),
            _ANY,
        ),
        "bisect": dict.fromkeys(
            (
                "start",
                "bad",
                "new",
                "good",
                "old",
                "terms",
                "skip",
                "reset",
                "visualize",
                "view",
                "replay",
                "log",
                "run",
                "help",
            ),
            _ANY,
        ),
        "sparse-checkout": {
            "list": _row(()),
            "set": _row(SUBCOMMANDS["sparse-checkout set"], ("--no-cone",)),
            "add": _row(SUBCOMMANDS["sparse-checkout set"], ("--no-cone",)),
            "init": _row(("--cone", "--no-cone", "--sparse-index", "--no-sparse-index")),
            "reapply": _row(("--cone", "--no-cone", "--sparse-index", "--no-sparse-index")),
            "disable": _row(()),
            "check-rules": _row(("-z", "--cone", "--no-cone", "--rules-file =")),
        },
        "maintenance": dict.fromkeys(
            ("run", "start", "stop", "register", "unregister"),
            _row(
                SUBCOMMANDS["maintenance run"], ("--schedule =", "--scheduler =", "--config-file =")
            ),
        ),
        "bundle": {
            "create": _row(SUBCOMMANDS["bundle create"], REVISIONS),
            "verify": _row(("-q --quiet",)),
            "list-heads": _row(()),
            "unbundle": _row(("--progress",)),
        },
    }
)
"""Second-level subcommands: the first word after the subcommand, and its row."""

_DEFAULT_SECOND: Final = MappingProxyType(
    {"stash": "push", "reflog": "show", "notes": "list", "submodule": "status"}
)
"""What a subcommand does with no second-level word (``git stash`` pushes)."""


def _looks_remote(value: str | None) -> bool:
    """A repository argument that names a remote location (``URL``, ``host:path``), not a remote's name."""
    if value is None:
        return False
    if "://" in value:
        return True
    host, colon, _ = value.partition(":")
    return bool(colon and host and "/" not in host)


class Shapes(NamedTuple):
    """What is known of a command line's expanding words, by index."""

    one_word: Set[int]
    no_dash: Set[int]

    def after(self, start: int, offset: int = 0) -> Shapes:
        """The same, for the words from ``start`` on, moved to begin at ``offset``."""
        return Shapes(
            frozenset(i - start + offset for i in self.one_word if i >= start),
            frozenset(i - start + offset for i in self.no_dash if i >= start),
        )


@dataclass(frozen=True)
class Invocation:
    """One subcommand's words, read: its path (``("remote", "add")``), the row reading, and the words."""

    name: str
    command: GitCommand
    path: tuple[str, ...]
    second: str | None
    reading: ArgumentReading
    offset: int
    """The argv index of the first word the row read."""
    words: tuple[str | None, ...]
    unreadable: str | None = None

    @classmethod
    def read(
        cls,
        name: str,
        command: GitCommand,
        words: Sequence[str | None],
        *,
        offset: int,
        shapes: Shapes | None = None,
    ) -> Invocation:
        """
        Read ``words`` (after the subcommand, which stands at ``offset - 1``).

        ``shapes``: the indexes, within ``words``, of expanding words that are
        one word and that cannot begin with ``-``.
        """
        one_word, no_dash = shapes if shapes is not None else Shapes(frozenset(), frozenset())
        seconds = _SECOND.get(name)
        second: str | None = None
        row = command.row
        if seconds is not None:
            first = words[0] if words else None
            if first is not None and first in seconds:
                second = first
                row = seconds[first]
                words = words[1:]
                offset += 1
                one_word = frozenset(i - 1 for i in one_word if i >= 1)
                no_dash = frozenset(i - 1 for i in no_dash if i >= 1)
            elif words and first is None:
                reading = ArgumentReading(
                    program=f"git {name}",
                    table=True,
                    unreadable=f"the word after `git {name}` expands",
                )
                return cls(name, command, (name,), None, reading, offset, tuple(words))
            elif (
                first is not None
                and first.startswith("-")
                and any(word is None or word in seconds for word in words[1:])
            ):
                # git reads options before a subcommand's second word and
                # then the word (`git remote -v rm origin` removes a remote):
                # which second word runs is not read here, so nothing is said.
                reading = ArgumentReading(
                    program=f"git {name}",
                    table=True,
                    unreadable=f"an option stands before what may be the second word of `git {name}`",
                )
                return cls(name, command, (name,), None, reading, offset, tuple(words))
            else:
                second = _DEFAULT_SECOND.get(name)
                if second is not None and second in seconds:
                    row = seconds[second]
        reading = read_row(f"git {name}", row, words, one_word=one_word, no_dash=no_dash)
        path = (name,) if second is None else (name, second)
        return cls(name, command, path, second, reading, offset, tuple(words))

    def operands(self) -> list[tuple[int, str | None]]:
        """The operands: (argv index in the call, value)."""
        return [(index + self.offset, self.words[index]) for index in self.reading.operands]

    def has(self, *options: str) -> bool:
        return any(option in self.reading.options for option in options)

    def shape(self) -> Shape:
        """The shape the subcommand's `GitCommand` declares."""
        command = self.command
        operands = self.operands()
        reads: tuple[tuple[int, str | None], ...] = ()
        whole = False
        if command.reads != "none":
            reads = tuple(operands)
            whole = command.reads in ("work_tree", "names") and not operands
        remote, remote_index = None, None
        if command.network:
            remote_index, remote = operands[0] if operands else (None, None)
            if not _looks_remote(remote):
                remote = None
        return Shape(
            reads=reads,
            reads_work_tree=whole,
            writes=command.writes,
            work_tree=command.work_tree,
            network=command.network,
            remote=remote,
            remote_index=remote_index,
            code=command.code,
            hooks=command.hooks,
        )


def _fact(
    kind: str,
    via: str,
    index: int | None,
    value: str | None,
    action: str | None = None,
    **more: object,
) -> ArgumentFact:
    return ArgumentFact(kind=kind, via=via, index=index, value=value, action=action, **more)  # type: ignore[arg-type]  # kinds named by the callers are FactKinds


# ───────────────────────── the forms ─────────────────────────

_BRANCH_LISTS: Final = frozenset(
    {
        "--list",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "--show-current",
    }
)
_BRANCH_WRITES: Final = frozenset(
    {
        "--delete",
        "-D",
        "--move",
        "-M",
        "--copy",
        "-C",
        "--edit-description",
        "--set-upstream-to",
        "--unset-upstream",
        "--create-reflog",
    }
)
_BRANCH_CONFIG: Final = frozenset(
    {
        "--move",
        "-M",
        "--copy",
        "-C",
        "--edit-description",
        "--set-upstream-to",
        "--unset-upstream",
        "--track",
    }
)


def _branch(invocation: Invocation) -> Shape:
    options = set(invocation.reading.options)
    writing = bool(options & _BRANCH_WRITES) or (
        bool(invocation.operands()) and not options & _BRANCH_LISTS
    )
    if not writing:
        return Shape()
    config = (CONFIG,) if options & _BRANCH_CONFIG else ()
    return Shape(
        writes=(REFS, *config),
        hooks=REF_HOOKS,
        code=EDITOR if "--edit-description" in options else (),
    )


_TAG_LISTS: Final = frozenset(
    {"--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}
)


def _tag(invocation: Invocation) -> Shape:
    options = set(invocation.reading.options)
    if "--verify" in options:
        return Shape(code=SIGNING)
    if (options & _TAG_LISTS or not invocation.operands()) and "--delete" not in options:
        return Shape()
    annotated = bool(options & {"--annotate", "--sign", "--local-user", "--message", "--file"})
    editor = (annotated and not options & {"--message", "--file"}) or "--edit" in options
    return Shape(
        writes=(REFS, OBJECTS) if annotated else (REFS,),
        hooks=REF_HOOKS,
        code=EDITOR if editor else (),
    )


_CONFIG_READS: Final = frozenset(
    {
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "--get-color",
        "--get-colorbool",
    }
)
_CONFIG_WRITES: Final = frozenset(
    {
        "--replace-all",
        "--add",
        "--unset",
        "--unset-all",
        "--rename-section",
        "--remove-section",
        "--edit",
    }
)


def _config_file(invocation: Invocation) -> tuple[str | None, bool, int | None]:
    """The file a config write goes to: (path, in the git directory, argv index of ``--file``)."""
    options = invocation.reading.options
    if "--global" in options:
        return "~/.gitconfig", False, None
    if "--system" in options:
        return "/etc/gitconfig", False, None
    if "--worktree" in options:
        return ".git/config.worktree", True, None
    for fact in invocation.reading.facts:
        if fact.via == "--file":
            return fact.value, False, None if fact.index is None else fact.index + invocation.offset
    return CONFIG, True, None


_USER_CONFIG: Final = ("~/.gitconfig", "~/.config/git/config")
_SYSTEM_CONFIG: Final = ("/etc/gitconfig",)


def _config_read(invocation: Invocation) -> Shape:
    """
    What a configuration read prints: one key of `PLAIN_KEYS` prints no secret; anything else
    (a listing, a regexp, a URL match, any other key) prints the files it reads.

    The repository's own files are already read (``.git``); the user's and the system's are
    read unless a scope or ``--file`` names one file, and included files (followed by
    default, or with ``--includes``) may be anywhere.
    """
    options = set(invocation.reading.options)
    operands = invocation.operands()
    second = invocation.second
    if options & {"--get-color", "--get-colorbool"}:
        return Shape()
    listing = second == "list" or bool(
        options & {"--list", "--get-regexp", "--get-urlmatch", "--regexp", "--url"}
    )
    key = None if listing or not operands else operands[0][1]
    if key is not None and key_name(key) in PLAIN_KEYS:
        return Shape()
    return _printed_config(options, "git config")


def _printed_config(options: Set[str], via: str) -> Shape:
    """The configuration files a listing of git's configuration prints, by its scope options."""
    scoped = options & {"--local", "--worktree", "--file", "--blob"}
    files = (
        _USER_CONFIG
        if "--global" in options
        else _SYSTEM_CONFIG
        if "--system" in options
        else ()
        if scoped
        else (*_SYSTEM_CONFIG, *_USER_CONFIG)
    )
    facts = [_fact("read", via, None, path) for path in files]
    includes = "--includes" in options or not (scoped or options & {"--global", "--system"})
    if includes and "--no-includes" not in options:
        facts.append(_fact("read", f"{via} --includes", None, None))
    return Shape(facts=tuple(facts))


def _var(invocation: Invocation) -> Shape:
    # `git var -l` lists the configuration too, every scope.
    return _printed_config(frozenset(), "git var -l") if invocation.has("-l") else Shape()


def _config(invocation: Invocation) -> Shape:
    options = set(invocation.reading.options)
    operands = invocation.operands()
    second = invocation.second
    if second in ("list", "get") or (
        second is None
        and (options & _CONFIG_READS or (len(operands) <= 1 and not options & _CONFIG_WRITES))
    ):
        return _config_read(invocation)
    path, in_git_dir, index = _config_file(invocation)
    facts = [
        _fact("write", "git config", index, path, "write", within="git_dir" if in_git_dir else None)
    ]
    if len(operands) >= 2 and not options & {"--rename-section", "--unset", "--unset-all"}:
        (_, key), (value_index, value) = operands[0], operands[1]
        setting = None if key is None or value is None else f"{key}={value}"
        # The key says whether the value is code git will run later (`git_code_key`).
        facts.append(_fact("bind", "git config", value_index, setting))
    return Shape(facts=tuple(facts), code=EDITOR if "--edit" in options or second == "edit" else ())


def _remote(invocation: Invocation) -> Shape:
    second = invocation.second
    operands = invocation.operands()
    if second in (None, "get-url") or (second == "show" and invocation.has("-n")):
        return Shape()
    if second == "show":
        return Shape(network=True, code=TRANSPORT)
    if second in ("prune", "update") or (second == "set-head" and invocation.has("--auto")):
        return Shape(network=True, code=TRANSPORT, writes=(REFS,), hooks=REF_HOOKS)
    shape = Shape(writes=(CONFIG,))
    if second == "add":
        url = operands[1] if len(operands) > 1 else (None, None)
        facts = (
            _fact(
                "bind", "git remote add", url[0], None if url[1] is None else f"remote.url={url[1]}"
            ),
        )
        if invocation.has("--fetch"):
            return replace(
                shape,
                facts=facts,
                network=True,
                remote=url[1] if _looks_remote(url[1]) else None,
                remote_index=url[0],
                code=TRANSPORT,
                writes=(CONFIG, REFS, OBJECTS),
            )
        return replace(shape, facts=facts)
    return replace(
        shape, writes=(CONFIG, REFS) if second in ("rename", "remove", "rm") else (CONFIG,)
    )


def _stash(invocation: Invocation) -> Shape:
    second = invocation.second
    if second == "list":
        return Shape(code=(*TEXTCONV, *SIGNING))
    if second == "show":
        return Shape(code=(*TEXTCONV, *EXTERNAL_DIFF, *FILTERS))
    if second in ("drop", "clear", "store"):
        return Shape(writes=(REFS,), hooks=REF_HOOKS)
    if second == "create":
        return Shape(writes=(OBJECTS,), code=(*FSMONITOR, *FILTERS), reads_work_tree=True)
    return Shape(
        writes=(INDEX, OBJECTS, REFS),
        work_tree=True,
        code=(*FSMONITOR, *FILTERS),
        hooks=(*CHECKOUT_HOOKS,),
        reads_work_tree=second in ("push", "save"),
    )


def _worktree(invocation: Invocation) -> Shape:
    second = invocation.second
    operands = invocation.operands()
    if second in (None, "list"):
        return Shape()
    facts: list[ArgumentFact] = []
    if second == "add" and operands:
        index, path = operands[0]
        facts.append(_fact("write", "git worktree add", index, path, "directory", recursive=True))
    elif second in ("remove", "move") and operands:
        index, path = operands[0]
        facts.append(
            _fact(
                "write",
                f"git worktree {second}",
                index,
                path,
                "delete" if second == "remove" else "move",
                recursive=True,
            )
        )
        if second == "move" and len(operands) > 1:
            facts.append(
                _fact(
                    "write",
                    "git worktree move",
                    operands[1][0],
                    operands[1][1],
                    "create",
                    recursive=True,
                )
            )
    hooks = CHECKOUT_HOOKS if second == "add" else ()
    code = (*FSMONITOR, *FILTERS) if second in ("add", "remove") else ()
    return Shape(
        writes=(".git/worktrees", REFS) if second == "add" else (".git/worktrees",),
        facts=tuple(facts),
        hooks=hooks,
        code=code,
    )


def _reflog(invocation: Invocation) -> Shape:
    if invocation.second in ("expire", "delete"):
        return Shape(writes=(".git/logs",))
    return Shape(code=(*TEXTCONV, *SIGNING) if invocation.second == "show" else ())


def _notes(invocation: Invocation) -> Shape:
    second = invocation.second
    if second in ("list", "show", "get-ref"):
        return Shape()
    editor = second in ("add", "append", "edit") and not invocation.has(
        "--message", "--file", "--reuse-message"
    )
    return Shape(writes=(REFS, OBJECTS), hooks=REF_HOOKS, code=EDITOR if editor else ())


def _symbolic_ref(invocation: Invocation) -> Shape:
    if invocation.has("--delete") or len(invocation.operands()) >= 2:
        return Shape(writes=(REFS,), hooks=REF_HOOKS)
    return Shape()


def _apply(invocation: Invocation) -> Shape:
    reads = tuple(invocation.operands())
    if invocation.has("--check", "--stat", "--numstat", "--summary") and not invocation.has(
        "--apply"
    ):
        return Shape(reads=reads)
    if invocation.has("--cached"):
        return Shape(reads=reads, writes=(INDEX, OBJECTS), hooks=("post-index-change",))
    index = (INDEX,) if invocation.has("--index", "--3way") else ()
    return Shape(
        reads=reads,
        writes=index,
        work_tree=True,
        code=(*FSMONITOR, *FILTERS),
        hooks=("post-index-change",) if index else (),
    )


def _clean(invocation: Invocation) -> Shape:
    if invocation.has("--dry-run"):
        return Shape(reads_work_tree=True)
    facts = [
        _fact("write", "git clean", index, value, "delete", recursive=True)
        for index, value in invocation.operands()
    ]
    if not facts:
        facts.append(
            _fact("write", "git clean", None, ".", "delete", recursive=True, within="work_tree")
        )
    return Shape(facts=tuple(facts), code=FSMONITOR)


def _format_patch(invocation: Invocation) -> Shape:
    shape = invocation.shape()
    if invocation.has("--stdout") or invocation.has("--output-directory"):
        return shape
    # Without -o or --stdout the patches are written in the working directory.
    return replace(
        shape, facts=(_fact("write", "git format-patch", None, "./", "create", prefix=True),)
    )


_ANY_FILE: Final = "."
"""What a read of unknown files of the repository is judged as: the working directory and
everything below it, as ``grep -r`` reads it (the history holds what the disk holds, or held)."""


def _separated(invocation: Invocation, after: int) -> int | None:
    """
    The index in the words of the ``--`` after word ``after`` that ends a command's revisions, or ``None``.

    A ``--`` right after an option may be that option's value (``-e --``): it is not taken.
    """
    words, operands = invocation.words, set(invocation.reading.operands)
    for index in range(after + 1, len(words)):
        before = words[index - 1] if index else None
        if (
            words[index] == "--"
            and index not in operands
            and (index == 0 or (index - 1) in operands or not (before or "-").startswith("-"))
        ):
            return index
    return None


def _grep(invocation: Invocation) -> Shape:
    operands = invocation.operands()
    patterns_given = invocation.has("-e", "-f")
    paths = operands if patterns_given else operands[1:]
    shape = invocation.shape()
    if invocation.has("--no-index"):
        # Plain files, wherever they are: the working directory when none is named.
        return replace(
            shape,
            reads=tuple(paths),
            reads_work_tree=False,
            facts=()
            if paths
            else (_fact("read", "git grep --no-index", None, _ANY_FILE, recursive=True),),
        )
    # Words before a `--` may be revisions, whose trees it searches whole (`git grep KEY
    # HEAD`); without pathspecs after a `--` it searches every file below the working
    # directory, tracked, untracked (`--untracked`) or in the history, as `grep -r` does.
    pattern = -1 if patterns_given or not operands else operands[0][0] - invocation.offset
    separator = _separated(invocation, pattern)
    limited = separator is not None and any(
        index - invocation.offset > separator for index, _ in paths
    )
    facts = () if limited else (_fact("read", "git grep", None, _ANY_FILE, recursive=True),)
    return replace(shape, reads=tuple(paths), reads_work_tree=False, facts=facts)


_HEX: Final = frozenset("0123456789abcdefABCDEF")


def _cat_file(invocation: Invocation) -> Shape:
    """
    ``-p OBJECT``, ``blob OBJECT`` and ``--batch`` print objects' contents: an object named
    by its hash (or read from standard input) may be any file the repository ever held.

    A ``REV:PATH`` names its file (read by its class); a name (``HEAD``) names a commit.
    """
    shape = invocation.shape()
    operands = invocation.operands()
    if invocation.has("--batch", "--batch-command"):
        unknown = True
    elif invocation.has("-e", "-t", "-s", "--batch-check"):
        unknown = False
    else:
        typed = len(operands) == 2 and operands[0][1] == "blob"
        objects = operands[-1:]
        unknown = any(
            value is None
            or (":" not in value and (typed or "^{blob}" in value or set(value) <= _HEX))
            for _, value in objects
        )
    if not unknown:
        return shape
    return replace(shape, facts=(_fact("read", "git cat-file", None, _ANY_FILE, recursive=True),))


def _fsck(invocation: Invocation) -> Shape:
    if invocation.has("--lost-found"):
        # The dangling objects it finds are written out under `.git/lost-found/`.
        return Shape(writes=(".git/lost-found",))
    return Shape()


def _interpret_trailers(invocation: Invocation) -> Shape:
    shape = invocation.shape()
    operands = invocation.operands()
    # Its files are read (standard input without one), and rewritten in place with `--in-place`.
    facts = (
        tuple(
            _fact("write", "git interpret-trailers --in-place", index, value, "write")
            for index, value in operands
        )
        if invocation.has("--in-place")
        else ()
    )
    return replace(shape, reads=tuple(operands), reads_work_tree=False, facts=facts)


def _help(invocation: Invocation) -> Shape:
    shape = invocation.shape()
    if invocation.has(
        "--all",
        "--guides",
        "--config",
        "--user-interfaces",
        "--developer-interfaces",
        "--aliases",
        "--external-commands",
    ):
        return Shape()
    viewer = (
        "git-web--browse"
        if invocation.has("--web")
        else "info"
        if invocation.has("--info")
        else "man"
    )
    return replace(shape, facts=(_fact("execute", "git help", None, viewer, "program"),))


def _clone(invocation: Invocation) -> Shape:
    operands = invocation.operands()
    shape = invocation.shape()
    facts: list[ArgumentFact] = []
    if len(operands) > 1:
        facts.append(
            _fact("write", "git clone", operands[1][0], operands[1][1], "directory", recursive=True)
        )
    elif operands and operands[0][1] is not None:
        name = (
            operands[0][1].rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
            or None
        )
        facts.append(_fact("write", "git clone", operands[0][0], name, "directory", recursive=True))
    else:
        facts.append(_fact("write", "git clone", None, None, "directory", recursive=True))
    for fact in invocation.reading.facts:
        setting = fact.value
        if fact.via == "--config" and (setting is None or git_code_key(setting.partition("=")[0])):
            code = None if setting is None else setting.partition("=")[2]
            index = None if fact.index is None else fact.index + invocation.offset
            facts.append(_fact("execute", "git clone --config", index, code, "shell_text"))
    return replace(shape, facts=tuple(facts), reads=())


def _init(invocation: Invocation) -> Shape:
    operands = invocation.operands()
    index, target = operands[0] if operands else (None, ".")
    git_dir = (
        target
        if invocation.has("--bare")
        else None
        if target is None
        else f"{target.rstrip('/')}/.git"
    )
    return Shape(
        facts=(_fact("write", "git init", index, git_dir, "directory", recursive=True),),
        code=("init.templatedir",),
    )


def _maintenance(invocation: Invocation) -> Shape:
    if invocation.second in ("start", "stop", "register", "unregister"):
        # The user's configuration, and the system scheduler's tables (cron,
        # systemd timers or launchd): where, only the machine says.
        facts = (
            _fact("write", f"git maintenance {invocation.second}", None, "~/.gitconfig", "write"),
            _fact("write", f"git maintenance {invocation.second}", None, None, "write"),
        )
        return Shape(facts=facts, writes=(CONFIG,))
    return invocation.shape()


def _bisect(invocation: Invocation) -> Shape:
    second = invocation.second
    if second in ("log", "help", "terms", None) or second in ("visualize", "view"):
        return Shape()
    if second == "run":
        words = invocation.words
        start = invocation.offset
        facts = (
            ArgumentFact(
                kind="execute",
                via="git bisect run",
                index=start,
                value=words[0] if words else None,
                action="program",
                words=(start, start + len(words)),
            ),
        )
        return Shape(
            writes=(REFS,),
            work_tree=True,
            hooks=CHECKOUT_HOOKS,
            code=(*FSMONITOR, *FILTERS),
            facts=facts,
        )
    return Shape(writes=(REFS,), work_tree=True, hooks=CHECKOUT_HOOKS, code=(*FSMONITOR, *FILTERS))


def _submodule(invocation: Invocation) -> Shape:
    second = invocation.second
    words = invocation.words
    if second == "foreach":
        commands = [word for word in words if word is None or not word.startswith("-")]
        text = None if None in commands else " ".join(word for word in commands if word is not None)
        return Shape(
            facts=(
                _fact("execute", "git submodule foreach", invocation.offset, text, "shell_text"),
            )
        )
    if second in ("status", "summary"):
        return Shape(code=(*FSMONITOR, *FILTERS))
    network = second in ("add", "update")
    return Shape(
        writes=(CONFIG, ".git/modules"),
        work_tree=second in ("add", "update", "deinit", "absorbgitdirs"),
        network=network,
        code=(*TRANSPORT, "submodule.*.update", *FILTERS) if network else (),
        hooks=CHECKOUT_HOOKS if second == "update" else (),
    )


FORMS: Final[Mapping[str, Callable[[Invocation], Shape]]] = MappingProxyType(
    {
        "branch": _branch,
        "tag": _tag,
        "config": _config,
        "remote": _remote,
        "stash": _stash,
        "worktree": _worktree,
        "reflog": _reflog,
        "notes": _notes,
        "symbolic-ref": _symbolic_ref,
        "apply": _apply,
        "clean": _clean,
        "format-patch": _format_patch,
        "grep": _grep,
        "help": _help,
        "clone": _clone,
        "init": _init,
        "bisect": _bisect,
        "submodule": _submodule,
        "maintenance": _maintenance,
        "fsck": _fsck,
        "var": _var,
        "cat-file": _cat_file,
        "interpret-trailers": _interpret_trailers,
    }
)
"""Form name (`gateway._programs._git_commands.Forms`) → the function that shapes an invocation."""
