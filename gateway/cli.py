"""
The ``gateway`` command's seam for plugins: what a plugin hands the ``gateway.commands`` group.

A plugin adds a subcommand by naming a `Subcommand` in its entry points::

    [project.entry-points."gateway.commands"]
    serve = "gateway_web._command:SERVE"

The entry point's name is the subcommand's. The core command names no plugin:
``serve``, ``rules``, ``hook``, ``install``, ``uninstall`` and ``doctor`` all
arrive this way, as a third-party subcommand would.
"""

from gateway._cli._common import (
    COMMAND_GROUP as COMMAND_GROUP,
    CommandError as CommandError,
    Subcommand as Subcommand,
    decode_utf8 as decode_utf8,
    read_source as read_source,
    write_json as write_json,
)

__all__ = [
    "COMMAND_GROUP",
    "CommandError",
    "Subcommand",
    "decode_utf8",
    "read_source",
    "write_json",
]
