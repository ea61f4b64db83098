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
from gateway._cli._view import (
    Style as Style,
    add_json_argument as add_json_argument,
    rules_test_view as rules_test_view,
    wants_json as wants_json,
    write_text as write_text,
)

__all__ = [
    "COMMAND_GROUP",
    "CommandError",
    "Style",
    "Subcommand",
    "add_json_argument",
    "decode_utf8",
    "read_source",
    "rules_test_view",
    "wants_json",
    "write_json",
    "write_text",
]
