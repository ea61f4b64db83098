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
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol, TypeVar, runtime_checkable

from gateway._calls._errors import PluginLoadError

if TYPE_CHECKING:
    from gateway._settings._config import BrokerSection, GatewayConfig

__all__ = [
    "APPROVER_GROUP",
    "BROKER_GROUP",
    "COMMAND_GROUP",
    "HOSTS_GROUP",
    "NOTIFIER_GROUP",
    "SEAMS",
    "SINK_GROUP",
    "WITNESS_GROUP",
    "BrokerPlugin",
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


@runtime_checkable
class BrokerPlugin(Protocol):
    """
    What the ``gateway.brokers`` entry point names: the module that reaches the fleet's broker.

    The commands that use a broker (``gateway serve --broker``, ``gateway
    verify --broker``, ``gateway policy``, ``gateway token``, ``gateway
    settings``) use only these members; the broker's own types (its
    connection, its stream events, its policy versions) stay the plugin's,
    and pass through the commands untouched.

    Attributes:
        BrokerError: What the plugin raises when the broker cannot do what
            was asked; a command reports it as one sentence.
        BrokerTokens: People's tokens kept in the broker (built from an
            open broker; a `gateway.fleet.TokenBook` store).
    """

    BrokerError: type[Exception]
    BrokerTokens: Callable[[Any], Any]

    def open_broker(self, section: BrokerSection) -> AbstractAsyncContextManager[Any]:
        """Connect to the broker of a ``[broker]`` table; leaving closes it."""
        ...

    def open_fleet(
        self, config: GatewayConfig, local: Sequence[Any] = ()
    ) -> AbstractAsyncContextManager[Any]:
        """Join the fleet as a replica of the approval service (``local``: its own tiers); leaving leaves it."""
        ...

    def read_stream(self, js: Any, section: BrokerSection) -> AsyncIterator[Any]:
        """Every event of the audit stream, in stream order."""
        ...

    def verify_stream(self, events: list[Any]) -> list[Any]:
        """One report per replica's hash chain of the events read."""
        ...

    async def publish_policy(self, broker: Any, data: bytes, *, by: str | None, source: str) -> Any:
        """Check and publish a new version of the managed policy; return it."""
        ...

    async def policy_history(self, broker: Any) -> list[Any]:
        """Every version of the managed policy the broker keeps, oldest first."""
        ...

    async def pinned_policy(self, broker: Any) -> Any:
        """The managed policy's version a replica must use at start (``None``: none published)."""
        ...


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
