"""
The plugin seams: every entry-point group through which a plugin extends the gateway, in one table.

A plugin is an ordinary package that names objects in its entry points; the
gateway's own approvers, sinks, subcommands and hosts are loaded exactly as a
third-party one is, and only those the config names (a subcommand or a host:
those installed). Each row of `SEAMS` is one group: its name, what an entry
point in it names, and the protocol that thing satisfies, by the one public
name it has (``gateway.Approver``, ``gateway.audit.Witness``…: a protocol
lives with what it serves; this namespace holds the groups).

Examples:
    >>> from gateway.plugins import SEAMS
    >>> [seam.group for seam in SEAMS]  # doctest: +NORMALIZE_WHITESPACE
    ['gateway.approvers', 'gateway.sinks', 'gateway.notifiers', 'gateway.witnesses',
     'gateway.commands', 'gateway.hosts', 'gateway.brokers']
"""

from gateway._settings._plugins import (
    APPROVER_GROUP as APPROVER_GROUP,
    BROKER_GROUP as BROKER_GROUP,
    COMMAND_GROUP as COMMAND_GROUP,
    HOSTS_GROUP as HOSTS_GROUP,
    NOTIFIER_GROUP as NOTIFIER_GROUP,
    SEAMS as SEAMS,
    SINK_GROUP as SINK_GROUP,
    WITNESS_GROUP as WITNESS_GROUP,
    Seam as Seam,
)

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
]
