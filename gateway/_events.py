"""
Events: everything the gateway does, as a closed, tagged union of records.

Each event carries a per-gateway sequence number, a UTC timestamp, the call it
belongs to, the trace and span ids of the review, its own digest, and the
digest of the event before it. The digests form a hash chain: an audit log
that was edited, reordered or cut short no longer verifies (`verify_chain`).

An event's digest is ``sha256`` over the canonical encoding of the event with
its ``digest`` field empty. Secrets never enter events: tool inputs are
published with their secrets masked, and plans are already redacted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

import msgspec

from gateway._digest import digest_of
from gateway._effects import Effect
from gateway._plans import Hole, ProgramPlan, SequencePlan
from gateway._verdicts import Verdict

__all__ = [
    "GENESIS",
    "ApproverDecided",
    "ApproverFailed",
    "CallOutcome",
    "CallProposed",
    "ChainBreak",
    "Event",
    "GatewayStarted",
    "GatewayStopped",
    "HoleAnswered",
    "HoleQuestion",
    "HoleRef",
    "HostDecided",
    "PlanReady",
    "VerdictReached",
    "decode_event",
    "event_digest",
    "verify_chain",
]

GENESIS: Final = "sha256:" + "0" * 64
"""The ``previous`` digest of the first event of a chain."""


class HoleRef(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, order=True):
    """Which hole: statement, heredoc (flat index), and the hole's index in that body."""

    statement: int
    heredoc: int
    hole: int


class _Event(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="event"
):
    seq: int
    time: str
    call_id: str | None
    trace_id: str | None = None
    span_id: str | None = None
    previous: str
    digest: str


class GatewayStarted(_Event, frozen=True, kw_only=True, tag="gateway.started"):
    """
    A gateway opened: its version, the digest of its config, its approvers and sinks.

    ``plan_format`` is the version of the plan's wire form (`gateway._effects.PLAN_FORMAT`)
    every plan digest after it is computed in; a record without it is of format 1.
    """

    version: str
    plan_format: int = 1
    config_digest: str
    approvers: tuple[str, ...]
    sinks: tuple[str, ...]


class GatewayStopped(_Event, frozen=True, kw_only=True, tag="gateway.stopped"):
    """A gateway closed cleanly after publishing ``events`` events; a log that ends without it was cut short or is still open."""

    events: int


class CallProposed(_Event, frozen=True, kw_only=True, tag="call.proposed"):
    """A call arrived for review (its input with secrets masked)."""

    tool: str
    input: dict[str, Any]
    session_id: str | None
    agent_id: str | None
    cwd: str | None
    host: str | None


class PlanReady(_Event, frozen=True, kw_only=True, tag="plan.ready"):
    """
    The call's plan, and the digest every later decision is bound to.

    ``plan`` is ``None`` for a tool that is not a shell; for a shell whose text
    could not be read, it is an unmeasured plan with its reason. ``effects``
    are what the call does outside its plan: everything a tool that is not a
    shell does, read from its input (or one ``opaque`` effect), and what a
    shell tool's input adds (``local_shell``'s ``env`` and ``user``); the
    plan's own effects are in the plan.
    """

    shell: bool
    plan_digest: str
    plan: ProgramPlan | None
    sequence: SequencePlan | None = None
    commands: int = 0
    holes: int = 0
    effects: tuple[Effect, ...] = ()


class HoleQuestion(_Event, frozen=True, kw_only=True, tag="hole.question"):
    """A ``$( )`` in an unquoted heredoc body, put to the approvers as its own question."""

    ref: HoleRef
    hole: Hole


class ApproverDecided(_Event, frozen=True, kw_only=True, tag="approver.decided"):
    """
    An approver answered (a question about the call, a hole, or a completed body).

    ``note`` says when the gateway did not take the answer as given (an allow
    of an unmeasured plan by an approver that does not review raw text).
    ``decided_by`` names the person, when a person decided; ``policy`` the
    version of the approver's policy that answered, when it has versions.
    """

    approver: str
    decision: Literal["allow", "decline", "abstain"]
    reason: str | None
    rule: str | None
    question: HoleRef | None = None
    note: str | None = None
    decided_by: str | None = None
    policy: str | None = None


class ApproverFailed(_Event, frozen=True, kw_only=True, tag="approver.failed"):
    """An approver timed out, raised, or answered garbage: the gateway declined for it."""

    approver: str
    reason: str
    question: HoleRef | None = None


class HoleAnswered(_Event, frozen=True, kw_only=True, tag="hole.answered"):
    """The host handed back a hole's output (its digest and length; the text itself stays out)."""

    ref: HoleRef
    answer_digest: str
    length: int


class VerdictReached(_Event, frozen=True, kw_only=True, tag="verdict.reached"):
    """
    The gateway's verdict for the call (or for a completed heredoc body).

    In ``shadow`` mode ``verdict`` is what the gateway would have returned;
    the host was told to decide on its own (`Verdict.defer`).
    """

    verdict: Verdict
    question: HoleRef | None = None
    mode: Literal["enforce", "shadow"] = "enforce"


class CallOutcome(_Event, frozen=True, kw_only=True, tag="call.outcome"):
    """What happened when the host ran (or did not run) the call."""

    outcome: Literal["succeeded", "failed", "denied", "unknown"]
    detail: str | None = None


class HostDecided(_Event, frozen=True, kw_only=True, tag="host.decided"):
    """
    A person answered inside the host, not through the gateway's approvers.

    Hosts that ask their user themselves (the Claude Agent SDK's ``ask``
    callback, a LangChain interrupt resumed, ``RunState.approve`` in the
    OpenAI Agents SDK, an MCP proxy's ``ask``) report the answer here, so the
    audit log shows who let a call with an ``ask`` verdict run, or refused it.

    Attributes:
        decision: ``allow`` or ``decline``.
        by: Who answered: ``person``, or why nobody did (``timeout``,
            ``failed``: asking raised, ``nobody``: there was no one to ask).
        host: The host the answer came from.
        detail: The person's note, if any (secrets masked).
    """

    decision: Literal["allow", "decline"]
    by: Literal["person", "timeout", "failed", "nobody"]
    host: str | None = None
    detail: str | None = None


Event = (
    GatewayStarted
    | GatewayStopped
    | CallProposed
    | PlanReady
    | HoleQuestion
    | ApproverDecided
    | ApproverFailed
    | HoleAnswered
    | VerdictReached
    | CallOutcome
    | HostDecided
)

_EVENT_DECODER: Final = msgspec.json.Decoder(Event)


def event_digest(event: Event) -> str:
    """The digest of an event: its canonical encoding with ``digest`` empty."""
    return digest_of(msgspec.structs.replace(event, digest=""))


class ChainBreak(msgspec.Struct, frozen=True, kw_only=True):
    """Where and why an event chain does not verify."""

    index: int
    seq: int | None
    reason: str


def verify_chain(events: Iterable[Event]) -> ChainBreak | None:
    """
    Check a run of events: digests, links and sequence numbers.

    A chain may begin anywhere (its first ``previous`` is not checked against
    anything), but every later event must name the digest of the one before
    it, carry the next sequence number, and hash to its own digest.

    Returns:
        ``None`` when intact, else the first break.
    """
    previous: Event | None = None
    for index, event in enumerate(events):
        if event_digest(event) != event.digest:
            return ChainBreak(
                index=index, seq=event.seq, reason="its digest does not match its content"
            )
        if previous is not None:
            if event.previous != previous.digest:
                return ChainBreak(
                    index=index,
                    seq=event.seq,
                    reason="it does not name the digest of the event before it",
                )
            if event.seq != previous.seq + 1:
                return ChainBreak(
                    index=index,
                    seq=event.seq,
                    reason=f"its sequence number follows {previous.seq} but is {event.seq}",
                )
        previous = event
    return None


def decode_event(data: bytes) -> Event:
    """Decode one JSON-encoded event."""
    return _EVENT_DECODER.decode(data)
