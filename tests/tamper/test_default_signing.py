"""
The embedded default signs the audit log and keeps a witness, both in the state directory.

Every test runs the real ``gateway check`` and ``gateway verify`` processes
with the default configuration, under a temporary ``HOME`` and
``XDG_STATE_HOME``: the first start makes the key, later starts use it, an
intact log verifies, and ``verify`` says which check catches a cut-off tail
(the witness) and a rewritten record (the signature).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gateway._calls._events import (
    GENESIS,
    ChainCheckpoint,
    ChainGenesis,
    VerdictReached,
    event_digest,
)
from gateway._record._signing import ensure_key, load_verifier
from gateway._settings._config import default_config_bytes
from gateway.events import Event

BOUND = 120.0
"""Seconds a gateway process may take (only catches a hang)."""

LOG = "gateway-audit.jsonl"


def _environment(home: Path) -> dict[str, str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("XDG_", "GATEWAY_", "AGENT_GATEWAY"))
    }
    environment |= {"HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
    return environment


def _gateway(home: Path, *arguments: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gateway._cli", *arguments],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=home / "work",
        env=_environment(home),
        timeout=BOUND,
        check=False,
    )


def _session(home: Path, *commands: str) -> None:
    """One gateway start: review ``commands`` into the default log, as `gateway check --audit` does."""
    calls = "".join(json.dumps({"cmd": command}) + "\n" for command in commands)
    result = _gateway(home, "check", "--audit", LOG, stdin=calls)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n") == len(commands)


def _verify(home: Path, *options: str) -> tuple[int, dict[str, Any], str]:
    result = _gateway(home, "verify", LOG, "--json", *options)
    return result.returncode, json.loads(result.stdout), result.stderr


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return tmp_path


def _state(home: Path) -> Path:
    return home / "state" / "agent-gateway"


def _records(path: Path) -> list[Event]:
    return [msgspec.json.decode(line, type=Event) for line in path.read_bytes().splitlines()]


def _write(path: Path, records: list[Event]) -> None:
    encoder = msgspec.json.Encoder()
    path.write_bytes(b"".join(encoder.encode(record) + b"\n" for record in records))


def _relink(records: list[Event]) -> list[Event]:
    """Fresh links and digests, as whoever edits the log without the key can compute them."""
    out: list[Event] = []
    previous = GENESIS
    for record in records:
        record = msgspec.structs.replace(record, previous=previous, digest="")
        record = msgspec.structs.replace(record, digest=event_digest(record))
        out.append(record)
        previous = record.digest
    return out


def test_the_first_start_makes_the_key_and_the_next_one_uses_it(home: Path) -> None:
    state = _state(home)
    assert not state.exists()
    _session(home, "ls -la")
    key, public = state / "audit-key.pem", state / "audit-key.pem.pub"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    made = key.read_bytes(), public.read_bytes(), key.stat().st_ino
    # Nothing but the key, the log, its lock and the witness: no temporary file left behind.
    assert sorted(path.name for path in state.iterdir()) == [
        "audit-key.pem",
        "audit-key.pem.pub",
        LOG,
        f"{LOG}.lock",
        "gateway-witness.jsonl",
    ]
    status, first, _ = _verify(home)
    assert status == 0, first

    _session(home, "cat README.md", "rm -rf ~")
    assert (key.read_bytes(), public.read_bytes(), key.stat().st_ino) == made
    # The harmless twin: the intact log of two sessions verifies, signed and witnessed.
    status, report, stderr = _verify(home)
    assert (status, stderr) == (0, ""), report
    assert report["intact"] is True
    assert report["key"] == first["key"]
    assert report["key"].startswith("ed25519:")
    assert report["sessions"] == 2
    assert report["checkpoints"] == 2  # each session's closing checkpoint
    assert report["witness"] == str(state / "gateway-witness.jsonl")
    assert report["witnessed"] == 3  # the genesis and both closing checkpoints
    assert "signed by ed25519:" in report["verdict"]


def test_a_log_cut_at_a_session_boundary_fails_naming_the_witness(home: Path) -> None:
    _session(home, "ls")
    log = _state(home) / LOG
    first_session = log.read_bytes()
    _session(home, "rm -rf ~")
    whole = log.read_bytes()
    assert whole.startswith(first_session)

    # Deleting the last session whole leaves a log that ends cleanly, every
    # record under a valid signature: only the witness knows more was written.
    log.write_bytes(first_session)
    status, report, stderr = _verify(home)
    assert status == 1
    assert (report["kind"], report["check"]) == ("truncated", "witness")
    assert "found by the witness check" in stderr
    # The signature alone would not have caught it: with the key and a
    # witness that kept nothing of this log, the cut log is a clean one.
    witness = _state(home) / "gateway-witness.jsonl"
    witness.write_bytes(b"".join(witness.read_bytes().splitlines(keepends=True)[:2]))
    status, report, _ = _verify(home)
    assert (status, report["intact"]) == (0, True), report

    log.write_bytes(whole)
    status, report, _ = _verify(home)
    assert (status, report["intact"]) == (0, True), report


def test_a_cut_inside_a_session_fails_too(home: Path) -> None:
    _session(home, "ls", "cat README.md")
    log = _state(home) / LOG
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-3]))
    status, report, stderr = _verify(home)
    assert status == 1
    assert report["check"] in {"witness", "signature"}
    assert f"found by the {report['check']} check" in stderr


def test_a_rewritten_record_fails_naming_the_signature(home: Path) -> None:
    _session(home, "rm -rf ~", "ls")
    log = _state(home) / LOG
    records = _records(log)
    at = next(
        index
        for index, record in enumerate(records)
        if isinstance(record, VerdictReached) and record.verdict.decision == "decline"
    )
    verdict = records[at]
    assert isinstance(verdict, VerdictReached)
    allowed = msgspec.structs.replace(verdict.verdict, decision="allow")
    records[at] = msgspec.structs.replace(verdict, verdict=allowed)

    # Edited and left as it is: the hash chain catches it.
    _write(log, records)
    status, report, stderr = _verify(home)
    assert status == 1
    assert (report["kind"], report["check"], report["record"]) == ("tampered", "chain", at + 1)
    assert "found by the chain check" in stderr

    # Edited and every digest computed again: only the signature catches it,
    # at the first checkpoint after the edit.
    _write(log, _relink(records))
    status, report, stderr = _verify(home)
    assert status == 1
    assert (report["kind"], report["check"]) == ("tampered", "signature")
    checkpoint = next(
        index
        for index, record in enumerate(records)
        if index > at and isinstance(record, ChainCheckpoint)
    )
    assert report["record"] == checkpoint + 1
    assert "found by the signature check" in stderr
    assert "its signature does not hold" in report["reason"]


def _garbage(key: Path) -> None:
    key.write_bytes(b"not a key\n")


def _emptied(key: Path) -> None:
    key.write_bytes(b"")


def _shared(key: Path) -> None:
    key.chmod(0o644)


def _group(key: Path) -> None:
    key.chmod(0o640)


def _dangling(key: Path) -> None:
    key.unlink()
    key.symlink_to(key.with_name("elsewhere.pem"))


def _linked(key: Path) -> None:
    # A link to a whole, private key: whoever may change the link chooses the key.
    moved = key.parent.parent / "moved.pem"
    key.rename(moved)
    key.symlink_to(moved)


def _directory(key: Path) -> None:
    key.unlink()
    key.mkdir(mode=0o700)


def _fifo(key: Path) -> None:
    key.unlink()
    os.mkfifo(key, 0o600)


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        pytest.param(_garbage, "is not an unencrypted Ed25519 private key", id="corrupt"),
        pytest.param(_emptied, "is not an unencrypted Ed25519 private key", id="empty"),
        pytest.param(_shared, "is readable by others (mode 0644)", id="readable"),
        pytest.param(_group, "is readable by others (mode 0640)", id="group-readable"),
        pytest.param(_dangling, "is a symbolic link", id="dangling-link"),
        pytest.param(_linked, "is a symbolic link", id="link"),
        pytest.param(_directory, "is not a regular file", id="directory"),
        pytest.param(_fifo, "is not a regular file", id="fifo"),
    ],
)
def test_a_broken_key_stops_the_gateway_with_one_sentence(
    home: Path, damage: Callable[[Path], None], says: str
) -> None:
    _session(home, "ls")
    state = _state(home)
    key = state / "audit-key.pem"
    damage(key)
    log = state / LOG
    before = log.read_bytes()
    result = _gateway(home, "check", "--audit", LOG, stdin=json.dumps({"cmd": "ls"}) + "\n")
    assert result.returncode != 0
    assert result.stdout == ""
    message = result.stderr.strip()
    assert says in message
    assert "\n" not in message
    assert message.endswith(".")
    # Nothing was written unsigned, and the broken key is still there, not replaced.
    assert log.read_bytes() == before
    assert os.path.lexists(key)
    assert not (state / "elsewhere.pem").exists()


def test_a_key_is_never_replaced(tmp_path: Path) -> None:
    key = tmp_path / "keys" / "audit-key.pem"
    assert ensure_key(key) is True
    made = key.read_bytes()
    (key.parent / "audit-key.pem.pub").unlink()
    assert ensure_key(key) is False
    assert key.read_bytes() == made
    assert (key.parent / "audit-key.pem.pub").exists()  # made again from the private key
    broken = tmp_path / "broken.pem"
    broken.write_bytes(b"garbage")
    broken.chmod(0o600)
    assert ensure_key(broken) is False
    assert broken.read_bytes() == b"garbage"
    assert not (tmp_path / "broken.pem.pub").exists()


def test_two_first_starts_at_once_make_one_key(home: Path) -> None:
    environment = _environment(home)
    calls = json.dumps({"cmd": "ls"}) + "\n"
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "gateway._cli", "check", "--audit", LOG],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=home / "work",
            env=environment,
        )
        for _ in range(3)
    ]
    for process in processes:
        _, stderr = process.communicate(calls, timeout=BOUND)
        assert process.returncode == 0, stderr
    status, report, _ = _verify(home)
    assert (status, report["sessions"]) == (0, 3), report
    assert sorted(path.name for path in _state(home).iterdir() if "key" in path.name) == [
        "audit-key.pem",
        "audit-key.pem.pub",
    ]


HOOK = str(Path(sys.executable).parent / "gateway-hook")

EVENT = json.dumps(
    {
        "session_id": "first-start",
        "cwd": "/home/u/project",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "toolu_first",
    }
)


def test_eight_hooks_starting_at_once_make_one_key(home: Path) -> None:
    # A host runs the hooks of parallel tool calls at once, each a gateway of
    # its own (no warm worker): the first start on a machine is eight first
    # starts. Each hook has its event on standard input from the start, as a
    # host gives it: fed one after another, the later hooks would wait for
    # the earlier ones to finish and block at their own stdin bound instead.
    environment = _environment(home)
    # The embedded default, with the log's lock waited for as long as the
    # test's bound: the eight sessions take turns on it, and on a busy
    # machine their turns may add up past the default patience.
    config = home / "config.toml"
    default = default_config_bytes()
    sink = b'path = "gateway-audit.jsonl"\nrequired = true\n'
    assert default.count(sink) == 1
    config.write_bytes(
        default.replace(sink, sink + f"options = {{ lock-timeout = {BOUND:g} }}\n".encode())
    )
    event = home / "event.json"
    event.write_text(EVENT)
    processes = []
    for _ in range(8):
        with event.open("rb") as stdin:
            processes.append(
                subprocess.Popen(
                    [HOOK, "claude-code", "--config", str(config), "--no-worker"],
                    stdin=stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    cwd=home / "work",
                    env=environment,
                )
            )
    for process in processes:
        stdout, stderr = process.communicate(timeout=2 * BOUND)
        assert process.returncode == 0, stderr
        assert '"permissionDecision":"allow"' in stdout, stdout
    state = _state(home)
    # One key pair, and nothing a start wrote on its way to placing one is left.
    assert sorted(path.name for path in state.iterdir() if "key" in path.name) == [
        "audit-key.pem",
        "audit-key.pem.pub",
    ]
    key = load_verifier(str(state / "audit-key.pem.pub")).key_id
    status, report, _ = _gateway_verify(home, config)
    assert (status, report["sessions"], report["key"]) == (0, 8, key), report
    assert report["checkpoints"] == 8
    assert report["witnessed"] == 9  # the genesis and each session's closing checkpoint
    # Every start signed with the key on disk, none with one it made and lost.
    signed = [
        record.key
        for record in _records(state / LOG)
        if isinstance(record, ChainGenesis | ChainCheckpoint)
    ]
    assert signed == [key] * 9


def _gateway_verify(home: Path, config: Path) -> tuple[int, dict[str, Any], str]:
    result = _gateway(home, "verify", "--config", str(config), LOG, "--json")
    return result.returncode, json.loads(result.stdout), result.stderr


@pytest.mark.parametrize("gone", ["gateway-witness.jsonl", "audit-key.pem.pub+audit-key.pem"])
def test_a_check_whose_file_was_deleted_fails_instead_of_being_skipped(
    home: Path, gone: str
) -> None:
    _session(home, "ls")
    log = _state(home) / LOG
    first_session = log.read_bytes()
    _session(home, "rm -rf ~")
    # The last session is cut at its boundary, and the file that would tell is deleted too.
    log.write_bytes(first_session)
    for name in gone.split("+"):
        (_state(home) / name).unlink()
    result = _gateway(home, "verify", LOG, "--json")
    assert result.returncode == 1
    assert result.stdout == ""
    message = result.stderr.strip()
    assert "the configuration names for this log is missing" in message
    assert "cannot be shown intact" in message
    assert "\n" not in message
    # The harmless twin: given a copy of what was deleted, the check runs.
    if gone == "gateway-witness.jsonl":
        copy = home / "empty-witness.jsonl"
        copy.write_bytes(b"")
        status, report, _ = _verify(home, "--witness", str(copy))
        assert (status, report["check"]) == (1, "witness"), report
