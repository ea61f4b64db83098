"""
Whether the Gemini CLI that started a hook can ask its user, decided as Gemini decides it.

Gemini CLI answers a hook's ``ask`` with its confirmation prompt, which only
an interactive session shows. Headless, the call waits for an answer nobody
can give and the CLI hangs for good (Gemini CLI 0.61.0, ``-p`` in
``auto_edit`` and ``yolo`` alike). So an ``ask`` is passed on only to a
session known to be interactive; every other one gets a ``deny``.

The session is found from the hook's process (`gateway_hooks.HookEvent.hook_pid`):
the nearest ancestor running Gemini's script (``gemini`` or ``gemini.js``),
read from ``/proc``. It is interactive by Gemini's own rule (its
``isHeadlessMode`` and the ``interactive`` flag of its config): ``-i`` /
``--prompt-interactive`` or ``--acp`` make it so; otherwise it is headless
when ``CI`` or ``GITHUB_ACTIONS`` is ``true`` in its environment, when its
standard input or output is not a terminal, with ``-p`` / ``--prompt``, or
with a query among its arguments. Anything that cannot be read — no
``/proc``, no Gemini among the ancestors, an argument list it cannot place —
counts as headless: a refusal with the reason, never a hang.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Final

__all__ = ["ANCESTORS", "asks_a_person", "interactive"]

ANCESTORS: Final = 8
"""How many processes up from the hook Gemini is looked for (a shell, a relaunch, Gemini)."""

_SCRIPTS: Final = frozenset({"gemini", "gemini.js"})
_INTERACTIVE: Final = frozenset({"-i", "--prompt-interactive", "--acp", "--experimental-acp"})
_HEADLESS: Final = frozenset({"-p", "--prompt"})
_VALUED: Final = frozenset(
    {
        "-m",
        "--model",
        "-w",
        "--worktree",
        "--approval-mode",
        "--policy",
        "--admin-policy",
        "--allowed-mcp-server-names",
        "--allowed-tools",
        "-e",
        "--extensions",
        "-r",
        "--resume",
        "--session-file",
        "--session-id",
        "--delete-session",
        "--include-directories",
        "-o",
        "--output-format",
        "--fake-responses",
        "--fake-responses-non-strict",
        "--record-responses",
    }
)
"""Gemini CLI 0.61.0's options that take the next word as their value."""

_TERMINALS: Final = ("/dev/pts/", "/dev/tty", "/dev/console")


def interactive(arguments: Sequence[str], *, terminal: bool, environ: Mapping[str, str]) -> bool:
    """
    Whether Gemini CLI runs interactively with ``arguments`` (those after its script).

    Examples:
        >>> interactive(["--approval-mode", "auto_edit"], terminal=True, environ={})
        True
        >>> interactive(["-p", "Tidy up."], terminal=True, environ={})
        False
        >>> interactive(["Tidy up."], terminal=True, environ={})
        False
        >>> interactive(["-i", "Tidy up."], terminal=True, environ={})
        True
        >>> interactive([], terminal=False, environ={})
        False
        >>> interactive([], terminal=True, environ={"CI": "true"})
        False
    """
    query = False
    words = iter(arguments)
    for word in words:
        if word == "--":
            query = query or next(words, None) is not None
            break
        name = word.partition("=")[0] if word.startswith("--") else word[:2]
        if not word.startswith("-") or word == "-":
            query = True
        elif name in _INTERACTIVE:
            return True
        elif name in _HEADLESS:
            return False
        elif name in _VALUED and name == word:
            next(words, None)
    if query:
        return False
    if environ.get("GEMINI_CLI_INTEGRATION_TEST") != "true" and "true" in (
        environ.get("CI"),
        environ.get("GITHUB_ACTIONS"),
    ):
        return False
    return terminal


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as stream:
            return stream.read(1 << 20)
    except OSError:
        return None


def _parent(pid: int) -> int | None:
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        return None
    # ``PID (COMM) STATE PPID …``: the name may hold spaces and parentheses.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def _on_a_terminal(pid: int) -> bool:
    for fd in (0, 1):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            return False
        if not target.startswith(_TERMINALS):
            return False
    return True


def _environ(pid: int) -> dict[str, str] | None:
    data = _read(f"/proc/{pid}/environ")
    if data is None:
        return None
    pairs = (entry.decode("utf-8", "replace").partition("=") for entry in data.split(b"\0"))
    return {name: value for name, _, value in pairs if name}


def _script(argv: Sequence[str]) -> int | None:
    """
    Where Gemini's script is in a process's arguments: the program itself, or node's script.

    Examples:
        >>> _script(["node", "--no-warnings", "/usr/lib/node_modules/.bin/gemini", "-p", "x"])
        2
        >>> _script(["/opt/gemini", "-p", "x"])
        0
        >>> _script(["python3", "/venv/bin/gateway-hook", "gemini"]) is None
        True
    """
    if not argv:
        return None
    if os.path.basename(argv[0]) in _SCRIPTS:
        return 0
    if not os.path.basename(argv[0]).startswith("node"):
        return None
    first = next((i for i, word in enumerate(argv) if i and not word.startswith("-")), None)
    return first if first is not None and os.path.basename(argv[first]) in _SCRIPTS else None


def asks_a_person(hook_pid: int) -> bool:
    """Whether the Gemini CLI that started the hook ``hook_pid`` shows its prompt for an ``ask``."""
    pid = _parent(hook_pid)
    for _ in range(ANCESTORS):
        if pid is None or pid <= 1:
            return False
        cmdline = _read(f"/proc/{pid}/cmdline")
        if cmdline is None:
            return False
        argv = [word.decode("utf-8", "replace") for word in cmdline.split(b"\0")[:-1]]
        script = _script(argv)
        if script is not None:
            environ = _environ(pid)
            if environ is None:
                return False
            return interactive(argv[script + 1 :], terminal=_on_a_terminal(pid), environ=environ)
        pid = _parent(pid)
    return False
