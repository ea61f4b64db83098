"""``gateway plan``: print the plan of a shell call, its heredoc expansions and its sequence plan."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from gateway._calls._places import PathsSection
from gateway._calls._plans import FragmentAddr, FragmentError
from gateway._calls._text import error_detail
from gateway._cli._common import Subcommand, decode_utf8, read_source, write_json
from gateway._cli._view import Style, add_json_argument, plan_view, wants_json, write_text
from gateway._plan._fragments import expand_planned
from gateway._plan._redact import find_secrets
from gateway._review._analysis import analyse_call, analysis_context, mask_text


def describe(source: str, cwd: str | None = None) -> dict[str, Any]:
    """
    The plan of ``source`` with the expansion of every heredoc (empty scope) and its sequence plan.

    The text is read once (`analyse_call`); the expansions come from that
    reading. Everything printed is masked like the plan itself: an
    expansion's text and a sequence plan's argv are values derived from the
    source, so each secret found in the source is masked wherever it
    reappears. ``effects`` lists every effect of the call in walk order (they
    are in the plan's commands too); paths resolve against ``cwd`` when given.
    """
    analysis = analyse_call(source, analysis_context(PathsSection(), cwd))
    plan = analysis.plan
    secrets = tuple((source[s.start : s.end], s.kind) for s in find_secrets(source))
    result: dict[str, Any] = msgspec.to_builtins(plan)
    expansions: list[dict[str, Any]] = []
    for statement in plan.statements:
        for command in statement.plan.commands:
            for heredoc in command.heredocs:
                address = FragmentAddr(statement=statement.index, heredoc=heredoc.index)
                entry: dict[str, Any] = {"statement": statement.index, "heredoc": heredoc.index}
                try:
                    expansion = expand_planned(source, analysis.fragments, address, {})
                    entry["expansion"] = _masked(msgspec.to_builtins(expansion), secrets)
                except FragmentError as error:
                    entry["error"] = {
                        "kind": error.kind,
                        "message": mask_text(error.message, secrets),
                    }
                expansions.append(entry)
    result["expansions"] = expansions
    result["sequence"] = msgspec.to_builtins(analysis.sequence)
    result["effects"] = msgspec.to_builtins(analysis.effects)
    if plan.status != "measured":
        offset = analysis.offset if analysis.offset is not None else 0
        result["errors"] = [{"message": plan.reason, "start": offset, "end": offset}]
    return result


def _masked(value: Any, secrets: tuple[tuple[str, str], ...]) -> Any:
    """A JSON-like value with every string masked (`mask_text`)."""
    if isinstance(value, str):
        return mask_text(value, secrets)
    if isinstance(value, list):
        return [_masked(item, secrets) for item in value]
    if isinstance(value, dict):
        return {key: _masked(item, secrets) for key, item in value.items()}
    return value


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
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help="the absolute directory the call would run in: paths in effects resolve there "
        "(default: shown relative, as ./…)",
    )
    add_json_argument(parser)


def _run(arguments: argparse.Namespace) -> int:
    if not arguments.jsonl:
        result = describe(
            read_source(arguments.source, "plan", "cd src && grep -rn TODO ."), arguments.cwd
        )
        if wants_json(arguments):
            write_json(result)
        else:
            write_text(plan_view(result, Style()))
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
                    "error": f"Line {number} is not a JSON object with a 'cmd' string: {error_detail(error, 120)}.",
                }
            )
            continue
        command = record.get("cmd") if isinstance(record, dict) else None
        if not isinstance(command, str):
            write_json({"line": number, "error": f"Line {number} has no 'cmd' string."})
            continue
        write_json({"line": number, **describe(command, arguments.cwd)})
    return 0


COMMAND = Subcommand(
    name="plan",
    help="Print the plan of a shell call, the expansion of each heredoc, its sequence plan and its effects (JSON when piped or with --json).",
    configure=_configure,
    run=_run,
)
