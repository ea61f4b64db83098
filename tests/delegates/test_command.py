"""
The ``command`` approver: a real program, run as users configure it, isolated by default.

Every failure kind (exit codes, signals, timeouts, garbage, huge output, a
program that never reads its input or never exits) ends in a decline (or an
abstain when configured), never in an allow; whatever the program leaves
running dies with the question; and the program sees neither the gateway's
environment nor its bearer token.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from gateway_delegates import CONTRACT_VERSION, command
from gateway_delegates.command import CommandApprover
from gateway_web._token import store_token

from delegates.support import (
    BOUND,
    FAKE_KEY,
    FAKE_TOKEN,
    PROGRAM,
    command_options,
    context,
    program,
    request_for,
)
from gateway import Abstain, Allow, Decline, EarlierAnswer, Gateway, ToolCall, load_config
from gateway.config import default_token_file

pytestmark = pytest.mark.anyio

LS = ToolCall("Bash", {"command": "ls -la src"}, session_id="s-1", agent_id="a-1", cwd="/w")


def _approver(mode: str, *extra: str, **options: Any) -> CommandApprover:
    return CommandApprover(command_options(mode, *extra, **options), context())


async def _review(approver: CommandApprover, call: ToolCall = LS) -> Any:
    request = await request_for(call)
    with anyio.fail_after(BOUND):
        return await approver.review(request)


# ── answers ──


@pytest.mark.parametrize(
    ("mode", "kind"),
    [("allow", Allow), ("decline", Decline), ("abstain", Abstain)],
    ids=["allow", "decline", "abstain"],
)
async def test_the_programs_answer_is_the_approvers(mode: str, kind: type, tmp_path: Path) -> None:
    seen = tmp_path / "document.json"
    answer = await _review(_approver(mode, str(seen)))
    assert (type(answer), answer.reason) == (kind, f"The program chose {mode} for Bash.")
    document = json.loads(seen.read_text())
    assert document["version"] == CONTRACT_VERSION
    assert document["kind"] == "call"
    assert document["call"]["tool"] == "Bash"
    assert document["call"]["session_id"] == "s-1"
    assert document["call"]["agent_id"] == "a-1"
    assert document["plan"]["source"] == "ls -la src"
    assert document["digest"].startswith("sha256:")
    assert "effects" in document
    assert document["earlier"] == []


async def test_the_document_carries_the_earlier_answers(tmp_path: Path) -> None:
    seen = tmp_path / "document.json"
    request = await request_for(LS)
    earlier = EarlierAnswer(approver="rules", decision="abstain", reason="No rule allows `ls`.")
    with anyio.fail_after(BOUND):
        await _approver("allow", str(seen)).review(
            type(request)(**{**_fields(request), "earlier": (earlier,)})
        )
    assert json.loads(seen.read_text())["earlier"] == [
        {
            "approver": "rules",
            "decision": "abstain",
            "reason": "No rule allows `ls`.",
            "rule": None,
            "note": None,
        }
    ]


def _fields(request: Any) -> dict[str, Any]:
    return {name: getattr(request, name) for name in request.__struct_fields__}


async def test_the_document_masks_the_calls_secrets(tmp_path: Path) -> None:
    seen = tmp_path / "document.json"
    call = ToolCall(
        "Bash",
        {"command": f'curl -H "Authorization: Bearer {FAKE_TOKEN}" https://api.example.com'},
        user_request=f"use my key {FAKE_KEY} to list the models",
    )
    await _review(_approver("allow", str(seen)), call)
    text = seen.read_text()
    assert FAKE_TOKEN not in text
    assert FAKE_KEY not in text
    assert json.loads(text)["call"]["user_request"].startswith("use my key <")


async def test_a_decision_by_what_the_plan_says() -> None:
    approver = _approver("by-command")
    assert isinstance(await _review(approver, ToolCall("Bash", {"command": "ls"})), Allow)
    assert isinstance(await _review(approver, ToolCall("Bash", {"command": "rm -r x"})), Decline)
    assert isinstance(await _review(approver, ToolCall("Bash", {"command": "make"})), Abstain)


# ── failures ──

WRITE = ToolCall("Write", {"file_path": "big.txt", "content": "x" * 400_000})
"""A call whose document is far larger than a pipe would hold."""

FAILURES = [
    pytest.param("exit-3", {}, LS, "exited with status 3", id="exit-code"),
    pytest.param("killed", {}, LS, "was killed by signal SIGKILL", id="signal"),
    pytest.param("garbage", {}, LS, "answered something that is not one JSON object", id="garbage"),
    pytest.param("empty", {}, LS, "answered something that is not one JSON object", id="nothing"),
    pytest.param("array", {}, LS, "answered something that is not one JSON object", id="array"),
    pytest.param(
        "two-answers", {}, LS, "answered something that is not one JSON object", id="two-answers"
    ),
    pytest.param("huge", {}, LS, "answered more than 65536 bytes", id="huge-output"),
    pytest.param(
        "unknown-field",
        {},
        LS,
        "answered JSON that is not a decision (object contains unknown field `scope`)",
        id="unknown-field",
    ),
    pytest.param(
        "no-reason",
        {},
        LS,
        "answered JSON that is not a decision (object missing required field `reason`)",
        id="no-reason",
    ),
    pytest.param(
        "blank-reason",
        {},
        LS,
        "answered JSON that is not a decision (its reason is empty)",
        id="blank-reason",
    ),
    pytest.param(
        "bad-decision",
        {},
        LS,
        "answered JSON that is not a decision (invalid enum value 'yes' (at `decision`))",
        id="bad-decision",
    ),
    pytest.param(
        "decision-twice",
        {},
        LS,
        "answered JSON that is not a decision (the key `decision` appears twice)",
        id="decision-twice",
    ),
    pytest.param("never-reads", {"timeout": 1}, LS, "did not answer within 1 s", id="never-reads"),
    pytest.param(
        "never-reads", {"timeout": 1}, WRITE, "did not answer within 1 s", id="never-reads-big"
    ),
    pytest.param(
        "exits-unread", {}, LS, "exited before it read the whole call", id="answers-unread"
    ),
    pytest.param(
        "exits-unread", {}, WRITE, "exited before it read the whole call", id="answers-unread-big"
    ),
    pytest.param("never-exits", {"timeout": 1}, LS, "did not answer within 1 s", id="never-exits"),
    pytest.param("late-allow", {"timeout": 1}, LS, "did not answer within 1 s", id="late-allow"),
    pytest.param(
        "allow",
        {"max-document": 1000},
        WRITE,
        # The size counts the call's effects too (its Write's path), so only the shape is pinned.
        "The call is too large to hand to the `command` approver's program (",
        id="document-too-large",
    ),
]


@pytest.mark.parametrize(("mode", "options", "call", "clause"), FAILURES)
@pytest.mark.parametrize("isolate", [True, False], ids=["isolated", "not-isolated"])
async def test_every_failure_declines_with_one_sentence(
    mode: str, options: dict[str, Any], call: ToolCall, clause: str, isolate: bool
) -> None:
    answer = await _review(_approver(mode, **options, isolate=isolate), call)
    assert isinstance(answer, Decline)
    assert clause in answer.reason
    assert answer.reason.endswith(", and the gateway fails closed.")
    assert answer.reason.count(". ") == 0


@pytest.mark.parametrize(("mode", "options", "call", "clause"), FAILURES[:3])
async def test_a_failure_abstains_when_configured(
    mode: str, options: dict[str, Any], call: ToolCall, clause: str
) -> None:
    answer = await _review(_approver(mode, **options, **{"on-failure": "abstain"}), call)
    assert isinstance(answer, Abstain)
    assert answer.reason is not None
    assert clause in answer.reason
    assert answer.reason.endswith(", so the next approver or a person must decide.")


async def test_a_program_that_vanished_after_load_fails_closed(tmp_path: Path) -> None:
    script = tmp_path / "review.py"
    script.write_text("print('{}')\n")
    script.chmod(0o755)
    approver = CommandApprover({"argv": [str(script)], "isolate": False}, context())
    script.unlink()
    answer = await _review(approver)
    assert isinstance(answer, Decline)
    assert answer.reason == (
        "The `command` approver's program could not be started (No such file or directory), "
        "and the gateway fails closed."
    )


# ── nothing outlives the question ──


def _locked_by_child(path: Path) -> list[str]:
    """The program's argv for a child that holds a lock on ``path`` until it dies."""
    code = (
        "import fcntl, os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "if os.fork() == 0:\n"
        "    os.setsid() if sys.argv[2] == 'escape' else None\n"
        "    time.sleep(3600)\n"
        "    os._exit(0)\n"
        "open(sys.argv[1] + '.ready', 'w').close()\n"
        "sys.stdin.read()\n"
        "if sys.argv[3] == 'answer':\n"
        '    print(\'{"decision": "abstain", "reason": "It left a child behind."}\')\n'
        "else:\n"
        "    time.sleep(3600)\n"
    )
    return [sys.executable, "-c", code, str(path)]


async def _released(path: Path) -> bool:
    """True once nothing holds the lock on ``path`` (its holder died)."""
    fd = os.open(path, os.O_RDWR)
    try:
        with anyio.fail_after(BOUND):
            await anyio.to_thread.run_sync(fcntl.flock, fd, fcntl.LOCK_EX, abandon_on_cancel=True)
        return True
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    ("isolate", "escape", "ending"),
    [
        (True, "stay", "answer"),
        (True, "stay", "hang"),
        (True, "escape", "answer"),
        (True, "escape", "hang"),
        (False, "stay", "answer"),
        (False, "stay", "hang"),
    ],
    ids=[
        "isolated-answers",
        "isolated-hangs",
        "isolated-own-session-answers",
        "isolated-own-session-hangs",
        "process-group-answers",
        "process-group-hangs",
    ],
)
async def test_what_the_program_started_dies_with_the_question(
    tmp_path: Path, isolate: bool, escape: str, ending: str
) -> None:
    """A child the program leaves behind, even in a session of its own when isolated, is killed."""
    lock = tmp_path / "lock"
    argv = [*_locked_by_child(lock), escape, ending]
    approver = CommandApprover({"argv": argv, "isolate": isolate, "timeout": 2}, context())
    answer = await _review(approver)
    assert (tmp_path / "lock.ready").exists()
    if ending == "answer":
        assert isinstance(answer, Abstain)
    else:
        assert isinstance(answer, Decline)
        assert "did not answer within 2 s" in answer.reason
    assert await _released(lock)


# ── what the program can see ──


def _peeked(record: Path) -> dict[str, Any]:
    seen: dict[str, Any] = json.loads(record.read_text())
    return seen


async def test_the_program_gets_only_the_variables_env_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENT_GATEWAY_TOKEN", FAKE_TOKEN)
    monkeypatch.setenv("REVIEW_MODE", "strict")
    record = tmp_path / "seen.json"
    for isolate in (True, False):
        approver = _approver("peek", str(record), env=["REVIEW_MODE", "UNSET_ONE"], isolate=isolate)
        await _review(approver)
        assert _peeked(record)["environ"] == {"REVIEW_MODE": "strict"}


def test_the_gateway_cli_keeps_its_token_from_the_program(tmp_path: Path) -> None:
    """
    A gateway run as users run it (``gateway check``), with a bearer token in
    its environment and in the service's token files: the program sees neither.
    """
    state = tmp_path / "state"
    served = tmp_path / "served-token"
    store_token(state / "agent-gateway" / "token", FAKE_TOKEN)
    store_token(served, FAKE_TOKEN)
    record = tmp_path / "seen.json"
    (state / "agent-gateway" / "tokens.json").write_text(json.dumps({"digest": FAKE_TOKEN}))
    looked_at = [
        str(state / "agent-gateway" / "token"),
        str(state / "agent-gateway" / "tokens.json"),
        str(served),
    ]
    config = tmp_path / "gateway.toml"
    config.write_text(
        "[gateway]\n"
        'approvers = ["command"]\n'
        "[serve]\n"
        f"token-file = {json.dumps(str(served))}\n"
        "[approver.command]\n"
        f"argv = {json.dumps(program('peek', str(record), *looked_at))}\n"
    )
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"id": "c1", "cmd": "ls"}) + "\n")
    environment = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(state),
        "AGENT_GATEWAY_TOKEN": FAKE_TOKEN,
        "ANTHROPIC_API_KEY": FAKE_KEY,
    }
    done = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "check", "--config", str(config), str(calls)],
        env=environment,
        capture_output=True,
        timeout=BOUND,
        check=False,
    )
    assert b"It only looked around." in done.stdout, done.stderr
    seen = _peeked(record)
    assert seen["environ"] == {}
    # Covered: a hidden file reads as empty (or cannot be read at all).
    assert all(text == "" or text.startswith("! ") for text in seen["files"].values())
    assert set(seen["environs"]) <= {"1"}, "it sees no process but its own"
    assert set(seen["fds"]) <= {"0", "1", "2", "3"}
    everything = json.dumps(seen)
    assert FAKE_TOKEN not in everything
    assert FAKE_KEY not in everything


async def test_without_isolation_the_environment_is_still_clean(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENT_GATEWAY_TOKEN", FAKE_TOKEN)
    record = tmp_path / "seen.json"
    await _review(_approver("peek", str(record), isolate=False))
    seen = _peeked(record)
    assert seen["environ"] == {}
    assert set(seen["fds"]) <= {"0", "1", "2", "3"}


async def test_hide_covers_more_paths(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir()
    (private / "key").write_text(FAKE_KEY)
    single = tmp_path / "single.txt"
    single.write_text(FAKE_KEY)
    record = tmp_path / "seen.json"
    looked_at = [str(private / "key"), str(single)]
    approver = _approver("peek", str(record), *looked_at, hide=[str(private), str(single)])
    await _review(approver)
    assert FAKE_KEY not in json.dumps(_peeked(record)["files"])


def test_every_secret_file_of_the_config_is_hidden(tmp_path: Path) -> None:
    config = load_config(
        f"""
        [serve]
        token-file = "{tmp_path}/serve-token"
        [audit]
        signing-key = "{tmp_path}/audit.pem"
        [broker]
        url = "tls://nats.example:4222"
        credentials = "{tmp_path}/fleet.creds"
        tls-cert = "{tmp_path}/client.pem"
        tls-key = "{tmp_path}/client.key"
        [notifiers.phone]
        plugin = "ntfy"
        options = {{ topic = "calls", token-file = "{tmp_path}/ntfy-token", ca-file = "{tmp_path}/ca.pem" }}
        [approver.command]
        argv = ["true"]
        """.encode()
    )
    approver = CommandApprover(command_options("allow"), context(config))
    hidden = {
        approver._command[i + 1] for i, word in enumerate(approver._command) if word == "--hide"
    }
    for name in ("serve-token", "audit.pem", "fleet.creds", "client.key", "ntfy-token"):
        assert str(tmp_path / name) in hidden
    assert str(default_token_file()) in hidden
    assert str(default_token_file().parent) in hidden, "the service's state directory"
    assert str(tmp_path / "ca.pem") not in hidden, "a CA bundle is no secret"


# ── loading ──


async def test_the_gateway_loads_it_by_name_from_the_config() -> None:
    config = load_config(
        (
            '[gateway]\napprovers = ["command"]\n'
            f"[approver.command]\nargv = {json.dumps(program('by-command'))}\ntimeout = 20\n"
        ).encode()
    )
    with anyio.fail_after(BOUND):
        async with Gateway(config) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": "ls"}))
    assert verdict.decision == "allow"
    assert verdict.approver == "command"
    assert verdict.reason == "Decided by the command's first word: ls."


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "Invalid [approver.command] options: object missing required field `argv`."),
        (
            {"argv": []},
            "Invalid [approver.command] options: expected `array` of length >= 1 (at `argv`).",
        ),
        (
            {"argv": ["ls"], "shell": True},
            "Invalid [approver.command] options: object contains unknown field `shell`.",
        ),
        (
            {"argv": ["ls"], "timeout": 0},
            "Invalid [approver.command] options: expected `float` > 0.0 (at `timeout`).",
        ),
        (
            {"argv": ["ls"], "env": ["A B"]},
            "Invalid [approver.command] options: 'A B' in `env` is not a variable name.",
        ),
        (
            {"argv": ["no-such-program-here"]},
            "Invalid [approver.command] options: no program 'no-such-program-here' is on the PATH; give its full path.",
        ),
        (
            {"argv": [str(PROGRAM)]},
            f"Invalid [approver.command] options: the program {str(PROGRAM)!r} is not an executable file.",
        ),
    ],
    ids=[
        "no-argv",
        "empty-argv",
        "unknown-key",
        "zero-timeout",
        "bad-env",
        "not-found",
        "not-executable",
    ],
)
def test_bad_options_stop_the_start_with_one_sentence(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        CommandApprover(options, context())


def test_where_it_cannot_isolate_the_start_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        "gateway_delegates.command._probe", lambda prefix: "unshare: Operation not permitted"
    )
    with pytest.raises(ValueError, match="cannot isolate its program here") as raised:
        CommandApprover(command_options("allow"), context())
    assert "set isolate = false" in str(raised.value)


def _world_runnable(path: str) -> bool:
    real = Path(path).resolve()
    return (
        all(p.stat().st_mode & 0o001 for p in real.parents) and real.stat().st_mode & 0o005 == 0o005
    )


def test_isolation_takes_a_user_namespace_for_a_user_that_is_not_root() -> None:
    """The isolating script, run by an ordinary user: the same hiding, through a user namespace."""
    # A directory every user can read (a test's own temporary directory is the runner's alone).
    shared = Path(tempfile.mkdtemp(prefix="gateway-isolate-"))
    try:
        _run_isolated_as_a_user(shared)
    finally:
        shutil.rmtree(shared)


def _run_isolated_as_a_user(shared: Path) -> None:
    shared.chmod(0o755)
    secret_directory = shared / "state"
    secret_directory.mkdir(mode=0o700)
    (secret_directory / "token").write_text(FAKE_TOKEN)
    isolate = shared / "isolate.py"
    shutil.copy(Path(command.__file__).with_name("_isolate.py"), isolate)
    peek = shared / "peek.py"
    peek.write_text(
        "import json, os, sys\n"
        "try:\n"
        "    token = open(sys.argv[1]).read()\n"
        "except OSError as error:\n"
        "    token = type(error).__name__\n"
        "print(json.dumps({'uid': os.getuid(), 'pid': os.getpid(), 'token': token,\n"
        "    'processes': sorted(p for p in os.listdir('/proc') if p.isdigit())}))\n"
    )
    for path in (isolate, peek):
        path.chmod(0o644)
    interpreters = [p for p in (sys.executable, "/usr/bin/python3", shutil.which("python3")) if p]
    python = next((p for p in interpreters if _world_runnable(p)), None)
    assert python is not None, "no Python interpreter that every user may run"
    as_nobody = os.getuid() == 0
    user: dict[str, Any] = {"user": 65534, "group": 65534, "extra_groups": []} if as_nobody else {}
    if as_nobody:
        os.chown(secret_directory, 65534, 65534)
        os.chown(secret_directory / "token", 65534, 65534)
    done = subprocess.run(
        [
            python,
            "-I",
            "-S",
            str(isolate),
            "--hide",
            str(secret_directory),
            "--",
            python,
            str(peek),
            str(secret_directory / "token"),
        ],
        env={},
        capture_output=True,
        timeout=BOUND,
        check=False,
        **user,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["uid"] == (65534 if as_nobody else os.getuid())
    assert seen["token"] == "PermissionError"  # noqa: S105 -- the name of the error it met
    assert seen["processes"] == ["1", "2"]
