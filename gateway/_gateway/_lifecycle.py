"""
A gateway's lifecycle: what it builds, opens and starts, and how it drains and closes.

`Lifecycle.opened` builds the approver chain, the sinks and the witnesses
(given, or loaded from the configuration), opens the sinks — a sink that may
block on a loop of its own — and starts the event bus where the required
sinks' chain left off. It publishes ``gateway.started`` (after a genesis
record when no log continues), and on the way out lets the witnesses finish
what they were handed, publishes ``gateway.stopped`` with the last
checkpoint, and closes every plugin and worker: bounded, and never hiding
the error that ended the gateway.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from functools import partial
from typing import Any, TypeVar, cast

import anyio
from anyio.abc import ObjectReceiveStream

from gateway._approvers import (
    Approver,
    ApproverChain,
    ApproverContext,
    load_approver,
    resolve_approver,
)
from gateway._calls._digest import digest_of
from gateway._calls._effects import PLAN_FORMAT
from gateway._calls._events import (
    GENESIS,
    ChainCheckpoint,
    ChainGenesis,
    GatewayStarted,
    GatewayStopped,
    LogRecovered,
    WitnessFailed,
)
from gateway._calls._text import shorten
from gateway._calls._version import VERSION
from gateway._gateway._parts import Parts
from gateway._record._bus import EventBus
from gateway._record._signing import ensure_key, load_signer
from gateway._record._sinks import ChainTip, Sink, SinkSlot, load_sink, resolve_sink
from gateway._record._witness import Witness, load_witness
from gateway._work._isolation import LoopThread, call_isolated

__all__ = ["Lifecycle"]

T = TypeVar("T")


async def _on_loop_of(thread: LoopThread | None, function: Callable[[], Awaitable[T]]) -> T:
    """Await ``function()`` on ``thread``'s loop (or here, without one); what it raises is raised."""
    if thread is None:
        return await function()
    outcome = await call_isolated(thread, function)
    if outcome.error is not None:
        raise outcome.error
    return cast("T", outcome.value)


class Lifecycle:
    """
    The opening and closing of one gateway, and the plugins it opens.

    Args:
        parts: The gateway's parts (its chain and bus are set here).
        approvers: Approvers to use instead of loading the configured ones.
        sinks: Sinks to use (all required) instead of the configured ones.
        witnesses: Witnesses to use instead of the configured ones.
        services: What the gateway offers its approvers (`ApproverContext.services`).

    Attributes:
        sinks: The sinks by name, as built (empty before the gateway opens).
    """

    def __init__(
        self,
        parts: Parts,
        *,
        approvers: Sequence[Approver] | None,
        sinks: Mapping[str, Sink] | None,
        witnesses: Mapping[str, Witness] | None,
        services: dict[str, Any],
    ) -> None:
        self._parts = parts
        self._given_approvers = approvers
        self._given_sinks = sinks
        self._given_witnesses = witnesses
        self._services = services
        self.sinks: dict[str, Sink] = {}

    def _build_approvers(self) -> ApproverChain:
        parts = self._parts
        config = parts.config
        section = config.gateway
        if self._given_approvers is not None:
            approvers = list(self._given_approvers)
        else:
            context = ApproverContext(config=config, services=self._services, bounded=parts.pool)
            approvers = [
                load_approver(name, config.approver.get(name, {}), context)
                for name in section.approvers
            ]
        return ApproverChain(
            [resolve_approver(approver) for approver in approvers],
            approver_timeout=section.approver_timeout,
            telemetry=parts.telemetry,
            metrics=parts.metrics,
        )

    def _build_sinks(self) -> list[SinkSlot]:
        if self._given_sinks is not None:
            return [
                resolve_sink(name, sink, required=True) for name, sink in self._given_sinks.items()
            ]
        return [
            resolve_sink(name, load_sink(name, sink), required=sink.required)
            for name, sink in self._parts.config.sinks.items()
        ]

    def _build_witnesses(self) -> list[tuple[str, Witness]]:
        if self._given_witnesses is not None:
            return list(self._given_witnesses.items())
        return [(name, load_witness(name, w)) for name, w in self._parts.config.witnesses.items()]

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[None]:
        """The gateway open for the block: its plugins opened, its bus started; all closed after."""
        parts = self._parts
        config = parts.config
        audit = config.audit
        signing_key, hmac_key = audit.signing_key_path, audit.hmac_key_path
        if signing_key is not None and audit.create_key:
            ensure_key(signing_key)
        signer = load_signer(
            signing_key=None if signing_key is None else str(signing_key),
            hmac_key=None if hmac_key is None else str(hmac_key),
        )
        parts.chain = self._build_approvers()
        slots = self._build_sinks()
        self.sinks = {slot.name: slot.sink for slot in slots}
        witnesses = self._build_witnesses()
        opened: list[SinkSlot] = []
        # A sink that may block runs on a loop of its own: opened, written and
        # closed there, so what it opens (a connection) belongs to the loop that uses it.
        threads = {slot.name: LoopThread(slot.name) for slot in slots if not slot.shares_loop}
        witness_threads = {
            name: LoopThread(name)
            for name, witness in witnesses
            if getattr(witness, "shares_loop", False) is not True
        }
        try:
            tips: list[tuple[SinkSlot, ChainTip]] = []
            for slot in slots:
                tip = await _on_loop_of(threads.get(slot.name), slot.sink.open)
                opened.append(slot)
                if tip is not None:
                    tips.append((slot, tip))
            required = [tip for slot, tip in tips if slot.required] or [tip for _, tip in tips]
            start_seq, previous, genesis = 0, GENESIS, None
            if required:
                last = max(required, key=lambda tip: tip.seq)
                start_seq, previous, genesis = last.seq + 1, last.digest, last.genesis
            bus = EventBus(
                clock=parts.clock,
                buffer=config.gateway.event_buffer,
                sink_timeout=config.gateway.audit_timeout,
                start_seq=start_seq,
                previous=previous,
                genesis=genesis,
                signer=signer,
                checkpoint_every=audit.checkpoint_every,
                checkpoint_interval=audit.checkpoint_interval,
            )
            for slot in slots:
                bus.add_sink(slot, threads.get(slot.name))
            send, receive = anyio.create_memory_object_stream[ChainGenesis | ChainCheckpoint](1024)
            self._witnessed = anyio.Event()
            self._witness_pending = 0
            self._witness_drained = anyio.Event()
            if witnesses:

                def attested(record: ChainGenesis | ChainCheckpoint) -> None:
                    with suppress(
                        anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError
                    ):
                        send.send_nowait(record)
                        self._witness_pending += 1

                bus.on_attested(attested)
            else:
                send.close()
                receive.close()
            parts.bus = bus
            parts.chain.start()
            async with anyio.create_task_group() as task_group:
                bus.start(task_group)
                if witnesses:
                    task_group.start_soon(self._witness, witnesses, witness_threads, receive)
                if not required:
                    await bus.publish(
                        ChainGenesis(
                            chain=uuid.uuid4().hex,
                            algorithm=signer.algorithm if signer is not None else "none",
                            key=signer.key_id if signer is not None else None,
                        )
                    )
                await bus.publish(
                    GatewayStarted(
                        version=VERSION,
                        plan_format=PLAN_FORMAT,
                        config_digest=digest_of(config),
                        approvers=parts.chain.names,
                        sinks=tuple(slot.name for slot in slots),
                    )
                )
                for slot, tip in tips:
                    if tip.recovery is not None:
                        await bus.publish(
                            LogRecovered(
                                sink=slot.name,
                                found=tip.recovery.found,
                                torn_bytes=tip.recovery.torn_bytes,
                                set_aside=tip.recovery.set_aside,
                                last_seq=tip.seq,
                            )
                        )
                parts.open = True
                try:
                    yield
                finally:
                    parts.open = False
                    with anyio.CancelScope(shield=True):
                        if witnesses:
                            # A witness's failure belongs in the chain it failed for, before
                            # the record that ends it: let them finish what they were handed.
                            with anyio.move_on_after(config.gateway.audit_timeout):
                                while self._witness_pending and not self._witnessed.is_set():
                                    self._witness_drained = anyio.Event()
                                    await self._witness_drained.wait()
                        with anyio.move_on_after(config.gateway.audit_timeout):
                            await bus.publish(GatewayStopped(events=bus.statistics().published + 1))
                            bus.checkpoint(final=True)
                        await bus.close()
                        send.close()
                        if witnesses:
                            with anyio.move_on_after(config.gateway.audit_timeout):
                                await self._witnessed.wait()
                    task_group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                # Closing a plugin must not hide the error that ended the gateway.
                for slot in opened:
                    with (
                        anyio.move_on_after(config.gateway.audit_timeout),
                        suppress(Exception),
                    ):
                        await _on_loop_of(threads.get(slot.name), slot.sink.aclose)
                for thread in (*threads.values(), *witness_threads.values()):
                    thread.close()
                for name, witness in witnesses:
                    with (
                        anyio.move_on_after(config.gateway.audit_timeout),
                        suppress(Exception),
                    ):
                        await _on_loop_of(threads.get(name), witness.aclose)
                await parts.chain.aclose(config.gateway.approver_timeout)
                await parts.pool.aclose()

    _witnessed: anyio.Event
    _witness_pending: int
    """Genesis and checkpoint records handed to the witnesses and not yet attested by all."""
    _witness_drained: anyio.Event
    """Set when `_witness_pending` falls to zero."""

    async def _witness(
        self,
        witnesses: list[tuple[str, Witness]],
        threads: Mapping[str, LoopThread],
        records: ObjectReceiveStream[ChainGenesis | ChainCheckpoint],
    ) -> None:
        """Hand every genesis and checkpoint to every witness, in order, each bounded; record failures."""
        timeout = self._parts.config.gateway.audit_timeout
        try:
            async with records:
                async for record in records:
                    for name, witness in witnesses:
                        reason: str | None = None
                        with anyio.move_on_after(timeout) as scope:
                            try:
                                await _on_loop_of(
                                    threads.get(name), partial(witness.attest, record)
                                )
                            except Exception as error:  # noqa: BLE001 -- a witness's failure is recorded, never raised
                                reason = f"it failed ({type(error).__name__}: {shorten(str(error), 200)})"
                        if scope.cancelled_caught:
                            reason = f"it did not answer within {timeout:g} s"
                        bus = self._parts.bus
                        if reason is not None and bus is not None:
                            bus.publish_nowait(
                                WitnessFailed(witness=name, checkpoint=record.seq, reason=reason)
                            )
                    self._witness_pending -= 1
                    if not self._witness_pending:
                        self._witness_drained.set()
        finally:
            self._witnessed.set()
            self._witness_drained.set()
