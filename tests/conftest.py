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

One shell is admitted: the bash oracle of ``tests/oracle/bash.py``, and only
when its ``_spawn`` starts it in exactly its confinement — new network and PID
namespaces (and a mount namespace for its own ``/proc``), an unprivileged identity, a fresh ``gateway-oracle-*`` temporary
directory as working directory with ``HOME`` inside it, an environment of
five variables whose ``PATH`` holds nothing but loggers, and the runner's own
harness script (for the trace, with its DEBUG trap before any input). A shell
started through a launcher (``env``, ``timeout``, ``unshare``…) is a shell too.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, settings

_REPOSITORY: Final = Path(__file__).resolve().parent.parent
_SHELLS: Final = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox"}
)

# The programs that run another program from their words. The guard keeps its
# own list rather than importing gateway._plan._launchers.LAUNCHERS: a guard must
# not trust the code under test, and it also names launchers the product
# need not read (bwrap, firejail, strace…) but a test could still start.
# tests/test_guard.py checks that it covers every launcher the product knows.
_LAUNCHERS: Final = frozenset(
    {
        "builtin",
        "command",
        "exec",
        "parallel",
        "env",
        "timeout",
        "unshare",
        "setpriv",
        "nice",
        "nohup",
        "stdbuf",
        "setsid",
        "sudo",
        "doas",
        "chrt",
        "ionice",
        "taskset",
        "prlimit",
        "xargs",
        "script",
        "strace",
        "time",
        "runuser",
        "su",
        "chroot",
        "flock",
        "watch",
        "firejail",
        "bwrap",
        "systemd-run",
    }
)
_ORACLE_RUNNER: Final = (_REPOSITORY / "tests" / "oracle" / "bash.py").resolve()
_TEMPORARY: Final = Path(tempfile.gettempdir()).resolve()

_HOME = Path(tempfile.mkdtemp(prefix="gateway-tests-home-"))
os.environ["HOME"] = str(_HOME)
for _variable in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_variable] = str(_HOME / _variable.lower())
# A hook started by a test reviews in its own process: a warm worker would
# outlive the test. The worker's own tests turn it on (tests/adapters/test_hook_worker.py).
os.environ["GATEWAY_HOOK_WORKER"] = "off"

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
        # A link is removed, not what it points to: resolve its directory only.
        resolved = (
            target.parent.resolve() / target.name if target.is_symlink() else target.resolve()
        )
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


def _argv(args: Any) -> list[str] | None:
    try:
        return [os.fsdecode(a) for a in (args if isinstance(args, list | tuple) else [args])]
    except TypeError:
        return None


def _shell_runs_text(executable: Any, args: Any) -> bool:
    argv = _argv(args)
    if not argv:
        return False
    program = os.path.basename(os.fsdecode(executable) if executable else argv[0])
    if program in _LAUNCHERS:
        # ``timeout 5 bash -c …``: a shell anywhere after a launcher runs text.
        shells = [i for i, a in enumerate(argv) if os.path.basename(a) in _SHELLS]
        if not shells:
            return False
        return not _syntax_check_only(argv[shells[0] + 1 :])
    if program not in _SHELLS:
        return False
    return not _syntax_check_only(argv[1:])


def _syntax_check_only(options: list[str]) -> bool:
    """
    Whether a shell's leading options leave ``-n`` (read, run nothing) in force.

    Only the options before the first operand count: in ``bash -c TEXT -n`` the
    ``-n`` is ``$0`` and TEXT runs. ``+n`` undoes it, and ``-o``/``-O`` (also
    ending a cluster, as in ``-eo``) take the next word as their argument.
    """
    noexec = False
    words = iter(options)
    for word in words:
        if word in ("-", "--") or len(word) < 2 or word[0] not in "-+":
            break
        if word.startswith("--"):
            continue
        letters = word[1:]
        if "n" in letters:
            noexec = word[0] == "-"
        if letters[-1] in "oO":
            next(words, None)
    return noexec


def _oracle_box(path: str) -> Path | None:
    """The oracle's temporary directory a path names (``/tmp/gateway-oracle-*/…``), if it does."""
    candidate = Path(path)
    for root in (candidate, *candidate.parents):
        if root.parent == _TEMPORARY and root.name.startswith("gateway-oracle-"):
            return root
    return None


def _confined_oracle(args: Any, cwd: Any, env: Any) -> bool:
    """True only for the bash oracle's own start, by its ``_spawn``, in its confinement."""
    spawned_by_runner = False
    frame: FrameType | None = sys._getframe(1)
    for _ in range(12):
        if frame is None:
            break
        code = frame.f_code
        if code.co_name == "_spawn" and Path(code.co_filename).resolve() == _ORACLE_RUNNER:
            spawned_by_runner = True
            break
        frame = frame.f_back
    argv = _argv(args)
    if not spawned_by_runner or not argv or not isinstance(env, dict) or cwd is None:
        return False
    namespaces = ["--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--"]
    if argv[:7] == ["/usr/bin/unshare", *namespaces] and len(argv) == 19:
        drop, bash = argv[7:15], argv[15:]
        uid = drop[1].removeprefix("--reuid=")
        if not (
            drop[0] == "/usr/bin/setpriv"
            and uid.isdigit()
            and int(uid) >= 1000
            and drop[2] == f"--regid={uid}"
            and drop[3:]
            == ["--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
        ):
            return False
    elif (
        os.geteuid() != 0
        and argv[:9] == ["/usr/bin/unshare", "--user", "--map-root-user", *namespaces]
        and len(argv) == 13
    ):
        bash = argv[9:]
    else:
        return False
    if bash[:3] != ["/bin/bash", "--norc", "--noprofile"]:
        return False
    box = _oracle_box(bash[3])
    if box is None or bash[3] != str(box / "harness.bash"):
        return False
    expected = {
        "PATH": str(box / "bin"),
        "HOME": str(box / "home"),
        "TMPDIR": str(box / "work" / "tmp"),
        "LC_ALL": "C.UTF-8",
        "PWD": str(box / "work"),
    }
    if env != expected or os.fsdecode(cwd) != str(box / "work"):
        return False
    try:
        script = Path(bash[3]).read_text()
        loggers = [(box / "bin" / name) for name in os.listdir(box / "bin")]
    except OSError:
        return False
    if not all(
        path.name == ".logger" or (path.is_symlink() and os.readlink(path) == ".logger")
        for path in loggers
    ):
        return False
    if script.startswith("# bash oracle: trace harness"):
        # The DEBUG trap is in place before the text is parsed (by the first eval).
        trap = script.find("\ntrap __gw_trap DEBUG\n")
        return 0 <= trap < script.find('\nbuiltin eval -- "$__gw_definition"\n')
    return script.startswith("# bash oracle: run harness")


def _audit(event: str, arguments: tuple[Any, ...]) -> None:
    if event == "subprocess.Popen":
        executable, args, cwd, env = arguments[0], arguments[1], arguments[2], arguments[3]
        if _shell_runs_text(executable, args) and not _confined_oracle(args, cwd, env):
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


# Hypothesis profiles: ``ci`` (the default) keeps each property's own budget;
# ``dev`` (HYPOTHESIS_PROFILE=dev) runs 20 examples where a test sets none,
# for the fast loop.
settings.register_profile("ci", settings.get_profile("default"))
settings.register_profile("dev", max_examples=20, suppress_health_check=(HealthCheck.too_slow,))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# A test module that needs an optional extra (the web service, a host's SDK,
# the broker's client…) is skipped, with the module it lacks, when that extra
# is not installed: ``pip install -e '.[test]'`` gives a green baseline.
# scripts/test.sh sets GATEWAY_TESTS_NEED_EVERY_EXTRA=1, so CI fails instead.
_TEST_MODULES: Final = frozenset(
    path.stem if path.suffix == ".py" else path.name
    for path in (_REPOSITORY / "tests").rglob("*")
    if path.suffix == ".py" or path.is_dir()
)


def _missing_module(error: BaseException | None) -> str | None:
    """The third-party module whose absence made an import fail, if that is what failed."""
    while error is not None:
        if isinstance(error, ModuleNotFoundError) and error.name:
            top = error.name.split(".")[0]
            first_party = top.startswith("gateway") or top in _TEST_MODULES
            return None if first_party else error.name
        error = error.__cause__ or error.__context__
    return None


class _ModuleNeedingExtras(pytest.Module):
    def collect(self) -> Any:
        try:
            return super().collect()
        except pytest.Collector.CollectError as error:
            missing = _missing_module(error.__cause__)
            if missing is None or os.environ.get("GATEWAY_TESTS_NEED_EVERY_EXTRA") == "1":
                raise
            pytest.skip(
                f"needs {missing}, an optional extra (pip install -e '.[dev]' installs every one)",
                allow_module_level=True,
            )


def pytest_pycollect_makemodule(module_path: Path, parent: Any) -> pytest.Module:
    return _ModuleNeedingExtras.from_parent(parent, path=module_path)
