"""``gateway explain 'CMD'``: which rule decided what about a shell command, why, and what would change it."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any, Final

import anyio
import msgspec

from gateway._calls._calls import ToolCall
from gateway._calls._errors import GatewayError
from gateway._cli._check import without_person
from gateway._cli._common import (
    CommandError,
    Subcommand,
    add_cwd_argument,
    cwd_of,
    read_source,
    write_json,
)
from gateway._cli._fleet import add_config_argument, load_tiers
from gateway._cli._view import Style, add_json_argument, wants_json, write_text
from gateway._gateway import Gateway
from gateway._plan import plan_program
from gateway._programs import read_arguments
from gateway._settings._config import GatewayConfig

__all__ = ["COMMAND", "explain"]


_NO_TABLE = (
    "Its program has no option table, so no rule can allow it (what it does with its "
    "arguments is not known): let a person decide, and remember this exact command."
)
_GENERIC = "A built-in check of the rules asks about it (see the reason): change the command, or let a person decide."
_ADVICE: Final[Mapping[str, str]] = {
    "uncovered": "No rule covers it: an allow rule for its program (`programs = [...]`) would allow it.",
    "code": (
        "It runs code the rules cannot read (a makefile's recipes, a script, a test suite), "
        "so no rule can allow it: let a person decide."
    ),
    "undeclared": (
        "Its option table does not declare what it is given, so no rule can allow it: "
        "leave that out, or let a person decide."
    ),
    "launcher": "An allow rule that names the launcher (`launchers = [...]`) would allow it.",
}
"""The advice for an ask no rule gave, by what stood in the way of an allow (the judgement's ``hindrance``)."""


def _change(
    decision: str, rule: str | None, hindrance: str | None, program: str | None
) -> str | None:
    """What would change one command's decision, as a sentence (``None`` for an allow)."""
    if decision == "allow":
        return None
    if decision == "decline":
        if rule:
            return f"Rule {rule} declines it: change the command, or replace rule {rule} by its id in your rules."
        return (
            "A built-in check declines it (see the reason): only a different command changes that."
        )
    if rule:
        return (
            f"Rule {rule} asks about it, and no allow rule outranks an ask: replace rule {rule} by its id "
            "in your rules, or let a person allow it (and remember this exact command)."
        )
    if (
        hindrance in ("uncovered", "opaque")
        and program is not None
        and not read_arguments(program, ()).table
    ):
        return _NO_TABLE
    return _ADVICE.get(hindrance or "", _GENERIC)


async def _explain(config: GatewayConfig, source: str, cwd: str | None) -> dict[str, Any]:
    async with Gateway(config) as gateway:
        verdict = await gateway.review(ToolCall("Bash", {"command": source}, cwd=cwd))
        judge = getattr(gateway.services.get("rules"), "judge", None)
        judgements: Sequence[Any] = judge(plan_program(source), cwd=cwd) if callable(judge) else ()
    commands = [
        {
            "command": getattr(item, "command", None),
            "decision": str(item.decision),
            "rule": item.rule,
            "reason": str(item.reason),
            "hindrance": getattr(item, "hindrance", None),
            "change": _change(
                str(item.decision),
                item.rule,
                getattr(item, "hindrance", None),
                getattr(item, "program", None),
            ),
        }
        for item in judgements
    ]
    return {
        "command": source,
        "decision": verdict.decision,
        "reason": verdict.reason,
        "approver": verdict.approver,
        "rule": verdict.rule,
        "commands": commands,
    }


def explain(config: GatewayConfig, source: str, cwd: str | None = None) -> dict[str, Any]:
    """
    The verdict on ``source`` without a person, and the rules approver's judgement of each of its commands.

    Each judgement carries what stood in the way of an allow when no rule
    decided (``hindrance``: the rules approver's `Hindrance`, or ``None``) and
    the sentence of what would change it (``change``; ``None`` for an allow),
    chosen by that field, never by the wording of the reason.
    """
    config = msgspec.structs.replace(without_person(config), sinks={})
    result: dict[str, Any] = anyio.run(_explain, config, source, cwd)
    return result


def explanation_view(result: dict[str, Any], style: Style) -> str:
    """The explanation in sentences: the verdict, then each command's decision, rule, reason and what would change it."""
    decision = str(result["decision"])
    by = f" (approver {result['approver']}" + (
        f", rule {result['rule']})" if result["rule"] else ")"
    )
    lines = [
        f"{style.decision(decision)}  {result['command']}",
        f"The gateway would {decision} this call{by if result['approver'] else ''}: {result['reason']}",
    ]
    if decision == "ask":
        lines.append(
            "With a person in the chain (the default), the call would wait for them in the approval page."
        )
    if result["commands"]:
        lines.append("")
        lines.append(style("bold", "Command by command:"))
    for item in result["commands"]:
        shown = item["command"] or "the call as a whole"
        lines.append(f"  {style.decision(item['decision'])}  {shown}")
        lines.append(f"      {item['reason']}")
        if item["change"]:
            lines.append(style("dim", f"      To change it: {item['change']}"))
    if decision == "allow":
        lines.append("")
        lines.append("Nothing needs to change: every command is allowed.")
    return "\n".join(lines)


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        nargs="?",
        metavar="CMD",
        help="the shell command; '-' or nothing reads standard input",
    )
    add_config_argument(parser)
    add_cwd_argument(parser, "the command would run in")
    add_json_argument(parser)


def _run(arguments: argparse.Namespace) -> int:
    config = load_tiers(arguments).config
    try:
        result = explain(
            config, read_source(arguments.source, "explain", "git status"), cwd_of(arguments)
        )
    except GatewayError as error:
        raise CommandError(str(error)) from None
    if wants_json(arguments):
        write_json(result)
    else:
        write_text(explanation_view(result, Style()))
    return 0


COMMAND = Subcommand(
    name="explain",
    help="Say which rule decides what about a shell command, why, and what would change the verdict.",
    configure=_configure,
    run=_run,
)
