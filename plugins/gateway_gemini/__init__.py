"""
Gemini CLI's hook contract: ``BeforeTool`` and ``AfterTool`` in its own format.

Registered in the ``gateway.hosts`` entry-point group as ``gemini``. Gemini
CLI reads hooks from ``settings.json`` (``.gemini/settings.json`` of a project,
``~/.gemini/settings.json``) in matcher groups like Claude Code's, runs the
command with one event on standard input, and reads (checked against Gemini
CLI 0.61.0, its bundled hook reference and its scheduler):

* ``BeforeTool`` (``tool_name``, ``tool_input``; no call id): the answer's
  ``decision`` is ``deny`` (the tool does not run; ``reason`` goes to the
  model) or ``ask`` (Gemini asks its user, whatever its policy says). An
  allow never skips Gemini's own policy check, so every allow is answered
  with no decision. Exit 2 blocks too, with standard error as the reason.
  Headless, Gemini waits for good for the answer to an ``ask`` (the CLI
  hangs), so an ``ask`` goes only to an interactive session
  (`gateway_gemini._session`); elsewhere it is a ``deny`` with the reason.
* ``AfterTool``: the outcome is recorded, linked to its ``BeforeTool`` review
  by session, tool and input (the events carry no call id).

Gemini CLI has no setting that blocks a call when its hook fails (any exit
but 0 and 2, output that is not JSON, a timeout: the call goes ahead), so the
hook never fails any way but exit 2, and the installer gives it a timeout
longer than the hook's own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import msgspec
from gateway_hooks import (
    HookAnswer,
    HookEvent,
    HookKind,
    HookReply,
    HookScope,
    gateway_commands,
    gateway_handlers,
    install_events,
    read_event,
    settings_findings,
    uninstall_events,
)

from gateway import ToolCall
from gateway_gemini._session import asks_a_person

__all__ = [
    "EVENTS",
    "GUARD_NAME",
    "HEADLESS",
    "HOST",
    "SYSTEM_SETTINGS",
    "BeforeToolOutput",
    "Gemini",
    "GeminiEvent",
]

EVENTS: Final[Mapping[str, HookKind]] = {"BeforeTool": "review", "AfterTool": "outcome"}
"""The events the hook answers, and what each asks."""


class GeminiEvent(msgspec.Struct, frozen=True, kw_only=True):
    """A Gemini CLI hook event (unknown fields accepted: Gemini adds fields over time)."""

    hook_event_name: str
    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    tool_name: str
    tool_input: dict[str, Any] = msgspec.field(default_factory=dict)
    tool_response: Any = None


class BeforeToolOutput(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A ``BeforeTool`` answer: ``deny`` with the reason the model sees, or ``ask`` with the message the user sees."""

    decision: Literal["deny", "ask"]
    reason: str | None = None
    system_message: str | None = msgspec.field(default=None, name="systemMessage")


_ENCODER: Final = msgspec.json.Encoder()

GUARD_NAME: Final = "agent-gateway"
"""The name of the installed ``BeforeTool`` hook (Gemini names hooks in ``/hooks`` and its settings by it)."""

SYSTEM_SETTINGS: Final = "/etc/gemini-cli/settings.json"
"""Gemini CLI's system settings file on Linux (``GEMINI_CLI_SYSTEM_SETTINGS_PATH`` overrides it)."""

HEADLESS: Final = (
    "Gemini CLI runs headless here and cannot ask a person, so it is not run "
    "(run it interactively, or let a person decide on `gateway serve`'s page)."
)
"""What an ``ask`` refused in a headless session adds to the reason."""


def _failed(response: Any) -> tuple[Literal["succeeded", "failed"], str | None]:
    error = response.get("error") if isinstance(response, dict) else None
    if not error:
        return "succeeded", None
    if isinstance(error, dict):
        error = error.get("message")
    return "failed", error if isinstance(error, str) else None


class Gemini:
    """Gemini CLI's hook format (``gemini``)."""

    name = "gemini"
    title = "Gemini CLI"

    def read(self, event: Mapping[str, Any]) -> HookEvent:
        """The gateway's view of one Gemini CLI event."""
        kind, typed = read_event(event, EVENTS, GeminiEvent)
        call = ToolCall(
            typed.tool_name,
            dict(typed.tool_input),
            session_id=typed.session_id,
            cwd=typed.cwd,
            host=self.name,
        )
        if kind == "outcome":
            outcome, failure = _failed(typed.tool_response)
            return HookEvent(
                name=typed.hook_event_name, kind=kind, call=call, outcome=outcome, detail=failure
            )
        return HookEvent(name=typed.hook_event_name, kind=kind, call=call)

    def reply(self, event: HookEvent, answer: HookAnswer) -> HookReply:
        """
        ``deny`` or ``ask`` in Gemini's format; no decision for an allow (Gemini's policy still runs).

        An ``ask`` stays one only for a session that shows Gemini's prompt
        (`asks_a_person`); headless, Gemini would wait for an answer for
        good, so it is a ``deny`` with the reason and `HEADLESS`.
        """
        if event.kind != "review" or answer.decision in ("allow", "host"):
            return HookReply()
        if answer.decision == "ask" and event.hook_pid and asks_a_person(event.hook_pid):
            output = BeforeToolOutput(decision="ask", system_message=answer.reason)
        elif answer.decision == "ask":
            reason = f"{answer.reason.rstrip('.')}; {HEADLESS}"
            output = BeforeToolOutput(decision="deny", reason=reason)
        else:
            output = BeforeToolOutput(decision="deny", reason=answer.reason)
        return HookReply(stdout=_ENCODER.encode(output).decode())

    def denial(self, name: str, reason: str) -> str | None:
        """A ``deny`` for ``BeforeTool``."""
        if name != "BeforeTool":
            return None
        return _ENCODER.encode(BeforeToolOutput(decision="deny", reason=reason)).decode()

    def settings_file(self, scope: HookScope, project: Path, home: Path) -> Path:
        """``.gemini/settings.json`` of the project, or ``~/.gemini/settings.json``."""
        return (project if scope == "project" else home) / ".gemini" / "settings.json"

    def install(self, settings: dict[str, Any], command: str, timeout: float) -> dict[str, Any]:
        """A ``BeforeTool`` hook and an ``AfterTool`` hook for every tool (timeouts in milliseconds)."""
        guard = {
            "name": GUARD_NAME,
            "type": "command",
            "command": command,
            "timeout": int(timeout * 1000),
            "description": "The agent gateway reviews the call before it runs.",
        }
        record = {
            **guard,
            "name": "agent-gateway-outcome",
            "timeout": 30_000,
            "description": "The agent gateway records what ran.",
        }
        groups = {
            "BeforeTool": {"matcher": "*", "hooks": [guard]},
            "AfterTool": {"matcher": "*", "hooks": [record]},
        }
        return install_events(settings, groups, self.name)

    def uninstall(self, settings: dict[str, Any]) -> dict[str, Any]:
        """The settings without the gateway's hooks."""
        return uninstall_events(settings, self.name)

    def commands(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """The gateway's hook commands in the settings."""
        return gateway_commands(settings, self.name)

    def problems(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """A missing ``BeforeTool`` hook (Gemini has no setting to block on a failed hook)."""
        if not gateway_handlers(settings, "BeforeTool", self.name):
            return (
                "No BeforeTool hook runs the gateway, so calls are not reviewed before they run.",
            )
        return ()

    def consulted(
        self, project: Path, home: Path, commands: Sequence[str]
    ) -> list[tuple[bool, str]]:
        """
        Settings that make Gemini CLI skip the hook: ``hooksConfig.enabled`` false, or it in ``hooksConfig.disabled``.

        Read from the settings files Gemini merges (the system's, the
        user's, the project's); Gemini names a hook by its ``name`` (the
        installer's is ``agent-gateway``), else by its command.
        """
        system = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or SYSTEM_SETTINGS
        files = (
            Path(system),
            home / ".gemini" / "settings.json",
            project / ".gemini" / "settings.json",
        )
        names = {GUARD_NAME, *commands}

        def check(path: Path, settings: Mapping[str, Any]) -> list[str]:
            table = settings.get("hooksConfig")
            if not isinstance(table, dict):
                return []
            found = []
            if table.get("enabled") is False:
                found.append(
                    f'{path} sets "hooksConfig": {{"enabled": false}}, so Gemini CLI runs no '
                    "hook and calls run unreviewed; remove it."
                )
            disabled = table.get("disabled")
            if isinstance(disabled, list) and names & {d for d in disabled if isinstance(d, str)}:
                found.append(
                    f'{path} lists the gateway\'s hook in "hooksConfig": {{"disabled"}}, so '
                    f"Gemini CLI skips it and calls run unreviewed; run `/hooks enable {GUARD_NAME}` "
                    "in Gemini CLI or remove it there."
                )
            return found

        return settings_findings(
            files, check, "no settings file turns Gemini CLI's hooks or this one off."
        )

    def probe(self, cwd: str) -> dict[str, Any]:
        """A ``BeforeTool`` event for ``ls``."""
        return {
            "session_id": "gateway-doctor",
            "cwd": cwd,
            "hook_event_name": "BeforeTool",
            "timestamp": "2026-01-01T00:00:00Z",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "ls", "description": "gateway doctor"},
        }

    def notes(self) -> tuple[str, ...]:
        """What to know after installing."""
        return (
            "Gemini CLI asks you to trust new project hooks before they run; user hooks (--scope user) run at once.",
            "Gemini CLI lets a call through when its hook fails in any way but exit 2: keep `gateway-hook` where it is.",
        )


HOST: Final = Gemini()
"""Gemini CLI, as the ``gemini`` entry point of the ``gateway.hosts`` group."""
