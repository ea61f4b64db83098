"""
The effects vocabulary: what a planned command does to the world, as data.

Pure data, like `gateway._calls._plans`: frozen msgspec Structs, tuples, closed sets
as ``Literal``; nothing but msgspec and the standard library. The planner
states every effect it can see (reads, writes, executions, network, bindings,
lifetime) on each `PlannedCommand`, over *values*, never spellings: a path is
quote-removed, normalised and resolved against the effective working
directory before it is classified. What the planner cannot state is an
`Opaque` effect, never silence: an allow can only stand on a command whose
effects are all known.

Effects feed the plan digest (they are fields of `PlannedCommand`), so a
change here is a wire change and bumps `PLAN_FORMAT`.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

import msgspec

__all__ = [
    "PATH_CLASSES",
    "PLAN_FORMAT",
    "AddressClass",
    "Bind",
    "BindVia",
    "ChangeDirectory",
    "Effect",
    "EffectPath",
    "Execute",
    "ExecuteKind",
    "Lifetime",
    "LifetimeKind",
    "Network",
    "NetworkKind",
    "Opaque",
    "Origin",
    "PathClass",
    "Privilege",
    "Read",
    "ReadEnvironment",
    "Write",
    "WriteAction",
]

PLAN_FORMAT: Final = 4
"""The version of the plan's wire form; `GatewayStarted` carries it, and remembered digests of another format never count."""

PathClass = Literal[
    "workspace",
    "temp",
    "home",
    "secret",
    "persistence",
    "system",
    "stream",
    "other",
    "outside",
    "unknown",
]
"""
Where a resolved path lies, or what it holds. A path has one or more classes.

``workspace``: under the call's working directory or a configured project
root. ``temp``: under a temporary directory. ``home``: under the home
directory (and not the workspace). ``secret``: a file that holds credentials
(``~/.ssh``, ``~/.aws``, ``.env*``, ``*.pem``…, configurable). ``persistence``:
a file that makes code run later (shell start-up files, ``.git/config``,
``.git/hooks/``, CI configs, agent settings, crontabs, systemd user units…).
``system``: ``/etc``, ``/usr``, ``/boot``, devices… ``stream``: a standard
stream or the null device (``/dev/null``, ``/dev/stdout``, ``/dev/stderr``,
``/dev/tty``, ``/dev/fd/0`` to ``/dev/fd/2``): writing one changes no file. ``other``: a
resolved path in none of those. ``unknown``: the value is only known when the
command runs. ``outside``: never in a plan; a policy adds it to a path its
profile does not declare readable (the rules approver asks
`gateway.confinement.Places` of the profile's boundary).

Location classes (``workspace``, ``temp``, ``home``, ``system``, ``stream``,
``other``) say where a path lies: ``home`` never joins ``workspace``, and
``other`` stands only when no other location applies. Content classes
(``secret``, ``persistence``) say what it holds and join any location.
``unknown`` stands alone, or with the content classes of a path known only by
its role (a repository's ``.git/config``, wherever its git directory is).
"""

PATH_CLASSES: Final[tuple[PathClass, ...]] = get_args(PathClass)

Origin = Literal["literal", "call_bound", "unknown"]
"""Where a value comes from: written in the call, bound by the call to a literal, or unknown (a substitution's output, a variable from outside, one re-bound later)."""


class EffectPath(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    A path an effect touches: as written, as resolved, and its classes.

    Attributes:
        written: The word as written (secrets masked), for display only.
        value: The resolved path, normalised (``.``, ``..`` and ``//``
            folded): ``~`` or ``~/…`` under the home directory; absolute
            (``/…``) elsewhere; ``./…`` relative to the call's working
            directory when that is not known (``./..`` climbs above it);
            ``None`` when the path is only known at run time (then `classes`
            is ``("unknown",)``).
        classes: Its classes, sorted in `PATH_CLASSES` order, never empty. For
            an effect that reaches everything below the path (``rm -r``), the
            classes of what the path holds are included (``rm -rf ~`` is
            ``secret`` and ``persistence`` too); not for a read of names only
            (``find ~ -name x``, ``du -sh ~``), which reads no contents.
        pattern: The value is a glob bash matches against existing files
            (``*.o``, ``~/.ssh/*``): the classes are those of the files it may match.
    """

    written: str
    value: str | None
    classes: tuple[PathClass, ...]
    pattern: bool = False


class _Effect(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="effect"
):
    """The base of every effect: frozen, and tagged on ``effect`` in the wire form."""

    @property
    def effect(self) -> str:
        """The effect's tag (``read``, ``write``, ``cwd``…), as on the wire."""
        return str(self.__struct_config__.tag)


class Read(_Effect, frozen=True, kw_only=True, tag="read"):
    """
    The command reads a file or directory (an operand, ``<F``, ``grep -f F``, ``--rawfile``).

    Attributes:
        path: What it reads.
        via: How (``<``, ``cat``, ``--rawfile``…).
        recursive: It reads everything below the path (``grep -r``, ``tar c``, ``cp -r``).
        metadata: It reads only names, sizes, modes or types (``ls``, ``stat``), not contents.
    """

    path: EffectPath
    via: str
    recursive: bool = False
    metadata: bool = False


class ReadEnvironment(_Effect, frozen=True, kw_only=True, tag="read.environment"):
    """
    The command reads the whole environment (``env``, ``printenv``, ``declare -p``, ``/proc/*/environ``),
    or one variable from outside that is not declared harmless to show (``via`` is then
    ``$NAME``: ``echo "$DATABASE_URL"``, ``printenv API_KEY``; see
    `gateway._calls._places.shown_variable`).
    """

    via: str

    @property
    def variable(self) -> str | None:
        """The one variable read, or ``None`` when the whole environment is."""
        return self.via[1:] if self.via.startswith("$") else None


WriteAction = Literal[
    "write", "append", "create", "delete", "move", "copy", "link", "mode", "owner", "directory"
]


class Write(_Effect, frozen=True, kw_only=True, tag="write"):
    """
    The command changes a file or directory.

    Attributes:
        path: What it changes.
        via: How (``>``, ``>&``, ``tee``, ``sed -i``, ``cp``…).
        action: What it does to the path.
        recursive: The change reaches everything below the path (``rm -r``, ``chmod -R``).
    """

    path: EffectPath
    via: str
    action: WriteAction
    recursive: bool = False


ExecuteKind = Literal["program", "shell_text", "code", "number", "expansion", "configured"]


class Execute(_Effect, frozen=True, kw_only=True, tag="execute"):
    """
    The command runs code beyond its own program.

    Attributes:
        kind: ``program`` (it runs another program: ``find -exec``, ``xargs``),
            ``shell_text`` (nested shell text: ``bash -lc 'TEXT'``, ``sh <<EOF``),
            ``code`` (a code-loading option or a language of its own:
            ``nm --plugin``, ``awk 'BEGIN{system(…)}'``, ``sed e``, ``git -c
            core.pager=…``), ``configured`` (the program may run code its
            configuration names rather than the call: git's
            ``core.fsmonitor``, a hook), ``number`` (bash evaluates a value
            as arithmetic) or ``expansion`` (bash expands text a second time,
            so an expansion written inside it runs: a subscript with ``$(…)``
            in a value evaluated as a number, the target of ``>&WORD``,
            ``${x@P}``).
        via: What runs it (``bash -c``, ``--checkpoint-action``, ``$(( ))``).
        text: The code, when it is written in the call (secrets masked).
        origin: Where the code or the value comes from.
    """

    kind: ExecuteKind
    via: str
    text: str | None
    origin: Origin


NetworkKind = Literal["connect", "listen", "resolve"]
AddressClass = Literal["public", "private", "loopback", "link_local", "unknown"]


class Network(_Effect, frozen=True, kw_only=True, tag="network"):
    """
    The command talks over the network, or makes a name lookup that carries data.

    Attributes:
        kind: ``connect`` (a URL, a host, ``/dev/tcp/…``), ``listen`` (binds a
            port) or ``resolve`` (a DNS lookup: a channel when the name is computed).
        via: What does it (``curl``, ``/dev/tcp``, ``getent``).
        target: The URL or host as resolved, when known.
        address: The address's class (link-local metadata addresses are their own).
    """

    kind: NetworkKind
    via: str
    target: str | None
    address: AddressClass


BindVia = Literal[
    "assignment",
    "select",
    "prefix",
    "export",
    "declare",
    "local",
    "readonly",
    "read",
    "mapfile",
    "printf",
    "default",
    "for",
    "arithmetic",
    "getopts",
    "unset",
    "set",
    "shopt",
    "trap",
    "alias",
    "function",
    "hash",
    "enable",
    "umask",
    "ulimit",
    "coproc",
    "redirect",
    "setting",
    "wait",
]


class Bind(_Effect, frozen=True, kw_only=True, tag="bind"):
    """
    The command sets (or unsets) a variable, a shell option, a trap, an alias or a function.

    Attributes:
        name: What is bound (a variable, an option such as ``allexport``, a
            signal, an alias or function name, a program's own setting for
            this run such as git's ``core.pager``); ``None`` when it is only
            known at run time.
        via: How (``export``, ``printf -v``, ``${V:=…}``, ``set -a``…).
        origin: Where the bound value comes from.
        text: The value or the code bound, when written in the call (a trap's
            or alias's command; secrets masked).
    """

    name: str | None
    via: BindVia
    origin: Origin
    text: str | None = None


LifetimeKind = Literal["background", "detached", "unbounded", "loop"]


class Lifetime(_Effect, frozen=True, kw_only=True, tag="lifetime"):
    """The command outlives the call or may never end (``&``, ``nohup``, ``tail -f``, ``yes``, ``while :``)."""

    kind: LifetimeKind
    via: str


class Privilege(_Effect, frozen=True, kw_only=True, tag="privilege"):
    """
    The command runs as another user, or with privilege (``sudo``, ``doas``, ``su``, ``chroot``).

    Attributes:
        via: The launcher.
        user: The user it runs as: as named (``-u deploy``), the launcher's
            default (``root``) when none is named, or ``None`` when the name
            is only known at run time.
    """

    via: str
    user: str | None


class ChangeDirectory(_Effect, frozen=True, kw_only=True, tag="cwd"):
    """The command moves where later commands (``cd``) or the program itself (``git -C``, ``make -C``) run."""

    path: EffectPath
    via: str


class Opaque(_Effect, frozen=True, kw_only=True, tag="opaque"):
    """
    The planner cannot state all of the command's effects; nothing may allow it on effects alone.

    Attributes:
        reason: One clause saying what is not known ("`tar` has the option
            `--foo`, which its table does not declare").
        option: The undeclared option, when that is the reason.
    """

    reason: str
    option: str | None = None


Effect = (
    Read
    | ReadEnvironment
    | Write
    | Execute
    | Network
    | Bind
    | Lifetime
    | Privilege
    | ChangeDirectory
    | Opaque
)
"""One effect of a command: a tagged union on ``effect`` (``{"effect": "write", …}``)."""
