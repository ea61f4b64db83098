"""
The real Codex CLI (npm ``@openai/codex``), guarded by the installed hook, offline.

Codex runs ``codex exec`` with a custom model provider whose base URL is the
scripted model (OpenAI's Responses API), and the hook installed with
``gateway install codex --scope user`` (Codex loads a project's hooks only
in a trusted project). ``--dangerously-bypass-hook-trust`` stands in for the
user trusting the hook in Codex's ``/hooks`` review, which needs a terminal.

The policy is the default one plus a rule that refuses to print private keys
(the default policy allows ``cat`` of any file, and Codex's own sandbox allows
reading anywhere, so without it the key would reach the model with or
without the gateway). One run proposes every scenario's call; each is
checked: what ran, what the model saw, what the audit log holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway import CallProposed, VerdictReached, verify_audit_log
from hosts.models import ScriptedModel, ToolUse
from hosts.support import HOSTS_DIR, KEY_MARK, Scene, install, make_scene, need, run_cli

NO_KEYS = """
[approver.rules]
[[approver.rules.rule]]
id = "read.private-keys"
decision = "decline"
reason = "prints a private key"
reads = ["secret"]
match = ["cat ~/.ssh/id_rsa"]
not-match = ["cat README.md"]
"""


@pytest.fixture
def scene(tmp_path: Path) -> Scene:
    return make_scene(tmp_path)


def test_codex_runs_what_is_allowed_and_refuses_the_rest_with_the_rules_reason(
    scene: Scene,
) -> None:
    config = scene.root / "gateway.toml"
    config.write_text(
        f'[sinks.audit]\nplugin = "jsonl"\npath = "{scene.audit}"\nrequired = true\n' + NO_KEYS
    )
    install(scene, "codex", "--scope", "user", "--config", str(config))
    calls = [
        ToolUse("exec_command", {"cmd": "ls"}),
        ToolUse("exec_command", {"cmd": "bash -lc 'ls -a'"}),
        ToolUse("exec_command", {"cmd": "rm -rf ~/keep"}),
        ToolUse("exec_command", {"cmd": "cat ~/.ssh/id_rsa"}),
        ToolUse("exec_command", {"cmd": "echo hello > greeting.txt"}),
    ]
    with ScriptedModel(calls) as model:
        codex_home = scene.home / ".codex"
        (codex_home / "config.toml").write_text(
            'model = "gpt-5.1"\nmodel_provider = "scripted"\n\n'
            "[model_providers.scripted]\n"
            'name = "scripted"\n'
            f'base_url = "{model.url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "SCRIPTED_API_KEY"\n'
        )
        argv = [
            str(need(HOSTS_DIR / "codex")),
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust",
            "Tidy up, show me my key, and write a greeting.",
        ]
        env = scene.env(CODEX_HOME=str(codex_home), SCRIPTED_API_KEY="sk-fake-key-for-tests")
        result = run_cli(scene, argv, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert model.proposed == len(calls)
    listing, unwrapped, refused, key, asked = model.results
    assert "README.md" in listing
    assert "README.md" in unwrapped
    assert "Declined `rm -rf ~/keep`: rule delete.outside" in refused
    assert scene.canary.read_text() == "still here\n"
    assert "rule read.private-keys prints a private key" in key
    assert KEY_MARK not in key
    assert KEY_MARK not in result.stdout
    # Codex runs an "ask" as if allowed, so the gateway answers it with a deny and the reason.
    assert "Asked about `echo hello`: rule ask.writes writes files" in asked
    assert "Codex cannot ask a person from a hook" in asked
    assert not (scene.project / "greeting.txt").exists()
    events = scene.events()
    proposed = [e for e in events if isinstance(e, CallProposed)]
    # `bash -lc 'ls -a'` is judged as what it runs: `ls -a`.
    assert [e.input["command"] for e in proposed] == [
        "ls",
        "ls -a",
        "rm -rf ~/keep",
        "cat ~/.ssh/id_rsa",
        "echo hello > greeting.txt",
    ]
    assert {e.host for e in proposed} == {"codex"}
    verdicts = [e.verdict.decision for e in events if isinstance(e, VerdictReached)]
    assert verdicts == ["allow", "allow", "decline", "decline", "ask"]
    assert verify_audit_log(scene.audit) is None
