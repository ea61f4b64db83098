"""
The per-call hook process (``gateway_relay``): what it imports, and its socket frames.

A host starts it for every tool call, so it must stay light: forwarding
imports only the standard library's C-level modules (no ``json``, ``re``,
``enum``, ``typing``, and nothing of the gateway). Its frames are checked at
both ends by the same functions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gateway_hooks import MAX_EVENT_BYTES as HOOK_EVENT_BYTES
from gateway_relay import (
    MAX_EVENT_BYTES,
    Blocked,
    Reply,
    check_reply,
    default_socket,
    read_request_line,
    reply_frame,
    request_line,
    state_directory,
)

from gateway.config import MAX_SECONDS, default_token_file


def test_forwarding_imports_nothing_heavy() -> None:
    probe = (
        "import sys; before = set(sys.modules); import gateway_relay; "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    assert "gateway_relay" in loaded
    for heavy in (
        "gateway",
        "msgspec",
        "json",
        "re",
        "enum",
        "typing",
        "socket",
        "signal",
        "tomllib",
    ):
        assert heavy not in loaded, f"importing gateway_relay imports {heavy}"


def test_it_finds_the_socket_where_the_service_keeps_its_token() -> None:
    for environ in ({"XDG_STATE_HOME": "/s"}, {"HOME": os.path.expanduser("~")}):
        assert Path(state_directory(environ)) == default_token_file(environ).parent
    assert Path(default_socket({"XDG_STATE_HOME": "/s"})) == Path("/s/agent-gateway/gateway.sock")


def test_its_bounds_are_the_gateways() -> None:
    assert MAX_EVENT_BYTES == HOOK_EVENT_BYTES
    assert MAX_SECONDS == 86_400


@pytest.mark.parametrize(
    ("status", "stdout", "stderr"),
    [
        (0, "", ""),
        (0, json.dumps({"hookSpecificOutput": {"x": "é"}}), ""),
        (2, "", "Declined `rm`: no."),
    ],
)
def test_a_reply_frame_reads_back_as_written(status: int, stdout: str, stderr: str) -> None:
    assert check_reply(reply_frame(status, stdout, stderr)) == Reply(status, stdout, stderr)


def test_a_request_line_reads_back_as_written() -> None:
    assert read_request_line(request_line("claude-code", 42)) == ("claude-code", 42)


@pytest.mark.parametrize(
    "line",
    [
        b"GATEWAY-HOOK 2 claude-code 4\n",
        b"HOOK 1 claude-code 4\n",
        b"GATEWAY-HOOK 1 Claude 4\n",
        b"GATEWAY-HOOK 1 x -4\n",
        b"\n",
    ],
    ids=["other-protocol", "other-magic", "bad-host", "bad-length", "empty"],
)
def test_a_request_it_cannot_read_is_refused(line: bytes) -> None:
    with pytest.raises((ValueError, Blocked)):
        read_request_line(line)


@pytest.mark.parametrize(
    "host", ["", "a b", "../x", "x" * 65, "ÿ"], ids=["empty", "space", "path", "long", "not-ascii"]
)
def test_a_host_name_that_is_not_one_is_refused(host: str) -> None:
    with pytest.raises(Blocked):
        request_line(host, 1)
