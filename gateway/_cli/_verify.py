"""``gateway verify``: check an audit log's hash chain."""

from __future__ import annotations

import argparse
import sys

from gateway._cli._common import CommandError, Subcommand, write_json
from gateway._sinks import verify_audit_log


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "audit_file",
        metavar="AUDIT_FILE",
        help="a JSON-lines (.jsonl) or MessagePack (.msgpack) audit log",
    )
    parser.add_argument(
        "--open",
        action="store_true",
        help="accept a log that does not end with gateway.stopped (its gateway is still running)",
    )


def _run(arguments: argparse.Namespace) -> int:
    try:
        broken = verify_audit_log(arguments.audit_file, allow_open=arguments.open)
    except OSError as error:
        raise CommandError(f"Cannot read {arguments.audit_file!r}: {error.strerror}.") from None
    if broken is None:
        write_json({"file": arguments.audit_file, "intact": True})
        return 0
    write_json(
        {
            "file": arguments.audit_file,
            "intact": False,
            "record": broken.index + 1,
            "seq": broken.seq,
            "reason": broken.reason,
        }
    )
    sys.stderr.write(
        f"gateway verify: record {broken.index + 1} breaks the chain: {broken.reason}.\n"
    )
    return 1


COMMAND = Subcommand(
    name="verify",
    help="Check an audit log's hash chain; exit 0 when intact, 1 naming the first broken record.",
    configure=_configure,
    run=_run,
)
