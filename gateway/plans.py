"""
Plans: what a shell call would run, read without running anything.

A namespace of the public API (like ``trio.lowlevel``): `plan_program` reads
a call's text into a `ProgramPlan` (one `StatementPlan` per top-level
statement, each a `Plan` of `PlannedCommand`s with their words, redirects,
heredocs and program positions); `iter_commands` walks a plan's commands;
`expand_fragment` expands one heredoc to the text its command reads, with its
`Hole`s; `command_sequence_plan` observes the literal steps of a command and
the directory each runs in. docs/concepts.md shows each. Reading the text's
syntax, and which program a command runs, is `gateway.shell`'s.

Examples:
    >>> from gateway.plans import iter_commands, plan_program
    >>> plan = plan_program("cd src && grep -rn TODO .")
    >>> [c.position.program.basename for c in iter_commands(plan.statements[0].plan)]
    ['cd', 'grep']
"""

from gateway._calls._plans import (
    PLAN_RENDER_LIMIT as PLAN_RENDER_LIMIT,
    Blocked as Blocked,
    BlockedBody as BlockedBody,
    Complete as Complete,
    Expansion as Expansion,
    FragmentAddr as FragmentAddr,
    FragmentError as FragmentError,
    Hole as Hole,
    LauncherStep as LauncherStep,
    NestedShell as NestedShell,
    Plain as Plain,
    Plan as Plan,
    PlannedAssignment as PlannedAssignment,
    PlannedCommand as PlannedCommand,
    PlannedHeredoc as PlannedHeredoc,
    PlannedRedirect as PlannedRedirect,
    PlannedValue as PlannedValue,
    PositionRefusal as PositionRefusal,
    ProgramName as ProgramName,
    ProgramPlan as ProgramPlan,
    ProgramPosition as ProgramPosition,
    Redacted as Redacted,
    Redaction as Redaction,
    SequencePlan as SequencePlan,
    SequenceStep as SequenceStep,
    StatementPlan as StatementPlan,
)
from gateway._plan import iter_commands as iter_commands, plan_program as plan_program
from gateway._plan._fragments import expand_fragment as expand_fragment
from gateway._plan._sequence import command_sequence_plan as command_sequence_plan

__all__ = [
    "PLAN_RENDER_LIMIT",
    "Blocked",
    "BlockedBody",
    "Complete",
    "Expansion",
    "FragmentAddr",
    "FragmentError",
    "Hole",
    "LauncherStep",
    "NestedShell",
    "Plain",
    "Plan",
    "PlannedAssignment",
    "PlannedCommand",
    "PlannedHeredoc",
    "PlannedRedirect",
    "PlannedValue",
    "PositionRefusal",
    "ProgramName",
    "ProgramPlan",
    "ProgramPosition",
    "Redacted",
    "Redaction",
    "SequencePlan",
    "SequenceStep",
    "StatementPlan",
    "command_sequence_plan",
    "expand_fragment",
    "iter_commands",
    "plan_program",
]
