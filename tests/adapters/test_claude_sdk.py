"""
The Claude Agent SDK adapter, driven through the SDK's own client and control protocol.

`ScriptedCli` plays the Claude Code CLI on the other side of a custom
`Transport` (which the SDK documents for remote connections): it answers the
SDK's ``initialize`` (checking the hooks it registered), then acts as a model
proposing Bash calls. For each call it does what the CLI does: run the
``PreToolUse`` hook callback, and when the hook says ``ask`` or gives no
decision (the CLI's own rule then asks, as it does for a Bash call it has no
rule for), send a ``can_use_tool`` permission request, passing the hook's
reason as ``decision_reason``. What the test checks is what the CLI received
over the wire. (The real CLI is driven in ``tests/hosts``.)
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from anyio.abc import TaskGroup
from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage
from claude_agent_sdk._internal.transport import Transport
from gateway_claude_sdk import ClaudeAgentGuard

from adapters.scripted import (
    ALLOWED,
    ASK_REASON,
    DECLINE_REASON,
    DECLINED,
    FOUNDED,
    NEEDS_HUMAN,
    CrashingGateway,
    HangingGateway,
    ScriptApprover,
)
from gateway import Gateway, ToolCall, Verdict
from gateway.events import HostDecided
from gateway.testing import MemorySink

pytestmark = pytest.mark.anyio


class ScriptedCli(Transport):
    """The CLI's side of the SDK control protocol, with a scripted model."""

    def __init__(self, task_group: TaskGroup, commands: list[str]) -> None:
        self.task_group = task_group
        self.commands = commands
        self.send, self.receive = anyio.create_memory_object_stream[dict[str, Any]](100)
        self.pending: dict[str, anyio.Event] = {}
        self.answers: dict[str, dict[str, Any]] = {}
        self.hooks: dict[str, Any] = {}
        self.pre_tool_use: list[dict[str, Any]] = []
        self.permissions: list[dict[str, Any]] = []
        self.post_tool_use: list[dict[str, Any]] = []
        self.counter = 0

    async def connect(self) -> None:
        pass

    async def write(self, data: str) -> None:
        message = json.loads(data)
        if message["type"] == "control_response":
            response = message["response"]
            self.answers[response["request_id"]] = response
            self.pending.pop(response["request_id"]).set()
        elif message["type"] == "control_request":
            request = message["request"]
            answer: dict[str, Any] = {}
            if request["subtype"] == "initialize":
                self.hooks = request["hooks"] or {}
                answer = {"hook_on_failure_supported": True, "commands": []}
            await self.send.send(
                {
                    "type": "control_response",
                    "response": {
                        "subtype": "success",
                        "request_id": message["request_id"],
                        "response": answer,
                    },
                }
            )
        elif message["type"] == "user":
            self.task_group.start_soon(self.model_turn)

    async def ask_sdk(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send a control request to the SDK and wait for its answer."""
        self.counter += 1
        request_id = f"cli_{self.counter}"
        answered = self.pending[request_id] = anyio.Event()
        await self.send.send(
            {"type": "control_request", "request_id": request_id, "request": request}
        )
        with anyio.fail_after(10):
            await answered.wait()
        response = self.answers[request_id]
        assert response["subtype"] == "success", response
        result: dict[str, Any] = response["response"]
        return result

    def callback(self, event: str) -> str:
        (matcher,) = self.hooks[event]
        (callback_id,) = matcher["hookCallbackIds"]
        return str(callback_id)

    async def model_turn(self) -> None:
        """The scripted model proposes each command; the CLI consults hooks and permissions."""
        base = {"session_id": "s1", "transcript_path": "/home/u/.claude/t.jsonl", "cwd": "/work"}
        for number, command in enumerate(self.commands):
            tool_use_id = f"toolu_{number}"
            tool_input = {"command": command, "description": "scripted"}
            output = await self.ask_sdk(
                {
                    "subtype": "hook_callback",
                    "callback_id": self.callback("PreToolUse"),
                    "tool_use_id": tool_use_id,
                    "input": {
                        **base,
                        "hook_event_name": "PreToolUse",
                        "tool_name": "Bash",
                        "tool_input": tool_input,
                        "tool_use_id": tool_use_id,
                    },
                }
            )
            self.pre_tool_use.append(output)
            specific = output.get("hookSpecificOutput", {})
            decision = specific.get("permissionDecision", "none")
            if decision in ("ask", "none"):
                self.permissions.append(
                    await self.ask_sdk(
                        {
                            "subtype": "can_use_tool",
                            "tool_name": "Bash",
                            "input": tool_input,
                            "tool_use_id": tool_use_id,
                            "permission_suggestions": None,
                            "decision_reason": specific.get("permissionDecisionReason"),
                        }
                    )
                )
            if decision == "allow" or (
                self.permissions and self.permissions[-1]["behavior"] == "allow"
            ):
                self.post_tool_use.append(
                    await self.ask_sdk(
                        {
                            "subtype": "hook_callback",
                            "callback_id": self.callback("PostToolUse"),
                            "tool_use_id": tool_use_id,
                            "input": {
                                **base,
                                "hook_event_name": "PostToolUse",
                                "tool_name": "Bash",
                                "tool_input": tool_input,
                                "tool_response": {"stdout": "", "stderr": ""},
                                "tool_use_id": tool_use_id,
                            },
                        }
                    )
                )
        await self.send.send(
            {
                "type": "result",
                "subtype": "success",
                "duration_ms": 1,
                "duration_api_ms": 1,
                "is_error": False,
                "num_turns": 1,
                "session_id": "s1",
            }
        )

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        async for message in self.receive:
            yield message

    async def close(self) -> None:
        self.send.close()
        self.receive.close()

    def is_ready(self) -> bool:
        return True

    async def end_input(self) -> None:
        pass


async def converse(guard: ClaudeAgentGuard, commands: list[str]) -> ScriptedCli:
    """Run one scripted turn through `ClaudeSDKClient` with the guard's callback and hooks."""
    options = ClaudeAgentOptions(can_use_tool=guard.can_use_tool, hooks=guard.hooks("Bash"))
    with anyio.fail_after(30):
        async with anyio.create_task_group() as task_group:
            cli = ScriptedCli(task_group, commands)
            async with ClaudeSDKClient(options, transport=cli) as client:
                await client.query("tidy up my home directory")
                results = [m async for m in client.receive_response()]
            assert isinstance(results[-1], ResultMessage)
    return cli


def decisions(cli: ScriptedCli) -> list[str]:
    """The hook's decisions; ``none`` where it gave none (the CLI's own checks decide)."""
    return [
        o.get("hookSpecificOutput", {}).get("permissionDecision", "none") for o in cli.pre_tool_use
    ]


async def test_host_sees_allow_deny_and_ask_and_a_person_is_not_assumed(gateway: Gateway) -> None:
    cli = await converse(ClaudeAgentGuard(gateway), [FOUNDED, DECLINED, NEEDS_HUMAN, ALLOWED])
    assert decisions(cli) == ["allow", "deny", "ask", "none"]
    assert cli.pre_tool_use[1]["hookSpecificOutput"]["permissionDecisionReason"] == DECLINE_REASON
    assert cli.pre_tool_use[2]["hookSpecificOutput"]["permissionDecisionReason"] == ASK_REASON
    # The ask, and the unfounded allow the CLI's own rule asks about, go to a person: there is none.
    assert [p["behavior"] for p in cli.permissions] == ["deny", "deny"]
    assert all("No person was asked" in p["message"] for p in cli.permissions)
    assert len(cli.post_tool_use) == 1


async def test_every_allow_is_left_to_claude_code_when_configured(gateway: Gateway) -> None:
    cli = await converse(ClaudeAgentGuard(gateway, allow="host"), [FOUNDED])
    assert decisions(cli) == ["none"]


async def test_the_person_is_asked_with_the_rules_reason_and_the_answer_is_audited() -> None:
    asked: list[Verdict] = []

    async def person(call: ToolCall, verdict: Verdict) -> bool:
        asked.append(verdict)
        return False

    sink = MemorySink()
    async with Gateway(approvers=[ScriptApprover()], sinks={"memory": sink}) as gateway:
        cli = await converse(ClaudeAgentGuard(gateway, ask=person), [NEEDS_HUMAN])
    assert [v.reason for v in asked] == [ASK_REASON]
    assert cli.permissions[0] == {"behavior": "deny", "message": ASK_REASON}
    (decided,) = [e for e in sink.events if isinstance(e, HostDecided)]
    assert (decided.call_id, decided.decision, decided.by, decided.host) == (
        "toolu_0",
        "decline",
        "person",
        "claude-agent-sdk",
    )


async def test_hooks_are_registered_to_block_on_failure(gateway: Gateway) -> None:
    cli = await converse(ClaudeAgentGuard(gateway), [FOUNDED])
    (pre,) = cli.hooks["PreToolUse"]
    assert pre["matcher"] == "Bash"
    assert pre["onFailure"] == "block"
    assert pre["timeout"] > 0


async def test_a_person_who_says_yes_allows_an_ask_and_the_call_is_reviewed_once() -> None:
    asked: list[tuple[ToolCall, Verdict]] = []

    async def person(call: ToolCall, verdict: Verdict) -> bool:
        asked.append((call, verdict))
        return True

    approver = ScriptApprover()
    async with Gateway(approvers=[approver]) as gateway:
        cli = await converse(ClaudeAgentGuard(gateway, ask=person), [NEEDS_HUMAN])
    assert decisions(cli) == ["ask"]
    assert cli.permissions == [
        {"behavior": "allow", "updatedInput": {"command": NEEDS_HUMAN, "description": "scripted"}}
    ]
    ((call, verdict),) = asked
    assert (call.input["command"], call.call_id, verdict.decision) == (
        NEEDS_HUMAN,
        "toolu_0",
        "ask",
    )
    assert len(approver.requests) == 1


async def test_records_the_outcome_of_a_call_that_ran() -> None:
    async with Gateway(approvers=[ScriptApprover()]) as gateway, gateway.subscribe() as events:
        await converse(ClaudeAgentGuard(gateway), [FOUNDED])
        seen = []
        with anyio.fail_after(5):
            async for event in events:
                seen.append(event)
                if type(event).__name__ == "CallOutcome":
                    break
    assert seen[-1].call_id == "toolu_0"


@pytest.mark.parametrize("broken", [CrashingGateway, HangingGateway], ids=["crash", "hang"])
async def test_a_failing_gateway_blocks_the_call(
    broken: type[CrashingGateway | HangingGateway],
) -> None:
    reviewer = broken()
    cli = await converse(ClaudeAgentGuard(reviewer, timeout=0.2), [ALLOWED])
    assert decisions(cli) == ["deny"]
    assert "blocked" in cli.pre_tool_use[0]["hookSpecificOutput"]["permissionDecisionReason"]
    assert cli.permissions == []
    assert len(reviewer.calls) == 1
