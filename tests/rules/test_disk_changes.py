"""
An identical call after the disk changed is judged again, never answered from memory.

The rules approver's answer depends on the disk where the call touches it —
where a link leads, a repository's configuration, its hooks directory — and
those change under the same text: an agent (or a confined run, which may
write links in the workspace) re-points a link between two identical calls.
A gateway that gave the first answer again would let the second call read
what the first could not. A call that touches no path may still be answered
again.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import anyio
import msgspec
import pytest
from gateway_rules import RulesApprover

from gateway import Gateway, ToolCall
from rules.support import rules_only_config


def _twice(
    text: str, profile: str, home: Path, work: Path, between: Callable[[], None]
) -> tuple[str, str, int]:
    """The decisions on ``text`` before and after ``between`` in one gateway, and how many times the rules judged it."""
    config = rules_only_config()
    config = msgspec.structs.replace(
        config, paths=msgspec.structs.replace(config.paths, home=str(home))
    )
    options = {**config.approver["rules"], "profile": profile}

    async def run() -> tuple[str, str, int]:
        approver = RulesApprover(options, None)
        async with Gateway(config, approvers=[approver], sinks={}) as gateway:
            call = ToolCall("Bash", {"command": text}, cwd=str(work))
            with anyio.fail_after(30):
                first = await gateway.review(call)
                between()
                second = await gateway.review(call)
        judged = approver.judging_statistics()
        return first.decision, second.decision, judged.inline + judged.in_workers

    return anyio.run(run)


def _world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A home directory (``HOME``, as the approver reads it) with a key, and a workspace in it with a link to ``src``."""
    home, work = tmp_path / "home", tmp_path / "home/work"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (work / "src").mkdir(parents=True)
    (work / "src/notes.txt").write_text("notes\n")
    (home / ".ssh").mkdir()
    (home / ".ssh/notes.txt").write_text("a key\n")
    (work / "link").symlink_to("src")
    return home, work


def test_a_link_re_pointed_between_two_identical_calls_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, work = _world(tmp_path, monkeypatch)

    def re_point() -> None:
        (work / "link").unlink()
        (work / "link").symlink_to(home / ".ssh")

    for profile in ("read-only", "workspace-write"):
        first, second, judged = _twice("cat link/notes.txt", profile, home, work, re_point)
        assert (first, second, judged) == ("allow", "ask", 2)
        (work / "link").unlink()
        (work / "link").symlink_to("src")


def test_a_hooks_path_set_between_two_identical_calls_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, work = _world(tmp_path, monkeypatch)
    subprocess.run(["git", "init", "-q", str(work)], check=True, timeout=60)
    (work / "tools/hooks").mkdir(parents=True)

    def set_hooks_path() -> None:
        subprocess.run(
            ["git", "-C", str(work), "config", "core.hooksPath", "tools/hooks"],
            check=True,
            timeout=60,
        )

    first, second, judged = _twice(
        "echo x > tools/hooks/pre-commit", "workspace-write", home, work, set_hooks_path
    )
    assert (first, second, judged) == ("allow", "decline", 2)


def test_a_call_that_touches_no_path_is_still_answered_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, work = _world(tmp_path, monkeypatch)
    first, second, judged = _twice("echo hello", "read-only", home, work, lambda: None)
    assert (first, second, judged) == ("allow", "allow", 1)


def test_a_user_config_rewritten_to_the_same_size_between_two_identical_calls_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The parse of a configuration file is kept per text (`_git_trust._entries`);
    # the file is read again for every call, so a rewrite in place that keeps
    # its size (and may keep its time stamp) still changes the answer.
    home, work = _world(tmp_path, monkeypatch)
    subprocess.run(["git", "init", "-q", str(work)], check=True, timeout=60)
    (work / "tools/hooks").mkdir(parents=True)
    config = home / ".gitconfig"
    config.write_text("[core]\n\thooksPath = tools/hookz\n")
    size = config.stat().st_size

    def re_point_hooks() -> None:
        with config.open("r+") as handle:
            handle.write("[core]\n\thooksPath = tools/hooks\n")
        assert config.stat().st_size == size

    first, second, judged = _twice(
        "echo x > tools/hooks/pre-commit", "workspace-write", home, work, re_point_hooks
    )
    assert (first, second, judged) == ("allow", "decline", 2)
