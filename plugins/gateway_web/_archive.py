"""
Decisions people made in earlier runs of the service, read back from the audit log.

The board keeps only what this run decided; the audit log keeps everything.
When the service starts with an audit log, it reads the log's last
`ARCHIVE_BYTES` (JSON lines; a MessagePack log only when it is no larger) and
rebuilds the last ``[serve] history`` decisions a person made on a whole call:
who (the token's name), when, the verdict's reason (the person's note is in
it), the call's command, session and agent, the rules that answered, and the
one-sentence summary of its effects. A call an approval a person remembered
allowed is one of them (``by: "remembered"``; its rule names the memory).
A record that cannot be read is skipped; a log that cannot be read gives no
archive, never an error.

`CallSeen` and `decided_item` are how both the archive and the running
service (`gateway_web._service`) turn a call's events into a history item.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from typing import Final

import msgspec
from gateway_human import DecisionRecord

from gateway.audit import audit_format, iter_records
from gateway.effects import iter_effects, summarise_effects
from gateway.events import ApproverDecided, CallProposed, Event, PlanReady
from gateway_web._history import HistoryItem, Kept, clipped, full_text

__all__ = ["ARCHIVE_BYTES", "REMEMBERED_RULE", "CallSeen", "archived", "decided_item"]

REMEMBERED_RULE: Final = "remembered."
"""How the rule of a verdict an approval a person remembered gave begins (``remembered.<id>``)."""

ARCHIVE_BYTES: Final = 16 * 1024 * 1024
"""Bytes at the end of the audit log read for earlier decisions."""

_log = logging.getLogger("gateway_web")
_DECODER: Final = msgspec.json.Decoder(Event)


class CallSeen:
    """What a call's events said so far: its proposal, its plan, the rules that answered, who decided."""

    __slots__ = ("decided", "plan", "proposed", "rules")

    def __init__(self) -> None:
        self.proposed: CallProposed | None = None
        self.plan: PlanReady | None = None
        self.rules: list[str] = []
        self.decided: ApproverDecided | None = None

    def see(self, event: Event) -> bool:
        """
        Take one of the call's events; whether it decided the call.

        A call is decided by a person's answer on the whole call, or by an
        allow an approval a person remembered gave.
        """
        if isinstance(event, CallProposed):
            self.proposed = event
        elif isinstance(event, PlanReady):
            self.plan = event
        elif isinstance(event, ApproverDecided) and event.question is None:
            if event.rule and event.rule not in self.rules:
                self.rules.append(event.rule)
            remembered = (
                event.decision == "allow"
                and event.rule is not None
                and event.rule.startswith(REMEMBERED_RULE)
            )
            if event.decided_by is not None or remembered:
                self.decided = event
                return True
        return False


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


def decided_item(call_id: str, seen: CallSeen, run: int) -> Kept | None:
    """A person's decision on a call (or their remembered approval's), as the history shows it, with the call's full text."""
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
        by="person" if decided.decided_by is not None else "remembered",
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
    return Kept(item, text, run)


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
    calls: OrderedDict[str, CallSeen] = OrderedDict()
    for event in events:
        if event.call_id is None:
            continue
        seen = calls.get(event.call_id)
        if seen is None:
            seen = calls[event.call_id] = CallSeen()
        seen.see(event)
    found: list[Kept] = []
    for call_id, seen in reversed(calls.items()):
        made = decided_item(call_id, seen, 0)
        if made is None:
            continue
        found.append(made)
        if len(found) >= limit:
            break
    return found
