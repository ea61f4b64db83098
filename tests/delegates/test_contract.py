"""
The delegate contract: the document, the answer, the reason, the sentences and the signature.
"""

from __future__ import annotations

import doctest
import hashlib
import hmac
import importlib
import json
from typing import Any

import pytest
from gateway_delegates import (
    CONTRACT_VERSION,
    DelegateAnswer,
    document_of,
    encode_document,
    read_answer,
    sign_document,
    verify_signature,
)
from gateway_delegates._contract import (
    _SENTENCES,
    REASON_LIMIT,
    answer_for,
    answer_of,
    failed,
    reason_text,
)

from delegates.support import request_for
from gateway import Abstain, Allow, Decline, ToolCall

WHO = "the test delegate"


def _read(data: bytes | str) -> Any:
    return read_answer(data, WHO, "decline")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ('{"decision": "allow", "reason": "Fine."}', DelegateAnswer("allow", "Fine.")),
        (' \n{"reason": "No.", "decision": "decline"}\n', DelegateAnswer("decline", "No.")),
        ('{"decision": "abstain", "reason": "Unsure."}', DelegateAnswer("abstain", "Unsure.")),
        (
            '{"decision": "allow", "reason": "Line one.\\nIgnore the rules\\u202e."}',
            DelegateAnswer("allow", "Line one. Ignore the rules ."),
        ),
    ],
    ids=["allow", "whitespace-and-order", "abstain", "control-characters-become-spaces"],
)
def test_reads_an_answer(data: str, expected: DelegateAnswer) -> None:
    assert _read(data) == expected


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        (b"", "is not one JSON object"),
        (b"allow", "is not one JSON object"),
        (b'"allow"', "is not one JSON object"),
        (b"null", "is not one JSON object"),
        (b'{"decision": "allow", "reason": "a"}{}', "is not one JSON object"),
        (b'{"decision": "allow", "reason": "\xff\xfe"}', "is not one JSON object"),
        (b"\x00", "is not one JSON object"),
        (b"[" * 10_000 + b"]" * 10_000, "is not one JSON object"),
        (b'{"decision": "ALLOW", "reason": "a"}', "invalid enum value 'ALLOW' (at `decision`)"),
        (b'{"decision": true, "reason": "a"}', "expected `str`, got `bool` (at `decision`)"),
        (b'{"decision": "allow", "reason": 7}', "expected `str`, got `int` (at `reason`)"),
        (b'{"decision": "allow"}', "object missing required field `reason`"),
        (b'{"reason": "a"}', "object missing required field `decision`"),
        (b'{"decision": "allow", "reason": ""}', "its reason is empty"),
        (b'{"decision": "allow", "reason": "\\u0000\\u200b"}', "its reason is empty"),
        (b'{"decision": "allow", "reason": "a", "ttl": 9}', "object contains unknown field `ttl`"),
        (
            b'{"decision": "decline", "reason": "No.", "decision": "allow"}',
            "(the key `decision` appears twice)",
        ),
        (
            b'{"decision": "allow", "reason": "Fine.", "reason": "Fine."}',
            "(the key `reason` appears twice)",
        ),
    ],
    ids=[
        "empty",
        "a-word",
        "a-string",
        "null",
        "two-objects",
        "invalid-utf8",
        "nul",
        "deep",
        "upper-case-decision",
        "decision-not-a-string",
        "reason-not-a-string",
        "no-reason",
        "no-decision",
        "empty-reason",
        "invisible-reason",
        "unknown-field",
        "decision-twice",
        "reason-twice",
    ],
)
def test_anything_but_one_answer_is_a_failure(data: bytes, detail: str) -> None:
    failure = _read(data)
    assert not isinstance(failure, DelegateAnswer)
    assert detail in failure.sentence
    assert failure.sentence.startswith("The test delegate answered ")
    assert failure.sentence.endswith(", and the gateway fails closed.")


def test_a_long_reason_is_cut() -> None:
    answer = _read(json.dumps({"decision": "decline", "reason": "word " * 1000}))
    assert isinstance(answer, DelegateAnswer)
    assert len(answer.reason) == REASON_LIMIT
    assert answer.reason.endswith("…")


def test_reason_text_is_one_clean_line() -> None:
    assert reason_text("  a\tb\r\nc\u2028d\u200fe  ") == "a b c d e"


@pytest.mark.parametrize("kind", sorted(_SENTENCES))
def test_every_failure_is_one_sentence_that_never_allows(kind: str) -> None:
    values = {
        "who": WHO,
        "size": 9,
        "limit": 1,
        "detail": "why",
        "seconds": 2.5,
        "status": 3,
        "signal": "SIGKILL",
    }
    for on_failure, kind_of_answer in (("decline", Decline), ("abstain", Abstain)):
        failure = failed(kind, on_failure, **values)  # type: ignore[arg-type]
        assert failure.sentence[0].isupper()
        assert failure.sentence.endswith(".")
        assert failure.sentence.count(". ") == 0
        assert type(answer_for(failure, on_failure)) is kind_of_answer  # type: ignore[arg-type]


def test_answers_map_to_the_gateways() -> None:
    assert answer_of(DelegateAnswer("allow", "a.")) == Allow(reason="a.")
    assert answer_of(DelegateAnswer("decline", "d.")) == Decline(reason="d.")
    assert answer_of(DelegateAnswer("abstain", "x.")) == Abstain(reason="x.")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_document_is_the_request_with_a_version(anyio_backend: str) -> None:
    request = await request_for(
        ToolCall("Bash", {"command": "git status"}, session_id="s", agent_id="a")
    )
    document = document_of(request)
    assert document["version"] == CONTRACT_VERSION
    assert set(document) == {"version", *request.__struct_fields__}
    assert "effects" in document
    encoded = encode_document(document)
    assert encoded == encode_document(json.loads(encoded)), "canonical: sorted keys, stable"


def test_the_signature_is_hmac_sha256_over_timestamp_delivery_and_body() -> None:
    key, body = b"k" * 32, b'{"version":1}'
    headers = sign_document(key, body, timestamp=1_700_000_000, delivery="d-1")
    expected = hmac.new(key, b"1700000000.d-1." + body, hashlib.sha256).hexdigest()
    assert headers == {
        "X-Gateway-Timestamp": "1700000000",
        "X-Gateway-Delivery": "d-1",
        "X-Gateway-Signature": f"v1={expected}",
    }
    assert verify_signature(key, headers, body, now=1_700_000_100)
    lower = {name.lower(): value for name, value in headers.items()}
    assert verify_signature(key, lower, body, now=1_700_000_000)


@pytest.mark.parametrize(
    ("change", "now"),
    [
        ({}, 1_700_000_301),
        ({}, 1_699_999_699),
        ({"X-Gateway-Delivery": "d-2"}, 1_700_000_000),
        ({"X-Gateway-Timestamp": "1700000001"}, 1_700_000_000),
        ({"X-Gateway-Timestamp": "-1700000000"}, 1_700_000_000),
        ({"X-Gateway-Timestamp": "\uff11\uff17" + "\uff10" * 8}, 1_700_000_000),
        ({"X-Gateway-Signature": "v1=00"}, 1_700_000_000),
        ({"X-Gateway-Signature": ""}, 1_700_000_000),
    ],
    ids=[
        "too-late",
        "too-early",
        "other-delivery",
        "other-timestamp",
        "negative-timestamp",
        "non-ascii-digits",
        "wrong-signature",
        "no-signature",
    ],
)
def test_a_signature_that_does_not_hold_is_refused(change: dict[str, str], now: int) -> None:
    key, body = b"k" * 32, b'{"version":1}'
    headers = {**sign_document(key, body, timestamp=1_700_000_000, delivery="d-1"), **change}
    assert not verify_signature(key, headers, body, now=now)
    assert not verify_signature(
        b"other" * 8, sign_document(key, body, timestamp=1, delivery="d"), body, now=1
    )
    assert not verify_signature(
        key, sign_document(key, body, timestamp=1, delivery="d"), body + b" ", now=1
    )


@pytest.mark.parametrize(
    "name",
    ["gateway_delegates._contract", "gateway_delegates._signature", "gateway_delegates._envelope"],
)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
