"""
``gateway install HOST`` / ``gateway uninstall HOST``: write a host's hook settings, and take them out.

The settings file is read as JSON (a missing file is ``{}``; one that is not
a JSON object is refused, never overwritten), changed by the host's pure
`gateway_hooks.HookHost.install` / ``uninstall``, and the change is shown
as a unified diff before it is written. Writing is atomic (a temporary file
beside it, then a rename) and keeps the file's permissions; the user's other
settings and other hooks stay as they were. Installing twice changes nothing.

The hook command is the absolute path of ``gateway-hook`` (beside the Python
that runs this command), so it does not depend on ``PATH``: a bare
``gateway`` is not on ``PATH`` inside a virtual environment, and a hook that
cannot start lets calls through on most hosts.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from gateway_hooks import HookHost, HookScope
from gateway_hooks._settings import read_settings

__all__ = ["Change", "hook_command", "plan_change", "read_settings", "write_settings"]


class Change(NamedTuple):
    """What installing or uninstalling does to one settings file."""

    path: Path
    before: dict[str, Any]
    after: dict[str, Any]
    existed: bool

    @property
    def changed(self) -> bool:
        """Whether the file's content changes."""
        return self.before != self.after or (not self.existed and bool(self.after))

    def diff(self) -> str:
        """A unified diff of the file, before and after."""
        old = _render(self.before).splitlines(keepends=True) if self.existed else []
        new = _render(self.after).splitlines(keepends=True)
        return "".join(
            difflib.unified_diff(
                old, new, fromfile=f"{self.path} (now)", tofile=f"{self.path} (after)"
            )
        )


def _render(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def hook_program() -> list[str]:
    """The absolute command that starts the fast hook: ``gateway-hook`` beside this Python, or ``python -m gateway_relay``."""
    beside = Path(sys.executable).parent / "gateway-hook"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside.absolute())]
    found = shutil.which("gateway-hook")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "gateway_relay"]


def hook_command(
    host: str,
    *,
    config: str | None = None,
    require_service: bool = False,
    program: Sequence[str] | None = None,
    confine: bool = False,
) -> str:
    """The hook command for ``host``, quoted for the shell the host runs it with."""
    words = [*(program or hook_program()), host]
    if config:
        words += ["--config", str(Path(config).expanduser().absolute())]
    if require_service:
        words.append("--require-service")
    if confine:
        words.append("--confine")
    return shlex.join(words)


def plan_change(
    host: HookHost,
    *,
    scope: HookScope,
    project: Path,
    home: Path,
    command: str | None,
    timeout: float,
) -> Change:
    """What installing (``command`` given) or uninstalling (``None``) does to the host's settings."""
    path = host.settings_file(scope, project, home)
    before, existed = read_settings(path)
    copy = json.loads(json.dumps(before))
    after = host.install(copy, command, timeout) if command is not None else host.uninstall(copy)
    return Change(path=path, before=before, after=after, existed=existed)


def write_settings(change: Change) -> None:
    """Write the new settings atomically, keeping the file's mode (user-only when new)."""
    path = change.path
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(_render(change.after))
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
