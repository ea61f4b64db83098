"""
The decisions a board keeps, as a searchable, filterable, paginated history.

``GET /v1/history`` answers from the board's kept decisions (the last
``[serve] history`` of them) and those of earlier runs read back from the
audit log (`gateway_web._archive`): each one with who decided, when, with what note,
the call's one-sentence summary, its session, agent and the rules that
answered. A query filters by session, agent, decision, rule and person, and
searches the command, the summary, the note and the reason; pages come newest
first, at most `PAGE_LIMIT` items each, and ``next`` is the cursor of the page
after (``null`` on the last). Facets list every session, agent, rule and person
of the kept history with their counts, so a page can offer them as filters.

A cursor is the decision's time and board id (URL-safe base64), so a page stays stable while new
decisions arrive in front of it and old ones drop off behind.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

import msgspec
from gateway_human import DecisionRecord, WaitingCall

from gateway.effects import summarise_effects
from gateway.text import clip

__all__ = [
    "PAGE_LIMIT",
    "TEXT_LIMIT",
    "Facet",
    "HistoryItem",
    "HistoryPage",
    "HistoryQuery",
    "Kept",
    "QueryError",
    "call_text",
    "clipped",
    "full_text",
    "history_item",
    "history_page",
    "parse_query",
]

PAGE_LIMIT: Final = 100
"""Items a history page may have."""

TEXT_LIMIT: Final = 4000
"""Characters of a call's text a history item carries (the search reads all of it)."""

FILTER_LIMIT: Final = 200
"""Characters a filter or search term may have."""

_FILTERS: Final = ("session", "agent", "decision", "rule", "person", "q")
_PARAMETERS: Final = frozenset({*_FILTERS, "limit", "cursor"})


class HistoryItem(msgspec.Struct, frozen=True, kw_only=True):
    """
    One decided question, as the history shows it.

    Attributes:
        id: The board id.
        call_id: The call.
        kind: ``call``, ``hole`` or ``body``.
        tool: The tool the agent called.
        text: The command (or the tool's input as JSON), at most `TEXT_LIMIT` characters.
        summary: What the call would do, in one sentence, writes first.
        session: The call's session, if it named one.
        agent: The call's agent, if it named one.
        host: The host the call came from, if known.
        cwd: The call's working directory, if known.
        digest: The plan digest the decision is bound to.
        created: When it started waiting.
        rules: The rules that answered about it (the one that asked a person among them).
        decision: Who decided, when, with what note and reason.
    """

    id: str
    call_id: str
    kind: str
    tool: str
    text: str
    summary: str
    session: str | None
    agent: str | None
    host: str | None
    cwd: str | None
    digest: str
    created: str
    rules: tuple[str, ...]
    decision: DecisionRecord


class Facet(msgspec.Struct, frozen=True, kw_only=True):
    """A value a filter may take, and how many kept decisions have it."""

    value: str
    count: int


class HistoryPage(msgspec.Struct, frozen=True, kw_only=True):
    """
    One page of the history.

    Attributes:
        instance: The service instance that answers (it changes when the service restarts).
        total: Decisions that match the query (on every page).
        items: This page's, newest first.
        next: The cursor of the next page, or ``None`` on the last.
        sessions, agents, rules, people: Every value of the kept history, with counts.
    """

    instance: str
    total: int
    items: tuple[HistoryItem, ...]
    next: str | None
    sessions: tuple[Facet, ...]
    agents: tuple[Facet, ...]
    rules: tuple[Facet, ...]
    people: tuple[Facet, ...]


class HistoryQuery(msgspec.Struct, frozen=True, kw_only=True):
    """What a history request asks for (see `parse_query`)."""

    session: str | None = None
    agent: str | None = None
    decision: str | None = None
    rule: str | None = None
    person: str | None = None
    q: str | None = None
    limit: int = 50
    cursor: tuple[str, int, str] | None = None


class QueryError(ValueError):
    """A history query that cannot be answered; the message is one sentence."""


class _Said(msgspec.Struct):
    event: str = ""
    approver: str | None = None
    rule: str | None = None


_SAID: Final = msgspec.json.Decoder(_Said)


def parse_query(params: Mapping[str, str], keys: Iterable[str]) -> HistoryQuery:
    """
    A history query from request parameters.

    Raises:
        QueryError: An unknown parameter, a value too long, a decision other
            than ``allow``/``decline``, a limit outside 1 to `PAGE_LIMIT`, or a
            cursor no page gave.
    """
    for key in keys:
        if key not in _PARAMETERS:
            raise QueryError(
                f"The query parameter {key[:40]!r} is not known; use {', '.join(sorted(_PARAMETERS))}."
            )
    values: dict[str, str | None] = {}
    for name in _FILTERS:
        raw = params.get(name)
        if raw is not None and len(raw) > FILTER_LIMIT:
            raise QueryError(
                f"The query parameter {name!r} may have at most {FILTER_LIMIT} characters."
            )
        values[name] = raw.strip() if raw and raw.strip() else None
    if values["decision"] not in (None, "allow", "decline"):
        raise QueryError("The query parameter 'decision' must be allow or decline.")
    limit = 50
    raw_limit = params.get("limit")
    if raw_limit:
        if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= PAGE_LIMIT:
            raise QueryError(
                f"The query parameter 'limit' must be a whole number from 1 to {PAGE_LIMIT}."
            )
        limit = int(raw_limit)
    cursor: tuple[str, int, str] | None = None
    raw_cursor = params.get("cursor")
    if raw_cursor:
        decided, _, rest = _unwrap(raw_cursor).partition("|")
        run, _, board_id = rest.partition("|")
        if not decided or run not in ("0", "1") or not board_id:
            raise QueryError(
                "The query parameter 'cursor' must be a cursor a previous page gave as 'next'."
            )
        cursor = (decided, int(run), board_id)
    return HistoryQuery(limit=limit, cursor=cursor, **values)


def _wrap(decided: str, run: int, board_id: str) -> str:
    """A cursor: the decision's time, its run (1: this one) and its board id, URL-safe."""
    text = f"{decided}|{run}|{board_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _unwrap(cursor: str) -> str:
    if len(cursor) > 1600:
        return ""
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return ""


def full_text(source: str | None, tool_input: Mapping[str, Any]) -> str:
    """The whole text of a call: its command, or (a tool that is not a shell) its input as JSON."""
    return source if source is not None else json.dumps(tool_input, ensure_ascii=False)


def clipped(text: str) -> str:
    """A call's text as a history item carries it: at most `TEXT_LIMIT` characters."""
    return clip(text, TEXT_LIMIT)


def call_text(item: WaitingCall) -> str:
    """The whole text of a question's call (see `full_text`)."""
    request = item.request
    return full_text(request.plan.source if request.plan is not None else None, request.call.input)


def history_item(
    item: WaitingCall, record: DecisionRecord, events: Sequence[msgspec.Raw]
) -> HistoryItem:
    """A decided question as the history shows it (the rules that answered read from its events)."""
    request = item.request
    call = request.call
    text = call_text(item)
    rules: list[str] = []
    for raw in events:
        try:
            said = _SAID.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if said.event == "approver.decided" and said.rule and said.rule not in rules:
            rules.append(said.rule)
    if record.by == "person":
        human = "human" if record.scope in (None, "once") else f"human.{record.scope}"
        if human not in rules:
            rules.append(human)
    return HistoryItem(
        id=item.id,
        call_id=item.call_id,
        kind=item.kind,
        tool=call.tool,
        text=clipped(text),
        summary=summarise_effects(request.effects),
        session=call.session_id,
        agent=call.agent_id,
        host=call.host,
        cwd=call.cwd,
        digest=item.digest,
        created=item.created,
        rules=tuple(rules),
        decision=record,
    )


def _person(item: HistoryItem) -> str:
    """Who decided: the token's name for a person, else why nobody did (``timeout``…)."""
    record = item.decision
    return (record.decided_by or "person") if record.by == "person" else record.by


def _matches(item: HistoryItem, query: HistoryQuery, full_text: str) -> bool:
    checks = (
        (query.session, item.session),
        (query.agent, item.agent),
        (query.decision, item.decision.decision),
        (query.person, _person(item)),
    )
    if any(wanted is not None and wanted != value for wanted, value in checks):
        return False
    if query.rule is not None and query.rule not in item.rules:
        return False
    if query.q is not None:
        record = item.decision
        haystack = " ".join(
            part or ""
            for part in (full_text, item.summary, record.note, record.reason, item.call_id)
        )
        return query.q.casefold() in haystack.casefold()
    return True


def _facets(values: Iterable[str | None]) -> tuple[Facet, ...]:
    counts = Counter(value for value in values if value)
    return tuple(
        Facet(value=value, count=count)
        for value, count in sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    )


_EARLIEST: Final = datetime.min.replace(tzinfo=UTC)


def _moment(text: str) -> datetime:
    """
    When, to the second, from an ISO 8601 time.

    The board says seconds and the audit log fractions of them: within one
    second, a decision of this run counts as later than one of an earlier run.
    """
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return _EARLIEST
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return moment.replace(microsecond=0)


class Kept(NamedTuple):
    """A decision the history may show: the item, the call's full text, and its run (1: this one, 0: earlier)."""

    item: HistoryItem
    text: str
    run: int


def _order(kept: Kept) -> tuple[datetime, int, str]:
    return _moment(kept.item.decision.decided), kept.run, kept.item.id


def history_page(instance: str, kept: Sequence[Kept], query: HistoryQuery) -> HistoryPage:
    """One page of ``kept`` for ``query``, newest first."""
    ordered = sorted(kept, key=_order, reverse=True)
    matching = [one for one in ordered if _matches(one.item, query, one.text)]
    if query.cursor is not None:
        decided, run, board_id = query.cursor
        after = (_moment(decided), run, board_id)
        start = [one for one in matching if _order(one) < after]
    else:
        start = matching
    shown = start[: query.limit]
    page = [one.item for one in shown]
    last = shown[-1] if len(start) > len(shown) else None
    items = [one.item for one in ordered]
    return HistoryPage(
        instance=instance,
        total=len(matching),
        items=tuple(page),
        next=None if last is None else _wrap(last.item.decision.decided, last.run, last.item.id),
        sessions=_facets(item.session for item in items),
        agents=_facets(item.agent for item in items),
        rules=_facets(rule for item in items for rule in item.rules),
        people=_facets(_person(item) for item in items),
    )
