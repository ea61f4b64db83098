"""``gateway verify``: check an audit log's hash chain (or, with ``--broker``, every chain of the fleet's audit stream)."""

from __future__ import annotations

import argparse
import sys

from gateway._cli._audit import verify_on_broker
from gateway._cli._common import CommandError, Subcommand, write_json
from gateway._cli._fleet import add_broker_argument, add_config_argument, load_tiers
from gateway._cli._view import Style, add_json_argument, verify_view, wants_json, write_text
from gateway._sinks import verify_audit_log


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
        help="accept a log (or, with --broker, chains) that does not end with gateway.stopped (its gateway is still running)",
    )


def _run(arguments: argparse.Namespace) -> int:
    if arguments.audit_file is None:
        if arguments.broker is None and not load_tiers(arguments).config.broker.servers:
            raise CommandError("Verify what? Pass AUDIT_FILE, or --broker nats://HOST:PORT.")
        return verify_on_broker(arguments)
    try:
        broken = verify_audit_log(arguments.audit_file, allow_open=arguments.open)
    except OSError as error:
        raise CommandError(f"Cannot read {arguments.audit_file!r}: {error.strerror}.") from None
    if broken is None:
        _show(arguments, {"file": arguments.audit_file, "intact": True})
        return 0
    _show(
        arguments,
        {
            "file": arguments.audit_file,
            "intact": False,
            "record": broken.index + 1,
            "seq": broken.seq,
            "reason": broken.reason,
        },
    )
    sys.stderr.write(
        f"gateway verify: record {broken.index + 1} breaks the chain: {broken.reason}.\n"
    )
    return 1


def _show(arguments: argparse.Namespace, row: dict[str, object]) -> None:
    if wants_json(arguments):
        write_json(row)
    else:
        write_text(verify_view(row, Style()))


COMMAND = Subcommand(
    name="verify",
    help="Check an audit log's hash chain; exit 0 when intact, 1 naming the first broken record.",
    configure=_configure,
    run=_run,
)
