"""
``gateway install HOST``, ``gateway uninstall HOST`` and ``gateway doctor``, run as a user runs them.

Each test runs the real command in a subprocess with a temporary HOME and
project, and checks the settings file it leaves: the hook's absolute
command, the host's fail-closed setting, the user's other settings and hooks
kept, the diff shown first, nothing written twice, and a file that is not
JSON left alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gateway_codex._trust import judge_hooks
from gateway_hooks import load_host
from gateway_hooks._install import hook_command, plan_change

GATEWAY = str(Path(sys.executable).parent / "gateway")
HOOK = str(Path(sys.executable).parent / "gateway-hook")
HOSTS = ("claude-code", "codex", "gemini", "cursor")


def gateway(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
    return subprocess.run(
        [GATEWAY, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def settings_of(host: str, project: Path, home: Path, scope: str = "project") -> Path:
    return load_host(host).settings_file(scope, project, home)  # type: ignore[arg-type]


def test_install_writes_an_absolute_hook_that_blocks_on_failure(home: Path, project: Path) -> None:
    result = gateway(home, "install", "claude-code", "--project", str(project))
    assert result.returncode == 0, result.stderr
    path = project / ".claude" / "settings.json"
    assert f"+++ {path} (after)" in result.stdout
    assert result.stdout.index("+++") < result.stdout.index("was installed in")
    settings = json.loads(path.read_text())
    (guard,) = settings["hooks"]["PreToolUse"][0]["hooks"]
    assert guard == {
        "type": "command",
        "command": f"{HOOK} claude-code",
        "timeout": 360.0,
        "onFailure": "block",
    }
    assert set(settings["hooks"]) == {"PreToolUse", "PostToolUse", "PostToolUseFailure"}
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("host", HOSTS)
def test_installing_twice_changes_nothing_and_uninstalling_restores_the_file(
    host: str, home: Path, project: Path
) -> None:
    path = settings_of(host, project, home)
    path.parent.mkdir(parents=True)
    original: dict[str, Any] = {
        "theme": "dark",
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": "/usr/local/bin/my-linter"}],
                }
            ]
        },
    }
    if host == "cursor":
        original = {
            "version": 1,
            "hooks": {"beforeShellExecution": [{"command": "/usr/local/bin/my-linter"}]},
        }
    path.write_text(json.dumps(original))
    assert gateway(home, "install", host, "--project", str(project)).returncode == 0
    installed = path.read_text()
    again = gateway(home, "install", host, "--project", str(project))
    assert again.returncode == 0
    assert "nothing to change" in again.stdout
    assert path.read_text() == installed
    text = json.dumps(json.loads(installed))
    assert "/usr/local/bin/my-linter" in text
    assert HOOK in text
    removed = gateway(home, "uninstall", host, "--project", str(project))
    assert removed.returncode == 0, removed.stderr
    assert json.loads(path.read_text()) == original


def test_a_hook_installed_from_elsewhere_is_replaced_in_place(home: Path, project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    old = {"type": "command", "command": "/old/venv/bin/gateway hook claude-code --timeout 60"}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [old]}]}}))
    assert gateway(home, "install", "claude-code", "--project", str(project)).returncode == 0
    groups = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert [h["command"] for g in groups for h in g["hooks"]] == [f"{HOOK} claude-code"]


def test_dry_run_shows_the_change_and_writes_nothing(home: Path, project: Path) -> None:
    result = gateway(home, "install", "codex", "--scope", "user", "--dry-run")
    assert result.returncode == 0
    assert "--dry-run" in result.stdout
    assert "PreToolUse" in result.stdout
    assert not (home / ".codex" / "hooks.json").exists()


def test_a_settings_file_that_is_not_json_is_left_alone(home: Path, project: Path) -> None:
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text("{ not json")
    result = gateway(home, "install", "gemini", "--project", str(project))
    assert result.returncode == 2
    assert "is not valid JSON" in result.stderr
    assert path.read_text() == "{ not json"


def test_install_options_reach_the_hook_command(home: Path, project: Path, tmp_path: Path) -> None:
    config = tmp_path / "my gateway.toml"
    config.write_text("")
    result = gateway(
        home,
        "install",
        "claude-code",
        "--project",
        str(project),
        "--config",
        str(config),
        "--require-service",
    )
    assert result.returncode == 0, result.stderr
    command = json.loads((project / ".claude" / "settings.json").read_text())["hooks"][
        "PreToolUse"
    ][0]["hooks"][0]["command"]
    assert command == hook_command(
        "claude-code", config=str(config), require_service=True, program=[HOOK]
    )
    assert "'" in command  # the space in the path is quoted


def test_unknown_hosts_are_refused_naming_the_installed_ones(home: Path) -> None:
    result = gateway(home, "install", "vscode")
    assert result.returncode == 2
    for name in HOSTS:
        assert repr(name) in result.stderr


def test_each_hosts_install_is_a_pure_function_of_the_settings(project: Path, home: Path) -> None:
    for host in HOSTS:
        change = plan_change(
            load_host(host),
            scope="user",
            project=project,
            home=home,
            command=f"{HOOK} {host}",
            timeout=360,
        )
        assert change.before == {}
        assert change.changed
        assert not change.existed
        assert load_host(host).commands(change.after) == (f"{HOOK} {host}",)
        assert load_host(host).problems(change.after) == ()


# ── doctor ──


def test_doctor_checks_an_installed_hook_end_to_end(home: Path, project: Path) -> None:
    assert gateway(home, "install", "claude-code", "--project", str(project)).returncode == 0
    result = gateway(home, "doctor", "claude-code", "--project", str(project))
    assert result.returncode == 0, result.stdout
    assert "ok: Claude Code: the hook runs and answers `ls`" in result.stdout
    assert "ok: Claude Code: an event that is not JSON is blocked (exit 2)." in result.stdout
    assert "no `gateway serve` listens" in result.stdout


def test_doctor_reports_settings_that_turn_claude_codes_hooks_off(
    home: Path, project: Path
) -> None:
    """Claude Code runs no hook when any settings file sets ``disableAllHooks``: said loudly."""
    assert gateway(home, "install", "claude-code", "--project", str(project)).returncode == 0
    result = gateway(home, "doctor", "claude-code", "--project", str(project))
    assert "ok: Claude Code: no settings file turns Claude Code's hooks off." in result.stdout
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"disableAllHooks": True}))
    result = gateway(home, "doctor", "claude-code", "--project", str(project))
    assert result.returncode == 1, result.stdout
    assert (
        f'problem: Claude Code: {local} sets "disableAllHooks": true, so Claude Code runs no hook'
        in result.stdout
    )
    local.write_text(json.dumps({"disableAllHooks": False}))  # the harmless twin
    assert gateway(home, "doctor", "claude-code", "--project", str(project)).returncode == 0


def test_doctor_reports_settings_that_turn_gemini_clis_hook_off(home: Path, project: Path) -> None:
    """Gemini CLI skips a hook its settings disable (by name, or all of them): said loudly."""
    install = gateway(home, "install", "gemini", "--scope", "user", "--project", str(project))
    assert install.returncode == 0, install.stderr
    result = gateway(home, "doctor", "gemini", "--project", str(project))
    assert result.returncode == 0, result.stdout
    assert "ok: Gemini CLI: no settings file turns Gemini CLI's hooks or this one off." in (
        result.stdout
    )
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    for table, said in [
        ({"disabled": ["agent-gateway"]}, "so Gemini CLI skips it and calls run unreviewed"),
        ({"enabled": False}, "so Gemini CLI runs no hook and calls run unreviewed"),
    ]:
        settings.write_text(json.dumps({"hooksConfig": table}))
        result = gateway(home, "doctor", "gemini", "--project", str(project))
        assert result.returncode == 1, result.stdout
        assert f"problem: Gemini CLI: {settings} " in result.stdout
        assert said in result.stdout
    settings.write_text(json.dumps({"hooksConfig": {"disabled": ["someone-elses-hook"]}}))
    assert gateway(home, "doctor", "gemini", "--project", str(project)).returncode == 0


def test_doctor_reports_a_hook_that_fails_open(home: Path, project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    missing = {"type": "command", "command": "/nowhere/gateway-hook claude-code"}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [missing]}]}}))
    result = gateway(home, "doctor", "claude-code", "--project", str(project))
    assert result.returncode == 1
    assert 'no "onFailure": "block"' in result.stdout
    assert "does not exist or cannot run" in result.stdout


def test_doctor_without_any_hook_says_what_to_run(home: Path, project: Path) -> None:
    result = gateway(home, "doctor", "--project", str(project))
    assert result.returncode == 1
    assert "run `gateway install HOST`" in result.stdout


def test_codexs_own_list_of_hooks_is_judged_for_the_installed_guard() -> None:
    """The hooks/list entries Codex 0.171.0 answers (`gateway_codex._trust`), judged without Codex."""
    command = "/opt/venv/bin/gateway-hook codex"
    where = Path("/work/app")

    def hook(
        event: str = "preToolUse", status: str = "trusted", **more: object
    ) -> dict[str, object]:
        return {
            "eventName": event,
            "command": command,
            "enabled": True,
            "trustStatus": status,
            **more,
        }

    (only,) = judge_hooks([hook()], [command], where)
    assert only[0]
    assert "runs the gateway's PreToolUse hook" in only[1]
    assert judge_hooks([hook(status="managed")], [command], where)[0][0]
    for listed, said in [
        ([hook(status="untrusted")], "has not trusted the gateway's PreToolUse hook"),
        ([hook(status="modified")], "(modified), so it skips it without a word"),
        ([hook(enabled=False)], "disabled, so it skips it without a word"),
        ([hook(event="postToolUse")], "does not load the gateway's PreToolUse hook here"),
        ([{**hook(), "command": "/elsewhere/gateway-hook codex"}], "does not load"),
        ([], "does not load the gateway's PreToolUse hook here"),
    ]:
        (finding,) = judge_hooks(listed, [command], where)
        assert not finding[0]
        assert said in finding[1], finding
        assert "/hooks" in finding[1]
    # One trusted guard is enough: Codex runs it, whatever another copy's state.
    assert judge_hooks([hook(status="untrusted"), hook()], [command], where) == [
        (True, "Codex runs the gateway's PreToolUse hook in its hooks (trusted, enabled).")
    ]
