"""
The boundary of a profile for one call: the confinement a verdict carries, and where a path lies in it.

`resolve_confinement` turns a profile's `ConfinementSection` into the
`Confinement` of one call: its templates resolved against the call's
workspace, the home directory, ``PATH`` and the ``[paths]`` table. Some
calls cannot be confined soundly (no working directory; a workspace that is
the whole file system, a system directory or the home directory): then it
says why, in a clause, and the call is asked about as it would be without a
boundary.

`Places` is the one place that says where a path lies for a confinement:
``readable``, ``writable``, ``protected`` (kept read-only inside a writable
root), ``scratch`` (the run's own, gone when it ends), ``hidden`` or
``outside`` (not there at all). The runner builds the kernel's view of the
file system from the same confinement, and the rules ask it about the paths
a plan names. It is lexical, over absolute paths; it never reads the file
system, so a link is the caller's to resolve.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final, Literal, NamedTuple

from gateway._calls._confinement import (
    HIDE_TEMPLATE,
    PROTECT_TEMPLATE,
    STANDARD_ENVIRONMENT,
    STANDARD_TEMPLATE,
    Confinement,
    ConfinementSection,
)
from gateway._calls._places import (
    DEVICES,
    PROCESS_VIEWS,
    STREAM_PATHS,
    SYSTEM_READABLE,
    SYSTEM_ROOTS,
    TOOL_PLACES,
    PathsSection,
    holds_home,
    pattern_regex,
    tool_place,
)

__all__ = [
    "PLACES",
    "Place",
    "Places",
    "confinement_problem",
    "normal_path",
    "resolve_confinement",
    "workspace_roots",
]

Place = Literal["readable", "writable", "protected", "scratch", "hidden", "outside"]
"""
Where a path lies for a confinement.

``readable``: the run sees it as it is and cannot change it. ``writable``: it
sees and changes the real file. ``protected``: inside a writable root, but
kept read-only (what makes code run later). ``scratch``: the run's own, empty
when it starts, gone when it ends (``/tmp``, the home directory outside the
workspace, the null device). ``hidden``: the run can neither read nor change
it (a secret; a view of another process). ``outside``: not there at all.
"""

PLACES: Final[tuple[Place, ...]] = (
    "readable",
    "writable",
    "protected",
    "scratch",
    "hidden",
    "outside",
)
"""Every `Place`."""

_RANK: Final = {"read": 0, "scratch": 1, "write": 2}
_KIND: Final[dict[str, Place]] = {"read": "readable", "scratch": "scratch", "write": "writable"}


def normal_path(path: str) -> str:
    """
    An absolute path with ``.``, ``..``, empty segments and a trailing slash folded away (lexically).

    Raises:
        ValueError: The path is not absolute.

    Examples:
        >>> normal_path("/work//app/./src/../x/")
        '/work/app/x'
    """
    if not path.startswith("/"):
        raise ValueError(f"Places are asked about absolute paths, not {path!r}.")
    parts: list[str] = []
    for piece in path.split("/"):
        if piece in ("", "."):
            continue
        if piece == "..":
            if parts:
                parts.pop()
            continue
        parts.append(piece)
    return "/" + "/".join(parts)


def _under(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root + "/")


def workspace_roots(cwd: str | None, paths: PathsSection) -> tuple[str, ...]:
    """The workspace of a call: its working directory (when absolute), then each ``[paths]`` project root."""
    found = [normal_path(cwd)] if cwd and cwd.startswith("/") else []
    found += [normal_path(root) for root in paths.project_roots]
    return tuple(dict.fromkeys(found))


def confinement_problem(
    workspace: Sequence[str], home: str | None, temp_roots: Sequence[str] = ()
) -> str | None:
    """
    Why a call with this workspace cannot be confined soundly, as a clause, or ``None``.

    A boundary around the whole file system, a system directory (outside the
    home and temporary directories), or the home directory or a directory
    above it would let what runs inside read or change what the boundary is for.

    Examples:
        >>> confinement_problem(("/home/u",), "/home/u")
        'its workspace `/home/u` holds the home directory, whose files a boundary must hide'
        >>> confinement_problem(("/root/app",), "/root") is None
        True
    """
    if not workspace:
        return "the call gives no working directory, so its workspace is not known"
    for root in workspace:
        if root == "/":
            return "its workspace is the whole file system"
        if holds_home(root, home):
            return (
                f"its workspace `{root}` holds the home directory, whose files a boundary must hide"
            )
        if (home is not None and _under(root, home)) or any(
            _under(root, normal_path(temp)) for temp in temp_roots
        ):
            continue
        if any(_under(root, system) for system in SYSTEM_ROOTS):
            return f"its workspace `{root}` is a system directory"
    return None


class _Call(NamedTuple):
    """What the templates of a root list are resolved against."""

    workspace: tuple[str, ...]
    home: str | None
    paths: PathsSection
    search_path: str | None


def _roots(entries: Iterable[str], call: _Call) -> tuple[str, ...]:
    found: list[str] = []
    for entry in entries:
        if entry == "{workspace}":
            found.extend(call.workspace)
        elif entry == "{system}":
            found.extend(SYSTEM_READABLE)
        elif entry == "{tmp}":
            found.extend(normal_path(root) for root in call.paths.temp_roots)
        elif entry == "{toolchains}":
            found.extend(_toolchains(call.home, call.search_path))
        elif entry == "~" or entry.startswith("~/"):
            if call.home is not None:
                found.append(normal_path(call.home + entry[1:]))
        else:
            found.append(normal_path(entry))
    return tuple(dict.fromkeys(found))


def _toolchains(home: str | None, search_path: str | None) -> list[str]:
    """The tool places under the home directory, and the place of each ``PATH`` directory outside the system's."""
    found = [normal_path(home + place[1:]) for place in TOOL_PLACES] if home is not None else []
    for entry in (search_path or "").split(":"):
        place = tool_place(entry, home)
        if place is None or any(_under(place, root) for root in SYSTEM_READABLE):
            continue
        if home is not None and _under(home, place):
            continue  # never the home directory, nor a directory above it
        found.append(place)
    return found


def _patterns(
    entries: Iterable[str], template: str, given: Sequence[str], home: str | None
) -> tuple[str, ...]:
    found: list[str] = []
    for entry in entries:
        for pattern in given if entry == template else (entry,):
            if pattern.startswith("~/"):
                if home is None:
                    continue  # nothing is under a home directory there is not
                pattern = home.rstrip("/") + pattern[1:]
            found.append(pattern)
    return tuple(dict.fromkeys(found))


def resolve_confinement(
    profile: str,
    section: ConfinementSection,
    *,
    cwd: str | None,
    home: str | None,
    paths: PathsSection,
    search_path: str | None = None,
    secret_files: Sequence[str] = (),
) -> Confinement | str:
    """
    The confinement of one call under a profile, or why the call cannot be confined (a clause).

    Args:
        profile: The profile's name.
        section: Its ``[profiles.NAME.confinement]`` table.
        cwd: The call's working directory.
        home: The home directory (absolute, not ``/``), if there is one.
        paths: The ``[paths]`` table: project roots, temporary directories,
            secret and persistence patterns.
        search_path: ``PATH`` as the run will have it (its directories under
            the home directory become readable: ``{toolchains}``).
        secret_files: Files of the gateway's own that hold a secret
            (`gateway.config.secret_files`): hidden with ``{secrets}``.

    Examples:
        >>> from gateway._settings._config import default_profiles
        >>> box = resolve_confinement(
        ...     "workspace-write", default_profiles()["workspace-write"].confinement,
        ...     cwd="/work/app", home="/home/u", paths=PathsSection())
        >>> box.write, Places(box).place("/home/u/.ssh/id_rsa")
        (('/work/app',), 'hidden')
    """
    home = normal_path(home) if home and home.startswith("/") and home.rstrip("/") else None
    workspace = workspace_roots(cwd, paths)
    problem = confinement_problem(workspace, home, paths.temp_roots)
    if problem is not None:
        return problem
    call = _Call(workspace, home, paths, search_path)
    secrets = (
        *paths.secret_patterns,
        *paths.extra_secret_patterns,
        *(normal_path(path) + "/**" for path in secret_files if path.startswith("/")),
    )
    persistence = (
        *paths.persistence_patterns,
        *paths.extra_persistence_patterns,
    )
    environment = [
        name
        for entry in section.environment
        for name in (STANDARD_ENVIRONMENT if entry == STANDARD_TEMPLATE else (entry,))
    ]
    return Confinement(
        profile=profile,
        read=_roots(section.read, call),
        write=_roots(section.write, call),
        scratch=_roots(section.scratch, call),
        hide=_patterns(section.hide, HIDE_TEMPLATE, secrets, home),
        protect=_patterns(section.protect, PROTECT_TEMPLATE, persistence, home),
        network=section.network,
        environment=tuple(dict.fromkeys(environment)),
        home=home,
        workspace=workspace,
    )


class Places:
    """
    Where paths lie for one confinement (see `Place`): the one reading of its rules.

    In order: the run's own streams and descriptors (``/dev/stdout``,
    ``/dev/fd/3``) are ``scratch``; a view of another process
    (`gateway._calls._places.PROCESS_VIEWS`) or a path matching a ``hide`` pattern
    (or below one) is ``hidden``; a device of the run's own ``/dev`` is
    ``scratch``, and ``/proc`` (the
    run's own processes) is ``readable``; otherwise the deepest root that
    holds the path decides (at one path ``write`` over ``scratch`` over
    ``read``), and inside a writable root a path matching a ``protect``
    pattern (or below one) is ``protected``; under no root it is
    ``outside``. A ``..`` climbs out of a place only when that place is not
    hidden and not outside: what cannot be seen may be a link to anywhere.

    Examples:
        >>> box = Confinement(profile="p", read=("/usr",), write=("/w",), scratch=("/tmp",),
        ...                   hide=("**/.env",), protect=("**/.git/hooks/**",))
        >>> [Places(box).place(p) for p in ("/w/a.py", "/w/.git/hooks/x", "/w/.env", "/srv", "/usr/bin")]
        ['writable', 'protected', 'hidden', 'outside', 'readable']
    """

    __slots__ = ("_hide", "_hide_names", "_mounts", "_protect", "_protect_names", "confinement")

    def __init__(self, confinement: Confinement) -> None:
        self.confinement = confinement
        mounts: dict[str, Place] = {}
        ordered = sorted(
            (
                (root.count("/") if root != "/" else 0, _RANK[kind], root, kind)
                for kind, roots in (
                    ("read", confinement.read),
                    ("scratch", confinement.scratch),
                    ("write", confinement.write),
                )
                for root in roots
            ),
        )
        for _, _, root, kind in ordered:
            mounts[root] = _KIND[kind]
        self._mounts = mounts
        self._hide = _combined((*PROCESS_VIEWS, *confinement.hide))
        self._protect = _combined(confinement.protect)
        self._hide_names = _last_names((*PROCESS_VIEWS, *confinement.hide))
        self._protect_names = _last_names(confinement.protect)

    def mounts(self) -> tuple[tuple[str, Place], ...]:
        """The roots, shallowest first, each with the place it makes (the order a runner mounts them in)."""
        return tuple(self._mounts.items())

    def place(self, path: str) -> Place:
        """
        Where an absolute path lies.

        Raises:
            ValueError: The path is not absolute.
        """
        if not path.startswith("/"):
            raise ValueError(f"Places are asked about absolute paths, not {path!r}.")
        current = "/"
        for piece in path.split("/"):
            if piece in ("", "."):
                continue
            if piece == "..":
                if current == "/":
                    continue
                here = self._lexical(current)
                if here in ("hidden", "outside"):
                    return here
                current = current.rsplit("/", 1)[0] or "/"
                continue
            current = current.rstrip("/") + "/" + piece
        return self._lexical(current)

    def mark(self, path: str) -> Literal["hidden", "protected"] | None:
        """
        Whether a ``hide`` or a ``protect`` pattern matches this normalised absolute path itself.

        For a walk down a tree that does not enter what it found hidden:
        the directories above are not looked at (`place` does that).
        """
        name = path.rpartition("/")[2]
        if (
            self._hide_names.test(path, name)
            and self._hide is not None
            and self._hide.fullmatch(path)
        ):
            return "hidden"
        if (
            self._protect_names.test(path, name)
            and self._protect is not None
            and self._protect.fullmatch(path)
        ):
            return "protected"
        return None

    def _lexical(self, path: str) -> Place:
        """Where a normalised absolute path lies (`place` without ``..``)."""
        if path in STREAM_PATHS or _descriptor(path):
            return "scratch"  # the run's own streams, whatever a pattern says of /dev/fd
        if _matches_here_or_above(self._hide, path):
            return "hidden"
        if path in DEVICES:
            return "scratch"
        if _under(path, "/proc"):
            return "readable"
        if _under(path, "/dev"):
            return "outside"
        place: Place = "outside"
        probe = path
        while True:
            found = self._mounts.get(probe)
            if found is not None:
                place = found
                break
            if probe == "/":
                break
            probe = probe.rsplit("/", 1)[0] or "/"
        if place == "writable" and _matches_here_or_above(self._protect, path):
            return "protected"
        return place


def _descriptor(path: str) -> bool:
    """``/dev/fd/N``: one of the run's own descriptors."""
    return path.startswith("/dev/fd/") and path[8:].isdigit()


@lru_cache(maxsize=64)
def _combined(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile(
        "|".join(f"(?:{pattern_regex(pattern).pattern})" for pattern in patterns), re.DOTALL
    )


class _Names:
    """
    What the last name of a path must match for one of some patterns to match the path itself.

    A cheap test before the whole pattern (``**/.git/hooks/**`` names
    ``hooks``, ``**/*.pem`` names ``*.pem``): exact names, suffixes and
    prefixes are string tests; only other globs are regexes.
    """

    __slots__ = ("exact", "globs", "places", "prefixes", "suffixes")

    def __init__(self, patterns: tuple[str, ...]) -> None:
        exact: set[str] = set()
        prefixes: list[str] = []
        suffixes: list[str] = []
        globs: list[re.Pattern[str]] = []
        places: list[str] = []
        for pattern in patterns:
            name = pattern.removesuffix("/**").rpartition("/")[2]
            body = name.strip("*")
            if name in ("*", "**") and pattern.startswith("/"):
                # any name, under a fixed place: test the place instead
                places.append(re.split(r"[*?\[]", pattern, maxsplit=1)[0])
            elif not _GLOB_MAGIC & set(name):
                exact.add(name)
            elif not _GLOB_MAGIC & set(body) and name == "*" + body and body:
                suffixes.append(body)
            elif not _GLOB_MAGIC & set(body) and name == body + "*" and body:
                prefixes.append(body)
            else:
                globs.append(pattern_regex("*" if name == "**" else name))
        self.exact = frozenset(exact)
        self.prefixes = tuple(prefixes)
        self.suffixes = tuple(suffixes)
        self.globs = tuple(globs)
        self.places = tuple(places)

    def test(self, path: str, name: str) -> bool:
        return (
            name in self.exact
            or name.endswith(self.suffixes)
            or name.startswith(self.prefixes)
            or path.startswith(self.places)
            or any(glob.fullmatch(name) for glob in self.globs)
        )


_GLOB_MAGIC: Final = frozenset("*?[")


@lru_cache(maxsize=64)
def _last_names(patterns: tuple[str, ...]) -> _Names:
    return _Names(patterns)


def _matches_here_or_above(regex: re.Pattern[str] | None, path: str) -> bool:
    """Whether the path, or a directory it is in, matches (what is in a hidden directory is hidden)."""
    if regex is None:
        return False
    probe = path
    while probe != "/":
        if regex.fullmatch(probe):
            return True
        probe = probe.rsplit("/", 1)[0] or "/"
    return bool(regex.fullmatch("/"))
