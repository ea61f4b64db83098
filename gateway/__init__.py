"""
agent-gateway: decide, before anything runs, whether an agent's proposed tool call may run.

The public surface. The root holds what it takes to review calls with a
`Gateway` and to write an approver for it: the gateway and what it is given
(`ToolCall`, a `GatewayConfig` from `load_config` or `default_config`, the
`Approver` and `Sink` protocols) and gives back (a `Verdict`, its `Decision`,
`GatewayStatistics`); what an approver receives (`ReviewRequest`,
`ApproverContext`, `EarlierAnswer`) and answers (`Answer`: `Allow`, `Decline`
or `Abstain`; `strictest` and its order); and the `GatewayError` family these
raise. Every other public name lives in exactly one namespace:

* `gateway.plans`: what shell text would run (`plan_program`, the plan types, heredoc fragments);
* `gateway.shell`: the syntax both parsers agree on, program positions, launchers;
* `gateway.effects`: what a call does, as data, and the option tables of a config's own programs;
* `gateway.events`: the events a gateway publishes, their hash chain, trace context;
* `gateway.audit`: the audit log's formats, checking it, keys and witnesses;
* `gateway.config`: the configuration's sections and the files it names;
* `gateway.confinement`: the boundary ``gateway run`` builds, and where a path lies in it;
* `gateway.git`: what code a repository's configuration and hooks make git run;
* `gateway.fleet`: tokens, configuration tiers and notifiers, for a team;
* `gateway.bounded`: pure work on agent text in worker processes, under a deadline;
* `gateway.plugins`: the entry-point groups plugins extend the gateway through;
* `gateway.cli`: what a plugin's subcommand of ``gateway`` shares with the core's;
* `gateway.text`: text inside a sentence, the way the gateway writes it;
* `gateway.testing`: helpers for tests (a static approver, a sink in memory).

Modules with a leading underscore are internal.

Examples:
    >>> from gateway import DECISION_ORDER, strictest
    >>> DECISION_ORDER
    ('allow', 'ask', 'decline')
    >>> strictest(["allow", "ask", "allow"])
    'ask'
"""

from gateway._approvers import (
    Approver as Approver,
    ApproverContext as ApproverContext,
    EarlierAnswer as EarlierAnswer,
    ReviewRequest as ReviewRequest,
)
from gateway._calls._calls import ToolCall as ToolCall
from gateway._calls._errors import (
    AuditLogError as AuditLogError,
    ConfigError as ConfigError,
    GatewayError as GatewayError,
    PluginError as PluginError,
    PluginLoadError as PluginLoadError,
    SinkFailure as SinkFailure,
)
from gateway._calls._verdicts import (
    DECISION_ORDER as DECISION_ORDER,
    DECISION_VERBS as DECISION_VERBS,
    Abstain as Abstain,
    Allow as Allow,
    Answer as Answer,
    Decision as Decision,
    Decline as Decline,
    Verdict as Verdict,
    strictest as strictest,
    strictness as strictness,
)
from gateway._calls._version import VERSION as _VERSION
from gateway._gateway import Gateway as Gateway, GatewayStatistics as GatewayStatistics
from gateway._record._sinks import Sink as Sink
from gateway._settings._config import (
    GatewayConfig as GatewayConfig,
    default_config as default_config,
    load_config as load_config,
)

__version__ = _VERSION
"""The installed version, from the distribution's metadata (``pyproject.toml`` states it once)."""

__all__ = [
    "DECISION_ORDER",
    "DECISION_VERBS",
    "Abstain",
    "Allow",
    "Answer",
    "Approver",
    "ApproverContext",
    "AuditLogError",
    "ConfigError",
    "Decision",
    "Decline",
    "EarlierAnswer",
    "Gateway",
    "GatewayConfig",
    "GatewayError",
    "GatewayStatistics",
    "PluginError",
    "PluginLoadError",
    "ReviewRequest",
    "Sink",
    "SinkFailure",
    "ToolCall",
    "Verdict",
    "default_config",
    "load_config",
    "strictest",
    "strictness",
]
