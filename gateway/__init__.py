"""
agent-gateway: decide, before anything runs, whether an agent's proposed tool call may run.

The public surface. Everything importable from ``gateway`` is listed in
``__all__``; modules with a leading underscore are internal.

Examples:
    >>> from gateway import plan_program
    >>> plan = plan_program("cd src && grep -rn TODO .")
    >>> [c.position.program.basename for c in plan.statements[0].plan.commands]
    ['cd', 'grep']
"""

from gateway._fragments import expand_fragment as expand_fragment
from gateway._launchers import LAUNCHERS as LAUNCHERS, LauncherRow as LauncherRow
from gateway._planner import (
    iter_commands as iter_commands,
    plan_program as plan_program,
    read_program_position as read_program_position,
)
from gateway._plans import (
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
from gateway._position import NOT_AUTO_ALLOWED as NOT_AUTO_ALLOWED
from gateway._sequence import command_sequence_plan as command_sequence_plan
from gateway._shell import ShellReading as ShellReading, read_shell as read_shell

__all__ = [
    "LAUNCHERS",
    "NOT_AUTO_ALLOWED",
    "PLAN_RENDER_LIMIT",
    "Blocked",
    "BlockedBody",
    "Complete",
    "Expansion",
    "FragmentAddr",
    "FragmentError",
    "Hole",
    "LauncherRow",
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
    "ShellReading",
    "StatementPlan",
    "command_sequence_plan",
    "expand_fragment",
    "iter_commands",
    "plan_program",
    "read_program_position",
    "read_shell",
]
