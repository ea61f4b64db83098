"""
``gateway hook claude-code``, run as Claude Code runs it: a process with one event on standard input.

Each test starts ``python -m gateway._cli hook claude-code`` with real event
JSON and checks the exit status, that standard output holds nothing but the
one JSON answer, and that failures exit 2 (which makes Claude Code block the
call). Standalone runs load the scripted approver through its entry point
(its directory is put on ``PYTHONPATH``); forward runs talk to a stub of the
approval service on a loopback port.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from adapters.scripted import ALLOWED, DECLINED, NEEDS_HUMAN, PLUGIN_DIR, TESTS_DIR
from gateway import CallOutcome, VerdictReached, read_audit_log, verify_audit_log

BASE: dict[str, Any] = {
    "session_id": "abc123",
    "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
    "cwd": "/home/u/project",
    "permission_mode": "default",
}


def bash_event(command: str, event: str = "PreToolUse", **extra: Any) -> dict[str, Any]:
    """A Claude Code hook event for the Bash tool, as Claude Code sends it."""
    return {
        **BASE,
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run a command", "timeout": 120000},
        "tool_use_id": f"toolu_{abs(hash(command)) % 10**8:08d}",
        **extra,
    }


def run_hook(
    stdin: bytes | dict[str, Any], *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PLUGIN_DIR), str(TESTS_DIR)])}
    return subprocess.run(
        [sys.executable, "-m", "gateway._cli", "hook", "claude-code", *args],
        input=data,
        capture_output=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def answer(result: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    """The one JSON answer on standard output (and nothing else there)."""
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, result.stdout
    value: dict[str, Any] = json.loads(lines[0])
    return value


def blocked(result: subprocess.CompletedProcess[bytes]) -> str:
    """The one-sentence reason of a hook that exited 2 (standard output must be empty)."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == b""
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "gateway.toml"
    path.write_text(
        f"""
[gateway]
approvers = ["script"]

[sinks.audit]
plugin = "jsonl"
path = "{tmp_path / "audit.jsonl"}"
required = true
"""
    )
    return path


# ── standalone ──


@pytest.mark.parametrize(
    ("command", "decision"),
    [(ALLOWED, "allow"), (DECLINED, "deny"), (NEEDS_HUMAN, "ask")],
    ids=["allow", "deny", "ask"],
)
def test_pre_tool_use_prints_only_the_decision(config: Path, command: str, decision: str) -> None:
    output = answer(run_hook(bash_event(command), "--config", str(config)))
    assert output == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": output["hookSpecificOutput"]["permissionDecisionReason"],
        }
    }
    if decision == "deny":
        assert output["hookSpecificOutput"]["permissionDecisionReason"] == (
            "Declined `rm -rf ~`: it deletes the home directory."
        )


def test_pre_tool_use_is_audited_with_the_tool_use_id(config: Path) -> None:
    event = bash_event(DECLINED)
    answer(run_hook(event, "--config", str(config)))
    audit = config.parent / "audit.jsonl"
    verdicts = [e for e in read_audit_log(audit) if isinstance(e, VerdictReached)]
    assert [(v.call_id, v.verdict.decision) for v in verdicts] == [
        (event["tool_use_id"], "decline")
    ]
    assert verify_audit_log(audit) is None


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            ALLOWED,
            {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "allow"},
                }
            },
        ),
        (
            DECLINED,
            {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {
                        "behavior": "deny",
                        "message": "Declined `rm -rf ~`: it deletes the home directory.",
                    },
                }
            },
        ),
        (NEEDS_HUMAN, {}),
    ],
    ids=["allow", "deny", "leave-to-dialog"],
)
def test_permission_request_answers_or_leaves_the_dialog(
    config: Path, command: str, expected: dict[str, Any]
) -> None:
    event = bash_event(command, "PermissionRequest", permission_suggestions=[])
    assert answer(run_hook(event, "--config", str(config))) == expected


@pytest.mark.parametrize(
    ("event", "outcome"),
    [
        ("PostToolUse", "succeeded"),
        ("PostToolUseFailure", "failed"),
    ],
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
    result = run_hook(hook_event, "--config", str(config))
    assert (result.returncode, result.stdout) == (0, b"")
    audit = config.parent / "audit.jsonl"
    (recorded,) = [e for e in read_audit_log(audit) if isinstance(e, CallOutcome)]
    assert (recorded.call_id, recorded.outcome) == (hook_event["tool_use_id"], outcome)


def test_parallel_hooks_keep_one_unbroken_audit_chain(config: Path) -> None:
    """Claude Code runs the hooks of parallel tool calls at once; the log's chain must not fork."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PLUGIN_DIR), str(TESTS_DIR)])}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "gateway._cli", "hook", "claude-code", "--config", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(4)
    ]
    for number, process in enumerate(processes):
        out, err = process.communicate(json.dumps(bash_event(f"ls {number}")).encode(), timeout=60)
        assert process.returncode == 0, err
        assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert verify_audit_log(config.parent / "audit.jsonl") is None


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
    ],
    ids=["truncated-json", "invalid-utf8", "not-object", "empty", "unknown-event", "no-tool-name"],
)
def test_input_it_cannot_handle_exits_2(config: Path, stdin: bytes, reason: str) -> None:
    assert reason in blocked(run_hook(stdin, "--config", str(config)))


def test_an_approver_that_cannot_be_loaded_exits_2(tmp_path: Path) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text('[gateway]\napprovers = ["no-such-approver"]\n')
    assert "no-such-approver" in blocked(run_hook(bash_event(ALLOWED), "--config", str(config)))


def test_a_hanging_gateway_exits_2_within_the_timeout(tmp_path: Path) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text(
        '[gateway]\napprovers = ["script"]\napprover-timeout = 600\n\n[approver.script]\nmode = "hang"\n'
    )
    result = run_hook(bash_event(ALLOWED), "--config", str(config), "--timeout", "1", timeout=30)
    assert "did not answer within 1 s" in blocked(result)


def test_a_missing_config_file_exits_2(tmp_path: Path) -> None:
    assert "Cannot read the config file" in blocked(
        run_hook(bash_event(ALLOWED), "--config", str(tmp_path / "missing.toml"))
    )


# ── forward mode ──


class StubService(http.server.BaseHTTPRequestHandler):
    """Plays ``gateway serve``'s ``POST /hooks/claude-code``: records requests, answers as told."""

    answer: ClassVar[bytes] = b"{}"
    status: ClassVar[int] = 200
    hang: ClassVar[threading.Event | None] = None
    requests: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).requests.append((self.path, dict(self.headers), body))
        if self.hang is not None:
            self.hang.wait(30)
            return
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.answer)))
        self.end_headers()
        self.wfile.write(self.answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def service() -> Iterator[tuple[str, type[StubService]]]:
    class Stub(StubService):
        requests: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []

    handler: type[StubService] = Stub
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        if handler.hang is not None:
            handler.hang.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text("s3cret-token\n")
    return path


def test_forward_relays_the_services_decision_with_the_token(
    service: tuple[str, type[StubService]], token_file: Path
) -> None:
    url, handler = service
    decision = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "A person allowed it.",
        }
    }
    handler.answer = json.dumps(decision).encode()
    event = bash_event(NEEDS_HUMAN)
    result = run_hook(event, "--server", url, "--token-file", str(token_file))
    assert answer(result) == decision
    ((path, headers, body),) = handler.requests
    assert path == "/hooks/claude-code"
    assert headers["Authorization"] == "Bearer s3cret-token"
    assert json.loads(body) == event


def test_forward_reads_server_and_token_from_the_config(
    service: tuple[str, type[StubService]], token_file: Path, tmp_path: Path
) -> None:
    url, handler = service
    config = tmp_path / "forward.toml"
    config.write_text(f'[hook]\nserver = "{url}"\ntoken-file = "{token_file}"\ntimeout = 5\n')
    handler.answer = b"{}"
    event = bash_event(NEEDS_HUMAN, "PermissionRequest")
    assert answer(run_hook(event, "--config", str(config))) == {}
    assert handler.requests[0][1]["Authorization"] == "Bearer s3cret-token"


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (200, b"not json", "not JSON"),
        (
            200,
            b'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "yes"}}',
            "no allow, deny or ask",
        ),
        (200, b"{}", "not a PreToolUse decision"),
        (401, b'{"error": "unauthorized"}', "HTTP 401"),
        (302, b"", "HTTP 302"),
    ],
    ids=["garbage", "unknown-decision", "no-decision", "unauthorized", "redirect"],
)
def test_forward_blocks_on_an_answer_it_cannot_relay(
    service: tuple[str, type[StubService]], status: int, body: bytes, reason: str
) -> None:
    url, handler = service
    handler.status, handler.answer = status, body
    assert reason in blocked(run_hook(bash_event(ALLOWED), "--server", url))


def test_forward_blocks_when_the_service_hangs(service: tuple[str, type[StubService]]) -> None:
    url, handler = service
    handler.hang = threading.Event()
    result = run_hook(bash_event(ALLOWED), "--server", url, "--timeout", "1", timeout=30)
    assert "did not answer within 1 s" in blocked(result)


def test_forward_blocks_when_the_service_is_unreachable() -> None:
    with socket.socket() as probe:  # a loopback port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run_hook(bash_event(ALLOWED), "--server", f"http://127.0.0.1:{port}", "--timeout", "5")
    assert "unreachable" in blocked(result)


def test_an_event_that_never_ends_exits_2_within_the_timeout(config: Path) -> None:
    """Standard input left open (no end of the event) is a bounded wait, not a hang."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PLUGIN_DIR), str(TESTS_DIR)])}
    command = [sys.executable, "-m", "gateway._cli", "hook", "claude-code", "--config", str(config)]
    with subprocess.Popen(
        [*command, "--timeout", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
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


def test_forward_blocks_when_the_token_file_is_missing(
    service: tuple[str, type[StubService]], tmp_path: Path
) -> None:
    url, handler = service
    result = run_hook(bash_event(ALLOWED), "--server", url, "--token-file", str(tmp_path / "nope"))
    assert "Cannot read the token file" in blocked(result)
    assert handler.requests == []


def test_forward_reads_the_token_where_gateway_serve_stores_it() -> None:
    """With no --token-file, the hook sends the token `gateway serve` stored at its default path."""
    from gateway._config import default_token_file

    seen: list[str | None] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.headers.get("Authorization"))
            self.send_response(401)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    token_file = default_token_file()
    token_file.parent.mkdir(parents=True, exist_ok=True)
    token_file.write_text("stored-token\n")
    try:
        with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
            threading.Thread(target=server.serve_forever, daemon=True).start()
            result = run_hook(
                bash_event("ls"), "--server", f"http://127.0.0.1:{server.server_address[1]}"
            )
            server.shutdown()
    finally:
        token_file.unlink()
    assert result.returncode == 2
    assert seen == ["Bearer stored-token"]
