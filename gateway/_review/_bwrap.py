"""
Bubblewrap: the kernel boundary a confined run stands in.

`layout` turns a `Confinement` into the options of ``bwrap`` (Debian
``bubblewrap``; what Claude Code's and Codex's Linux sandboxes use): new
user, PID and IPC namespaces, and a network namespace of its
own unless the confinement allows the network (then not even the host's
loopback is there); every capability dropped; a new session (no keystrokes
pushed into the caller's terminal); a fresh ``/proc`` and ``/dev``; each root
of `gateway._review._boundary.Places.mounts` bound read-only, bound writable, or an
empty ``tmpfs`` (scratch), shallowest first; then the paths of the
confinement's ``protect`` patterns that exist inside a writable root bound
read-only over themselves, and the paths of its ``hide`` patterns that exist
where the run could see them covered: a file by an empty read-only file, a
directory by an empty read-only ``tmpfs``.

Where patterns are looked for: those anchored at a path (``/etc/shadow``,
``/home/u/.cargo/credentials*``) wherever they point; those that match
anywhere (``**/.env``, ``**/.git/hooks/**``) in the workspace and the
writable roots, by walking them (links are not followed: a link is judged
where it leads, and what it leads to is covered there; but what a link at a
persistence point leads to is protected too, as are the modules each
``site-packages/*.pth`` file the walk meets imports, and each socket and
named pipe is covered by an empty file). A path created during the run is
the run's own; `snapshot` and `changes` say afterwards what it changed in
the writable roots.

`unavailable` says why no boundary can be set up here (no ``bwrap``, no
user namespaces…), probed once per process: a caller then asks, never runs
the call bare.
"""

from __future__ import annotations

import glob
import os
import shutil
import stat
import subprocess  # noqa: TID251 -- probes bubblewrap with `true`; never runs planned text
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fnmatch import fnmatchcase
from functools import cache
from typing import Final, NamedTuple

import msgspec

from gateway._calls._confinement import Confinement
from gateway._programs._git_trust import persistence_points
from gateway._programs._startup import StartupUnknown, link_points, site_directory, startup_points
from gateway._review._boundary import Places, normal_path

__all__ = [
    "MAX_ENTRIES",
    "Change",
    "Layout",
    "bwrap_program",
    "changes",
    "command_argv",
    "environment",
    "layout",
    "not_confinable",
    "snapshot",
    "unavailable",
]

MAX_ENTRIES: Final = 400_000
"""The most entries the walk of the workspace and writable roots reads; beyond it the run is not set up."""

_NAMESPACES: Final = ("--unshare-user", "--unshare-pid", "--unshare-ipc")
"""
A user namespace (every capability dropped in it), a PID namespace (no
other process to see, signal or trace) and an IPC namespace (no other
process's shared memory). A UTS or cgroup namespace would add nothing
against a run without capabilities, and each costs start-up time.
"""
_ALWAYS: Final = (
    *_NAMESPACES,
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
)
_OURS: Final = ("/proc", "/dev")
"""Made fresh inside: never bound from the host (``/dev/shm`` as scratch is an empty tmpfs)."""

_PROBE_TIMEOUT: Final = 10.0


def bwrap_program(search_path: str | None = None) -> str | None:
    """The ``bwrap`` program on ``PATH`` (or ``search_path``), or ``None``."""
    return shutil.which("bwrap", path=search_path)


@cache
def _probe(program: str) -> str | None:
    argv = [
        program,
        *_ALWAYS,
        "--unshare-net",
        "--ro-bind",
        "/",
        "/",
        "--",
        shutil.which("true", path="/usr/bin:/bin") or "/bin/true",
    ]
    try:
        done = subprocess.run(  # noqa: S603 -- a fixed probe, no agent text
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"`{program}` cannot be started ({type(error).__name__})"
    if done.returncode != 0:
        said = " ".join(done.stderr.decode("utf-8", "replace").split())[:200]
        return f"`{program}` cannot set up namespaces here ({said or f'status {done.returncode}'})"
    return None


def unavailable(program: str | None) -> str | None:
    """
    Why no boundary can be set up here, as a clause, or ``None`` when one can.

    ``program`` is the ``bwrap`` to use (`bwrap_program`); the answer for a
    program is probed once per process by setting up a boundary around
    ``true``.
    """
    if program is None:
        return "bubblewrap (`bwrap`) is not installed"
    return _probe(program)


def not_confinable() -> str | None:
    """Why ``gateway run`` cannot set up a boundary on this machine (a clause), or ``None`` when it can."""
    return unavailable(bwrap_program())


def environment(confinement: Confinement, environ: Mapping[str, str]) -> dict[str, str]:
    """
    The environment a confined run gets: the variables its ``environment`` names, ``HOME`` its home.

    Examples:
        >>> box = Confinement(profile="p", environment=("PATH", "LC_*"), home="/home/u")
        >>> environment(box, {"PATH": "/usr/bin", "LC_ALL": "C", "GITHUB_TOKEN": "x", "HOME": "/h"})
        {'PATH': '/usr/bin', 'LC_ALL': 'C', 'HOME': '/home/u'}
    """
    names = confinement.environment
    kept = {
        name: value
        for name, value in environ.items()
        if any(
            fnmatchcase(name, entry) if entry.endswith("*") else name == entry for entry in names
        )
    }
    kept.pop("HOME", None)
    if confinement.home is not None:
        kept["HOME"] = confinement.home
    return kept


class Layout(NamedTuple):
    """
    The kernel's view of the file system for one run.

    Attributes:
        options: The options of ``bwrap`` (no command).
        hidden: The existing paths covered because they match ``hide``,
            and the sockets and named pipes (a host process may be at the
            other end: the run finds an empty file there).
        protected: The existing paths inside a writable root bound read-only
            because they match ``protect`` or ``points``.
        points: Persistence points the walk found that no pattern of the
            confinement names, as patterns: where links at persistence
            points lead, the modules ``.pth`` files import, the hooks and
            configuration of nested repositories. What a run changes there
            is persistence too (``run.changed``).
    """

    options: tuple[str, ...]
    hidden: tuple[str, ...]
    protected: tuple[str, ...]
    points: tuple[str, ...] = ()


def _exists(path: str) -> bool:
    return os.path.lexists(path)


def _anchored(patterns: Sequence[str]) -> Iterator[str]:
    """The existing paths an anchored pattern names (a trailing ``/**`` names its directory)."""
    for pattern in patterns:
        if not pattern.startswith("/") or pattern.startswith(_OURS):
            continue
        base = pattern.removesuffix("/**")
        if not glob.has_magic(base):
            if _exists(base):
                yield base
            continue
        yield from glob.iglob(base, recursive=True, include_hidden=True)


def _leads_out(entry: os.DirEntry[str]) -> bool:
    """Whether an entry is a socket or a named pipe (a host process may be at the other end); only what is no directory, file or link is looked at."""
    if (
        entry.is_dir(follow_symlinks=False)
        or entry.is_file(follow_symlinks=False)
        or entry.is_symlink()
    ):
        return False
    try:
        kind = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return False
    return stat.S_ISSOCK(kind) or stat.S_ISFIFO(kind)


def _walk(roots: Sequence[str], places: Places, limit: int) -> Iterator[tuple[str, str, bool]]:
    """
    ``(path, mark, is_directory)`` for every entry under ``roots`` that ``hide`` or ``protect`` marks.

    A ``.git`` neither marks is a ``repository`` (a nested repository, or a
    pointer to a git directory elsewhere); a link ``protect`` marks is a
    ``link`` (what it leads to is protected); a socket or named pipe neither
    marks is a ``socket`` (covered: a host process may be at the other end).

    A hidden directory is not entered; a protected one is, for what is
    hidden inside it. Links are not followed.

    Raises:
        OverflowError: More than ``limit`` entries.
    """
    seen = 0
    stack = list(roots)
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # unreadable here: nothing under it can be shown either
        for entry in entries:
            seen += 1
            if seen > limit:
                raise OverflowError(limit)
            is_directory = entry.is_dir(follow_symlinks=False)
            mark = places.mark(entry.path)
            if mark is not None and not entry.is_symlink():
                yield entry.path, mark, is_directory
            elif mark == "protected" or (
                mark is None and entry.is_symlink() and places.place(entry.path) == "protected"
            ):
                yield entry.path, "link", False  # also one inside a protected directory
            elif mark is None and entry.name == ".git":
                yield entry.path, "repository", is_directory
            elif mark is None and _leads_out(entry):
                yield entry.path, "socket", False
            if is_directory and mark != "hidden":
                stack.append(entry.path)


def layout(
    confinement: Confinement,
    *,
    cwd: str,
    empty_file: str,
    limit: int = MAX_ENTRIES,
    environ: Mapping[str, str] | None = None,
) -> Layout | str:
    """
    The ``bwrap`` options that build the confinement, or why it cannot be built (a clause).

    Args:
        confinement: The boundary.
        cwd: Where the run starts (inside a root the run can see).
        empty_file: An empty file to cover hidden files with.
        limit: The most entries to walk (`MAX_ENTRIES`).
        environ: The environment git's configuration is found with
            (``HOME``, ``GIT_CONFIG_*``); unset, this process's.
    """
    places = Places(confinement)
    cwd = normal_path(cwd)
    if places.place(cwd) not in ("readable", "writable", "protected"):
        return f"its working directory `{cwd}` is not inside the boundary"
    bare = Places(msgspec.structs.replace(confinement, hide=(), protect=()))
    options: list[str] = list(_ALWAYS)
    if not confinement.network:
        options.append("--unshare-net")
    for root, place in places.mounts():
        if root.startswith(_OURS) and place != "scratch":
            continue
        if place == "scratch":
            options += ["--tmpfs", root]
        elif not _exists(root):
            if place == "writable":
                return f"its writable root `{root}` does not exist"
            continue
        elif os.path.islink(root) and place == "readable":
            options += ["--symlink", os.readlink(root), root]
        elif place == "writable":
            options += ["--bind", root, root]
        else:
            options += ["--ro-bind", root, root]
    walked = tuple(dict.fromkeys((*confinement.workspace, *confinement.write)))
    walked = tuple(root for root in walked if bare.place(root) in ("readable", "writable"))
    try:
        marked = list(_walk(walked, places, limit))
    except OverflowError:
        return f"its workspace and writable roots hold more than {limit:,} entries to look through"
    hidden: dict[str, bool] = {}
    protected: dict[str, None] = {}
    repositories: list[str] = []
    found: dict[str, None] = {}  # points no pattern of the confinement names
    sites: dict[str, None] = {}
    for path, mark, is_directory in marked:
        if mark == "repository":
            repositories.append(os.path.dirname(path))
            if is_directory or bare.place(path) != "writable":
                continue  # git's own directory: its config and hooks are protected
        if mark in ("hidden", "socket"):
            hidden[path] = is_directory
        elif mark == "link":
            found.update(dict.fromkeys(link_points(path)))
        elif bare.place(path) == "writable":
            protected[path] = None
            directory, _, name = path.rpartition("/")
            if name.endswith(".pth") and site_directory(directory) == directory:
                sites[directory] = None
    for site in sites:
        try:
            found.update(dict.fromkeys(startup_points(site)))
        except StartupUnknown as why:
            return f"what Python runs at start is not known: {why}"
    points = persistence_points(repositories, environ=environ or os.environ)
    if points.unknown is not None:
        return f"where a repository in it keeps its hooks is not known: {points.unknown}"
    found.update(dict.fromkeys(points.patterns))
    for path in _anchored(confinement.hide):
        if bare.place(path) in ("readable", "writable") and not os.path.islink(path):
            hidden.setdefault(normal_path(path), os.path.isdir(path))
    for path in _anchored((*confinement.protect, *found)):
        path = normal_path(path)
        if bare.place(path) == "writable" and path not in hidden:
            protected.setdefault(path, None)
    for path in _pinned(protected, confinement.write, hidden):
        options += ["--bind", path, path]
    for path in sorted(protected, key=lambda p: p.count("/")):
        options += ["--ro-bind", path, path]
    for path, is_directory in sorted(hidden.items(), key=lambda item: item[0].count("/")):
        if any(other != path and path.startswith(other + "/") for other in hidden):
            continue  # inside a hidden directory, which is empty
        if is_directory:
            options += ["--tmpfs", path, "--remount-ro", path]
        else:
            options += ["--ro-bind", empty_file, path]
    options += ["--chdir", cwd]
    return Layout(tuple(options), tuple(hidden), tuple(protected), tuple(found))


def _pinned(
    protected: Iterable[str], writable: Sequence[str], hidden: Mapping[str, bool]
) -> list[str]:
    """
    The directories between a writable root and each protected path, shallowest first.

    Bound onto themselves, they become mount points, which the kernel never
    lets a run rename or remove: otherwise ``mv .git .git-old && mkdir -p
    .git/hooks`` would carry the read-only hooks away with their directory
    and leave new ones in their place on the real file system.

    Examples:
        >>> _pinned(["/w/.git/hooks", "/w/.git/config", "/w/a/b/.envrc"], ["/w"], {})
        ['/w/.git', '/w/a', '/w/a/b']
    """
    found: set[str] = set()
    for path in protected:
        root = max(
            (r for r in writable if path.startswith(r.rstrip("/") + "/")), key=len, default=None
        )
        if root is None:
            continue
        directory = path.rsplit("/", 1)[0]
        while len(directory) > len(root.rstrip("/")) and directory not in hidden:
            if os.path.islink(directory):
                break  # a link is judged where it leads; nothing under it is pinned through it
            found.add(directory)
            directory = directory.rsplit("/", 1)[0]
    return sorted(found, key=lambda p: (p.count("/"), p))


def command_argv(program: str, options: Sequence[str], text: str) -> list[str]:
    """The argv that runs shell text with bash inside the boundary (no profile, no rc file)."""
    bash = "/bin/bash" if os.path.exists("/bin/bash") else "/usr/bin/bash"
    return [program, *options, "--", bash, "--noprofile", "--norc", "-c", text]


class Change(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One path a run created, changed or deleted in a writable root."""

    path: str
    change: str


def snapshot(roots: Sequence[str], limit: int = MAX_ENTRIES) -> dict[str, tuple[int, ...]] | None:
    """
    What the writable roots hold: each path with its type, size, inode and change time; ``None`` past ``limit``.

    Links are recorded, not followed.
    """
    found: dict[str, tuple[int, ...]] = {}
    stack = list(roots)
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if len(found) >= limit:
                return None
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found[entry.path] = (
                stat.S_IFMT(info.st_mode),
                info.st_mode & 0o7777,
                info.st_size,
                info.st_ino,
                info.st_mtime_ns,
                info.st_ctime_ns,
            )
            if stat.S_ISDIR(info.st_mode):
                stack.append(entry.path)
    return found


def changes(
    before: Mapping[str, tuple[int, ...]], after: Mapping[str, tuple[int, ...]]
) -> list[Change]:
    """
    What a run changed, from `snapshot` before and after: created, changed and deleted paths, sorted.

    A directory whose only change is in what it holds is not named.

    Examples:
        >>> changes({"/w/a": (1, 0, 1, 1, 1, 1)}, {"/w/a": (1, 0, 2, 1, 2, 2), "/w/b": (1, 0, 0, 2, 1, 1)})
        [Change(path='/w/a', change='changed'), Change(path='/w/b', change='created')]
    """
    found: list[Change] = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        if old is None:
            found.append(Change(path=path, change="created"))
        elif new is None:
            found.append(Change(path=path, change="deleted"))
        elif old[0] == new[0] == stat.S_IFDIR and old[1] == new[1]:
            continue
        else:
            found.append(Change(path=path, change="changed"))
    return found
