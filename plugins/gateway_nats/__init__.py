"""
The fleet on NATS JetStream: one queue of waiting calls, one audit stream, shared tokens and policy.

Installed with the ``nats`` extra (``nats-py``); the gateway's core never
imports it. ``gateway serve --broker nats://HOST:PORT`` (or ``[broker] url``)
runs a replica of the approval service on it, and any number of replicas
share, through JetStream:

* the calls that wait for a person (`JetStreamBoard`, the calls bucket):
  every replica shows every waiting call, and a decision on any replica —
  consume-once, a compare-and-set bound to the plan digest — releases the
  review waiting on another;
* the audit stream (`JetStreamSink`, registered in ``gateway.sinks`` as
  ``nats``): every event of every replica, in order, one hash chain per
  replica (`read_stream`, `verify_stream`: ``gateway verify --broker``);
* people's tokens (`BrokerTokens`), remembered approvals
  (`SharedApprovals`) and the managed policy (`ManagedPolicy`, versioned
  and hash-pinned, picked up without a restart).

Everything here runs under asyncio (``nats-py`` is asyncio-only), as
``gateway serve`` does. Every request to the broker is bounded; a broker
that is away makes what needs it fail closed, and the fleet recovers when
it is back.
"""

from __future__ import annotations

from gateway_nats._audit import (
    ChainReport,
    JetStreamSink,
    StreamEvent,
    read_stream,
    verify_stream,
)
from gateway_nats._board import BoardEntry, JetStreamBoard, key_of
from gateway_nats._broker import BROKER_ERRORS, Broker, BrokerError, Heartbeat, open_broker
from gateway_nats._connect import Names, connect_options, replica_name
from gateway_nats._fleet import FLEET_EVENT_BUFFER, STREAM_SINK, Fleet, fleet_config, open_fleet
from gateway_nats._policy import (
    MANAGED_KEY,
    ManagedPolicy,
    PolicyState,
    PolicyVersion,
    check_policy,
    latest_policy,
    pinned_policy,
    policy_history,
    publish_policy,
)
from gateway_nats._remembered import SharedApproval, SharedApprovals
from gateway_nats._tokens import BrokerTokens

__all__ = [
    "BROKER_ERRORS",
    "FLEET_EVENT_BUFFER",
    "MANAGED_KEY",
    "STREAM_SINK",
    "BoardEntry",
    "Broker",
    "BrokerError",
    "BrokerTokens",
    "ChainReport",
    "Fleet",
    "Heartbeat",
    "JetStreamBoard",
    "JetStreamSink",
    "ManagedPolicy",
    "Names",
    "PolicyState",
    "PolicyVersion",
    "SharedApproval",
    "SharedApprovals",
    "StreamEvent",
    "check_policy",
    "connect_options",
    "fleet_config",
    "key_of",
    "latest_policy",
    "open_broker",
    "open_fleet",
    "pinned_policy",
    "policy_history",
    "publish_policy",
    "read_stream",
    "replica_name",
    "verify_stream",
]
