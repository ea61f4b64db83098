"""
Building a plugin from an entry point: the groups' names and the steps every kind shares.

The entry-point groups through which plugins extend the gateway are named
here, once; the modules that load each kind import their group from here,
and `gateway.plugins` lists them with their protocols for plugin authors.

A sink, a notifier (and whatever kind comes next) is named in the config by
its entry-point name; `build_plugin` finds it in its group, calls its
factory and checks that what it built is of the kind asked for, turning
each failure into a `PluginLoadError` that names the plugin, what it was
for, and what is installed.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from typing import Any, Final, NamedTuple, TypeVar

from gateway._errors import PluginLoadError

__all__ = [
    "APPROVER_GROUP",
    "BROKER_GROUP",
    "COMMAND_GROUP",
    "HOSTS_GROUP",
    "NOTIFIER_GROUP",
    "SEAMS",
    "SINK_GROUP",
    "WITNESS_GROUP",
    "Seam",
    "build_plugin",
    "installed",
]

APPROVER_GROUP: Final = "gateway.approvers"
"""Approvers: each entry point names a factory ``(options, context) -> Approver``."""

SINK_GROUP: Final = "gateway.sinks"
"""Sinks of the event stream: each entry point names a factory ``(config) -> Sink``."""

NOTIFIER_GROUP: Final = "gateway.notifiers"
"""Notifiers: each entry point names a factory ``(name, config) -> Notifier``."""

WITNESS_GROUP: Final = "gateway.witnesses"
"""Witnesses of the audit log's chain: each entry point names a factory ``(config) -> Witness``."""

COMMAND_GROUP: Final = "gateway.commands"
"""Subcommands of ``gateway`` (``serve``, ``rules``, ``hook``…): each entry point names a `Subcommand`."""

HOSTS_GROUP: Final = "gateway.hosts"
"""Agent hosts that run a hook command per tool call: each entry point names a ``gateway_hooks.HookHost``."""

BROKER_GROUP: Final = "gateway.brokers"
"""The fleet's broker (``[broker]``): the entry point ``nats`` names a module that is a `BrokerPlugin`."""

T = TypeVar("T")


class Seam(NamedTuple):
    """
    One entry-point group.

    Attributes:
        group: The entry-point group's name.
        names: What an entry point in the group names.
        protocol: The public name of the protocol what it names (or builds) satisfies.
        chosen_by: Which of the installed ones are used.
    """

    group: str
    names: str
    protocol: str
    chosen_by: str


SEAMS: Final[tuple[Seam, ...]] = (
    Seam(
        APPROVER_GROUP,
        "a factory called as factory(options, context), options its [approver.NAME] table",
        "gateway.Approver",
        "[gateway] approvers, in order",
    ),
    Seam(
        SINK_GROUP,
        "a factory called as factory(config), config its [sinks.NAME] table",
        "gateway.Sink",
        "[sinks.NAME] plugin",
    ),
    Seam(
        NOTIFIER_GROUP,
        "a factory called as factory(name, config), config its [notifiers.NAME] table",
        "gateway.fleet.Notifier",
        "[notifiers.NAME] plugin",
    ),
    Seam(
        WITNESS_GROUP,
        "a factory called as factory(config), config its [witnesses.NAME] table",
        "gateway.audit.Witness",
        "[witnesses.NAME] plugin",
    ),
    Seam(
        COMMAND_GROUP,
        "a Subcommand; the entry point's name is the subcommand's",
        "gateway.cli.Subcommand",
        "every one installed",
    ),
    Seam(
        HOSTS_GROUP,
        "a host whose hook runs once per tool call",
        "gateway_hooks.HookHost",
        "every one installed (gateway install HOST)",
    ),
    Seam(
        BROKER_GROUP,
        "a module that reaches the fleet's broker",
        "gateway.cli.BrokerPlugin",
        "the one named nats, when [broker] url is set",
    ),
)
"""The entry-point groups, in the order a review meets them (commands, hosts and the broker last)."""


def installed(group: str) -> dict[str, importlib.metadata.EntryPoint]:
    """The plugins installed in an entry-point group, by name."""
    return {entry.name: entry for entry in importlib.metadata.entry_points(group=group)}


def build_plugin(
    group: str,
    plugin: str,
    *,
    kind: str,
    name: str,
    build: Callable[[Any], T],
    check: type[Any],
) -> T:
    """
    Build the ``kind`` named ``name`` from the plugin ``plugin`` of ``group``.

    Args:
        group: The entry-point group (``gateway.sinks``).
        plugin: The plugin's entry-point name, as the config gives it.
        kind: What it is, for messages (``sink``).
        name: The config's name for this one (``[sinks.NAME]``).
        build: Calls the loaded factory with what the kind's factories take.
        check: The protocol (runtime-checkable) what is built must satisfy.

    Raises:
        PluginLoadError: It is not installed, its factory failed, or it built
            something that is not a ``kind``.
    """
    available = installed(group)
    entry = available.get(plugin)
    if entry is None:
        names = ", ".join(repr(n) for n in sorted(available)) or "none"
        raise PluginLoadError(
            f"No {kind} plugin named {plugin!r} is installed (for {kind} {name!r}); installed: {names}.",
            plugin=plugin,
        )
    try:
        built = build(entry.load())
    except Exception as error:
        raise PluginLoadError(
            f"The {kind} plugin {plugin!r} could not be built for {kind} {name!r}: {error}",
            plugin=plugin,
        ) from error
    if not isinstance(built, check):
        raise PluginLoadError(
            f"The {kind} plugin {plugin!r} did not build a {kind}.", plugin=plugin
        )
    return built
