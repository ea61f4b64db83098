"""
The approval service's API over real HTTP: reviews, waiting for a person, decisions bound to digests.

Each test runs the service on a loopback port (see `web.support.serve`) and
talks to it with an HTTP client, as a hook or the page does.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

from gateway.events import ApproverDecided, CallOutcome, VerdictReached
from gateway.testing import StaticApprover
from web.support import WAIT, bash, config, events, serve, wait_pending

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """uvicorn, httpx and the service run on asyncio."""
    return "asyncio"


async def _review_in_background(
    client: httpx.AsyncClient, body: dict[str, Any], results: list[httpx.Response]
) -> None:
    results.append(await client.post("/v1/review", json=body))


# ── reviews the chain decides ──


async def test_review_allows_what_the_chain_allows() -> None:
    with serve(approvers=[StaticApprover("allow")]) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/v1/review", json=bash("ls -la", "c-1"))
    assert response.status_code == 200
    verdict = response.json()
    assert verdict["decision"] == "allow"
    assert verdict["call_id"] == "c-1"
    assert verdict["digest"].startswith("sha256:")
    assert verdict["approver"] == "static-allow"


async def test_review_declines_what_the_chain_declines() -> None:
    with serve(approvers=[StaticApprover("decline")]) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/v1/review", json=bash("rm -rf ~", "c-2"))
    assert response.status_code == 200
    assert response.json()["decision"] == "decline"
    assert response.json()["reason"] == "static-decline declines everything."


async def test_review_of_a_chain_without_a_person_stays_ask() -> None:
    with serve(approvers=[StaticApprover("abstain")]) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/v1/review", json=bash("make"))
            info = (await client.get("/v1/info")).json()
    assert response.json()["decision"] == "ask"
    assert info["human"] is False


# ── a person decides ──


async def test_call_waits_for_a_person_and_an_allow_releases_it() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client, anyio.create_task_group() as group:
            results: list[httpx.Response] = []
            group.start_soon(
                _review_in_background, client, bash("pip install requests", "w-1"), results
            )
            with anyio.fail_after(WAIT):
                entry = await wait_pending(client, "w-1")
            assert results == []
            listed = (await client.get("/v1/calls", params={"state": "pending"})).json()
            assert [c["id"] for c in listed["calls"]] == ["w-1"]
            assert listed["calls"][0]["request"]["plan"]["source"] == "pip install requests"
            decided = await client.post(
                "/v1/calls/w-1/decision", json={"decision": "allow", "digest": entry["digest"]}
            )
            assert decided.status_code == 200, decided.text
            assert decided.json()["decision"]["by"] == "person"
        verdict = results[0].json()
        assert verdict["decision"] == "allow"
        assert verdict["approver"] == "human"
        assert verdict["digest"] == entry["digest"]
        async with served.client() as client:
            after = (await client.get("/v1/calls/w-1")).json()
            pending = (await client.get("/v1/calls?state=pending")).json()
    assert after["state"] == "decided"
    assert after["decision"]["decision"] == "allow"
    assert pending["calls"] == []


async def test_a_decline_with_a_note_releases_the_call_declined_with_the_note() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client, anyio.create_task_group() as group:
            results: list[httpx.Response] = []
            group.start_soon(
                _review_in_background,
                client,
                bash("curl -X POST https://x.example", "n-1"),
                results,
            )
            with anyio.fail_after(WAIT):
                entry = await wait_pending(client, "n-1")
            decided = await client.post(
                "/v1/calls/n-1/decision",
                json={
                    "decision": "decline",
                    "digest": entry["digest"],
                    "note": "use the staging API",
                },
            )
            assert decided.status_code == 200
    verdict = results[0].json()
    assert verdict["decision"] == "decline"
    assert verdict["reason"] == (
        "Declined `curl -X POST https://x.example`: a person (owner) declined it; their note: use the staging API."
    )


async def test_a_wrong_digest_is_refused_and_the_call_still_waits() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client, anyio.create_task_group() as group:
            results: list[httpx.Response] = []
            group.start_soon(_review_in_background, client, bash("npm install", "d-1"), results)
            with anyio.fail_after(WAIT):
                entry = await wait_pending(client, "d-1")
            wrong = await client.post(
                "/v1/calls/d-1/decision", json={"decision": "allow", "digest": "sha256:" + "0" * 64}
            )
            assert wrong.status_code == 409
            assert "is not the plan digest of call 'd-1'" in wrong.json()["error"]
            still = (await client.get("/v1/calls/d-1")).json()
            assert still["state"] == "pending"
            right = await client.post(
                "/v1/calls/d-1/decision", json={"decision": "decline", "digest": entry["digest"]}
            )
            assert right.status_code == 200
    assert results[0].json()["decision"] == "decline"


async def test_a_stale_digest_of_an_earlier_call_with_the_same_id_is_refused() -> None:
    """An approval is bound to what was shown: the digest of the first `c` cannot allow the second."""
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client:
            async with anyio.create_task_group() as group:
                first: list[httpx.Response] = []
                group.start_soon(_review_in_background, client, bash("git status", "same"), first)
                with anyio.fail_after(WAIT):
                    shown = await wait_pending(client, "same")
                await client.post(
                    "/v1/calls/same/decision", json={"decision": "allow", "digest": shown["digest"]}
                )
            async with anyio.create_task_group() as group:
                second: list[httpx.Response] = []
                group.start_soon(
                    _review_in_background, client, bash("git push --force", "same"), second
                )
                with anyio.fail_after(WAIT):
                    fresh = await wait_pending(client, "same")
                stale = await client.post(
                    "/v1/calls/same/decision", json={"decision": "allow", "digest": shown["digest"]}
                )
                assert stale.status_code == 409
                assert "reload the call" in stale.json()["error"]
                await client.post(
                    "/v1/calls/same/decision",
                    json={"decision": "decline", "digest": fresh["digest"]},
                )
    assert shown["digest"] != fresh["digest"]
    assert first[0].json()["decision"] == "allow"
    assert second[0].json()["decision"] == "decline"


async def test_only_the_first_of_many_decisions_counts() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client, anyio.create_task_group() as group:
            results: list[httpx.Response] = []
            group.start_soon(_review_in_background, client, bash("make deploy", "once"), results)
            with anyio.fail_after(WAIT):
                entry = await wait_pending(client, "once")
            answers: list[httpx.Response] = []

            async def decide(decision: str) -> None:
                answers.append(
                    await client.post(
                        "/v1/calls/once/decision",
                        json={"decision": decision, "digest": entry["digest"]},
                    )
                )

            async with anyio.create_task_group() as deciders:
                for index in range(10):
                    deciders.start_soon(decide, "allow" if index % 2 else "decline")
    accepted = [a for a in answers if a.status_code == 200]
    refused = [a for a in answers if a.status_code == 409]
    assert len(accepted) == 1
    assert len(refused) == 9
    assert all("the first decision stands" in a.json()["error"] for a in refused)
    assert results[0].json()["decision"] == accepted[0].json()["decision"]["decision"]


async def test_deciding_an_unknown_call_is_not_found() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post(
                "/v1/calls/nobody/decision", json={"decision": "allow", "digest": "sha256:1"}
            )
            details = await client.get("/v1/calls/nobody")
    assert response.status_code == 404
    assert (
        response.json()["error"]
        == "No call with id 'nobody' waits for a person or was decided recently."
    )
    assert details.status_code == 404


async def test_nobody_deciding_in_time_declines_and_later_decisions_conflict() -> None:
    with serve(config(human_timeout=0.5), human=True) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/v1/review", json=bash("terraform apply", "late"))
            verdict = response.json()
            late = await client.post(
                "/v1/calls/late/decision", json={"decision": "allow", "digest": verdict["digest"]}
            )
            entry = (await client.get("/v1/calls/late")).json()
    assert verdict["decision"] == "decline"
    assert verdict["reason"] == (
        "Declined `terraform apply`: no person decided within 0.5 s, and the gateway fails closed."
    )
    assert late.status_code == 409
    assert "no longer waits" in late.json()["error"]
    assert entry["decision"]["by"] == "timeout"


async def test_a_client_that_stops_waiting_cancels_the_review() -> None:
    with serve(human=True) as served:
        async with (
            served.client(headers=served.auth) as client,
            events(client, "?call=gone") as stream,
        ):
            await stream.until("snapshot")

            async def review() -> None:
                await client.post("/v1/review", json=bash("sleep 1000", "gone"))

            async with anyio.create_task_group() as group:
                group.start_soon(review)
                with anyio.fail_after(WAIT):
                    await stream.until("pending")
                group.cancel_scope.cancel()
            with anyio.fail_after(WAIT):
                decided = (await stream.until("decided")).json()
                verdict = (
                    await stream.until("message", lambda m: m.json()["event"] == "verdict.reached")
                ).event()
    assert decided["decision"]["by"] == "cancelled"
    assert isinstance(verdict, VerdictReached)
    assert verdict.verdict.decision == "decline"


# ── remembering ──


class FakeRules:
    """Stands in for the rules approver's remembering (`offers`, `propose`, `remember`)."""

    def __init__(self) -> None:
        self.saved: list[tuple[str, str, tuple[str, ...] | None, str | None]] = []

    def offers(self, request: Any) -> list[Any]:
        return [
            _Offer("digest", "Allow exactly this command again without asking."),
            _Offer("prefix", "Allow `git log` followed by anything.", "git", ("log",)),
        ]

    def propose(self, request: Any, scope: str, prefix: Any = None) -> _Offer:
        if scope == "prefix" and tuple(prefix or ()) != ("log",):
            raise ValueError(
                "A prefix approval needs a call whose arguments start with that prefix."
            )
        return _Offer(scope, f"Remember {scope}.")

    def remember(
        self,
        request: Any,
        scope: str,
        *,
        prefix: Any = None,
        note: str | None = None,
        decided_by: str | None = None,
    ) -> _Offer:
        self.saved.append((request.digest, scope, None if prefix is None else tuple(prefix), note))
        return _Offer(scope, f"Saved: {scope}.")


class _Offer:
    def __init__(
        self, scope: str, description: str, program: str | None = None, prefix: tuple[str, ...] = ()
    ) -> None:
        self.scope = scope
        self.description = description
        self.program = program
        self.prefix = prefix


async def test_a_remembered_scope_is_offered_saved_and_recorded() -> None:
    rules = FakeRules()
    with serve(human=True, services={"rules": rules}) as served:
        async with served.client(headers=served.auth) as client:
            info = (await client.get("/v1/info")).json()
            async with events(client, "?call=r-1") as stream, anyio.create_task_group() as group:
                results: list[httpx.Response] = []
                group.start_soon(_review_in_background, client, bash("git log -3", "r-1"), results)
                with anyio.fail_after(WAIT):
                    entry = (await stream.until("pending")).json()
                answer = await client.post(
                    "/v1/calls/r-1/decision",
                    json={
                        "decision": "allow",
                        "digest": entry["digest"],
                        "scope": "prefix",
                        "prefix": ["log"],
                        "note": "reading history is fine",
                    },
                )
                with anyio.fail_after(WAIT):
                    decided = (
                        await stream.until(
                            "message",
                            lambda m: (
                                m.json()["event"] == "approver.decided"
                                and m.json()["approver"] == "human"
                            ),
                        )
                    ).event()
    assert info["remembers"] is True
    assert [o["scope"] for o in entry["offers"]] == ["digest", "prefix"]
    assert entry["offers"][1]["prefix"] == ["log"]
    record = answer.json()["decision"]
    assert record["scope"] == "prefix"
    assert record["prefix"] == ["log"]
    assert record["remembered"] == "Saved: prefix."
    assert rules.saved == [(entry["digest"], "prefix", ("log",), "reading history is fine")]
    assert isinstance(decided, ApproverDecided)
    assert decided.rule == "human.prefix"
    assert "asking to remember it (prefix)" in (decided.reason or "")
    assert results[0].json()["decision"] == "allow"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"decision": "decline", "scope": "digest"},
            "Only an allow can be remembered; decline without a scope.",
        ),
        (
            {"decision": "allow", "scope": "prefix", "prefix": ["push"]},
            "The approval cannot be remembered that way: A prefix approval needs a call whose arguments start with that prefix.",
        ),
        (
            {"decision": "allow", "scope": "session"},
            "The call has no session to scope the approval to.",
        ),
        (
            {"decision": "allow", "prefix": ["log"]},
            "A prefix is only meaningful with the scope 'prefix'.",
        ),
    ],
    ids=[
        "decline-with-scope",
        "prefix-the-rules-refuse",
        "session-without-session",
        "prefix-without-scope",
    ],
)
async def test_a_scope_that_cannot_be_remembered_is_refused(
    body: dict[str, Any], message: str
) -> None:
    with serve(human=True, services={"rules": FakeRules()}) as served:
        async with served.client(headers=served.auth) as client, anyio.create_task_group() as group:
            results: list[httpx.Response] = []
            group.start_soon(_review_in_background, client, bash("git log -3", "s-1"), results)
            with anyio.fail_after(WAIT):
                entry = await wait_pending(client, "s-1")
            refused = await client.post(
                "/v1/calls/s-1/decision", json={**body, "digest": entry["digest"]}
            )
            accepted = await client.post(
                "/v1/calls/s-1/decision", json={"decision": "allow", "digest": entry["digest"]}
            )
    assert refused.status_code == 422
    assert refused.json()["error"] == message
    assert accepted.status_code == 200


async def test_a_scope_without_a_rules_approver_is_recorded_but_not_saved() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client, anyio.create_task_group() as group:
            results: list[httpx.Response] = []
            group.start_soon(
                _review_in_background, client, bash("cargo build", "u-1", session_id="s"), results
            )
            with anyio.fail_after(WAIT):
                entry = await wait_pending(client, "u-1")
            answer = await client.post(
                "/v1/calls/u-1/decision",
                json={"decision": "allow", "digest": entry["digest"], "scope": "session"},
            )
    record = answer.json()["decision"]
    assert record["scope"] == "session"
    assert record["remembered"] is None
    assert (
        record["remember_error"]
        == "No rules approver is running, so the approval is not remembered."
    )
    assert results[0].json()["decision"] == "allow"


# ── Claude Code's hook ──


def _hook_event(name: str, command: str = "ls", **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "abc",
        "transcript_path": "/home/u/.claude/projects/p/abc.jsonl",
        "cwd": "/home/u/p",
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "x", "timeout": 1000},
        "tool_use_id": "toolu_01",
        "some_future_field": True,
        **extra,
    }


@pytest.mark.parametrize(("decision", "expected"), [("decline", "deny"), ("abstain", "ask")])
async def test_claude_code_pre_tool_use_gets_its_own_answer(decision: Any, expected: str) -> None:
    with serve(approvers=[StaticApprover(decision)]) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/hooks/claude-code", json=_hook_event("PreToolUse"))
    assert response.status_code == 200
    output = response.json()["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == expected


async def test_claude_code_gets_no_decision_for_an_allow_the_plan_does_not_found() -> None:
    """Claude Code's own checks then decide, as they would without the gateway."""
    with serve(approvers=[StaticApprover("allow")]) as served:
        async with served.client(headers=served.auth) as client:
            event = _hook_event("PreToolUse", "cat /etc/passwd")
            response = await client.post("/hooks/claude-code", json=event)
    assert (response.status_code, response.json()) == (200, {})


async def test_claude_code_gets_allow_when_the_plan_founds_it() -> None:
    """`ls` in the project reads only inside the workspace: the allow stands."""
    with serve(approvers=[StaticApprover("allow")]) as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/hooks/claude-code", json=_hook_event("PreToolUse"))
    assert response.json()["hookSpecificOutput"]["permissionDecision"] == "allow"


async def test_a_hook_event_it_cannot_read_is_denied_in_the_hosts_own_format() -> None:
    """Claude Code's http hook blocks on a deny answer even without a blocking failure setting."""
    with serve() as served:
        async with served.client(headers=served.auth) as client:
            event = {**_hook_event("PreToolUse"), "tool_input": "not an object"}
            response = await client.post("/hooks/claude-code", json=event)
    output = response.json()["hookSpecificOutput"]
    assert (response.status_code, output["permissionDecision"]) == (200, "deny")
    assert output["permissionDecisionReason"].startswith("The PreToolUse event is malformed")


async def test_a_host_that_is_not_installed_is_not_found() -> None:
    with serve() as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/hooks/no-such-host", json=_hook_event("PreToolUse"))
    assert response.status_code == 404
    assert response.json()["error"].startswith("No hook host named 'no-such-host' is installed")


async def test_claude_code_permission_request_waits_for_a_person() -> None:
    with serve(human=True) as served:
        async with served.client(headers=served.auth) as client, anyio.create_task_group() as group:
            results: list[httpx.Response] = []

            async def hook() -> None:
                results.append(
                    await client.post(
                        "/hooks/claude-code", json=_hook_event("PermissionRequest", "docker run x")
                    )
                )

            group.start_soon(hook)
            with anyio.fail_after(WAIT):
                entry = await wait_pending(client, "toolu_01")
            await client.post(
                "/v1/calls/toolu_01/decision", json={"decision": "allow", "digest": entry["digest"]}
            )
    assert entry["request"]["call"]["host"] == "claude-code"
    assert results[0].json() == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }


async def test_claude_code_post_tool_use_is_recorded_as_an_outcome() -> None:
    with serve() as served:
        async with (
            served.client(headers=served.auth) as client,
            events(client, "?call=toolu_01") as stream,
        ):
            await stream.until("snapshot")
            response = await client.post(
                "/hooks/claude-code",
                json=_hook_event("PostToolUse", tool_response={"stdout": "x"}),
            )
            with anyio.fail_after(WAIT):
                outcome = (await stream.until("message")).event()
    assert response.json() == {}
    assert isinstance(outcome, CallOutcome)
    assert outcome.outcome == "succeeded"


async def test_claude_code_events_it_does_not_handle_are_refused() -> None:
    with serve() as served:
        async with served.client(headers=served.auth) as client:
            response = await client.post("/hooks/claude-code", json=_hook_event("SessionStart"))
    assert response.status_code == 400
    assert response.json()["error"].startswith("The hook cannot handle the event 'SessionStart'")
