"""
``gateway verify``: check an audit log as an outsider can; ``gateway keygen``: make the key that signs one.

``verify`` prints its report (JSON, or read aloud on a terminal without
``--json``) and its verdict in one sentence, and exits 0
when the log is intact, 1 when it is not. With ``--key`` (the public key, or
the HMAC secret) it also checks every signature and that every record is
covered by one; with ``--witness`` (the file a ``file`` witness keeps) it
checks the log still holds every checkpoint the witness holds. For the log
the configuration writes (``[sinks]``), both default to what the
configuration names: the public half of ``[audit] signing-key`` (or the HMAC
secret) and the first ``file`` witness. The report says which check found a
problem (``chain``, ``signature`` or ``witness``). With ``--broker`` (and no
file) it checks every chain of the fleet's audit stream.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from gateway._calls._errors import AuditLogError, ConfigError
from gateway._cli._audit import verify_on_broker
from gateway._cli._common import CommandError, Subcommand, audit_file_of, write_json
from gateway._cli._fleet import add_broker_argument, add_config_argument, load_tiers
from gateway._cli._view import Style, add_json_argument, verify_view, wants_json, write_text
from gateway._record._auditlog import check_audit_log
from gateway._record._signing import generate_key, load_verifier
from gateway._settings._config import GatewayConfig, state_path


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "audit_file",
        metavar="AUDIT_FILE",
        nargs="?",
        help="a JSON-lines (.jsonl) or MessagePack (.msgpack) audit log",
    )
    add_broker_argument(parser)
    add_config_argument(parser)
    add_json_argument(parser)
    parser.add_argument(
        "--open",
        action="store_true",
        help="accept a log (or, with --broker, chains) whose gateway still runs (its last records are not yet signed or closed)",
    )
    parser.add_argument(
        "--key",
        metavar="FILE",
        help="the key the log is signed with: an Ed25519 public key (PEM) or the HMAC secret",
    )
    parser.add_argument(
        "--witness",
        metavar="FILE",
        help="the checkpoints a file witness kept: the log must still hold every one",
    )


_LOG_SINKS = frozenset({"jsonl", "msgpack"})


def configured_checks(config: GatewayConfig, log: str) -> tuple[str | None, str | None]:
    """
    The key file and witness file ``config`` names for ``log``, when it is a log ``config`` writes.

    The key is the public half of ``[audit] signing-key`` (``FILE.pub``; the
    private key when only that is there) or the HMAC secret, the witness the
    first ``file`` witness. Each is named even when its file is gone: a log
    the configuration signs is never checked as if it were not
    (`require_checks`). A log the configuration does not write gets neither (it may be
    another gateway's).
    """
    here = os.path.realpath(log)
    writes = any(
        sink.plugin in _LOG_SINKS and sink.path and os.path.realpath(state_path(sink.path)) == here
        for sink in config.sinks.values()
    )
    if not writes:
        return None, None
    audit = config.audit
    keys: list[Path] = []
    if audit.signing_key_path is not None:
        private = audit.signing_key_path
        keys = [private.with_name(private.name + ".pub"), private]
    elif audit.hmac_key_path is not None:
        keys = [audit.hmac_key_path]
    key = next((str(path) for path in keys if os.path.lexists(path)), None)
    if key is None and keys:
        key = str(keys[0])
    witnesses = [
        state_path(witness.path)
        for witness in config.witnesses.values()
        if witness.plugin == "file" and witness.path
    ]
    return key, str(witnesses[0]) if witnesses else None


def require_checks(key: str | None, witness: str | None) -> None:
    """
    Refuse to check the log the configuration writes without the key and witness it names.

    A key or witness file that is gone is never read as "not signed" or "not
    witnessed": whoever deletes it with the log's tail would otherwise pass.

    Raises:
        CommandError: One of them is missing (exit status 1: not shown intact).
    """
    for path, what, option in ((key, "key", "--key"), (witness, "witness file", "--witness")):
        if path is not None and not os.path.lexists(path):
            raise CommandError(
                f"The {what} {path!r} the configuration names for this log is missing, so the log "
                f"cannot be shown intact: restore it, or pass {option} FILE naming a copy.",
                status=1,
            )


def _run(arguments: argparse.Namespace) -> int:
    if arguments.audit_file is None:
        if arguments.broker is None and not load_tiers(arguments).config.broker.servers:
            raise CommandError("Verify what? Pass AUDIT_FILE, or --broker nats://HOST:PORT.")
        return verify_on_broker(arguments)
    arguments.audit_file = audit_file_of(arguments.audit_file)
    if arguments.key is None or arguments.witness is None:
        key, witness = configured_checks(load_tiers(arguments).config, arguments.audit_file)
        require_checks(
            key if arguments.key is None else None, witness if arguments.witness is None else None
        )
        arguments.key = arguments.key or key
        arguments.witness = arguments.witness or witness
    try:
        verifier = load_verifier(arguments.key) if arguments.key else None
    except ConfigError as error:
        raise CommandError(str(error)) from None
    try:
        report = check_audit_log(
            arguments.audit_file,
            verifier=verifier,
            witness=arguments.witness,
            allow_open=arguments.open,
        )
    except OSError as error:
        name = error.filename if isinstance(error.filename, str) else arguments.audit_file
        raise CommandError(f"Cannot read {name!r}: {error.strerror}.") from None
    except AuditLogError as error:
        raise CommandError(
            f"The witness file {arguments.witness!r} is unreadable: {error}."
        ) from None
    output: dict[str, Any] = {
        "file": arguments.audit_file,
        "intact": report.intact,
        "verdict": report.verdict,
        "records": report.records,
        "sessions": report.sessions,
        "checkpoints": report.checkpoints,
        "recoveries": report.recoveries,
        "key": report.key,
        "witness": arguments.witness,
        "witnessed": report.witness,
        "writer": report.writer,
    }
    if report.problem is not None:
        output |= {
            "record": report.problem.index + 1,
            "seq": report.problem.seq,
            "reason": report.problem.reason,
            "kind": report.kind,
            "check": report.check,
        }
    _show(arguments, output)
    if report.intact:
        return 0
    sys.stderr.write(f"gateway verify: {report.verdict}\n")
    return 1


def _show(arguments: argparse.Namespace, row: dict[str, Any]) -> None:
    if wants_json(arguments):
        write_json(row)
    else:
        write_text(verify_view(row, Style()))


COMMAND = Subcommand(
    name="verify",
    help="Check an audit log (with --key, its signatures too); exit 0 when intact, 1 saying what broke.",
    configure=_configure,
    run=_run,
)


def _configure_keygen(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "key_file",
        metavar="FILE",
        help="where to write the private key (mode 0600); the public key goes to FILE.pub",
    )


def _run_keygen(arguments: argparse.Namespace) -> int:
    try:
        private, public = generate_key(arguments.key_file)
    except FileExistsError as error:
        raise CommandError(
            f"{error.filename!r} exists already; a key is never overwritten, so choose another name."
        ) from None
    except OSError as error:
        raise CommandError(
            f"Cannot write the key to {arguments.key_file!r} ({error.strerror})."
        ) from None
    write_json({"private": str(private), "public": str(public)})
    return 0


KEYGEN = Subcommand(
    name="keygen",
    help="Make an Ed25519 key pair to sign the audit log: FILE (private, 0600) and FILE.pub.",
    configure=_configure_keygen,
    run=_run_keygen,
)
