"""
Helpers shared by the rules tests (imported by them; not a test module).

`review` puts one shell command to a `RulesApprover` exactly as the gateway
would (a ``call`` question with the command's plan) and `decision` names the
answer the way verdicts do: an approver that abstains is an ``ask``. Nothing
here runs a command: commands are only planned.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final

import anyio
import msgspec
from gateway_rules import RulesApprover

from gateway import (
    Abstain,
    Allow,
    Answer,
    Decline,
    GatewayConfig,
    ReviewRequest,
    ToolCall,
    default_config,
)
from gateway.plans import plan_program

DECISIONS: Final = {Allow: "allow", Abstain: "ask", Decline: "decline"}


@cache
def default_approver() -> RulesApprover:
    """The rules approver with the default policy (loaded once: loading runs every example), remembering nothing."""
    return RulesApprover({"memory": ""}, None)


def rules_only_config() -> GatewayConfig:
    """The default config, with the rules approver as the only approver and no sinks."""
    config = default_config()
    return msgspec.structs.replace(
        config,
        gateway=msgspec.structs.replace(config.gateway, approvers=("rules",)),
        sinks={},
    )


def request_for(
    command: str, *, cwd: str | None = None, session_id: str | None = None
) -> ReviewRequest:
    """The ``call`` question the gateway would put for a shell command."""
    plan = plan_program(command)
    return ReviewRequest(
        kind="call",
        call=ToolCall("Bash", {"command": command}, cwd=cwd, session_id=session_id),
        digest=plan.digest,
        plan=plan,
    )


def review(
    command: str,
    *,
    approver: RulesApprover | None = None,
    cwd: str | None = None,
    session_id: str | None = None,
) -> Answer:
    """The approver's answer for a shell command (default: the default policy)."""
    chosen = approver if approver is not None else default_approver()
    request = request_for(command, cwd=cwd, session_id=session_id)
    return anyio.run(chosen.review, request)


def decision(answer: Answer) -> str:
    """``allow``, ``ask`` or ``decline``."""
    return DECISIONS[type(answer)]


def approver_with(*rules: Mapping[str, Any], include_default: bool = False) -> RulesApprover:
    """A rules approver with the given inline rules (kebab-case keys), without the default policy unless asked."""
    return RulesApprover({"include-default": include_default, "rule": [dict(r) for r in rules]})


def make_repository(work: Path) -> str:
    """Make ``work`` a git repository whose configuration sets no code; its path."""
    git = work / ".git"
    for name in ("objects", "refs/heads", "hooks"):
        (git / name).mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
    return str(work)


def example_call(example: str, rule_tools: bool, cwd: str, call_id: str | None = None) -> ToolCall:
    """
    A rule's ``match`` / ``not-match`` example as the call it stands for.

    A rule that names tools (or an example whose input is JSON) gives
    ``TOOL {JSON}``; any other example is a shell command for ``Bash``.
    """
    tool, _, raw = example.partition(" ")
    if rule_tools or raw.startswith("{"):
        return ToolCall(tool, json.loads(raw) if raw.strip() else {}, cwd=cwd, call_id=call_id)
    return ToolCall("Bash", {"command": example}, cwd=cwd, call_id=call_id)


def example_workspace(work: Path) -> str:
    """The workspace the default policy's examples are judged in: a git repository with ``src/``."""
    (work / "src").mkdir()
    return make_repository(work)
