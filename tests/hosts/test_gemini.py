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
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gateway_gemini import HEADLESS

from gateway.audit import verify_audit_log
from gateway.events import CallOutcome, VerdictReached
from hosts.models import ScriptedModel, ToolUse
from hosts.support import (
    HOSTS_DIR,
    KEY_MARK,
    RUN_TIMEOUT,
    Scene,
    Terminal,
    install,
    make_scene,
    need,
    run_cli,
)
from hosts.test_codex import NO_KEYS


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    made = make_scene(tmp_path)
    yield made
    made.settle()


def install_gemini(scene: Scene, policy: str = "") -> Path:
    """The hook installed for the user, over settings that hold the auth choice; the settings file."""
    config = scene.root / "gateway.toml"
    config.write_text(
        f'[sinks.audit]\nplugin = "jsonl"\npath = "{scene.audit}"\nrequired = true\n' + policy
    )
    settings = scene.home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    install(scene, "gemini", "--scope", "user", "--config", str(config))
    return settings


def gemini(
    scene: Scene, model: ScriptedModel, prompt: str, mode: str, *, timeout: float = RUN_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """``gemini -p PROMPT`` headless in approval ``mode``, against the scripted model."""
    argv = [str(need(HOSTS_DIR / "gemini")), "-p", prompt, "-m", "gemini-2.5-pro"]
    argv += ["--approval-mode", mode, "--output-format", "json"]
    env = scene.env(
        GEMINI_API_KEY="fake-key-for-tests",
        GOOGLE_GEMINI_BASE_URL=model.url,
        GEMINI_CLI_TRUST_WORKSPACE="true",
    )
    return run_cli(scene, argv, env=env, timeout=timeout)


def test_gemini_runs_what_is_allowed_and_refuses_the_rest_with_the_rules_reason(
    scene: Scene,
) -> None:
    settings = install_gemini(scene, NO_KEYS)
    written = json.loads(settings.read_text())
    assert written["security"] == {"auth": {"selectedType": "gemini-api-key"}}  # kept
    calls = [
        ToolUse("run_shell_command", {"command": "ls", "description": "List"}),
        ToolUse("run_shell_command", {"command": "rm -rf ~/keep", "description": "Tidy"}),
        ToolUse("run_shell_command", {"command": "cat ~/.ssh/id_rsa", "description": "Key"}),
    ]
    with ScriptedModel(calls) as model:
        result = gemini(scene, model, "Tidy up and show me my key.", "yolo")
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
    scene.settle()
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
    install_gemini(scene)
    with ScriptedModel([call]) as model:
        # Bounded well under the hook's own timeout: a hang shows as a timeout here.
        result = gemini(scene, model, "Write a greeting.", mode, timeout=150)
    assert result.returncode == 0, result.stderr[-2000:]
    assert model.proposed == 1
    (refused,) = model.results
    assert "rule ask.writes writes files" in refused, refused
    assert HEADLESS.split(";")[0] in refused
    assert not (scene.project / "greeting.txt").exists()
    verdicts = [e.verdict.decision for e in scene.events() if isinstance(e, VerdictReached)]
    assert verdicts == ["ask"]


def test_interactive_an_ask_opens_geminis_own_prompt_and_the_persons_answer_holds(
    scene: Scene,
) -> None:
    """
    On a terminal, Gemini CLI shows its confirmation for the hook's ``ask``, and the person decides.

    The CLI runs in a pseudo-terminal (``-i``: the prompt is sent, the
    session stays interactive). The hook's reason appears on the screen,
    the window title says an action is required, nothing runs until the
    person answers; Enter chooses Gemini's first answer (allow once) and the
    call runs.
    """
    install_gemini(scene)
    calls = [ToolUse("run_shell_command", {"command": "echo hello > greeting.txt"})]
    with ScriptedModel(calls) as model:
        argv = [str(need(HOSTS_DIR / "gemini")), "-i", "Write a greeting."]
        argv += ["-m", "gemini-2.5-pro", "--approval-mode", "yolo"]
        env = scene.env(
            GEMINI_API_KEY="fake-key-for-tests",
            GOOGLE_GEMINI_BASE_URL=model.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
            TERM="xterm-256color",
        )
        with Terminal(argv, env=env, cwd=scene.project) as terminal:
            screen = terminal.read_until("Action Required", 150)
            assert "Asked about echo hello: rule ask.writes writes files" in " ".join(
                screen.split()
            )
            # Asked, not run: the person has not answered yet.
            assert not (scene.project / "greeting.txt").exists()
            terminal.type(b"\r")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not (scene.project / "greeting.txt").exists():
                time.sleep(0.2)
    assert (scene.project / "greeting.txt").read_text() == "hello\n"
    verdicts = [e.verdict.decision for e in scene.events() if isinstance(e, VerdictReached)]
    assert verdicts == ["ask"]
