"""
Bounded tasks for the tests of `gateway._work._bounded` (imported by the worker processes too; not a test module).

Each misbehaves in one way a real task could: it spins, grows without end,
raises, exits, prints, or needs the package's public names.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from gateway._work._bounded import CpuSpent, bounded_task, in_worker, raise_if_spent


@bounded_task
def echo(text: str) -> str:
    """Its argument back."""
    return text


@bounded_task
def spin(seconds: float) -> float:
    """Compute without end (past any deadline given), in pure Python."""
    deadline = time.monotonic() + seconds
    count = 0
    while time.monotonic() < deadline:
        count += 1
    return float(count)


@bounded_task
def spin_then_answer(seconds: float) -> str:
    """Spin like `spin`, and when the call's CPU time is spent, answer with what it knows."""
    try:
        spin.function(seconds)
    except CpuSpent as spent:
        return f"stopped after {spent.seconds:g} s"
    return "finished"


@bounded_task
def regex(size: int) -> bool:
    """Hold the interpreter in C code for a long time: a catastrophic regular expression."""
    import re

    return re.match(r"(a+)+$", "a" * size + "b") is not None


@bounded_task
def stretch(rounds: int) -> int:
    """Stay in C code that never looks for signals: a key derivation of many rounds."""
    import hashlib

    return len(hashlib.pbkdf2_hmac("sha256", b"key", b"salt", rounds))


@bounded_task
def hog(size: int) -> int:
    """Allocate more memory than a worker may have."""
    return len(bytearray(size))


@bounded_task
def boom(value: int) -> int:
    """Raise."""
    raise ValueError(f"boom {value}")


@bounded_task
def die(status: int) -> int:
    """End the worker process."""
    os._exit(status)


@bounded_task
def chatter(text: str) -> str:
    """Print to standard output (which must not corrupt the worker's answers)."""
    print(text * 1000)  # noqa: T201 -- the point: output a task prints goes nowhere
    sys.stdout.flush()
    return text


@bounded_task
def public(tool: str) -> str:
    """Use the package's public names (the worker loads them only when asked)."""
    from gateway import ToolCall

    return ToolCall(tool, {}).tool


@bounded_task
def where(_: int) -> bool:
    """Whether it runs in a worker."""
    return in_worker()


@bounded_task
def burn_between_ticks(seconds: float) -> str:
    """
    Use ``seconds`` of CPU time while its timer's signal is ignored (as when the work ends before the tick), then ask.

    What `raise_if_spent` says at the end: ``spent`` with the seconds given, or ``within``.
    """
    previous = signal.signal(signal.SIGPROF, signal.SIG_IGN)
    try:
        started = time.thread_time()
        while time.thread_time() - started < seconds:
            pass
    finally:
        signal.signal(signal.SIGPROF, previous)
    try:
        raise_if_spent()
    except CpuSpent as spent:
        return f"spent {spent.seconds:g}"
    return "within"
