"""``gateway plan``: print the plan of a shell call, its heredoc expansions and its sequence plan."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from gateway._cli._common import Subcommand, decode_utf8, read_source, write_json
from gateway._fragments import expand_fragment
from gateway._gateway import mask_sequence, mask_value, source_secrets
from gateway._planner import plan_program
from gateway._plans import FragmentAddr, FragmentError
from gateway._sequence import command_sequence_plan
from gateway._shell import read_shell


def describe(source: str) -> dict[str, Any]:
    """
    The plan of ``source`` with the expansion of every heredoc (empty scope) and its sequence plan.

    Everything printed is masked like the plan itself: an expansion's text and
    a sequence plan's argv are values derived from the source, so each secret
    found in the source is masked wherever it reappears.
    """
    plan = plan_program(source)
    secrets = source_secrets(source)
    result: dict[str, Any] = msgspec.to_builtins(plan)
    expansions: list[dict[str, Any]] = []
    for statement in plan.statements:
        for command in statement.plan.commands:
            for heredoc in command.heredocs:
                address = FragmentAddr(statement=statement.index, heredoc=heredoc.index)
                entry: dict[str, Any] = {"statement": statement.index, "heredoc": heredoc.index}
                try:
                    expansion = msgspec.to_builtins(expand_fragment(source, address, {}))
                    entry["expansion"] = mask_value(expansion, secrets)
                except FragmentError as error:
                    entry["error"] = {
                        "kind": error.kind,
                        "message": mask_value(error.message, secrets),
                    }
                expansions.append(entry)
    result["expansions"] = expansions
    result["sequence"] = msgspec.to_builtins(mask_sequence(command_sequence_plan(source), source))
    if plan.status != "measured":
        result["errors"] = [{"message": plan.reason, **_where(source)}]
    return result


def _where(source: str) -> dict[str, int]:
    reading = read_shell(source)
    offset = reading.offset if reading.offset is not None else 0
    return {"start": offset, "end": offset}


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="the shell text; '-' or nothing reads standard input",
    )
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help="read JSON lines with a 'cmd' field on standard input and print one result per line, in order",
    )


def _run(arguments: argparse.Namespace) -> int:
    if not arguments.jsonl:
        result = describe(read_source(arguments.source))
        write_json(result)
        return 0 if result["status"] == "measured" else 2
    for number, raw in enumerate(sys.stdin.buffer, start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            record = msgspec.json.decode(decode_utf8(line, f"Line {number}"))
        except (msgspec.DecodeError, Exception) as error:  # noqa: BLE001 -- any bad line becomes an error record
            write_json(
                {
                    "line": number,
                    "error": f"Line {number} is not a JSON object with a 'cmd' string: {_short(error)}.",
                }
            )
            continue
        command = record.get("cmd") if isinstance(record, dict) else None
        if not isinstance(command, str):
            write_json({"line": number, "error": f"Line {number} has no 'cmd' string."})
            continue
        write_json({"line": number, **describe(command)})
    return 0


def _short(error: Exception) -> str:
    text = " ".join(str(error).split())
    return text[:120].rstrip(".")


COMMAND = Subcommand(
    name="plan",
    help="Print the plan of a shell call, the expansion of each heredoc, and its sequence plan, as JSON.",
    configure=_configure,
    run=_run,
)
