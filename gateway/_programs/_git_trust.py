"""
The repository check: what code a git repository's own configuration and hooks would make git run.

A read-only git subcommand still runs code the repository names: an
``fsmonitor`` hook for ``git status``, textconv and external diff drivers
for ``git diff`` and ``git log -p``, clean and smudge filters, a pager, the
hooks in ``.git/hooks``. The planner states which of those each subcommand
may run (``execute`` facts with action ``configured``, from
`gateway._programs._git`); this module says, at review time, which of them
the repository that git would use actually sets. An allow on a git command
stands only when `repository_refusal` finds nothing.

It is the only place the gateway reads a repository: it finds the
repository the way git does (a ``.git`` directory or ``gitdir:`` file, a
linked worktree's ``commondir``, a bare repository), reads its configuration
files with `gateway._programs._gitconfig.read_config` (following
``include.path`` and every ``includeIf``), lists its hooks, and does the
same for submodules. Everything is bounded (file sizes, include depth, the
number of files and directories) and anything it cannot read or bound is a
reason to distrust, never a reason to allow. It never runs git, and never
writes. Configuration outside the repository (``~/.gitconfig``, the system
file) is the user's own and is reported, not refused.

The decision, the threat model and the measured cost are in docs/git-trust.md.
"""

from __future__ import annotations

import functools
import itertools
import os
import pwd
import re
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final, Literal

import msgspec

from gateway._calls._places import DEFAULT_PERSISTENCE_PATTERNS, pattern_regex
from gateway._programs import ArgumentReading
from gateway._programs._gitconfig import (
    ConfigEntry,
    ConfigError,
    git_code_key,
    git_file_key,
    read_config,
)
from gateway._programs._startup import (
    StartupUnknown,
    link_points,
    point,
    site_directory,
    startup_points,
)

__all__ = [
    "DISTRUSTED_ENVIRONMENT",
    "ConfiguredCode",
    "PersistencePoints",
    "RepositoryInspection",
    "configured_refusal",
    "inspect_repository",
    "persistence_points",
    "repository_refusal",
]

Scope = Literal["repository", "user"]
"""Who controls a configuration file: the repository (inside its work tree, git directory or a workspace) or the user."""

MAX_CONFIG_BYTES: Final = 1 << 20
MAX_FILES: Final = 64
MAX_INCLUDE_DEPTH: Final = 10
MAX_HOOKS: Final = 256
MAX_LEVELS: Final = 256

DISTRUSTED_ENVIRONMENT: Final = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_COMMON_DIR",
        "GIT_CONFIG",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_PARAMETERS",
        "GIT_EXEC_PATH",
        "GIT_OBJECT_DIRECTORY",
        "GIT_INDEX_FILE",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_NAMESPACE",
    }
)
"""Variables that move the repository git uses or the configuration it reads; set, they void the check."""

HOOK_NAMES: Final = frozenset(
    {
        "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
        "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout",
        "post-merge", "pre-push", "pre-receive", "update", "proc-receive", "post-receive",
        "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite",
        "sendemail-validate", "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
        "p4-post-changelist", "p4-pre-submit", "post-index-change",
    }
)  # fmt: skip
"""The hooks git runs (githooks(5))."""


class ConfiguredCode(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One code key a configuration file sets.

    Attributes:
        pattern: The `GIT_CODE_KEYS` pattern it matches (``diff.*.textconv``).
        name: The key as set (``diff.pdf.textconv``).
        file: The file that sets it.
        scope: Who controls that file (`Scope`).
    """

    pattern: str
    name: str
    file: str
    scope: Scope


class RepositoryInspection(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What the repository git would use from a directory can make git run.

    Attributes:
        work_tree: The top of the work tree, or ``None`` (no repository, or a bare one).
        git_dir: The git directory, or ``None`` when there is no repository.
        code: The code keys the configuration files set, with their scope.
        hooks: Hook names present and executable in a hooks directory the
            repository controls (its own ``hooks/``, its submodules', or a
            ``core.hooksPath`` inside the workspace or the repository).
        files: The configuration files read, in order.
        distrust: A clause saying why nothing git does here may be trusted
            (the repository is outside the workspace, a file cannot be read,
            a bound was reached, the environment moves git), or ``None``.
    """

    work_tree: str | None
    git_dir: str | None
    code: tuple[ConfiguredCode, ...] = ()
    hooks: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    distrust: str | None = None


class _Distrust(Exception):
    """A reason the repository cannot be trusted; the message is the clause."""


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _read_text(path: str) -> str | None:
    """A small text file's contents, or ``None`` when it does not exist."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return None
    except IsADirectoryError as error:
        raise _Distrust(f"`{path}` is a directory where git reads a file") from error
    except OSError as error:
        raise _Distrust(f"`{path}` cannot be read ({error.strerror})") from error
    if len(data) > MAX_CONFIG_BYTES:
        raise _Distrust(f"`{path}` is larger than the gateway reads")
    return data.decode("utf-8", errors="replace")


PARSED_TEXT: Final = 1 << 16
"""A configuration text up to this many characters keeps its parse (`_entries`); most are a few hundred."""


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> tuple[ConfigEntry, ...]:
    return tuple(read_config(text))


def _entries(text: str) -> Sequence[ConfigEntry]:
    """
    `read_config` of a file's text, its parse kept per text (the file itself is read every time).

    The parse depends on the text alone, so the same text — the user's
    ``~/.gitconfig``, read for every call that writes a path — is parsed
    once; a text git would refuse raises every time.

    Raises:
        ConfigError: git would refuse the text.
    """
    return _parsed(text) if len(text) <= PARSED_TEXT else read_config(text)


def _is_git_directory(path: str) -> bool:
    """git's ``is_git_directory``: a ``HEAD``, and ``objects`` and ``refs`` (in the common directory)."""
    common = path
    commondir = (
        _read_text(os.path.join(path, "commondir"))
        if os.path.isfile(os.path.join(path, "commondir"))
        else None
    )
    if commondir is not None:
        common = os.path.normpath(os.path.join(path, commondir.strip()))
    return (
        os.path.isfile(os.path.join(path, "HEAD"))
        and os.path.isdir(os.path.join(common, "objects"))
        and os.path.isdir(os.path.join(common, "refs"))
    )


def _pointer(dot_git: str) -> str:
    """Where a ``.git`` file points: its ``gitdir:`` line, relative to the directory it is in."""
    text = _read_text(dot_git) or ""
    if not text.startswith("gitdir:"):
        raise _Distrust(f"`{dot_git}` is a file git cannot read as a `gitdir:` pointer")
    return os.path.normpath(os.path.join(os.path.dirname(dot_git), text[len("gitdir:") :].strip()))


def _common_dir(git_dir: str) -> str:
    """The common directory of a git directory: itself, or where its ``commondir`` leads (a linked worktree)."""
    commondir = _read_text(os.path.join(git_dir, "commondir"))
    if commondir is None:
        return git_dir
    return os.path.normpath(os.path.join(git_dir, commondir.strip()))


def _discover(cwd: str, pointers: list[str] | None = None) -> tuple[str | None, str | None]:
    """
    The (work tree, git directory) git finds from ``cwd``, as ``setup.c`` looks: up to the filesystem's edge.

    Each ``.git`` file met on the way is added to ``pointers``, before what
    it points at is looked at.
    """
    directory = os.path.realpath(cwd)
    try:
        device = os.stat(directory).st_dev
    except OSError as error:
        raise _Distrust(f"the working directory `{cwd}` cannot be read") from error
    for _ in range(MAX_LEVELS):
        dot_git = os.path.join(directory, ".git")
        if os.path.isfile(dot_git):
            if pointers is not None:
                pointers.append(dot_git)
            target = _pointer(dot_git)
            if not _is_git_directory(target):
                raise _Distrust(f"`{dot_git}` points at `{target}`, which is not a git directory")
            return directory, target
        if os.path.isdir(dot_git) and _is_git_directory(dot_git):
            return directory, dot_git
        if _is_git_directory(directory):
            return None, directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None, None
        try:
            if os.stat(parent).st_dev != device:
                return None, None
        except OSError as error:
            raise _Distrust(f"`{parent}` cannot be read") from error
        directory = parent
    raise _Distrust("the working directory is nested deeper than the gateway looks")


class _Reader:
    """The configuration files and hooks of one repository (and its submodules), read within the bounds."""

    def __init__(self, repository_roots: Sequence[str], home: str | None) -> None:
        self.repository_roots = repository_roots
        self.home = home
        self.code: list[ConfiguredCode] = []
        self.files: list[str] = []
        self.hooks_path: str | None = None
        self.hooks_paths: list[str] = []
        self.core_worktree: str | None = None
        self.worktree_config = False
        self.real: dict[str, str] = {}

    def scope(self, path: str) -> Scope:
        """Who controls ``path``: its real directory inside a repository root or workspace, or not."""
        directory = os.path.dirname(path)
        real = self.real.get(directory)
        if real is None:
            real = self.real[directory] = os.path.realpath(directory)
        inside = _inside(os.path.join(real, os.path.basename(path)), self.repository_roots)
        return "repository" if inside else "user"

    def read(self, path: str, depth: int = 0) -> None:
        """Read one configuration file and what it includes; a missing file is skipped, as git skips it."""
        if depth > MAX_INCLUDE_DEPTH:
            raise _Distrust(f"`{path}` includes files deeper than git reads")
        if len(self.files) >= MAX_FILES:
            raise _Distrust(
                "the repository's configuration spans more files than the gateway reads"
            )
        text = _read_text(path)
        if text is None:
            return
        self.files.append(path)
        try:
            entries = _entries(text)
        except ConfigError as error:
            raise _Distrust(f"`{path}` is not configuration git reads ({error})") from error
        scope = self.scope(path)
        for entry in entries:
            pattern = git_code_key(entry.name)
            if entry.name == "core.hookspath" and entry.value:
                self.hooks_path = entry.value
                self.hooks_paths.append(entry.value)
            if entry.name == "core.worktree" and entry.value:
                # relative to the git directory, whose `config` this is
                self.core_worktree = os.path.normpath(
                    os.path.join(os.path.dirname(path), entry.value)
                )
            if scope == "repository" and entry.value and git_file_key(entry.name):
                self.file(path, entry.name, entry.value)
            if entry.name == "extensions.worktreeconfig":
                self.worktree_config = (entry.value or "true").lower() in ("true", "yes", "on", "1")
            if pattern is None:
                continue
            if pattern in ("include.path", "includeif.*.path"):
                if entry.value:
                    self.read(self.include(path, entry.value), depth + 1)
                continue
            self.code.append(
                ConfiguredCode(pattern=pattern, name=entry.name, file=path, scope=scope)
            )

    def file(self, path: str, name: str, value: str) -> None:
        """A key the repository sets that makes git read a file: the file must lie in the workspace."""
        relative = not value.startswith(("/", "~", "%")) and ".." not in value.split("/")
        target = self.include(path, value) if value.startswith("~/") else value
        if not relative and not (target.startswith("/") and self.scope(target) == "repository"):
            raise _Distrust(
                f"`{path}` sets `{name}` to `{value}`, a file outside the workspace git would read"
            )

    def include(self, including: str, value: str) -> str:
        if value.startswith("~/"):
            if self.home is None:
                raise _Distrust(
                    f"`{including}` includes `{value}`, and the home directory is unknown"
                )
            return os.path.join(self.home, value[2:])
        return os.path.normpath(os.path.join(os.path.dirname(including), value))

    def hooks(self, common_dir: str, work_tree: str | None) -> list[str]:
        """The executable hooks git would run from a directory the repository controls: ``core.hooksPath`` or ``hooks/``."""
        if self.hooks_path is not None:
            directory = hooks_directory(
                self.hooks_path, work_tree=work_tree, git_dir=common_dir, home=self.home
            )
        else:
            directory = os.path.join(common_dir, "hooks")
        if self.scope(directory) != "repository":
            return []  # the user's own hooks directory, like their own configuration
        found: list[str] = []
        try:
            with os.scandir(directory) as entries:
                for count, entry in enumerate(entries):
                    if count >= MAX_HOOKS:
                        raise _Distrust(f"`{directory}` holds more files than the gateway reads")
                    if entry.name not in HOOK_NAMES:
                        continue
                    try:
                        mode = os.stat(entry.path).st_mode
                    except OSError:
                        continue
                    if stat.S_ISREG(mode) and mode & 0o111:
                        found.append(entry.name)
        except FileNotFoundError:
            return []
        except NotADirectoryError:
            return []
        except OSError as error:
            raise _Distrust(f"`{directory}` cannot be listed ({error.strerror})") from error
        return sorted(found)


def _user_files(environ: Mapping[str, str], home: str | None) -> list[str]:
    files = [] if environ.get("GIT_CONFIG_NOSYSTEM") else ["/etc/gitconfig"]
    xdg = environ.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else None)
    if xdg:
        files.append(os.path.join(xdg, "git", "config"))
    if home:
        files.append(os.path.join(home, ".gitconfig"))
    return files


def _submodules(common_dir: str, work_tree: str) -> list[str]:
    """The git directories of the repository's submodules (``modules/…`` and checked-out ``PATH/.git``), bounded."""
    found: list[str] = []
    listed = _read_text(os.path.join(work_tree, ".gitmodules"))
    if listed is not None:
        try:
            settings = _entries(listed)
        except ConfigError as error:
            raise _Distrust(f"`.gitmodules` is not configuration git reads ({error})") from error
        for entry in settings:
            if entry.name.startswith("submodule.") and entry.name.endswith(".path") and entry.value:
                checkout = os.path.normpath(os.path.join(work_tree, entry.value, ".git"))
                if os.path.isdir(checkout) and _is_git_directory(checkout):
                    found.append(checkout)
                if len(found) > MAX_FILES:
                    raise _Distrust("the repository has more submodules than the gateway reads")
    pending = [os.path.join(common_dir, "modules")]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as error:
            raise _Distrust(f"`{directory}` cannot be listed ({error.strerror})") from error
        for item in entries:
            if not item.is_dir(follow_symlinks=False):
                continue
            if _is_git_directory(item.path):
                found.append(item.path)
                pending.append(os.path.join(item.path, "modules"))
            else:
                pending.append(item.path)
            if len(found) + len(pending) > MAX_FILES:
                raise _Distrust("the repository has more submodules than the gateway reads")
    return found


def inspect_repository(
    cwd: str,
    *,
    workspace: Sequence[str],
    environ: Mapping[str, str],
) -> RepositoryInspection:
    """
    Find the repository git would use from ``cwd`` and what its configuration and hooks make git run.

    Synchronous file I/O, bounded (`MAX_CONFIG_BYTES`, `MAX_FILES`,
    `MAX_INCLUDE_DEPTH`, `MAX_HOOKS`): call it from a worker thread.

    Args:
        cwd: The directory git runs in (after ``cd`` and ``git -C``).
        workspace: The workspace roots (the call's working directory and the
            configured project roots), absolute.
        environ: The environment git would run with (``HOME``,
            ``XDG_CONFIG_HOME``, ``GIT_*``).

    Returns:
        The inspection; `RepositoryInspection.distrust` says why nothing may
        be trusted, if anything does.
    """
    roots = [os.path.realpath(root) for root in workspace]
    moved = sorted(name for name in environ if name in DISTRUSTED_ENVIRONMENT)
    if moved:
        return RepositoryInspection(
            work_tree=None,
            git_dir=None,
            distrust=f"the environment sets `{moved[0]}`, which moves git's repository or configuration",
        )
    try:
        return _inspect(cwd, roots, environ)
    except _Distrust as why:
        return RepositoryInspection(work_tree=None, git_dir=None, distrust=str(why))


def _inspect(cwd: str, roots: Sequence[str], environ: Mapping[str, str]) -> RepositoryInspection:
    """`inspect_repository`, raising `_Distrust` for the first reason not to trust."""
    home = environ.get("HOME")
    work_tree, git_dir = _discover(cwd)
    if git_dir is None:
        reader = _Reader(roots, home)
        for path in _user_files(environ, home):
            reader.read(path)
        return RepositoryInspection(
            work_tree=None, git_dir=None, code=tuple(reader.code), files=tuple(reader.files)
        )
    if work_tree is None:
        raise _Distrust(
            f"the working directory is inside a git directory or bare repository (`{git_dir}`)"
        )
    if not _inside(work_tree, roots):
        raise _Distrust(f"the repository at `{work_tree}` is outside the workspace")
    common_dir = _common_dir(git_dir)
    reader = _Reader(
        [*roots, work_tree, os.path.realpath(git_dir), os.path.realpath(common_dir)], home
    )
    for path in _user_files(environ, home):
        reader.read(path)
    reader.read(os.path.join(common_dir, "config"))
    if reader.worktree_config:
        reader.read(os.path.join(git_dir, "config.worktree"))
    hooks = reader.hooks(common_dir, work_tree)
    for module in _submodules(common_dir, work_tree):
        before = reader.hooks_path
        reader.hooks_path = reader.core_worktree = None
        reader.read(os.path.join(module, "config"))
        hooks.extend(reader.hooks(module, reader.core_worktree))
        reader.hooks_path = before
    return RepositoryInspection(
        work_tree=work_tree,
        git_dir=git_dir,
        code=tuple(reader.code),
        hooks=tuple(sorted(set(hooks))),
        files=tuple(reader.files),
    )


MAX_POINT_PLACES: Final = 256
"""The most directories `persistence_points` looks for a repository from; beyond, where hooks lie is not known."""

_POINTS_OF_GIT_DIRECTORY: Final = (
    "config",
    "config.worktree",
    "commondir",
    "info/attributes",
    "hooks/**",
)
"""What makes code run later in a git directory, wherever it lies (`gateway._calls._places` has them under ``.git``)."""


class PersistencePoints(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What makes git run code later, found where the repositories around some paths keep it.

    Attributes:
        patterns: Absolute path patterns (the grammar of `gateway._calls._places`):
            each hooks directory ``core.hooksPath`` names, in the repository's
            configuration, the user's or the system's, as git resolves it
            (and where its links lead); each ``.git`` file (a ``gitdir:``
            pointer, which moves git) and a ``.git`` a write would make; and
            the configuration and hooks of each git directory, also one a
            pointer leads to outside the workspace; where a link at a
            persistence point leads (`gateway._programs._startup.link_points`);
            the modules the ``.pth`` files of a ``site-packages`` directory
            a path lies in import (`gateway._programs._startup.startup_points`).
        unknown: Why where hooks lie cannot be known (a configuration file
            that cannot be read or parsed, a bound reached): then any write
            may land in a hooks directory. ``None`` when all were found.
    """

    patterns: tuple[str, ...] = ()
    unknown: str | None = None


def hooks_directory(value: str, *, work_tree: str | None, git_dir: str, home: str | None) -> str:
    """
    The directory git runs hooks from when ``core.hooksPath`` is ``value``: absolute, normalised.

    As git reads a path setting: ``~/`` and ``~user/`` are home directories;
    a relative path is relative to where git runs hooks, the top of the work
    tree (the git directory of a bare repository), wherever the setting is.

    Examples:
        >>> hooks_directory("tools/hooks", work_tree="/w", git_dir="/w/.git", home=None)
        '/w/tools/hooks'
        >>> hooks_directory("~/hooks", work_tree=None, git_dir="/r.git", home="/home/u")
        '/home/u/hooks'
    """
    path = value
    if value.startswith("~"):
        user, _, rest = value[1:].partition("/")
        if user:
            try:
                base: str | None = pwd.getpwnam(user).pw_dir
            except KeyError:
                base = None
        else:
            base = home
        if base is None:
            raise _Distrust(f"`core.hooksPath` is `{value}`, in a home directory that is not known")
        path = os.path.join(base, rest)
    elif value.startswith("%(prefix)/"):
        raise _Distrust(f"`core.hooksPath` is `{value}`, under git's install prefix")
    return os.path.normpath(os.path.join(work_tree or git_dir, path))


def _point(path: str) -> str:
    """A path as a pattern that matches it: a glob character stands for any one character (never fewer matches)."""
    return point(path)


def _directory_points(directory: str) -> list[str]:
    """A directory and everything below it, also where its links lead."""
    return [
        _point(each.rstrip("/")) + "/**"
        for each in dict.fromkeys((directory, os.path.realpath(directory)))
    ]


def _environment_hooks_paths(environ: Mapping[str, str]) -> list[str]:
    """The ``core.hooksPath`` values ``GIT_CONFIG_COUNT`` sets; the others that set configuration cannot be read."""
    for name in ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG"):
        if name in environ:
            raise _Distrust(
                f"the environment sets `{name}`, configuration the gateway does not read"
            )
    count = environ.get("GIT_CONFIG_COUNT")
    if count is None:
        return []
    if not count.isdigit() or int(count) > MAX_FILES:
        raise _Distrust(f"the environment sets `GIT_CONFIG_COUNT` to `{count[:20]}`")
    return [
        environ.get(f"GIT_CONFIG_VALUE_{index}", "")
        for index in range(int(count))
        if environ.get(f"GIT_CONFIG_KEY_{index}", "").lower() == "core.hookspath"
    ]


def _existing(path: str) -> str:
    """The path, or the nearest directory above it that exists (where git would look from once it is made)."""
    probe = path
    while not os.path.isdir(probe) and probe != "/":
        probe = os.path.dirname(probe)
    return probe


def persistence_points(paths: Iterable[str], *, environ: Mapping[str, str]) -> PersistencePoints:
    """
    Where git keeps what it runs later, for the repositories git would find from these paths.

    The fixed patterns (`gateway._calls._places.DEFAULT_PERSISTENCE_PATTERNS`) name
    ``.git/hooks`` and ``.git/config`` where they usually lie; this reads,
    as git would, where they really lie: ``core.hooksPath`` from every
    configuration file git reads (the system's, the user's, the
    repository's, what they include, ``GIT_CONFIG_COUNT``), the git
    directory a ``.git`` file points at, a linked worktree's common
    directory. Beyond git: where a link at a persistence point leads (a
    hook, or a point of the default list at the top of a work tree or a
    directory given, or one level inside a persistence directory there), and
    what the ``.pth`` files of the ``site-packages`` directory of a path
    import (Python runs it at every start). Synchronous file I/O, bounded
    like `inspect_repository`: call it from a worker thread. It never runs
    git.

    Args:
        paths: Absolute paths a call writes, and the directories it runs in;
            each is looked up from the nearest directory that exists.
        environ: The environment git would run with (``HOME``,
            ``XDG_CONFIG_HOME``, ``GIT_*``).
    """
    found: dict[str, None] = {}
    try:
        _find_points(paths, environ, found)
    except _Distrust as why:
        return PersistencePoints(patterns=tuple(found), unknown=str(why))
    return PersistencePoints(patterns=tuple(found))


def _find_points(paths: Iterable[str], environ: Mapping[str, str], found: dict[str, None]) -> None:
    """`persistence_points` into ``found``, raising `_Distrust` for what cannot be known."""
    home = environ.get("HOME")
    user = _Reader((), home)
    files = _user_files(environ, home)
    files += [
        environ[name] for name in ("GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL") if environ.get(name)
    ]
    for file in files:
        user.read(file)
    values = [*user.hooks_paths, *_environment_hooks_paths(environ)]
    for value in values:
        if value.startswith(("/", "~", "%")):
            found.update(
                dict.fromkeys(
                    _directory_points(
                        hooks_directory(value, work_tree=None, git_dir="/", home=home)
                    )
                )
            )
    places: dict[str, None] = {}
    git_dirs: dict[str, str | None] = {}
    for name in ("GIT_DIR", "GIT_COMMON_DIR"):
        given = environ.get(name)
        if given is not None:
            if not given.startswith("/"):
                raise _Distrust(f"the environment sets `{name}` to a relative path")
            git_dirs[os.path.normpath(given)] = environ.get("GIT_WORK_TREE")
    for path in paths:
        if not path.startswith("/"):
            continue
        path = os.path.normpath(path)
        if os.path.basename(path) == ".git" and (os.path.islink(path) or not os.path.isdir(path)):
            found[_point(path)] = None  # a pointer, or one a write would make: it moves git
        places[_existing(path)] = None
        if len(places) > MAX_POINT_PLACES:
            raise _Distrust(
                "the call reaches more directories than the gateway looks for repositories from"
            )
    for place in places:
        pointers: list[str] = []
        try:
            work_tree, git_dir = _discover(place, pointers)
        finally:
            found.update((_point(pointer), None) for pointer in pointers)
        if git_dir is not None and git_dirs.get(git_dir) is None:
            git_dirs[git_dir] = work_tree
    # Where links at persistence points lead: looked for at the top of each
    # work tree and each directory given, and in every hooks directory.
    tops: dict[str, None] = {
        os.path.normpath(path): None
        for path in paths
        if path.startswith("/") and os.path.isdir(path) and not os.path.islink(path)
    }
    hooks: dict[str, None] = {}
    for git_dir, work_tree in git_dirs.items():
        common_dir = _common_dir(git_dir)
        for directory in dict.fromkeys((git_dir, common_dir)):
            for name in _POINTS_OF_GIT_DIRECTORY:
                found[_point(directory) + "/" + name] = None
            hooks[os.path.join(directory, "hooks")] = None
        reader = _Reader((), home)
        reader.read(os.path.join(common_dir, "config"))
        reader.read(os.path.join(git_dir, "config.worktree"))
        top = work_tree or reader.core_worktree
        if top is None and os.path.basename(git_dir) == ".git":
            top = os.path.dirname(git_dir)  # found from inside it: its work tree is around it
        if top is not None:
            tops[top] = None
        for value in (*values, *reader.hooks_paths):
            directory = hooks_directory(value, work_tree=top, git_dir=git_dir, home=home)
            found.update(dict.fromkeys(_directory_points(directory)))
            hooks[directory] = None
    for directory in tops:
        found.update(dict.fromkeys(_linked_points(directory, _is_default_point, depth=2)))
    for directory in hooks:
        found.update(dict.fromkeys(_linked_points(directory, lambda path: True, depth=1)))
    # What `.pth` files import, for each path in a `site-packages` directory.
    sites = {site_directory(os.path.normpath(path)) for path in paths if path.startswith("/")}
    for site in sorted(s for s in sites if s is not None):
        try:
            found.update(dict.fromkeys(startup_points(site)))
        except StartupUnknown as why:
            raise _Distrust(f"what Python runs at start is not known: {why}") from None


MAX_LINK_ENTRIES: Final = 20_000
"""The most entries `persistence_points` looks through for links at persistence points, in one directory."""


@functools.cache
def _default_points() -> re.Pattern[str]:
    anywhere = [p for p in DEFAULT_PERSISTENCE_PATTERNS if not p.startswith("~")]
    return re.compile("|".join(f"(?:{pattern_regex(p).pattern})" for p in anywhere), re.DOTALL)


def _is_default_point(path: str) -> bool:
    return _default_points().fullmatch(path) is not None


def _linked_points(directory: str, is_point: Callable[[str], bool], depth: int) -> list[str]:
    """
    Where the links at persistence points in a directory lead, and in the persistence directories in it down to ``depth``.

    Raises:
        _Distrust: More than `MAX_LINK_ENTRIES` entries in a directory.
    """
    found: list[str] = []
    try:
        with os.scandir(directory) as listing:
            entries = list(itertools.islice(listing, MAX_LINK_ENTRIES + 1))
    except OSError:
        return found  # not there, or unreadable: nothing of it is followed either
    if len(entries) > MAX_LINK_ENTRIES:
        raise _Distrust(
            f"`{directory}` holds more than {MAX_LINK_ENTRIES:,} entries to look through"
        )
    for entry in entries:
        if not is_point(entry.path):
            continue
        if entry.is_symlink():
            found += link_points(entry.path)
        elif depth > 1 and entry.is_dir(follow_symlinks=False):
            found += _linked_points(entry.path, lambda path: True, depth - 1)
    return found


def _matches(pattern: str, code: ConfiguredCode) -> bool:
    return code.pattern == pattern


def repository_refusal(reading: ArgumentReading, inspection: RepositoryInspection) -> str | None:
    """
    Why the repository makes this git reading run code the call does not show, as a clause; ``None`` when it does not.

    The reading's ``configured`` facts name what the subcommand may run
    (`gateway._programs._git`); the inspection what the repository sets. Code
    keys set by the user's own configuration are not refused: they are the
    user's, like their shell's start-up files.

    >>> from gateway._programs._git import read_git
    >>> clean = RepositoryInspection(work_tree="/w", git_dir="/w/.git")
    >>> repository_refusal(read_git("git", ["status"]), clean) is None
    True
    >>> hooked = RepositoryInspection(work_tree="/w", git_dir="/w/.git", hooks=("post-index-change",))
    >>> repository_refusal(read_git("git", ["status"]), hooked)
    'the repository has a `post-index-change` hook, which `git status` may run'
    """
    configured = [
        fact.via for fact in reading.facts if fact.kind == "execute" and fact.action == "configured"
    ]
    return configured_refusal(reading.subcommand, configured, inspection)


def configured_refusal(
    subcommand: Sequence[str], configured: Iterable[str], inspection: RepositoryInspection
) -> str | None:
    """
    `repository_refusal` from what a plan states: the subcommand, and the configured code it may run.

    Args:
        subcommand: The subcommand path (``("status",)``).
        configured: What the subcommand may run: `GIT_CODE_KEYS` patterns
            (``core.fsmonitor``) and hooks (``hooks/post-index-change``), as
            the ``configured`` executions of a planned git command name them
            (without their ``git `` prefix).
        inspection: What the repository git would use sets.

    >>> clean = RepositoryInspection(work_tree="/w", git_dir="/w/.git")
    >>> configured_refusal(("status",), ["core.fsmonitor"], clean) is None
    True
    """
    if inspection.distrust is not None:
        return inspection.distrust
    shown = "git " + " ".join(subcommand) if subcommand else "git"
    for via in configured:
        if via.startswith("hooks/"):
            hook = via[len("hooks/") :]
            if hook in inspection.hooks:
                return f"the repository has a `{hook}` hook, which `{shown}` may run"
            continue
        for code in inspection.code:
            if code.scope == "repository" and _matches(via, code):
                return f"the repository's configuration sets `{code.name}`, which `{shown}` may run"
    return None
