"""
The managed policy in the broker: versioned, hash-pinned, and picked up by every replica without a restart.

``gateway policy publish FILE --broker URL`` checks a config file as the
**managed tier** (every key valid, every rule valid, every rule's examples
passing, rules inline) and stores it as the next version of the key
``managed`` in the policy bucket: the bucket's revision is its version
number, and ``sha256`` the digest of its exact bytes. The bucket keeps the
last 64 versions (``gateway policy history``).

Every replica of the approval service watches the key. A new version is
checked — its bytes must hash to the digest stored with them, and, when
``[broker] policy-pin`` is set, to the pinned digest — then combined with
the replica's own tiers (strictest wins: see `gateway.fleet.merge_tiers`),
and its rules replace the rules approver's for every later review. Each
verdict then says which version decided it (``managed@7:sha256:…``). A
version that fails any check is refused and the last good one keeps
deciding; `ManagedPolicy.state` says which one and why. Keys other than the
rules take effect when a replica starts.

A pinned replica uses exactly the pinned version from the history, and
refuses to start when it is not there.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

import anyio
import msgspec
import nats.js.errors
from anyio.abc import TaskStatus
from gateway_rules import RulesApprover
from nats.js.kv import KeyValue

from gateway import ConfigError
from gateway.fleet import Tier, merge_tiers, tier_of
from gateway.text import error_detail
from gateway_nats._broker import BROKER_ERRORS, Broker, BrokerError, mirror

__all__ = [
    "MANAGED_KEY",
    "ManagedPolicy",
    "PolicyState",
    "PolicyVersion",
    "check_policy",
    "latest_policy",
    "pinned_policy",
    "policy_history",
    "publish_policy",
]

_log = logging.getLogger("gateway_nats")

MANAGED_KEY: Final = "managed"
"""The policy bucket's key that holds the managed tier's versions."""


class PolicyVersion(msgspec.Struct, frozen=True, kw_only=True):
    """
    One published version of the managed tier.

    Attributes:
        sha256: ``sha256:`` and the digest of ``toml``'s UTF-8 bytes.
        toml: The config, exactly as published.
        published: When (UTC).
        by: Who published it, as they said.
        revision: Its version number (the bucket's revision; not stored).
    """

    sha256: str
    toml: str
    published: str
    by: str | None = None
    revision: int = 0

    @property
    def label(self) -> str:
        """How verdicts name it: ``managed@REVISION:sha256:…``."""
        return f"managed@{self.revision}:{self.sha256}"

    def tier(self, where: str) -> Tier:
        """The managed tier this version is (checked as a config)."""
        return tier_of(
            "managed", self.toml.encode(), source=f"{where}, policy version {self.revision}"
        )


class PolicyState(msgspec.Struct, frozen=True, kw_only=True):
    """
    Which managed version decides on this replica, and what was refused.

    Attributes:
        version: The label of the version in use (``None``: no managed version).
        refused: The label of the last version refused, if any.
        reason: Why it was refused.
    """

    version: str | None = None
    refused: str | None = None
    reason: str | None = None


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def check_policy(data: bytes, *, source: str) -> Tier:
    """
    Check a managed config before it is published; return it as a tier.

    Raises:
        ConfigError: It is not UTF-8, not a valid config, names rule files
            (a published policy must hold its rules inline), or a rule is
            invalid or fails its examples.
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"The policy {source!r} is not valid UTF-8 (byte offset {error.start}).", source=source
        ) from None
    tier = tier_of("managed", data, source=source)
    rules = tier.data.get("approver", {}).get("rules")
    if rules is not None:
        if rules.get("files"):
            raise ConfigError(
                f"The policy {source!r} names rule files; a published policy holds its rules inline ([[approver.rules.rule]]).",
                source=source,
            )
        try:
            RulesApprover(rules)
        except ValueError as error:
            raise ConfigError(
                f"The policy {source!r} has a bad rule: {error}", source=source
            ) from None
    return tier


def _decode(value: bytes, revision: int) -> PolicyVersion:
    version = msgspec.json.decode(value, type=PolicyVersion)
    return msgspec.structs.replace(version, revision=revision)


async def publish_policy(
    broker: Broker, data: bytes, *, by: str | None, source: str
) -> PolicyVersion:
    """
    Check and publish a new version of the managed tier; return it with its version number.

    Raises:
        ConfigError: It does not pass `check_policy`.
        BrokerError: The broker did not take it.
    """
    check_policy(data, source=source)
    version = PolicyVersion(
        sha256=_digest(data),
        toml=data.decode("utf-8"),
        published=datetime.now(UTC).isoformat(timespec="seconds"),
        by=by,
    )
    try:
        with anyio.fail_after(broker.section.request_timeout):
            revision = await broker.policy.put(MANAGED_KEY, msgspec.json.encode(version))
    except BROKER_ERRORS as error:
        raise BrokerError(f"The policy was not published: {broker.unreachable(error)}.") from None
    return msgspec.structs.replace(version, revision=revision)


async def latest_policy(broker: Broker) -> PolicyVersion | None:
    """
    The latest published version, or ``None`` when none was.

    Raises:
        BrokerError: The broker cannot be asked, or the latest entry is not a version.
    """
    try:
        with anyio.fail_after(broker.section.request_timeout):
            entry = await broker.policy.get(MANAGED_KEY)
    except (nats.js.errors.KeyNotFoundError, nats.js.errors.KeyDeletedError):
        return None
    except BROKER_ERRORS as error:
        raise BrokerError(f"Cannot read the managed policy: {broker.unreachable(error)}.") from None
    if entry.value is None or entry.revision is None:
        return None
    try:
        return _decode(entry.value, entry.revision)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise BrokerError(
            f"The managed policy's version {entry.revision} is not a policy version."
        ) from None


async def policy_history(broker: Broker) -> list[PolicyVersion]:
    """
    Every version the bucket keeps, oldest first.

    Raises:
        BrokerError: The broker cannot be asked.
    """
    try:
        with anyio.fail_after(broker.section.request_timeout * 2):
            entries = await broker.policy.history(MANAGED_KEY)
    except nats.js.errors.NoKeysError:
        return []
    except BROKER_ERRORS as error:
        raise BrokerError(f"Cannot read the policy history: {broker.unreachable(error)}.") from None
    found: list[PolicyVersion] = []
    for entry in entries:
        if entry.operation is not None or entry.value is None or entry.revision is None:
            continue
        try:
            found.append(_decode(entry.value, entry.revision))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return found


def _problem(version: PolicyVersion, pin: str) -> str | None:
    if _digest(version.toml.encode()) != version.sha256:
        return "its bytes do not hash to the digest published with them"
    if pin and version.sha256 != pin:
        return f"it is not the pinned version ({pin[:19]}…)"
    return None


async def pinned_policy(broker: Broker) -> PolicyVersion | None:
    """
    The version this replica must use at start: the pinned one from the history, or the latest.

    Raises:
        BrokerError: The broker cannot be asked, the pinned version is not
            in the history, or the version does not hash to its digest.
    """
    pin = broker.section.policy_pin
    if not pin:
        version = await latest_policy(broker)
        if version is not None and (problem := _problem(version, "")) is not None:
            raise BrokerError(f"The managed policy {version.label} is refused: {problem}.")
        return version
    for version in reversed(await policy_history(broker)):
        if version.sha256 == pin and _problem(version, pin) is None:
            return version
    raise BrokerError(
        f"The pinned policy {pin[:19]}… is not among the versions the broker keeps; publish it, or change [broker] policy-pin."
    )


class ManagedPolicy:
    """
    Keeps a rules approver on the latest acceptable managed version, until cancelled.

    Args:
        broker: The open broker.
        local: This replica's own tiers (user, project, a managed file).
        current: The version in use at start (from `pinned_policy`).
    """

    def __init__(
        self, broker: Broker, local: Sequence[Tier], current: PolicyVersion | None
    ) -> None:
        self.broker = broker
        self.local = tuple(local)
        self.current = current
        self.state = PolicyState(version=None if current is None else current.label)
        self._rules: RulesApprover | None = None
        self.applied = anyio.Event()

    def use(self, rules: Any) -> None:
        """The rules approver to keep current (from the gateway's services)."""
        if isinstance(rules, RulesApprover):
            self._rules = rules
            if self.current is not None:
                rules.policy_version = self.current.label

    def apply(self, version: PolicyVersion) -> None:
        """Check a version and, if it passes, put its rules in force; else keep the last good one."""
        problem = _problem(version, self.broker.section.policy_pin)
        if problem is None and self._rules is not None:
            try:
                tiers = [version.tier(self.broker.where), *self.local]
                table, _ = merge_tiers(tiers)
                options = table.get("approver", {}).get("rules", {"include-default": True})
                self._rules.replace_policy(options, version=version.label)
            except (ConfigError, ValueError) as error:
                problem = error_detail(error)
        if problem is not None:
            _log.warning("Refused the managed policy %s: %s.", version.label, problem)
            self.state = msgspec.structs.replace(self.state, refused=version.label, reason=problem)
            return
        self.current = version
        self.state = PolicyState(version=version.label)
        self.applied.set()
        self.applied = anyio.Event()
        _log.warning("The managed policy %s decides from now on.", version.label)

    def _on_entry(self, entry: KeyValue.Entry) -> None:
        if entry.operation is not None or entry.value is None or entry.revision is None:
            return
        if self.current is not None and entry.revision <= self.current.revision:
            return
        try:
            version = _decode(entry.value, entry.revision)
        except (msgspec.DecodeError, msgspec.ValidationError):
            self.state = msgspec.structs.replace(
                self.state,
                refused=f"managed@{entry.revision}",
                reason="it is not a policy version",
            )
            return
        self.apply(version)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Watch the managed key (started once watching), applying every new version."""
        await mirror(self.broker.policy, self._on_entry, keys=MANAGED_KEY, task_status=task_status)
