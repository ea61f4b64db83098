"""
``gateway policy``: the managed policy a fleet shares, in the broker.

``publish FILE`` checks FILE as the managed tier (every key and rule valid,
every rule's examples passing, rules inline) and stores it as the next
version; every replica picks it up without a restart. ``show`` prints the
versions the broker keeps (number, digest, when, by whom), the latest last.
"""

from __future__ import annotations

import argparse
import getpass
from pathlib import Path
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

__all__: list[str] = []


def _configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    publish = actions.add_parser("publish", help="check FILE and publish it as the next version")
    publish.add_argument("file", metavar="FILE", help="a gateway config (TOML): the managed tier")
    publish.add_argument("--by", help="who publishes it (default: the user name)")
    show = actions.add_parser("show", help="the versions the broker keeps")
    for sub in (publish, show):
        add_config_argument(sub)
        add_broker_argument(sub)


def _version(version: Any) -> dict[str, Any]:
    return {
        "version": version.revision,
        "label": version.label,
        "sha256": version.sha256,
        "published": version.published,
        "by": version.by,
    }


def _run(arguments: argparse.Namespace) -> int:
    config = load_tiers(arguments).config
    section = broker_of(config, arguments.broker)
    if section is None:
        raise CommandError(
            "The managed policy lives in a broker; pass --broker nats://HOST:PORT or set [broker] url."
        )
    if arguments.action == "publish":
        path = Path(arguments.file)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(f"Cannot read {arguments.file!r}: {error.strerror}.") from None
        by = arguments.by or getpass.getuser()

        async def publish(plugin: BrokerPlugin, broker: Any) -> Any:
            return await plugin.publish_policy(broker, data, by=by, source=str(path))

        write_json(_version(run_on_broker(section, publish)))
        return 0

    async def show(plugin: BrokerPlugin, broker: Any) -> Any:
        return await plugin.policy_history(broker)

    history = run_on_broker(section, show)
    write_json({"broker": section.url, "versions": [_version(v) for v in history]})
    return 0


COMMAND = Subcommand(
    name="policy",
    help="Publish the managed policy a fleet shares, and list its versions.",
    configure=_configure,
    run=_run,
)
