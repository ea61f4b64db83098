"""
The real Gemini CLI (npm ``@google/gemini-cli``), guarded by the installed hook, offline.

Gemini CLI runs headless (``-p``) with ``GOOGLE_GEMINI_BASE_URL`` pointing at
the scripted model (``streamGenerateContent``), a fake API key, and the hook
installed with ``gateway install gemini --scope user`` (project hooks need
the user to trust them first). Headless, Gemini CLI only offers its shell
tool in ``--approval-mode yolo`` (every call approved): the gateway is then
the only check, and its ``deny`` must hold.

The policy is the default one plus a rule that refuses to print private keys
(without it the default policy allows ``cat`` of any file, and so does Gemini
in yolo mode). One run proposes every scenario's call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gateway_gemini import HEADLESS

from gateway import CallOutcome, VerdictReached, verify_audit_log
from hosts.models import ScriptedModel, ToolUse
from hosts.support import HOSTS_DIR, KEY_MARK, Scene, install, make_scene, need, run_cli
from hosts.test_codex import NO_KEYS


@pytest.fixture
def scene(tmp_path: Path) -> Scene:
    return make_scene(tmp_path)


def test_gemini_runs_what_is_allowed_and_refuses_the_rest_with_the_rules_reason(
    scene: Scene,
) -> None:
    config = scene.root / "gateway.toml"
    config.write_text(
        f'[sinks.audit]\nplugin = "jsonl"\npath = "{scene.audit}"\nrequired = true\n' + NO_KEYS
    )
    settings = scene.home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    install(scene, "gemini", "--scope", "user", "--config", str(config))
    written = json.loads(settings.read_text())
    assert written["security"] == {"auth": {"selectedType": "gemini-api-key"}}  # kept
    calls = [
        ToolUse("run_shell_command", {"command": "ls", "description": "List"}),
        ToolUse("run_shell_command", {"command": "rm -rf ~/keep", "description": "Tidy"}),
        ToolUse("run_shell_command", {"command": "cat ~/.ssh/id_rsa", "description": "Key"}),
    ]
    with ScriptedModel(calls) as model:
        argv = [
            str(need(HOSTS_DIR / "gemini")),
            "-p",
            "Tidy up and show me my key.",
            "-m",
            "gemini-2.5-pro",
            "--approval-mode",
            "yolo",
            "--output-format",
            "json",
        ]
        env = scene.env(
            GEMINI_API_KEY="fake-key-for-tests",
            GOOGLE_GEMINI_BASE_URL=model.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
        )
        result = run_cli(scene, argv, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert model.proposed == len(calls)
    listing, refused, key = model.results
    assert "README.md" in listing
    assert "Declined `rm -rf ~/keep`: rule delete.outside" in refused
    assert scene.canary.read_text() == "still here\n"
    assert "rule read.private-keys prints a private key" in key
    assert KEY_MARK not in key
    assert KEY_MARK not in result.stdout
    events = scene.events()
    verdicts = [e for e in events if isinstance(e, VerdictReached)]
    assert [v.verdict.decision for v in verdicts] == ["allow", "decline", "decline"]
    # AfterTool carries no call id: its outcome is linked to the BeforeTool review.
    (outcome,) = [e for e in events if isinstance(e, CallOutcome)]
    assert outcome.call_id == verdicts[0].call_id
    assert verify_audit_log(scene.audit) is None


@pytest.mark.parametrize(
    ("mode", "call"),
    [
        ("yolo", ToolUse("run_shell_command", {"command": "echo hello > greeting.txt"})),
        ("auto_edit", ToolUse("write_file", {"file_path": "greeting.txt", "content": "hello\n"})),
    ],
)
def test_headless_an_ask_is_a_refusal_with_its_reason_never_a_hang(
    scene: Scene, mode: str, call: ToolUse
) -> None:
    """
    Headless, Gemini CLI waits for good for the answer to a hook's ``ask``; the gateway denies instead.

    The default policy (read-only profile) asks before a write; with no
    person to ask, the model is told why the call did not run, and the CLI
    finishes.
    """
    config = scene.root / "gateway.toml"
    config.write_text(f'[sinks.audit]\nplugin = "jsonl"\npath = "{scene.audit}"\nrequired = true\n')
    settings = scene.home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    install(scene, "gemini", "--scope", "user", "--config", str(config))
    with ScriptedModel([call]) as model:
        argv = [
            str(need(HOSTS_DIR / "gemini")),
            "-p",
            "Write a greeting.",
            "-m",
            "gemini-2.5-pro",
            "--approval-mode",
            mode,
            "--output-format",
            "json",
        ]
        env = scene.env(
            GEMINI_API_KEY="fake-key-for-tests",
            GOOGLE_GEMINI_BASE_URL=model.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
        )
        # Bounded well under the hook's own timeout: a hang shows as a timeout here.
        result = run_cli(scene, argv, env=env, timeout=150)
    assert result.returncode == 0, result.stderr[-2000:]
    assert model.proposed == 1
    (refused,) = model.results
    assert "rule ask.writes writes files" in refused, refused
    assert HEADLESS.split(";")[0] in refused
    assert not (scene.project / "greeting.txt").exists()
    verdicts = [e.verdict.decision for e in scene.events() if isinstance(e, VerdictReached)]
    assert verdicts == ["ask"]
