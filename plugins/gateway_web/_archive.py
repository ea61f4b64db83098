"""
Decisions people made in earlier runs of the service, read back from the audit log.

The board keeps only what this run decided; the audit log keeps everything.
When the service starts with an audit log, it reads the log's last
`ARCHIVE_BYTES` (JSON lines; a MessagePack log only when it is no larger) and
rebuilds the last ``[serve] history`` decisions a person made on a whole call:
who (the token's name), when, the verdict's reason (the person's note is in
it), the call's command, session and agent, the rules that answered, and the
one-sentence summary of its effects. A record that cannot be read is skipped;
a log that cannot be read gives no archive, never an error.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from typing import Final

import msgspec
from gateway_human import DecisionRecord

from gateway import ApproverDecided, CallProposed, Event, PlanReady
from gateway.audit import audit_format, iter_records
from gateway.effects import iter_effects, summarise_effects
from gateway_web._history import HistoryItem, Kept, clipped, full_text

__all__ = ["ARCHIVE_BYTES", "archived"]

ARCHIVE_BYTES: Final = 16 * 1024 * 1024
"""Bytes at the end of the audit log read for earlier decisions."""

_log = logging.getLogger("gateway_web")
_DECODER: Final = msgspec.json.Decoder(Event)


class _Call:
    __slots__ = ("decided", "plan", "proposed", "rules")

    def __init__(self) -> None:
        self.proposed: CallProposed | None = None
        self.plan: PlanReady | None = None
        self.rules: list[str] = []
        self.decided: ApproverDecided | None = None


def _events(path: str) -> list[Event]:
    """The events of the log's last `ARCHIVE_BYTES`, in order (unreadable records skipped)."""
    size = os.stat(path).st_size
    if audit_format(path) != "jsonl":
        if size > ARCHIVE_BYTES:
            return []
        return [record.event for record in iter_records(path) if record.event is not None]
    with open(path, "rb") as stream:
        start = max(0, size - ARCHIVE_BYTES)
        stream.seek(start)
        data = stream.read(ARCHIVE_BYTES)
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # Begins inside a record.
    found: list[Event] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            found.append(_DECODER.decode(line))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return found


def _item(call_id: str, seen: _Call) -> Kept | None:
    """A person's decision on a call, as the history shows it, with the call's full text."""
    decided, proposed, ready = seen.decided, seen.proposed, seen.plan
    if decided is None or proposed is None or decided.decision == "abstain":
        return None
    plan = ready.plan if ready is not None else None
    text = full_text(plan.source if plan is not None else None, proposed.input)
    effects = [*ready.effects] if ready is not None else []
    if plan is not None:
        effects.extend(e for statement in plan.statements for _, e in iter_effects(statement.plan))
    record = DecisionRecord(
        id=call_id,
        call_id=call_id,
        decision=decided.decision,
        by="person",
        digest=ready.plan_digest if ready is not None else "",
        reason=decided.reason or "",
        decided=decided.time,
        decided_by=decided.decided_by,
    )
    item = HistoryItem(
        id=call_id,
        call_id=call_id,
        kind="call",
        tool=proposed.tool,
        text=clipped(text),
        summary=summarise_effects(effects),
        session=proposed.session_id,
        agent=proposed.agent_id,
        host=proposed.host,
        cwd=proposed.cwd,
        digest=record.digest,
        created=proposed.time,
        rules=tuple(seen.rules),
        decision=record,
    )
    return Kept(item, text, 0)


def archived(path: str, limit: int) -> list[Kept]:
    """
    The last ``limit`` decisions people made on whole calls, as the log tells them, each with its full text.

    Never raises: a log that cannot be read (missing, unreadable) gives none.
    """
    try:
        events = _events(path)
    except OSError as error:
        _log.warning("The audit log %s could not be read for earlier decisions: %s", path, error)
        return []
    calls: OrderedDict[str, _Call] = OrderedDict()
    for event in events:
        if event.call_id is None:
            continue
        seen = calls.get(event.call_id)
        if seen is None:
            seen = calls[event.call_id] = _Call()
        if isinstance(event, CallProposed):
            seen.proposed = event
        elif isinstance(event, PlanReady):
            seen.plan = event
        elif isinstance(event, ApproverDecided) and event.question is None:
            if event.rule and event.rule not in seen.rules:
                seen.rules.append(event.rule)
            if event.decided_by is not None:
                seen.decided = event
    found: list[Kept] = []
    for call_id, seen in reversed(calls.items()):
        made = _item(call_id, seen)
        if made is None:
            continue
        found.append(made)
        if len(found) >= limit:
            break
    return found
