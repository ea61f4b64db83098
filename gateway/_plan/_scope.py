"""
The shell state a command runs in, as far as the text shows it: directories and variables.

The planner walks a statement in the order bash runs it and carries a
`Scope`: where commands run (the call's working directory, then every ``cd``,
``pushd`` and ``popd`` in order; a subshell, a pipeline stage or a
substitution gets a copy, so its changes do not leak) and which variables the
call has bound to literal text. Where bash may take one of several paths (a
``cd`` that may fail before ``;``, the branches of an ``if``, a loop body run
any number of times), the scope holds every candidate; past a few candidates,
or after anything the text does not show (``cd "$d"``, ``eval "$x"``, a call
of a function), a value is *unknown* — never guessed.

Directories are kept in the planner's internal form (see `gateway._plan._paths`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

from gateway._plan._globs import GLOB_OPTIONS
from gateway._read._words import NAME

__all__ = ["BASH_INTEGERS", "MAX_CANDIDATES", "FunctionFacts", "Scope", "Values"]

MAX_CANDIDATES: Final = 4
"""Candidates a directory or a variable may have before it is unknown."""
BASH_INTEGERS: Final = frozenset(
    {"OPTIND", "RANDOM", "SRANDOM", "HISTCMD", "BASHPID", "EUID", "UID", "PPID", "SECONDS"}
)
"""
The variables bash itself gives the integer attribute (``declare -pi`` in a new
shell, interactive or not): a value assigned to one is evaluated as arithmetic
(``OPTIND='a[$(id)]'`` runs ``id``). ``SECONDS`` has not the attribute, but bash
evaluates a value ``declare``, ``mapfile`` or an array assignment gives it.
"""
_NAMEREF_DEPTH: Final = 8
"""Namerefs followed to the variable they name before the value is unknown (bash allows a chain)."""

Values = frozenset[str] | None
"""The literal values a variable may hold (``None``: unknown)."""


class FunctionFacts(NamedTuple):
    """What calling a function the call defines changes in the caller's shell."""

    moves: bool
    """Its body may change the working directory (``cd``, ``eval``, ``source``…)."""
    binds: frozenset[str] | None
    """The variables its body may bind (``None``: any)."""

    def join(self, other: FunctionFacts) -> FunctionFacts:
        """Either function may be the one called."""
        binds = None if self.binds is None or other.binds is None else self.binds | other.binds
        return FunctionFacts(self.moves or other.moves, binds)


_UNKNOWN_DIRECTORIES: Final[tuple[str | None, ...]] = (None,)


def _union_directories(groups: Iterable[tuple[str | None, ...]]) -> tuple[str | None, ...]:
    merged: dict[str | None, None] = {}
    for group in groups:
        merged.update(dict.fromkeys(group))
    if None in merged or len(merged) > MAX_CANDIDATES:
        return _UNKNOWN_DIRECTORIES
    return tuple(merged)


class Scope:
    """
    Where the next command runs and what the call has bound so far.

    Attributes:
        directories: The candidate working directories (``(None,)``: unknown).
        previous: The candidates of ``$OLDPWD`` (for ``cd -``), ``None`` when unknown.
        stack: The ``pushd`` stack, top first.
        variables: Variables the call has bound: name → the literal values it
            may hold, or ``None`` when it was bound to something the text does
            not show. A name not here was not bound by the call (it comes from
            outside).
        functions: Functions the call defined so far, and what calling one changes.
        integers: Variables with the integer attribute (bash's own, `BASH_INTEGERS`,
            and those declared ``declare -i``, ``local -i``, ``typeset -gi``…):
            a value assigned to one later, by any binding form, is evaluated
            as arithmetic.
        namerefs: Variables declared ``declare -n NAME=TARGET``: binding or
            reading NAME binds or reads TARGET (``""``: a target only known
            at run time).
        globbing: The shell options that change what a glob matches that are
            on (``dotglob``, ``nocaseglob``, ``globstar``, ``extglob``,
            ``nullglob``; all of them after a ``shopt`` the text does not show).
        unbound_all: Something the text does not show may have bound any
            variable (``eval "$x"``, ``source f``): every name bound before is
            unknown, and a name not bound since may not come from outside.
        physical: A ``cd -P`` led to the directories: bash's ``$PWD`` is where
            the symbolic links on the way led, which the text does not show,
            so a later climb (``cd ..``) is only known on disk.
    """

    __slots__ = (
        "directories",
        "functions",
        "globbing",
        "integers",
        "namerefs",
        "physical",
        "previous",
        "stack",
        "unbound_all",
        "variables",
    )

    def __init__(self, directory: str | None) -> None:
        self.directories: tuple[str | None, ...] = (directory,)
        self.previous: tuple[str | None, ...] | None = None
        self.stack: tuple[tuple[str | None, ...], ...] = ()
        self.variables: dict[str, Values] = {}
        self.namerefs: dict[str, str] = {}
        self.functions: dict[str, FunctionFacts] = {}
        self.integers: frozenset[str] = BASH_INTEGERS
        self.globbing: frozenset[str] = frozenset()
        self.unbound_all = False
        self.physical = False

    def copy(self) -> Scope:
        """A scope for a subshell: the same state, changed independently."""
        other = Scope(None)
        other.directories = self.directories
        other.previous = self.previous
        other.stack = self.stack
        other.variables = dict(self.variables)
        other.namerefs = dict(self.namerefs)
        other.functions = dict(self.functions)
        other.integers = self.integers
        other.globbing = self.globbing
        other.unbound_all = self.unbound_all
        other.physical = self.physical
        return other

    def replace(self, other: Scope) -> None:
        """Take ``other``'s state (after a branch was merged into a copy)."""
        self.directories = other.directories
        self.previous = other.previous
        self.stack = other.stack
        self.variables = other.variables
        self.namerefs = other.namerefs
        self.functions = other.functions
        self.integers = other.integers
        self.globbing = other.globbing
        self.unbound_all = other.unbound_all
        self.physical = other.physical

    # ── directories ──

    @property
    def directory(self) -> str | None:
        """The one working directory, or ``None`` when it is unknown or one of several."""
        return self.directories[0] if len(self.directories) == 1 else None

    def change_directory(self, directories: tuple[str | None, ...]) -> None:
        """``cd``: the new candidates; the old ones become ``$OLDPWD``."""
        self.previous = self.directories
        self.directories = _union_directories((directories,))

    def forget_directories(self) -> None:
        """The working directory is no longer known (``cd "$d"``, a function call…)."""
        self.previous = self.directories
        self.directories = _UNKNOWN_DIRECTORIES
        self.stack = ()

    # ── variables ──

    def bind(self, name: str, values: Values) -> None:
        """The call binds ``name`` to one of ``values`` (``None``: to something unseen)."""
        if values is not None and len(values) > MAX_CANDIDATES:
            values = None
        self.variables[name] = values
        if name == "GLOBIGNORE" and (values is None or any(values)):
            self.globbing = self.globbing | {"dotglob"}  # a set GLOBIGNORE turns `dotglob` on

    def unset(self, name: str) -> None:
        """``unset name``: the call has bound it to nothing (it is empty, not from outside)."""
        self.variables[name] = frozenset({""})

    def referent(self, name: str) -> str | None:
        """
        The variable ``name`` stands for: itself, or the one a nameref names, followed.

        ``None`` when a nameref on the way names a target only known at run
        time, an array element, or a chain too long to follow.
        """
        for _ in range(_NAMEREF_DEPTH):
            target = self.namerefs.get(name)
            if target is None:
                return name
            if not NAME.fullmatch(target):
                return None
            name = target
        return None

    def values(self, name: str) -> Values:
        """The literal values the call bound ``name`` (through its nameref) to, or ``None`` when unknown or not bound."""
        if self.namerefs:
            referent = self.referent(name)
            if referent is None:
                return None
            name = referent
        return self.variables.get(name)

    def bound(self, name: str) -> bool:
        """True when the call binds ``name`` (through its nameref, to anything) before this point."""
        if self.namerefs:
            referent = self.referent(name)
            if referent is None:
                return True
            name = referent
        return self.unbound_all or name in self.variables

    def integer(self, name: str) -> bool:
        """
        True when a value assigned to ``name`` itself may be evaluated as arithmetic.

        It has the integer attribute, or it is a nameref whose target is not
        known (which may be an integer, ``OPTIND`` among them). A nameref to a
        known variable is not: binding it binds that variable, which answers.
        """
        return name in self.integers or (name in self.namerefs and self.referent(name) is None)

    def forget_variables(self, names: Iterable[str] | None = None) -> None:
        """Bindings the text does not show: of ``names``, or of every variable."""
        if names is None:  # and of the shell's options: code the text does not show ran here
            self.unbound_all = True
            self.globbing = GLOB_OPTIONS
            names = list(self.variables)
        names = list(names)
        if self.unbound_all or "GLOBIGNORE" in names:
            self.globbing = self.globbing | {"dotglob"}  # GLOBIGNORE may be set
        for name in names:
            self.variables[name] = None

    # ── merging ──

    @classmethod
    def union(cls, scopes: Iterable[Scope]) -> Scope:
        """The scope after one of ``scopes`` ran, not knowing which."""
        scopes = list(scopes)
        merged = scopes[0].copy()
        if len(scopes) == 1:
            return merged
        merged.directories = _union_directories(s.directories for s in scopes)
        previous = [s.previous for s in scopes]
        merged.previous = (
            None
            if any(p is None for p in previous)
            else _union_directories(p or () for p in previous)
        )
        if any(s.stack != merged.stack for s in scopes):
            merged.stack = ()
        merged.unbound_all = any(s.unbound_all for s in scopes)
        merged.physical = any(s.physical for s in scopes)
        # A name that may be a nameref binds its target; with two targets, an unknown one ("").
        namerefs: dict[str, str] = {}
        for scope in scopes:
            for name, target in scope.namerefs.items():
                namerefs[name] = target if namerefs.get(name, target) == target else ""
        merged.namerefs = namerefs
        functions: dict[str, FunctionFacts] = {}
        for scope in scopes:
            for name, facts in scope.functions.items():
                known = functions.get(name)
                functions[name] = facts if known is None else known.join(facts)
        merged.functions = functions
        merged.integers = frozenset().union(*(s.integers for s in scopes))
        merged.globbing = frozenset().union(*(s.globbing for s in scopes))
        names = {name for s in scopes for name in s.variables}
        variables: dict[str, Values] = {}
        for name in sorted(names):
            sets: list[frozenset[str]] = []
            unknown = False
            for scope in scopes:
                if name not in scope.variables:
                    unknown = True  # on this path the name still comes from outside
                    break
                value = scope.variables[name]
                if value is None:
                    unknown = True
                    break
                sets.append(value)
            joined = None if unknown else frozenset().union(*sets)
            variables[name] = None if joined is None or len(joined) > MAX_CANDIDATES else joined
        merged.variables = variables
        return merged

    def same_as(self, other: Scope) -> bool:
        """True when both scopes hold the same state (a loop has reached its fixed point)."""
        return (
            self.directories == other.directories
            and self.variables == other.variables
            and self.globbing == other.globbing
            and self.unbound_all == other.unbound_all
            and self.physical == other.physical
        )
