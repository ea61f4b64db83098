"""
The OpenAI Agents SDK adapter, driven through ``Runner.run`` with the SDK's own scripted model.

`agents.testing.ScriptedModel` answers each model call from a script: the
"model" proposes shell calls (``shell_call`` items whose commands are in the
action) or function calls, and the real runner executes, rejects or
interrupts them. Executors record what actually ran.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    RunContextWrapper,
    Runner,
    ShellActionRequest,
    ShellCommandRequest,
    function_tool,
)
from agents.testing import ScriptedModel, assistant_message, function_call
from gateway_openai_agents import OpenAIAgentsGuard
from openai.types.responses import ResponseFunctionShellToolCall
from openai.types.responses.response_function_shell_tool_call import Action

from adapters.scripted import (
    ALLOWED,
    DECLINED,
    NEEDS_HUMAN,
    CrashingGateway,
    HangingGateway,
)
from gateway import Gateway, ToolCall, Verdict

pytestmark = pytest.mark.anyio

NO_TRACING = RunConfig(tracing_disabled=True)
"""Traces would be exported to the network; the tests make no network calls."""


def shell_call(call_id: str, *commands: str) -> ResponseFunctionShellToolCall:
    return ResponseFunctionShellToolCall(
        id=f"sh_{call_id}",
        call_id=call_id,
        type="shell_call",
        status="completed",
        action=Action(commands=list(commands)),
    )


class Executor:
    """A shell executor that runs nothing and records what it was asked to run."""

    def __init__(self) -> None:
        self.ran: list[list[str]] = []

    def __call__(self, request: ShellCommandRequest) -> str:
        self.ran.append(list(request.data.action.commands))
        return "ok"


def tool_outputs(items: list[Any]) -> dict[str, str]:
    """What the model is shown for each call id (the tool's output or the rejection)."""
    outputs = {}
    for item in items:
        raw = item.raw_item
        kind = raw.get("type") if isinstance(raw, dict) else getattr(raw, "type", None)
        if kind in ("shell_call_output", "function_call_output"):
            call_id = raw.get("call_id") if isinstance(raw, dict) else raw.call_id
            outputs[str(call_id)] = str(item.output)
    return outputs


async def test_shell_tool_runs_allow_rejects_decline_and_interrupts_on_ask(
    gateway: Gateway,
) -> None:
    guard = OpenAIAgentsGuard(gateway)
    executor = Executor()
    model = ScriptedModel(
        [
            [shell_call("c1", ALLOWED), shell_call("c2", DECLINED), shell_call("c3", NEEDS_HUMAN)],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="ops", model=model, tools=[guard.shell_tool(executor)])
    result = await Runner.run(agent, "tidy my home directory", run_config=NO_TRACING)

    assert executor.ran == [[ALLOWED]]
    outputs = tool_outputs(result.new_items)
    assert "Declined `rm -rf ~`: it deletes the home directory." in outputs["c2"]
    (interruption,) = result.interruptions
    assert interruption.call_id == "c3"

    state = result.to_state()
    assert [item.call_id for item in await guard.resolve_interruptions(state)] == ["c3"]
    state.approve(state.get_interruptions()[0])  # the person says yes
    resumed = await Runner.run(agent, state, run_config=NO_TRACING)
    assert executor.ran == [[ALLOWED], [NEEDS_HUMAN]]
    assert resumed.final_output == "done"


async def test_every_command_of_a_shell_action_is_reviewed(gateway: Gateway) -> None:
    guard = OpenAIAgentsGuard(gateway)
    executor = Executor()
    model = ScriptedModel([[shell_call("c1", ALLOWED, DECLINED)], [assistant_message("done")]])
    agent = Agent(name="ops", model=model, tools=[guard.shell_tool(executor)])
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    assert executor.ran == []
    assert "Declined `rm -rf ~`" in tool_outputs(result.new_items)["c1"]


async def test_a_person_answers_ask_through_the_callback(gateway: Gateway) -> None:
    asked: list[str] = []

    async def person(call: ToolCall, verdict: Verdict) -> bool:
        asked.append(call.input["command"])
        return False

    guard = OpenAIAgentsGuard(gateway, ask=person)
    executor = Executor()
    model = ScriptedModel([[shell_call("c1", NEEDS_HUMAN)], [assistant_message("done")]])
    agent = Agent(name="ops", model=model, tools=[guard.shell_tool(executor)])
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    assert (asked, executor.ran, result.interruptions) == ([NEEDS_HUMAN], [], [])
    assert tool_outputs(result.new_items)["c1"] not in ("", "ok")


def run_shell_tool(ran: list[str]) -> FunctionTool:
    @function_tool
    def run_shell_command(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return "ok"

    return run_shell_command


async def test_function_tool_guardrail_allows_rejects_and_interrupts(gateway: Gateway) -> None:
    guard = OpenAIAgentsGuard(gateway)
    ran: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call("run_shell_command", {"command": ALLOWED}, call_id="f1"),
                function_call("run_shell_command", {"command": DECLINED}, call_id="f2"),
                function_call("run_shell_command", {"command": NEEDS_HUMAN}, call_id="f3"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="ops", model=model, tools=[guard.guard(run_shell_tool(ran))])
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    assert ran == [ALLOWED]
    assert "Declined `rm -rf ~`" in tool_outputs(result.new_items)["f2"]
    (interruption,) = result.interruptions
    assert json.loads(interruption.arguments or "{}") == {"command": NEEDS_HUMAN}

    state = result.to_state()
    state.approve(interruption)
    resumed = await Runner.run(agent, state, run_config=NO_TRACING)
    assert ran == [ALLOWED, NEEDS_HUMAN]
    assert resumed.final_output == "done"


async def test_resolve_interruptions_decides_from_verdicts(gateway: Gateway) -> None:
    """Tools that always need approval: the helper approves allows and rejects declines."""
    ran: list[str] = []
    tool = run_shell_tool(ran)
    always = FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=tool.params_json_schema,
        on_invoke_tool=tool.on_invoke_tool,
        needs_approval=True,
    )
    model = ScriptedModel(
        [
            [
                function_call("run_shell_command", {"command": ALLOWED}, call_id="f1"),
                function_call("run_shell_command", {"command": DECLINED}, call_id="f2"),
                function_call("run_shell_command", {"command": NEEDS_HUMAN}, call_id="f3"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="ops", model=model, tools=[always])
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    assert len(result.interruptions) == 3
    state = result.to_state()
    pending = await OpenAIAgentsGuard(gateway).resolve_interruptions(state)
    assert [item.call_id for item in pending] == ["f3"]
    state.reject(pending[0], rejection_message="A person said no.")
    resumed = await Runner.run(agent, state, run_config=NO_TRACING)
    assert ran == [ALLOWED]
    outputs = tool_outputs(resumed.new_items)
    assert "Declined `rm -rf ~`" in outputs["f2"]
    assert outputs["f3"] == "A person said no."


@pytest.mark.parametrize("broken", [CrashingGateway, HangingGateway], ids=["crash", "hang"])
async def test_a_failing_gateway_blocks_shell_and_function_calls(
    broken: type[CrashingGateway | HangingGateway],
) -> None:
    reviewer = broken()
    guard = OpenAIAgentsGuard(reviewer, timeout=0.2)
    executor = Executor()
    ran: list[str] = []
    model = ScriptedModel(
        [
            [
                shell_call("c1", ALLOWED),
                function_call("run_shell_command", {"command": ALLOWED}, call_id="f1"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(
        name="ops",
        model=model,
        tools=[guard.shell_tool(executor), guard.guard(run_shell_tool(ran))],
    )
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    assert (executor.ran, ran, result.interruptions) == ([], [], [])
    outputs = tool_outputs(result.new_items)
    assert "blocked" in outputs["c1"]
    assert "blocked" in outputs["f1"]


async def test_needs_approval_sees_the_commands_of_the_shell_action(gateway: Gateway) -> None:
    guard = OpenAIAgentsGuard(gateway)

    context = RunContextWrapper(context=None)
    assert (
        await guard.shell_needs_approval(context, ShellActionRequest(commands=[ALLOWED]), "x1")
        is False
    )
    assert (
        await guard.shell_needs_approval(context, ShellActionRequest(commands=[DECLINED]), "x2")
        is True
    )
