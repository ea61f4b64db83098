"""
A delegate program for the command approver's tests: what it does is its first argument.

Run as ``python delegate.py MODE [FILE]``. Modes that answer read the whole
document first; modes named for a failure behave that way (exit 3, print
garbage, never read, never exit…). ``FILE``, when given, receives what the
program saw (its document, its environment, what it could read), as JSON.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any


def _answer(decision: str, reason: str) -> None:
    sys.stdout.write(json.dumps({"decision": decision, "reason": reason}))
    sys.stdout.flush()


def _record(path: str | None, value: Any) -> None:
    if path is not None:
        Path(path).write_text(json.dumps(value), encoding="utf-8")


def _peek(paths: list[str]) -> dict[str, Any]:
    """What this process can see of the gateway: environment, files, other processes, open files."""
    # The environment it was started with (Python adds LC_CTYPE to os.environ itself).
    initial = Path("/proc/self/environ").read_bytes().split(b"\0")
    environ = dict(item.decode().split("=", 1) for item in initial if item)
    seen: dict[str, Any] = {"environ": environ, "argv": sys.argv, "files": {}}
    for path in paths:
        try:
            seen["files"][path] = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            seen["files"][path] = f"! {type(error).__name__}"
    environs = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                environs[entry] = (
                    Path(f"/proc/{entry}/environ").read_bytes().decode(errors="replace")
                )
            except OSError as error:
                environs[entry] = f"! {type(error).__name__}"
    seen["environs"] = environs
    seen["fds"] = sorted(os.listdir("/proc/self/fd"))
    seen["pid"] = os.getpid()
    return seen


def main(mode: str, target: str | None, extra: list[str]) -> None:
    if mode == "never-reads":
        time.sleep(3600)
    if mode == "exits-unread":
        _answer("allow", "It never read the call.")
        return
    document = sys.stdin.read()
    if mode in ("allow", "decline", "abstain"):
        _record(target, json.loads(document))
        _answer(mode, f"The program chose {mode} for {json.loads(document)['call']['tool']}.")
    elif mode == "by-command":
        data = json.loads(document)
        source = (data.get("plan") or {}).get("source", "")
        decision = (
            "allow" if source.startswith("ls") else "decline" if "rm" in source else "abstain"
        )
        _answer(decision, f"Decided by the command's first word: {source.split()[0]}.")
    elif mode == "peek":
        _record(target, {**_peek(extra), "document": document})
        _answer("abstain", "It only looked around.")
    elif mode == "exit-3":
        _answer("allow", "An allow on a failing exit.")
        sys.exit(3)
    elif mode == "killed":
        _answer("allow", "An allow before dying.")
        os.kill(os.getpid(), signal.SIGKILL)
    elif mode == "garbage":
        sys.stdout.write("yes, go ahead\n")
    elif mode == "empty":
        pass
    elif mode == "huge":
        sys.stdout.write('{"decision": "allow", "reason": "' + "x" * 10_000_000 + '"}')
    elif mode == "unknown-field":
        sys.stdout.write('{"decision": "allow", "reason": "Fine.", "scope": "forever"}')
    elif mode == "no-reason":
        sys.stdout.write('{"decision": "allow"}')
    elif mode == "blank-reason":
        sys.stdout.write('{"decision": "allow", "reason": "  \\n "}')
    elif mode == "bad-decision":
        sys.stdout.write('{"decision": "yes", "reason": "Fine."}')
    elif mode == "decision-twice":
        sys.stdout.write('{"decision": "decline", "reason": "No.", "decision": "allow"}')
    elif mode == "array":
        sys.stdout.write('[{"decision": "allow", "reason": "Fine."}]')
    elif mode == "two-answers":
        sys.stdout.write(
            '{"decision": "decline", "reason": "No."}{"decision": "allow", "reason": "Yes."}'
        )
    elif mode == "late-allow":
        time.sleep(3)  # past the 1 s timeout the test gives it
        _answer("allow", "An allow after the deadline.")
    elif mode == "never-exits":
        _answer("allow", "Answered, and stayed.")
        sys.stdout.close()
        time.sleep(3600)
    elif mode == "leaves-child":
        child = os.fork()
        if child == 0:
            os.setpgid(0, 0) if extra == ["own-group"] else None
            time.sleep(3600)
            os._exit(0)
        _record(target, {"child": child})
        _answer("allow", "It left a child behind.")
    elif mode == "hangs-with-child":
        child = os.fork()
        if child == 0:
            time.sleep(3600)
            os._exit(0)
        _record(target, {"child": child})
        time.sleep(3600)
    else:
        sys.exit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, sys.argv[3:])
