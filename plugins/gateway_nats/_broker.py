"""
The broker: one NATS connection, the fleet's JetStream buckets and audit stream, and this replica's heartbeat.

`open_broker` connects, makes the buckets and the stream when they do not
exist yet (or uses them as they are), and — for a replica of the approval
service — keeps a heartbeat in the replicas bucket, whose entries expire
``lease`` seconds after they were written: a replica whose heartbeat is gone
has stopped, and what it held may be picked up by another.

Every request is bounded by ``request-timeout``. The broker may go away at
any time; callers treat every `BrokerError` as "not done" and fail closed.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, Final

import anyio
import msgspec
import nats
import nats.errors
import nats.js.errors
from anyio.abc import TaskStatus
from nats.aio.client import Client
from nats.js import JetStreamContext, api
from nats.js.kv import KeyValue

from gateway.config import BrokerSection
from gateway_nats._connect import Names, connect_options, replica_name

__all__ = [
    "BROKER_ERRORS",
    "Broker",
    "BrokerError",
    "Heartbeat",
    "connect",
    "mirror",
    "open_broker",
    "where_of",
]

_log = logging.getLogger("gateway_nats")

BROKER_ERRORS: Final = (
    nats.errors.Error,
    nats.js.errors.Error,
    TimeoutError,
    ConnectionError,
    OSError,
)
"""What a request to a broker that is away, slow or refusing raises."""

POLICY_HISTORY: Final = 64
"""Versions of the managed configuration the policy bucket keeps."""

AUDIT_DUPLICATE_WINDOW: Final = 600.0
"""Seconds the audit stream recognises an event published twice (a retry after a lost answer)."""


class BrokerError(Exception):
    """The broker could not be reached or refused a request; the message is one sentence."""


class Heartbeat(msgspec.Struct, frozen=True, kw_only=True):
    """
    A replica's heartbeat, as stored in the replicas bucket.

    Attributes:
        replica: Its name.
        started: When it started (UTC).
        seen: When it last wrote this heartbeat (UTC).
        url: Where its page is, when it serves one.
    """

    replica: str
    started: str
    seen: str
    url: str | None = None


def where_of(section: BrokerSection) -> str:
    """The first server's URL without credentials, to name the broker in messages."""
    if not section.servers:
        return "(no url)"
    scheme, _, rest = section.servers[0].partition("://")
    return f"{scheme}://{rest.rpartition('@')[2]}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Broker:
    """
    A connected broker: the client, JetStream, the fleet's buckets and names.

    Attributes:
        section: The ``[broker]`` table it was opened with.
        replica: This process's replica name.
        names: The bucket and stream names.
        client: The NATS connection.
        js: Its JetStream context.
        calls: The bucket of waiting calls and decisions.
        tokens: The bucket of people's tokens.
        remembered: The bucket of remembered approvals.
        policy: The bucket of managed configuration versions.
        replicas: The bucket of heartbeats.
    """

    def __init__(
        self,
        section: BrokerSection,
        replica: str,
        client: Client,
        js: JetStreamContext,
        buckets: dict[str, KeyValue],
    ) -> None:
        self.section = section
        self.replica = replica
        self.names = Names.of(section.prefix)
        self.client = client
        self.js = js
        self.calls = buckets["calls"]
        self.tokens = buckets["tokens"]
        self.remembered = buckets["remembered"]
        self.policy = buckets["policy"]
        self.replicas = buckets["replicas"]
        self.started = _now()
        self.url: str | None = None

    @property
    def connected(self) -> bool:
        """Whether the connection is up right now."""
        return bool(self.client.is_connected)

    @property
    def where(self) -> str:
        """The broker's URL as configured, without credentials, for messages."""
        return where_of(self.section)

    async def alive(self, replica: str) -> bool:
        """
        Whether a replica's heartbeat is current (its entry has not expired).

        Raises:
            BrokerError: The broker cannot be asked.
        """
        if replica == self.replica:
            return True
        try:
            await self.replicas.get(f"r.{replica}")
        except nats.js.errors.KeyNotFoundError:
            return False
        except BROKER_ERRORS as error:
            raise BrokerError(self.unreachable(error)) from None
        return True

    async def beat(self) -> None:
        """Write this replica's heartbeat once."""
        beat = Heartbeat(replica=self.replica, started=self.started, seen=_now(), url=self.url)
        await self.replicas.put(f"r.{self.replica}", msgspec.json.encode(beat))

    async def heartbeat(self) -> None:
        """Write the heartbeat every third of the lease, until cancelled (failures are retried)."""
        while True:
            try:
                with anyio.fail_after(self.section.request_timeout):
                    await self.beat()
            except BROKER_ERRORS:
                _log.warning("The heartbeat could not be written; the broker is away.")
            await anyio.sleep(self.section.lease / 3)

    def require_connected(self) -> None:
        """
        Refuse to start a change while the connection is down.

        The client keeps what is published while it reconnects and sends it
        once it is back: a change asked for during an outage would be made
        later, after its caller was told it failed. So none is asked for.

        Raises:
            BrokerError: The connection is down right now.
        """
        if not self.connected:
            raise BrokerError(f"the broker at {self.where} cannot be reached")

    def unreachable(self, error: BaseException) -> str:
        """The clause saying the broker failed a request, naming it and the kind of failure."""
        if isinstance(error, BrokerError):
            return str(error)
        return f"the broker at {self.where} did not answer ({type(error).__name__})"


async def mirror(
    bucket: KeyValue,
    apply: Callable[[KeyValue.Entry], None],
    *,
    keys: str = ">",
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """
    Watch the keys of a bucket until cancelled, calling ``apply`` with each value and deletion.

    Starts with the latest value of every key, then reports once (through
    ``task_status``) that it holds what the bucket held, then follows every
    change. A watch that fails (the broker went away for long) is started
    again, from the latest values.
    """
    started = False
    while True:
        try:
            watcher = await bucket.watch(keys)
        except BROKER_ERRORS:
            await anyio.sleep(1.0)
            continue
        try:
            async for entry in watcher:
                if entry is None:
                    if not started:
                        started = True
                        task_status.started()
                    continue
                apply(entry)
        except BROKER_ERRORS:
            _log.warning("The watch of a bucket failed; watching again.")
        finally:
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(1.0),
                contextlib.suppress(*BROKER_ERRORS),
            ):
                await watcher.stop()  # type: ignore[no-untyped-call]  # nats-py leaves it unannotated
        await anyio.sleep(1.0)


async def _bucket(js: JetStreamContext, name: str, **settings: Any) -> KeyValue:
    try:
        return await js.key_value(name)
    except nats.js.errors.BucketNotFoundError:
        pass
    try:
        return await js.create_key_value(bucket=name, **settings)
    except nats.js.errors.BadRequestError:
        # Made by another replica in the meantime.
        return await js.key_value(name)


async def ensure_stream(js: JetStreamContext, section: BrokerSection) -> None:
    """Make the audit stream when it does not exist (an existing one is used as it is)."""
    names = Names.of(section.prefix)
    try:
        await js.stream_info(names.stream)
    except nats.js.errors.NotFoundError:
        pass
    else:
        return
    config = api.StreamConfig(
        name=names.stream,
        description="agent-gateway audit events, one hash chain per replica",
        subjects=[names.subjects],
        retention=api.RetentionPolicy.LIMITS,
        storage=api.StorageType.FILE,
        num_replicas=section.stream_replicas,
        max_age=section.audit_max_age or None,
        duplicate_window=AUDIT_DUPLICATE_WINDOW,
        discard=api.DiscardPolicy.OLD,
        # An audit trail nobody can edit through the API: no deleting or
        # purging of events (a limit of age, when set, still applies).
        deny_delete=True,
        deny_purge=True,
    )
    with contextlib.suppress(nats.js.errors.BadRequestError):
        await js.add_stream(config)


async def connect(section: BrokerSection, options: dict[str, Any]) -> Client:
    """
    Connect, within ``connect-timeout`` (the client alone would try for ever).

    Raises:
        TimeoutError: No server answered in time.
        nats.errors.Error: The servers refused (credentials, TLS).
    """
    with anyio.fail_after(section.connect_timeout):
        client: Client = await nats.connect(**options)
    return client


@asynccontextmanager
async def open_broker(
    section: BrokerSection, *, replica: str | None = None, heartbeat: bool = False
) -> AsyncIterator[Broker]:
    """
    Connect to the broker and make sure the fleet's buckets and stream exist.

    Args:
        section: The ``[broker]`` table.
        replica: This process's replica name (default: from the table, or made up).
        heartbeat: Keep a heartbeat in the replicas bucket while open (a
            replica of the approval service does; a command does not).

    Raises:
        ConfigError: The table is incomplete, or a credential file cannot be read.
        BrokerError: The broker cannot be reached at start, or refuses.
    """
    name = replica or replica_name(section)
    options = connect_options(section, name=f"agent-gateway {name}")
    where = where_of(section)
    try:
        client = await connect(section, options)
    except (*BROKER_ERRORS, ValueError) as error:
        raise BrokerError(
            f"Cannot reach the broker at {where} ({type(error).__name__}); check [broker] url and that nats-server runs with JetStream (-js)."
        ) from None
    try:
        js = client.jetstream(timeout=section.request_timeout)
        names = Names.of(section.prefix)
        replicas = section.stream_replicas
        try:
            buckets = {
                "calls": await _bucket(
                    js, names.calls, history=1, ttl=section.history_ttl, replicas=replicas
                ),
                "tokens": await _bucket(js, names.tokens, history=1, replicas=replicas),
                "remembered": await _bucket(js, names.remembered, history=1, replicas=replicas),
                "policy": await _bucket(
                    js, names.policy, history=POLICY_HISTORY, replicas=replicas
                ),
                "replicas": await _bucket(
                    js, names.replicas, history=1, ttl=section.lease, replicas=replicas
                ),
            }
            await ensure_stream(js, section)
        except BROKER_ERRORS as error:
            raise BrokerError(
                f"The broker at {where} refused to set up the fleet's JetStream buckets ({type(error).__name__}: {error}); is JetStream enabled (nats-server -js)?"
            ) from None
        broker = Broker(section, name, client, js, buckets)
        async with anyio.create_task_group() as group:
            if heartbeat:
                try:
                    with anyio.fail_after(section.request_timeout):
                        await broker.beat()
                except BROKER_ERRORS as error:
                    raise BrokerError(
                        f"Cannot write this replica's heartbeat ({broker.unreachable(error)})."
                    ) from None
                group.start_soon(broker.heartbeat)
            try:
                yield broker
            finally:
                group.cancel_scope.cancel()
                if heartbeat:
                    with (
                        anyio.CancelScope(shield=True),
                        anyio.move_on_after(section.request_timeout),
                        contextlib.suppress(*BROKER_ERRORS),
                    ):
                        await broker.replicas.delete(f"r.{name}")
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(section.request_timeout):
            with contextlib.suppress(*BROKER_ERRORS):
                await client.drain()
            with contextlib.suppress(*BROKER_ERRORS):
                await client.close()
