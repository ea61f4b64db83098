"""
Runs the command approver's program where it cannot see the gateway's secrets.

A standalone script (the standard library only; started as ``python -I -S
_isolate.py [--hide PATH]... -- PROGRAM ARG...``), so it starts fast and
imports nothing from the environment it was given. Before it runs the
program, it:

* enters new mount and PID namespaces (and a user namespace when it is not
  root), so the program sees only its own processes: the gateway's
  ``/proc/PID/environ`` and memory are out of reach;
* covers every ``--hide`` path that exists with an empty, read-only tmpfs
  (a directory) or ``/dev/null`` (a file): the bearer token's directory;
* gives up every capability (and sets ``no_new_privs``), so the program
  cannot unmount what covers those paths, even when the gateway runs as root;
* passes on only the ``--env`` variables (Python adds some of its own to
  its environment, such as ``LC_CTYPE``; they stay behind);
* starts the program under a first process of the namespace that only
  reaps and reports: when the program exits, that process exits, and the
  kernel kills everything the program left behind in the namespace.

It exits as the program did (the same status, or killed by the same
signal). ``--probe`` sets everything up, runs nothing and exits 0: the
approver checks at load that isolation works here. A failure is one line on
standard error and a status as ``env`` has them: 125 (it cannot isolate; the
program never runs unisolated), 126 (the program cannot be executed), 127
(there is no such program).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Final

_CLONE_NEWNS: Final = 0x00020000
_CLONE_NEWUSER: Final = 0x10000000
_CLONE_NEWPID: Final = 0x20000000
_MS_RDONLY: Final = 1
_MS_NOSUID: Final = 2
_MS_NODEV: Final = 4
_MS_NOEXEC: Final = 8
_MS_BIND: Final = 4096
_MS_REC: Final = 16384
_MS_PRIVATE: Final = 1 << 18
_PR_SET_PDEATHSIG: Final = 1
_PR_CAPBSET_DROP: Final = 24
_PR_SET_NO_NEW_PRIVS: Final = 38
_PR_CAP_AMBIENT: Final = 47
_PR_CAP_AMBIENT_CLEAR_ALL: Final = 4
_CANNOT_ISOLATE: Final = 125
_NOT_EXECUTABLE: Final = 126
_NOT_FOUND: Final = 127

_libc = ctypes.CDLL(None, use_errno=True)


class _IsolationError(Exception):
    """One step of the isolation failed; the message says which."""


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise _IsolationError(f"{what}: {os.strerror(error)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None) -> None:
    _check(
        _libc.mount(
            None if source is None else source.encode(),
            target.encode(),
            None if kind is None else kind.encode(),
            ctypes.c_ulong(flags),
            None if data is None else data.encode(),
        ),
        f"mount {target}",
    )


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as stream:
        stream.write(text)


def _enter_namespaces() -> None:
    uid, gid = os.getuid(), os.getgid()
    flags = _CLONE_NEWNS | _CLONE_NEWPID
    if uid != 0:
        flags |= _CLONE_NEWUSER
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")
    if uid != 0:
        # The same ids inside: the program keeps its files, and as a user that
        # is not root there it has no capability once it is executed.
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None)


def _hide(paths: list[str]) -> None:
    for path in paths:
        if os.path.isdir(path):
            _mount(
                "tmpfs",
                path,
                "tmpfs",
                _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                "size=4k,mode=000",
            )
        elif os.path.lexists(path):
            _mount("/dev/null", path, None, _MS_BIND, None)


def _drop_privileges() -> None:
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if os.getuid() != 0:
        return
    # Root keeps its capabilities across exec unless the bounding set is empty.
    _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as stream:
        last = int(stream.read())
    for capability in range(last + 1):
        _check(_libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0), f"drop capability {capability}")


def _exit_as(status: int) -> None:
    """Exit as a process with wait status ``status`` did: the same code, or the same signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else _CANNOT_ISOLATE)


def _let_go_of_the_pipes() -> None:
    """
    Put ``/dev/null`` in place of standard input and output: only the program
    holds the call's pipes, so its output ends when it (and everything it
    started, killed with its namespace) has gone.
    """
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)


def _report(channel: int, line: str) -> None:
    os.write(channel, (line + "\n").encode(errors="replace"))


def _init(channel: int, program: list[str], environment: dict[str, str], *, probe: bool) -> None:
    """
    PID 1 of the new namespace: finish isolating, start the program, reap, report its status.

    The program is PID 2, not 1, so signals behave for it as anywhere else (a
    PID 1 ignores the signals it has no handler for, even ``kill -9`` from
    itself). Its wait status goes back to the parent over ``channel``.
    """
    try:
        _check(_libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "parent-death signal")
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None)
        _drop_privileges()
    except (_IsolationError, OSError, AttributeError) as error:
        _report(channel, f"error {_CANNOT_ISOLATE} cannot isolate the program: {error}")
        os._exit(_CANNOT_ISOLATE)
    if probe:
        _report(channel, "status 0")
        os._exit(0)
    started = os.fork()
    if started == 0:
        try:
            # The channel is closed on exec: it carries nothing unless exec fails.
            os.execve(program[0], program, environment)  # noqa: S606 -- running the program is the job
        except OSError as error:
            code = _NOT_FOUND if isinstance(error, FileNotFoundError) else _NOT_EXECUTABLE
            _report(channel, f"error {code} cannot run the program: {error.strerror}")
            os._exit(code)
    _let_go_of_the_pipes()
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(_CANNOT_ISOLATE)
        except InterruptedError:
            continue
        if pid == started:
            _report(channel, f"status {status}")
            os._exit(0)


def _parse(argv: list[str]) -> tuple[list[str], list[str], bool, list[str]]:
    hidden: list[str] = []
    names: list[str] = []
    probe = False
    index = 0
    while index < len(argv):
        word = argv[index]
        if word in ("--hide", "--env") and index + 1 < len(argv):
            (hidden if word == "--hide" else names).append(argv[index + 1])
            index += 2
        elif word == "--probe":
            probe = True
            index += 1
        elif word == "--":
            if not probe and index + 1 == len(argv):
                raise _IsolationError("no program to run")
            return hidden, names, probe, argv[index + 1 :]
        else:
            raise _IsolationError(f"unknown argument {word!r}")
    if not probe:
        raise _IsolationError("no program to run")
    return hidden, names, probe, []


def main(argv: list[str]) -> None:
    """Isolate, then run the program (or, with ``--probe``, only isolate)."""
    try:
        hidden, names, probe, program = _parse(argv)
        environment = {name: os.environ[name] for name in names if name in os.environ}
        _enter_namespaces()
        _hide(hidden)
    except (_IsolationError, OSError) as error:
        sys.stderr.write(f"cannot isolate the program: {error}\n")
        os._exit(_CANNOT_ISOLATE)
    except AttributeError:  # a C library without unshare or mount: not Linux
        sys.stderr.write("cannot isolate the program: this system has no Linux namespaces\n")
        os._exit(_CANNOT_ISOLATE)
    read_end, write_end = os.pipe()
    init = os.fork()
    if init == 0:
        os.close(read_end)
        _init(write_end, program, environment, probe=probe)
    os.close(write_end)
    _let_go_of_the_pipes()
    while True:
        try:
            _, status = os.waitpid(init, 0)
            break
        except InterruptedError:
            continue
    lines = os.read(read_end, 65_536).decode(errors="replace").splitlines()
    for line in lines:
        if line.startswith("error "):
            code, _, message = line.removeprefix("error ").partition(" ")
            sys.stderr.write(message + "\n")
            os._exit(int(code) if code.isdigit() else _CANNOT_ISOLATE)
    reported = [line.removeprefix("status ") for line in lines if line.startswith("status ")]
    if reported and reported[-1].isdigit():
        _exit_as(int(reported[-1]))
    # The namespace's first process died without a word (killed from outside).
    _exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
