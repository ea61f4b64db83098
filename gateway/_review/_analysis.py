"""
One reading per call: everything the gateway and its approvers need, from one pass over the text.

`analyse_call` reads a shell call's text **once** — one consensus reading,
one search for secrets — and returns a `CallAnalysis`: the plan (secrets
masked, digests of the unredacted plan), every command's program position,
the strict sequence plan, the holes of unquoted heredoc bodies with their
plans, every effect in walk order, and what fragment expansion needs. The
gateway caches it; hole questions, `Gateway.answer` and ``gateway plan``
reuse it, and nothing after it reads the call's text again: what anyone
needs to decide is a field here.

`tool_effects` does the same for a tool that is not a shell: it reads the
tool's input with the ``[[tool-effects]]`` rows (`gateway._settings._tools`), so
``Write ~/.bashrc`` is the same effect as ``>> ~/.bashrc``.

Both are pure functions of msgspec-serialisable arguments, deterministic, and
do no I/O: they may run in a worker process.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any, Final

import msgspec

from gateway._calls._effects import (
    Bind,
    Effect,
    Network,
    Opaque,
    Privilege,
    Read,
    Write,
    WriteAction,
)
from gateway._calls._events import HoleRef
from gateway._calls._places import PathsSection
from gateway._calls._plans import Hole, ProgramPlan, ProgramPosition, SequencePlan
from gateway._plan import iter_commands, iter_effects, plan_source
from gateway._plan._addresses import address_class, url_host
from gateway._plan._fragments import Fragments, fragments_of
from gateway._plan._globs import is_glob
from gateway._plan._paths import HOME, PathContext, effect_path, join, path_context, start_directory
from gateway._plan._redact import Redactor, find_secrets
from gateway._plan._sequence import sequence_plan
from gateway._programs._user import UserTable, user_reader
from gateway._settings._tools import (
    DEFAULT_TOOL_EFFECTS,
    ToolEffects,
    field_value,
    unknown_fields,
)

__all__ = [
    "AnalysedHole",
    "AnalysisContext",
    "CallAnalysis",
    "analyse_call",
    "analysis_context",
    "mask_sequence",
    "mask_text",
    "row_for",
    "tool_directory",
    "tool_effects",
]

_URL: Final = re.compile(r"https?://[^\s<>\"'`)\]]+")
# Codex's own reader trims a hunk header before it reads it, so a header may be
# indented; a context line of an update that looks like one is taken for one
# too, which only adds a write. The path is kept with the blanks around it:
# executors of the format differ on trimming it.
_PATCH_FILE: Final = re.compile(
    r"^[ \t]*\*\*\* (Add|Update|Delete) File: (.+)$|^[ \t]*\*\*\* Move to: (.+)$",
    re.MULTILINE,
)
_PATCH_MARKER: Final = re.compile(
    r"^[ \t]*\*\*\*(?! (?:Begin|End) Patch\s*$| End of File\s*$)", re.MULTILINE
)
"""A line that starts like a patch marker: unless `_PATCH_FILE` reads it, what the patch does is not known."""
_PATCH_ACTIONS: Final[Mapping[str, WriteAction]] = {
    "Add": "create",
    "Update": "write",
    "Delete": "delete",
}


class AnalysisContext(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What analysing a call needs besides its text.

    Attributes:
        paths: Where the call runs, the home directory, and how paths are classified.
        sequence_cwd: The starting directory of the sequence plan, relative to
            the repository root (``""``: the root).
        programs: Option tables the configuration declares (``[programs.NAME]``).
    """

    paths: PathContext = PathContext()
    sequence_cwd: str = ""
    programs: dict[str, UserTable] = msgspec.field(default_factory=dict)


class AnalysedHole(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One hole of an unquoted heredoc body: where it is, and the hole with its plans."""

    ref: HoleRef
    hole: Hole


class CallAnalysis(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    Everything one reading of a shell call gives.

    Attributes:
        plan: The plan, secrets masked; its digests are of the unredacted plan.
        sequence: The strict sequence plan, secrets masked.
        positions: The program position of every command, nested text included, in order.
        holes: Every hole of every unquoted heredoc body, in order.
        effects: Every effect of every command (and of statements' own
            syntax), nested text included, in walk order.
        fragments: What expanding a heredoc needs (the heredoc nodes,
            unredacted: internal only, never published).
        offset: Where reading failed (a character offset), when unmeasured.
        reads: How many texts were read: 1 for the call's, plus one per
            distinct nested literal (``bash -c '…'``).
    """

    plan: ProgramPlan
    sequence: SequencePlan
    positions: tuple[ProgramPosition, ...] = ()
    holes: tuple[AnalysedHole, ...] = ()
    effects: tuple[Effect, ...] = ()
    fragments: Fragments = ()
    offset: int | None = None
    reads: int = 1

    @property
    def measured(self) -> bool:
        """True when the plan is measured."""
        return self.plan.status == "measured"


def analysis_context(
    paths: PathsSection,
    cwd: str | None,
    *,
    home: str | None = None,
    programs: Mapping[str, UserTable] | None = None,
    start: str | None = None,
) -> AnalysisContext:
    """
    The context of a call that runs in ``cwd``, by the ``[paths]`` table (and ``[programs]``).

    ``start`` is where its text starts when the tool names another directory
    (`PathContext.start`); the workspace stays ``cwd``.
    """
    context = path_context(paths, cwd, home, start)
    relative = cwd if cwd and not cwd.startswith("/") else ""
    if context.start is not None and context.start != context.cwd:
        # A sequence's directories are relative to the workspace: one outside
        # it cannot be said (an absolute one), and the sequence is unmeasured.
        root = (context.cwd or "").rstrip("/")
        below = context.cwd is not None and context.start.startswith(root + "/")
        relative = context.start[len(root) + 1 :] if below else context.start
    return AnalysisContext(paths=context, sequence_cwd=relative, programs=dict(programs or {}))


# ───────────────────────── masking ─────────────────────────


def mask_text(text: str, known: Sequence[tuple[str, str]] = ()) -> str:
    """
    ``text`` with its secrets masked: the ``known`` ones (``(value, kind)`` from the
    call's source) wherever they appear, and any a secret pattern finds in it.
    """
    for secret, kind in known:
        text = text.replace(secret, f"<{kind}>")
    return Redactor(text).mask(0, len(text))


def _known(source: str) -> tuple[tuple[str, str], ...]:
    return tuple((source[s.start : s.end], s.kind) for s in find_secrets(source))


def mask_sequence(sequence: SequencePlan, source: str) -> SequencePlan:
    """A sequence plan with every secret of ``source`` masked in its argv (the values are quote-removed)."""
    known = _known(source)
    if not known:
        return sequence
    steps = tuple(
        msgspec.structs.replace(step, argv=tuple(mask_text(arg, known) for arg in step.argv))
        for step in sequence.steps
    )
    # The reason quotes words of the source ("The word `https://…?api_key=…`
    # holds an expansion or glob character."), so it is masked too.
    reason = None if sequence.reason is None else mask_text(sequence.reason, known)
    return msgspec.structs.replace(sequence, steps=steps, reason=reason)


# ───────────────────────── shell calls ─────────────────────────


def analyse_call(source: str, context: AnalysisContext | None = None) -> CallAnalysis:
    """
    Read a shell call once and say everything about it.

    Never raises for any text: what cannot be read is an unmeasured plan
    with one sentence of reason (and an unmeasured sequence plan).

    Args:
        source: The shell text, as the agent proposed it.
        context: Where it runs and how paths are classified.

    Returns:
        The call's `CallAnalysis`.

    Examples:
        >>> from gateway._plan._paths import PathContext
        >>> context = AnalysisContext(paths=PathContext(cwd="/work/app", home="/home/amy"))
        >>> analysis = analyse_call("cd ~ && echo 'set -x' >> .bashrc", context)
        >>> [(e.path.value, e.path.classes) for e in analysis.effects if e.effect == "write"]
        [('~/.bashrc', ('home', 'persistence'))]
        >>> analysis.reads
        1
    """
    context = context or AnalysisContext()
    if context.programs:
        result = plan_source(source, context.paths, arguments=user_reader(context.programs))
    else:
        result = plan_source(source, context.paths)
    plan = result.published
    sequence = mask_sequence(sequence_plan(source, result.reading, context.sequence_cwd), source)
    if plan.status != "measured":
        return CallAnalysis(
            plan=plan, sequence=sequence, offset=result.reading.offset, reads=result.reads
        )
    holes: list[AnalysedHole] = []
    for statement, planned in zip(plan.statements, result.statements, strict=True):
        for heredoc, found in enumerate(planned.holes):
            holes.extend(
                AnalysedHole(
                    ref=HoleRef(statement=statement.index, heredoc=heredoc, hole=hole.index),
                    hole=hole,
                )
                for hole in found
            )
    plans = [s.plan for s in plan.statements]
    return CallAnalysis(
        plan=plan,
        sequence=sequence,
        positions=tuple(c.position for p in plans for c in iter_commands(p)),
        holes=tuple(holes),
        effects=tuple(effect for p in plans for _, effect in iter_effects(p)),
        fragments=fragments_of(result.statements),
        reads=result.reads,
    )


# ───────────────────────── other tools ─────────────────────────


def _strings(data: Mapping[str, Any], fields: Sequence[str]) -> list[tuple[str, str]]:
    """``(field, text)`` for every string (or string in a list) the fields hold."""
    found: list[tuple[str, str]] = []
    for field in fields:
        value = field_value(data, field)
        items = value if isinstance(value, list) else [value]
        found.extend((field, item) for item in items if isinstance(item, str) and item)
    return found


def _odd_value(data: Mapping[str, Any], fields: Sequence[str]) -> tuple[str, str] | None:
    """
    The first field that holds something other than a string or a list of strings, and what.

    A tool that takes an object (``{"path": …}``), a nested list or a number
    where a path is expected may read what it names: it is not dropped.
    """
    for field in fields:
        value = field_value(data, field)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) or (item is None and not isinstance(value, list)):
                continue
            return field, _kind(item)
    return None


def _kind(item: object) -> str:
    """What a JSON value is, as a reason says it."""
    if isinstance(item, list):
        return "a list"
    if isinstance(item, Mapping):
        return "an object"
    if item is None or isinstance(item, bool):
        return "`null`" if item is None else f"`{str(item).lower()}`"
    return "a number"


_PATTERN_CHARACTERS: Final = frozenset("*?[]{}()!\\")
"""What a glob library reads specially in a path (classes, braces, extended globs, escapes)."""


def _pattern_base(text: str) -> str | None:
    """The directory a glob pattern's text fixes (``src`` for ``src/**/*.ts``), or ``None`` for a plain path."""
    if not _PATTERN_CHARACTERS.intersection(text):
        return None
    fixed: list[str] = []
    for piece in text.split("/"):
        if _PATTERN_CHARACTERS.intersection(piece):
            break
        fixed.append(piece)
    base = "/".join(fixed)
    return base or ("/" if text.startswith("/") else ".")


def _resolve(text: str, paths: PathContext, directory: str | None) -> str | None:
    if text == "~" or text.startswith("~/"):
        return join(None, HOME + text[1:])
    return join(directory, text)


_TOOL_GLOBBING: Final = frozenset({"globstar", "dotglob"})
"""How a tool's glob matches: ``**`` spans directories, and hidden names may match."""


def row_for(tool: str, rows: Sequence[ToolEffects]) -> ToolEffects | None:
    """The first row that names ``tool`` (exactly, or by a glob), configured rows first."""
    for row in (*rows, *DEFAULT_TOOL_EFFECTS):
        if row.tool == tool or (any(c in row.tool for c in "*?[") and fnmatchcase(tool, row.tool)):
            return row
    return None


def tool_directory(
    tool: str, data: Mapping[str, Any], rows: Sequence[ToolEffects], cwd: str | None
) -> str | None:
    """Where a tool's command runs: the working directory its row's ``cwd`` fields name, else ``cwd``."""
    row = row_for(tool, rows)
    for _, text in _strings(data, row.cwd if row is not None else ()):
        if text.startswith("/"):
            cwd = text
        elif cwd is not None and cwd.startswith("/"):
            cwd = join(cwd, text)
        else:
            return None  # relative to a directory that is not known
    return cwd


def tool_effects(
    tool: str,
    data: Mapping[str, Any],
    rows: Sequence[ToolEffects],
    paths: PathContext,
) -> tuple[Effect, ...]:
    """
    The effects of a call of a tool that is not a shell, read from its input.

    Args:
        tool: The tool's name.
        data: Its input.
        rows: The configured ``[[tool-effects]]`` (the built-in rows come after).
        paths: Where the call runs and how paths are classified.

    Returns:
        Its effects; one `Opaque` when no row maps the tool.

    Examples:
        >>> from gateway._plan._paths import PathContext
        >>> paths = PathContext(cwd="/work/app", home="/home/amy")
        >>> [e.path.classes for e in tool_effects("Write", {"file_path": "/home/amy/.bashrc"}, (), paths)]
        [('home', 'persistence')]
        >>> tool_effects("WebFetch", {"url": "http://169.254.169.254/latest/"}, (), paths)[0].address
        'link_local'
    """
    row = row_for(tool, rows)
    if row is None:
        return (Opaque(reason=f"no `[[tool-effects]]` row says what the tool `{tool}` does"),)
    if row.none:
        return ()
    unknown = unknown_fields(data, row.known_fields())
    if unknown:
        names = ", ".join(f"`{mask_text(name)}`" for name in unknown[:3])
        return (
            Opaque(
                reason=f"the input of the tool `{tool}` has a field its `[[tool-effects]]` row "
                f"does not declare ({names}), which may name a path"
            ),
        )
    named = (
        *row.reads,
        *row.pattern_reads,
        *row.globs,
        *row.writes,
        *row.patches,
        *row.urls,
        *row.url_texts,
        *row.searches,
        *row.user,
        *row.cwd,
    )
    odd = _odd_value(data, named)
    if odd is not None:
        field, kind = odd
        return (
            Opaque(
                reason=f"`{mask_text(field)}` of the tool `{tool}` holds {kind} where its "
                "`[[tool-effects]]` row expects text, which the tool may read as a path"
            ),
        )
    directory: str | None = start_directory(paths)
    for _, text in _strings(data, row.cwd):
        directory = _resolve(text, paths, directory)
    found: list[Effect] = []

    def path_of(text: str, *, base: str | None = None, recursive: bool = row.recursive) -> Any:
        resolved = _resolve(text if base is None else base, paths, directory)
        path = effect_path(mask_text(text), resolved, paths, recursive=recursive)
        value = None if path.value is None else mask_text(path.value)
        return path if value == path.value else msgspec.structs.replace(path, value=value)

    reads = _strings(data, row.reads)
    patterns = _strings(data, row.pattern_reads)
    if not reads and not patterns and row.default_path is not None:
        reads = [("", row.default_path)]
    found.extend(Read(path=path_of(text), via=tool, recursive=row.recursive) for _, text in reads)
    for _, text in patterns:
        # A pattern may match anything below the directory it starts from.
        fixed = _pattern_base(text)
        recursive = row.recursive or fixed is not None
        found.append(
            Read(path=path_of(text, base=fixed, recursive=recursive), via=tool, recursive=recursive)
        )
    base = _resolve(reads[0][1], paths, directory) if reads else directory
    for _, text in _strings(data, row.globs):
        # The names it lists: a glob's classes are those of whatever it may match.
        resolved = _resolve(text, paths, base)
        listed = effect_path(
            mask_text(text), resolved, paths, pattern=is_glob(text), options=_TOOL_GLOBBING
        )
        found.append(Read(path=listed, via=tool, metadata=True))
    found.extend(
        Write(path=path_of(text), via=tool, action=row.write_action)
        for _, text in _strings(data, row.writes)
    )
    found.extend(Write(path=path_of(text), via=tool, action="write") for text in row.fixed_writes)
    for field, patch in _strings(data, row.patches):
        headers = list(_PATCH_FILE.finditer(patch))
        for match in headers:
            verb, name, moved = match.groups()
            spelled = moved if moved is not None else name
            target = spelled.strip()
            action = "create" if moved is not None else _PATCH_ACTIONS[verb]
            found.append(Write(path=path_of(target), via=f"{tool} {verb or 'Move'}", action=action))
            if spelled != target:
                # ` .envrc` to one executor is `.envrc` to another.
                found.append(
                    Opaque(
                        reason=f"the patch in `{field}` names the file `{mask_text(target)}` with "
                        "blanks around it, which executors of the format keep or trim"
                    )
                )
        read = {match.start() for match in headers}
        if not headers or any(m.start() not in read for m in _PATCH_MARKER.finditer(patch)):
            found.append(
                Opaque(
                    reason=f"the patch in `{field}` names a file in a way this reader does not know"
                )
            )
    urls = [text for _, text in _strings(data, row.urls)]
    urls += [url for _, text in _strings(data, row.url_texts) for url in _URL.findall(text)]
    found.extend(
        Network(
            kind="connect", via=tool, target=mask_text(url), address=address_class(url_host(url))
        )
        for url in urls
    )
    found.extend(
        Network(kind="connect", via=tool, target=None, address="public")
        for _ in _strings(data, row.searches)
    )
    for field in row.environment:
        value = field_value(data, field)
        if isinstance(value, Mapping):
            for name, bound in value.items():
                # Masked with its name, so a key that names a secret hides its value.
                shown = (
                    mask_text(f"{name}={bound}").partition("=")[2]
                    if isinstance(bound, str)
                    else None
                )
                found.append(Bind(name=str(name), via="prefix", origin="literal", text=shown))
    found.extend(Privilege(via=tool, user=user) for _, user in _strings(data, row.user))
    content = (
        row.reads
        or row.pattern_reads
        or row.writes
        or row.patches
        or row.urls
        or row.url_texts
        or row.searches
    )
    if content and not found and data:
        # A row that names what the tool touches, finding none of it in an input
        # that holds something: the tool was given its input under other names,
        # and "it touches nothing" would be a guess.
        fields = ", ".join(f"`{name}`" for name in sorted(data)[:5])
        return (
            Opaque(
                reason=f"the input of `{tool}` ({fields}) holds none of the fields its `[[tool-effects]]` row reads"
            ),
        )
    return tuple(found)
