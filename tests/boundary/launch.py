"""
Run ``gateway run`` many times from one process that has the gateway imported once.

Started as ``python tests/boundary/launch.py``; reads one job a line on
standard input (JSON: ``argv``, ``cwd``, ``env``, ``out``, ``err``,
``timeout``) and, for each, forks a fresh child that becomes the command as
a user runs it: its working directory, exactly the job's environment,
standard input from ``/dev/null``, standard output and error into the job's
files, then ``gateway._cli.main(argv)``. The child's exit status is
written back as one JSON line (``{"status": N}``, or ``{"status": null}``
when it outlived its ``timeout`` and was killed with everything it started).

The fork is what makes a replay of hundreds of calls affordable: starting
Python and importing the gateway costs most of a second, the fork a few
milliseconds; what the child runs is the real command, from argument parsing
to bubblewrap.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
import traceback

import gateway_rules  # noqa: F401 -- imported before the forks

from gateway._cli import (
    _run as _loaded,  # noqa: F401 -- imported before the forks
    main,
)
from gateway._review._bwrap import bwrap_program, unavailable
from gateway.plans import plan_program


def _child(job: dict[str, object]) -> int:
    os.setpgid(0, 0)  # its own group: a timeout kills what it started too
    os.chdir(str(job["cwd"]))
    environ = job["env"]
    assert isinstance(environ, dict)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in environ.items()})
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, name in ((1, "out"), (2, "err")):
        target = os.open(str(job[name]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    argv = job["argv"]
    assert isinstance(argv, list)
    return main([str(word) for word in argv])


def _wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.005)


_WARM = "git status; cat a | grep -rn b .; python3 x.py; sed -i s/a/b/ f; find . -name x; ls -la ~"
"""Planned once before the forks: the option tables it loads are the code's, whatever the call."""


def serve() -> None:
    unavailable(bwrap_program())  # the probe, once, as one long-lived process would
    plan_program(_WARM)
    for line in sys.stdin:
        job = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            status = 70
            try:
                status = _child(job)
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else 1
            except BaseException:  # noqa: BLE001 -- the child says what broke, and exits
                traceback.print_exc()
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(status)
        ended = _wait(pid, float(job["timeout"]))
        sys.stdout.write(json.dumps({"status": ended}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
