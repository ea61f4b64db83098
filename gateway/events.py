"""
Events: what the gateway tells its sinks, one record per thing it did, in a hash chain.

A namespace of the public API (like ``trio.lowlevel``): the event types a sink
writes and an auditor reads (`Event` is their union, tagged by an ``event``
field such as ``call.proposed``), `verify_chain` and `GENESIS` for the chain
they form, and
`trace_context`, which makes the reviews a block starts children of a caller's
trace. Reading and checking a log on disk is `gateway.audit`'s.

Examples:
    >>> from gateway.events import GENESIS, verify_chain
    >>> verify_chain([]) is None
    True
    >>> GENESIS.startswith("sha256:")
    True
"""

from gateway._calls._events import (
    GENESIS as GENESIS,
    ApproverDecided as ApproverDecided,
    ApproverFailed as ApproverFailed,
    CallOutcome as CallOutcome,
    CallProposed as CallProposed,
    ChainBreak as ChainBreak,
    ChainCheckpoint as ChainCheckpoint,
    ChainGenesis as ChainGenesis,
    Event as Event,
    GatewayStarted as GatewayStarted,
    GatewayStopped as GatewayStopped,
    HoleAnswered as HoleAnswered,
    HoleQuestion as HoleQuestion,
    HoleRef as HoleRef,
    HostDecided as HostDecided,
    LogRecovered as LogRecovered,
    PlanReady as PlanReady,
    RunChanged as RunChanged,
    SinkFailed as SinkFailed,
    VerdictReached as VerdictReached,
    VerdictWithdrawn as VerdictWithdrawn,
    WitnessFailed as WitnessFailed,
    verify_chain as verify_chain,
)
from gateway._observe._telemetry import trace_context as trace_context

__all__ = [
    "GENESIS",
    "ApproverDecided",
    "ApproverFailed",
    "CallOutcome",
    "CallProposed",
    "ChainBreak",
    "ChainCheckpoint",
    "ChainGenesis",
    "Event",
    "GatewayStarted",
    "GatewayStopped",
    "HoleAnswered",
    "HoleQuestion",
    "HoleRef",
    "HostDecided",
    "LogRecovered",
    "PlanReady",
    "RunChanged",
    "SinkFailed",
    "VerdictReached",
    "VerdictWithdrawn",
    "WitnessFailed",
    "trace_context",
    "verify_chain",
]
