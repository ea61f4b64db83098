"""
The delegate contract: the JSON document a delegate is sent, the answer it gives back.

Every delegate — a program (``command``), a web service (``webhook``), a
language model (``model``) — is asked with the same document and answers the
same way, so one reader of answers serves all three and one table of
sentences says what went wrong. Nothing here does I/O.

The document is the approver's `ReviewRequest` as JSON (the call with its
secrets masked, the plan, the effects, what the approvers before it answered,
the session and agent ids) with ``"version": 1`` in front. The answer is one
JSON object, ``{"decision": "allow" | "decline" | "abstain", "reason": "…"}``,
and nothing else: an unknown field, a missing reason, more bytes than the
limit or anything that is not JSON is a failure, and a failure is never an
allow.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Annotated, Any, Final, Literal, TypeVar

import msgspec

from gateway import Abstain, Allow, Answer, Decline, ReviewRequest
from gateway.config import validation_path

__all__ = [
    "CONTRACT_VERSION",
    "GRACE",
    "DelegateAnswer",
    "DelegateOptions",
    "Failure",
    "FailureKind",
    "OnFailure",
    "answer_for",
    "answer_from",
    "answer_of",
    "decode_options",
    "document_of",
    "encode_document",
    "failed",
    "read_answer",
    "reason_text",
    "too_large",
]

CONTRACT_VERSION: Final = 1
"""The version of the document's shape; a delegate should refuse a version it does not know."""

REASON_LIMIT: Final = 300
"""Characters of a delegate's reason that are kept (the rest is cut, with "…")."""

GRACE: Final = 5.0
"""Seconds the gateway allows a delegate past its own deadline, to stop its work and say why itself."""

Seconds = Annotated[float, msgspec.Meta(gt=0, le=3600)]
Size = Annotated[int, msgspec.Meta(ge=1, le=64 * 1024 * 1024)]
Concurrency = Annotated[int, msgspec.Meta(ge=1, le=256)]

_T = TypeVar("_T")
_ENCODER: Final = msgspec.json.Encoder(order="sorted")


class DelegateAnswer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """
    What a delegate answers: its decision and one sentence of reason.

    Attributes:
        decision: ``allow``, ``decline`` or ``abstain`` (the next approver, or
            a person, decides).
        reason: Why, in one sentence (shown with the verdict and kept in the
            audit log; at most `REASON_LIMIT` characters are kept).
    """

    decision: Literal["allow", "decline", "abstain"]
    reason: str


OnFailure = Literal["decline", "abstain"]


class DelegateOptions(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    Options every delegate shares (keys of ``[approver.NAME]``).

    Attributes:
        on_failure: What a failure answers: ``decline`` (the default) or
            ``abstain`` (the next approver, or a person, decides). Never allow.
        max_document: Bytes the document may have; a larger call is a failure.
        concurrency: Questions this delegate works on at once; more wait
            (within their timeout).
    """

    on_failure: OnFailure = "decline"
    max_document: Size = 4 * 1024 * 1024
    concurrency: Concurrency = 4


FailureKind = Literal[
    "too_large",
    "start",
    "timeout",
    "unread",
    "exit",
    "signal",
    "oversized",
    "not_json",
    "off_schema",
    "status",
    "unreachable",
    "tls",
    "refused",
]

_SENTENCES: Final[dict[FailureKind, str]] = {
    "too_large": "the call is too large to hand to {who} ({size} bytes, more than {limit})",
    "start": "{who} could not be started ({detail})",
    "timeout": "{who} did not answer within {seconds:g} s",
    "unread": "{who} exited before it read the whole call",
    "exit": "{who} exited with status {status}",
    "signal": "{who} was killed by signal {signal}",
    "oversized": "{who} answered more than {limit} bytes",
    "not_json": "{who} answered something that is not one JSON object",
    "off_schema": "{who} answered JSON that is not a decision ({detail})",
    "status": "{who} answered HTTP {status}",
    "unreachable": "{who} could not be reached ({detail})",
    "tls": "{who} could not be verified over TLS ({detail})",
    "refused": "{who} refused to decide ({detail})",
}
_ENDINGS: Final = {
    "decline": "and the gateway fails closed.",
    "abstain": "so the next approver or a person must decide.",
}


class Failure(msgspec.Struct, frozen=True, kw_only=True):
    """
    Why a delegate gave no usable answer: a kind, and the sentence that says so.

    Attributes:
        kind: What went wrong.
        sentence: One sentence, without a secret or a stack trace.
    """

    kind: FailureKind
    sentence: str


def failed(kind: FailureKind, on_failure: OnFailure, **values: Any) -> Failure:
    """The failure of ``kind``, its sentence filled in from ``values`` and ended for ``on_failure``."""
    clause = _SENTENCES[kind].format(**values)
    return Failure(kind=kind, sentence=f"{clause[:1].upper()}{clause[1:]}, {_ENDINGS[on_failure]}")


def answer_for(failure: Failure, on_failure: OnFailure) -> Answer:
    """What a failure answers: a decline, or an abstain when the config says so; never an allow."""
    if on_failure == "abstain":
        return Abstain(reason=failure.sentence)
    return Decline(reason=failure.sentence)


def answer_from(outcome: DelegateAnswer | Failure, on_failure: OnFailure) -> Answer:
    """The gateway's answer for what a delegate said, or for why it said nothing usable."""
    if isinstance(outcome, Failure):
        return answer_for(outcome, on_failure)
    return answer_of(outcome)


def too_large(document: bytes, limit: int, who: str, on_failure: OnFailure) -> Failure | None:
    """The failure of a document past ``limit`` bytes, if it is."""
    if len(document) <= limit:
        return None
    return failed("too_large", on_failure, who=who, size=len(document), limit=limit)


def document_of(request: ReviewRequest) -> dict[str, Any]:
    """The document a delegate is sent about one question, as JSON-ready data: the request's fields, with ``version``."""
    data = msgspec.to_builtins(request)
    return {"version": CONTRACT_VERSION, **data}


def encode_document(document: dict[str, Any]) -> bytes:
    """The document as canonical JSON bytes (sorted keys): what is sent and what is signed."""
    return _ENCODER.encode(document)


def reason_text(text: str) -> str:
    """
    A delegate's reason as one clean line: control and format characters
    (newlines, bidirectional overrides) become spaces, runs of white space one
    space, and it is cut at `REASON_LIMIT` characters.
    """
    cleaned = "".join(
        " " if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") else char for char in text
    )
    cleaned = " ".join(cleaned.split())
    if len(cleaned) > REASON_LIMIT:
        cleaned = cleaned[: REASON_LIMIT - 1].rstrip() + "…"
    return cleaned


def _problem(error: msgspec.ValidationError) -> str:
    """A validation error as a short clause: ``object contains unknown field `x` (at `reason`)``."""
    message, path = validation_path(error)
    text = message.strip().rstrip(".")
    where = path.removeprefix("$").removeprefix(".") if path else ""
    return reason_text(text[:1].lower() + text[1:] + (f" (at `{where}`)" if where else ""))


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Repeated(key)
        seen[key] = value
    return seen


def _repeated_key(data: bytes | str) -> str | None:
    """A key that some object of ``data`` (valid JSON, already bounded) has twice, if any."""
    try:
        json.loads(data, object_pairs_hook=_unique_pairs)
    except _Repeated as repeated:
        return repeated.key
    except (ValueError, RecursionError):
        return None  # msgspec read it; whatever the standard library refuses is not a repeat
    return None


def read_answer(data: bytes | str, who: str, on_failure: OnFailure) -> DelegateAnswer | Failure:
    """
    Read one answer: the decision, or the failure that says why there is none.

    Args:
        data: The answer's bytes (already bounded by the caller).
        who: How the sentence names the delegate (``the `command` approver's program``).
        on_failure: How a failure's sentence ends.
    """
    try:
        raw = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):  # RecursionError: nested past msgspec's depth
        return failed("not_json", on_failure, who=who)
    if not isinstance(raw, dict):
        return failed("not_json", on_failure, who=who)
    twice = _repeated_key(data)
    if twice is not None:
        # Parsers disagree on which of two values counts: neither does.
        detail = f"the key `{reason_text(twice)[:40]}` appears twice"
        return failed("off_schema", on_failure, who=who, detail=detail)
    try:
        answer = msgspec.convert(raw, DelegateAnswer)
    except msgspec.ValidationError as error:
        return failed("off_schema", on_failure, who=who, detail=_problem(error))
    reason = reason_text(answer.reason)
    if not reason:
        return failed("off_schema", on_failure, who=who, detail="its reason is empty")
    return DelegateAnswer(decision=answer.decision, reason=reason)


def answer_of(answer: DelegateAnswer) -> Answer:
    """The gateway's answer for a delegate's decision."""
    if answer.decision == "allow":
        return Allow(reason=answer.reason)
    if answer.decision == "decline":
        return Decline(reason=answer.reason)
    return Abstain(reason=answer.reason)


def decode_options(options: dict[str, Any], kind: type[_T], table: str) -> _T:
    """
    The ``[approver.NAME]`` table as options of ``kind``.

    Raises:
        ValueError: One sentence naming the table, the key and the problem.
    """
    try:
        return msgspec.convert(options, kind)
    except msgspec.ValidationError as error:
        raise ValueError(f"Invalid [{table}] options: {_problem(error)}.") from None
