"""
The ``gateway`` command's seam for plugins: what a plugin hands the ``gateway.commands`` group.

A plugin adds a subcommand by naming a `Subcommand` in its entry points::

    [project.entry-points."gateway.commands"]
    serve = "gateway_web._command:SERVE"

The entry point's name is the subcommand's. The core command names no plugin:
``serve``, ``rules``, ``hook``, ``install``, ``uninstall`` and ``doctor`` all
arrive this way, as a third-party subcommand would.

A subcommand finds here what the core's own subcommands share: reading
input and writing JSON or text; the config its tiers add up to
(`add_config_argument`, `load_tiers`); the fleet's broker (`add_broker_argument`,
`broker_of`, and `broker_plugin`, the `BrokerPlugin` the ``gateway.brokers``
entry point names); OTLP export set up from ``[telemetry]``
(`open_exporters`); and the sentence for a feature whose extra is not
installed (`needs_extra`).
"""

from gateway._cli._common import (
    CommandError as CommandError,
    Subcommand as Subcommand,
    decode_utf8 as decode_utf8,
    needs_extra as needs_extra,
    read_source as read_source,
    write_json as write_json,
)
from gateway._cli._fleet import (
    BROKER_PLUGIN as BROKER_PLUGIN,
    BrokerPlugin as BrokerPlugin,
    add_broker_argument as add_broker_argument,
    add_config_argument as add_config_argument,
    broker_of as broker_of,
    broker_plugin as broker_plugin,
    load_tiers as load_tiers,
    run_on_broker as run_on_broker,
    sole_exception as sole_exception,
)
from gateway._cli._otlp import Exporters as Exporters, open_exporters as open_exporters
from gateway._cli._view import (
    Style as Style,
    add_json_argument as add_json_argument,
    rules_test_view as rules_test_view,
    wants_json as wants_json,
    write_text as write_text,
)

__all__ = [
    "BROKER_PLUGIN",
    "BrokerPlugin",
    "CommandError",
    "Exporters",
    "Style",
    "Subcommand",
    "add_broker_argument",
    "add_config_argument",
    "add_json_argument",
    "broker_of",
    "broker_plugin",
    "decode_utf8",
    "load_tiers",
    "needs_extra",
    "open_exporters",
    "read_source",
    "rules_test_view",
    "run_on_broker",
    "sole_exception",
    "wants_json",
    "write_json",
    "write_text",
]
