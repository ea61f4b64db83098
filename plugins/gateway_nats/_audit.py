"""
The audit stream: every gateway event, published to JetStream in order, one hash chain per replica.

`JetStreamSink` is a sink (registered in ``gateway.sinks`` as ``nats``): each
event goes to ``<prefix>.audit.<replica>`` of the stream ``<PREFIX>_AUDIT``
as the same JSON a ``jsonl`` audit log holds, with the message id
``<replica>:<seq>``, and `JetStreamSink.write` returns only once JetStream
has acknowledged it — stored, and replicated when the stream is — so a
required stream sink holds back every verdict until its record is safe.

When the broker is away, `write` keeps trying the same event (the message
id makes a repeat harmless) and never skips one: the reviews waiting for
their records decline once the audit timeout passes ("no audit, no
action"), later events wait in order, and when the broker is back they are
published in order and the service decides again. The chain has no gap.

A replica's events form one chain (`gateway.events.verify_chain`), in order on its
subject, so the events of every call are in order; `read_stream` reads the
stream back and `verify_stream` checks every chain in it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, Final

import anyio
import msgspec
import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.js import JetStreamContext, api

from gateway.audit import ChainTip, ended_cleanly
from gateway.config import BrokerSection, SinkConfig
from gateway.events import GENESIS, ChainGenesis, Event, GatewayStarted, verify_chain
from gateway_nats._broker import BROKER_ERRORS, BrokerError, connect, ensure_stream, where_of
from gateway_nats._connect import Names, connect_options, replica_name

__all__ = ["ChainReport", "JetStreamSink", "StreamEvent", "read_stream", "verify_stream"]

_log = logging.getLogger("gateway_nats")

RETRY_WAIT: Final = (0.2, 0.5, 1.0, 2.0)
"""Seconds between attempts to publish an event the broker did not acknowledge (the last repeats)."""

_ENCODER: Final = msgspec.json.Encoder()
_DECODER: Final = msgspec.json.Decoder(Event)


class SinkOptions(BrokerSection, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    The ``nats`` sink's options: a ``[broker]`` table (``url`` and credentials, ``prefix``, ``replica``).
    """


class JetStreamSink:
    """
    Publishes every event to the fleet's audit stream and waits for JetStream's acknowledgement.

    Args:
        config: The sink's table; its ``options`` are a ``[broker]`` table
            (``gateway serve --broker`` fills them in from ``[broker]``).

    Raises:
        ValueError: The options are not a ``[broker]`` table with a URL.
    """

    # `write` retries an event until JetStream takes it and never skips one:
    # while the broker is away, verdicts waiting for their records decline,
    # and once it is back they are released again (`gateway.Sink`).
    catches_up = True

    def __init__(self, config: SinkConfig) -> None:
        try:
            self.section = msgspec.convert(config.options, SinkOptions)
        except msgspec.ValidationError as error:
            raise ValueError(f"invalid options of the nats sink: {error}") from None
        if not self.section.servers:
            raise ValueError("the nats sink needs `url` in its options (nats://HOST:PORT)")
        self.replica = replica_name(self.section)
        self.names = Names.of(self.section.prefix)
        self.subject = self.names.subject(self.replica)
        self._client: Client | None = None
        self._js: JetStreamContext | None = None
        self.acknowledged = 0
        self.retries = 0

    async def open(self) -> ChainTip | None:
        """Connect, make the stream if needed, and return the tip of this replica's chain in it."""
        options = connect_options(self.section, name=f"agent-gateway audit {self.replica}")
        try:
            self._client = await connect(self.section, options)
            self._js = self._client.jetstream(timeout=self.section.request_timeout)
            await ensure_stream(self._js, self.section)
            last = await self._js.get_last_msg(self.names.stream, self.subject)
        except nats.js.errors.NotFoundError:
            return None
        except BROKER_ERRORS as error:
            raise BrokerError(
                f"Cannot open the audit stream at {where_of(self.section)} ({type(error).__name__})."
            ) from None
        if last.data is None:
            return None
        try:
            event = _DECODER.decode(last.data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise BrokerError(
                f"The last event on {self.subject!r} is not a gateway event; this replica's chain cannot be continued."
            ) from None
        return ChainTip(seq=event.seq, digest=event.digest)

    async def write(self, event: Event) -> None:
        """Publish one event; return once JetStream acknowledged it (retrying while the broker is away)."""
        if self._js is None:
            raise RuntimeError("the sink is not open")
        payload = _ENCODER.encode(event)
        headers = {
            "Nats-Msg-Id": f"{self.replica}:{event.seq}",
            api.Header.EXPECTED_STREAM.value: self.names.stream,
        }
        attempt = 0
        while True:
            try:
                await self._js.publish(self.subject, payload, headers=dict(headers))
            except BROKER_ERRORS as error:
                self.retries += 1
                if attempt == 0:
                    _log.warning(
                        "The audit stream did not acknowledge event %d (%s); retrying until it does.",
                        event.seq,
                        type(error).__name__,
                    )
                await anyio.sleep(RETRY_WAIT[min(attempt, len(RETRY_WAIT) - 1)])
                attempt += 1
                continue
            self.acknowledged += 1
            return

    async def aclose(self) -> None:
        """Close the connection (events not acknowledged by now are not in the stream)."""
        client, self._client, self._js = self._client, None, None
        if client is not None:
            with (
                anyio.move_on_after(self.section.request_timeout),
                contextlib.suppress(*BROKER_ERRORS),
            ):
                await client.drain()
            with contextlib.suppress(*BROKER_ERRORS):
                await client.close()


class StreamEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One event as the stream holds it: where (subject, stream sequence) and what."""

    subject: str
    sequence: int
    event: Event


async def read_stream(js: JetStreamContext, section: BrokerSection) -> AsyncIterator[StreamEvent]:
    """
    Every event of the audit stream, in stream order.

    Raises:
        BrokerError: The stream cannot be read, or holds something that is not a gateway event.
    """
    names = Names.of(section.prefix)
    wait = section.request_timeout
    try:
        info = await js.stream_info(names.stream)
    except nats.js.errors.NotFoundError:
        raise BrokerError(
            f"There is no audit stream {names.stream!r} at {where_of(section)}."
        ) from None
    except BROKER_ERRORS as error:
        raise BrokerError(
            f"Cannot read the audit stream at {where_of(section)} ({type(error).__name__})."
        ) from None
    last = info.state.last_seq or 0
    if (info.state.messages or 0) == 0:
        return
    subscription: Any = None
    try:
        subscription = await js.subscribe(
            names.subjects,
            stream=names.stream,
            ordered_consumer=True,
            deliver_policy=api.DeliverPolicy.ALL,
        )
        while True:
            try:
                message = await subscription.next_msg(timeout=wait)
            except nats.errors.TimeoutError:
                raise BrokerError(
                    f"The audit stream stopped delivering events before its last one ({last})."
                ) from None
            sequence = message.metadata.sequence.stream
            try:
                event = _DECODER.decode(message.data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                raise BrokerError(
                    f"Message {sequence} of the audit stream is not a gateway event."
                ) from None
            yield StreamEvent(subject=message.subject, sequence=sequence, event=event)
            if sequence >= last:
                return
    except BROKER_ERRORS as error:
        raise BrokerError(
            f"Cannot read the audit stream at {where_of(section)} ({type(error).__name__})."
        ) from None
    finally:
        if subscription is not None:
            with anyio.CancelScope(shield=True), contextlib.suppress(*BROKER_ERRORS):
                await subscription.unsubscribe()


class ChainReport(msgspec.Struct, frozen=True, kw_only=True):
    """
    One replica's chain in the audit stream, checked.

    Attributes:
        replica: The replica (the last word of the subject).
        events: How many events it holds.
        first_seq: Its first event's sequence number.
        last_seq: Its last event's sequence number.
        intact: Digests, links and sequence numbers all hold.
        complete: It begins from the genesis digest (with ``chain.genesis``,
            or ``gateway.started``) and ends as its gateway closed it
            (``gateway.stopped``, or the final checkpoint after it); an
            incomplete but intact chain is one whose replica still runs, or
            stopped without closing.
        stopped: It ends as its gateway closed it.
        reason: Why it does not verify (``None`` when intact).
        index: Which of its events breaks it.
    """

    replica: str
    events: int
    first_seq: int
    last_seq: int
    intact: bool
    complete: bool
    stopped: bool
    reason: str | None = None
    index: int | None = None


def verify_stream(events: list[StreamEvent]) -> list[ChainReport]:
    """Split the stream's events into one chain per subject and verify each, in order of first appearance."""
    chains: dict[str, list[Event]] = {}
    for item in events:
        chains.setdefault(item.subject, []).append(item.event)
    reports: list[ChainReport] = []
    for subject, chain in chains.items():
        broken = verify_chain(chain)
        first, last = chain[0], chain[-1]
        # A chain begins with its genesis record (or, unsigned and older, the
        # first start) and ends, when its gateway closed it, with the stop
        # (or the final checkpoint after it).
        begun = isinstance(first, ChainGenesis | GatewayStarted) and first.previous == GENESIS
        stopped = ended_cleanly(last)
        reports.append(
            ChainReport(
                replica=subject.rsplit(".", 1)[-1],
                events=len(chain),
                first_seq=first.seq,
                last_seq=last.seq,
                intact=broken is None,
                complete=broken is None and begun and stopped,
                stopped=stopped,
                reason=None if broken is None else broken.reason,
                index=None if broken is None else broken.index,
            )
        )
    return reports
