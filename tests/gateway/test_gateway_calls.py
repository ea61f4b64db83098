"""
Calls and verdicts (issue 5, "Public API"): which tools are shells, what the
approvers see of a call, and what a `Verdict` carries.
"""

from __future__ import annotations

import shlex
from typing import Any

import anyio
import msgspec
import pytest
from gateway_support import BOUND, anyio_backend as anyio_backend, config, of_call, tags

from gateway import Gateway, ToolCall, Verdict
from gateway.config import ShellTool
from gateway.events import PlanReady, VerdictReached
from gateway.plans import iter_commands, plan_program
from gateway.testing import MemorySink, StaticApprover

pytestmark = pytest.mark.anyio

SHELL_FIELD_ERROR = "The command of a shell tool must be a string or a list of strings."


@pytest.mark.parametrize(
    ("tool", "tool_input", "source"),
    [
        ("Bash", {"command": "ls -la src", "description": "list"}, "ls -la src"),
        ("shell", {"command": "git status --short"}, "git status --short"),
        (
            "shell",
            {"command": ["bash", "-lc", "grep -rn TODO ."], "workdir": "/repo"},
            shlex.join(["bash", "-lc", "grep -rn TODO ."]),
        ),
        ("run_shell_command", {"command": "npm test"}, "npm test"),
        ("local_shell", {"command": ["ls", "-la"]}, "ls -la"),
        (
            "local_shell",
            {"action": {"type": "exec", "command": ["cat", "a file.txt"]}},
            "cat 'a file.txt'",
        ),
        ("exec_command", {"cmd": "pytest -q tests"}, "pytest -q tests"),
    ],
    ids=[
        "Bash-command",
        "shell-command-string",
        "shell-command-argv",
        "run_shell_command-command",
        "local_shell-command-argv",
        "local_shell-action.command",
        "exec_command-cmd",
    ],
)
async def test_default_shell_tools_are_planned(
    tool: str, tool_input: dict[str, Any], source: str
) -> None:
    """Each default shell tool's command field (a string, or an argv list quoted into one) is planned."""
    approver = StaticApprover("allow")
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(ToolCall(tool, tool_input, call_id="c1"))
    assert verdict.decision == "allow"
    (request,) = approver.requests
    assert request.kind == "call"
    assert request.plan is not None
    assert request.plan.source == source
    assert request.plan.status == "measured"
    expected = plan_program(source)
    assert request.plan.digest == expected.digest == verdict.digest
    commands = [c for s in expected.statements for c in iter_commands(s.plan)]
    assert request.positions == tuple(c.position for c in commands)
    ready = [e for e in sink.events if isinstance(e, PlanReady)]
    assert len(ready) == 1
    assert ready[0].shell
    assert ready[0].plan_digest == verdict.digest


async def test_shell_tools_are_configuration() -> None:
    """A configured shell tool is planned; a default one the config leaves out is not a shell."""
    approver = StaticApprover("allow")
    settings = config(shell_tools=[ShellTool(tool="terminal", fields=("script", "input.text"))])
    with anyio.fail_after(BOUND):
        async with Gateway(settings, approvers=[approver]) as gateway:
            await gateway.review(ToolCall("terminal", {"input": {"text": "make all"}}))
            await gateway.review(ToolCall("Bash", {"command": "make all"}))
    configured, dropped = approver.requests
    assert configured.plan is not None
    assert configured.plan.source == "make all"
    assert dropped.plan is None


async def test_other_tools_get_no_plan_and_approvers_see_name_and_arguments() -> None:
    """A tool that is not a shell goes through the same pipeline, without a plan."""
    approver = StaticApprover("decline")
    sink = MemorySink()
    arguments = {"path": "src/app.py", "offset": 10, "limit": [1, 2], "flags": {"raw": True}}
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(ToolCall("read_file", arguments, call_id="r1"))
            same = await gateway.review(ToolCall("read_file", dict(arguments), call_id="r2"))
            other = await gateway.review(ToolCall("read_file", {"path": "src/other.py"}))
    assert verdict.decision == "decline"
    request = approver.requests[0]
    assert request.plan is None
    assert not request.measured
    assert request.positions == ()
    assert request.sequence is None
    assert request.call.tool == "read_file"
    assert request.call.input == arguments
    assert tags(of_call(sink.events, "r1")) == [
        "call.proposed",
        "plan.ready",
        "approver.decided",
        "verdict.reached",
    ]
    ready = next(e for e in of_call(sink.events, "r1") if isinstance(e, PlanReady))
    assert not ready.shell
    assert ready.plan is None
    assert ready.plan_digest == verdict.digest
    # The digest binds the verdict to the name and the arguments.
    assert same.digest == verdict.digest
    assert other.digest != verdict.digest


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {}),
        ("Bash", {"command": None}),
        ("Bash", {"command": 42}),
        ("Bash", {"command": {"script": "ls"}}),
        ("shell", {"command": []}),
        ("shell", {"command": ["ls", 3]}),
        ("local_shell", {"action": {"command": "ls"}, "command": True}),
        ("local_shell", {"action": "ls"}),
        ("exec_command", {"command": "ls"}),
    ],
    ids=[
        "missing",
        "null",
        "number",
        "object",
        "empty-argv",
        "argv-with-number",
        "first-field-wrong-type",
        "action-not-object",
        "wrong-field-name",
    ],
)
async def test_bad_shell_input_is_declined_without_asking(
    tool: str, tool_input: dict[str, Any]
) -> None:
    """A shell tool whose command field is missing or of the wrong type is declined, and no approver is asked."""
    approver = StaticApprover("allow")
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver], sinks={"memory": sink}) as gateway:
            verdict = await gateway.review(ToolCall(tool, tool_input, call_id="bad"))
    assert verdict.decision == "decline"
    assert verdict.reason == SHELL_FIELD_ERROR
    assert verdict.approver is None
    assert approver.requests == []
    assert tags(of_call(sink.events, "bad")) == ["call.proposed", "plan.ready", "verdict.reached"]


async def test_verdict_carries_decision_reason_digest_approver_rule_and_call_id() -> None:
    """A verdict says what was decided, why, about which plan, by whom and by which rule."""
    source = "git diff --stat && git log -3 --oneline"
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(
            approvers=[StaticApprover("abstain"), StaticApprover("allow", name="policy")],
            sinks={"memory": sink},
        ) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": source}, call_id="v1"))
    assert verdict == Verdict(
        decision="allow",
        reason="policy allows everything.",
        digest=plan_program(source).digest,
        approver="policy",
        rule="static",
        call_id="v1",
    )
    assert verdict.allowed
    with pytest.raises(AttributeError):
        verdict.decision = "decline"  # type: ignore[misc]
    (reached,) = [e for e in sink.events if isinstance(e, VerdictReached)]
    assert reached.verdict == verdict
    # A verdict is data: it survives the wire unchanged.
    assert msgspec.json.decode(msgspec.json.encode(verdict), type=Verdict) == verdict


async def test_ask_and_decline_are_not_allowed() -> None:
    """Only ``allow`` is allowed; ``ask`` (nobody decided) is not."""
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("abstain")]) as gateway:
            asked = await gateway.review(ToolCall("Bash", {"command": "ls"}))
        async with Gateway(approvers=[StaticApprover("decline")]) as gateway:
            declined = await gateway.review(ToolCall("Bash", {"command": "ls"}))
    assert (asked.decision, asked.allowed, asked.approver) == ("ask", False, None)
    # The last approver to say why it would not decide explains the ask.
    assert asked.reason == "static-abstain never decides."
    assert (declined.decision, declined.allowed) == ("decline", False)


async def test_a_call_without_an_id_gets_one_that_every_event_carries() -> None:
    """The gateway names a call that came without an id, and uses that id throughout."""
    sink = MemorySink()
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("allow")], sinks={"memory": sink}) as gateway:
            first = await gateway.review(ToolCall("Bash", {"command": "ls"}))
            second = await gateway.review(ToolCall("Bash", {"command": "ls"}))
    assert first.call_id
    assert second.call_id
    assert first.call_id != second.call_id
    assert tags(of_call(sink.events, first.call_id)) == [
        "call.proposed",
        "plan.ready",
        "approver.decided",
        "verdict.reached",
    ]


async def test_review_needs_an_open_gateway() -> None:
    """Reviewing outside ``async with`` is a usage error, not a verdict."""
    gateway = Gateway(approvers=[StaticApprover("allow")])
    with pytest.raises(RuntimeError, match="not open"):
        await gateway.review(ToolCall("Bash", {"command": "ls"}))
    with anyio.fail_after(BOUND):
        async with gateway:
            assert (await gateway.review(ToolCall("Bash", {"command": "ls"}))).allowed
    with pytest.raises(RuntimeError, match="not open"):
        await gateway.review(ToolCall("Bash", {"command": "ls"}))
