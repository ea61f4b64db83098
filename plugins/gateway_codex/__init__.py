"""
Codex CLI's hook contract: Claude Code's format, with Codex's differences.

Registered in the ``gateway.hosts`` entry-point group as ``codex``. Codex
reads hooks from ``hooks.json`` beside its config (``.codex/hooks.json`` of a
project, ``~/.codex/hooks.json``), in Claude Code's shape, and sends Claude
Code's events (``PreToolUse``, ``PermissionRequest``, ``PostToolUse``) with a
``tool_use_id``. What differs, checked against Codex CLI 0.171.0 (its
schemas and its behaviour, driven offline by the end-to-end tests):

* ``permissionDecision: "ask"`` is unsupported: Codex runs the command. An
  ``ask`` is therefore answered ``deny`` with the rule's reason (a person
  cannot be asked from inside Codex's hook).
* Its shell tool may send the command as ``bash -lc 'TEXT'`` (an argv list
  or one string): the call is judged as ``TEXT``, which is what runs.
* An allow the plan does not found is answered with no decision (``{}``):
  Codex's own approval policy and sandbox decide, as without the gateway.
* Codex runs a hook only after the user has trusted it (``/hooks`` in the
  TUI); until then it silently skips it. ``gateway install codex`` says so,
  and ``gateway doctor`` asks Codex itself whether it would run the hook
  (`Codex.consulted`, ``codex app-server``'s ``hooks/list``).
* A hook that crashes or times out is not treated as a block by Codex; the
  hook therefore never fails any way but exit 2, and the installer gives it
  a generous timeout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, Final

import msgspec
from gateway_claude_code import ClaudeCode
from gateway_hooks import (
    HookAnswer,
    HookEvent,
    HookReply,
    HookScope,
    gateway_handlers,
    install_events,
)

from gateway.plans import plan_program
from gateway_codex._trust import codex_hooks, judge_hooks

__all__ = ["HOST", "Codex", "shell_text"]

_SHELLS: Final = frozenset({"bash", "sh", "zsh"})
_COMMAND_FLAGS: Final = frozenset({"-c", "-lc", "-cl"})


def shell_text(command: object) -> str | None:
    """
    The text a ``bash -lc 'TEXT'`` command runs (as an argv list or one string), if it is one.

    Only the exact shape ``SHELL FLAG TEXT`` (``bash``, ``sh`` or ``zsh``, by
    path or name; ``-c`` or ``-lc``) is unwrapped; anything else is judged as
    it is. One string is read by the planner, as bash reads it (``"echo
    \\$(id)"`` runs ``echo $(id)``): only one simple command whose words are
    all literals, with no redirect or assignment, is unwrapped.
    """
    words: list[str] | None
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        words = list(command)
    elif isinstance(command, str):
        words = _literal_words(command)
    else:
        return None
    if words is None:
        return None
    if len(words) == 3 and PurePath(words[0]).name in _SHELLS and words[1] in _COMMAND_FLAGS:
        return words[2]
    return None


def _literal_words(text: str) -> list[str] | None:
    """The words of ``text`` as bash reads them, if it is one simple command of literal words only."""
    plan = plan_program(text)
    if plan.status != "measured" or len(plan.statements) != 1:
        return None
    statement = plan.statements[0].plan
    if statement.statement_kind != "command" or statement.effects or len(statement.commands) != 1:
        return None
    (only,) = statement.commands
    if only.assignments or only.redirects or only.background or only.heredocs or only.expansions:
        return None
    words = [value.plain for value in only.argv if value is not None and value.plain is not None]
    return words if len(words) == len(only.argv) else None


class Codex(ClaudeCode):
    """Codex CLI's hook format (``codex``)."""

    title = "Codex CLI"

    def __init__(self) -> None:
        super().__init__(
            "codex",
            {"PreToolUse": "review", "PermissionRequest": "permission", "PostToolUse": "outcome"},
        )

    def read(self, event: Mapping[str, Any]) -> HookEvent:
        """Claude Code's reading, with ``bash -lc 'TEXT'`` judged as ``TEXT``."""
        read = super().read(event)
        text = shell_text(read.call.input.get("command"))
        if text is None:
            return read
        call = msgspec.structs.replace(read.call, input={**read.call.input, "command": text})
        return msgspec.structs.replace(read, call=call)

    def reply(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        """Claude Code's answers, except that an ``ask`` is a ``deny`` (Codex does not support ask)."""
        if answer.decision == "ask":
            answer = msgspec.structs.replace(
                answer,
                decision="decline",
                reason=f"{answer.reason.rstrip('.')}; Codex cannot ask a person from a hook, so it is not run.",
            )
        return super().reply(event, answer)

    def settings_file(self, scope: HookScope, project: Path, home: Path) -> Path:
        """``.codex/hooks.json`` of the project, or ``~/.codex/hooks.json``."""
        return (project if scope == "project" else home) / ".codex" / "hooks.json"

    def install(self, settings: dict[str, Any], command: str, timeout: float) -> dict[str, Any]:
        """A ``PreToolUse`` hook and a ``PermissionRequest`` hook for every tool, and an outcome hook."""
        guard = {"type": "command", "command": command, "timeout": int(timeout)}
        record = {"type": "command", "command": command, "timeout": 30}
        groups = {
            "PreToolUse": {"hooks": [guard]},
            "PermissionRequest": {"hooks": [guard]},
            "PostToolUse": {"hooks": [record]},
        }
        return install_events(settings, groups, self.name)

    def problems(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """A missing ``PreToolUse`` hook (Codex has no setting to block on a failed hook)."""
        if not gateway_handlers(settings, "PreToolUse", self.name):
            return (
                "No PreToolUse hook runs the gateway, so calls are not reviewed before they run.",
            )
        return ()

    def consulted(
        self, project: Path, home: Path, commands: Sequence[str]
    ) -> list[tuple[bool, str]]:
        """What Codex's own list of hooks says of the installed ``PreToolUse`` hook (`codex_hooks`)."""
        hooks = codex_hooks(project)
        if isinstance(hooks, str):
            return [
                (
                    False,
                    f"Codex could not be asked whether it runs the gateway's hook ({hooks}); "
                    "an untrusted hook is skipped without a word, so check /hooks in `codex`.",
                )
            ]
        return judge_hooks(hooks, commands, project)

    def notes(self) -> tuple[str, ...]:
        """What to know after installing."""
        return (
            "Codex runs a new hook only after you trust it: start `codex`, open /hooks and trust the gateway's hooks "
            "(until then Codex silently skips them; `codex exec --dangerously-bypass-hook-trust` skips the check "
            "for automation that already vets its hooks).",
            "Codex cannot ask a person from a hook: a call the policy would ask about is denied with the rule's reason.",
        )


HOST: Final = Codex()
"""Codex CLI, as the ``codex`` entry point of the ``gateway.hosts`` group."""
