"""
The warm worker: ``gateway-hook`` without a service forwards to a gateway it keeps loaded.

Every test runs real ``python -m gateway_relay claude-code`` processes with
the worker on (the suite turns it off elsewhere), in a state directory of
its own, and stops its workers at the end. They check behaviour only —
the same answer as a review in the hook's own process, one worker for hooks
started at once, a config edit answered with the new verdict, a log that
verifies, failures that block or fall back — never speed (that is
``benchmarks/hook.py``); every wait is a bound that only catches a hang.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import msgspec
import pytest
from gateway_relay import WORKER_MAGIC, worker_pid, worker_socket
from serving import gateway_serve

from adapters.hooks_support import answer, blocked, hook_env, run_hook
from adapters.test_claude_code_hook import StandIn, bash_event
from adapters.test_claude_code_routing import PYTHON_WRITE
from gateway._record._signing import load_verifier
from gateway.audit import log_writer, read_audit_log
from gateway.events import ChainCheckpoint, ChainGenesis, Event, VerdictReached

HANG: float = 120.0
"""Seconds any one wait may take before the test calls it a hang (the machine is busy)."""

DECLINE_LS = """
[[approver.rules.rule]]
id = "no-listing"
decision = "decline"
programs = ["ls"]
reason = "listing is not wanted here"
"""


def config_text(audit: Path, extra: str = "") -> str:
    return (
        '[approver.rules]\nprofile = "workspace-write"\n'
        f'[sinks.audit]\nplugin = "jsonl"\npath = "{audit}"\nrequired = true\n{extra}'
    )


@pytest.fixture
def state(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A hook environment with warm workers on, in this test's own state directory."""
    # Short: a stand-in binds the worker's socket without the hook's long-path detour.
    short = Path(tempfile.mkdtemp(prefix="gwh-"))
    env = hook_env(
        HOME=str(tmp_path / "home"),
        XDG_STATE_HOME=str(short),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        GATEWAY_HOOK_WORKER="on",
    )
    yield env
    subprocess.run(
        [sys.executable, "-m", "gateway_relay", "--stop-workers"],
        env=env,
        capture_output=True,
        timeout=HANG,
        check=True,
    )
    deadline = time.monotonic() + HANG
    while workers(env) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not workers(env)
    shutil.rmtree(short, ignore_errors=True)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "gateway.toml"
    path.write_text(config_text(tmp_path / "audit.jsonl"))
    return path


def workers(env: dict[str, str]) -> list[int]:
    """The live warm workers of this state directory (their locks' holders)."""
    directory = Path(env["XDG_STATE_HOME"]) / "agent-gateway" / "workers"
    if not directory.is_dir():
        return []
    pids = (worker_pid(str(lock)) for lock in directory.glob("*.lock"))
    return [pid for pid in pids if pid is not None]


def socket_of(config: Path, env: dict[str, str]) -> Path:
    return Path(worker_socket(str(config), env))


def run(
    env: dict[str, str], command: str, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    event = bash_event(command, cwd=str(cwd) if cwd else "/home/u/project")
    return run_hook("claude-code", event, *args, env=env, timeout=HANG)


def decision(result: subprocess.CompletedProcess[bytes]) -> str:
    value: str = answer(result)["hookSpecificOutput"]["permissionDecision"]
    return value


def test_the_worker_answers_what_the_hook_would_in_process(
    state: dict[str, str], config: Path, tmp_path: Path
) -> None:
    in_process = run(state, "ls -la", "--config", str(config), "--no-worker")
    assert not workers(state)
    first = run(state, "ls -la", "--config", str(config))
    second = run(state, "ls -la", "--config", str(config))
    assert answer(first) == answer(second) == answer(in_process)
    assert len(workers(state)) == 1
    assert socket_of(config, state).is_socket()
    records = [e for e in read_audit_log(tmp_path / "audit.jsonl") if isinstance(e, VerdictReached)]
    assert len(records) == 3  # every verdict its record, in the one log


def test_a_confining_hook_is_routed_by_the_worker_as_in_process(
    state: dict[str, str], config: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    args = ("--config", str(config), "--confine")
    in_process = answer(run(state, PYTHON_WRITE, *args, "--no-worker", cwd=work))
    through_worker = answer(run(state, PYTHON_WRITE, *args, cwd=work))
    assert workers(state)
    assert "updatedInput" in through_worker["hookSpecificOutput"]
    assert through_worker == in_process
    # The same worker answers a hook without --confine: the option comes with each call.
    plain = answer(run(state, PYTHON_WRITE, "--config", str(config), cwd=work))
    assert "updatedInput" not in plain.get("hookSpecificOutput", {})
    assert len(workers(state)) == 1


def test_an_edited_config_is_answered_with_the_new_verdict(
    state: dict[str, str], config: Path, tmp_path: Path
) -> None:
    assert decision(run(state, "ls -la", "--config", str(config))) == "allow"
    (before,) = workers(state)
    config.write_text(config_text(tmp_path / "audit.jsonl", DECLINE_LS))
    assert decision(run(state, "ls -la", "--config", str(config))) == "deny"
    (after,) = workers(state)
    assert after != before


def test_hooks_started_at_once_start_one_worker_and_share_it(
    state: dict[str, str], config: Path, tmp_path: Path
) -> None:
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: run(state, "ls -la", "--config", str(config)), range(4)))
    assert len({str(answer(result)) for result in results}) == 1
    assert len(workers(state)) == 1
    records = [e for e in read_audit_log(tmp_path / "audit.jsonl") if isinstance(e, VerdictReached)]
    assert len(records) == 4


def test_the_log_verifies_once_the_worker_lets_it_go(
    state: dict[str, str], config: Path, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    for command in ("ls -la", "cat README.md", "ls"):
        run(state, command, "--config", str(config))
    # The worker closes the log a moment after its last call, and stays warm.
    deadline = time.monotonic() + HANG
    while log_writer(audit) is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert log_writer(audit) is None
    assert workers(state)
    verified = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "verify", str(audit)],
        capture_output=True,
        env=state,
        timeout=HANG,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # Another writer takes its turn between bursts; the worker then takes its own.
    assert decision(run(state, "ls -la", "--config", str(config), "--no-worker")) == "allow"
    assert decision(run(state, "ls -la", "--config", str(config))) == "allow"


def test_a_stale_socket_left_by_a_dead_worker_is_replaced(
    state: dict[str, str], config: Path
) -> None:
    run(state, "ls -la", "--config", str(config))
    (pid,) = workers(state)
    os.kill(pid, 9)
    deadline = time.monotonic() + HANG
    while workers(state) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert socket_of(config, state).exists()  # left behind
    assert decision(run(state, "ls -la", "--config", str(config))) == "allow"
    assert len(workers(state)) == 1


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (b"not a frame\n", "not one this hook reads"),
        (b"0 3 0\n[1]", "not a JSON object"),
        (b"", "closed the connection without an answer"),
    ],
    ids=["garbage", "output-not-object", "crash-mid-call"],
)
def test_a_worker_that_fails_once_it_has_the_event_blocks_the_call(
    state: dict[str, str], config: Path, reply: bytes, reason: str
) -> None:
    socket_of(config, state).parent.mkdir(mode=0o700, parents=True)
    stand_in = StandIn(socket_of(config, state), reply)
    try:
        result = run(state, "ls -la", "--config", str(config))
    finally:
        stand_in.close()
    assert reason in blocked(result)
    assert stand_in.requests[0].startswith(WORKER_MAGIC + b" 1 claude-code ")


def test_a_worker_that_retired_leaves_the_event_to_a_review_it_can_trust(
    state: dict[str, str], config: Path, tmp_path: Path
) -> None:
    # A process at the socket that says it retired, and never goes away: no
    # worker can take its place, so the hook reviews in its own process.
    socket_of(config, state).parent.mkdir(mode=0o700, parents=True)
    stand_in = StandIn(socket_of(config, state), b"RETIRED\n")
    try:
        result = run(state, "ls -la", "--config", str(config))
    finally:
        stand_in.close()
    assert decision(result) == "allow"
    records = [e for e in read_audit_log(tmp_path / "audit.jsonl") if isinstance(e, VerdictReached)]
    assert len(records) == 1


def test_a_worker_directory_others_can_enter_blocks_the_call(
    state: dict[str, str], config: Path
) -> None:
    directory = socket_of(config, state).parent
    directory.mkdir(parents=True)
    directory.chmod(0o733)
    reason = blocked(run(state, "ls -la", "--config", str(config)))
    assert "is not this user's alone" in reason
    assert not workers(state)
    directory.chmod(0o700)


def test_stop_workers_stops_them(state: dict[str, str], config: Path) -> None:
    run(state, "ls -la", "--config", str(config))
    assert workers(state)
    stopped = subprocess.run(
        [sys.executable, "-m", "gateway_relay", "--stop-workers"],
        env=state,
        capture_output=True,
        timeout=HANG,
        check=True,
    )
    assert stopped.stdout == b"Asked 1 warm worker to stop.\n"
    deadline = time.monotonic() + HANG
    while workers(state) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not workers(state)
    assert not socket_of(config, state).exists()


def test_beside_a_service_writing_the_log_the_hook_refuses_at_once(
    state: dict[str, str], config: Path, tmp_path: Path
) -> None:
    socket_path = Path(state["XDG_STATE_HOME"]) / "agent-gateway" / "gateway.sock"
    audit = tmp_path / "audit.jsonl"
    with gateway_serve(
        "--socket", str(socket_path), "--audit", str(audit), cwd=tmp_path, env=state
    ):
        for args in (("--in-process", "--no-worker"), ("--confine",)):
            reason = blocked(run(state, "ls -la", "--config", str(config), *args))
            assert "is written by the gateway serving hooks at" in reason, reason
        # A hook that forwards is answered by the service itself.
        assert decision(run(state, "ls -la", "--config", str(config))) == "allow"


def test_a_package_installed_where_plugins_are_found_retires_the_worker(
    state: dict[str, str], config: Path, tmp_path: Path
) -> None:
    # The worker reads the installed plugins once: a distribution added on
    # its path (a plugin installed) must be seen by the next call's worker.
    site = tmp_path / "site"
    site.mkdir()
    env = {**state, "PYTHONPATH": os.pathsep.join([state["PYTHONPATH"], str(site)])}
    assert decision(run(env, "ls -la", "--config", str(config))) == "allow"
    (before,) = workers(env)
    (site / "a_plugin-1.0.dist-info").mkdir()
    assert decision(run(env, "ls -la", "--config", str(config))) == "allow"
    (after,) = workers(env)
    assert after != before


def test_eight_hooks_at_once_through_the_worker_make_one_key_and_one_log(
    state: dict[str, str],
) -> None:
    # The embedded default (signing on, the log and the key in the state
    # directory) on a machine where nothing has started yet: eight hooks of
    # parallel tool calls arrive at once and share the worker that the first
    # of them starts, or review in their own process while it starts.
    home = Path(state["HOME"])
    home.mkdir()
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: run(state, "ls -la"), range(8)))
    assert [decision(result) for result in results] == ["allow"] * 8
    assert len(workers(state)) == 1
    directory = Path(state["XDG_STATE_HOME"]) / "agent-gateway"
    assert sorted(path.name for path in directory.iterdir() if "key" in path.name) == [
        "audit-key.pem",
        "audit-key.pem.pub",
    ]
    audit = directory / "gateway-audit.jsonl"
    deadline = time.monotonic() + HANG
    while log_writer(audit) is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert log_writer(audit) is None
    verified = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "verify", str(audit), "--json"],
        capture_output=True,
        env=state,
        timeout=HANG,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    report = json.loads(verified.stdout)
    key = load_verifier(str(directory / "audit-key.pem.pub")).key_id
    assert report["key"] == key, report
    records = [msgspec.json.decode(line, type=Event) for line in audit.read_bytes().splitlines()]
    assert len([record for record in records if isinstance(record, VerdictReached)]) == 8
    # Every start signed with the key on disk, none with one it made and lost.
    signed = [
        record.key for record in records if isinstance(record, ChainGenesis | ChainCheckpoint)
    ]
    assert signed
    assert set(signed) == {key}
