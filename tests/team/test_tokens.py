"""
People's tokens without a broker: ``gateway token`` in the state directory, and the roles the service enforces.

A token is printed once and only its digest is stored (mode 0600). The
running service accepts a new token within a second and stops accepting a
revoked one as fast; approvers decide (and are named in the decision),
viewers read, agents submit calls, and each is refused the rest with one
sentence.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import serving

from gateway.fleet import OWNER, Identity, TokenBook, TokenError, TokenFile, token_digest

pytestmark = pytest.mark.anyio

WAIT = 60.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def gateway(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gateway._cli", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )


def test_a_token_is_shown_once_and_only_its_digest_is_stored(tmp_path: Path) -> None:
    store = tmp_path / "state" / "tokens.json"
    made = gateway(
        "token", "create", "alice", "--role", "viewer", "--tokens-file", str(store), cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    printed = json.loads(made.stdout)
    assert (printed["name"], printed["role"], printed["store"]) == ("alice", "viewer", str(store))
    assert "shown only now" in made.stderr
    token = printed["token"]
    saved = store.read_text()
    assert token not in saved
    assert token_digest(token) in saved
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    again = gateway("token", "create", "alice", "--tokens-file", str(store), cwd=tmp_path)
    assert again.returncode == 2
    assert "A token named 'alice' exists already; revoke it first" in again.stderr
    listed = json.loads(gateway("token", "list", "--tokens-file", str(store), cwd=tmp_path).stdout)
    assert [(t["name"], t["role"]) for t in listed["tokens"]] == [("alice", "viewer")]
    revoked = gateway("token", "revoke", "alice", "--tokens-file", str(store), cwd=tmp_path)
    assert (revoked.returncode, json.loads(revoked.stdout)["revoked"]) == (0, True)
    missing = gateway("token", "revoke", "alice", "--tokens-file", str(store), cwd=tmp_path)
    assert missing.returncode == 1


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Alice", "lowercase"),
        ("a b", "lowercase"),
        ("", "lowercase"),
        ("x" * 65, "lowercase"),
        ("-x", "lowercase"),
        (OWNER, "the token `gateway serve` makes at start"),
    ],
    ids=["upper", "space", "empty", "long", "dash-first", "owner"],
)
def test_names_that_cannot_name_a_token_are_refused(
    tmp_path: Path, name: str, problem: str
) -> None:
    with pytest.raises(TokenError, match=problem):
        TokenFile(tmp_path / "tokens.json").create(name, "approver")


def test_a_book_identifies_tokens_by_digest_and_keeps_its_pinned_token(tmp_path: Path) -> None:
    store = TokenFile(tmp_path / "tokens.json")
    token = store.create("carol", "agent")
    book = TokenBook(store.records())
    book.pin("own", Identity(name=OWNER, role="approver"))
    assert book.identify(token) == Identity(name="carol", role="agent")
    assert book.identify("own") == Identity(name=OWNER, role="approver")
    assert book.identify("") is None
    assert book.identify(token[:-1]) is None
    book.replace([])
    assert book.identify(token) is None
    assert book.identify("own") is not None


CONFIG = """
[gateway]
approvers = ["human"]

[serve]
human-timeout = 60
protect-reads = true
"""


@contextmanager
def service(tmp_path: Path, store: Path) -> Iterator[tuple[str, str]]:
    config = tmp_path / "gateway.toml"
    config.write_text(CONFIG)
    with serving.gateway_serve(
        "--config",
        str(config),
        "--token-file",
        str(tmp_path / "state" / "token"),
        "--tokens-file",
        str(store),
        cwd=tmp_path,
    ) as served:
        yield served.url.rstrip("/"), served.token


async def _status(url: str, token: str, method: str, path: str, body: Any = None) -> httpx.Response:
    async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=WAIT) as client:
        return await client.request(
            method, path, json=body, headers={"Authorization": f"Bearer {token}"}
        )


async def _until(
    url: str, token: str, path: str, done: Callable[[httpx.Response], bool]
) -> httpx.Response:
    """GET ``path`` until ``done`` says its answer is the awaited one (bounded)."""
    with anyio.fail_after(WAIT):
        while True:
            answer = await _status(url, token, "GET", path)
            if done(answer):
                return answer
            await anyio.sleep(0.1)


async def test_each_role_may_do_what_it_is_for_and_is_refused_the_rest(tmp_path: Path) -> None:
    store = TokenFile(tmp_path / "tokens.json")
    approver = store.create("alice", "approver")
    viewer = store.create("vic", "viewer")
    agent = store.create("bot", "agent")
    with service(tmp_path, store.path) as (url, _own):
        # Reads (protected here): viewers and approvers, not agents.
        assert (await _status(url, viewer, "GET", "/v1/calls")).status_code == 200
        assert (await _status(url, approver, "GET", "/v1/calls")).status_code == 200
        refused = await _status(url, agent, "GET", "/v1/calls")
        assert refused.status_code == 403
        assert refused.json()["error"] == (
            "The token 'bot' has the role agent, and reading needs a viewer or approver token."
        )
        # Reviews: agents and approvers, not viewers.
        call = {"tool": "Bash", "input": {"command": "make deploy"}, "call_id": "t-1"}
        refused = await _status(url, viewer, "POST", "/v1/review", call)
        assert refused.status_code == 403
        assert "reviews need an agent or approver token" in refused.json()["error"]
        verdicts: list[dict[str, Any]] = []
        async with anyio.create_task_group() as group:

            async def review() -> None:
                verdicts.append((await _status(url, agent, "POST", "/v1/review", call)).json())

            group.start_soon(review)
            await _until(url, viewer, "/v1/calls?state=pending", lambda a: bool(a.json()["calls"]))
            pending = (await _status(url, viewer, "GET", "/v1/calls/t-1")).json()
            decision = {"decision": "decline", "digest": pending["digest"], "note": "not today"}
            for token in (viewer, agent):
                assert (
                    await _status(url, token, "POST", "/v1/calls/t-1/decision", decision)
                ).status_code == 403
            done = await _status(url, approver, "POST", "/v1/calls/t-1/decision", decision)
            assert done.status_code == 200, done.text
            assert done.json()["decision"]["decided_by"] == "alice"
        assert verdicts[0]["decided_by"] == "alice"
        assert verdicts[0]["reason"] == (
            "Declined `make deploy`: a person (alice) declined it; their note: not today."
        )
        # A token made while the service runs is accepted, a revoked one refused, within a second or so.
        late = store.create("late", "viewer")
        await _until(url, late, "/v1/calls", lambda a: a.status_code == 200)
        store.revoke("vic")
        answer = await _until(url, viewer, "/v1/calls", lambda a: a.status_code == 401)
        assert "The bearer token is wrong" in answer.json()["error"]
