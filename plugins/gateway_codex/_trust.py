"""
Whether Codex really runs the gateway's hook: asked of Codex itself.

Codex runs a hook only once the user has trusted it (``/hooks`` in its TUI),
and skips an untrusted or disabled one without a word: the call then runs
unreviewed, exactly as without the gateway. The hooks' state is Codex's own
(a hash of each hook, kept in its config), so it is read the way Codex's
TUI reads it: ``codex app-server`` answers ``hooks/list`` for a directory
with every hook it would load there, each with ``enabled`` and
``trustStatus`` (``trusted``, ``managed``, ``untrusted``, ``modified``).
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess  # noqa: TID251 -- asks the installed Codex CLI about its hooks, as its TUI does
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

__all__ = ["HOOKS_TIMEOUT", "Finding", "codex_hooks", "judge_hooks"]

HOOKS_TIMEOUT: Final = 30.0
"""Seconds Codex may take to start and list its hooks."""

_TRUSTED: Final = frozenset({"trusted", "managed"})

_FIX: Final = (
    "start `codex` in {project}, open /hooks and trust the gateway's hooks "
    "(automation that vets its hooks itself may run `codex exec --dangerously-bypass-hook-trust`)"
)

Finding = tuple[bool, str]
"""One line of the doctor's report: whether it is fine, and the sentence."""


def _requests(project: Path) -> bytes:
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "gateway-doctor", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(project)]}},
    ]
    return "".join(json.dumps(message) + "\n" for message in messages).encode()


def _answer(process: subprocess.Popen[bytes], deadline: float) -> dict[str, Any] | str:
    """The ``hooks/list`` answer read from Codex's output before ``deadline``, or why not."""
    if process.stdout is None:
        return "Codex's output could not be read"
    buffered = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not selector.select(left):
                continue
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                return f"Codex exited (status {process.poll()}) before it listed its hooks"
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            for line in lines:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict) and message.get("id") == 2:
                    if "error" in message:
                        return f"Codex could not list its hooks ({message['error']})"
                    return message
    return f"Codex did not list its hooks within {HOOKS_TIMEOUT:g} s"


def codex_hooks(
    project: Path,
    *,
    program: str | None = None,
    env: Mapping[str, str] | None = None,
    within: float = HOOKS_TIMEOUT,
) -> list[dict[str, Any]] | str:
    """
    The hooks Codex would run in ``project``, as ``codex app-server`` lists them, or a sentence why not.

    Args:
        project: The directory Codex would run in (its project hooks are found from there).
        program: The ``codex`` program (default: ``codex`` on ``PATH``).
        env: Codex's environment (default: this process's; ``CODEX_HOME`` says where its config is).
        within: Seconds Codex may take.
    """
    found = program or shutil.which("codex", path=(os.environ if env is None else env).get("PATH"))
    if found is None:
        return "no `codex` program is on PATH to ask"
    try:
        process = subprocess.Popen(  # noqa: S603 -- the installed Codex CLI, without a shell
            [found, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=project,
            env=None if env is None else dict(env),
        )
    except OSError as error:
        return f"`{found} app-server` could not start ({error.strerror})"
    stdin = process.stdin
    answer: dict[str, Any] | str
    try:
        if stdin is None:
            answer = "Codex's input could not be written"
        else:
            stdin.write(_requests(project))
            stdin.flush()
            answer = _answer(process, time.monotonic() + within)
    except OSError as error:
        answer = f"Codex stopped answering ({error.strerror})"
    finally:
        if stdin is not None:
            stdin.close()  # the app-server exits at the end of its input
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
    if isinstance(answer, str):
        return answer
    data = answer.get("result", {}).get("data", [])
    hooks = [hook for entry in data if isinstance(entry, dict) for hook in entry.get("hooks", [])]
    return [hook for hook in hooks if isinstance(hook, dict)]


def judge_hooks(
    hooks: Sequence[Mapping[str, Any]], commands: Sequence[str], project: Path
) -> list[Finding]:
    """
    What Codex's own list says of the gateway's ``PreToolUse`` hook (``commands``: the installed ones).

    Fine when Codex lists one of them for ``preToolUse`` enabled and trusted
    (or managed by an administrator); otherwise each reason every one of them
    would be skipped, with the step that fixes it.
    """
    fix = _FIX.format(project=project)
    guards = [
        hook
        for hook in hooks
        if hook.get("eventName") == "preToolUse" and hook.get("command") in commands
    ]
    if not guards:
        return [
            (
                False,
                "Codex does not load the gateway's PreToolUse hook here (an untrusted project's "
                f"hooks stay disabled), so calls run unreviewed; trust the project or run "
                f"`gateway install codex --scope user`, then {fix}.",
            )
        ]
    findings: list[Finding] = []
    for hook in guards:
        if hook.get("enabled", False) and hook.get("trustStatus") in _TRUSTED:
            where = hook.get("sourcePath") or "its hooks"
            return [
                (
                    True,
                    f"Codex runs the gateway's PreToolUse hook in {where} ({hook['trustStatus']}, enabled).",
                )
            ]
    for hook in guards:
        where = hook.get("sourcePath") or "its hooks"
        status = hook.get("trustStatus")
        if not hook.get("enabled", False):
            findings.append(
                (
                    False,
                    f"Codex has the gateway's PreToolUse hook in {where} disabled, so it skips it "
                    "without a word and calls run unreviewed; enable it in /hooks.",
                )
            )
        else:
            findings.append(
                (
                    False,
                    f"Codex has not trusted the gateway's PreToolUse hook in {where} ({status}), so it "
                    f"skips it without a word and calls run unreviewed; {fix}.",
                )
            )
    return findings
