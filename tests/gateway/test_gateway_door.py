"""
The door: whatever a caller builds and hands to `Gateway.review`, it gets a verdict, and the log a record.

One row per kind of input a Python caller can build that is not a well-formed
call. Each is declined with one sentence naming what is wrong, reaches no
approver, and leaves a record a real audit log writes and reads back (the log
verifies). Its harmless twin passes the door.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_audit import JsonLinesSink
from gateway_support import BOUND, anyio_backend as anyio_backend, config

from gateway import Gateway, ToolCall
from gateway._review._intake import _TEXT_FIELDS, call_problem
from gateway.audit import read_audit_log, verify_audit_log
from gateway.config import SinkConfig
from gateway.events import VerdictReached
from gateway.testing import StaticApprover

pytestmark = pytest.mark.anyio


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    top = value
    for _ in range(levels):
        value["a"] = {}
        value = value["a"]
    return top


def _cycle() -> dict[str, Any]:
    value: dict[str, Any] = {"command": "ls"}
    value["self"] = value
    return value


# What a caller's typing would not stop at run time.
_ANYTHING: Any = None
_A_LIST: Any = ["ls"]
_AN_INT: Any = 123

REFUSED = [
    pytest.param(
        ToolCall(_AN_INT, {"command": "ls"}),
        "its tool name must be a string, not int",
        id="tool-int",
    ),
    pytest.param(ToolCall("", {"command": "ls"}), "its tool name is empty", id="tool-empty"),
    pytest.param(ToolCall("Ba\x00sh", {}), "its tool name contains a NUL character", id="tool-nul"),
    pytest.param(
        ToolCall("Bash\ud800", {}),
        "its tool name is not valid Unicode (it holds a lone surrogate)",
        id="tool-surrogate",
    ),
    pytest.param(
        ToolCall("x" * 5000, {}), "its tool name is longer than 4096 characters", id="tool-long"
    ),
    pytest.param(
        ToolCall("Bash", _A_LIST),
        "its input must be an object (a dict with string keys), not list",
        id="input-list",
    ),
    pytest.param(
        ToolCall("Bash", _ANYTHING),
        "its input must be an object (a dict with string keys), not NoneType",
        id="input-none",
    ),
    pytest.param(
        ToolCall("Bash", {"command": object()}),
        "its input holds a object (at $.command), which is not JSON-like data (strings, numbers, booleans, null, lists and objects)",
        id="input-object",
    ),
    pytest.param(
        ToolCall("Bash", {"command": b"ls"}),
        "its input holds a bytes (at $.command), which is not JSON-like data (strings, numbers, booleans, null, lists and objects)",
        id="input-bytes",
    ),
    pytest.param(
        ToolCall("Bash", {"command": "ls\ud800"}),
        "its input holds text that is not valid Unicode (it holds a lone surrogate) (at $.command)",
        id="input-surrogate",
    ),
    pytest.param(
        ToolCall("Bash", {"command": "ls\x00-la"}),
        "its input holds text that contains a NUL character (at $.command)",
        id="input-nul",
    ),
    pytest.param(
        ToolCall("Bash", {_AN_INT: "ls"}),
        "its input has a key that is not a string but int (at $)",
        id="input-int-key",
    ),
    pytest.param(
        ToolCall("Bash", {"a\x00": 1}),
        "its input has a key that contains a NUL character (at $)",
        id="key-nul",
    ),
    pytest.param(
        ToolCall("Bash", {"n": 2**64}),
        "its input holds a whole number too large for the audit log (at $.n)",
        id="huge-int",
    ),
    pytest.param(
        ToolCall("Bash", {"n": float("nan")}),
        "its input holds a number that is not finite (at $.n)",
        id="nan",
    ),
    pytest.param(
        ToolCall("Bash", {"n": float("-inf")}),
        "its input holds a number that is not finite (at $.n)",
        id="infinity",
    ),
    pytest.param(
        ToolCall("Bash", _cycle()),
        "its input nests deeper than 64 levels (at $.self.self.self.self.self.self.self.self.self.self.self.self…)",
        id="self-referencing",
    ),
    pytest.param(
        ToolCall("Bash", _deep(100_000)),
        "its input nests deeper than 64 levels (at $.a.a.a.a.a.a.a.a.a.a.a.a…)",
        id="100000-deep",
    ),
    pytest.param(
        ToolCall("Bash", {"items": list(range(100_001))}),
        "its input holds more than 100000 values",
        id="too-many-values",
    ),
    pytest.param(
        ToolCall("Bash", {"command": "x" * (9 * 1024 * 1024)}),
        "its input is larger than 8388608 bytes as JSON",
        id="too-large",
    ),
    pytest.param(
        ToolCall("Bash", {"command": "ls"}, session_id=_AN_INT),
        "its session_id must be a string or None, not int",
        id="session-int",
    ),
    pytest.param(
        ToolCall("Bash", {"command": "ls"}, cwd="src\x00/x"),
        "its cwd contains a NUL character",
        id="cwd-nul",
    ),
    pytest.param(
        ToolCall("Bash", {"command": "ls"}, user_request="x" * 300_000),
        "its user_request is longer than 262144 characters",
        id="user-request-long",
    ),
    pytest.param(
        {"tool": "Bash", "input": {"command": "ls"}}, "it is not a ToolCall but dict", id="a-dict"
    ),
    pytest.param(None, "it is not a ToolCall but NoneType", id="none"),
]


@pytest.mark.parametrize(("call", "clause"), REFUSED)
async def test_a_call_that_is_not_well_formed_is_declined_at_the_door_with_one_sentence(
    tmp_path: Path, call: Any, clause: str
) -> None:
    path = tmp_path / "audit.jsonl"
    approver = StaticApprover("allow")
    sinks = {"audit": JsonLinesSink(SinkConfig(plugin="jsonl", path=str(path), required=True))}
    with anyio.fail_after(BOUND):
        async with Gateway(config(), approvers=[approver], sinks=sinks) as gateway:
            verdict = await gateway.review(call)
            after = await gateway.review(ToolCall("Bash", {"command": "ls"}, call_id="after"))
    assert verdict.decision == "decline"
    assert verdict.reason == f"The call cannot be reviewed: {clause}."
    assert verdict.call_id
    assert approver.requests[0].call.call_id == "after"  # the refused call reached no approver
    assert after.allowed
    # Its record is in the log, which reads back and verifies.
    assert verify_audit_log(path) is None
    records = [e for e in read_audit_log(path) if isinstance(e, VerdictReached)]
    assert records[0].verdict == verdict
    assert records[0].call_id == verdict.call_id


PASSED = [
    pytest.param(ToolCall("Bash", {"command": ("ls", "-la")}), id="tuple-argv"),
    pytest.param(ToolCall("x", _deep(63)), id="63-deep"),
    pytest.param(ToolCall("x", {"n": 2**63 - 1, "m": -(2**63)}), id="int64-bounds"),
    pytest.param(ToolCall("x", {"f": 1.5, "b": True, "z": None, "s": "ünïcødé ✓"}), id="scalars"),
    pytest.param(ToolCall("x", {"k": "a\\u0000b"}), id="escaped-nul-text"),
]


@pytest.mark.parametrize("call", PASSED)
async def test_the_harmless_twins_pass_the_door(call: ToolCall) -> None:
    approver = StaticApprover("allow")
    with anyio.fail_after(BOUND):
        async with Gateway(config(), approvers=[approver]) as gateway:
            verdict = await gateway.review(call)
    assert not verdict.reason.startswith("The call cannot be reviewed")
    assert len(approver.requests) == 1


async def test_a_refused_call_keeps_its_own_call_id_when_it_has_a_usable_one() -> None:
    with anyio.fail_after(BOUND):
        async with Gateway(config(), approvers=[StaticApprover("allow")]) as gateway:
            verdict = await gateway.review(ToolCall(_AN_INT, {}, call_id="mine"))
    assert verdict.call_id == "mine"


@pytest.mark.parametrize("field", [field for field, _ in _TEXT_FIELDS])
async def test_every_text_field_of_a_call_is_checked_past_the_quick_look(field: str) -> None:
    """The door's quick look at short ids reads every text field: a NUL in any one is refused."""
    call = ToolCall("Bash", {"command": "ls"}, **{field: "a\x00b"})
    assert call_problem(call) == f"its {field} contains a NUL character"
    assert call_problem(ToolCall("Bash", {"command": "ls"}, **{field: "ab"})) is None


def test_the_door_checks_every_field_of_a_call_but_its_tool_and_input() -> None:
    fields = set(ToolCall.__struct_fields__) - {"tool", "input"}
    assert {field for field, _ in _TEXT_FIELDS} == fields
