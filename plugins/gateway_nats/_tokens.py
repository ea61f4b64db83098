"""
People's tokens in the broker: every replica accepts the same tokens, and a revocation reaches all of them.

The tokens bucket holds one `gateway.fleet.TokenRecord` per name (the
token's digest, never the token). ``gateway token create NAME --role R
--broker URL`` creates the key only if it does not exist; ``gateway token
revoke NAME`` deletes it. Every replica of the approval service watches the
bucket and keeps its `gateway.fleet.TokenBook` equal to it, so a token made
on any machine works on every replica at once, and a revoked one stops
working on all of them within a round trip.
"""

from __future__ import annotations

import logging
from typing import Final

import anyio
import msgspec
import nats.js.errors
from anyio.abc import TaskStatus
from nats.js.kv import KeyValue

from gateway.fleet import Role, TokenBook, TokenError, TokenRecord, check_token_name, make_token
from gateway_nats._broker import BROKER_ERRORS, Broker, mirror

__all__ = ["BrokerTokens"]

_log = logging.getLogger("gateway_nats")
_DECODER: Final = msgspec.json.Decoder(TokenRecord)


class BrokerTokens:
    """The fleet's token store, in the broker's tokens bucket."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self._records: dict[str, TokenRecord] = {}

    def _failed(self, error: BaseException) -> TokenError:
        return TokenError(f"The token store cannot be used: {self.broker.unreachable(error)}.")

    async def create(self, name: str, role: Role) -> str:
        """
        Make and store a token for ``name``; return the token (shown once).

        Raises:
            TokenError: The name is taken or invalid, or the broker did not take it.
        """
        token, record = make_token(name, role)
        try:
            with anyio.fail_after(self.broker.section.request_timeout):
                await self.broker.tokens.create(f"t.{name}", msgspec.json.encode(record))
        except nats.js.errors.KeyWrongLastSequenceError:
            raise TokenError(
                f"A token named {name!r} exists already; revoke it first (`gateway token revoke {name}`)."
            ) from None
        except BROKER_ERRORS as error:
            raise self._failed(error) from None
        return token

    async def revoke(self, name: str) -> bool:
        """
        Remove the token named ``name`` from every replica; whether there was one.

        Raises:
            TokenError: The broker cannot be reached.
        """
        check_token_name(name)
        key = f"t.{name}"
        try:
            with anyio.fail_after(self.broker.section.request_timeout):
                try:
                    await self.broker.tokens.get(key)
                except (nats.js.errors.KeyNotFoundError, nats.js.errors.KeyDeletedError):
                    return False
                await self.broker.tokens.delete(key)
        except BROKER_ERRORS as error:
            raise self._failed(error) from None
        return True

    async def records(self) -> list[TokenRecord]:
        """
        The stored tokens, by name.

        Raises:
            TokenError: The broker cannot be reached.
        """
        found: list[TokenRecord] = []
        try:
            with anyio.fail_after(self.broker.section.request_timeout * 2):
                try:
                    keys = await self.broker.tokens.keys()
                except nats.js.errors.NoKeysError:
                    return []
                for key in keys:
                    try:
                        entry = await self.broker.tokens.get(key)
                    except (nats.js.errors.KeyNotFoundError, nats.js.errors.KeyDeletedError):
                        continue
                    if entry.value:
                        found.append(_DECODER.decode(entry.value))
        except BROKER_ERRORS as error:
            raise self._failed(error) from None
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise TokenError(
                f"The tokens bucket holds something that is not a token ({error})."
            ) from None
        return sorted(found, key=lambda record: record.name)

    async def run(
        self, book: TokenBook, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Keep ``book`` equal to the bucket (started once it is), until cancelled."""

        def on_entry(entry: KeyValue.Entry) -> None:
            if entry.operation is not None or not entry.value:
                self._records.pop(entry.key, None)
            else:
                try:
                    self._records[entry.key] = _DECODER.decode(entry.value)
                except (msgspec.DecodeError, msgspec.ValidationError):
                    _log.warning("Ignoring a malformed token record (%s).", entry.key)
                    self._records.pop(entry.key, None)
            book.replace(self._records.values())

        await mirror(self.broker.tokens, on_entry, task_status=task_status)
