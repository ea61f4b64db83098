"""
A log an outsider can check: signed genesis and checkpoints, witnesses, and `gateway verify --key`.

Keys are made with `gateway keygen` (and HMAC secrets by hand), logs by real
gateways with real sinks; a file witness and a webhook witness (a real HTTP
server on a free loopback port) keep copies of the checkpoints.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from gateway_support import BOUND, anyio_backend as anyio_backend

from gateway import ConfigError, Gateway, GatewayConfig
from gateway.audit import check_audit_log, generate_key, load_verifier, read_audit_log
from gateway.config import AuditSection, GatewaySection, SinkConfig, WitnessConfig
from gateway.events import ChainCheckpoint, ChainGenesis, WitnessFailed
from gateway.testing import StaticApprover, make_call

pytestmark = pytest.mark.anyio


def _settings(
    tmp_path: Path,
    *,
    key: Path | None = None,
    hmac: Path | None = None,
    every: int = 1000,
    witnesses: dict[str, WitnessConfig] | None = None,
) -> GatewayConfig:
    return GatewayConfig(
        gateway=GatewaySection(approvers=()),
        sinks={
            "audit": SinkConfig(plugin="jsonl", path=str(tmp_path / "audit.jsonl"), required=True)
        },
        audit=AuditSection(
            signing_key=None if key is None else str(key),
            hmac_key=None if hmac is None else str(hmac),
            checkpoint_every=every,
        ),
        witnesses=witnesses or {},
    )


async def _write(settings: GatewayConfig, calls: int, tag: str = "c") -> None:
    with anyio.fail_after(BOUND):
        async with Gateway(settings, approvers=[StaticApprover("allow")]) as gateway:
            for index in range(calls):
                await gateway.review(make_call(f"echo {index}", call_id=f"{tag}{index}"))


@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, Path]:
    """A new Ed25519 key pair: the private key (0600) and the public one."""
    folder = tmp_path / "keys"
    folder.mkdir()
    return generate_key(folder / "audit.key")


def test_keygen_writes_a_private_key_only_its_owner_reads_and_never_overwrites(
    tmp_path: Path,
) -> None:
    target = tmp_path / "k"
    made = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "keygen", str(target)],
        capture_output=True,
        text=True,
        timeout=BOUND * 3,
        check=False,
    )
    again = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "keygen", str(target)],
        capture_output=True,
        text=True,
        timeout=BOUND * 3,
        check=False,
    )
    assert made.returncode == 0
    assert json.loads(made.stdout) == {"private": str(target), "public": f"{target}.pub"}
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert Path(f"{target}.pub").read_text().startswith("-----BEGIN PUBLIC KEY-----")
    assert again.returncode == 2
    assert again.stderr == (
        f"gateway keygen: {str(target)!r} exists already; a key is never overwritten, so choose another name.\n"
    )


async def test_a_signed_log_starts_with_a_signed_genesis_and_carries_signed_checkpoints(
    tmp_path: Path, key: tuple[Path, Path]
) -> None:
    private, public = key
    await _write(_settings(tmp_path, key=private, every=10), 8)
    events = list(read_audit_log(tmp_path / "audit.jsonl"))
    genesis = events[0]
    checkpoints = [e for e in events if isinstance(e, ChainCheckpoint)]
    assert isinstance(genesis, ChainGenesis)
    assert genesis.algorithm == "ed25519"
    assert genesis.key is not None
    assert genesis.key.startswith("ed25519:")
    assert genesis.signature
    assert len(checkpoints) >= 3
    assert all(c.genesis == genesis.digest and c.covered == c.seq for c in checkpoints)
    assert isinstance(events[-1], ChainCheckpoint)
    assert events[-1].final
    report = check_audit_log(tmp_path / "audit.jsonl", verifier=load_verifier(str(public)))
    assert report.intact, report.verdict
    assert report.verdict == (
        f"The log is intact: {len(events)} records in 1 session, every one covered by a "
        f"checkpoint signed by {genesis.key}."
    )
    assert report.checkpoints == len(checkpoints)


async def test_a_signed_log_continues_across_restarts_under_one_genesis(
    tmp_path: Path, key: tuple[Path, Path]
) -> None:
    private, public = key
    for run in range(3):
        await _write(_settings(tmp_path, key=private), 2, tag=f"r{run}")
    report = check_audit_log(tmp_path / "audit.jsonl", verifier=load_verifier(str(public)))
    events = list(read_audit_log(tmp_path / "audit.jsonl"))
    assert report.intact, report.verdict
    assert report.sessions == 3
    assert [type(e).__name__ for e in events].count("ChainGenesis") == 1


async def test_another_key_does_not_verify_the_log(tmp_path: Path, key: tuple[Path, Path]) -> None:
    private, _ = key
    await _write(_settings(tmp_path, key=private), 2)
    _, other = generate_key(tmp_path / "other.key")
    report = check_audit_log(tmp_path / "audit.jsonl", verifier=load_verifier(str(other)))
    assert not report.intact
    assert report.kind == "tampered"
    assert "not by the key given" in report.verdict


async def test_an_hmac_secret_signs_and_checks_the_log(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(os.urandom(32).hex().encode())
    secret.chmod(0o600)
    await _write(_settings(tmp_path, hmac=secret, every=5), 6)
    events = list(read_audit_log(tmp_path / "audit.jsonl"))
    assert events[0].algorithm == "hmac-sha256"  # type: ignore[union-attr]
    assert check_audit_log(tmp_path / "audit.jsonl", verifier=load_verifier(str(secret))).intact
    other = tmp_path / "other"
    other.write_bytes(os.urandom(32).hex().encode())
    assert not check_audit_log(tmp_path / "audit.jsonl", verifier=load_verifier(str(other))).intact


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660], ids=["group", "others", "group-write"])
async def test_a_key_others_can_read_stops_the_start_in_one_sentence(
    tmp_path: Path, key: tuple[Path, Path], mode: int
) -> None:
    private, _ = key
    private.chmod(mode)
    with pytest.raises(ConfigError) as caught:
        await _write(_settings(tmp_path, key=private), 1)
    assert str(caught.value) == (
        f"The signing key {str(private)!r} is readable by others (mode {mode:04o}); "
        f"make it 0600 with `chmod 600 {private}`."
    )


async def test_a_file_that_is_not_a_private_key_stops_the_start(
    tmp_path: Path, key: tuple[Path, Path]
) -> None:
    _, public = key
    public.chmod(0o600)
    with pytest.raises(ConfigError, match="is not an unencrypted Ed25519 private key in PEM"):
        await _write(_settings(tmp_path, key=public), 1)


# ── witnesses ──


async def test_a_file_witness_keeps_every_checkpoint_and_shows_a_cut_end(
    tmp_path: Path, key: tuple[Path, Path]
) -> None:
    private, public = key
    witness = tmp_path / "elsewhere" / "witness.jsonl"
    settings = _settings(
        tmp_path,
        key=private,
        witnesses={"offsite": WitnessConfig(plugin="file", path=str(witness))},
    )
    await _write(settings, 2, tag="a")
    log = tmp_path / "audit.jsonl"
    first_session = log.read_bytes()
    await _write(settings, 2, tag="b")
    verifier = load_verifier(str(public))
    held = [json.loads(line)["event"] for line in witness.read_text().splitlines()]
    assert held == ["chain.genesis", "chain.checkpoint", "chain.checkpoint"]
    assert check_audit_log(log, verifier=verifier, witness=witness).intact
    # Cut the log back to the end of its first session: it still verifies on
    # its own (every record is signed), but not against the witness.
    log.write_bytes(first_session)
    alone = check_audit_log(log, verifier=verifier)
    witnessed = check_audit_log(log, verifier=verifier, witness=witness)
    assert alone.intact
    assert not witnessed.intact
    assert witnessed.kind == "truncated"
    assert witnessed.verdict.startswith("The log was cut short: the witness holds a checkpoint")


@contextmanager
def _webhook(status: int) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A witness endpoint on a free loopback port: its URL and what it received."""
    received: list[dict[str, Any]] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append(
                {"body": json.loads(body), "authorization": self.headers.get("Authorization")}
            )
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *arguments: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/witness", received
    finally:
        server.shutdown()
        server.server_close()


async def test_a_webhook_witness_is_posted_every_checkpoint_with_its_token(
    tmp_path: Path, key: tuple[Path, Path]
) -> None:
    private, _ = key
    token = tmp_path / "token"
    token.write_text("s3cret-token\n")
    with _webhook(200) as (url, received):
        settings = _settings(
            tmp_path,
            key=private,
            every=5,
            witnesses={
                "hook": WitnessConfig(plugin="webhook", url=url, options={"token-file": str(token)})
            },
        )
        await _write(settings, 3)
    events = list(read_audit_log(tmp_path / "audit.jsonl"))
    attested = [e for e in events if isinstance(e, ChainGenesis | ChainCheckpoint)]
    assert [r["body"]["digest"] for r in received] == [e.digest for e in attested]
    assert {r["authorization"] for r in received} == {"Bearer s3cret-token"}


async def test_a_witness_that_fails_is_recorded_and_never_delays_a_verdict(
    tmp_path: Path, key: tuple[Path, Path]
) -> None:
    private, _ = key
    with _webhook(503) as (url, _):
        settings = _settings(
            tmp_path, key=private, witnesses={"hook": WitnessConfig(plugin="webhook", url=url)}
        )
        await _write(settings, 2)
    failed = [e for e in read_audit_log(tmp_path / "audit.jsonl") if isinstance(e, WitnessFailed)]
    assert failed
    assert failed[0].witness == "hook"
    assert failed[0].reason == "it failed (OSError: the witness answered HTTP 503)"


class _SlowFailingWitness:
    """Fails every attestation, but only after the gateway has been asked to close."""

    shares_loop = True

    def __init__(self) -> None:
        self.attested: list[int] = []

    async def attest(self, record: ChainGenesis | ChainCheckpoint) -> None:
        self.attested.append(record.seq)
        await anyio.sleep(0.2)
        raise OSError("the witness's disk is full")

    async def aclose(self) -> None:
        pass


async def test_a_witness_that_fails_while_the_gateway_closes_is_recorded_before_it_stops(
    tmp_path: Path, key: tuple[Path, Path]
) -> None:
    private, _ = key
    witness = _SlowFailingWitness()
    settings = _settings(tmp_path, key=private)
    with anyio.fail_after(BOUND):
        async with Gateway(
            settings, approvers=[StaticApprover("allow")], witnesses={"slow": witness}
        ) as gateway:
            await gateway.review(make_call("echo 1", call_id="c1"))
    events = list(read_audit_log(tmp_path / "audit.jsonl"))
    kinds = [type(e).__name__ for e in events]
    failed = [e for e in events if isinstance(e, WitnessFailed)]
    assert [f.checkpoint for f in failed][:1] == [witness.attested[0]]
    assert kinds.index("WitnessFailed") < kinds.index("GatewayStopped")


# ── gateway verify ──


def _verify(*arguments: str) -> tuple[int, dict[str, Any], str]:
    result = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "verify", *arguments],
        capture_output=True,
        text=True,
        timeout=BOUND * 3,
        check=False,
    )
    return result.returncode, json.loads(result.stdout), result.stderr


async def test_gateway_verify_checks_the_signatures_with_the_public_key(
    tmp_path: Path, key: tuple[Path, Path]
) -> None:
    private, public = key
    await _write(_settings(tmp_path, key=private), 3)
    log = tmp_path / "audit.jsonl"
    status, report, stderr = _verify(str(log), "--key", str(public))
    assert status == 0
    assert report["intact"] is True
    assert report["key"].startswith("ed25519:")
    assert stderr == ""
    # An edit recomputed without the key: its digests chain, its signatures do not hold.
    events = list(read_audit_log(log))
    from gateway._calls._events import event_digest

    forged: list[Any] = []
    previous = None
    for event in events:
        if isinstance(event, ChainCheckpoint):
            event = msgspec.structs.replace(event, signature="A" * 86)
        if previous is not None:
            event = msgspec.structs.replace(event, previous=previous.digest)
        if event.seq == 3:
            event = msgspec.structs.replace(event, time="2000-01-01T00:00:00.000000+00:00")
        event = msgspec.structs.replace(event, digest=event_digest(event))
        forged.append(event)
        previous = event
    log.write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in forged))
    unsigned_status, _, _ = _verify(str(log))
    status, report, stderr = _verify(str(log), "--key", str(public))
    assert unsigned_status == 0  # without the key, a recomputed chain looks whole
    assert status == 1
    assert report["kind"] == "tampered"
    assert stderr.startswith("gateway verify: Record ")
    assert "its signature does not hold" in stderr
    assert stderr.count("\n") == 1


def test_gateway_verify_says_which_key_file_it_cannot_read(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "verify", str(log), "--key", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=BOUND * 3,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"gateway verify: Cannot read the key {str(tmp_path / 'nope')!r}"
    )


def test_the_key_the_gateway_writes_is_read_without_the_serialization_module(
    tmp_path: Path,
) -> None:
    # Each hook is a process that loads the key: the serialization module's
    # import would cost as much as the rest of signing, so the form the
    # gateway writes is read without it, to the same key.
    key = tmp_path / "audit.pem"
    generate_key(key)
    probe = (
        "import sys\n"
        "from gateway._record._signing import load_signer\n"
        f"signer = load_signer(signing_key={str(key)!r}, hmac_key=None)\n"
        "print(signer.key_id, signer.sign(b'message'))\n"
        "print('cryptography.hazmat.primitives.serialization' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=BOUND, check=True
    )
    (key_id, signature), (loaded,) = (line.split() for line in done.stdout.splitlines())
    assert loaded == "False"
    verifier = load_verifier(str(key) + ".pub")
    assert key_id == verifier.key_id
    assert verifier.verify(b"message", signature)


def test_a_key_in_another_form_is_still_read(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519

    from gateway._record._signing import load_signer

    private = ed25519.Ed25519PrivateKey.generate()
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = tmp_path / "key.pub"
    public.write_bytes(
        private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    # Text before the PEM, or its first line break dropped: not the form the
    # gateway writes, still a key PEM readers take.
    for form in (b"The audit log's key\n" + pem, pem.replace(b"\n", b"", 1)):
        other = tmp_path / "other.pem"
        other.write_bytes(form)
        other.chmod(0o600)
        signer = load_signer(signing_key=str(other), hmac_key=None)
        assert signer is not None
        assert load_verifier(str(public)).verify(b"m", signer.sign(b"m"))
    # A PKCS#8 key of another algorithm is refused, as before.
    curve = tmp_path / "ec.pem"
    curve.write_bytes(
        ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    curve.chmod(0o600)
    with pytest.raises(ConfigError, match="is not an unencrypted Ed25519 private key"):
        load_signer(signing_key=str(curve), hmac_key=None)
