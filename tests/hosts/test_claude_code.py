"""
The real Claude Code CLI (bundled with ``claude-agent-sdk``), guarded by the installed hook, offline.

The CLI runs with ``ANTHROPIC_BASE_URL`` pointing at a scripted model that
proposes tool calls and records what the CLI showed it. The hook is
installed with ``gateway install claude-code`` and reviews with the default
policy. Each scenario asserts what ran, what the model saw, and what the
audit log holds:

* a listing the policy allows runs, and the model sees it (the allow is
  founded on the plan: it reads only inside the project);
* a recursive delete of the home directory's files is refused with the rule's
  reason, and the canary survives;
* the fake key stays out of the model's view: reading it is an allow the plan
  does not found, so Claude Code's own check (reads outside the project) still
  applies — with the gateway Claude Code is no less safe than without it;
* ``PermissionRequest`` (which carries no ``tool_use_id``) is linked to its
  ``PreToolUse`` review: one review per call;
* an ``ask`` reaches the person with the rule's reason: through the SDK's
  ``can_use_tool`` (what the CLI's permission prompt calls), and through the
  approval page when the hook forwards to ``gateway serve``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import serving
from claude_agent_sdk import (
    ClaudeAgentOptions,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    ToolPermissionContext,
    query,
)

from gateway.audit import read_audit_log, verify_audit_log
from gateway.confinement import not_confinable
from gateway.events import CallProposed, RunChanged, VerdictReached
from hosts.models import ScriptedModel, ToolUse
from hosts.support import CLAUDE, KEY_MARK, Scene, install, json_lines, make_scene, need, run_cli

# The sentence names the resolved path, which lies in the test's temporary project.
ASK_REASON = "Asked about `echo hello`: rule ask.writes writes files, and the read-only profile asks before any write (it writes `"


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    made = make_scene(tmp_path)
    yield made
    made.settle()


def claude_env(scene: Scene, model: ScriptedModel) -> dict[str, str]:
    return scene.env(
        ANTHROPIC_BASE_URL=model.url,
        ANTHROPIC_API_KEY="sk-ant-fake-key-for-tests",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
    )


def claude(scene: Scene, model: ScriptedModel, prompt: str) -> subprocess.CompletedProcess[str]:
    argv = [str(need(CLAUDE)), "-p", prompt, "--output-format", "stream-json", "--verbose"]
    return run_cli(scene, argv, env=claude_env(scene, model))


def settings(scene: Scene) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((scene.project / ".claude" / "settings.json").read_text())
    return value


def test_the_guarded_cli_runs_what_is_allowed_refuses_what_is_declined_and_keeps_the_key_out(
    scene: Scene,
) -> None:
    install(scene, "claude-code")
    hooks = settings(scene)["hooks"]
    (guard,) = hooks["PreToolUse"][0]["hooks"]
    assert guard["onFailure"] == "block"
    assert guard["command"].split()[0] == str(Path(sys.executable).parent / "gateway-hook")
    # Hook PermissionRequest too, to see it linked to its PreToolUse review.
    hooks["PermissionRequest"] = [{"matcher": "*", "hooks": [dict(guard)]}]
    (scene.project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    calls = [
        ToolUse("Bash", {"command": "ls", "description": "List the project"}),
        ToolUse("Bash", {"command": "rm -rf ~/keep", "description": "Tidy up"}),
        ToolUse("Bash", {"command": "cat ~/.ssh/id_rsa", "description": "Read the key"}),
        ToolUse("Read", {"file_path": str(scene.home / ".ssh" / "id_rsa")}),
    ]
    with ScriptedModel(calls) as model:
        result = claude(scene, model, "Tidy up and show me my key.")
    assert result.returncode == 0, result.stderr[-2000:]
    assert model.proposed == len(calls)
    listing, refused, cat, read = model.results
    assert "README.md" in listing
    assert "Declined `rm -rf ~/keep`: rule delete.outside" in refused, refused
    assert scene.canary.read_text() == "still here\n"
    for shown in (cat, read):
        assert KEY_MARK not in shown
    assert KEY_MARK not in result.stdout
    # The audit log: one review per call (PermissionRequest linked), a chain that verifies.
    verdicts = [e for e in scene.events() if isinstance(e, VerdictReached)]
    tool_use_ids = [
        block["id"]
        for message in json_lines(result.stdout)
        if message.get("type") == "assistant"
        for block in message["message"]["content"]
        if block.get("type") == "tool_use"
    ]
    assert [v.call_id for v in verdicts] == tool_use_ids
    # Reading a file of the secret class is asked, by `cat` and by `Read` alike;
    # Claude Code, with nobody to ask here, does not run either.
    assert [v.verdict.decision for v in verdicts] == ["allow", "decline", "ask", "ask"]
    # `ls` in the project is founded on the plan (its one read is inside the
    # workspace), so Claude Code is told allow.
    assert [v.verdict.founded for v in verdicts] == [True, False, False, False]
    scene.settle()
    assert verify_audit_log(scene.audit) is None


def test_an_ask_reaches_the_person_with_the_rules_reason(scene: Scene) -> None:
    """The SDK's can_use_tool is what the CLI's permission prompt calls; it gets the hook's reason."""
    install(scene, "claude-code")
    asked: list[tuple[str, dict[str, Any], str | None]] = []

    async def person(
        tool: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        asked.append((tool, tool_input, context.decision_reason))
        return PermissionResultAllow()

    calls = [ToolUse("Bash", {"command": "echo hello > greeting.txt", "description": "Greet"})]

    async def converse(model: ScriptedModel) -> list[Any]:
        async def prompt() -> Any:
            yield {"type": "user", "message": {"role": "user", "content": "Write a greeting."}}

        options = ClaudeAgentOptions(
            cli_path=str(need(CLAUDE)),
            cwd=str(scene.project),
            env=claude_env(scene, model),
            can_use_tool=person,
            setting_sources=["project"],
        )
        with anyio.fail_after(240):
            return [message async for message in query(prompt=prompt(), options=options)]

    with ScriptedModel(calls) as model:
        messages = anyio.run(converse, model)
    assert isinstance(messages[-1], ResultMessage)
    assert [(tool, given) for tool, given, _ in asked] == [("Bash", calls[0].input)]
    assert str(asked[0][2]).startswith(ASK_REASON), asked
    assert (scene.project / "greeting.txt").read_text() == "hello\n"
    assert model.results == [""] or all(KEY_MARK not in r for r in model.results)


def test_forwarded_to_the_approval_service_a_person_decides_on_the_page(scene: Scene) -> None:
    """The hook forwards over the service's Unix socket; the page shows the rule's reason; the person allows."""
    config = scene.root / "gateway.toml"
    config.write_text('[gateway]\napprovers = ["rules", "human"]\n\n[serve]\nhuman-timeout = 120\n')
    install(scene, "claude-code", "--require-service")
    with serving.gateway_serve(
        "--config",
        str(config),
        "--audit",
        str(scene.root / "serve-audit.jsonl"),
        cwd=scene.root,
        env=scene.env(),
        program=serving.INSTALLED,
    ) as served:
        url, token = served.url, served.token
        assert served.announced(serving.SOCKET).endswith("gateway.sock (mode 0600)"), served.lines
        seen: list[dict[str, Any]] = []

        def be_the_person() -> None:
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=url, headers=headers, trust_env=False, timeout=30) as client:
                for _ in range(1200):
                    pending = client.get("/v1/calls", params={"state": "pending"}).json()["calls"]
                    if pending:
                        seen.append(pending[0])
                        client.post(
                            f"/v1/calls/{pending[0]['id']}/decision",
                            json={"decision": "allow", "digest": pending[0]["digest"]},
                        )
                        return
                    threading.Event().wait(0.1)

        person = threading.Thread(target=be_the_person, daemon=True)
        person.start()
        calls = [ToolUse("Bash", {"command": "echo hello > greeting.txt", "description": "Greet"})]
        with ScriptedModel(calls) as model:
            result = claude(scene, model, "Write a greeting.")
        person.join(60)
    assert result.returncode == 0, result.stderr[-2000:]
    (entry,) = seen
    earlier = entry["request"]["earlier"]
    assert [answer["reason"][: len(ASK_REASON)] for answer in earlier] == [ASK_REASON]
    assert entry["request"]["call"]["host"] == "claude-code"
    assert (scene.project / "greeting.txt").read_text() == "hello\n"


def test_headless_an_ask_is_refused_by_claude_code_and_never_hangs(scene: Scene) -> None:
    """
    ``claude -p`` has nobody to ask: Claude Code refuses the hook's ``ask`` itself, with its reason.

    The default policy (read-only profile) asks before a write. Claude Code
    headless turns the ask into a refusal the model sees, and finishes;
    interactive, the same answer opens its permission prompt (the SDK's
    ``can_use_tool`` in the test above).
    """
    install(scene, "claude-code")
    calls = [ToolUse("Bash", {"command": "echo hello > greeting.txt", "description": "Greet"})]
    with ScriptedModel(calls) as model:
        argv = [str(need(CLAUDE)), "-p", "Write a greeting.", "--output-format", "stream-json"]
        # Bounded well under the hook's own timeout: a hang shows as a timeout here.
        result = run_cli(scene, [*argv, "--verbose"], env=claude_env(scene, model), timeout=150)
    assert result.returncode == 0, result.stderr[-2000:]
    assert model.proposed == 1
    (refused,) = model.results
    # What Claude Code tells the model is the rule's reason.
    assert refused.startswith(ASK_REASON), refused
    assert not (scene.project / "greeting.txt").exists()
    verdicts = [e.verdict for e in scene.events() if isinstance(e, VerdictReached)]
    assert [v.decision for v in verdicts] == ["ask"]
    assert verdicts[0].reason.startswith(ASK_REASON)


_NO_BWRAP = not_confinable()

STEAL = (
    "import os\n"
    "try:\n"
    "    print(open(os.path.expanduser('~/.ssh/id_rsa')).read())\n"
    "except OSError as error:\n"
    "    print('no key:', type(error).__name__)\n"
)


def test_a_confining_hook_runs_code_it_cannot_read_inside_the_boundary(scene: Scene) -> None:
    """
    With ``--confine``, code the rules cannot read runs through ``gateway run`` instead of asking.

    Unconfined, both calls are asked about (nobody answers in ``-p``, so
    neither runs). Confined, the ``python3 -c`` writes its file in the
    project, and the script that reads the key finds no key.
    """
    if _NO_BWRAP is not None:
        if os.environ.get("GATEWAY_TESTS_NEED_EVERY_EXTRA") == "1":
            raise RuntimeError(f"This test needs bubblewrap, and {_NO_BWRAP}.")
        pytest.skip(f"needs bubblewrap: {_NO_BWRAP}")
    audit = scene.root / "audit.jsonl"
    config = scene.root / "gateway.toml"
    config.write_text(
        '[approver.rules]\nprofile = "workspace-write"\n\n'
        f'[sinks.audit]\nplugin = "jsonl"\npath = "{audit}"\nrequired = true\n'
    )
    (scene.project / "steal.py").write_text(STEAL)
    install(scene, "claude-code", "--config", str(config), "--confine")
    (guard,) = settings(scene)["hooks"]["PreToolUse"][0]["hooks"]
    assert guard["command"].endswith(" --confine")
    write = 'python3 -c \'open("out.txt","w").write("x")\''
    calls = [
        ToolUse("Bash", {"command": write, "description": "Write out.txt"}),
        ToolUse("Bash", {"command": "python3 steal.py", "description": "Run the script"}),
    ]
    with ScriptedModel(calls) as model:
        result = claude(scene, model, "Write out.txt, then run steal.py.")
    assert result.returncode == 0, result.stderr[-2000:]
    assert model.proposed == len(calls)
    wrote, stole = model.results
    assert (scene.project / "out.txt").read_text() == "x", wrote
    assert "no key: FileNotFoundError" in stole, stole
    assert KEY_MARK not in stole
    assert KEY_MARK not in result.stdout
    # Two verdicts per call: the hook's (an allow with its boundary, which
    # routed the call) and the runner's review of the same text, which ran it.
    events = list(read_audit_log(audit))
    verdicts = [e for e in events if isinstance(e, VerdictReached)]
    assert [v.verdict.decision for v in verdicts] == ["allow"] * 4
    assert all(v.verdict.boundary is not None for v in verdicts)
    proposed = [e for e in events if isinstance(e, CallProposed)]
    assert [p.host for p in proposed] == ["claude-code", "gateway-run"] * 2
    assert [p.input["command"] for p in proposed] == [write, write, *["python3 steal.py"] * 2]
    changed = [e for e in events if isinstance(e, RunChanged)]
    assert [c.created for c in changed] == [(str(scene.project / "out.txt"),), ()]
    scene.settle()
    assert verify_audit_log(audit) is None
