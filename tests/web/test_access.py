"""
Who gets in: the bearer token, other origins and sites, foreign host names; the headers every answer carries.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from web.support import WAIT, bash, config, serve, wait_pending

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn, httpx and the service run on asyncio."""
    return "asyncio"


WRITES = [
    ("POST", "/v1/review", bash("ls")),
    (
        "POST",
        "/hooks/claude-code",
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}},
    ),
    ("POST", "/v1/calls/x/decision", {"decision": "allow", "digest": "sha256:1"}),
]
READS = ["/v1/calls", "/v1/calls/x", "/v1/events", "/v1/audit"]


@pytest.mark.parametrize(("method", "path", "body"), WRITES, ids=["review", "hook", "decision"])
async def test_every_post_needs_the_token(method: str, path: str, body: dict[str, Any]) -> None:
    with serve(human=True) as served:
        async with served.client() as client:
            missing = await client.request(method, path, json=body)
            wrong = await client.request(
                method, path, json=body, headers={"Authorization": "Bearer not-the-token"}
            )
            basic = await client.request(
                method, path, json=body, headers={"Authorization": f"Basic {served.token}"}
            )
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert missing.json()["error"] == (
        "This request needs the bearer token that `gateway serve` printed at start (Authorization: Bearer <token>)."
    )
    assert wrong.status_code == 401
    assert (
        wrong.json()["error"]
        == "The bearer token is wrong; use the one `gateway serve` printed at start, or one made with `gateway token create`."
    )
    assert basic.status_code == 401


async def test_a_decision_without_the_token_leaves_the_call_waiting() -> None:
    with serve(human=True) as served:
        async with served.client() as client, anyio.create_task_group() as group:
            results: list[httpx.Response] = []

            async def review() -> None:
                results.append(
                    await client.post("/v1/review", json=bash("make", "t-1"), headers=served.auth)
                )

            group.start_soon(review)
            with anyio.fail_after(WAIT):
                entry = await wait_pending(client, "t-1")
            body = {"decision": "allow", "digest": entry["digest"]}
            refused = await client.post("/v1/calls/t-1/decision", json=body)
            assert refused.status_code == 401
            assert (await client.get("/v1/calls/t-1")).json()["state"] == "pending"
            accepted = await client.post("/v1/calls/t-1/decision", json=body, headers=served.auth)
            assert accepted.status_code == 200
    assert results[0].json()["decision"] == "allow"


async def test_reads_are_open_by_default_and_the_page_always() -> None:
    with serve(human=True) as served:
        async with served.client() as client:
            calls = await client.get("/v1/calls")
            page = await client.get("/")
            script = await client.get("/static/app.js")
    assert calls.status_code == 200
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert script.status_code == 200


@pytest.mark.parametrize("path", READS)
async def test_protected_reads_need_the_token(path: str, tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    audit.write_text("")
    with serve(config(protect_reads=True), human=True, audit_path=str(audit)) as served:
        async with served.client() as client:
            without = await client.get(path)
            info = await client.get("/v1/info")
            page = await client.get("/")
            if path == "/v1/events":
                async with client.stream("GET", path, headers=served.auth) as response:
                    status = response.status_code
            else:
                status = (await client.get(path, headers=served.auth)).status_code
    assert without.status_code == 401
    assert info.status_code == 200
    assert info.json()["protect_reads"] is True
    assert info.json()["authorized"] is False
    assert page.status_code == 200
    assert status in (200, 404)
    assert status == (404 if path == "/v1/calls/x" else 200)


async def test_info_says_whether_the_token_given_is_right() -> None:
    with serve() as served:
        async with served.client() as client:
            right = (await client.get("/v1/info", headers=served.auth)).json()
            wrong = (await client.get("/v1/info", headers={"Authorization": "Bearer nope"})).json()
    assert right["authorized"] is True
    assert wrong["authorized"] is False


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1:1", "http://localhost"]
)
async def test_requests_from_other_origins_are_refused(origin: str) -> None:
    with serve() as served:
        async with served.client() as client:
            post = await client.post(
                "/v1/review", json=bash("ls"), headers={**served.auth, "Origin": origin}
            )
            read = await client.get("/v1/calls", headers={"Origin": origin})
            preflight = await client.options(
                "/v1/review", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
            )
    for response in (post, read, preflight):
        assert response.status_code == 403
        assert "access-control-allow-origin" not in response.headers
    assert post.json()["error"] == (
        f"Requests from origin {origin!r} are refused; list it in [serve] allowed-origins to allow it."
    )


async def test_the_page_s_own_origin_is_served_without_cors_headers() -> None:
    with serve() as served:
        async with served.client() as client:
            response = await client.post(
                "/v1/review", json=bash("ls"), headers={**served.auth, "Origin": served.url}
            )
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


async def test_an_allowed_origin_gets_cors_headers() -> None:
    allowed = "https://console.example:8443"
    with serve(config(allowed_origins=(allowed,))) as served:
        async with served.client() as client:
            preflight = await client.options(
                "/v1/review",
                headers={"Origin": allowed, "Access-Control-Request-Method": "POST"},
            )
            post = await client.post(
                "/v1/review", json=bash("ls"), headers={**served.auth, "Origin": allowed}
            )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == allowed
    assert "authorization" in preflight.headers["access-control-allow-headers"]
    assert post.status_code == 200
    assert post.headers["access-control-allow-origin"] == allowed


async def test_cross_site_requests_without_an_origin_are_refused_but_links_to_the_page_work() -> (
    None
):
    with serve() as served:
        async with served.client() as client:
            script = await client.get(
                "/v1/calls", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}
            )
            same_site = await client.get(
                "/v1/events", headers={"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"}
            )
            link = await client.get(
                "/", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
            )
            own = await client.get("/v1/calls", headers={"Sec-Fetch-Site": "same-origin"})
    assert script.status_code == 403
    assert script.json()["error"] == "Requests from other sites are refused."
    assert same_site.status_code == 403
    assert link.status_code == 200
    assert own.status_code == 200


async def test_a_foreign_host_name_is_refused() -> None:
    """A DNS-rebinding page reaches the loopback port under its own name; the Host header gives it away."""
    with serve() as served:
        async with served.client() as client:
            foreign = await client.get(
                "/v1/calls", headers={"Host": f"evil.example:{served.running.port}"}
            )
            local = await client.get(
                "/v1/calls", headers={"Host": f"localhost:{served.running.port}"}
            )
    assert foreign.status_code == 403
    assert foreign.json()["error"].startswith("Requests naming host 'evil.example:")
    assert local.status_code == 200


async def test_answers_carry_security_headers() -> None:
    with serve() as served:
        async with served.client() as client:
            page = await client.get("/")
            api = await client.get("/v1/calls")
            refused = await client.post("/v1/review", json=bash("ls"))
    for response in (page, api, refused):
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp
        assert "frame-ancestors 'none'" in csp
        assert "'unsafe-inline'" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "no-referrer"
    assert api.headers["cache-control"] == "no-store"


async def test_the_service_binds_loopback_by_default() -> None:
    with serve() as served:
        assert served.running.host == "127.0.0.1"
        assert served.running.url == f"http://127.0.0.1:{served.running.port}/"


def test_the_token_is_stored_for_its_owner_only(tmp_path: Path) -> None:
    from gateway_web import new_token, store_token

    token = new_token()
    target = store_token(tmp_path / "state" / "token", token)
    again = store_token(target, new_token())
    assert again == target
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    assert target.read_text() != token + "\n"
    assert len(token) >= 43
    assert [p.name for p in target.parent.iterdir()] == ["token"]
    assert os.access(target, os.R_OK)
