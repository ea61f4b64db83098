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

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gateway_codex._trust import codex_hooks

from gateway.audit import verify_audit_log
from gateway.events import CallProposed, VerdictReached
from hosts.models import ScriptedModel, ToolUse
from hosts.support import (
    HOSTS_DIR,
    KEY_MARK,
    RUN_TIMEOUT,
    Scene,
    install,
    make_scene,
    need,
    run_cli,
)

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
def scene(tmp_path: Path) -> Iterator[Scene]:
    made = make_scene(tmp_path)
    yield made
    made.settle()


def codex_env(scene: Scene) -> dict[str, str]:
    """The scene's environment, with Codex's home and the directory of the ``codex`` program on PATH."""
    env = scene.env(CODEX_HOME=str(scene.home / ".codex"), SCRIPTED_API_KEY="sk-fake-key")
    return {**env, "PATH": f"{need(HOSTS_DIR / 'codex').parent}:{env['PATH']}"}


def codex(
    scene: Scene, model: ScriptedModel, prompt: str, *, trust: bool
) -> subprocess.CompletedProcess[str]:
    """
    ``codex exec`` against the scripted model.

    ``trust=False`` passes ``--dangerously-bypass-hook-trust``, standing in
    for the user trusting the hook in ``/hooks`` (which needs a terminal);
    with ``trust=True`` Codex runs only the hooks its config trusts.
    """
    config = scene.home / ".codex" / "config.toml"
    # The trust `trust_in_hooks` wrote (after "# hooks") is kept; the provider is this model's.
    kept = config.read_text() if config.exists() else ""
    trusted = "".join(kept.partition("# hooks\n")[1:])
    config.write_text(
        'model = "gpt-5.1"\nmodel_provider = "scripted"\n\n'
        "[model_providers.scripted]\n"
        'name = "scripted"\n'
        f'base_url = "{model.url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "SCRIPTED_API_KEY"\n\n' + trusted
    )
    bypass = [] if trust else ["--dangerously-bypass-hook-trust"]
    argv = [
        str(need(HOSTS_DIR / "codex")),
        "exec",
        "--json",
        "--skip-git-repo-check",
        *bypass,
        prompt,
    ]
    return run_cli(scene, argv, env=codex_env(scene))


def doctor(scene: Scene) -> subprocess.CompletedProcess[str]:
    """``gateway doctor`` for the scene's project, with ``codex`` on PATH."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "gateway"), "doctor", "--project", str(scene.project)],
        capture_output=True,
        text=True,
        env=codex_env(scene),
        cwd=scene.project,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def reviewed(scene: Scene) -> list[object]:
    """The commands of the calls the audit log says were reviewed."""
    return [e.input.get("command") for e in scene.events() if isinstance(e, CallProposed)]


def trust_in_hooks(scene: Scene) -> None:
    """
    Trust the gateway's hooks as Codex's ``/hooks`` does: each hook's current hash, kept in its config.

    The keys and hashes are Codex's own (``codex app-server``'s ``hooks/list``).
    """
    hooks = codex_hooks(scene.project, env=codex_env(scene))
    assert not isinstance(hooks, str), hooks
    config = scene.home / ".codex" / "config.toml"
    lines = ["# hooks"]
    for hook in hooks:
        lines += [
            f"[hooks.state.{json.dumps(hook['key'])}]",
            f"trusted_hash = {json.dumps(hook['currentHash'])}",
        ]
    config.write_text((config.read_text() if config.exists() else "") + "\n".join(lines) + "\n")


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
        result = codex(scene, model, "Tidy up, show me my key, and write a greeting.", trust=False)
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
    scene.settle()
    assert verify_audit_log(scene.audit) is None


def test_an_untrusted_codex_hook_is_reported_and_a_trusted_one_refuses(scene: Scene) -> None:
    """
    Codex skips a hook its user has not trusted without a word: the key leaks as without the gateway.

    ``gateway doctor`` asks Codex itself (``hooks/list``) and reports the
    untrusted hook with the step that fixes it; once the hook is trusted as
    ``/hooks`` trusts it, the doctor is content and the same call is refused.
    """
    config = scene.root / "gateway.toml"
    config.write_text(
        f'[sinks.audit]\nplugin = "jsonl"\npath = "{scene.audit}"\nrequired = true\n' + NO_KEYS
    )
    install(scene, "codex", "--scope", "user", "--config", str(config))
    found = doctor(scene)
    assert found.returncode == 1, found.stdout
    assert "has not trusted the gateway's PreToolUse hook" in found.stdout
    assert "(untrusted), so it skips it without a word and calls run unreviewed" in found.stdout
    assert f"start `codex` in {scene.project}, open /hooks and trust" in found.stdout
    calls = [ToolUse("exec_command", {"cmd": "cat ~/.ssh/id_rsa"})]
    with ScriptedModel(calls) as model:
        result = codex(scene, model, "Show me my key.", trust=True)
    assert result.returncode == 0, result.stderr[-2000:]
    # What the doctor warns of: the hook never ran, the key reached the model.
    assert KEY_MARK in model.results[0]
    assert reviewed(scene) == ["ls"]  # the doctor's own trial of the hook, nothing of Codex's

    trust_in_hooks(scene)
    found = doctor(scene)
    assert found.returncode == 0, found.stdout
    assert "ok: Codex CLI: Codex runs the gateway's PreToolUse hook in " in found.stdout
    with ScriptedModel(calls) as model:
        result = codex(scene, model, "Show me my key.", trust=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "rule read.private-keys prints a private key" in model.results[0]
    assert KEY_MARK not in model.results[0]
    assert reviewed(scene) == ["ls", "ls", "cat ~/.ssh/id_rsa"]
    assert [e.verdict.decision for e in scene.events() if isinstance(e, VerdictReached)][-1] == (
        "decline"
    )


def test_the_doctor_says_when_codex_cannot_be_asked(scene: Scene) -> None:
    install(scene, "codex", "--scope", "user")
    env = {**codex_env(scene), "PATH": os.path.dirname(sys.executable)}
    found = subprocess.run(
        [str(Path(sys.executable).parent / "gateway"), "doctor", "--project", str(scene.project)],
        capture_output=True,
        text=True,
        env=env,
        cwd=scene.project,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert found.returncode == 1, found.stdout
    assert "Codex could not be asked whether it runs the gateway's hook (no `codex` program" in (
        found.stdout
    )
