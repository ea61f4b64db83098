"""
The Claude Code hook, run as Claude Code runs it: a process with one event on standard input.

Each test starts ``python -m gateway_relay claude-code`` (what ``gateway-hook
claude-code`` runs) with event JSON shaped as the real CLI sends it (checked
against Claude Code 2.1.332 by the end-to-end tests), and checks the exit
status, that standard output holds nothing but the one JSON answer, and that
failures exit 2 (which makes Claude Code block the call). In-process runs load
the scripted approver through its entry point; forwarding runs talk to a real
approval service on its Unix socket, or to stand-ins that misbehave.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_relay import SUN_PATH_BYTES, at_socket_path

from adapters.hooks_support import (
    answer,
    blocked,
    hook_env,
    run_hook,
    running_service,
    script_config,
)
from adapters.scripted import (
    ALLOWED,
    ASK_REASON,
    DECLINE_REASON,
    DECLINED,
    FOUNDED,
    FOUNDED_REASON,
    NEEDS_HUMAN,
)
from gateway import Allow, Answer, ReviewRequest
from gateway.audit import read_audit_log, verify_audit_log
from gateway.events import CallOutcome, VerdictReached

BASE: dict[str, Any] = {
    "session_id": "abc123",
    "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
    "cwd": "/home/u/project",
    "permission_mode": "default",
    "prompt_id": "p-1",
    "effort": {"level": "medium"},
}


def bash_event(command: str, event: str = "PreToolUse", **extra: Any) -> dict[str, Any]:
    """A Claude Code hook event for the Bash tool, as Claude Code sends it."""
    body: dict[str, Any] = {
        **BASE,
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run a command"},
        **extra,
    }
    if event != "PermissionRequest":  # the real CLI sends none with it
        body.setdefault("tool_use_id", f"toolu_{abs(hash(command)) % 10**8:08d}")
    return body


def hook(
    stdin: bytes | dict[str, Any], *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    return run_hook("claude-code", stdin, *args, timeout=timeout)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return script_config(tmp_path / "gateway.toml", tmp_path / "audit.jsonl")


def verdicts(config: Path) -> list[VerdictReached]:
    return [
        e for e in read_audit_log(config.parent / "audit.jsonl") if isinstance(e, VerdictReached)
    ]


# ── in-process ──


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (FOUNDED, ("allow", "A person allowed `echo approved`.")),
        (DECLINED, ("deny", DECLINE_REASON)),
        (NEEDS_HUMAN, ("ask", ASK_REASON)),
    ],
    ids=["founded-allow", "deny", "ask-with-the-rules-reason"],
)
def test_pre_tool_use_prints_only_the_decision(
    config: Path, command: str, expected: tuple[str, str]
) -> None:
    output = answer(hook(bash_event(command), "--config", str(config)))
    assert output == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": expected[0],
            "permissionDecisionReason": expected[1],
        }
    }


def test_an_allow_the_plan_does_not_found_is_left_to_claude_code(config: Path) -> None:
    """No output at all: Claude Code's own checks decide, as they would without the gateway."""
    result = hook(bash_event(ALLOWED), "--config", str(config))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    (verdict,) = verdicts(config)
    assert (verdict.verdict.decision, verdict.verdict.founded) == ("allow", False)


def test_every_allow_is_left_to_claude_code_when_configured(tmp_path: Path) -> None:
    config = script_config(
        tmp_path / "gateway.toml", tmp_path / "audit.jsonl", '\n[hosts]\nallow = "host"\n'
    )
    assert answer(hook(bash_event(FOUNDED), "--config", str(config))) == {}
    assert (
        answer(hook(bash_event(DECLINED), "--config", str(config)))["hookSpecificOutput"][
            "permissionDecision"
        ]
        == "deny"
    )


def test_pre_tool_use_is_audited_with_the_tool_use_id(config: Path) -> None:
    event = bash_event(DECLINED)
    answer(hook(event, "--config", str(config)))
    assert [(v.call_id, v.verdict.decision) for v in verdicts(config)] == [
        (event["tool_use_id"], "decline")
    ]
    assert verify_audit_log(config.parent / "audit.jsonl") is None


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            DECLINED,
            {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": DECLINE_REASON},
                }
            },
        ),
        (NEEDS_HUMAN, {}),
        (ALLOWED, {}),
        (FOUNDED, {}),
    ],
    ids=[
        "declined-again",
        "ask-left-to-the-dialog",
        "unfounded-left",
        "founded-never-allowed-here",
    ],
)
def test_permission_request_is_linked_to_its_pre_tool_use_and_reviewed_once(
    config: Path, command: str, expected: dict[str, Any]
) -> None:
    """The real PermissionRequest has no tool_use_id; it is the same call by session, tool and input."""
    pre = bash_event(command)
    hook(pre, "--config", str(config))
    permission = bash_event(command, "PermissionRequest", permission_suggestions=[])
    assert "tool_use_id" not in permission
    assert answer(hook(permission, "--config", str(config))) == expected
    assert [v.call_id for v in verdicts(config)] == [pre["tool_use_id"]]


def test_a_permission_request_of_another_session_is_not_linked(config: Path) -> None:
    hook(bash_event(FOUNDED), "--config", str(config))
    other = bash_event(FOUNDED, "PermissionRequest", session_id="someone-else")
    assert answer(hook(other, "--config", str(config))) == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }
    ids = [v.call_id for v in verdicts(config)]
    assert len(ids) == 2
    assert ids[1] is not None
    assert ids[1].startswith("permission-")


@pytest.mark.parametrize(
    ("event", "outcome"),
    [("PostToolUse", "succeeded"), ("PostToolUseFailure", "failed")],
)
def test_post_tool_use_records_the_outcome_and_prints_nothing(
    config: Path, event: str, outcome: str
) -> None:
    extra: dict[str, Any] = (
        {"tool_response": {"stdout": "a\nb\n", "stderr": "", "interrupted": False}}
        if event == "PostToolUse"
        else {"error": "Command exited with non-zero status code 1"}
    )
    hook_event = bash_event(ALLOWED, event, **extra)
    result = hook(hook_event, "--config", str(config))
    assert (result.returncode, result.stdout) == (0, b"")
    audit = config.parent / "audit.jsonl"
    (recorded,) = [e for e in read_audit_log(audit) if isinstance(e, CallOutcome)]
    assert (recorded.call_id, recorded.outcome) == (hook_event["tool_use_id"], outcome)


def test_parallel_hooks_keep_one_unbroken_audit_chain(config: Path) -> None:
    """Claude Code runs the hooks of parallel tool calls at once; the log's chain must not fork."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "gateway_relay", "claude-code", "--config", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=hook_env(),
        )
        for _ in range(4)
    ]
    # Every hook gets its event at once, as Claude Code gives them: a hook
    # waits a bounded time for its standard input, and on a busy machine the
    # others' reviews may take longer than that.
    events = [json.dumps(bash_event(f"ls {number}")).encode() for number in range(len(processes))]
    with ThreadPoolExecutor(len(processes)) as pool:
        answers = list(
            pool.map(lambda p, event: p.communicate(event, timeout=60), processes, events)
        )
    for process, (out, err) in zip(processes, answers, strict=True):
        assert process.returncode == 0, err
        assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert verify_audit_log(config.parent / "audit.jsonl") is None
    assert len(verdicts(config)) == 4


# ── what it cannot handle blocks ──


@pytest.mark.parametrize(
    ("stdin", "reason"),
    [
        (b'{"hook_event_name": "PreToolUse", "tool_name": "Bash"', "not JSON"),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b"[1, 2]", "not a JSON object"),
        (b"", "not JSON"),
        (
            json.dumps({**BASE, "hook_event_name": "Stop"}).encode(),
            "cannot handle the event 'Stop'",
        ),
        (json.dumps({**BASE, "hook_event_name": "PreToolUse"}).encode(), "malformed"),
        (
            json.dumps(
                {**BASE, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}
            ).encode(),
            "malformed",
        ),
        (b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "x": "\\ud800"}', "not"),
    ],
    ids=[
        "truncated-json",
        "invalid-utf8",
        "not-object",
        "empty",
        "unknown-event",
        "no-tool-name",
        "input-not-an-object",
        "lone-surrogate",
    ],
)
def test_input_it_cannot_handle_exits_2(config: Path, stdin: bytes, reason: str) -> None:
    assert reason in blocked(hook(stdin, "--config", str(config)))


def test_an_approver_that_cannot_be_loaded_exits_2(tmp_path: Path) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text('[gateway]\napprovers = ["no-such-approver"]\n')
    assert "no-such-approver" in blocked(hook(bash_event(ALLOWED), "--config", str(config)))


def test_a_hanging_gateway_exits_2_within_the_timeout(tmp_path: Path) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text(
        '[gateway]\napprovers = ["script"]\napprover-timeout = 600\n\n[approver.script]\nmode = "hang"\n'
    )
    result = hook(bash_event(ALLOWED), "--config", str(config), "--timeout", "1", timeout=30)
    assert "within 1 s" in blocked(result)


def test_a_missing_config_file_exits_2(tmp_path: Path) -> None:
    assert "Cannot read the config file" in blocked(
        hook(bash_event(ALLOWED), "--config", str(tmp_path / "missing.toml"))
    )


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("--timeout",),
        ("--timeout", "soon"),
        ("--timeout", "0"),
        ("--bogus",),
        ("--require-service", "--in-process"),
    ],
    ids=[
        "no-host",
        "option-without-value",
        "timeout-not-a-number",
        "timeout-zero",
        "unknown-option",
        "both-modes",
    ],
)
def test_a_command_line_it_cannot_read_exits_2(args: tuple[str, ...]) -> None:
    argv = [sys.executable, "-m", "gateway_relay", *(["claude-code"] if args else []), *args]
    result = subprocess.run(
        argv, input=b"{}", capture_output=True, env=hook_env(), timeout=60, check=False
    )
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.strip()


def test_an_event_that_never_ends_exits_2_within_the_timeout(config: Path) -> None:
    """Standard input left open (no end of the event) is a bounded wait, not a hang."""
    command = [sys.executable, "-m", "gateway_relay", "claude-code", "--config", str(config)]
    with subprocess.Popen(
        [*command, "--timeout", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=hook_env(),
    ) as process:
        assert process.stdin is not None
        process.stdin.write(b'{"hook_event_name": "PreToolUse", ')
        process.stdin.flush()
        process.wait(timeout=30)
        assert process.stdout is not None
        assert process.stderr is not None
        out, err = process.stdout.read(), process.stderr.read()
        process.stdin.close()
    assert (process.returncode, out) == (2, b"")
    assert b"No complete hook event arrived on standard input within 1 s." in err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_blocks_the_call_with_exit_2(signum: signal.Signals) -> None:
    """Hosts stop a slow hook with a signal; the hook's status is 2 (block), never -15 or 130."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gateway_relay", "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=hook_env(),
    )
    assert process.stdin is not None
    # Wait until it blocks reading standard input (its handlers are set by then).
    wchan = Path(f"/proc/{process.pid}/wchan")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(
        word in wchan.read_text() for word in ("poll", "select")
    ):
        time.sleep(0.02)
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    assert (process.returncode, out) == (2, b"")
    assert b"so the call is blocked" in err


# ── forwarding to a running service ──


@pytest.fixture
def socket_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "gateway.sock"


def test_forwarding_relays_the_services_answer_and_reviews_there(socket_path: Path) -> None:
    with running_service(socket_path) as (running, sink):
        assert running.hook_socket == str(socket_path)
        assert (socket_path.stat().st_mode & 0o777) == 0o600
        assert (socket_path.parent.stat().st_mode & 0o077) == 0
        event = bash_event(DECLINED)
        output = answer(hook(event, "--socket", str(socket_path), "--require-service"))
        assert output["hookSpecificOutput"]["permissionDecisionReason"] == DECLINE_REASON
        reviewed = [e for e in sink.events if isinstance(e, VerdictReached)]
        assert [(e.call_id, e.verdict.decision) for e in reviewed] == [
            (event["tool_use_id"], "decline")
        ]


def test_forwarding_is_found_at_the_default_socket(tmp_path: Path) -> None:
    state = tmp_path / "xdg-state"
    with running_service(state / "agent-gateway" / "gateway.sock") as (_, sink):
        env = hook_env(XDG_STATE_HOME=str(state))
        result = run_hook("claude-code", bash_event(NEEDS_HUMAN), "--require-service", env=env)
        assert answer(result)["hookSpecificOutput"]["permissionDecision"] == "ask"
        assert any(isinstance(e, VerdictReached) for e in sink.events)


class _HeldUntilStopping:
    """Allows every call as a person would, but only once the service has begun to stop (its socket is gone)."""

    name = "held"

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self.entered = threading.Event()

    async def review(self, request: ReviewRequest) -> Answer:
        self.entered.set()
        with anyio.fail_after(60):
            while self.socket_path.exists():  # noqa: ASYNC110 -- its removal has no event to wait on
                await anyio.sleep(0.01)
        return Allow(reason=FOUNDED_REASON, rule="human", decided_by="a-person")


def test_a_hook_connected_when_the_service_stops_gets_the_verdict_it_was_given(
    socket_path: Path,
) -> None:
    """
    Stopping drains the hook socket: no new hook is taken, and one already
    connected gets the verdict the gateway recorded for it.

    Regression: the hooks' tasks were cancelled as soon as the HTTP server
    stopped, so a hook whose allow was already in the log got no answer.
    """
    held = _HeldUntilStopping(socket_path)
    event = bash_event(FOUNDED)
    with ThreadPoolExecutor(1) as pool:
        with running_service(socket_path, approvers=[held]) as (_, sink):
            running = pool.submit(hook, event, "--socket", str(socket_path), "--require-service")
            assert held.entered.wait(60)
        result = running.result(timeout=120)
    output = answer(result)
    assert output["hookSpecificOutput"]["permissionDecision"] == "allow"
    reviewed = [e for e in sink.events if isinstance(e, VerdictReached)]
    assert [(e.call_id, e.verdict.decision) for e in reviewed] == [(event["tool_use_id"], "allow")]


def test_a_socket_deeper_than_a_socket_address_holds_is_served_and_reached(
    tmp_path: Path, config: Path
) -> None:
    deep = tmp_path.joinpath(*["a-deep-state-directory"] * 6) / "agent-gateway" / "gateway.sock"
    assert len(os.fsencode(deep)) > SUN_PATH_BYTES
    # No service yet, not even its directory: the hook reviews in-process.
    result = hook(bash_event(DECLINED), "--config", str(config), "--socket", str(deep))
    assert answer(result)["hookSpecificOutput"]["permissionDecision"] == "deny"
    reason = blocked(hook(bash_event(DECLINED), "--socket", str(deep), "--require-service"))
    assert "No gateway is listening" in reason
    with running_service(deep) as (running, sink):
        assert running.hook_socket == str(deep)
        assert (deep.stat().st_mode & 0o777) == 0o600
        event = bash_event(DECLINED)
        output = answer(hook(event, "--socket", str(deep), "--require-service"))
        assert output["hookSpecificOutput"]["permissionDecisionReason"] == DECLINE_REASON
        assert [e.call_id for e in sink.events if isinstance(e, VerdictReached)] == [
            event["tool_use_id"]
        ]
    assert not deep.exists()  # removed by its own path, not the descriptor's long gone
    # A socket a service left behind (nobody listens) is replaced by the next one.
    leftover = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    at_socket_path(str(deep), leftover.bind)
    leftover.close()
    with running_service(deep) as (_, sink):
        assert answer(hook(bash_event(NEEDS_HUMAN), "--socket", str(deep), "--require-service"))
        assert any(isinstance(e, VerdictReached) for e in sink.events)


def test_without_a_service_it_reviews_in_process_unless_one_is_required(
    config: Path, socket_path: Path
) -> None:
    assert answer(hook(bash_event(DECLINED), "--config", str(config), "--socket", str(socket_path)))
    reason = blocked(hook(bash_event(DECLINED), "--socket", str(socket_path), "--require-service"))
    assert "No gateway is listening" in reason


def test_a_stale_socket_is_not_a_service(config: Path, socket_path: Path) -> None:
    socket_path.parent.mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(socket_path))
    stale.close()  # the file stays; nobody listens
    result = hook(bash_event(DECLINED), "--config", str(config), "--socket", str(socket_path))
    assert answer(result)["hookSpecificOutput"]["permissionDecision"] == "deny"


class StandIn:
    """Plays a service on the hook socket that misbehaves: it answers ``reply``, or hangs, or hangs up."""

    def __init__(self, path: Path, reply: bytes | None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.reply = reply
        self.requests: list[bytes] = []
        self.release = threading.Event()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            connection, _ = self.listener.accept()
            with connection:
                connection.settimeout(30)
                header = b""
                while not header.endswith(b"\n"):
                    header += connection.recv(1)
                length = int(header.split()[3])
                body = b""
                while len(body) < length:
                    body += connection.recv(length - len(body))
                self.requests.append(header + body)
                if self.reply is None:
                    self.release.wait(30)
                elif self.reply:
                    connection.sendall(self.reply)

    def close(self) -> None:
        self.release.set()
        self.listener.close()
        self.thread.join(30)


@pytest.fixture
def stand_in(socket_path: Path) -> Iterator[Callable[[bytes | None], StandIn]]:
    made: list[StandIn] = []

    def make(reply: bytes | None) -> StandIn:
        made.append(StandIn(socket_path, reply))
        return made[-1]

    yield make
    for one in made:
        one.close()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (b"not a frame\n", "not one this hook reads"),
        (b"1 0 0\n", "no status 0 or 2"),
        (b"0 5 0\nallow", "not a JSON object"),
        (b"0 3 0\n[1]", "not a JSON object"),
        (b"2 0 1\n ", "without saying why"),
        (b"0 2 0\n\xff\xfe", "not UTF-8"),
        (b"0 9 0\n{}", "closed the connection without an answer"),
        (b"", "closed the connection without an answer"),
    ],
    ids=[
        "garbage",
        "other-status",
        "output-not-json",
        "output-not-object",
        "block-without-reason",
        "not-utf8",
        "cut-short",
        "hang-up",
    ],
)
def test_forwarding_blocks_on_an_answer_it_cannot_relay(
    stand_in: Callable[[bytes | None], StandIn], socket_path: Path, reply: bytes, reason: str
) -> None:
    service = stand_in(reply)
    assert reason in blocked(hook(bash_event(ALLOWED), "--socket", str(socket_path)))
    (request,) = service.requests
    header, _, body = request.partition(b"\n")
    assert header == b"GATEWAY-HOOK 1 claude-code %d" % len(body)
    assert json.loads(body)["tool_input"]["command"] == ALLOWED


def test_forwarding_blocks_when_the_service_hangs(
    stand_in: Callable[[bytes | None], StandIn], socket_path: Path
) -> None:
    stand_in(None)
    result = hook(bash_event(ALLOWED), "--socket", str(socket_path), "--timeout", "1", timeout=30)
    assert "did not answer within 1 s" in blocked(result)


def test_forwarding_never_reviews_in_process_once_connected(
    stand_in: Callable[[bytes | None], StandIn], socket_path: Path, config: Path
) -> None:
    """A service that fails after the event reached it blocks: the call may have been reviewed there."""
    stand_in(b"")
    blocked(hook(bash_event(DECLINED), "--socket", str(socket_path), "--config", str(config)))
    assert not (config.parent / "audit.jsonl").exists()


# ── forwarding to a service on another machine (HTTP, explicit) ──


def test_forwarding_over_http_needs_the_token_and_relays_the_answer(
    socket_path: Path, tmp_path: Path
) -> None:
    with running_service(socket_path) as (running, sink):
        token = tmp_path / "agent.token"
        token.write_text(running.token + "\n")
        event = bash_event(DECLINED)
        output = answer(hook(event, "--server", running.url, "--token-file", str(token)))
        assert output["hookSpecificOutput"]["permissionDecisionReason"] == DECLINE_REASON
        assert any(isinstance(e, VerdictReached) for e in sink.events)
        token.write_text("not-the-token\n")
        assert "HTTP 401" in blocked(
            hook(event, "--server", running.url, "--token-file", str(token))
        )
        # A call the service would block is denied in Claude Code's own format (200), and relayed.
        garbled = {**event, "tool_input": "not an object"}
        token.write_text(running.token + "\n")
        denied = answer(hook(garbled, "--server", running.url, "--token-file", str(token)))
        assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    ("server", "reason"),
    [("http://127.0.0.1:9/", "unreachable"), ("ftp://example/", "not an http:// or https:// URL")],
    ids=["unreachable", "not-http"],
)
def test_forwarding_over_http_blocks_when_it_cannot_reach_the_service(
    server: str, reason: str
) -> None:
    assert reason in blocked(hook(bash_event(ALLOWED), "--server", server, "--timeout", "5"))


def test_forwarding_over_http_and_a_socket_at_once_is_refused(socket_path: Path) -> None:
    reason = blocked(
        hook(bash_event(ALLOWED), "--server", "http://127.0.0.1:9", "--socket", str(socket_path))
    )
    assert "not both" in reason
