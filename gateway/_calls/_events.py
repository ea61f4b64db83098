"""
Events: everything the gateway does, as a closed, tagged union of records.

Each event carries a sequence number, a UTC timestamp, the call it belongs to,
the trace and span ids of the review, its own digest, and the digest of the
event before it. The digests form a hash chain: an audit log that was edited,
reordered or cut short no longer verifies (`verify_chain`).

A publisher builds a *draft* — the event with only its own fields, as in
``CallProposed(call_id=…, tool=…)`` — and the bus fills in ``seq``, ``time``,
``previous`` and ``digest`` when it puts the event in the chain.

A chain starts with a ``chain.genesis`` record and, when the gateway has a
key, carries signed ``chain.checkpoint`` records: the signature covers the
digest of everything before it, so whoever rewrites the log without the key
cannot make it verify again. What the gateway found when it continued a log
that did not end cleanly is a ``log.recovered`` record.

An event's digest is ``sha256`` over the canonical encoding of the event with
its ``digest`` field empty. Secrets never enter events: tool inputs are
published with their secrets masked, and plans are already redacted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

import msgspec

from gateway._calls._digest import digest_of
from gateway._calls._effects import Effect
from gateway._calls._plans import Hole, ProgramPlan, SequencePlan
from gateway._calls._verdicts import Verdict

__all__ = [
    "GENESIS",
    "RUN_CHANGES_KEPT",
    "ApproverDecided",
    "ApproverFailed",
    "CallOutcome",
    "CallProposed",
    "ChainBreak",
    "ChainCheckpoint",
    "ChainGenesis",
    "Event",
    "GatewayStarted",
    "GatewayStopped",
    "HoleAnswered",
    "HoleQuestion",
    "HoleRef",
    "HostDecided",
    "LogRecovered",
    "PlanReady",
    "RunChanged",
    "SinkFailed",
    "VerdictReached",
    "VerdictWithdrawn",
    "WitnessFailed",
    "event_digest",
    "event_tag",
    "signed_digest",
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
    # The bus fills in seq, time, previous and digest; a draft leaves them be.
    # The defaults never pass for a record: -1 breaks the sequence, an empty
    # digest matches nothing, and `gateway verify` wants every record to be
    # exactly the bytes the gateway writes.
    seq: int = -1
    time: str = ""
    call_id: str | None = None
    trace_id: str | None = None
    span_id: str | None = None
    previous: str = ""
    digest: str = ""


class GatewayStarted(_Event, frozen=True, kw_only=True, tag="gateway.started"):
    """
    A gateway opened: its version, the digest of its config, its approvers and sinks.

    ``plan_format`` is the version of the plan's wire form (`gateway._calls._effects.PLAN_FORMAT`)
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


SigningAlgorithm = Literal["ed25519", "hmac-sha256", "none"]


class ChainGenesis(_Event, frozen=True, kw_only=True, tag="chain.genesis"):
    """
    The first record of a chain: which chain, and the key that signs it.

    Its ``previous`` is `GENESIS`. With a key, it is signed like a checkpoint,
    so a log whose first records were deleted no longer starts with it.

    Attributes:
        chain: A random id, new for every chain.
        algorithm: ``ed25519``, ``hmac-sha256``, or ``none`` (an unsigned chain).
        key: The id of the key that signs the chain (``ed25519:…``), if any.
        signature: The signature of `signed_digest` of this record (base64url).
    """

    chain: str
    algorithm: SigningAlgorithm
    key: str | None = None
    signature: str = ""


class ChainCheckpoint(_Event, frozen=True, kw_only=True, tag="chain.checkpoint"):
    """
    A signed statement that the chain up to the record before it is what it is.

    Its ``previous`` is the digest of that record, and the signature covers
    it: editing, dropping or reordering anything before it, and computing the
    chain again, cannot be hidden without the key. Checkpoints come every
    ``[audit] checkpoint-every`` events or ``checkpoint-interval`` seconds, and
    when a gateway stops; each is also handed to the witnesses.

    Attributes:
        genesis: The digest of the chain's first record (its ``chain.genesis``).
        covered: How many records come before this one in the log (its seq, when
            the log starts at 0).
        algorithm: How it is signed.
        key: The id of the key that signed it.
        final: Written as the gateway stopped, right after ``gateway.stopped``:
            a log that ends with it ended cleanly.
        signature: The signature of `signed_digest` of this record (base64url).
    """

    genesis: str
    covered: int
    algorithm: SigningAlgorithm
    key: str | None = None
    final: bool = False
    signature: str = ""


class LogRecovered(_Event, frozen=True, kw_only=True, tag="log.recovered"):
    """
    What a sink found when it continued a log that did not end cleanly.

    Attributes:
        sink: Which sink.
        found: One sentence: how the log ended, and what was done.
        torn_bytes: Bytes after the last whole record (a write cut short).
        set_aside: Where those bytes were moved, if there were any.
        last_seq: The sequence number of the last whole record.
    """

    sink: str
    found: str
    torn_bytes: int = 0
    set_aside: str | None = None
    last_seq: int | None = None


class SinkFailed(_Event, frozen=True, kw_only=True, tag="sink.failed"):
    """A sink failed (it raised, or stayed blocked past the audit timeout); the others go on."""

    sink: str
    reason: str


class WitnessFailed(_Event, frozen=True, kw_only=True, tag="witness.failed"):
    """A witness could not take a checkpoint (``checkpoint`` is its sequence number)."""

    witness: str
    checkpoint: int
    reason: str


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
    ``reused`` says the approver was not asked again: it declares its answers
    depend only on the question, and it gave this one to an identical call.
    ``decided_by`` names the person, when a person decided; ``policy`` the
    version of the approver's policy that answered, when it has versions.
    """

    approver: str
    decision: Literal["allow", "decline", "abstain"]
    reason: str | None
    rule: str | None
    question: HoleRef | None = None
    note: str | None = None
    reused: bool = False
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

    There is one per review, and it is written before the verdict is
    released. If it cannot be written in time, the caller gets a decline and
    a ``verdict.withdrawn`` record says so.

    In ``shadow`` mode ``verdict`` is what the gateway would have returned;
    the host was told to decide on its own (`Verdict.defer`).
    """

    verdict: Verdict
    question: HoleRef | None = None
    mode: Literal["enforce", "shadow"] = "enforce"


class VerdictWithdrawn(_Event, frozen=True, kw_only=True, tag="verdict.withdrawn"):
    """
    A verdict that was recorded but not released: the caller got ``released`` instead.

    Attributes:
        withdrawn: The sequence number of the ``verdict.reached`` record.
        reason: Why (one sentence): its record was not written in time, or
            the review was cancelled.
        released: What the caller got (always a decline).
        question: As in the withdrawn record.
    """

    withdrawn: int
    reason: str
    released: Verdict
    question: HoleRef | None = None


class CallOutcome(_Event, frozen=True, kw_only=True, tag="call.outcome"):
    """What happened when the host ran (or did not run) the call."""

    outcome: Literal["succeeded", "failed", "denied", "unknown"]
    detail: str | None = None


class RunChanged(_Event, frozen=True, kw_only=True, tag="run.changed"):
    """
    What a confined run changed in its writable roots, against what its plan said it would write.

    Written after a run inside a boundary (``gateway run``), next to its
    ``call.outcome``. Paths are absolute; each list is sorted and holds at
    most `RUN_CHANGES_KEPT` paths (``more`` counts the rest).

    Attributes:
        profile: The profile whose boundary the run stood in.
        status: The run's exit status.
        created: Paths that were not there before the run.
        changed: Paths whose content, type or mode changed.
        deleted: Paths that are gone.
        unpredicted: Those of them no write of the plan names: what the
            code the rules could not read did on its own (a place to look).
        persistence: Those of them that are persistence points (a new
            ``.envrc``, a file under ``.github/workflows/``): what makes
            code run later, which the boundary keeps read-only only where it
            existed before the run.
        more: How many changes were left out of the lists.
    """

    profile: str
    status: int
    created: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    unpredicted: tuple[str, ...] = ()
    persistence: tuple[str, ...] = ()
    more: int = 0


RUN_CHANGES_KEPT: Final = 200
"""The most paths a `RunChanged` record lists in each of its lists."""


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
    ChainGenesis
    | ChainCheckpoint
    | GatewayStarted
    | GatewayStopped
    | LogRecovered
    | SinkFailed
    | WitnessFailed
    | CallProposed
    | PlanReady
    | HoleQuestion
    | ApproverDecided
    | ApproverFailed
    | HoleAnswered
    | VerdictReached
    | VerdictWithdrawn
    | CallOutcome
    | RunChanged
    | HostDecided
)


def event_tag(event: Event) -> str:
    """An event's wire tag (``call.proposed``…)."""
    return str(type(event).__struct_config__.tag)


def event_digest(event: Event) -> str:
    """The digest of an event: its canonical encoding with ``digest`` empty."""
    # The bus digests an event it built with ``digest`` empty: no copy is needed.
    return digest_of(msgspec.structs.replace(event, digest="") if event.digest else event)


def signed_digest(record: ChainGenesis | ChainCheckpoint) -> str:
    """What a genesis or checkpoint signature signs: its digest with ``digest`` and ``signature`` empty."""
    return digest_of(msgspec.structs.replace(record, digest="", signature=""))


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
