"""
``gateway rules test [FILE]``: run every rule's match / not-match examples.

``gateway remembered list`` and ``gateway remembered forget ID…|--all``: the
approvals people asked to remember, in the memory file the config names
(``[approver.rules] memory``; the state directory's ``remembered.json`` by
default), or, with ``--broker``, in the fleet's remembered bucket.
"""

from __future__ import annotations

import argparse
from typing import Any

import msgspec

from gateway.cli import (
    CommandError,
    Style,
    Subcommand,
    add_json_argument,
    rules_test_view,
    wants_json,
    write_json,
    write_text,
)

__all__ = ["REMEMBERED", "RULES"]


def _configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    test = actions.add_parser("test", help="run the examples of the default policy and of FILE")
    test.add_argument("file", nargs="?", metavar="FILE", help="a rule file ([[rule]] tables)")
    test.add_argument("--no-default", action="store_true", help="leave the default policy out")
    test.add_argument(
        "--config",
        metavar="CONFIG",
        help="a gateway config whose [programs.NAME] option tables the examples are planned with",
    )
    add_json_argument(test)


def _run(arguments: argparse.Namespace) -> int:
    from gateway import ConfigError, load_config
    from gateway_rules import RulesOptions, check_examples, load_rules

    options = RulesOptions(
        include_default=not arguments.no_default, files=(arguments.file,) if arguments.file else ()
    )
    try:
        sources, _ = load_rules(options)
        programs = load_config(arguments.config).programs if arguments.config else {}
    except (ValueError, ConfigError) as error:
        raise CommandError(str(error)) from None
    # Every example is judged by the whole policy, under every profile the
    # rule is in force in: an allow rule that loses to a stricter one fails.
    results = check_examples(sources, programs=programs)
    rows = [
        {
            "rule": result.rule,
            "source": result.source,
            "expect": result.expect,
            "example": result.example,
            "passed": result.passed,
            "profile": result.profile,
            **({"detail": result.detail} if result.detail else {}),
        }
        for result in results
    ]
    failed = sum(not result.passed for result in results)
    summary = {
        "rules": len(sources),
        "examples": len(results),
        "passed": len(results) - failed,
        "failed": failed,
    }
    if wants_json(arguments):
        for row in [*rows, summary]:
            write_json(row)
    else:
        write_text(rules_test_view(rows, summary, Style()))
    return 1 if failed else 0


RULES = Subcommand(
    name="rules",
    help="Work with rule files: `gateway rules test [FILE]` runs their examples.",
    configure=_configure,
    run=_run,
)
"""``gateway rules``, contributed through the ``gateway.commands`` entry-point group."""


# ── gateway remembered ──


def _configure_remembered(parser: argparse.ArgumentParser) -> None:
    from gateway.cli import add_broker_argument, add_config_argument

    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list", help="every approval a person asked to remember, with its id and what it allows"
    )
    forget = actions.add_parser("forget", help="take back remembered approvals by their ids")
    forget.add_argument(
        "ids", nargs="*", metavar="ID", help="an approval's id (or the start of one), as listed"
    )
    forget.add_argument("--all", action="store_true", help="take back every one")
    for sub in (listing, forget):
        add_config_argument(sub)
        add_broker_argument(sub)
        add_json_argument(sub)


def _row(approval: Any, widths: tuple[str, ...]) -> dict[str, Any]:
    return {
        "id": approval.id,
        "scope": approval.scope,
        "description": approval.description,
        "command": approval.command,
        "program": approval.program,
        "prefix": list(approval.prefix),
        "digest": approval.digest,
        "session_id": approval.session_id,
        "created": approval.created,
        "decided_by": approval.decided_by,
        "note": approval.note,
        # A width the policy no longer allows is kept, and not applied.
        "applies": approval.scope in widths,
    }


def _remembered_view(result: dict[str, Any], style: Style) -> str:
    rows = result["approvals"]
    count = f"{len(rows)} remembered approval{'' if len(rows) == 1 else 's'}"
    lines = [style("bold", f"{count} in {result['store']}")]
    for row in rows:
        who = ", ".join(part for part in (row["decided_by"], row["created"][:10]) if part)
        lines.append(f"  {row['id']}  {row['scope']:<7}  {row['description']}")
        details = [f"from `{row['command']}`" if row["command"] else "", who, row["note"] or ""]
        if not row["applies"]:
            details.append(style("bad", "not applied: the policy no longer allows this width"))
        shown = "; ".join(part for part in details if part)
        if shown:
            lines.append(style("dim", f"  {' ' * len(row['id'])}  {shown}"))
    if rows:
        lines.append(style("dim", "Take one back: gateway remembered forget ID"))
    return "\n".join(lines)


def _run_remembered(arguments: argparse.Namespace) -> int:
    from gateway import GatewayError
    from gateway.cli import broker_of, load_tiers, run_on_broker
    from gateway_rules import MemoryFile, RulesOptions, memory_path, pick

    if arguments.action == "forget" and bool(arguments.ids) == bool(arguments.all):
        raise CommandError("Forget which? Give the ids `gateway remembered list` shows, or --all.")
    config = load_tiers(arguments).config
    try:
        options = msgspec.convert(
            {k: v for k, v in config.approver.get("rules", {}).items() if k != "rule"},
            RulesOptions,
        )
    except msgspec.ValidationError as error:
        raise CommandError(f"Invalid [approver.rules] options: {error}.") from None
    widths = tuple(options.remember)

    def chosen(approvals: list[Any]) -> list[Any]:
        if arguments.all:
            return list(approvals)
        try:
            return [pick(approvals, given) for given in arguments.ids]
        except ValueError as error:
            raise CommandError(str(error), status=1) from None

    section = broker_of(config, arguments.broker)
    if section is not None:
        store = section.url

        async def work(plugin: Any, broker: Any) -> list[Any]:
            shared = plugin.SharedApprovals(broker)
            approvals = [entry.approval for entry in await shared.entries()]
            if arguments.action == "list":
                return approvals
            gone = chosen(approvals)
            await shared.forget(gone)
            return gone

        approvals = run_on_broker(section, work)
    else:
        path = memory_path(options.memory)
        if path is None:
            raise CommandError(
                "The config keeps remembered approvals in memory only ([approver.rules] memory "
                '= ""): only the running service knows them, and they go when it stops.'
            )
        store = str(path)
        memory = MemoryFile(path)
        try:
            if arguments.action == "list":
                approvals = memory.load()
            else:
                gone: list[Any] = []

                def edit(items: list[Any]) -> list[Any]:
                    gone.extend(chosen(items))
                    taken = {item.id for item in gone}
                    return [item for item in items if item.id not in taken]

                memory.change(edit)
                approvals = gone
        except GatewayError as error:
            raise CommandError(str(error)) from None
    rows = [_row(approval, widths) for approval in approvals]
    if arguments.action == "forget":
        result: dict[str, Any] = {"store": store, "forgotten": rows}
        if wants_json(arguments):
            write_json(result)
        else:
            write_text(
                "\n".join(
                    [f"Forgot {len(rows)} in {store}:"]
                    + [f"  {row['id']}  {row['description']}" for row in rows]
                )
            )
        return 0
    result = {"store": store, "approvals": rows}
    if wants_json(arguments):
        write_json(result)
    else:
        write_text(_remembered_view(result, Style()))
    return 0


REMEMBERED = Subcommand(
    name="remembered",
    help="List the approvals people asked to remember, and forget them (`list`, `forget ID…|--all`).",
    configure=_configure_remembered,
    run=_run_remembered,
)
"""``gateway remembered``, contributed through the ``gateway.commands`` entry-point group."""
