"""
Calls and verdicts (issue 5, "Public API"): which tools are shells, what the
approvers see of a call, and what a `Verdict` carries.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from gateway_support import BOUND, anyio_backend as anyio_backend, config, of_call, tags

from gateway import Gateway, GatewayConfig, ToolCall, Verdict, load_config
from gateway.config import ShellInput, ShellTool
from gateway.effects import Opaque, PathsSection, Read, iter_effects
from gateway.events import PlanReady, VerdictReached
from gateway.plans import iter_commands, plan_program
from gateway.testing import MemorySink, StaticApprover

pytestmark = pytest.mark.anyio

CWD = "/work/app"
HOME = "/home/amy"
SHELL_FIELD_ERROR = "The command of a shell tool must be a string or a list of strings."


@pytest.mark.parametrize(
    ("tool", "tool_input", "source"),
    [
        ("Bash", {"command": "ls -la src", "description": "list"}, "ls -la src"),
        ("shell", {"command": "git status --short"}, "git status --short"),
        (
            "shell",
            {"command": ["bash", "-lc", "grep -rn TODO ."], "timeout_ms": 1000},
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


async def _shell_request(tool: str, tool_input: dict[str, Any], cwd: str | None = CWD) -> Any:
    """What an approver is asked about one shell call under the default shell tools."""
    approver = StaticApprover("abstain")
    settings = GatewayConfig(paths=PathsSection(home=HOME))
    with anyio.fail_after(BOUND):
        async with Gateway(settings, approvers=[approver]) as gateway:
            await gateway.review(ToolCall(tool, tool_input, cwd=cwd))
    (request,) = approver.requests
    return request


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("exec_command", {"cmd": "cat credentials", "workdir": "/home/amy/.aws"}),
        ("shell", {"command": ["cat", "credentials"], "workdir": "/home/amy/.aws"}),
        ("run_shell_command", {"command": "cat credentials", "dir_path": "/home/amy/.aws"}),
        ("run_shell_command", {"command": "cat credentials", "directory": "/home/amy/.aws"}),
        ("mcp__desktop__start_process", {"command": "cat credentials", "cwd": "/home/amy/.aws"}),
        (
            "mcp__srv__run_command",
            {"command": "cat credentials", "workingDirectory": "/home/amy/.aws"},
        ),
    ],
)
async def test_a_shell_tools_directory_field_is_where_its_text_is_read(
    tool: str, tool_input: dict[str, Any]
) -> None:
    """``cat credentials`` run in ``~/.aws`` reads ``~/.aws/credentials``, not the workspace's file."""
    request = await _shell_request(tool, tool_input)
    (read,) = [e for e in request.effects if isinstance(e, Read)]
    assert read.path.value == "~/.aws/credentials"
    assert "workspace" not in read.path.classes
    assert not [e for e in request.effects if isinstance(e, Opaque)]


async def test_a_shell_tools_relative_directory_resolves_against_the_calls_own() -> None:
    """The harmless twins: a directory inside the workspace stays the workspace."""
    for tool_input in (
        {"command": ["cat", "README.md"], "workdir": "docs", "timeout_ms": 1000},
        {"command": ["cat", "README.md"], "workdir": f"{CWD}/docs"},
    ):
        request = await _shell_request("shell", tool_input)
        (read,) = [e for e in request.effects if isinstance(e, Read)]
        assert (read.path.value, read.path.classes) == (f"{CWD}/docs/README.md", ("workspace",))
        assert not [e for e in request.effects if isinstance(e, Opaque)]
        assert request.sequence.steps[0].cwd == "docs"


async def test_local_shell_s_working_directory_is_not_the_workspace() -> None:
    """Its row's directory is where the text starts; the workspace stays the call's."""
    action = {"type": "exec", "command": ["rm", "-rf", "Documents"], "env": {}}
    request = await _shell_request(
        "local_shell", {"action": {**action, "working_directory": "/home/amy"}}
    )
    (write,) = [e for e in request.effects if getattr(e, "path", None) is not None]
    assert write.path.value == "~/Documents"
    assert "workspace" not in write.path.classes


@pytest.mark.parametrize(
    ("tool", "tool_input", "field"),
    [
        ("exec_command", {"cmd": "ls", "shell": "./x.sh"}, "`shell`"),
        ("mcp__desktop-commander__start_process", {"command": "ls", "shell": "./x.sh"}, "`shell`"),
        ("mcp__srv__run_command", {"command": "ls", "env": {"LD_PRELOAD": "x.so"}}, "`env`"),
        ("mcp__srv__run_command", {"command": "ls", "args": ["/home/amy/.ssh/id_rsa"]}, "`args`"),
        ("mcp__srv__run_command", {"command": "bash", "stdin": "cat ~/.ssh/id_rsa"}, "`stdin`"),
        (
            "Bash",
            {"command": "ls", "dangerouslyDisableSandbox": True},
            "`dangerouslyDisableSandbox`",
        ),
        (
            "run_shell_command",
            {"command": "ls", "additional_permissions": {}},
            "`additional_permissions`",
        ),
        ("exec_command", {"cmd": "cat credentials", "workdir": "~/.aws"}, "starts with `~`"),
        ("exec_command", {"cmd": "cat credentials", "workdir": "link/../.aws"}, "climbs with `..`"),
        ("exec_command", {"cmd": "ls", "workdir": " docs"}, "has blanks at its ends"),
        ("exec_command", {"cmd": "ls", "workdir": ["docs"]}, "is not a string"),
        (
            "mcp__srv__run_command",
            {"command": "ls", "cwd": "a", "workdir": "/"},
            "more than one field",
        ),
    ],
)
async def test_a_shell_tools_field_that_may_change_what_runs_makes_it_opaque(
    tool: str, tool_input: dict[str, Any], field: str
) -> None:
    """A field the `[[shell-tools]]` entry does not declare, or a directory hosts read differently: never allowed."""
    request = await _shell_request(tool, tool_input)
    (opaque,) = [e for e in request.effects if isinstance(e, Opaque)]
    assert field in opaque.reason


async def test_a_relative_directory_of_a_call_without_a_directory_is_opaque() -> None:
    request = await _shell_request("exec_command", {"cmd": "ls", "workdir": "docs"}, cwd=None)
    (opaque,) = [e for e in request.effects if isinstance(e, Opaque)]
    assert "the call's working directory is not known" in opaque.reason


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "ls", "description": "x", "timeout": 1000, "run_in_background": True}),
        ("exec_command", {"cmd": "ls", "workdir": CWD, "yield_time_ms": 1000, "login": True}),
        ("exec_command", {"cmd": "ls", "workdir": "", "justification": "why"}),
        ("exec_command", {"cmd": "ls", "workdir": None}),
        ("run_shell_command", {"command": "ls", "dir_path": "src", "description": "list"}),
        ("mcp__srv__run_command", {"command": "ls", "cwd": "src", "timeout_ms": 5}),
    ],
)
async def test_a_shell_tools_declared_fields_keep_it_readable(
    tool: str, tool_input: dict[str, Any]
) -> None:
    request = await _shell_request(tool, tool_input)
    assert not [e for e in request.effects if isinstance(e, Opaque)]


def test_a_shell_tool_reads_its_command_directory_and_refusal() -> None:
    tool = ShellTool(tool="mcp__*__run", fields=("cmd", "script"), cwd=("cwd",))
    assert tool.read("mcp__a__run", {"cmd": ["ls", "a b"], "cwd": "sub"}, "/w") == ShellInput(
        text="ls 'a b'", directory="/w/sub"
    )
    both = tool.read("mcp__a__run", {"cmd": "ls", "script": "rm -rf ~"}, "/w")
    assert both.text == "ls"
    assert both.refusal is not None
    assert "`cmd`, `script`" in both.refusal
    assert "`mcp__a__run`" in both.refusal


def test_shell_tool_fields_are_configuration() -> None:
    """A ``[[shell-tools]]`` table declares its directory and harmless fields like the built-in entries."""
    settings = load_config(
        b'[[shell-tools]]\ntool = "mcp__*__terminal"\nfields = ["command"]\n'
        b'cwd = ["cwd"]\nother-fields = ["timeout"]\n'
    )
    (tool,) = settings.shell_tools
    assert (tool.cwd, tool.other_fields) == (("cwd",), ("timeout",))
    assert tool.read("mcp__x__terminal", {"command": "ls", "timeout": 3}, "/w").refusal is None


def test_the_shell_tools_example_of_the_configuration_page_is_the_default() -> None:
    """docs/configuration.md shows entries of the default list as they are."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    section = page.split("## `[[shell-tools]]`", 1)[1]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    shown = load_config(block.encode()).shell_tools
    defaults = {tool.tool: tool for tool in GatewayConfig().shell_tools}
    assert [tool.tool for tool in shown] == ["Bash", "exec_command", "local_shell"]
    assert all(tool == defaults[tool.tool] for tool in shown)


async def test_a_heredoc_body_is_read_where_its_shell_tool_runs() -> None:
    """A body completed by the host's answers is judged in the tool's directory too."""
    approver = StaticApprover("abstain")
    settings = GatewayConfig(paths=PathsSection(home=HOME))
    text = "bash <<EOF\ncat $(echo credentials)\nEOF"
    call = ToolCall("exec_command", {"cmd": text, "workdir": f"{HOME}/.aws"}, call_id="b", cwd=CWD)
    with anyio.fail_after(BOUND):
        async with Gateway(settings, approvers=[approver]) as gateway:
            await gateway.review(call)
            await gateway.answer("b", 0, 0, {0: "credentials"})
    body = approver.requests[-1]
    assert body.kind == "body"
    assert body.body_plan is not None
    reads = [
        e.path.value
        for s in body.body_plan.statements
        for _, e in iter_effects(s.plan)
        if isinstance(e, Read)
    ]
    assert reads == ["~/.aws/credentials"]
