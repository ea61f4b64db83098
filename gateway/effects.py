"""
What a call does, as data: the effects vocabulary and the one reading that states it.

A namespace of the public API (like ``trio.abc``): the effect types every
planned command carries (``PlannedCommand.effects``, ``Plan.effects``), the
paths they touch and their classes, and the functions that state them —
`analyse_call` for shell text, `tool_effects` for other tools — with
`iter_effects` to walk a plan's effects in order, `holds_home` to tell a
working directory that is no workspace (the home directory, one above it,
``/``), `summarise_effects` to say them in one
sentence, writes first; `UserTable`, the option table a configuration
declares for a program of its own (``[programs.NAME]``), which the reading
uses like a built-in one, with its `RowExample` examples. Policies judge these; none of them reads shell text.

Examples:
    >>> from gateway.effects import AnalysisContext, PathContext, analyse_call
    >>> context = AnalysisContext(paths=PathContext(cwd="/work/app"))
    >>> analysis = analyse_call("printf '[core]\\\\n' >& .git/config", context)
    >>> [(e.effect, e.path.value, e.path.classes) for e in analysis.effects]
    [('write', '/work/app/.git/config', ('workspace', 'persistence'))]
"""

from gateway._calls._effects import (
    PATH_CLASSES as PATH_CLASSES,
    PLAN_FORMAT as PLAN_FORMAT,
    AddressClass as AddressClass,
    Bind as Bind,
    BindVia as BindVia,
    ChangeDirectory as ChangeDirectory,
    Effect as Effect,
    EffectPath as EffectPath,
    Execute as Execute,
    ExecuteKind as ExecuteKind,
    Lifetime as Lifetime,
    LifetimeKind as LifetimeKind,
    Network as Network,
    NetworkKind as NetworkKind,
    Opaque as Opaque,
    Origin as Origin,
    PathClass as PathClass,
    Privilege as Privilege,
    Read as Read,
    ReadEnvironment as ReadEnvironment,
    Write as Write,
    WriteAction as WriteAction,
)
from gateway._calls._places import PathsSection as PathsSection, holds_home as holds_home
from gateway._plan import iter_effects as iter_effects
from gateway._plan._globs import (
    GLOB_OPTIONS as GLOB_OPTIONS,
    is_glob as is_glob,
    name_matches as glob_name_matches,
)
from gateway._plan._paths import (
    PathContext as PathContext,
    classify as classify_path,
    path_context as path_context,
)
from gateway._programs._rows import RowExample as RowExample
from gateway._programs._user import UserTable as UserTable
from gateway._review._analysis import (
    AnalysedHole as AnalysedHole,
    AnalysisContext as AnalysisContext,
    CallAnalysis as CallAnalysis,
    analyse_call as analyse_call,
    analysis_context as analysis_context,
    tool_effects as tool_effects,
)
from gateway._review._summary import (
    SUMMARY_CLAUSES as SUMMARY_CLAUSES,
    WRITE_VERBS as WRITE_VERBS,
    Clause as Clause,
    effect_clauses as effect_clauses,
    say_clauses as say_clauses,
    summarise_effects as summarise_effects,
)
from gateway._settings._tools import (
    DEFAULT_TOOL_EFFECTS as DEFAULT_TOOL_EFFECTS,
    ToolEffects as ToolEffects,
)

__all__ = [
    "DEFAULT_TOOL_EFFECTS",
    "GLOB_OPTIONS",
    "PATH_CLASSES",
    "PLAN_FORMAT",
    "SUMMARY_CLAUSES",
    "WRITE_VERBS",
    "AddressClass",
    "AnalysedHole",
    "AnalysisContext",
    "Bind",
    "BindVia",
    "CallAnalysis",
    "ChangeDirectory",
    "Clause",
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
    "PathContext",
    "PathsSection",
    "Privilege",
    "Read",
    "ReadEnvironment",
    "RowExample",
    "ToolEffects",
    "UserTable",
    "Write",
    "WriteAction",
    "analyse_call",
    "analysis_context",
    "classify_path",
    "effect_clauses",
    "glob_name_matches",
    "holds_home",
    "is_glob",
    "iter_effects",
    "path_context",
    "say_clauses",
    "summarise_effects",
    "tool_effects",
]
