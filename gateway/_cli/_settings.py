"""
``gateway config show``: the config the tiers add up to here, and where each part came from.

Prints the managed, user and project tiers that apply (their sources and
digests), the effective config, and for every key the tier it came from —
or "strictest of …" where tiers disagreed on a key only the strictest value
of counts, and what was dropped or ignored from an untrusted project. With
a broker (``--broker``, or ``[broker] url`` in the tiers), the managed
version the broker holds is a tier too.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import msgspec

from gateway._calls._errors import GatewayError
from gateway._cli._common import CommandError, Subcommand, write_json
from gateway._cli._fleet import (
    BrokerPlugin,
    add_broker_argument,
    add_config_argument,
    broker_of,
    load_tiers,
    run_on_broker,
)
from gateway._settings._tiers import effective_config, find_tiers

__all__: list[str] = []


def _configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="the effective config and where each part came from")
    add_config_argument(show)
    add_broker_argument(show)
    show.add_argument(
        "--cwd",
        metavar="DIR",
        help="look for the project's .agent-gateway.toml from DIR up (default: here)",
    )


def _run(arguments: argparse.Namespace) -> int:
    cwd = Path(arguments.cwd) if arguments.cwd else Path.cwd()
    effective = load_tiers(arguments, cwd=cwd)
    section = broker_of(effective.config, arguments.broker)
    if section is not None:

        async def managed(plugin: BrokerPlugin, broker: Any) -> Any:
            version = await plugin.pinned_policy(broker)
            return None if version is None else version.tier(broker.where)

        tier = run_on_broker(section, managed)
        if tier is not None:
            try:
                effective = effective_config(
                    find_tiers(config_path=arguments.config, cwd=cwd, managed=[tier])
                )
            except GatewayError as error:
                raise CommandError(str(error)) from None
    write_json(
        {
            "tiers": [
                {"tier": tier.tier, "source": tier.source, "sha256": tier.sha256}
                for tier in effective.tiers
            ],
            "config": msgspec.to_builtins(effective.config),
            "sources": dict(sorted(effective.provenance.items())),
        }
    )
    return 0


COMMAND = Subcommand(
    name="config",
    help="Show the effective config (managed, user and project tiers; strictest wins) and where each part came from.",
    configure=_configure,
    run=_run,
)
