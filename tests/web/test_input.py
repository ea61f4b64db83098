"""
Bad input gets a 4xx and one sentence of JSON, never a crash: a table, one row per way to be wrong.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from web.support import config, serve

pytestmark = pytest.mark.anyio

JSON = {"Content-Type": "application/json"}


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn, httpx and the service run on asyncio."""
    return "asyncio"


BODIES = [
    (
        "/v1/review",
        b'{"tool": "Bash", "input": {',
        JSON,
        400,
        r"^The request body is not valid JSON \(.+\)\.$",
    ),
    ("/v1/review", b"[1, 2]", JSON, 400, r"^The request body must be a JSON object\.$"),
    ("/v1/review", b'"ls"', JSON, 400, r"^The request body must be a JSON object\.$"),
    ("/v1/review", b"", JSON, 400, r"^The request body is empty; send a JSON object\.$"),
    (
        "/v1/review",
        b'{"tool": "Bash", "input": {}, "bogus": 1}',
        JSON,
        422,
        r"unknown field `bogus`",
    ),
    (
        "/v1/review",
        b'{"tool": 1, "input": {}}',
        JSON,
        422,
        r"^The request body does not fit: expected `str`, got `int` at `\$\.tool`\.$",
    ),
    ("/v1/review", b'{"input": {}}', JSON, 422, r"missing required field `tool`"),
    (
        "/v1/review",
        b'{"tool": "Bash", "input": {"command": "ls \xff"}}',
        JSON,
        400,
        r"^The request body is not valid UTF-8 \(byte offset 42\)\.$",
    ),
    (
        "/v1/review",
        b'{"tool": "Bash", "input": {"command": "ls\x00"}}',
        JSON,
        400,
        r"^The request body contains a NUL byte\.$",
    ),
    (
        "/v1/review",
        b'{"tool": "Bash", "input": {"command": "ls\\u0000 -la"}}',
        JSON,
        400,
        r"^The request body contains a NUL character \(\\u0000\)\.$",
    ),
    ("/v1/review", b'{"tool": "Bash", "input": {"\\u0000": "x"}}', JSON, 400, r"NUL character"),
    ("/v1/review", b"[" * 2000 + b"]" * 2000, JSON, 400, r"^The request body nests too deeply\.$"),
    (
        "/v1/review",
        b'{"tool": "Bash", "input": {}}',
        {"Content-Type": "text/plain"},
        415,
        r"^Send the body as JSON, with Content-Type: application/json\.$",
    ),
    ("/v1/review", b'{"tool": "Bash", "input": {}}', {}, 415, r"Content-Type: application/json"),
    (
        "/v1/review",
        b'{"tool": "Bash", "input": {"command": "' + b"x" * 5000 + b'"}}',
        JSON,
        413,
        r"^The request body is larger than 4096 bytes\.$",
    ),
    ("/hooks/claude-code", b"not json", JSON, 400, r"not valid JSON"),
    (
        "/v1/calls/x/decision",
        b'{"decision": "maybe", "digest": "sha256:1"}',
        JSON,
        422,
        r"at `\$\.decision`",
    ),
    (
        "/v1/calls/x/decision",
        b'{"decision": "allow", "digest": "sha256:1", "why": "x"}',
        JSON,
        422,
        r"unknown field `why`",
    ),
    (
        "/v1/calls/x/decision",
        b'{"decision": "allow"}',
        JSON,
        422,
        r"missing required field `digest`",
    ),
    (
        "/v1/calls/x/decision",
        b'{"decision": "allow", "digest": "d", "scope": "forever"}',
        JSON,
        422,
        r"at `\$\.scope`",
    ),
]


@pytest.mark.parametrize(
    ("path", "body", "headers", "status", "pattern"),
    BODIES,
    ids=[
        "truncated-json",
        "array",
        "string",
        "empty",
        "unknown-field",
        "wrong-type",
        "missing-field",
        "invalid-utf8",
        "nul-byte",
        "nul-escape",
        "nul-in-key",
        "deep-nesting",
        "text-plain",
        "no-content-type",
        "oversized",
        "hook-not-json",
        "decision-unknown-value",
        "decision-unknown-field",
        "decision-missing-digest",
        "decision-unknown-scope",
    ],
)
async def test_bad_bodies_get_a_4xx_and_one_sentence(
    path: str, body: bytes, headers: dict[str, str], status: int, pattern: str
) -> None:
    with serve(config(max_body=4096), human=True) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post(path, content=body, headers=headers)
            alive = await client.get("/v1/info")
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert re.search(pattern, error), error
    assert error[0].isupper()
    assert error.endswith(".")
    assert "\n" not in error
    assert alive.status_code == 200


async def test_a_too_long_note_is_refused() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post(
                "/v1/calls/x/decision",
                json={"decision": "allow", "digest": "d", "note": "n" * 1001},
            )
    # No call "x" waits: the id is checked first, the note only for a waiting call.
    assert response.status_code == 404


async def test_an_oversized_body_without_a_length_is_cut_off() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b"x" * 1024

    with serve(config(max_body=4096)) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/v1/review", content=chunks(), headers=JSON)
    assert response.status_code == 413
    assert response.json()["error"] == "The request body is larger than 4096 bytes."


QUERIES = [
    (
        "/v1/calls?state=bogus",
        {},
        400,
        "The query parameter 'state' must be pending, decided or all.",
    ),
    ("/v1/calls?limit=0", {}, 400, "The query parameter 'limit' must be between 1 and 500."),
    ("/v1/calls?limit=ten", {}, 400, "The query parameter 'limit' must be a whole number."),
    ("/v1/events?after=x", {}, 400, "The query parameter 'after' must be a whole number."),
    (
        "/v1/events",
        {"Last-Event-ID": "abc"},
        400,
        "The Last-Event-ID header must be a sequence number.",
    ),
    ("/v1/nothing", {}, 404, "There is nothing at '/v1/nothing'."),
    (
        "/v1/audit",
        {},
        404,
        "No audit log is configured; start with `gateway serve --audit FILE` or add a [sinks.audit] table.",
    ),
]


@pytest.mark.parametrize(
    ("path", "headers", "status", "error"),
    QUERIES,
    ids=[
        "state",
        "limit-zero",
        "limit-word",
        "after-word",
        "last-event-id-word",
        "no-route",
        "no-audit",
    ],
)
async def test_bad_queries_get_a_4xx_and_one_sentence(
    path: str, headers: dict[str, str], status: int, error: str
) -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.get(path, headers=headers)
    assert response.status_code == status
    assert response.json() == {"error": error}


async def test_a_wrong_method_gets_405() -> None:
    with serve() as served:
        async with served.client(headers=served.auth) as client:
            get_review = await client.get("/v1/review")
            post_events = await client.post("/v1/events", json={})
    assert get_review.status_code == 405
    assert get_review.json() == {"error": "GET is not allowed on '/v1/review'."}
    assert post_events.status_code == 405
    assert post_events.json() == {"error": "Use GET for the event stream."}
