"""
The planner: a shell call's text → `ProgramPlan`, without running anything.

Pure, synchronous and deterministic. It reads the text with the consensus
shell reader once and walks the neutral tree statement by statement, in the
order bash would run it, publishing every simple command that would run (in
walk order: pipeline stages, conditions and bodies, then each command's
substitutions and the ``$( )`` of its unquoted heredoc bodies), its program
position, its heredocs with flat indexes and their holes, the shell text it
launches (planned in turn, to a bounded depth), the statement's variables,
and what every command does: its *effects* (`gateway._calls._effects`), over paths
resolved against the effective working directory and classified.

The package is split by noun: `_builder` (the walk), `_scope` (directories
and bindings along the walk), `_paths` and `_addresses` (values and their
classes), `_numbers` (where bash evaluates text as a number), `_builtins`
(what the shell's own commands do), `_programs` (launchers and option
tables), `_nested` (shell text inside shell text), `_variables`, `_parts`
(the one walk over a word's parts), `_kinds` and `_digests`.

Digests are computed from the unredacted plan; what is published has its
secrets masked (see `gateway._plan._redact`). When no secret is found anywhere,
the two are one plan, built once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Final, NamedTuple

from gateway._calls._digest import digest_of
from gateway._calls._effects import Effect
from gateway._calls._plans import (
    Plan,
    PlannedCommand,
    ProgramPlan,
    ProgramPosition,
    StatementPlan,
)
from gateway._plan._builder import (
    MAX_NESTED_SHELL_DEPTH,
    TRUNCATION_MARKER,
    Builder,
    PlannedStatement,
    PlanningRun,
    TooLarge,
    position_words,
)
from gateway._plan._digests import program_digest
from gateway._plan._display import display_hazards
from gateway._plan._paths import (
    EXPANSION_PER_CHARACTER,
    PathContext,
    expansion_allowance,
    start_directory,
)
from gateway._plan._position import PositionWord, decline_sentence, read_position
from gateway._plan._programs import ArgumentReader, read_arguments
from gateway._plan._redact import Redactor
from gateway._plan._scope import Scope
from gateway._read import ShellReading, read_shell
from gateway._read._segment import split_segment
from gateway._read._source import Source
from gateway._read._tree import SimpleCommand, Statement, Word

__all__ = [
    "MAX_NESTED_SHELL_DEPTH",
    "TRUNCATION_MARKER",
    "PlanResult",
    "PlannedStatement",
    "iter_commands",
    "iter_effects",
    "plan_program",
    "plan_source",
    "plan_statements",
    "position_words",
    "read_program_position",
    "unreadable_plan",
]


_NO_CONTEXT: Final = PathContext()
"""The context of a call planned without one (frozen: one for all, its hash computed once)."""


class PlanResult(NamedTuple):
    """
    Everything one planning of a text gives.

    Attributes:
        unredacted: The plan with nothing masked (digests are computed from it).
        published: The same plan with its secrets masked; the same object
            when there is no secret.
        statements: The statements as published, with the heredoc nodes and
            holes fragments need.
        reading: The shell reader's reading of the text.
        reads: How many texts were read (the call's, and each nested literal).
    """

    unredacted: ProgramPlan
    published: ProgramPlan
    statements: tuple[PlannedStatement, ...]
    reading: ShellReading
    reads: int


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _unmeasured(source: str, reason: str, *, redact: bool) -> ProgramPlan:
    # A text with a lone surrogate is not Unicode any encoder writes: the
    # plan shows it (and its digest is of it) with each one replaced.
    source = _SURROGATE.sub("\ufffd", source)
    digest = program_digest(source, "unmeasured", reason)
    shown = source
    if redact:
        # A reader's reason may quote the text it could not read: mask it like the source.
        redactor = Redactor(source)
        shown, reason = redactor.mask(0, len(source)), redactor.scrub(reason)
    return ProgramPlan(
        source=shown,
        status="unmeasured",
        reason=reason,
        statements=(),
        digest=digest,
        display_hazard=display_hazards(source),
    )


def unreadable_plan(source: str, reason: str) -> ProgramPlan:
    """An unmeasured plan of ``source`` with ``reason`` (secrets masked), for text the planner must not read."""
    return _unmeasured(source, reason, redact=True)


def _build(
    source: str, statements: Sequence[Statement], run: PlanningRun, *, redact: bool
) -> tuple[Builder, list[PlannedStatement]]:
    builder = Builder(Source(source), run, 0, redact=redact)
    scope = Scope(start_directory(run.paths))
    with expansion_allowance(len(source)) as left:
        planned = [builder.statement(s, scope) for s in statements]
    if left[0] < 0:
        raise TooLarge(
            f"The text builds values of more than {EXPANSION_PER_CHARACTER} characters per"
            " character of its own, which bash would make and the planner does not follow."
        )
    return builder, planned


def plan_source(
    source: str,
    paths: PathContext | None = None,
    *,
    arguments: ArgumentReader = read_arguments,
) -> PlanResult:
    """
    Plan ``source`` once, unredacted and published, with the internals fragments need.

    Args:
        source: The shell text.
        paths: The call's working directory, home and path classes.
        arguments: What reads a program's arguments (the option tables).
    """
    run = PlanningRun(paths or _NO_CONTEXT, arguments)
    reading = run.reading(source)
    if reading.program is None:
        reason = reading.reason or "The text could not be read."
        plain = _unmeasured(source, reason, redact=False)
        shown = _unmeasured(source, reason, redact=True) if run.secrets(source) else plain
        return PlanResult(plain, shown, (), reading, run.reads)
    program = reading.program.statements
    try:
        _, planned = _build(source, program, run, redact=False)
    except TooLarge as large:
        plain = _unmeasured(source, large.reason, redact=False)
        shown = _unmeasured(source, large.reason, redact=True) if run.secrets(source) else plain
        return PlanResult(plain, shown, (), reading, run.reads)
    digests = [digest_of(p.plan) for p in planned]
    unredacted = ProgramPlan(
        source=source,
        status="measured",
        reason=None,
        statements=tuple(
            StatementPlan(index=i, plan=p.plan, digest=d)
            for i, (p, d) in enumerate(zip(planned, digests, strict=True))
        ),
        digest=program_digest(source, "measured", None, digests),
        display_hazard=display_hazards(source),
    )
    if not run.saw_secret():
        return PlanResult(unredacted, unredacted, tuple(planned), reading, run.reads)
    builder, masked = _build(source, program, run, redact=True)
    published = ProgramPlan(
        source=builder.redactor.mask(0, len(source)),
        status="measured",
        reason=None,
        statements=tuple(
            StatementPlan(index=i, plan=p.plan, digest=d)
            for i, (p, d) in enumerate(zip(masked, digests, strict=True))
        ),
        digest=unredacted.digest,
        display_hazard=unredacted.display_hazard,
    )
    return PlanResult(unredacted, published, tuple(masked), reading, run.reads)


def plan_statements(
    source: str, paths: PathContext | None = None
) -> tuple[ProgramPlan, tuple[PlannedStatement, ...]]:
    """The unredacted plan of ``source`` and its statements (for digests and tests)."""
    result = plan_source(source, paths)
    return result.unredacted, result.statements


def plan_program(source: str, cwd: str | None = None) -> ProgramPlan:
    """
    Plan a shell call without running anything.

    Never raises for any text: what cannot be read is an unmeasured plan with
    one sentence of reason and no statements (never a partial plan).

    Args:
        source: The shell text, as the agent proposed it.
        cwd: The working directory it would run in (absolute); paths in
            effects are resolved against it (``./…`` when it is not given).

    Returns:
        The plan, secrets masked, with digests of the unredacted plan.

    Examples:
        >>> plan = plan_program("ls -la | wc -l")
        >>> [c.name for c in plan.statements[0].plan.commands]
        ['ls', 'wc']
        >>> plan.statements[0].plan.statement_kind
        'pipeline'
    """
    return plan_source(source, PathContext(cwd=cwd) if cwd else None).published


def iter_commands(plan: Plan) -> Iterator[PlannedCommand]:
    """Every command of a plan and, recursively, of the shell text its commands launch."""
    for command in plan.commands:
        yield command
        for nested in command.nested:
            for inner in nested.plans:
                yield from iter_commands(inner)


def iter_effects(plan: Plan) -> Iterator[tuple[PlannedCommand | None, Effect]]:
    """
    Every effect of a plan, with the command it belongs to (``None``: the statement's own).

    In walk order: the statement's own effects, then each command's, then
    those of the shell text it launches, recursively.

    Examples:
        >>> plan = plan_program("cd /tmp && echo hi > note.txt").statements[0].plan
        >>> [(c.name, e.effect) for c, e in iter_effects(plan) if c is not None]
        [('cd', 'cwd'), ('echo', 'write')]
    """
    for effect in plan.effects:
        yield None, effect
    for command in plan.commands:
        for effect in command.effects:
            yield command, effect
        for nested in command.nested:
            for inner in nested.plans:
                yield from iter_effects(inner)


def read_program_position(command: str | Sequence[Word]) -> ProgramPosition:
    """
    Read which program one simple command really runs.

    Args:
        command: The command as source text (one simple command, or a segment
            such as ``time -p make`` or ``if make`` cut from a larger program),
            or the shell reader's words for it.

    Returns:
        Its `ProgramPosition`. Text that is not one readable command is
        declined as ``unreadable_program_position``.

    Examples:
        >>> position = read_program_position("sudo -u root timeout 5 rm -rf build")
        >>> [step.basename for step in position.launchers], position.program.basename
        (['sudo', 'timeout'], 'rm')
    """
    if not isinstance(command, str):
        return read_position(position_words(command)).position
    reading = read_shell(command)
    program = reading.program
    if program is not None and len(program.statements) == 1:
        andor = program.statements[0].body
        pipeline = andor.pipelines[0]
        only = pipeline.commands[0]
        if (
            len(andor.pipelines) == 1
            and len(pipeline.commands) == 1
            and isinstance(only, SimpleCommand)
        ):
            words = position_words(only.words)
            if pipeline.time is not None:  # the reader took `time` and its options as a keyword
                words.insert(0, PositionWord(text="time", value="time", bare=True))
            if pipeline.negated:
                words.insert(0, PositionWord(text="!", value="!", bare=True))
            return read_position(words, [a.name for a in only.assignments]).position
    segment = split_segment(command)
    if segment is None:
        return ProgramPosition(
            decline="unreadable_program_position",
            reason=decline_sentence(
                "unreadable_program_position", "the text is not one simple command"
            ),
        )
    return read_position(position_words(segment)).position
