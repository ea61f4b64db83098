"""
Building a plugin from an entry point: one place for the steps and the sentences every kind shares.

A sink, a notifier (and whatever kind comes next) is named in the config by
its entry-point name; `build_plugin` finds it in its group, calls its
factory and checks that what it built is of the kind asked for, turning
each failure into a `PluginLoadError` that names the plugin, what it was
for, and what is installed.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from typing import Any, TypeVar

from gateway._errors import PluginLoadError

__all__ = ["build_plugin", "installed"]

T = TypeVar("T")


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
