"""
``gateway token``: people's tokens for the approval service, each with a role.

``create NAME --role approver|viewer|agent`` prints the new token once (only
its digest is stored); ``revoke NAME`` removes it; ``list`` shows who has
one. Without a broker the store is ``tokens.json`` in the state directory
(what ``gateway serve`` on this machine reads, within a second); with
``--broker`` (or ``[broker] url``) it is the fleet's tokens bucket, which
every replica follows.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gateway._cli._common import CommandError, Subcommand, write_json
from gateway._cli._fleet import (
    BrokerPlugin,
    add_broker_argument,
    add_config_argument,
    broker_of,
    load_tiers,
    run_on_broker,
)
from gateway._settings._tokens import ROLES, TokenError, TokenFile, default_tokens_file

__all__: list[str] = []


def _configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="make a token for NAME and print it once")
    create.add_argument("name", metavar="NAME", help="who it is for (lowercase, digits, . _ -)")
    create.add_argument(
        "--role",
        choices=ROLES,
        default="approver",
        help="approver: decides, reads, reviews; viewer: reads; agent: submits calls (default: approver)",
    )
    revoke = actions.add_parser("revoke", help="remove NAME's token, on every replica")
    revoke.add_argument("name", metavar="NAME")
    actions.add_parser("list", help="who has a token, and their roles")
    for sub in (create, revoke, actions.choices["list"]):
        add_config_argument(sub)
        add_broker_argument(sub)
        sub.add_argument(
            "--tokens-file",
            metavar="FILE",
            help="the store without a broker (default: ~/.local/state/agent-gateway/tokens.json)",
        )


def _broker_action(arguments: argparse.Namespace, section: Any) -> Any:
    async def work(plugin: BrokerPlugin, broker: Any) -> Any:
        store = plugin.BrokerTokens(broker)
        if arguments.action == "create":
            return await store.create(arguments.name, arguments.role)
        if arguments.action == "revoke":
            return await store.revoke(arguments.name)
        return await store.records()

    return run_on_broker(section, work)


def _run(arguments: argparse.Namespace) -> int:
    config = load_tiers(arguments).config
    section = broker_of(config, arguments.broker)
    where = section.url if section is not None else None
    try:
        if section is not None:
            result = _broker_action(arguments, section)
        else:
            store = TokenFile(arguments.tokens_file or default_tokens_file())
            where = str(store.path)
            if arguments.action == "create":
                result = store.create(arguments.name, arguments.role)
            elif arguments.action == "revoke":
                result = store.revoke(arguments.name)
            else:
                result = store.records()
    except TokenError as error:
        raise CommandError(str(error)) from None
    if arguments.action == "create":
        write_json(
            {"name": arguments.name, "role": arguments.role, "token": result, "store": where}
        )
        sys.stderr.write(
            f"gateway token: the token for {arguments.name!r} is shown only now; only its digest is stored.\n"
        )
        return 0
    if arguments.action == "revoke":
        write_json({"name": arguments.name, "revoked": bool(result), "store": where})
        if not result:
            sys.stderr.write(f"gateway token: there is no token named {arguments.name!r}.\n")
            return 1
        return 0
    write_json(
        {
            "store": where,
            "tokens": [
                {"name": record.name, "role": record.role, "created": record.created}
                for record in result
            ],
        }
    )
    return 0


COMMAND = Subcommand(
    name="token",
    help="Make, revoke and list people's tokens for the approval service (roles: approver, viewer, agent).",
    configure=_configure,
    run=_run,
)
