"""
One replica of a fleet: everything ``gateway serve --broker`` runs beside the approval service.

`open_fleet` opens the broker (with a heartbeat), takes the managed
policy's version (pinned or latest) into the config, and runs the mirrors
every replica keeps: the board of waiting calls, the tokens, the remembered
approvals and the managed policy. It hands back the config to serve with
(the audit stream added as a required sink) and what to give the service:
the board (as the ``human`` approver's board) and the token book.
`Fleet.bind` connects the mirrors to the gateway's rules approver once the
gateway is open.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final

import anyio
import msgspec
from gateway_human import SERVICE_KEY

from gateway import Gateway, GatewayConfig
from gateway.config import SinkConfig
from gateway.fleet import Tier, TokenBook, effective_config
from gateway_nats._board import JetStreamBoard
from gateway_nats._broker import Broker, open_broker
from gateway_nats._policy import ManagedPolicy, pinned_policy
from gateway_nats._remembered import SharedApprovals
from gateway_nats._tokens import BrokerTokens

__all__ = ["FLEET_EVENT_BUFFER", "STREAM_SINK", "Fleet", "fleet_config", "open_fleet"]

STREAM_SINK: Final = "stream"
"""The name of the audit stream's sink in a replica's config."""

FLEET_EVENT_BUFFER: Final = 65_536
"""
Events a replica holds, in order, while the audit stream does not acknowledge them.

A broker that is away does not acknowledge events; they wait in memory, in
order, and reach the stream when it is back (every review in the meantime
is declined, for want of its audit record). The default ``event-buffer``
(256) would fill after a few dozen reviews and fail the stream's sink for
good, so with a broker it is raised to at least this many.
"""


class Fleet(msgspec.Struct, frozen=True, kw_only=True):
    """
    A running replica's shared parts.

    Attributes:
        broker: The open broker.
        config: The config to serve with (managed version in, audit stream added).
        board: The board every replica shares.
        tokens: The token book, equal to the broker's tokens bucket.
        approvals: The shared remembered approvals.
        policy: The managed policy's watcher.
    """

    broker: Broker
    config: GatewayConfig
    board: JetStreamBoard
    tokens: TokenBook
    approvals: SharedApprovals
    policy: ManagedPolicy

    @property
    def services(self) -> dict[str, Any]:
        """What to put in the gateway's services before it starts (the board)."""
        return {SERVICE_KEY: self.board}

    def bind(self, gateway: Gateway, url: str | None = None) -> None:
        """Give the gateway's rules approver the shared approvals and the managed policy."""
        rules = gateway.services.get("rules")
        self.approvals.use(rules)
        self.policy.use(rules)
        self.broker.url = url


def fleet_config(config: GatewayConfig, replica: str) -> GatewayConfig:
    """``config`` with the audit stream as a required sink and room to outlast a broker outage."""
    section = msgspec.structs.replace(config.broker, replica=replica)
    sinks = dict(config.sinks)
    sinks[STREAM_SINK] = SinkConfig(
        plugin="nats", required=True, options=msgspec.to_builtins(section)
    )
    gateway = config.gateway
    if gateway.event_buffer < FLEET_EVENT_BUFFER:
        gateway = msgspec.structs.replace(gateway, event_buffer=FLEET_EVENT_BUFFER)
    return msgspec.structs.replace(config, sinks=sinks, gateway=gateway, broker=section)


@asynccontextmanager
async def open_fleet(
    config: GatewayConfig, local: Sequence[Tier] = (), *, replica: str | None = None
) -> AsyncIterator[Fleet]:
    """
    Join the fleet: open the broker and start every mirror; leave it on exit.

    Args:
        config: The config from this replica's own tiers (its ``[broker]`` table is used).
        local: Those tiers, combined with every managed version as it is published.
        replica: The replica's name (default: ``[broker] replica``, or made up).

    Raises:
        ConfigError: The ``[broker]`` table is incomplete, or the managed
            version combined with the local tiers is not a valid config.
        BrokerError: The broker cannot be reached, or the pinned policy is missing.
    """
    async with open_broker(config.broker, replica=replica, heartbeat=True) as broker:
        version = await pinned_policy(broker)
        if version is not None and local:
            combined = effective_config([version.tier(broker.where), *local]).config
            config = msgspec.structs.replace(combined, broker=config.broker)
        config = fleet_config(config, broker.replica)
        approvals = SharedApprovals(broker)
        board = JetStreamBoard(
            broker,
            history=config.serve.history,
            max_pending=config.serve.max_pending,
            approvals=approvals,
        )
        book = TokenBook()
        policy = ManagedPolicy(broker, local, version)
        async with anyio.create_task_group() as group:
            await group.start(board.run)
            await group.start(approvals.run)
            await group.start(BrokerTokens(broker).run, book)
            await group.start(policy.run)
            try:
                yield Fleet(
                    broker=broker,
                    config=config,
                    board=board,
                    tokens=book,
                    approvals=approvals,
                    policy=policy,
                )
            finally:
                group.cancel_scope.cancel()
