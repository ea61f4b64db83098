"""
``gateway audit export``: write the audit trail out as JSON lines, for a SIEM or an archive.

From the fleet's audit stream (``--broker``, or ``[broker] url``), every
event of every replica in stream order — the order each replica published
them in, so every call's events in order — or from an audit log file. Each
line is one event, exactly as a ``jsonl`` audit log holds it (hash-chain
fields included, so the export can be checked again). ``--call`` and
``--replica`` keep one call's or one replica's events.

Also here: ``gateway verify --broker`` (see `verify_on_broker`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from contextlib import ExitStack
from typing import IO, Any

from gateway._calls._errors import AuditLogError
from gateway._calls._events import Event
from gateway._cli._common import CommandError, Subcommand, audit_file_of, write_json
from gateway._cli._fleet import (
    BrokerPlugin,
    add_broker_argument,
    add_config_argument,
    broker_of,
    load_tiers,
    run_on_broker,
)
from gateway._record._auditlog import encode_event, read_audit_log
from gateway._settings._config import BrokerSection

__all__ = ["verify_on_broker"]


def _configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    export = actions.add_parser("export", help="write every event out as JSON lines")
    export.add_argument(
        "audit_file",
        metavar="AUDIT_FILE",
        nargs="?",
        help="an audit log file to export instead of the broker's stream",
    )
    export.add_argument("--call", metavar="ID", help="only this call's events")
    export.add_argument("--replica", metavar="NAME", help="only this replica's events (a stream)")
    export.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    add_config_argument(export)
    add_broker_argument(export)


def _stream_events(section: BrokerSection, replica: str | None) -> list[tuple[str, Event]]:
    async def read(plugin: BrokerPlugin, broker: Any) -> list[tuple[str, Event]]:
        found: list[tuple[str, Event]] = []
        async for item in plugin.read_stream(broker.js, section):
            name = item.subject.rsplit(".", 1)[-1]
            if replica is None or name == replica:
                found.append((name, item.event))
        return found

    return run_on_broker(section, read)


def _write(events: Iterable[Event], output: IO[bytes], call_id: str | None) -> int:
    count = 0
    for event in events:
        if call_id is not None and event.call_id != call_id:
            continue
        output.write(encode_event(event, "jsonl"))
        count += 1
    output.flush()
    return count


def _run(arguments: argparse.Namespace) -> int:
    with ExitStack() as stack:
        output: IO[bytes] = sys.stdout.buffer
        if arguments.output:
            try:
                output = stack.enter_context(open(arguments.output, "wb"))
            except OSError as error:
                raise CommandError(
                    f"Cannot write {arguments.output!r}: {error.strerror}."
                ) from None
        if arguments.audit_file:
            arguments.audit_file = audit_file_of(arguments.audit_file)
            try:
                count = _write(read_audit_log(arguments.audit_file), output, arguments.call)
            except BrokenPipeError:
                raise  # The reader went away: not the log's fault (see gateway._cli.main).
            except OSError as error:
                raise CommandError(
                    f"Cannot read {arguments.audit_file!r}: {error.strerror}."
                ) from None
            except AuditLogError as error:
                raise CommandError(f"{arguments.audit_file!r}: {error}.") from None
        else:
            section = broker_of(load_tiers(arguments).config, arguments.broker)
            if section is None:
                raise CommandError(
                    "Export from what? Pass AUDIT_FILE, or --broker nats://HOST:PORT (or set [broker] url)."
                )
            events = _stream_events(section, arguments.replica)
            count = _write((event for _, event in events), output, arguments.call)
    sys.stderr.write(f"gateway audit export: {count} events.\n")
    return 0


def verify_on_broker(arguments: argparse.Namespace) -> int:
    """``gateway verify --broker``: check every replica's chain in the audit stream."""
    section = broker_of(load_tiers(arguments).config, arguments.broker)
    if section is None:  # pragma: no cover -- the caller checked
        raise CommandError("No broker to verify; pass --broker nats://HOST:PORT.")

    async def check(plugin: BrokerPlugin, broker: Any) -> list[Any]:
        events = [item async for item in plugin.read_stream(broker.js, section)]
        return list(plugin.verify_stream(events))

    reports = run_on_broker(section, check)
    broken = [r for r in reports if not r.intact or (not r.complete and not arguments.open)]
    write_json(
        {
            "broker": section.url,
            "intact": not broken,
            "events": sum(r.events for r in reports),
            "chains": reports,
        }
    )
    for report in broken:
        if not report.intact:
            sys.stderr.write(
                f"gateway verify: replica {report.replica!r}'s chain breaks at its event {report.index}: {report.reason}.\n"
            )
        else:
            sys.stderr.write(
                f"gateway verify: replica {report.replica!r}'s chain does not end with gateway.stopped (it still runs, or stopped without closing); pass --open to accept that.\n"
            )
    return 1 if broken else 0


COMMAND = Subcommand(
    name="audit",
    help="Export the audit trail (the fleet's stream, or a log file) as JSON lines.",
    configure=_configure,
    run=_run,
)
