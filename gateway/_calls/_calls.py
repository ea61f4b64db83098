"""
What an agent proposes: a tool call, as the host sees it.

Pure data. The gateway never mutates a call: when it needs an id the call
lacks, it makes a new call with one.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["ToolCall"]


class ToolCall(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """
    A proposed tool call.

    Which tools are shells, and which field of ``input`` holds the command, is
    configuration (``[[shell-tools]]``); any other tool is reviewed by name and
    arguments, without a shell plan.

    Attributes:
        tool: The tool's name as the host calls it (``Bash``, ``shell``, ``read_file``…).
        input: The tool's arguments, as JSON-like data.
        call_id: The host's id for this call (the gateway makes one when absent).
        session_id: The conversation or session it belongs to.
        agent_id: Which agent proposed it.
        cwd: The working directory the call would run in.
        host: Which host sent it (``claude-code``, ``openai-agents``…).
        user_request: What the user asked for, in their own words (their latest
            message to the agent), when the host can tell; never the agent's
            reasoning or a tool's output. Approvers get it with its secrets
            masked (the ``model`` approver shows it to the model); events and
            the audit log do not carry it.

    Examples:
        >>> ToolCall("Bash", {"command": "ls"}, session_id="s1").tool
        'Bash'
    """

    tool: str
    input: dict[str, Any]
    call_id: str | None = None
    session_id: str | None = None
    agent_id: str | None = None
    cwd: str | None = None
    host: str | None = None
    user_request: str | None = None
