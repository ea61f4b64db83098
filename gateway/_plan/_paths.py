"""
Paths as values: resolve a word to the path bash would open, and classify it.

A word is resolved as bash expands it, as far as the text shows: quotes
removed (``/dev/"tcp"/…``, ``$'…'``, ``~/".bashrc"``), ``~``, ``$HOME`` and
``$PWD`` resolved symbolically, variables the call bound to literal text
substituted, and the result joined to the effective working directory and
normalised (``.``, ``..``, ``//``). What the text does not show (``$(…)``, a
variable from outside, ``~user``) makes the path *unknown*, never guessed.
Nothing here touches the file system.

Inside the planner a path is a string in one of three forms: absolute
(``/…``), under the home directory when it is not known (`HOME` + ``/…``), or
under the call's working directory when that is not known (`ROOT` + ``/…``);
the markers are characters no command can write. `shown` turns one into the
published form (``~/…``, ``/…``, ``./…``) and `classify` gives its classes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from fnmatch import fnmatchcase
from functools import lru_cache
from itertools import pairwise
from typing import Final

import msgspec

from gateway._calls._confinement import STANDARD_ENVIRONMENT
from gateway._calls._effects import PATH_CLASSES, EffectPath, PathClass
from gateway._calls._places import (
    SHELL_VARIABLES,
    STREAM_PATHS,
    SYSTEM_ROOTS,
    PathsSection,
    holds_home,
    pattern_regex,
)
from gateway._plan._globs import GlobOptions, could_match, is_glob
from gateway._plan._scope import Scope
from gateway._read._tree import (
    AnsiC,
    DoubleQuoted,
    Glob,
    Literal,
    Parameter,
    Part,
    ProcessSubstitution,
    SingleQuoted,
    Tilde,
    Word,
)

__all__ = [
    "HOME",
    "ROOT",
    "PathContext",
    "Resolved",
    "classify",
    "climbs_past_name",
    "effect_path",
    "expand_parts",
    "expand_tildes",
    "expand_word",
    "join",
    "literal_text",
    "path_context",
    "role_path",
    "shown",
    "start_directory",
]

HOME: Final = "\ue000"
"""Stands for the home directory in a path when it is not known."""
ROOT: Final = "\ue001"
"""Stands for the call's working directory in a path when it is not known."""
PIPE: Final = "/dev/fd/63"
"""What a process substitution ``<(…)`` gives as a path: a pipe (class ``stream``)."""
_GLOB_CHARACTERS: Final = frozenset("*?[")
_IFS: Final = frozenset(" \t\n")
_MAX_VALUES: Final = 8
_DESCRIPTOR_PATH: Final = re.compile(r"/dev/fd/[0-9]+")
"""A descriptor of the process (``/dev/fd/3``): a stream, as `STREAM_PATHS` are."""


class PathContext(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, cache_hash=True
):
    """
    What classifying a path needs to know, besides the path.

    Its hash is kept once computed: `classify` is cached by it, and hashing
    its patterns anew at every path cost more than most lookups save.

    Attributes:
        cwd: The call's working directory (absolute, normalised), if known:
            the workspace.
        start: Where the call's text starts when its tool names another
            directory (a shell tool's ``workdir``; absolute, normalised).
            Paths resolve there; the workspace stays ``cwd``.
        home: The home directory (absolute, normalised), if known.
        project_roots: More directories that count as ``workspace``.
        temp_roots: Directories that count as ``temp``.
        secret_patterns: Files that hold secrets.
        persistence_patterns: Files that make code run later.
        shown_variables: Variables from outside whose value may be shown
            (`gateway._calls._places.shown_variable`).
    """

    cwd: str | None = None
    start: str | None = None
    home: str | None = None
    project_roots: tuple[str, ...] = ()
    temp_roots: tuple[str, ...] = PathsSection().temp_roots
    secret_patterns: tuple[str, ...] = PathsSection().secret_patterns
    persistence_patterns: tuple[str, ...] = PathsSection().persistence_patterns
    shown_variables: tuple[str, ...] = SHELL_VARIABLES + STANDARD_ENVIRONMENT


def path_context(
    paths: PathsSection, cwd: str | None, home: str | None = None, start: str | None = None
) -> PathContext:
    """The `PathContext` of a call: its working directory (and where its text starts), and the ``[paths]`` table."""
    own_home = paths.home or home
    return PathContext(
        cwd=normalise(cwd) if cwd and cwd.startswith("/") else None,
        start=normalise(start) if start and start.startswith("/") else None,
        home=normalise(own_home)
        if own_home and own_home.startswith("/") and own_home != "/"
        else None,
        project_roots=tuple(normalise(root) for root in paths.project_roots),
        temp_roots=tuple(normalise(root) for root in paths.temp_roots),
        secret_patterns=paths.secret_patterns + paths.extra_secret_patterns,
        persistence_patterns=paths.persistence_patterns + paths.extra_persistence_patterns,
        shown_variables=SHELL_VARIABLES
        + (STANDARD_ENVIRONMENT if paths.shown_variables is None else paths.shown_variables)
        + paths.extra_shown_variables,
    )


def start_directory(context: PathContext) -> str:
    """Where the call starts: the directory its tool names, its working directory, or `ROOT` when that is not known."""
    if context.start is not None:
        return context.start
    return context.cwd if context.cwd is not None else ROOT


# ───────────────────────── normalising ─────────────────────────


def normalise(path: str) -> str:
    """
    Fold ``.``, ``..`` and ``//`` lexically, as bash's ``cd`` does (not following links).

    A path starting with a marker keeps the ``..`` that climb above it.
    """
    if path.startswith((HOME, ROOT)):
        anchor, rest = path[0], path[1:]
        if not rest or _folded(rest):
            return path
    elif path.startswith("/"):
        anchor, rest = "/", path
        if rest == "/" or _folded(rest):
            return path
    else:
        anchor, rest = "", path
        if rest and _folded("/" + rest):
            return path
    parts: list[str] = []
    for piece in rest.split("/"):
        if piece in ("", "."):
            continue
        if piece == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif anchor != "/":
                parts.append("..")
            continue
        parts.append(piece)
    if anchor == "/":
        return "/" + "/".join(parts)
    if anchor:
        return anchor + "".join("/" + part for part in parts)
    return "/".join(parts) or "."


def climbs_past_name(text: str) -> bool:
    """
    True when folding ``text`` drops a name before a ``..`` (``a/../b``), which the kernel would follow if it is a link.

    bash's ``cd`` folds such a path lexically, but a program given it opens
    ``a``'s target's parent: ``link/../x`` with ``link -> ~/.ssh/keys`` is
    ``~/.ssh/x``. Only the disk tells (the rules approver looks, for a path
    written as plain text).

    Examples:
        >>> climbs_past_name("link/../x"), climbs_past_name("../x"), climbs_past_name("a/./b")
        (True, False, False)
    """
    pieces = text.split("/")
    return any(
        piece == ".." and before not in ("", ".", "..") for before, piece in pairwise(pieces)
    )


def literal_text(part: Part) -> str | None:
    """The text of a part that expands nothing (quotes removed), else ``None``."""
    if isinstance(part, Literal | SingleQuoted):
        return part.text
    if isinstance(part, DoubleQuoted) and not part.locale:
        texts = [literal_text(inner) for inner in part.parts]
        return None if any(t is None for t in texts) else "".join(t or "" for t in texts)
    return None


def _folded(rest: str) -> bool:
    """``/a/b`` with nothing to fold: no empty, ``.`` or ``..`` piece, no trailing slash (most paths)."""
    return rest[0] == "/" and "//" not in rest and "/." not in rest and rest[-1] != "/"


def join(directory: str | None, path: str) -> str | None:
    """``path`` resolved against ``directory`` (``None``: unknown), normalised."""
    if path.startswith(("/", HOME, ROOT)):
        return normalise(path)
    if directory is None:
        return None
    return normalise(f"{directory}/{path}")


def _concrete(path: str, context: PathContext) -> str:
    """The path with the markers replaced by what they stand for, when that is known."""
    if HOME in path[1:] and context.home is not None:
        # A home inside a name (`ls a=~/x` names `./a=/home/amy/x`).
        path = path[:1] + path[1:].replace(HOME, context.home.rstrip("/"))
    if path.startswith(HOME) and context.home is not None:
        return normalise(context.home + path[1:])
    if path.startswith(ROOT) and context.cwd is not None:
        return normalise(context.cwd + path[1:])
    return path


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def shown(path: str, context: PathContext) -> str:
    """The published form of a path: ``~/…`` under the home directory, ``./…`` under an unknown cwd."""
    path = _concrete(path, context)
    if context.home is not None and _under(path, context.home):
        path = HOME + path[len(context.home) :]
    if path.startswith(HOME):
        return "~" + path[1:]
    if path.startswith(ROOT):
        return "." + path[1:]
    return path


# ───────────────────────── classes ─────────────────────────


def _fold(text: str) -> str:
    """
    A path or pattern as names are compared: case and Unicode normalisation folded.

    macOS's and Windows' file systems find ``.GIT/hooks`` at ``.git/hooks``
    and ``.Env`` at ``.env``: the patterns match whatever case a path is
    written in, everywhere (on a file system that tells them apart, a
    false match only asks).
    """
    return unicodedata.normalize("NFC", text).casefold()


@lru_cache(maxsize=64)
def _patterns(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """All of ``patterns``, folded, as one regex (a folded path matches it when it matches one)."""
    return re.compile(
        "|".join(f"(?:{pattern_regex(_fold(p)).pattern})" for p in patterns) or "(?!)", re.DOTALL
    )


def _matches_patterns(
    concrete: str,
    forms: Sequence[str],
    patterns: tuple[str, ...],
    context: PathContext,
    *,
    glob: GlobOptions | None,
    below: bool,
    contents: bool,
) -> bool:
    """
    Whether a path is one of ``patterns``: the one place a path is matched against them.

    ``forms`` are the path's spellings (``~/…`` and absolute); ``glob``: the
    path is a glob, which matches when a file it may match (or, ``below``,
    hold) is one of them; ``contents``: the effect reaches what the
    directory holds, which matches when it may hold one. Compared folded
    (`_fold`).
    """
    if any(_patterns(patterns).fullmatch(_fold(form)) for form in forms):
        return True
    if glob is None and not contents:
        return False
    folded = _fold(concrete)
    absolute = _folded_absolute(patterns, context.home)
    if glob is not None and any(
        could_match(folded, p, below=below, options=glob) for p in absolute
    ):
        return True
    return contents and _contains(folded, absolute)


@lru_cache(maxsize=64)
def _folded_absolute(patterns: tuple[str, ...], home: str | None) -> tuple[str, ...]:
    """The patterns with ``~/`` spelled as the home directory (the marker when it is not known), folded."""
    anchor = home if home is not None else HOME
    return tuple(_fold(anchor + p[1:] if p.startswith("~/") else p) for p in patterns)


def _contains(form: str, patterns: Sequence[str]) -> bool:
    """Whether a directory ``form`` may hold a file that one of ``patterns`` names."""
    pieces = [p for p in form.split("/") if p]
    for pattern in patterns:
        if pattern.startswith("**/"):
            parts = pattern[3:].split("/")
            for size in range(1, len(parts)):
                if len(pieces) >= size and all(
                    fnmatchcase(piece, part)
                    for piece, part in zip(pieces[-size:], parts[:size], strict=True)
                ):
                    return True
            continue
        fixed: list[str] = []
        parts = pattern.split("/")
        for part in parts:
            if _GLOB_CHARACTERS & set(part):
                break
            fixed.append(part)
        prefix = "/".join(fixed) or "/"
        directory = form.rstrip("/") or "/"
        # below the directory, or the directory itself with a glob to go
        # (`/var/tmp/krb5cc_*` in `/var/tmp`)
        if _under(prefix, directory) and (prefix != directory or len(fixed) < len(parts)):
            return True
    return False


@lru_cache(maxsize=8192)
def classify(
    path: str | None,
    context: PathContext,
    *,
    recursive: bool = False,
    pattern: bool = False,
    options: GlobOptions = frozenset(),
) -> tuple[PathClass, ...]:
    """
    The classes of a resolved path (in `PATH_CLASSES` order).

    Args:
        path: The path in the planner's form, or ``None`` when unknown.
        context: The call's working directory, home and patterns.
        recursive: The effect reaches everything below the path: the classes
            of files it may hold count too.
        pattern: The path is a glob bash matches against existing files: it
            has the classes of every path it could match (`could_match`).
        options: For a glob, the shell options in force (``dotglob``…).
    """
    if path is None:
        return ("unknown",)
    concrete = _concrete(path, context)
    form = shown(path, context)
    found: set[PathClass] = set()
    if concrete in STREAM_PATHS or _DESCRIPTOR_PATH.fullmatch(concrete):
        return ("stream",)
    climbs = "/.." in concrete or concrete.endswith("..")
    if concrete.startswith(ROOT) and not concrete.startswith(ROOT + "/.."):
        found.add("workspace")
    if concrete.startswith("/") and any(_under(concrete, root) for root in _workspace(context)):
        found.add("workspace")
    temp = concrete.startswith("/") and any(_under(concrete, root) for root in context.temp_roots)
    if temp:
        found.add("temp")
    in_home = (concrete.startswith(HOME) and not concrete.startswith(HOME + "/..")) or (
        context.home is not None and concrete.startswith("/") and _under(concrete, context.home)
    )
    if in_home and "workspace" not in found:
        found.add("home")
    if concrete == "/" or (
        concrete.startswith("/") and not temp and any(_under(concrete, r) for r in SYSTEM_ROOTS)
    ):
        found.add("system")
    if not found:
        found.add("other")
    if pattern:
        found.update(_glob_places(concrete, context, options))
    forms = (form,) if form == concrete else (form, concrete)
    # A recursive effect above an anchor (`rm -rf /`, `rm -rf ~/..`) reaches everything.
    everything = recursive and (concrete == "/" or climbs)
    contents = recursive and not climbs and not pattern
    kinds: tuple[tuple[PathClass, tuple[str, ...]], ...] = (
        ("secret", context.secret_patterns),
        ("persistence", context.persistence_patterns),
    )
    for kind, patterns in kinds:
        if everything or _matches_patterns(
            concrete,
            forms,
            patterns,
            context,
            glob=options if pattern else None,
            below=recursive,
            contents=contents,
        ):
            found.add(kind)
    return tuple(c for c in PATH_CLASSES if c in found)


def _workspace(context: PathContext) -> tuple[str, ...]:
    """
    The directories whose paths are ``workspace``: the working directory and the project roots.

    Not one that holds the home directory (`holds_home`: ``/``, the home
    directory or a directory above it): a session started there does not make
    the home directory its workspace, and paths there keep their own classes.
    """
    return tuple(
        root
        for root in (context.cwd, *context.project_roots)
        if root is not None and not holds_home(root, context.home)
    )


def _glob_places(concrete: str, context: PathContext, options: GlobOptions) -> set[PathClass]:
    """
    The places a glob may reach besides the one its text lies in (``/t?p/x`` may be in ``/tmp``).

    A root below the directory the glob's text fixes (``/`` for ``/t?p/x``)
    counts when some path under it could match the glob (`could_match`);
    the roots around that directory are the text's own classes.
    """
    fixed: list[str] = []
    for piece in concrete.split("/"):
        if is_glob(piece):
            break
        fixed.append(piece)
    prefix = "/".join(fixed) or "/"
    roots: list[tuple[PathClass, str]] = [("workspace", root) for root in _workspace(context)]
    roots += [("temp", root) for root in context.temp_roots]
    roots += [("system", root) for root in SYSTEM_ROOTS]
    if context.home is not None:
        roots.append(("home", context.home))
    found: set[PathClass] = set()
    for kind, root in roots:
        if (
            kind not in found
            and _under(root, prefix)
            and root != prefix
            and could_match(concrete, f"{root}/**", options=options)
        ):
            found.add(kind)
    return found


def role_path(written: str, spelled: str, context: PathContext) -> EffectPath:
    """
    A path known only by its role (``.git/config`` of a git directory somewhere): no value,
    its location ``unknown``, and the content classes its spelling has wherever it is.
    """
    found = classify(normalise(f"{ROOT}/{spelled}"), context)
    contents = {c for c in found if c in ("secret", "persistence")}
    return EffectPath(
        written=written,
        value=None,
        classes=tuple(c for c in PATH_CLASSES if c in contents or c == "unknown"),
    )


def effect_path(
    written: str,
    path: str | None,
    context: PathContext,
    *,
    recursive: bool = False,
    pattern: bool = False,
    options: GlobOptions = frozenset(),
) -> EffectPath:
    """
    The published `EffectPath` of a resolved path (``None``: unknown).

    ``options``: for a glob (``pattern``), the shell options in force.

    Pure, and asked again and again for the same few paths (the working
    directory of every command, the files an agent keeps reading): short
    ones are kept (`_EFFECT_PATHS`).
    """
    options = options if pattern else frozenset()
    key = (written, path, context, recursive, pattern, options)
    found = _EFFECT_PATHS.get(key)
    if found is not None:
        return found
    found = EffectPath(
        written=written,
        value=None if path is None else shown(path, context),
        classes=classify(path, context, recursive=recursive, pattern=pattern, options=options),
        pattern=pattern and path is not None,
    )
    if len(written) + (0 if path is None else len(path)) <= _EFFECT_PATH_KEPT_CHARACTERS:
        if len(_EFFECT_PATHS) >= _EFFECT_PATHS_HELD:
            _EFFECT_PATHS.clear()
        _EFFECT_PATHS[key] = found
    return found


_EFFECT_PATHS: dict[tuple[str, str | None, PathContext, bool, bool, GlobOptions], EffectPath] = {}
_EFFECT_PATHS_HELD: Final = 4096
"""How many published paths are kept (each key at most `_EFFECT_PATH_KEPT_CHARACTERS` long)."""
_EFFECT_PATH_KEPT_CHARACTERS: Final = 512


# ───────────────────────── words ─────────────────────────


class Resolved(msgspec.Struct, frozen=True):
    """What a word expands to, when the text shows it: its possible values, and whether it is a glob."""

    values: tuple[str, ...] | None
    pattern: bool = False


_UNKNOWN: Final = Resolved(None)

EXPANSION_PER_CHARACTER: Final = 16
"""Characters of expanded values a planning may make per character of its text (plus `EXPANSION_FLOOR`).

Values grow faster than the text that builds them (``a=$a$a`` doubles one
with each eight characters); past this allowance a word's value is unknown,
so that planning stays linear in the text, and the plan is unmeasured: bash
would build the value, and printing it floods the host (``echo $a``). The
corpora's longest expanded value is about a hundred characters."""

EXPANSION_FLOOR: Final = 65_536
"""Characters of expanded values every planning may make on top of `EXPANSION_PER_CHARACTER`."""

_ALLOWANCE: Final[ContextVar[list[int] | None]] = ContextVar("expansion_allowance", default=None)


@contextmanager
def expansion_allowance(length: int) -> Iterator[list[int]]:
    """
    Within the block, words expand to at most the allowance of a text of ``length`` characters.

    It yields what is left of the allowance (one number, below zero once spent).
    """
    left = [EXPANSION_PER_CHARACTER * length + EXPANSION_FLOOR]
    token = _ALLOWANCE.set(left)
    try:
        yield left
    finally:
        _ALLOWANCE.reset(token)


def _part_values(
    part: Part, scope: Scope, *, first: bool, quoted: bool, state: list[bool]
) -> tuple[str, ...] | None:
    """
    The possible texts of one part (``None``: unknown). ``state[0]`` is set for a glob.

    With ``state[1]`` set, the texts are spelled for a glob: a pattern
    character that is not a `Glob` part is escaped (``'*'.[ch]`` is ``\\*.[ch]``).
    """
    texts = _raw_part_values(part, scope, first=first, quoted=quoted, state=state)
    if texts is None or not state[1] or isinstance(part, Glob | DoubleQuoted):
        return texts
    return tuple(_ESCAPED.sub(r"\\\g<0>", text) for text in texts)


_ESCAPED: Final = re.compile(r"[\\*?\[\]]")


def _raw_part_values(
    part: Part, scope: Scope, *, first: bool, quoted: bool, state: list[bool]
) -> tuple[str, ...] | None:
    if isinstance(part, Literal | SingleQuoted):
        return (part.text,)
    if isinstance(part, AnsiC):
        return (part.text,) if part.exact else None
    if isinstance(part, DoubleQuoted):
        if part.locale:
            return None
        return _parts_values(part.parts, scope, quoted=True, state=state, first=first)
    if isinstance(part, Tilde):
        # The reader makes a tilde part only where bash expands one: first in
        # a word, or after the `=` or a `:` of an assignment or of a word
        # shaped like one (`dd of=~/f`).
        if part.text == "~":
            return _home(scope)
        if part.text == "~+":
            return _directory_value(scope)
        return None  # `~user`, `~-`
    if isinstance(part, Parameter):
        return _parameter_values(part, scope, quoted=quoted)
    if isinstance(part, Glob):
        if quoted:  # pragma: no cover - a glob part is never inside quotes
            return (part.text,)
        state[0] = True
        return (part.text,)
    if isinstance(part, ProcessSubstitution):
        return (PIPE,)
    return None


def _home(scope: Scope) -> tuple[str, ...] | None:
    if scope.bound("HOME"):
        values = scope.values("HOME")
        return None if values is None else tuple(sorted(values))
    return (HOME,)


def _directory_value(scope: Scope) -> tuple[str, ...] | None:
    if scope.bound("PWD"):
        values = scope.values("PWD")
        return None if values is None else tuple(sorted(values))
    directory = scope.directory
    return None if directory is None else (directory,)


def _parameter_values(part: Parameter, scope: Scope, *, quoted: bool) -> tuple[str, ...] | None:
    if part.special or part.indirect or part.length or part.subscript is not None:
        return None
    if part.operator is not None:
        return None
    if part.name == "HOME":
        values = _home(scope)
    elif part.name == "PWD":
        values = _directory_value(scope)
    else:
        found = scope.values(part.name)
        values = None if found is None else tuple(sorted(found))
    if values is None:
        return None
    if not quoted and any((_IFS | _GLOB_CHARACTERS) & set(v) or not v for v in values):
        return None  # split into several words, globbed, or dropped when empty
    return values


def _parts_values(
    parts: Sequence[Part], scope: Scope, *, quoted: bool, state: list[bool], first: bool
) -> tuple[str, ...] | None:
    results: tuple[str, ...] = ("",)
    for index, part in enumerate(parts):
        texts = _part_values(part, scope, first=first and index == 0, quoted=quoted, state=state)
        if texts is None:
            return None
        results = tuple(dict.fromkeys(a + b for a in results for b in texts))
        if len(results) > _MAX_VALUES:
            return None
    allowance = _ALLOWANCE.get()
    if allowance is not None:
        allowance[0] -= sum(map(len, results))
        if allowance[0] < 0:
            return None
    return results


def expand_parts(parts: Sequence[Part], scope: Scope, *, first: bool = True) -> Resolved:
    """What a sequence of parts (a word, or the value half of ``NAME=VALUE``) expands to."""
    state = [False, False]
    values = _parts_values(parts, scope, quoted=False, state=state, first=first)
    if values is None:
        return _UNKNOWN
    if state[0]:  # a glob: spelled again, its written pattern characters escaped
        state[1] = True
        values = _parts_values(parts, scope, quoted=False, state=state, first=first)
        if values is None:  # pragma: no cover - the same parts, the same answer
            return _UNKNOWN
    return Resolved(values, pattern=state[0])


def expand_tildes(value: str, scope: Scope) -> str | None:
    """
    A literal assignment value with bash's tilde expansion (``~`` first or after ``:``).

    ``None`` when a ``~user`` form names another user's home.
    """
    if "~" not in value:
        return value
    pieces = value.split(":")
    out: list[str] = []
    for piece in pieces:
        if piece == "~" or piece.startswith("~/"):
            home = _home(scope)
            if home is None or len(home) != 1:
                return None
            piece = home[0] + piece[1:]
        elif piece.startswith("~") and not piece.startswith("~/"):
            head = piece.split("/", 1)[0]
            if head in ("~+", "~-") or head[1:].replace("_", "").replace("-", "").isalnum():
                return None
        out.append(piece)
    return ":".join(out)


def expand_word(word: Word, scope: Scope) -> Resolved:
    """
    What ``word`` expands to, when the text shows it.

    Literal text, ``~`` (as `HOME`), ``$HOME``, ``$PWD`` and variables the
    call bound to literal text are expanded; a value that would be split into
    several words or dropped makes the word unknown. A glob is kept as a
    pattern (`Resolved.pattern`).
    """
    if word.value is not None:
        return Resolved((word.value,))
    return expand_parts(word.parts, scope)
