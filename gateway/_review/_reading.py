"""
Where the gateway reads calls: bounded tasks around `gateway._review._analysis`.

Reading a call — `analyse_call` on a shell call's text, `tool_effects` on any
tool's input, the secrets of both and the input with them masked — is pure
computation on text an agent wrote, so the gateway never does it on its
event loop: it sends a `CallText` to a worker of its
`gateway._work._bounded.BoundedPool` and gets a `CallReading` back, or a failure it
turns into a decline. The same holds for a heredoc body the host completes
(`read_body`) and the user's request (`mask_request`). What is computed is
`gateway._review._analysis`'s business; this module only says what a worker is sent
and what it sends back.

The secrets of the shell text are found once here and reused to mask the
command field, every other string that repeats them, and the user's request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import msgspec

from gateway._calls._effects import Effect, Opaque
from gateway._calls._places import PathsSection
from gateway._calls._plans import FragmentAddr, FragmentError, ProgramPlan, SequencePlan
from gateway._plan import unreadable_plan
from gateway._plan._fragments import Fragments, expand_planned
from gateway._plan._paths import path_context
from gateway._plan._redact import Redactor, Secret, find_secrets
from gateway._programs._user import UserTable
from gateway._review._analysis import (
    CallAnalysis,
    analyse_call,
    analysis_context,
    mask_text,
    row_for,
    tool_directory,
    tool_effects,
)
from gateway._settings._tools import ToolEffects
from gateway._work._bounded import CpuSpent, bounded_task, raise_if_spent

__all__ = [
    "BodyReading",
    "BodyText",
    "CallReading",
    "CallText",
    "MaskText",
    "mask_request",
    "mask_value",
    "read_body",
    "read_call",
    "source_secrets",
    "warm_up",
]

# Stands in for a value when asking the shared secret patterns whether a key
# names a secret: 40 letters and digits that no value-only pattern matches.
_KEY_PROBE: Final = "0123456789abcdefghij0123456789ABCDEFGHIJ"


def _secret_key_kind(key: Any) -> str | None:
    """The kind of secret a mapping key names (``password``, ``api_key``, ``DB_PASSWORD``…), if any."""
    if not isinstance(key, str) or not key or len(key) > 200:
        return None
    probe = f"{key}: {_KEY_PROBE}"
    return next((s.kind for s in find_secrets(probe) if s.start == len(key) + 2), None)


def source_secrets(source: str | None) -> tuple[tuple[str, str], ...]:
    """The secrets of a shell text as ``(value, kind)`` pairs, to mask wherever the values reappear."""
    if not source:
        return ()
    return _pairs(source, find_secrets(source))


def _pairs(source: str, found: Sequence[Secret]) -> tuple[tuple[str, str], ...]:
    return tuple((source[s.start : s.end], s.kind) for s in found)


def mask_value(
    value: Any,
    known: Sequence[tuple[str, str]] = (),
    *,
    source: str | None = None,
    source_found: Sequence[Secret] | None = None,
) -> Any:
    """
    A JSON-like value with the secrets of every string in it masked.

    ``known`` secrets (found in the whole shell text, see `source_secrets`)
    are masked wherever they appear: an argv list split ``mysql -p…`` into
    items that, one by one, no pattern recognises. A string equal to
    ``source`` is masked with the secrets already found in it
    (``source_found``) instead of being scanned again.
    """
    if isinstance(value, str):
        if source_found is not None and value == source:
            masked = Redactor(value, source_found).mask(0, len(value))
            for secret, kind in known:
                masked = masked.replace(secret, f"<{kind}>")
            return masked
        return mask_text(value, known)
    if isinstance(value, list | tuple):
        return [mask_value(item, known, source=source, source_found=source_found) for item in value]
    if isinstance(value, dict):
        masked_map: dict[Any, Any] = {}
        for key, item in value.items():
            # A string under a key that names a secret ({"password": "…"}, an
            # env map's "GITHUB_TOKEN") holds nothing the value patterns can
            # see: without its key it would be published verbatim.
            named = _secret_key_kind(key) if isinstance(item, str) and item else None
            masked_map[key] = (
                f"<{named}>"
                if named is not None
                else mask_value(item, known, source=source, source_found=source_found)
            )
        return masked_map
    return value


class CallText(msgspec.Struct, frozen=True, kw_only=True):
    """
    What a worker is sent to read a call.

    Attributes:
        tool: The tool's name.
        input: The call's input, as JSON-like data (already checked at the door).
        source: The shell text of a shell call, or ``None``.
        is_shell: Whether the tool is a shell.
        cwd: The working directory the host gave.
        start: The directory a shell tool's input names for its text
            (`ShellInput.directory`), when it names one.
        refusal: Why a shell tool's input says more than the gateway reads
            (`ShellInput.refusal`): an ``opaque`` effect.
        paths: The ``[paths]`` table.
        home: The home directory paths are classified against.
        rows: The configured ``[[tool-effects]]`` rows.
        programs: The configured option tables (``[programs.NAME]``).
        dialect: The shell language of a shell tool's text (`ShellTool.dialect`);
            only ``bash`` is read.
    """

    tool: str
    input: dict[str, Any]
    source: str | None = None
    is_shell: bool = False
    cwd: str | None = None
    start: str | None = None
    refusal: str | None = None
    paths: PathsSection = msgspec.field(default_factory=PathsSection)
    home: str | None = None
    rows: tuple[ToolEffects, ...] = ()
    dialect: str = "bash"
    programs: dict[str, UserTable] = msgspec.field(default_factory=dict)


class CallReading(msgspec.Struct, frozen=True, kw_only=True):
    """
    A call, read.

    Attributes:
        input: The input with every secret masked.
        analysis: The shell text's `CallAnalysis`, when there is shell text.
        effects: What the call does by its tool's input (`tool_effects`):
            everything, for a tool that is not a shell; what its row adds, for
            a shell tool.
        secrets: The secrets of the shell text as ``(value, kind)`` pairs, to
            mask wherever they reappear (the user's request); kept in memory,
            never published.
        plan: The unmeasured plan of a shell text in a language the gateway
            does not read (then there is no analysis).
        start: Where the shell text starts, when its tool's input names a
            directory (a heredoc body is read there too).
    """

    input: dict[str, Any]
    analysis: CallAnalysis | None = None
    plan: ProgramPlan | None = None
    effects: tuple[Effect, ...] = ()
    secrets: tuple[tuple[str, str], ...] = ()
    start: str | None = None


@bounded_task
def read_call(text: CallText) -> CallReading:
    """
    Read one call: its tool's effects, its shell text's analysis, its masked input (each text scanned once).

    When the review's CPU budget runs out (`CpuSpent`), the call is read as
    one that cannot be: an unmeasured plan, and an opaque effect for what
    its tool's input would have said.
    """
    try:
        reading = _read_call(text)
        raise_if_spent()
    except CpuSpent as spent:
        return _spent_reading(text, spent.seconds)
    return reading


def _spent_reading(text: CallText, seconds: float) -> CallReading:
    """What is known of a call whose reading ran out of CPU time: nothing it does."""
    clause = f"reading the call used more than the {seconds:g} s of CPU time a review may use"
    reason = f"{clause[0].upper()}{clause[1:]}, so what it does is not known."
    masked = mask_value(text.input)
    if text.source is None:
        return CallReading(input=masked, effects=(Opaque(reason=clause),))
    plan = unreadable_plan(text.source, reason)
    sequence = SequencePlan(status="unmeasured", steps=(), reason=reason)
    return CallReading(
        input=masked,
        analysis=CallAnalysis(plan=plan, sequence=sequence),
        effects=(Opaque(reason=clause),),
        secrets=source_secrets(text.source),
    )


def _read_call(text: CallText) -> CallReading:
    own: tuple[Effect, ...] = ()
    start = text.start
    if not text.is_shell or row_for(text.tool, text.rows) is not None:
        paths = path_context(text.paths, text.cwd, text.home)
        own = tool_effects(text.tool, text.input, text.rows, paths)
        start = tool_directory(text.tool, text.input, text.rows, text.cwd)
    elif text.refusal is not None:
        own = (Opaque(reason=text.refusal),)
    source = text.source
    if source is None:
        return CallReading(input=mask_value(text.input), effects=own)
    found = find_secrets(source)
    known = _pairs(source, found)
    masked = mask_value(text.input, known, source=source, source_found=found)
    if text.dialect != "bash":
        # A shell in a language the planner does not read: the text is kept,
        # and the call is unmeasured (never auto-allowed), like unreadable bash.
        plan = unreadable_plan(
            source,
            f"`{text.tool}` runs {text.dialect} text, which the gateway does not read; a person must decide.",
        )
        return CallReading(input=masked, effects=own, secrets=known, plan=plan)
    analysis = analyse_call(
        source,
        analysis_context(text.paths, text.cwd, home=text.home, programs=text.programs, start=start),
    )
    return CallReading(input=masked, analysis=analysis, effects=own, secrets=known, start=start)


class MaskText(msgspec.Struct, frozen=True, kw_only=True):
    """A text to mask (the user's request), and secrets already known to mask in it too."""

    text: str
    known: tuple[tuple[str, str], ...] = ()


@bounded_task
def mask_request(text: MaskText) -> str:
    """The text with every secret masked: its own, and the known ones wherever they appear."""
    return mask_text(text.text, text.known)


class BodyText(msgspec.Struct, frozen=True, kw_only=True):
    """
    What a worker is sent to complete a heredoc body with the host's answers.

    Attributes:
        source: The call's shell text.
        fragments: What expanding its heredocs needs (from its analysis).
        statement: Which statement.
        heredoc: Which heredoc (flat index).
        answers: The outputs of its holes, by hole index.
        shell: Whether the command reading the body is a shell (then it is analysed).
        cwd: Where the call runs.
        start: Where its text starts, when its tool's input names a directory.
        paths: The ``[paths]`` table.
        home: The home directory.
        programs: The configured option tables (``[programs.NAME]``).
    """

    source: str
    fragments: Fragments
    statement: int
    heredoc: int
    answers: dict[int, str]
    shell: bool = False
    cwd: str | None = None
    start: str | None = None
    paths: PathsSection = msgspec.field(default_factory=PathsSection)
    home: str | None = None
    programs: dict[str, UserTable] = msgspec.field(default_factory=dict)


class BodyReading(msgspec.Struct, frozen=True, kw_only=True):
    """
    A completed heredoc body, or why it is not complete.

    Attributes:
        error: Why it cannot be expanded at all (one sentence), if so.
        blocked: Whether holes are still unanswered.
        body: The completed text, secrets masked.
        body_plan: Its plan, when a shell reads it.
    """

    error: str | None = None
    blocked: bool = False
    body: str | None = None
    body_plan: ProgramPlan | None = None


@bounded_task
def read_body(text: BodyText) -> BodyReading:
    """Expand a heredoc body with the host's answers (nothing read again); mask it, and analyse it when a shell reads it."""
    try:
        expansion = expand_planned(
            text.source,
            text.fragments,
            FragmentAddr(statement=text.statement, heredoc=text.heredoc),
            {},
            text.answers,
            strict=False,
        )
    except FragmentError as error:
        return BodyReading(error=error.message)
    if expansion.complete is None:
        return BodyReading(blocked=True)
    body = expansion.complete
    plan = None
    if text.shell:
        context = analysis_context(
            text.paths, text.cwd, home=text.home, programs=text.programs, start=text.start
        )
        plan = analyse_call(body, context).plan
    return BodyReading(body=Redactor(body).mask(0, len(body)), body_plan=plan)


def warm_up() -> None:
    """Load the readers and tables a worker needs for every call (run once when it starts)."""
    read_call(
        CallText(
            tool="Bash",
            input={"command": "true"},
            source="cat <<EOF > notes.txt\n$(git rev-parse HEAD)\nEOF",
            is_shell=True,
        )
    )
    read_call(CallText(tool="Read", input={"file_path": "README.md"}))
