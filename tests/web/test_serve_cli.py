"""
``gateway serve`` as a process: it prints its URL and token, stores the token 0600, serves, and stops on SIGTERM.

Also the whole path a Claude Code user takes: ``gateway-hook claude-code``
forwards an event to the running service over its Unix socket, a person
decides through the API, and the hook prints Claude Code's answer.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import serving

from gateway._settings._config import default_token_file
from web.support import WAIT

CONFIG = """
[gateway]
approvers = ["human"]

[serve]
human-timeout = 60
"""


@dataclass
class Process:
    """A running ``gateway serve`` and what it printed."""

    process: subprocess.Popen[str]
    url: str
    token: str
    token_file: Path
    socket: Path
    lines: list[str]


@contextmanager
def gateway_serve(tmp_path: Path, *extra: str) -> Iterator[Process]:
    config = tmp_path / "gateway.toml"
    config.write_text(CONFIG)
    token_file = tmp_path / "state" / "token"
    hook_socket = tmp_path / "state" / "gateway.sock"
    with serving.gateway_serve(
        "--config",
        str(config),
        "--token-file",
        str(token_file),
        *(extra or ("--socket", str(hook_socket))),
        cwd=tmp_path,
    ) as served:
        yield Process(
            served.process, served.url, served.token, token_file, hook_socket, served.lines
        )


def test_serve_prints_its_url_and_token_stores_it_privately_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    with gateway_serve(tmp_path) as served:
        with httpx.Client(base_url=served.url, trust_env=False, timeout=WAIT) as client:
            info = client.get(
                "/v1/info", headers={"Authorization": f"Bearer {served.token}"}
            ).json()
            page = client.get("/")
        stored = served.token_file.read_text().strip()
        mode = stat.S_IMODE(served.token_file.stat().st_mode)
        served.process.send_signal(signal.SIGTERM)
        status = served.process.wait(timeout=WAIT)
    assert served.lines[0].startswith("gateway serve: the approval page is at http://127.0.0.1:")
    assert served.url.endswith("/")
    assert served.lines[1].startswith(
        f"gateway serve: bearer token (stored in {served.token_file}, mode 0600): "
    )
    assert served.lines[2] == f"gateway serve: hooks forward to {served.socket} (mode 0600)"
    assert info["authorized"] is True
    assert info["human"] is True
    assert page.status_code == 200
    assert stored == served.token
    assert mode == 0o600
    # A service that stops takes its token with it (a stale one only fails later).
    assert not served.token_file.exists()
    assert status == 0


def test_serve_writes_and_serves_the_audit_log(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    with gateway_serve(tmp_path, "--audit", str(audit), "--no-socket") as served:
        headers = {"Authorization": f"Bearer {served.token}"}
        with httpx.Client(
            base_url=served.url, trust_env=False, timeout=WAIT, headers=headers
        ) as client:
            outcome = {"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": "a-1"}
            assert client.post("/hooks/claude-code", json=outcome).json() == {}
            # An outcome is published, not waited for (only a verdict waits for
            # its record), so on a busy machine it reaches the log a little later.
            deadline = time.monotonic() + WAIT
            one = client.get("/v1/audit", params={"call": "a-1"})
            while not one.text and time.monotonic() < deadline:
                time.sleep(0.05)
                one = client.get("/v1/audit", params={"call": "a-1"})
            log = client.get("/v1/audit")
    records = [json.loads(line) for line in log.text.splitlines()]
    assert [r["event"] for r in records[:2]] == ["chain.genesis", "gateway.started"]
    assert {r["call_id"] for r in map(json.loads, one.text.splitlines())} == {"a-1"}
    assert log.headers["content-type"].startswith("text/plain")
    assert audit.exists()


def test_serve_says_so_when_the_port_is_taken(tmp_path: Path) -> None:
    with gateway_serve(tmp_path) as served:
        port = served.url.rsplit(":", 1)[1].rstrip("/")
        config = tmp_path / "gateway.toml"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "gateway._cli",
                "serve",
                "--config",
                str(config),
                "--port",
                port,
                "--token-file",
                str(tmp_path / "t2"),
            ],
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
    assert result.returncode == 2
    assert result.stderr.startswith(f"gateway serve: Cannot listen on 127.0.0.1:{port} (")
    assert result.stdout == ""


def test_serve_refuses_an_invalid_config_in_one_sentence(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[serve]\nport = 99999\n")
    result = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "serve", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"gateway serve: Invalid config {str(config)!r} at $.serve.port: Expected `int` <= 65535.\n"
    )


def test_the_hook_forwards_to_the_service_and_a_person_decides(tmp_path: Path) -> None:
    event = {
        "session_id": "abc",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm publish", "description": "Publish"},
        "tool_use_id": "toolu_hook_1",
    }
    with (
        gateway_serve(tmp_path) as served,
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gateway_relay",
                "claude-code",
                "--socket",
                str(served.socket),
                "--require-service",
                "--timeout",
                str(WAIT),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        ) as hook,
    ):
        assert hook.stdin is not None
        hook.stdin.write(json.dumps(event).encode())
        hook.stdin.close()
        headers = {"Authorization": f"Bearer {served.token}"}
        with httpx.Client(
            base_url=served.url, trust_env=False, timeout=WAIT, headers=headers
        ) as client:
            entry = _first_pending(client, "toolu_hook_1")
            client.post(
                "/v1/calls/toolu_hook_1/decision",
                json={"decision": "allow", "digest": entry["digest"]},
            )
        hook.wait(timeout=WAIT)
        assert hook.stdout is not None
        assert hook.stderr is not None
        out, err = hook.stdout.read(), hook.stderr.read().decode()
    assert hook.returncode == 0, err
    answer = json.loads(out)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert (
        answer["hookSpecificOutput"]["permissionDecisionReason"]
        == "Allowed `npm publish`: a person (owner) allowed it."
    )


def _first_pending(client: httpx.Client, call_id: str) -> dict[str, Any]:
    with client.stream("GET", "/v1/events", params={"call": call_id}) as stream:
        kind = None
        for line in stream.iter_lines():
            if not line:
                kind = None
            elif line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: ") and kind in ("snapshot", "pending"):
                data = json.loads(line.removeprefix("data: "))
                pending = data["pending"] if kind == "snapshot" else [data]
                if pending:
                    return dict(pending[0])
    raise AssertionError("the event stream ended before the call waited")


def test_the_default_token_file_follows_xdg_state_home() -> None:
    assert default_token_file({"XDG_STATE_HOME": "/s"}) == Path("/s/agent-gateway/token")
    home = Path(os.path.expanduser("~"))
    assert default_token_file({}) == home / ".local" / "state" / "agent-gateway" / "token"
