"""
A confining Claude Code hook (``--confine``): allowed ``Bash`` calls are rewritten to run through ``gateway run``.

The gateway is real (the default policy under workspace-write, its audit log
in the test's directory); the routed command is run by the bash oracle
(``oracle.bash.run``), where every program is a logger that records its
argv: the runner must be the one program started, and receive exactly the
reviewed text whatever quotes, newlines, substitutions or backticks it holds.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from gateway_hooks import HookReply, Routing, answer_hook, load_host
from gateway_hooks._routing import routed_command
from gateway_relay import Blocked, parse_options
from oracle import bash

from gateway import Gateway, load_config
from gateway.audit import read_audit_log
from gateway.events import VerdictReached

pytestmark = pytest.mark.anyio

PROGRAM = ("gateway",)

PYTHON_WRITE = 'python3 -c \'open("out.txt","w").write("x")\''

HOSTILE_TEXTS = [
    PYTHON_WRITE,
    "python3 -c 'print(1)'; touch pwned",
    'python3 x.py "$(touch pwned)" `touch pwned` $HOME',
    "python3 -c 'print(\"a\")\nprint(2)'\ntouch pwned",
    "it's' \"; touch pwned; '\\",
    "python3 x.py -- '\n' \\\n -v",
    "\x01 ${IFS} !! \\' $'\\x27'",
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "x.py").write_text("print('x')\n")
    return work


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "gateway.toml"
    path.write_text(
        '[approver.rules]\nprofile = "workspace-write"\n'
        f'[sinks.audit]\nplugin = "jsonl"\npath = "{tmp_path / "audit.jsonl"}"\nrequired = true\n'
    )
    return path


def routing(config_file: Path, *, unavailable: str | None = None) -> Routing:
    config = load_config(config_file)
    return Routing(
        profile=config.rules_profile,
        unavailable=unavailable,
        shell_tools=config.shell_tools,
        config=str(config_file),
        program=PROGRAM,
    )


def event(workspace: Path, tool: str, tool_input: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "session_id": "s-1",
            "cwd": str(workspace),
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "toolu_1",
        }
    ).encode()


async def answer(
    config_file: Path, data: bytes, route: Routing | None, **options: Any
) -> tuple[HookReply, dict[str, Any] | None, list[VerdictReached]]:
    config = load_config(config_file)
    async with Gateway(config) as gateway:
        reply = await answer_hook(load_host("claude-code"), gateway, data, routing=route, **options)
    out = json.loads(reply.stdout)["hookSpecificOutput"] if reply.stdout else None
    audit = config_file.parent / "audit.jsonl"
    records = [e for e in read_audit_log(audit) if isinstance(e, VerdictReached)]
    return reply, out, records


def started(command: str) -> list[tuple[str, ...]]:
    """The argv of every program bash starts for ``command`` (each a logger: none really runs)."""
    ran = bash.run(command)
    assert ran.status == 0, ran.stderr
    return [tuple(argv) for argv in ran.logged]


def runner(text: str, config: str) -> tuple[str, ...]:
    return (*PROGRAM, "run", "--profile", "workspace-write", "--config", config, "--", text)


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_the_routed_command_hands_the_runner_exactly_the_text(text: str) -> None:
    command = routed_command(PROGRAM, "workspace-write", "/c/g.toml", text)
    assert started(command) == [runner(text, "/c/g.toml")]
    assert shlex.split(command)[-2:] == ["--", text]


async def test_code_the_rules_cannot_read_is_allowed_with_its_command_routed(
    config_file: Path, workspace: Path
) -> None:
    data = event(workspace, "Bash", {"command": PYTHON_WRITE, "description": "Write out.txt"})
    reply, out, records = await answer(config_file, data, routing(config_file))
    assert reply.status == 0
    assert out is not None
    assert out["permissionDecision"] == "allow"
    updated = out["updatedInput"]
    assert updated["description"] == "Write out.txt"
    assert started(updated["command"]) == [runner(PYTHON_WRITE, str(config_file))]
    # One record for the hook's verdict: an allow that carries its boundary.
    (record,) = records
    assert record.call_id == "toolu_1"
    assert record.verdict.decision == "allow"
    assert record.verdict.boundary is not None
    assert record.verdict.boundary.write == (str(workspace),)


async def test_a_multi_line_text_with_quotes_is_routed_as_it_is(
    config_file: Path, workspace: Path
) -> None:
    text = 'python3 -c \'import sys\nprint("$(id) `id`", sys.argv)\' "it\'s"'
    data = event(workspace, "Bash", {"command": text})
    _, out, _ = await answer(config_file, data, routing(config_file))
    assert out is not None
    assert out["permissionDecision"] == "allow", out
    assert started(out["updatedInput"]["command"]) == [runner(text, str(config_file))]


async def test_an_unconfined_hook_still_asks_about_code_it_cannot_read(
    config_file: Path, workspace: Path
) -> None:
    data = event(workspace, "Bash", {"command": PYTHON_WRITE})
    _, out, records = await answer(config_file, data, None)
    assert out is not None
    assert out["permissionDecision"] == "ask"
    assert "updatedInput" not in out
    assert "this caller runs nothing inside a boundary" in out["permissionDecisionReason"]
    assert records[0].verdict.boundary is None


async def test_where_no_boundary_can_be_built_it_asks_and_routes_nothing(
    config_file: Path, workspace: Path
) -> None:
    data = event(workspace, "Bash", {"command": "ls"})
    route = routing(config_file, unavailable="bubblewrap (`bwrap`) is not installed")
    _, out, _ = await answer(config_file, data, route)
    assert out is not None
    assert out["permissionDecision"] == "ask"
    assert "not confinable here: bubblewrap" in out["permissionDecisionReason"]
    assert "updatedInput" not in out


async def test_what_the_rules_ask_about_or_decline_is_not_routed(
    config_file: Path, workspace: Path
) -> None:
    for command, decision in (("curl https://example.com", "ask"), ("rm -rf ~", "deny")):
        data = event(workspace, "Bash", {"command": command})
        _, out, _ = await answer(config_file, data, routing(config_file))
        assert out is not None
        assert out["permissionDecision"] == decision, (command, out)
        assert "updatedInput" not in out


async def test_other_tools_are_answered_as_before(config_file: Path, workspace: Path) -> None:
    data = event(workspace, "Read", {"file_path": str(workspace / "x.py")})
    routed = await answer(config_file, data, routing(config_file))
    plain = await answer(config_file, data, None)
    assert routed[0] == plain[0]
    assert routed[1] is None or "updatedInput" not in routed[1]


@pytest.mark.parametrize("options", [{"allow": "host"}, {"shadow": True}])
async def test_leaving_allows_to_claude_code_routes_nothing(
    config_file: Path, workspace: Path, options: dict[str, Any]
) -> None:
    data = event(workspace, "Bash", {"command": PYTHON_WRITE})
    reply, out, _ = await answer(config_file, data, routing(config_file), **options)
    assert reply.status == 0
    assert out is None or "updatedInput" not in out


def test_a_confining_hook_reviews_in_process() -> None:
    assert parse_options(["claude-code", "--confine"]).in_process
    for conflicting in (["--require-service"], ["--server", "https://gw.example"]):
        with pytest.raises(Blocked, match="--confine hook reviews in-process"):
            parse_options(["claude-code", "--confine", *conflicting])
