"""
What judging a call needs from outside its plan: the workspace, and the git repositories it uses.

The workspace roots are the call's working directory and the configured
project roots; effect paths show them as ``~/…`` under the home directory.
For a git command the allow also rests on the repository it would use
(docs/git-trust.md): the directories git commands run in are collected from
the plan, inspected with `gateway.inspect_repository` (bounded file reads, in
a worker thread, before judging), and the judging itself only looks the
inspections up, with `gateway.configured_refusal`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence

import anyio.to_thread

from gateway import (
    Plan,
    PlannedCommand,
    RepositoryInspection,
    configured_refusal,
    inspect_repository,
    iter_commands,
)
from gateway.effects import Execute, PathsSection

__all__ = [
    "CLEAN_REPOSITORY",
    "absolute",
    "git_directories",
    "inspect_all",
    "repository_check",
    "workspace_roots",
]

CLEAN_REPOSITORY = RepositoryInspection(work_tree=".", git_dir="./.git")
"""A repository inside the workspace whose configuration sets no code: how rule examples are judged."""


def _normal(path: str) -> str:
    return os.path.normpath(path) if path.startswith("/") else path


def workspace_roots(
    paths: PathsSection, cwd: str | None, home: str | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """
    The workspace roots: absolute, and as effect paths show them (``~/…`` under ``home``).

    With no absolute working directory the call's own directory is ``.``.
    """
    found = [_normal(cwd)] if cwd and cwd.startswith("/") else []
    found += [_normal(root) for root in paths.project_roots if root.startswith("/")]
    shown: list[str] = [] if found and found[0] == _normal(cwd or "") else ["."]
    for root in found:
        if home and (root == home or root.startswith(home.rstrip("/") + "/")):
            shown.append("~" + root[len(home.rstrip("/")) :])
        else:
            shown.append(root)
    return tuple(found), tuple(dict.fromkeys(shown))


def absolute(shown: str | None, home: str | None, cwd: str | None = None) -> str | None:
    """
    An effect path's value as an absolute path.

    A relative value is under ``cwd`` when that is absolute; ``None`` when the
    value is unknown or relative to a directory that is not known.
    """
    if shown is None:
        return None
    if shown == "~" or shown.startswith("~/"):
        return None if home is None else home.rstrip("/") + shown[1:]
    if shown.startswith("/"):
        return shown
    if cwd is not None and cwd.startswith("/") and not shown.startswith("~"):
        return os.path.normpath(os.path.join(cwd, shown))
    return None


def _is_git(command: PlannedCommand) -> bool:
    program = command.position.program
    return program is not None and program.basename == "git"


def git_directories(plans: Iterable[Plan]) -> set[str | None]:
    """The directories (effect path values) the plans' git commands run in."""
    found: set[str | None] = set()
    for plan in plans:
        for command in iter_commands(plan):
            if _is_git(command):
                found.update(path.value for path in command.directories or ())
    return found


async def inspect_all(
    directories: Iterable[str | None],
    *,
    home: str | None,
    cwd: str | None,
    roots: Sequence[str],
    environ: Mapping[str, str],
) -> dict[str, RepositoryInspection]:
    """
    Inspect the repository git would use from each directory that is known (file reads, in a thread).

    Relative directories are under the call's working directory ``cwd``.
    """
    inspections: dict[str, RepositoryInspection] = {}
    for shown in sorted(d for d in directories if d is not None):
        path = absolute(shown, home, cwd)
        if path is None:
            continue

        def inspect(path: str = path) -> RepositoryInspection:
            return inspect_repository(path, workspace=roots, environ=environ)

        inspections[shown] = await anyio.to_thread.run_sync(inspect)
    return inspections


def repository_check(
    inspections: Mapping[str, RepositoryInspection] | None,
) -> Callable[[PlannedCommand], str | None]:
    """
    For a git command: why its repository cannot be trusted, or ``None`` (`gateway.configured_refusal`).

    ``inspections`` maps each directory to its inspection; ``None`` judges
    every git command as if in `CLEAN_REPOSITORY` (rule examples).
    """

    def check(command: PlannedCommand) -> str | None:
        configured = [
            effect.via.removeprefix("git ")
            for effect in command.effects
            if isinstance(effect, Execute) and effect.kind == "configured"
        ]
        places = [path.value for path in command.directories] or [None]
        for place in places:
            if inspections is None:
                inspection = CLEAN_REPOSITORY
            elif place is None or place not in inspections:
                return "the directory git would run in is only known when it runs, so its repository cannot be checked"
            else:
                inspection = inspections[place]
            refusal = configured_refusal(command.subcommand, configured, inspection)
            if refusal is not None:
                return refusal
        return None

    return check
