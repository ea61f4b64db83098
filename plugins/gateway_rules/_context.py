"""
What judging a call needs from outside its plan: the workspace, the git repositories it uses, and links.

The workspace roots are the call's working directory and the configured
project roots; effect paths show them as ``~/…`` under the home directory.
For a git command the allow also rests on the repository it would use
(docs/git-trust.md): the directories git commands run in are collected from
the plan, inspected with `gateway.git.inspect_repository` (bounded file reads, in
a worker thread, before judging), and the judging itself only looks the
inspections up, with `gateway.git.configured_refusal`.

The planner judges a path by its value, folded as bash's ``cd`` folds it,
without consulting the file system; the kernel follows symbolic links. So
the paths a call's effects name are also resolved on disk (`look_at_disk`,
in a worker thread, before judging): where a link on the way leads somewhere
else, the effect has the classes of both places (`through_links`). A link
made by the call itself is not on disk yet; the next call that uses it is
judged through it.

All of it, with the programs ``PATH`` finds (`path_programs`) and where
the repositories keep their hooks (`gateway.persistence_points`), is read
for each call in one hand-off to a worker thread (`look_at_disk`), and
nothing read is kept for the next call: the disk may have changed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from fnmatch import translate
from typing import Final

import anyio.to_thread
import msgspec

from gateway.bounded import charge, thread_cpu_seconds
from gateway.effects import (
    GLOB_OPTIONS,
    PATH_CLASSES,
    Bind,
    Effect,
    EffectPath,
    Execute,
    PathContext,
    PathsSection,
    Read,
    Write,
    classify_path,
    glob_name_matches,
    holds_home,
    is_glob,
    iter_effects,
    path_context,
)
from gateway.git import (
    PersistencePoints,
    RepositoryInspection,
    configured_refusal,
    inspect_repository,
    persistence_points,
)
from gateway.plans import Plan, PlannedCommand, iter_commands

__all__ = [
    "CLEAN_REPOSITORY",
    "DiskView",
    "absolute",
    "disk_targets",
    "git_directories",
    "look_at_disk",
    "outside_home",
    "path_programs",
    "point_writes",
    "repository_check",
    "through_links",
    "unreadable_reads",
    "walked_paths",
    "with_points",
    "workspace_roots",
]

CLEAN_REPOSITORY = RepositoryInspection(work_tree=".", git_dir="./.git")
"""A repository inside the workspace whose configuration sets no code: how rule examples are judged."""


_PROC_FD: Final = "/proc/self/fd/"
_O_PATH: Final = getattr(os, "O_PATH", 0)


def _realpath(path: str) -> str:
    """
    ``os.path.realpath(path)``, from the kernel where it can say: where an open of the path lands.

    The kernel resolves every link on the way in one open, and names what
    it opened in ``/proc/self/fd``: three system calls, where
    ``os.path.realpath`` makes one per component (most of what a call's
    look at ``PATH`` cost). A path that cannot be opened (it does not
    exist, a link loops, a directory on the way may not be searched), a
    name the kernel cannot give as an absolute path (deleted, outside
    this process's root), or a system without ``O_PATH`` or ``/proc``:
    ``os.path.realpath``, as before.
    """
    if _O_PATH:
        try:
            descriptor = os.open(path, _O_PATH | os.O_CLOEXEC)
        except OSError:
            return os.path.realpath(path)
        try:
            found = os.readlink(f"{_PROC_FD}{descriptor}")
        except OSError:
            found = ""
        finally:
            os.close(descriptor)
        if found.startswith("/") and not found.endswith(" (deleted)"):
            return found
    return os.path.realpath(path)


def _normal(path: str) -> str:
    return os.path.normpath(path) if path.startswith("/") else path


def workspace_roots(
    paths: PathsSection, cwd: str | None, home: str | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """
    The workspace roots: absolute, and as effect paths show them (``~/…`` under ``home``).

    With no absolute working directory the call's own directory is ``.``.
    """
    found = [_normal(cwd)] if cwd and cwd.startswith("/") else []
    found += [_normal(root) for root in paths.project_roots if root.startswith("/")]
    shown: list[str] = [] if found and found[0] == _normal(cwd or "") else ["."]
    for root in found:
        if home and (root == home or root.startswith(home.rstrip("/") + "/")):
            shown.append("~" + root[len(home.rstrip("/")) :])
        else:
            shown.append(root)
    return tuple(found), tuple(dict.fromkeys(shown))


def absolute(shown: str | None, home: str | None, cwd: str | None = None) -> str | None:
    """
    An effect path's value as an absolute path.

    A relative value is under ``cwd`` when that is absolute; ``None`` when the
    value is unknown or relative to a directory that is not known.
    """
    if shown is None:
        return None
    if shown == "~" or shown.startswith("~/"):
        return None if home is None else home.rstrip("/") + shown[1:]
    if shown.startswith("/"):
        return shown
    if cwd is not None and cwd.startswith("/") and not shown.startswith("~"):
        return os.path.normpath(os.path.join(cwd, shown))
    return None


def _is_git(command: PlannedCommand) -> bool:
    program = command.position.program
    return program is not None and program.basename == "git"


def git_directories(plans: Iterable[Plan]) -> set[str | None]:
    """The directories (effect path values) the plans' git commands run in."""
    found: set[str | None] = set()
    for plan in plans:
        for command in iter_commands(plan):
            if _is_git(command):
                found.update(path.value for path in command.directories or ())
    return found


def _inspections(
    directories: Iterable[str | None],
    *,
    home: str | None,
    cwd: str | None,
    roots: Sequence[str],
    environ: Mapping[str, str],
) -> dict[str, RepositoryInspection]:
    """
    Inspect the repository git would use from each directory that is known (file reads: call it in a thread).

    Relative directories are under the call's working directory ``cwd``.
    """
    inspections: dict[str, RepositoryInspection] = {}
    for shown in sorted(d for d in directories if d is not None):
        path = absolute(shown, home, cwd)
        if path is not None:
            inspections[shown] = inspect_repository(path, workspace=roots, environ=environ)
    return inspections


def repository_check(
    inspections: Mapping[str, RepositoryInspection] | None,
) -> Callable[[PlannedCommand], str | None]:
    """
    For a git command: why its repository cannot be trusted, or ``None`` (`gateway.git.configured_refusal`).

    ``inspections`` maps each directory to its inspection; ``None`` judges
    every git command as if in `CLEAN_REPOSITORY` (rule examples).
    """

    def check(command: PlannedCommand) -> str | None:
        configured = [
            effect.via.removeprefix("git ")
            for effect in command.effects
            if isinstance(effect, Execute) and effect.kind == "configured"
        ]
        places = [path.value for path in command.directories] or [None]
        for place in places:
            if inspections is None:
                inspection = CLEAN_REPOSITORY
            elif place is None or place not in inspections:
                return "the directory git would run in is only known when it runs, so its repository cannot be checked"
            else:
                inspection = inspections[place]
            refusal = configured_refusal(command.subcommand, configured, inspection)
            if refusal is not None:
                return refusal
        return None

    return check


LINKED_LIMIT = 512
"""At most this many paths of one call are resolved on disk; beyond it a path is ``unknown``."""

# What a write does to the last name of its path: these act on a link itself, not where it leads.
_ON_THE_LINK = frozenset({"delete", "move", "link"})
# Where the gateway's own view differs from the command's (`/proc/self` is the gateway), or no file is;
# but anyone may make a link in `/dev/shm` and `/dev/mqueue`, so those are followed.
_NOT_RESOLVED = ("/proc/", "/dev/")
_RESOLVED_UNDER_DEV = ("/dev/shm/", "/dev/mqueue/")  # noqa: S108 -- named, not used


def _link_key(effect: Effect) -> str | None:
    """
    How an effect's path is looked up in `look_at_disk`: ``None`` when it is not resolved on disk.

    A glob is expanded on disk as bash expands it (`_expand`); a recursive
    read of one also walks what it matches (``glob-walk``).
    """
    if not isinstance(effect, Read | Write):
        return None
    path = effect.path
    if path.value is None:
        return None
    last = "parent" if isinstance(effect, Write) and effect.action in _ON_THE_LINK else "follow"
    if path.pattern:
        walk = isinstance(effect, Read) and effect.recursive and not effect.metadata
        return f"{_GLOB_KEY}{last}:{'walk' if walk else 'one'}:{path.value}"
    return f"{last}:{'recursive' if effect.recursive else 'one'}:{path.value}"


GLOB_LIMIT = 2048
"""At most this many names are looked at to expand one glob on disk; beyond, it may match anything."""

_GLOB_KEY = "glob:"


def _expand(pattern: str, options: frozenset[str]) -> list[str] | None:
    """
    The paths bash's glob ``pattern`` (absolute) matches on disk now, or ``None`` past `GLOB_LIMIT`.

    A segment with no pattern character is taken as written, as bash does;
    ``options`` are the glob options in force (`glob_options`).
    """
    found = ["/"]
    seen = 0
    for piece in pattern.strip("/").split("/"):
        if not is_glob(piece) and piece != "**":
            found = [os.path.join(p, piece) for p in found]
            continue
        matched: list[str] = []
        for directory in found:
            if piece == "**" and "globstar" in options:  # this directory and every one below
                for root, dirs, _ in os.walk(directory):
                    seen += 1 + len(dirs)
                    if seen > GLOB_LIMIT:
                        return None
                    matched.append(root)
                continue
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > GLOB_LIMIT:
                            return None
                        if glob_name_matches(piece, entry.name, options):
                            matched.append(entry.path)
            except OSError:
                continue  # not a directory, gone, or not listable: bash matches nothing there
        found = matched
        if not found:
            return []
    return [p for p in found if os.path.lexists(p)]


WALK_LIMIT = 20000
"""At most this many names below a directory a call reads whole are looked at; beyond, it may hold anything."""

_WALK = "walk:"
_GLOB = frozenset("*?[")


def _secret_names(context: PathContext) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """
    What a walk looks for: the last names secret patterns end in (one expression), and the directories whose every file is one.

    Only a name that fits is classified in full (`classify_path`), so a walk
    costs one match per name.
    """
    home = context.home or ""
    names: list[str] = []
    places: list[str] = []
    for pattern in context.secret_patterns:
        head, _, tail = pattern.rpartition("/")
        if tail and not set(tail) <= {"*"}:
            names.append(translate(tail))
            continue
        fixed = head.replace("~", home, 1) if head.startswith("~") else head
        if fixed.startswith("/") and not _GLOB & set(fixed):
            places.append(fixed.rstrip("/") + "/")
        else:
            names.append(".*")  # a pattern the walk cannot narrow: every name is classified
    return re.compile("|".join(dict.fromkeys(names)) or "(?!)"), tuple(places)


def _holds_secret(directory: str, contexts: Sequence[PathContext]) -> str | None:
    """
    ``secret`` when a file below ``directory`` is one (`PathsSection.secret_patterns`), ``unknown`` past `WALK_LIMIT`.

    One walk serves every context (each name is matched against each). It
    descends git's own ``.git`` directories too (``grep -r`` reads them, and
    a link planted there is followed by ``grep -R``), does not descend
    through links, but classifies where each link it meets leads, and all
    that lies below it (``grep -R`` and ``rg -L`` follow them); a directory
    it cannot list may hold anything (``unknown``). ``None`` when it finds
    no secret.
    """
    unlisted: list[OSError] = []

    def unlistable(error: OSError) -> None:
        # A name that is gone or is a file holds nothing more; one it may not list may hold anything.
        if not isinstance(error, FileNotFoundError | NotADirectoryError):
            unlisted.append(error)

    looks = [(context, *_secret_names(context)) for context in contexts]
    seen = 0
    for root, dirs, files in os.walk(_realpath(directory), onerror=unlistable):
        dirs.sort()
        here = root.rstrip("/") + "/"
        sought = []
        for context, names, places in looks:
            every = any(here.startswith(p) for p in places)
            sought.append((context, names, every, every or any(p.startswith(here) for p in places)))
        for name in (*files, *dirs):
            seen += 1
            if seen > WALK_LIMIT:
                return "unknown"
            full = os.path.join(root, name)
            if os.path.islink(full):
                real = _realpath(full)
                if any("secret" in classify_path(real, c, recursive=True) for c, *_ in sought):
                    return "secret"
                continue
            for context, names, every, near in sought:
                if (every or (near and name in dirs) or names.fullmatch(name)) and (
                    "secret" in classify_path(full, context)
                ):
                    return "secret"
    return "unknown" if unlisted else None


def _real(path: str, last: str) -> str:
    head, tail = os.path.split(path)
    if last == "parent" and tail not in ("", ".", ".."):
        return os.path.join(_realpath(head), tail)
    return _realpath(path)


# A path written with no quoting or expansion: what bash passes is the text itself.
_PLAIN = re.compile(r"[\w.+@%=,:/~-]+")


# And quoted: `"sub/../.netrc"`, `'sub'/../x` (no expansion inside the quotes).
_QUOTED = re.compile(r"""(?:[\w.+@%=,:/~-]|'[^']*'|"[^"$`\\]*")+""")
_QUOTES = re.compile(r"'([^']*)'|\"([^\"]*)\"")


def _as_passed(written: str) -> str | None:
    """The text bash passes for a word written with quotes and no expansion; ``None`` for any other."""
    if _PLAIN.fullmatch(written):
        return written
    if not _QUOTED.fullmatch(written):
        return None
    value = _QUOTES.sub(lambda m: m.group(1) or m.group(2) or "", written)
    # A quoted `~` is a name, not the home directory.
    return "./" + value if value.startswith("~") and not written.startswith("~") else value


def _climbs(written: str) -> bool:
    return (
        written == ".." or written.startswith("../") or "/../" in written or written.endswith("/..")
    )


def disk_targets(
    plans: Iterable[Plan], effects: Iterable[Effect], home: str | None, cwd: str | None
) -> dict[str, set[str]]:
    """
    For each effect path resolved on disk, the absolute paths the kernel may open for it.

    The value, as the planner folded it; and where the text climbs with
    ``..``, the text itself under each directory the command runs in, since
    the kernel climbs from where a link led, not from where it was written.
    Empty when the call names no path: then judging it does not look at
    the disk (`look_at_disk` resolves these). Its CPU time counts
    against the review's budget.
    """
    started = thread_cpu_seconds()
    try:
        return _targets(plans, effects, home, cwd)
    finally:
        charge(thread_cpu_seconds() - started)


def _targets(
    plans: Iterable[Plan], effects: Iterable[Effect], home: str | None, cwd: str | None
) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}

    def add(effect: Effect, directories: Sequence[str | None], *, hands_on: bool = False) -> None:
        key = _link_key(effect)
        if key is None or not isinstance(effect, Read | Write):
            return
        value = absolute(effect.path.value, home, cwd)
        classes = set(effect.path.classes)
        system = "system" in classes and "workspace" not in classes
        known = not system and {"secret", "unknown"}.isdisjoint(classes)
        whole = isinstance(effect, Read) and effect.recursive and (hands_on or not effect.metadata)
        if whole and value is not None and known and not effect.path.pattern:
            # A walk can only add `secret` or `unknown`: not walked when the path has either,
            # nor under the system's own directories, whose secrets the patterns name where
            # they lie (`/etc/shadow`); a listing is walked only when it hands what it finds
            # on (`find -exec`).
            found.setdefault(_WALK + str(effect.path.value), set()).add(value)
        paths = found.setdefault(key, set())
        if value is not None:
            paths.add(value)
        written = _as_passed(effect.path.written)
        if effect.path.pattern or written is None or not _climbs(written):
            return
        for directory in directories:
            if written.startswith("/"):
                paths.add(written)
            elif written == "~" or written.startswith("~/"):
                if home is not None:
                    paths.add(home.rstrip("/") + written[1:])
            elif not written.startswith("~") and (base := absolute(directory, home, cwd)):
                paths.add(os.path.join(base, written))

    for effect in effects:
        add(effect, ["."])
    for plan in plans:
        for command, effect in iter_effects(plan):
            shown = [d.value for d in command.directories] if command is not None else []
            add(effect, shown or ["."], hands_on=command is not None and bool(command.nested))
    return found


def _resolve_links(
    targets: Mapping[str, set[str]],
    contexts: Sequence[PathContext],
    options: frozenset[str] = frozenset(),
    readable: Callable[[str], bool] = lambda path: True,
) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for index, key in enumerate(sorted(targets)):
        if index >= LINKED_LIMIT:
            found[key] = ("unknown",)
            continue
        if key.startswith(_WALK):
            held = {_holds_secret(path, contexts) for path in sorted(targets[key])}
            if held - {None}:
                found[key] = tuple(c for c in PATH_CLASSES if c in held)
            continue
        if key.startswith(_GLOB_KEY):
            matched = _glob_classes(key, targets[key], contexts, options, readable)
            if matched:
                found[key] = tuple(c for c in PATH_CLASSES if c in matched)
            continue
        last, reach, _ = key.split(":", 2)
        classes: set[str] = set()
        for path in sorted(targets[key]):
            if path.startswith(_NOT_RESOLVED) and not path.startswith(_RESOLVED_UNDER_DEV):
                continue
            real = _real(path, last)
            if real != os.path.normpath(path):
                for each in contexts:
                    classes.update(classify_path(real, each, recursive=reach == "recursive"))
                if not readable(real):
                    classes.add("outside")
        if classes:
            found[key] = tuple(c for c in PATH_CLASSES if c in classes)
    return found


def glob_options(plans: Iterable[Plan]) -> frozenset[str]:
    """
    The glob options a call's globs are expanded on disk with: bash's defaults, or all of them.

    The plan carries a glob's classes under the options in force where it
    stands, not the options themselves; a call that may set one (``shopt
    -s dotglob``, a set ``GLOBIGNORE``, a ``shopt`` whose name expands) has
    its globs expanded with every option on, which can only add matches.
    """
    for plan in plans:
        for _, effect in iter_effects(plan):
            if isinstance(effect, Bind) and (
                effect.name is None or effect.name in GLOB_OPTIONS or effect.name == "GLOBIGNORE"
            ):
                return GLOB_OPTIONS
    return frozenset()


def _glob_classes(
    key: str,
    patterns: Iterable[str],
    contexts: Sequence[PathContext],
    options: frozenset[str],
    readable: Callable[[str], bool],
) -> set[str]:
    """The classes of what a glob matches on disk: where each match (a link) leads, what a walk of it finds."""
    last, reach, _ = key.removeprefix(_GLOB_KEY).split(":", 2)
    classes: set[str] = set()
    for pattern in sorted(patterns):
        if pattern.startswith(_NOT_RESOLVED) and not pattern.startswith(_RESOLVED_UNDER_DEV):
            continue
        matches = _expand(pattern, options)
        if matches is None:
            return {"unknown"}
        for match in matches:
            real = _real(match, last)
            for each in contexts:
                classes.update(classify_path(real, each))
                classes.update(classify_path(match, each))
            if not readable(real):
                classes.add("outside")
            if reach == "walk":
                held = _holds_secret(match, contexts)
                if held is not None:
                    classes.add(held)
    return classes


def _linked(
    plans: Sequence[Plan],
    targets: Mapping[str, set[str]],
    *,
    paths: PathsSection,
    home: str | None,
    cwd: str | None,
    readable: Callable[[str], bool],
) -> dict[str, tuple[str, ...]]:
    """
    For each path the call reads or writes that leads elsewhere through a symbolic link: the classes of where it leads.

    Where it leads is ``outside`` too when ``readable`` says the profile
    does not declare it readable (`unreadable_reads`).

    ``targets`` are the call's `disk_targets`. Keyed as `through_links`
    looks effects up; a path whose links lead nowhere else is not in it.
    Reads the disk: call it in a thread.
    """
    if not targets:
        return {}
    context = path_context(paths, cwd, home)
    # A resolved path is spelled as the disk spells it: when the home
    # directory (or the working directory) is itself reached through a
    # link, `~/.aws/**` must match where it really is, too.
    real = msgspec.structs.replace(
        context,
        home=None if context.home is None else _realpath(context.home),
        cwd=None if context.cwd is None else _realpath(context.cwd),
    )
    return _resolve_links(
        targets, (context, real) if real != context else (context,), glob_options(plans), readable
    )


def path_programs(
    plans: Iterable[Plan],
    *,
    search_path: str | None,
    paths: PathsSection,
    home: str | None,
    cwd: str | None,
) -> tuple[dict[str, str], bool]:
    """
    The programs named bare that ``PATH`` finds in a place the agent can write: the name, and the file.

    ``PATH=.venv/bin:…`` (an activated environment, ``node_modules/.bin``)
    makes ``python3`` a file of the workspace, or of a temporary directory:
    code the rules cannot read, as ``./python3`` is. Also whether any
    directory of ``PATH`` is such a place, where a program may appear later
    (then the answer rests on the disk). Read in the calling thread.
    """
    context = path_context(paths, cwd, home)

    def writable(path: str) -> bool:
        return not {"workspace", "temp"}.isdisjoint(classify_path(path, context))

    directories: list[str] = []
    for entry in (search_path or "").split(":"):
        directory = absolute(entry or ".", home, cwd)
        if directory is not None and directory not in directories:
            directories.append(directory)
    open_to_writes = any(writable(d) or writable(_realpath(d)) for d in directories)
    if not open_to_writes:
        return {}, False
    names = {
        program.name
        for plan in plans
        for command in iter_commands(plan)
        if (program := command.position.program) is not None and "/" not in program.name
    }
    found: dict[str, str] = {}
    for name in sorted(names):
        for directory in directories:
            full = os.path.join(directory, name)
            if os.path.isfile(full) and os.access(full, os.X_OK):
                if writable(full) or writable(_realpath(full)):
                    found[name] = full
                break
    return found, True


_PLACE = "place:"


def outside_home(home: str | None, cwd: str | None = None) -> Callable[[str], bool]:
    """
    What is readable for a call no boundary can be drawn for: all but the home directory.

    The call's own working directory under the home directory stays
    readable; one that holds the home directory (`gateway.effects.holds_home`:
    the home directory, a directory above it, ``/``) is no workspace, and
    makes nothing under the home directory readable.
    """
    workspace = os.path.normpath(cwd) if cwd is not None else None
    if workspace is not None and holds_home(workspace, home):
        workspace = None

    def under(path: str, root: str | None) -> bool:
        return root is not None and (path == root or path.startswith(root.rstrip("/") + "/"))

    def readable(path: str) -> bool:
        return not under(path, home) or under(path, workspace)

    return readable


def unreadable_reads(
    plans: Iterable[Plan],
    effects: Iterable[Effect],
    *,
    readable: Callable[[str], bool],
    home: str | None,
    cwd: str | None,
) -> dict[str, tuple[str, ...]]:
    """
    The reads of places the profile does not declare readable: ``outside`` for each, keyed as `through_links` looks them up.

    A read of contents only: a listing (``ls ~``) reads names. A value
    relative to a directory that is not known cannot be placed, and keeps
    its classes.
    """
    found: dict[str, tuple[str, ...]] = {}
    reads = [e for e in effects if isinstance(e, Read)]
    reads += [e for plan in plans for _, e in iter_effects(plan) if isinstance(e, Read)]
    for effect in reads:
        if effect.metadata or effect.path.value is None:
            continue
        value = absolute(effect.path.value, home, cwd)
        if value is not None and not readable(value):
            found[_PLACE + effect.path.value] = ("outside",)
    return found


_POINT = "point:"


def _writes(plans: Iterable[Plan], effects: Iterable[Effect]) -> list[Write]:
    found = [e for e in effects if isinstance(e, Write)]
    return found + [e for plan in plans for _, e in iter_effects(plan) if isinstance(e, Write)]


def _fixed_part(path: str) -> str:
    """The directories of a glob its text fixes (``/w/tools/hoo?s/x`` → ``/w/tools``); a path without one, itself."""
    pieces = path.split("/")
    for index, piece in enumerate(pieces):
        if is_glob(piece):
            return "/".join(pieces[:index]) or "/"
    return path


def _points(
    plans: Sequence[Plan],
    effects: Iterable[Effect],
    *,
    home: str | None,
    cwd: str | None,
    roots: Sequence[str],
    environ: Mapping[str, str],
) -> PersistencePoints:
    """
    Where the repositories around the call keep their hooks and configuration (`gateway.git.persistence_points`).

    Looked up from the workspace roots and from every path the call
    writes (for a glob, the directories its text fixes). Reads the disk:
    call it in a thread.
    """
    places = list(roots)
    for write in _writes(plans, effects):
        value = absolute(write.path.value, home, cwd)
        if value is not None:
            places.append(_fixed_part(value) if write.path.pattern else value)
    return persistence_points(dict.fromkeys(places), environ=environ)


def with_points(paths: PathsSection, points: PersistencePoints) -> PathsSection:
    """The ``[paths]`` table with the repositories' own persistence points added to its patterns."""
    if not points.patterns:
        return paths
    extra = tuple(dict.fromkeys((*paths.extra_persistence_patterns, *points.patterns)))
    return msgspec.structs.replace(paths, extra_persistence_patterns=extra)


class DiskView(msgspec.Struct, frozen=True, kw_only=True):
    """
    What judging one call read from the disk (`look_at_disk`).

    Attributes:
        programs: The programs named bare that ``PATH`` finds where the agent can write (`path_programs`).
        open_to_writes: Whether a directory of ``PATH`` is such a place.
        points: Where the repositories around the call keep their hooks and configuration.
        paths: The ``[paths]`` table with those points added (`with_points`).
        links: The classes of where the call's paths lead through links (keyed as `through_links` looks them up).
        inspections: The repository each directory the call's git commands run in would use.
    """

    programs: dict[str, str]
    open_to_writes: bool
    points: PersistencePoints
    paths: PathsSection
    links: dict[str, tuple[str, ...]]
    inspections: dict[str, RepositoryInspection]


async def look_at_disk(
    plans: Sequence[Plan],
    effects: Sequence[Effect],
    *,
    targets: Mapping[str, set[str]],
    directories: Iterable[str | None],
    paths: PathsSection,
    home: str | None,
    cwd: str | None,
    roots: Sequence[str],
    search_path: str | None,
    environ: Mapping[str, str],
    readable: Callable[[str], bool],
) -> DiskView:
    """
    Everything judging a call reads from the disk, read now, in one worker thread.

    The programs ``PATH`` finds (`path_programs`), the repositories'
    persistence points (`gateway.persistence_points`), where the call's
    ``targets`` (`disk_targets`) lead through links, and the repository
    each of the git ``directories`` would use (`gateway.inspect_repository`).
    One hand-off to a thread for all of it: each costs the event loop
    and the thread a wake-up, which is most of what a small call's look
    at the disk costs. Its CPU time counts against the review's budget.

    A disk that hangs (a stale network mount): the gateway answers at the
    approver's deadline, and on that cancellation this task ends at once,
    leaving the thread to finish on its own.
    """
    directories = tuple(directories)

    def look() -> DiskView:
        # Done for the review (the thread runs in its context): it counts against its budget.
        started = thread_cpu_seconds()
        try:
            programs, open_to_writes = path_programs(
                plans, search_path=search_path, paths=paths, home=home, cwd=cwd
            )
            points = _points(plans, effects, home=home, cwd=cwd, roots=roots, environ=environ)
            pointed = with_points(paths, points)
            links = _linked(plans, targets, paths=pointed, home=home, cwd=cwd, readable=readable)
            inspections = _inspections(
                directories, home=home, cwd=cwd, roots=roots, environ=environ
            )
        finally:
            charge(thread_cpu_seconds() - started)
        return DiskView(
            programs=programs,
            open_to_writes=open_to_writes,
            points=points,
            paths=pointed,
            links=links,
            inspections=inspections,
        )

    return await anyio.to_thread.run_sync(look, abandon_on_cancel=True)


def point_writes(
    plans: Iterable[Plan],
    effects: Iterable[Effect],
    *,
    paths: PathsSection,
    points: PersistencePoints,
    home: str | None,
    cwd: str | None,
) -> dict[str, tuple[str, ...]]:
    """
    The writes that land in a repository's own persistence point: ``persistence`` for each, keyed as `through_links` looks them up.

    ``paths`` already holds the points (`with_points`). When where hooks
    lie is not known (`PersistencePoints.unknown`), every write may land in
    one: its place is ``unknown``.
    """
    if not points.patterns and points.unknown is None:
        return {}
    plans = list(plans)
    context = path_context(paths, cwd, home)
    options = glob_options(plans)
    found: dict[str, tuple[str, ...]] = {}
    for write in _writes(plans, effects):
        key = _link_key(write)
        if key is None:
            continue
        if points.unknown is not None:
            found[_POINT + key] = ("unknown",)
            continue
        value = absolute(write.path.value, home, cwd)
        if value is None or "persistence" in write.path.classes:
            continue
        classes = classify_path(
            value, context, recursive=write.recursive, pattern=write.path.pattern, options=options
        )
        if "persistence" in classes:
            found[_POINT + key] = ("persistence",)
    return found


def _with_classes(path: EffectPath, extra: Iterable[str]) -> EffectPath:
    both = set(path.classes).union(extra)
    if both == set(path.classes):
        return path
    return msgspec.structs.replace(path, classes=tuple(c for c in PATH_CLASSES if c in both))


def through_links(
    effects: Sequence[Effect], links: Mapping[str, tuple[str, ...]]
) -> Sequence[Effect]:
    """The effects, each path with the classes of where its links lead as well as its own."""
    if not links:
        return effects
    out: list[Effect] = []
    for effect in effects:
        key = _link_key(effect)
        if key is None or not isinstance(effect, Read | Write):
            out.append(effect)
            continue
        extra = list(links.get(key, ()))
        if isinstance(effect, Read) and effect.recursive and not effect.metadata:
            extra += links.get(_WALK + str(effect.path.value), ())
        if isinstance(effect, Read):
            extra += links.get(_PLACE + str(effect.path.value), ())
        else:
            extra += links.get(_POINT + key, ())
        path = _with_classes(effect.path, extra)
        out.append(effect if path is effect.path else msgspec.structs.replace(effect, path=path))
    return out


def walked_paths(
    found: Sequence[EffectPath], links: Mapping[str, tuple[str, ...]]
) -> Sequence[EffectPath]:
    """The paths ``find`` walks, which a ``-exec`` command's ``{}`` stands for, with the classes of the files below them."""
    if not links:
        return found
    return [_with_classes(path, links.get(_WALK + str(path.value), ())) for path in found]
