"""
Confinement for one call: the boundary a profile gives it, and an allow as the caller can run it.

`confinement` resolves a profile's boundary (`gateway._review._boundary`)
against the call's working directory and this process's environment, and
keeps what holds the gateway's record and the workspace repository's hooks
read-only; `confined` turns an allow into one the caller can run — inside
its boundary — or into an ask that says why it cannot.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import msgspec

from gateway._calls._calls import ToolCall
from gateway._calls._confinement import Confinement, Confining
from gateway._calls._errors import ConfigError
from gateway._calls._verdicts import Verdict, unconfined
from gateway._programs._git_trust import persistence_points
from gateway._review._boundary import resolve_confinement
from gateway._settings._config import GatewayConfig, secret_files, state_path

__all__ = ["confined", "confinement"]


def confinement(config: GatewayConfig, call: ToolCall, profile: str) -> Confinement | str:
    """A profile's boundary for one call, or why it cannot be confined: `Gateway.confinement`."""
    try:
        section = config.profile(profile).confinement
    except ConfigError as error:
        return f"its profile is not defined ({error})"
    environ = os.environ
    found = resolve_confinement(
        profile,
        section,
        cwd=call.cwd,
        home=config.paths.home or environ.get("HOME"),
        paths=config.paths,
        search_path=environ.get("PATH"),
        secret_files=secret_files(config, environ),
    )
    if isinstance(found, str):
        return found
    # What keeps the record (the logs, a file witness's copy of their
    # checkpoints) stays read-only wherever it lies.
    own = tuple(
        str(state_path(path))
        for path in (
            *(sink.path for sink in config.sinks.values()),
            *(witness.path for witness in config.witnesses.values()),
        )
        if path is not None
    )
    # Where the workspace's repository really keeps its hooks and
    # configuration (`core.hooksPath`, a `.git` file's git directory).
    points = persistence_points((*found.workspace, *found.write), environ=environ)
    if points.unknown is not None:
        return f"where its repository keeps its hooks is not known: {points.unknown}"
    protect = (*found.protect, *own, *points.patterns)
    return msgspec.structs.replace(found, protect=tuple(dict.fromkeys(protect)))


def confined(
    verdict: Verdict,
    call: ToolCall,
    confining: Confining | None,
    boundary: Callable[[ToolCall, str], Confinement | str],
) -> Verdict:
    """An allow as the caller can run it: inside its boundary (``boundary(call, profile)``), or an ask that says why not."""
    if verdict.decision != "allow":
        return verdict
    needed = verdict.boundary
    if confining is None:
        if needed is None:
            return verdict
        why = "this caller runs nothing inside a boundary (`gateway run` does)"
    elif confining.unavailable is not None:
        why = f"it is not confinable here: {confining.unavailable}"
    else:
        found = needed if needed is not None else boundary(call, confining.profile)
        if isinstance(found, Confinement):
            return msgspec.structs.replace(verdict, confinement=found)
        why = f"it cannot be confined: {found}"
    return unconfined(verdict, why, needed=needed is not None)
