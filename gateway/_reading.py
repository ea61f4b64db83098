"""
What the gateway computes from the text of a call, as bounded tasks.

Reading a call — its shell plan, its sequence plan, the holes of its heredocs,
the secrets of its text and the input with them masked — is pure computation
on text an agent wrote, so the gateway never does it on its event loop: it
sends a `CallText` to a worker of its `gateway._bounded.BoundedPool` and gets a
`CallReading` back, or a failure it turns into a decline. The same holds for a
heredoc body the host completes (`read_body`).

Each text is scanned for secrets once: the secrets of the shell text are found
once and reused to mask the command field, the sequence plan and every other
string that repeats them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import msgspec

from gateway._bounded import bounded_task
from gateway._events import HoleRef
from gateway._fragments import expand_fragment
from gateway._planner import plan_program
from gateway._plans import FragmentAddr, FragmentError, Hole, ProgramPlan, SequencePlan
from gateway._redact import Redactor, Secret, find_secrets
from gateway._sequence import command_sequence_plan

__all__ = [
    "BodyReading",
    "BodyText",
    "CallReading",
    "CallText",
    "MaskText",
    "holes_of",
    "mask_sequence",
    "mask_text",
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
            value = Redactor(value, source_found).mask(0, len(value))
            for secret, kind in known:
                value = value.replace(secret, f"<{kind}>")
            return value
        for secret, kind in known:
            value = value.replace(secret, f"<{kind}>")
        return Redactor(value).mask(0, len(value))
    if isinstance(value, list | tuple):
        return [mask_value(item, known, source=source, source_found=source_found) for item in value]
    if isinstance(value, dict):
        masked: dict[Any, Any] = {}
        for key, item in value.items():
            # A string under a key that names a secret ({"password": "…"}, an
            # env map's "GITHUB_TOKEN") holds nothing the value patterns can
            # see: without its key it would be published verbatim.
            named = _secret_key_kind(key) if isinstance(item, str) and item else None
            masked[key] = (
                f"<{named}>"
                if named is not None
                else mask_value(item, known, source=source, source_found=source_found)
            )
        return masked
    return value


def mask_sequence(
    sequence: SequencePlan, source: str, known: Sequence[tuple[str, str]] | None = None
) -> SequencePlan:
    """A sequence plan with every secret of ``source`` masked in its argv (the values are quote-removed)."""
    secrets = source_secrets(source) if known is None else known
    if not secrets:
        return sequence

    def mask(text: str) -> str:
        return str(mask_value(text, secrets))

    steps = tuple(
        msgspec.structs.replace(step, argv=tuple(mask(arg) for arg in step.argv))
        for step in sequence.steps
    )
    # The reason quotes words of the source ("The word `https://…?api_key=…`
    # holds an expansion or glob character."), so it is masked too.
    reason = None if sequence.reason is None else mask(sequence.reason)
    return msgspec.structs.replace(sequence, steps=steps, reason=reason)


def holes_of(source: str, plan: ProgramPlan) -> list[tuple[HoleRef, Hole]]:
    """Every hole of every unquoted heredoc of a measured plan, in order."""
    found: list[tuple[HoleRef, Hole]] = []
    if plan.status != "measured":
        return found
    for statement in plan.statements:
        for command in statement.plan.commands:
            for heredoc in command.heredocs:
                if heredoc.literal or not heredoc.holes:
                    continue
                address = FragmentAddr(statement=statement.index, heredoc=heredoc.index)
                try:
                    expansion = expand_fragment(source, address, {}, strict=False)
                except FragmentError:
                    continue
                if expansion.blocked is None:
                    continue
                found.extend(
                    (
                        HoleRef(statement=statement.index, heredoc=heredoc.index, hole=hole.index),
                        hole,
                    )
                    for hole in expansion.blocked.holes
                )
    return found


class CallText(msgspec.Struct, frozen=True, kw_only=True):
    """
    What a worker is sent to read a call.

    Attributes:
        input: The call's input, as JSON-like data (already checked at the door).
        source: The shell text of a shell call, or ``None``.
        cwd: The working directory, for the sequence plan (relative only).
    """

    input: dict[str, Any]
    source: str | None = None
    cwd: str = ""


class CallReading(msgspec.Struct, frozen=True, kw_only=True):
    """
    A call, read: its masked input and, for a shell call, its plans and holes.

    Attributes:
        input: The input with every secret masked.
        plan: The shell plan (redacted), or ``None`` when there is no shell text.
        sequence: The strict sequence plan, secrets masked.
        holes: Every hole of every unquoted heredoc, in order.
        secrets: The secrets of the shell text as ``(value, kind)`` pairs, to
            mask wherever they reappear (the user's request); kept in memory,
            never published.
    """

    input: dict[str, Any]
    plan: ProgramPlan | None = None
    sequence: SequencePlan | None = None
    holes: tuple[tuple[HoleRef, Hole], ...] = ()
    secrets: tuple[tuple[str, str], ...] = ()


@bounded_task
def read_call(text: CallText) -> CallReading:
    """Read one call: plan its shell text, find its holes, mask its secrets (each text scanned once)."""
    source = text.source
    if source is None:
        return CallReading(input=mask_value(text.input))
    found = find_secrets(source)
    known = _pairs(source, found)
    plan = plan_program(source)
    relative = text.cwd if text.cwd and not text.cwd.startswith("/") else ""
    sequence = mask_sequence(command_sequence_plan(source, relative), source, known)
    return CallReading(
        input=mask_value(text.input, known, source=source, source_found=found),
        plan=plan,
        sequence=sequence,
        holes=tuple(holes_of(source, plan)),
        secrets=known,
    )


class MaskText(msgspec.Struct, frozen=True, kw_only=True):
    """A text to mask (the user's request), and secrets already known to mask in it too."""

    text: str
    known: tuple[tuple[str, str], ...] = ()


@bounded_task
def mask_text(text: MaskText) -> str:
    """The text with every secret masked: its own, and the known ones wherever they appear."""
    return str(mask_value(text.text, text.known))


class BodyText(msgspec.Struct, frozen=True, kw_only=True):
    """
    What a worker is sent to complete a heredoc body with the host's answers.

    Attributes:
        source: The call's shell text.
        statement: Which statement.
        heredoc: Which heredoc (flat index).
        answers: The outputs of its holes, by hole index.
        shell: Whether the command reading the body is a shell (then it is planned).
    """

    source: str
    statement: int
    heredoc: int
    answers: dict[int, str]
    shell: bool = False


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
    """Expand a heredoc body with the host's answers; mask it, and plan it when a shell reads it."""
    try:
        expansion = expand_fragment(
            text.source,
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
    return BodyReading(
        body=Redactor(body).mask(0, len(body)),
        body_plan=plan_program(body) if text.shell else None,
    )


def warm_up() -> None:
    """Load the readers and tables a worker needs for every call (run once when it starts)."""
    read_call(CallText(input={"command": "true"}, source="cat <<EOF\n$(true)\nEOF"))
