"""
Confinement: the kernel-enforced boundary a verdict may carry, and the profiles that declare it.

A `Confinement` is the boundary resolved for one call: absolute roots and
spelled-out patterns, no template left. It says what a run inside it may read
and write, which places are the run's own scratch space (empty at the start,
gone at the end), which paths are hidden wherever they lie, which stay
read-only inside what it may write, whether it may use the network, and which
environment variables reach it. `gateway._review._boundary` resolves one from a
profile and answers where a path lies (`gateway._review._boundary.Places`); the runner
builds the kernel's view of the file system from it.

A profile is declared as ``[profiles.NAME]`` in the configuration, its
boundary as ``[profiles.NAME.confinement]`` (`ConfinementSection`), whose
entries may be templates resolved per call (`ROOT_TEMPLATES`,
``{secrets}``, ``{persistence}``, ``{standard}``). The built-in profiles,
``read-only`` and ``workspace-write``, are declared in ``config/default.toml``.

Pure data: msgspec and the standard library only.
"""

from __future__ import annotations

import re
from typing import Final, Literal

import msgspec

__all__ = [
    "HIDE_TEMPLATE",
    "PROTECT_TEMPLATE",
    "ROOT_TEMPLATES",
    "STANDARD_ENVIRONMENT",
    "STANDARD_TEMPLATE",
    "Confinement",
    "ConfinementSection",
    "Confining",
    "ProfileSection",
    "profile_problem",
]

ROOT_TEMPLATES: Final = {
    "{workspace}": "the call's working directory and every [paths] project root",
    "{system}": "the system places that hold no credentials (programs, libraries, their settings)",
    "{toolchains}": "the toolchains and caches under the home directory, and each PATH directory there",
    "{tmp}": "the temporary directories ([paths] temp-roots)",
}
"""The templates a root list (``read``, ``write``, ``scratch``) may hold, with what each stands for."""

HIDE_TEMPLATE: Final = "{secrets}"
"""In ``hide``: every secret pattern ([paths]) and every file of the gateway's own that holds a secret."""

PROTECT_TEMPLATE: Final = "{persistence}"
"""In ``protect``: every persistence pattern ([paths]), the project's gateway config among them."""

STANDARD_TEMPLATE: Final = "{standard}"
"""In ``environment``: the variables of `STANDARD_ENVIRONMENT`."""

STANDARD_ENVIRONMENT: Final = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLUMNS",
    "LINES",
    "CI",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "PYTHONHASHSEED",
    "PYTHONUTF8",
    "VIRTUAL_ENV",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "NVM_DIR",
    "NVM_BIN",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
)
"""
The environment variables a confined run keeps by default: where programs
are, who and where the user is, language, terminal and colour settings, and
the variables toolchains find themselves by. Every other variable is dropped
(``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, ``SSH_AUTH_SOCK``,
``DBUS_SESSION_BUS_ADDRESS``…): code that runs confined cannot print what it
never received. A trailing ``*`` stands for any run of characters.
"""

_PROFILE_NAME: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_VARIABLE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\*?")
_TEMPLATE: Final = re.compile(r"\{[^}]*\}")


class Confinement(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    The boundary a run is confined to, resolved for one call.

    Every root is an absolute, normalised directory; every pattern is in the
    grammar of `gateway._calls._places` with ``~/`` already spelled as the home
    directory. Where roots nest, the deeper one decides (a writable workspace
    under a scratch home is writable), and at one path a writable root wins
    over a scratch one, which wins over a readable one. A hidden pattern
    wins over every root; a protected pattern keeps read-only what it
    matches inside a writable root. Anything under no root is not there at
    all. `gateway._review._boundary.Places` is the one reading of these rules.

    Attributes:
        profile: The profile it comes from.
        read: Roots the run may read.
        write: Roots the run may read and change.
        scratch: Roots that are the run's own: empty when it starts,
            writable, and gone when it ends (the temporary directories, the
            home directory outside the workspace).
        hide: Patterns of paths the run can neither read nor change, wherever
            they lie (every secret: ``/home/u/.ssh/**``, ``**/.env``).
        protect: Patterns of paths kept read-only inside the writable roots
            (what makes code run later: ``**/.git/hooks/**``, ``**/.envrc``).
        network: Whether the run may use the network; without it the run has
            a network of its own with nothing in it, not even the host's
            loopback.
        environment: The environment variables the run keeps (names; a
            trailing ``*`` stands for any run of characters); every other
            one is dropped.
        home: The home directory (``HOME`` inside), when there is one.
        workspace: The workspace roots of the call.
    """

    profile: str
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    scratch: tuple[str, ...] = ()
    hide: tuple[str, ...] = ()
    protect: tuple[str, ...] = ()
    network: bool = False
    environment: tuple[str, ...] = ()
    home: str | None = None
    workspace: tuple[str, ...] = ()


class Confining(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What a caller of a review says about how it runs what is allowed: inside a boundary.

    Only a caller that runs calls confined passes one (``gateway run``; a host
    whose command is rewritten to go through it). Then every allow it gets
    carries the `Confinement` the call must run in; where none can be set up,
    the call is asked about instead, never run bare. A caller that passes
    none gets an ask wherever an allow holds only inside a boundary.

    Attributes:
        profile: The profile whose boundary an allow runs in.
        unavailable: Why no boundary can be set up here, as a clause (no
            ``bwrap``, no user namespaces), or ``None`` when one can.
    """

    profile: str
    unavailable: str | None = None


def _root_problem(key: str, entry: str, allowed: tuple[str, ...]) -> str | None:
    """What is wrong with one entry of a root list, as a clause, or ``None``."""
    if entry.startswith("{"):
        if entry not in ROOT_TEMPLATES:
            known = ", ".join(ROOT_TEMPLATES)
            return f"{key} has {entry!r}, which is not a template ({known})"
        if entry not in allowed:
            return f"{key} cannot hold {entry!r}; it may hold " + ", ".join(allowed)
        return None
    if _TEMPLATE.search(entry):
        return f"{key} has {entry!r}: a template stands alone as an entry"
    if entry == "~":
        return None
    if entry == "/":
        return None if key == "read" else f"{key} cannot hold '/': name the directories instead"
    if not entry.startswith(("~/", "/")):
        return f"{key} entries are absolute directories, '~' or '~/…', not {entry!r}"
    body = entry[2:] if entry.startswith("~/") else entry[1:]
    if any(piece in ("", ".", "..") for piece in body.split("/")):
        return f"{key} entries have no empty, '.' or '..' segment, not {entry!r}"
    return None


def _pattern_problem(key: str, entry: str, template: str) -> str | None:
    if entry == template:
        return None
    if _TEMPLATE.search(entry):
        return f"{key} has {entry!r}, which is not its template {template!r}"
    if not entry.startswith(("/", "~/", "**/")) or "//" in entry:
        return f"{key} entries are {template!r} or patterns that start with '/', '~/' or '**/' (no empty segment), not {entry!r}"
    if any(piece in (".", "..") for piece in entry.split("/")):
        return f"{key} entries have no '.' or '..' segment, not {entry!r}"
    return None


class ConfinementSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[profiles.NAME.confinement]`` table: a profile's boundary, before it is resolved for a call.

    Root lists (``read``, ``write``, ``scratch``) hold absolute directories,
    ``~`` or ``~/…`` (the home directory), and templates (`ROOT_TEMPLATES`).
    ``hide`` and ``protect`` hold path patterns (``/…``, ``~/…``, ``**/…``)
    and their template; ``environment`` holds variable names (a trailing
    ``*`` for any run of characters) and ``{standard}``.

    Attributes:
        read: What the run may read.
        write: What it may read and change.
        scratch: What is its own, empty at the start and gone at the end.
        hide: What it can neither read nor change, wherever it lies.
        protect: What stays read-only inside what it may change.
        network: Whether it may use the network.
        environment: Which environment variables it keeps.
    """

    read: tuple[str, ...] = ("{system}", "{toolchains}", "{workspace}")
    write: tuple[str, ...] = ()
    scratch: tuple[str, ...] = ("{tmp}", "~")
    hide: tuple[str, ...] = (HIDE_TEMPLATE,)
    protect: tuple[str, ...] = (PROTECT_TEMPLATE,)
    network: bool = False
    environment: tuple[str, ...] = (STANDARD_TEMPLATE,)

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem is not None:
            raise ValueError(problem)

    def problem(self) -> str | None:
        """What is wrong with the table, as a clause, or ``None`` (checked when it is built)."""
        everywhere = tuple(ROOT_TEMPLATES)
        for key, entries, allowed in (
            ("read", self.read, everywhere),
            ("write", self.write, ("{workspace}", "{tmp}")),
            ("scratch", self.scratch, ("{tmp}",)),
        ):
            for entry in entries:
                problem = _root_problem(key, entry, allowed)
                if problem is not None:
                    return problem
        for key, entries, template in (
            ("hide", self.hide, HIDE_TEMPLATE),
            ("protect", self.protect, PROTECT_TEMPLATE),
        ):
            for entry in entries:
                problem = _pattern_problem(key, entry, template)
                if problem is not None:
                    return problem
        for name in self.environment:
            if name != STANDARD_TEMPLATE and not _VARIABLE.fullmatch(name):
                return f"environment entries are variable names (a trailing '*' allowed) or {STANDARD_TEMPLATE!r}, not {name!r}"
        return None


class ProfileSection(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    One ``[profiles.NAME]`` table: a profile the rules approver (``profile``) may name.

    Attributes:
        description: What the profile is for, in a sentence.
        code: What the rules do with code they cannot read (a script, a test
            runner, a build's recipes, a package's scripts): ``ask``, or
            ``confined``: allow it inside the boundary, where the rest of
            the command is still judged as ever.
        confinement: The boundary a confined run of the profile stands in.
    """

    description: str = ""
    code: Literal["ask", "confined"] = "ask"
    confinement: ConfinementSection = ConfinementSection()


def profile_problem(name: str) -> str | None:
    """What is wrong with a profile's name, as a clause, or ``None``."""
    if not _PROFILE_NAME.fullmatch(name):
        return f"a profile's name is lowercase letters, digits, '.', '_' and '-' (at most 64), not {name!r}"
    return None
