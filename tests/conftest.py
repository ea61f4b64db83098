"""
Test-session guards: the tests plan hostile commands; nothing may ever run one.

The suite is full of strings like ``rm -rf ~`` and ``curl … | bash``. A test
that handed one to a real shell by mistake would damage the machine it runs
on, so before any test is collected this module:

* points ``HOME`` (and the XDG directories) at a fresh temporary directory, so
  an accidental ``~`` reaches nothing that matters;
* installs an audit hook (``sys.addaudithook``; it cannot be removed) that
  refuses, inside this process, to start a shell that would run text
  (``sh``/``bash``/… with ``-c`` or a script, unless ``-n`` only checks the
  syntax), to call ``os.system``, and to delete files or directories outside
  the temporary directories, the repository's ``test-artifacts`` and pytest's
  own cache directories.

Subprocesses of the project's own Python code (``python -m gateway._cli …``)
and browsers are allowed; they get the same temporary ``HOME``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

_REPOSITORY: Final = Path(__file__).resolve().parent.parent
_SHELLS: Final = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox"}
)

_HOME = Path(tempfile.mkdtemp(prefix="gateway-tests-home-"))
os.environ["HOME"] = str(_HOME)
for _variable in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_variable] = str(_HOME / _variable.lower())

_DELETABLE: Final = (
    Path(tempfile.gettempdir()).resolve(),
    (_REPOSITORY / "test-artifacts").resolve(),
    (_REPOSITORY / ".hypothesis").resolve(),
    (_REPOSITORY / ".pytest_cache").resolve(),
)


class UnsafeOperation(RuntimeError):
    """A test tried to run shell text or delete outside the temporary directories."""


def _deletable(path: Any, dir_fd: Any = None) -> bool:
    if isinstance(path, int):  # a directory file descriptor: relative to an allowed walk
        return True
    try:
        target = Path(os.fsdecode(path))
        if isinstance(dir_fd, int) and not target.is_absolute():
            target = Path(os.readlink(f"/proc/self/fd/{dir_fd}")) / target
        resolved = target.resolve()
    except (TypeError, ValueError, OSError):
        return False
    if any(resolved == root or root in resolved.parents for root in _DELETABLE):
        return True
    # pytest builds its cache in a scratch directory beside ``.pytest_cache``
    # and removes the scratch directory if another process won the rename.
    return any(
        parent.parent == _REPOSITORY and parent.name.startswith("pytest-cache-files-")
        for parent in (resolved, *resolved.parents)
    )


def _shell_runs_text(executable: Any, args: Any) -> bool:
    try:
        argv = [os.fsdecode(a) for a in (args if isinstance(args, list | tuple) else [args])]
    except TypeError:
        return False
    if not argv:
        return False
    program = os.path.basename(os.fsdecode(executable) if executable else argv[0])
    if program not in _SHELLS:
        return False
    return "-n" not in argv[1:]


def _audit(event: str, arguments: tuple[Any, ...]) -> None:
    if event == "subprocess.Popen":
        executable, args = arguments[0], arguments[1]
        if _shell_runs_text(executable, args):
            raise UnsafeOperation(
                f"A test tried to run shell text: {args!r}; tests plan commands, never run them."
            )
    elif event == "os.system":
        raise UnsafeOperation("A test called os.system; tests plan commands, never run them.")
    elif event in ("os.remove", "os.rmdir", "shutil.rmtree") and not _deletable(
        arguments[0], arguments[1] if len(arguments) > 1 else None
    ):
        raise UnsafeOperation(
            f"A test tried to delete {arguments[0]!r}, outside the temporary directories."
        )


sys.addaudithook(_audit)
