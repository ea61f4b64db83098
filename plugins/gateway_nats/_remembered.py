"""
Remembered approvals shared by the fleet: what one person asked to remember, every replica applies.

A person who allows a call and asks to remember it (``digest``, ``session``
or ``prefix``) on any replica saves the approval — exactly as the rules
approver proposes it, never broader than what they saw — in the broker's
remembered bucket. Every replica watches the bucket and gives its rules
approver the shared approvals next to the ones of its own memory file, so
the next such call is allowed on every replica without asking.

The key of an approval is the digest of what it allows, so saving the same
approval twice keeps one. Removing a key (``nats kv del``) withdraws it
from every replica.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any, Final

import anyio
import msgspec
import nats.js.errors
from anyio.abc import TaskStatus
from gateway_rules import RememberedApproval, approval_digest
from nats.js.kv import KeyValue

from gateway_nats._broker import BROKER_ERRORS, Broker, BrokerError, mirror

__all__ = ["SharedApproval", "SharedApprovals"]

_log = logging.getLogger("gateway_nats")


class SharedApproval(msgspec.Struct, frozen=True, kw_only=True):
    """
    A remembered approval in the bucket, with who saved it and where.

    Attributes:
        approval: The approval, as the rules approver proposed it.
        decided_by: The person who allowed the call and asked to remember it.
        replica: The replica it was saved on.
    """

    approval: RememberedApproval
    decided_by: str | None = None
    replica: str | None = None


_DECODER: Final = msgspec.json.Decoder(SharedApproval)


def approval_key(approval: RememberedApproval) -> str:
    """The bucket key of an approval: the digest of what it allows (`gateway_rules.approval_digest`)."""
    return "a." + approval_digest(approval)


class SharedApprovals:
    """
    The fleet's remembered approvals, mirrored from the broker into a rules approver.

    Run `SharedApprovals.run` in a task group; hand it the rules approver with `use`.
    """

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.shared: dict[str, RememberedApproval] = {}
        self._rules: Any = None

    def use(self, rules: Any) -> None:
        """Give ``rules`` (the rules approver) the shared approvals, now and after every change."""
        if rules is None or not isinstance(getattr(rules, "shared", None), list):
            return
        self._rules = rules
        self._apply()

    def _apply(self) -> None:
        if self._rules is not None:
            self._rules.shared = list(self.shared.values())

    async def save(
        self, approval: RememberedApproval, *, note: str | None, by: str | None
    ) -> RememberedApproval:
        """
        Share an approval with every replica; return it as saved.

        Raises:
            BrokerError: The broker did not take it.
        """
        saved = msgspec.structs.replace(
            approval,
            created=datetime.now(UTC).isoformat(timespec="seconds"),
            note=note,
            decided_by=by,
        )
        value = SharedApproval(approval=saved, decided_by=by, replica=self.broker.replica)
        key = approval_key(saved)
        try:
            with anyio.fail_after(self.broker.section.request_timeout):
                await self.broker.remembered.put(key, msgspec.json.encode(value))
        except BROKER_ERRORS as error:
            raise BrokerError(self.broker.unreachable(error)) from None
        self.shared[key] = saved
        self._apply()
        return saved

    async def entries(self) -> list[SharedApproval]:
        """
        Every approval the bucket holds now, read from the broker (not the mirror).

        Raises:
            BrokerError: The broker cannot be reached.
        """
        found: list[SharedApproval] = []
        bucket = self.broker.remembered
        try:
            with anyio.fail_after(self.broker.section.request_timeout * 2):
                try:
                    keys = await bucket.keys()
                except nats.js.errors.NoKeysError:
                    return []
                for key in keys:
                    try:
                        entry = await bucket.get(key)
                    except (nats.js.errors.KeyNotFoundError, nats.js.errors.KeyDeletedError):
                        continue
                    if entry.value:
                        try:
                            found.append(_DECODER.decode(entry.value))
                        except (msgspec.DecodeError, msgspec.ValidationError):
                            _log.warning("Ignoring a malformed remembered approval (%s).", key)
        except BROKER_ERRORS as error:
            raise BrokerError(self.broker.unreachable(error)) from None
        return found

    async def forget(self, approvals: list[RememberedApproval]) -> None:
        """
        Take these approvals back on every replica.

        Raises:
            BrokerError: The broker cannot be reached.
        """
        try:
            with anyio.fail_after(self.broker.section.request_timeout * 2):
                for approval in approvals:
                    await self.broker.remembered.delete(approval_key(approval))
        except BROKER_ERRORS as error:
            raise BrokerError(self.broker.unreachable(error)) from None

    def _on_entry(self, entry: KeyValue.Entry) -> None:
        if entry.operation is not None or entry.value is None:
            self.shared.pop(entry.key, None)
        else:
            try:
                self.shared[entry.key] = _DECODER.decode(entry.value).approval
            except (msgspec.DecodeError, msgspec.ValidationError):
                _log.warning("Ignoring a malformed remembered approval (%s).", entry.key)
                return
        self._apply()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Mirror the bucket into ``shared`` (started once it holds what the bucket holds)."""
        await mirror(self.broker.remembered, self._on_entry, task_status=task_status)
