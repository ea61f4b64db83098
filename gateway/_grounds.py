"""
Grounds: whether an allow stands on facts the plan states, so a host may skip its own checks.

A host with permission checks of its own — Claude Code blocks ``cat
~/.ssh/id_rsa`` outside the project, Codex runs commands in its sandbox — must
never be made less safe by the gateway in front of it. So an adapter for such
a host answers ``allow`` only when the allow is *founded*, and otherwise gives
no decision, leaving the call to the host's own rules (`Verdict.founded`).

An allow is founded when a person decided (they read the call, as the host's
own prompt would have had them do), or when all of these hold:

* the call is a shell call with a measured plan and no heredoc holes;
* no effect of the plan (the statements' own and every command's, nested
  shell text included: `gateway._plan.iter_effects`) is `Opaque`;
* every path a command reads, writes or moves into lies inside the workspace
  or a temporary directory (and is not a secret or persistence file there);
* no command runs further code (`Execute`), talks to the network, reads the
  whole environment, or outlives the call (`Lifetime`).

Anything else is left to the host: a tool that is not a shell (hosts gate
their file tools by path themselves), an unmeasured plan, a command whose
effects are not stated, a read of the home directory. Pure and synchronous;
it reads the plan, never the text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from gateway._calls._effects import (
    Bind,
    ChangeDirectory,
    Effect,
    EffectPath,
    PathClass,
    Read,
    Write,
)
from gateway._calls._plans import ProgramPlan
from gateway._plan import iter_effects

__all__ = ["FOUNDED_PATH_CLASSES", "effects_founded", "plan_founded"]

FOUNDED_PATH_CLASSES: Final[frozenset[PathClass]] = frozenset({"workspace", "temp"})
"""The path classes an allow may stand on: every class of every path must be one of these."""


def _path_founded(path: EffectPath) -> bool:
    return path.value is not None and set(path.classes) <= FOUNDED_PATH_CLASSES


def effects_founded(effects: Iterable[Effect]) -> bool:
    """
    Whether a command's effects are all known and all inside the workspace or a temporary directory.

    Binding variables and options stays inside the shell that runs the call,
    so it is founded; reads, writes and directory changes are founded when
    their path is; every other effect (running code, the network, reading
    the environment, outliving the call, anything `Opaque`) is not.
    """
    for effect in effects:
        if isinstance(effect, Bind):
            continue
        if isinstance(effect, Read | Write | ChangeDirectory):
            if not _path_founded(effect.path):
                return False
            continue
        return False
    return True


def plan_founded(plan: ProgramPlan | None, *, holes: int = 0) -> bool:
    """
    Whether an allow of a call with this plan stands on the plan's facts alone.

    Args:
        plan: The call's plan (``None`` for a tool that is not a shell).
        holes: How many heredoc holes the call has (each runs code before
            its body is known, so a call with any is left to the host).
    """
    if plan is None or plan.status != "measured" or holes or not plan.statements:
        return False
    return all(
        effects_founded(effect for _, effect in iter_effects(statement.plan))
        for statement in plan.statements
    )
