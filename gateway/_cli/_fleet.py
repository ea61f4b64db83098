"""
What the fleet's subcommands share: the config from its tiers, the broker, and the plugin that reaches it.

The broker code lives in a plugin (``gateway_nats``, the ``nats`` extra),
found through the ``gateway.brokers`` entry-point group as a `BrokerPlugin`:
the core names no plugin. It is loaded only when a command is asked to use a
broker, so every other command starts without it, and a missing extra is
one sentence.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Final, TypeVar

import anyio
import msgspec

from gateway._calls._errors import GatewayError
from gateway._cli._common import CommandError, needs_extra
from gateway._settings._config import BrokerSection, GatewayConfig
from gateway._settings._plugins import BROKER_GROUP, BrokerPlugin as BrokerPlugin
from gateway._settings._tiers import EffectiveConfig, effective_config, find_tiers

__all__ = [
    "BROKER_PLUGIN",
    "BrokerPlugin",
    "add_broker_argument",
    "add_config_argument",
    "broker_of",
    "broker_plugin",
    "load_tiers",
    "run_on_broker",
    "sole_exception",
]

T = TypeVar("T")

BROKER_PLUGIN: Final = "nats"
"""The entry-point name, in ``gateway.brokers``, of the plugin that reaches a ``[broker]`` (NATS JetStream)."""


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    """``--config FILE``: the user tier's file."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the user tier's config (default: ~/.config/agent-gateway/config.toml if it exists, else the embedded default); the managed and project tiers apply too",
    )


def add_broker_argument(parser: argparse.ArgumentParser) -> None:
    """``--broker URL``: the fleet's NATS server (default: ``[broker] url``)."""
    parser.add_argument(
        "--broker",
        metavar="URL",
        help="the fleet's NATS server, nats://HOST:PORT (default: [broker] url of the config)",
    )


def load_tiers(arguments: argparse.Namespace, *, cwd: Path | None = None) -> EffectiveConfig:
    """The config the tiers add up to here (``--config`` is the user tier)."""
    try:
        return effective_config(
            find_tiers(config_path=getattr(arguments, "config", None), cwd=cwd or Path.cwd())
        )
    except GatewayError as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(
            f"Cannot read the embedded default config ({error.strerror}); pass --config FILE."
        ) from None


def broker_of(config: GatewayConfig, url: str | None) -> BrokerSection | None:
    """The ``[broker]`` table with ``--broker`` applied, or ``None`` when there is no broker."""
    section = config.broker
    if url:
        try:
            section = msgspec.structs.replace(section, url=url)
            section.__post_init__()
        except ValueError as error:
            raise CommandError(f"Invalid --broker {url[:100]!r}: {error}.") from None
    return section if section.servers else None


def broker_plugin() -> BrokerPlugin:
    """The plugin that reaches the broker (``gateway.brokers``), or one sentence saying how to install it."""
    found = [entry for entry in entry_points(group=BROKER_GROUP) if entry.name == BROKER_PLUGIN]
    try:
        plugin = found[0].load() if found else None
    except ImportError:
        plugin = None
    if plugin is None:
        raise CommandError(needs_extra("Using a broker", "nats")) from None
    if not isinstance(plugin, BrokerPlugin):
        raise CommandError(
            f"The {BROKER_GROUP} plugin {BROKER_PLUGIN!r} is not a broker plugin: "
            "it lacks members the commands use."
        )
    return plugin


def run_on_broker(section: BrokerSection, work: Callable[[BrokerPlugin, Any], Awaitable[T]]) -> T:
    """
    Open the broker, run ``work(plugin, broker)``, close it; errors become one sentence.

    Runs under asyncio (the NATS client is asyncio-only).
    """
    plugin = broker_plugin()

    async def main() -> T:
        async with plugin.open_broker(section) as broker:
            return await work(plugin, broker)

    try:
        try:
            return anyio.run(main, backend="asyncio")
        except BaseExceptionGroup as group:
            raise sole_exception(group) from None
    except (plugin.BrokerError, GatewayError) as error:
        raise CommandError(str(error)) from None


def sole_exception(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """
    The one exception a task group handed back wrapped in groups (the group itself when several failed).

    The broker's mirrors run in task groups, which wrap whatever ends them;
    a command reports the one thing that failed, as one sentence.
    """
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
