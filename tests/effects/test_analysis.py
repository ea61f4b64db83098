"""
One reading per call: `analyse_call` reads the text once, and nothing after it reads it again.

Reads are counted where every consensus reading starts (the tree-sitter
half). The analysis survives a msgspec round trip (it may be computed in a
worker process), is deterministic, and carries everything the gateway hands
on: the plan, positions, sequence plan, holes, effects and what fragments
need. The gateway caches it: a review reads the call's text once, a repeat
reads nothing, and an answer to a hole reads nothing.
"""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest

import gateway._read as shell
from effects.support import CWD, HOME, PATHS
from gateway import Gateway, GatewayConfig, ToolCall
from gateway._plan._fragments import expand_planned
from gateway.config import ShellTool
from gateway.effects import (
    PLAN_FORMAT,
    AnalysisContext,
    CallAnalysis,
    Effect,
    Opaque,
    PathsSection,
    Privilege,
    Write,
    analyse_call,
    iter_effects,
)
from gateway.events import GatewayStarted, PlanReady
from gateway.plans import FragmentAddr, FragmentError, expand_fragment
from gateway.testing import MemorySink, StaticApprover

pytestmark = pytest.mark.anyio
CONTEXT = AnalysisContext(paths=PATHS)
HEREDOCS = "cat <<A\n$(date)\nA\ncat <<B\n$(id -u) ${USER}\nB\ncat <<'C'\n$(not a hole)\nC"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the shell reader read, in order."""
    seen: list[str] = []
    original = shell._read

    def counting(text: Any) -> Any:
        seen.append(text)
        return original(text)

    monkeypatch.setattr(shell, "_read", counting)
    return seen


@pytest.mark.parametrize(
    "source",
    [
        "ls -la | wc -l",
        "mysql -u root -pS3cretPassw0rd db -e 'select 1'",
        HEREDOCS,
        "cd src && timeout 60 pytest -x 2>&1 | tee log.txt",
        "echo 'unterminated",
    ],
    ids=["pipeline", "secret", "heredocs", "chain", "unmeasured"],
)
def test_a_call_is_read_once(source: str, reads: list[str]) -> None:
    analysis = analyse_call(source, CONTEXT)
    assert reads == [source]
    assert analysis.reads == 1


def test_nested_text_is_read_once_more_and_no_more(reads: list[str]) -> None:
    analysis = analyse_call("bash -lc 'git status' && bash -lc 'git status'", CONTEXT)
    assert reads == ["bash -lc 'git status' && bash -lc 'git status'", "git status"]
    assert analysis.reads == 2


def test_the_analysis_holds_what_the_gateway_hands_on() -> None:
    analysis = analyse_call(HEREDOCS, CONTEXT)
    assert analysis.measured
    assert [
        (h.ref.statement, h.ref.heredoc, h.ref.hole, h.hole.source) for h in analysis.holes
    ] == [
        (0, 0, 0, "$(date)"),
        (1, 0, 0, "$(id -u)"),
    ]
    commands = [c for s in analysis.plan.statements for c in s.plan.commands]
    assert len(analysis.positions) == len(commands)
    assert analysis.effects == tuple(
        e for s in analysis.plan.statements for _, e in iter_effects(s.plan)
    )
    assert analysis.sequence.status == "unmeasured"


def test_secrets_are_masked_in_everything_published_but_the_digest_binds_them() -> None:
    source = "mysql -u root -pS3cretPassw0rd db > ~/out-S3cretPassw0rd.txt"
    analysis = analyse_call(source, CONTEXT)
    published = msgspec.json.encode(
        msgspec.structs.replace(analysis, fragments=())  # fragments are internal, never published
    )
    assert b"S3cretPassw0rd" not in published
    other = analyse_call(source.replace("S3cret", "0ther0"), CONTEXT)
    assert analysis.plan.digest != other.plan.digest


@pytest.mark.parametrize(
    "source",
    [
        HEREDOCS,
        "cd ~ && rm -rf Documents",
        "sudo -u deploy env A=1 nohup make &",
        "x 'unterminated",
    ],
)
def test_the_analysis_survives_a_msgspec_round_trip(source: str) -> None:
    analysis = analyse_call(source, CONTEXT)
    for encode, decode in (
        (msgspec.json.encode, msgspec.json.decode),
        (msgspec.msgpack.encode, msgspec.msgpack.decode),
    ):
        assert decode(encode(analysis), type=CallAnalysis) == analysis
    context = msgspec.json.decode(msgspec.json.encode(CONTEXT), type=AnalysisContext)
    assert context == CONTEXT
    effects = msgspec.json.decode(msgspec.json.encode(analysis.effects), type=tuple[Effect, ...])
    assert effects == analysis.effects


def test_the_analysis_is_deterministic() -> None:
    first = msgspec.json.encode(analyse_call(HEREDOCS, CONTEXT))
    assert msgspec.json.encode(analyse_call(HEREDOCS, CONTEXT)) == first


def test_fragments_expand_from_the_analysis_without_reading(reads: list[str]) -> None:
    analysis = analyse_call(HEREDOCS, CONTEXT)
    reads.clear()
    first = expand_planned(
        HEREDOCS, analysis.fragments, FragmentAddr(statement=0, heredoc=0), {}, {0: "today\n"}
    )
    assert first.complete == "today\n"
    literal = expand_planned(HEREDOCS, analysis.fragments, FragmentAddr(statement=2, heredoc=0))
    assert literal.complete == "$(not a hole)\n"
    blocked = expand_planned(HEREDOCS, analysis.fragments, FragmentAddr(statement=1, heredoc=0))
    assert blocked.blocked is not None
    assert [h.source for h in blocked.blocked.holes] == ["$(id -u)"]
    with pytest.raises(FragmentError, match="No such statement 3; the source has 3 statements"):
        expand_planned(HEREDOCS, analysis.fragments, FragmentAddr(statement=3, heredoc=0))
    assert reads == []
    again = expand_fragment(HEREDOCS, FragmentAddr(statement=1, heredoc=0)).blocked
    assert again is not None
    assert [h.source for h in again.holes] == ["$(id -u)"]


async def test_a_review_reads_once_a_repeat_and_an_answer_read_nothing() -> None:
    # Calls are read in the gateway's worker processes, out of this process's
    # sight: its counters say how often a call's text was read (a miss) and
    # how often a reading was reused (a hit).
    async with Gateway(approvers=[StaticApprover("allow")]) as gateway:
        await gateway.review(ToolCall("Bash", {"command": HEREDOCS}, call_id="h"))
        first = gateway.statistics()
        assert (first.plan_cache_misses, first.plan_cache_hits) == (1, 0)
        await gateway.review(ToolCall("Bash", {"command": HEREDOCS}))
        verdict = await gateway.answer("h", 0, 0, {0: "today\n"})
        after = gateway.statistics()
    assert after.plan_cache_misses == 1
    assert after.plan_cache_hits >= 1
    assert verdict.decision == "allow"


async def test_the_request_the_started_event_and_plan_ready_carry_the_effects() -> None:
    sink = MemorySink()
    recorder = StaticApprover("abstain")
    config = GatewayConfig(paths=PathsSection(home=HOME))
    async with Gateway(config, approvers=[recorder], sinks={"memory": sink}) as gateway:
        await gateway.review(ToolCall("Bash", {"command": "echo x >> ~/.bashrc"}, cwd=CWD))
        await gateway.review(ToolCall("Write", {"file_path": f"{HOME}/.bashrc"}, cwd=CWD))
        await gateway.review(ToolCall("mcp__thing__do", {"x": 1}))
    started = next(e for e in sink.events if isinstance(e, GatewayStarted))
    assert started.plan_format == PLAN_FORMAT == 4
    shell, write, unmapped = (r.effects for r in recorder.requests)
    assert [e.path.classes for e in shell if isinstance(e, Write)] == [("home", "persistence")]
    assert [(e.path.value, e.path.classes) for e in write if isinstance(e, Write)] == [
        (e.path.value, e.path.classes) for e in shell if isinstance(e, Write)
    ]
    assert [type(e) for e in unmapped] == [Opaque]
    ready = [e for e in sink.events if isinstance(e, PlanReady)]
    assert [len(e.effects) for e in ready] == [0, 1, 1]  # a shell's effects are in its plan


async def test_local_shell_runs_its_command_where_it_says_and_as_whom() -> None:
    recorder = StaticApprover("abstain")
    call = ToolCall(
        "local_shell",
        {
            "action": {
                "type": "exec",
                "command": ["bash", "-lc", "echo x > out"],
                "user": "root",
                "working_directory": "/srv/app",
            }
        },
        cwd=CWD,
    )
    async with Gateway(approvers=[recorder]) as gateway:
        await gateway.review(call)
    (request,) = recorder.requests
    assert [e for e in request.effects if isinstance(e, Privilege)] == [
        Privilege(via="local_shell", user="root")
    ]
    assert [e.path.value for e in request.effects if isinstance(e, Write)] == ["/srv/app/out"]


async def test_a_shell_tool_may_be_named_by_a_glob() -> None:
    config = GatewayConfig(shell_tools=(ShellTool(tool="mcp__*__run_command", fields=("cmd",)),))
    recorder = StaticApprover("abstain")
    async with Gateway(config, approvers=[recorder]) as gateway:
        await gateway.review(ToolCall("mcp__box__run_command", {"cmd": "ls"}))
    (request,) = recorder.requests
    assert request.plan is not None
    assert [c.name for s in request.plan.statements for c in s.plan.commands] == ["ls"]


async def test_answers_reuse_the_analysis_even_when_the_cache_forgot_it(reads: list[str]) -> None:
    config = GatewayConfig()
    config = msgspec.structs.replace(
        config, gateway=msgspec.structs.replace(config.gateway, plan_cache_size=1)
    )
    async with Gateway(config, approvers=[StaticApprover("allow")]) as gateway:
        with anyio.fail_after(30):
            await gateway.review(ToolCall("Bash", {"command": HEREDOCS}, call_id="h"))
            await gateway.review(ToolCall("Bash", {"command": "ls"}))
            reads.clear()
            await gateway.answer("h", 1, 0, {0: "1000\n"})
    assert reads == []
