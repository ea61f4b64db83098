"""
The MCP proxy, driven by the ``mcp`` SDK's own client against a real upstream server.

In-process: client → proxy → upstream, each a real ``mcp`` `Server`/`Client`
pair. Over stdio: ``python -m gateway_mcp -- python mcp_upstream.py`` as an
MCP client would start it. The "model" is the test, calling ``shell`` with
``ls``, ``rm -rf ~`` and a command that needs a person.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from gateway_guard import Reviewer
from gateway_mcp import build_proxy
from mcp import Client, StdioServerParameters

from adapters.mcp_upstream import upstream_server
from adapters.scripted import (
    ALLOWED,
    ASK_REASON,
    DECLINED,
    NEEDS_HUMAN,
    PLUGIN_DIR,
    TESTS_DIR,
    CrashingGateway,
    HangingGateway,
    ScriptApprover,
)
from gateway import Gateway, ToolCall, Verdict
from gateway.events import CallOutcome, HostDecided, VerdictReached
from gateway.testing import MemorySink

pytestmark = pytest.mark.anyio


def text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


@asynccontextmanager
async def proxied(reviewer: Reviewer, ran: list[str], **options: object) -> AsyncIterator[Client]:
    async with Client(upstream_server(ran)) as upstream:
        proxy = build_proxy(upstream, reviewer, **options)  # type: ignore[arg-type]
        async with Client(proxy) as client:
            yield client


async def test_proxy_lists_upstream_tools_and_reviews_each_call(gateway: Gateway) -> None:
    ran: list[str] = []
    with anyio.fail_after(30):
        async with proxied(gateway, ran) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["shell"]
            allowed = await client.call_tool("shell", {"command": ALLOWED})
            declined = await client.call_tool("shell", {"command": DECLINED})
            asked = await client.call_tool("shell", {"command": NEEDS_HUMAN})
    assert ran == [ALLOWED]
    assert (allowed.is_error, text(allowed)) == (False, f"ran {ALLOWED}")
    assert (declined.is_error, text(declined)) == (
        True,
        "Declined `rm -rf ~`: it deletes the home directory.",
    )
    assert asked.is_error is True
    # The person reading the error is told the rule's reason.
    assert text(asked) == ASK_REASON + " No person could be asked here, so it was not run."


async def test_a_person_can_allow_an_ask_and_the_answer_and_outcome_are_audited() -> None:
    async def person(call: ToolCall, verdict: Verdict) -> bool:
        return call.input == {"command": NEEDS_HUMAN}

    ran: list[str] = []
    sink = MemorySink()
    async with Gateway(approvers=[ScriptApprover()], sinks={"memory": sink}) as gateway:
        with anyio.fail_after(30):
            async with proxied(gateway, ran, ask=person) as client:
                result = await client.call_tool("shell", {"command": NEEDS_HUMAN})
    assert (result.is_error, ran) == (False, [NEEDS_HUMAN])
    (decided,) = [e for e in sink.events if isinstance(e, HostDecided)]
    (outcome,) = [e for e in sink.events if isinstance(e, CallOutcome)]
    assert (decided.decision, decided.by, decided.host) == ("allow", "person", "mcp")
    assert outcome.call_id == decided.call_id
    assert outcome.outcome == "succeeded"


async def test_call_ids_never_repeat_across_connections() -> None:
    sink = MemorySink()
    async with Gateway(approvers=[ScriptApprover()], sinks={"memory": sink}) as gateway:
        for _ in range(2):
            with anyio.fail_after(30):
                async with proxied(gateway, []) as client:
                    await client.call_tool("shell", {"command": DECLINED})
    ids = [e.call_id for e in sink.events if isinstance(e, VerdictReached)]
    assert len(ids) == 2
    assert len(set(ids)) == 2


@pytest.mark.parametrize("broken", [CrashingGateway, HangingGateway], ids=["crash", "hang"])
async def test_a_failing_gateway_blocks_the_call(
    broken: type[CrashingGateway | HangingGateway],
) -> None:
    reviewer = broken()
    ran: list[str] = []
    with anyio.fail_after(30):
        async with proxied(reviewer, ran, timeout=0.2) as client:
            result = await client.call_tool("shell", {"command": ALLOWED})
    assert (ran, result.is_error) == ([], True)
    assert "blocked" in text(result)
    assert len(reviewer.calls) == 1


async def test_the_stdio_proxy_command_guards_a_subprocess_server(tmp_path: Path) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text('[gateway]\napprovers = ["script"]\n')
    log = tmp_path / "ran.txt"
    log.touch()
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "gateway_mcp",
            "--config",
            str(config),
            "--",
            sys.executable,
            str(Path(__file__).parent / "mcp_upstream.py"),
            str(log),
        ],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(PLUGIN_DIR), str(TESTS_DIR)])},
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            allowed = await client.call_tool("shell", {"command": ALLOWED})
            declined = await client.call_tool("shell", {"command": DECLINED})
    assert log.read_text().splitlines() == [ALLOWED]
    assert (allowed.is_error, declined.is_error) == (False, True)
    assert text(declined) == "Declined `rm -rf ~`: it deletes the home directory."


async def test_with_a_running_service_a_person_decides_in_its_page() -> None:
    """`--server`: the proxy's call waits in the service's page, and the person's allow runs it."""
    from gateway_mcp import ServiceReviewer
    from web.support import serve

    ran: list[str] = []
    with serve(human=True) as served:
        reviewer = ServiceReviewer(served.url, served.token, timeout=30)
        async with served.client(headers=served.auth) as person:

            async def decide() -> None:
                while True:
                    pending = (await person.get("/v1/calls?state=pending")).json()["calls"]
                    if pending:
                        break
                    await anyio.sleep(0.05)
                entry = pending[0]
                assert entry["request"]["call"]["host"] == "mcp"
                answer = await person.post(
                    f"/v1/calls/{entry['id']}/decision",
                    json={"decision": "allow", "digest": entry["digest"]},
                )
                assert answer.status_code == 200, answer.text

            with anyio.fail_after(30):
                async with proxied(reviewer, ran) as client, anyio.create_task_group() as group:
                    group.start_soon(decide)
                    result = await client.call_tool("shell", {"command": NEEDS_HUMAN})
    assert (result.is_error, ran) == (False, [NEEDS_HUMAN])


async def test_a_service_that_refuses_blocks_the_call() -> None:
    """A wrong token (or anything but a verdict) from the service: nothing is forwarded."""
    from gateway_mcp import ServiceReviewer
    from web.support import serve

    ran: list[str] = []
    with serve() as served:
        reviewer = ServiceReviewer(served.url, "not-the-token", timeout=30)
        with anyio.fail_after(30):
            async with proxied(reviewer, ran) as client:
                result = await client.call_tool("shell", {"command": ALLOWED})
    assert (ran, result.is_error) == ([], True)
    assert "blocked" in text(result)


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (
            ["--server", "http://127.0.0.1:9", "--token-file", "missing-token"],
            "gateway_mcp: Cannot read the service's token file 'missing-token' (No such file or directory); pass --token-file FILE.\n",
        ),
        (
            ["--server", "ftp://example", "--token-file", "token"],
            "gateway_mcp: The server 'ftp://example' is not an http:// or https:// URL.\n",
        ),
    ],
)
def test_a_server_the_proxy_cannot_use_stops_it_with_one_sentence(
    words: list[str],
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gateway_mcp.__main__ import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "token").write_text("t\n")
    assert main([*words, "--", "true"]) == 2
    assert capsys.readouterr().err == said
