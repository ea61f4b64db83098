"""
``gateway run``: review shell text as a call in the working directory, and run what is allowed inside its boundary.

The text is reviewed as every host's shell call is (the same tiers, rules and
audit log; nobody is asked in the middle). An allow carries the confinement
of the profile (`gateway.confinement.Confinement`); the text then runs with bash inside
bubblewrap, with the caller's terminal for its input and output, and the
run's exit status is the command's. An ask or a decline prints its sentence
and runs nothing; so does a boundary that cannot be set up here. After a
run, a ``call.outcome`` record says how it ended and what it changed in the
writable roots.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import shutil
import signal
import subprocess  # noqa: TID251 -- runs the reviewed text, and only inside its boundary
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Final

import anyio
import msgspec

from gateway._calls._calls import ToolCall
from gateway._calls._confinement import Confinement, Confining
from gateway._calls._effects import Write
from gateway._calls._errors import ConfigError, GatewayError
from gateway._calls._events import RUN_CHANGES_KEPT, RunChanged
from gateway._calls._text import shorten
from gateway._calls._verdicts import Verdict
from gateway._cli._check import without_person
from gateway._cli._common import (
    CommandError,
    Subcommand,
    add_audit_argument,
    with_audit_file,
)
from gateway._cli._fleet import add_config_argument, load_tiers
from gateway._gateway import Gateway
from gateway._review._boundary import Places
from gateway._review._bwrap import (
    Change,
    Layout,
    bwrap_program,
    changes,
    command_argv,
    environment,
    layout,
    snapshot,
    unavailable,
)
from gateway._settings._config import GatewayConfig, state_directory

__all__ = [
    "ASKED",
    "COMMAND",
    "DECLINED",
    "NOT_SET_UP",
    "TIMED_OUT",
    "delete_bytecode",
    "run_changes",
]

ASKED: Final = 125
"""The exit status when the verdict is ``ask``: nothing ran."""

DECLINED: Final = 126
"""The exit status when the verdict is ``decline``: nothing ran."""

NOT_SET_UP: Final = 122
"""The exit status when the boundary of an allowed call could not be built: nothing ran."""

TIMED_OUT: Final = 124
"""The exit status when the run outlived ``--timeout`` and was killed with everything it started (as ``timeout`` says it)."""

_STOP_BOUND: Final = 10.0
"""Seconds to wait for bubblewrap to report its namespace, and to go once that is killed."""

_STATUS_MAX: Final = 4096
"""The most bytes of bubblewrap's status read before its namespace's first process is named."""

_CHANGES_SHOWN: Final = 20


def _configure(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--profile",
        metavar="NAME",
        help="review and confine under this profile (read-only, workspace-write, or one [profiles.NAME] defines) instead of the config's",
    )
    add_audit_argument(parser)
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=_seconds,
        help=f"kill the run and everything it started after this many seconds (exit status {TIMED_OUT}); default: no limit",
    )
    parser.add_argument("text", metavar="'SHELL TEXT'", help="the shell text to review and run")


def _seconds(given: str) -> float:
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"{given!r} is not a number of seconds above 0")
    return seconds


def _profile(config: GatewayConfig, given: str | None) -> str:
    name = given or config.rules_profile
    try:
        config.profile(name)
    except ConfigError as error:
        raise CommandError(str(error)) from None
    return name


def _shell_call(config: GatewayConfig, text: str, cwd: str) -> ToolCall:
    tool = next((t for t in config.shell_tools if not any(c in t.tool for c in "*?[")), None)
    name = tool.tool if tool is not None else "Bash"
    field = tool.fields[0].split(".")[0] if tool is not None else "command"
    return ToolCall(name, {field: text}, cwd=cwd, host="gateway-run")


def _say(sentence: str) -> None:
    sys.stderr.write(f"gateway: {sentence}\n")
    sys.stderr.flush()


class _Inside:
    """
    The process a run's namespace starts with, as bubblewrap reports it (``--json-status-fd``).

    Killing it ends the PID namespace: the kernel kills everything the run
    started, and bubblewrap exits only once they are all gone. A pidfd
    holds it, so no other process that takes its number later is signalled.
    """

    def __init__(self, read_end: int) -> None:
        self._read_end = read_end
        self._pidfd: int | None = None
        self._pid: int | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        found = bytearray()
        with open(self._read_end, "rb", buffering=0) as stream:
            while not self._ready.is_set() and len(found) < _STATUS_MAX:
                piece = stream.read(512)
                if not piece:
                    break
                found += piece
                match = re.search(rb'"child-pid"\s*:\s*([0-9]+)', found)
                if match is not None:
                    self._pid = int(match.group(1))
                    with contextlib.suppress(OSError):
                        self._pidfd = os.pidfd_open(self._pid)
                    break
            self._ready.set()
            while stream.read(512):  # the rest, until bubblewrap closes it
                pass

    def kill(self, bound: float) -> None:
        """Kill the namespace's first process (waiting at most ``bound`` seconds to learn which it is)."""
        self._ready.wait(bound)
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        elif self._pid is not None:  # pragma: no cover - a kernel without pidfds
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)

    def close(self) -> None:
        self._thread.join(_STOP_BOUND)
        if self._pidfd is not None:
            os.close(self._pidfd)


def _stop(process: subprocess.Popen[bytes], inside: _Inside) -> None:
    """End a run and everything it started, and wait (bounded) for bubblewrap to go."""
    inside.kill(_STOP_BOUND)
    try:
        process.wait(timeout=_STOP_BOUND)
    except subprocess.TimeoutExpired:
        process.kill()  # bubblewrap's own end kills the namespace with it (--die-with-parent)
        process.wait()


def _run_confined(
    program: str, box: Layout, text: str, env: dict[str, str], limit: float | None
) -> int | None:
    """
    Run the text inside the boundary, on the caller's terminal; its exit status.

    ``None`` when it outlived ``limit`` seconds: then it and everything it
    started were killed before this returns.
    """
    read_end, write_end = os.pipe()
    argv = command_argv(program, (*box.options, "--json-status-fd", str(write_end)), text)
    try:
        process = subprocess.Popen(argv, env=env, close_fds=True, pass_fds=(write_end,))  # noqa: S603 -- the reviewed text, confined
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    inside = _Inside(read_end)
    try:
        try:
            status = process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            _stop(process, inside)
            return None
        except KeyboardInterrupt:
            _stop(process, inside)
            status = process.returncode
    finally:
        inside.close()
    return 128 - status if status < 0 else status


def _described(found: list[str]) -> str:
    shown = ", ".join(found[:_CHANGES_SHOWN])
    more = len(found) - _CHANGES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


async def _review_and_run(
    config: GatewayConfig, profile: str, text: str, cwd: str, limit: float | None
) -> int:
    program = bwrap_program()
    confining = Confining(profile=profile, unavailable=unavailable(program))
    async with Gateway(config) as gateway:
        verdict: Verdict = await gateway.review(_shell_call(config, text, cwd), confining=confining)
        if verdict.decision != "allow":
            _say(verdict.reason)
            return ASKED if verdict.decision == "ask" else DECLINED
        box = verdict.boundary
        if (
            box is None or program is None
        ):  # pragma: no cover - a confining review never allows bare
            _say("The gateway allowed the call without a boundary, and it runs nothing bare.")
            return NOT_SET_UP
        with tempfile.TemporaryDirectory(prefix="gateway-run-") as scratch:
            empty = Path(scratch) / "hidden"
            empty.touch(mode=0o400)
            built = layout(box, cwd=cwd, empty_file=str(empty))
            if isinstance(built, str):
                sentence = f"The boundary of the call could not be built ({built}), so nothing ran."
                _say(sentence)
                await gateway.record_outcome(verdict.call_id, "denied", sentence)
                return NOT_SET_UP
            # What the walk found beyond the patterns (where links at
            # persistence points lead, what `.pth` files import) is judged
            # as the patterns are.
            box = msgspec.structs.replace(box, protect=(*box.protect, *built.points))
            before = snapshot(box.write) if box.write else {}
            ended = await anyio.to_thread.run_sync(
                _run_confined, program, built, text, environment(box, os.environ), limit
            )
        if ended is None:
            _say(
                f"The run outlived its time limit of {limit:g} s and was killed with everything it started."
            )
        status = TIMED_OUT if ended is None else ended
        after = snapshot(box.write) if box.write else {}
        record = None
        moved: list[str] = []
        compiled: list[str] = []
        aside = state_directory() / "quarantine" / f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        if before is not None and after is not None:
            writes = await _planned_writes(gateway, text, cwd, box.home)
            found = changes(before, after)
            record = run_changes(box, status, found, writes)
            # What makes code run later outside the boundary, made where the
            # plan said nothing would be: moved aside before anything loads it.
            roots = set(box.write)
            planted = unplanned_points(
                box, found, writes, lambda directory: directory in before or directory in roots
            )
            moved = quarantine(planted, aside)
            compiled = delete_bytecode(found, writes)
        sentence = _outcome(box, status, record, None if ended is not None else limit)
        if moved:
            sentence += (
                f" Moved aside to {aside}, as no planned write names them: {_described(moved)}."
            )
        if compiled:
            sentence += (
                f" Deleted {len(compiled)} compiled Python files no planned write names"
                " (Python compiles them again from their source)."
            )
        await gateway.record_outcome(
            verdict.call_id,
            "succeeded" if status == 0 and ended is not None else "failed",
            sentence,
        )
        if record is not None:
            await gateway.record_changes(verdict.call_id, record)
            if moved:
                _say(
                    "The run created what makes code run later where its plan said nothing would be; "
                    f"moved aside to {aside}: {_described(moved)}."
                )
            rest = [
                path
                for path in record.persistence
                if not any(path == top or path.startswith(top + "/") for top in moved)
            ]
            if rest:
                _say(
                    "The run changed what makes code run later, review it before it runs: "
                    + _described(rest)
                    + "."
                )
        return status


def unplanned_points(
    box: Confinement,
    found: Sequence[Change],
    writes: Sequence[Write],
    existed: Callable[[str], bool] = lambda directory: True,
) -> list[str]:
    """
    The persistence points a run planted: created where no planned write names, and not made by a tool with its directory.

    Each without those below it. Wherever they appear, also in a directory
    the run made itself (``.github/workflows/ci.yml`` in a new ``.github``,
    ``sub/.envrc``), except what a known tool writes when it makes a
    directory that did not exist before (``existed``): a new virtual
    environment's ``pyvenv.cfg`` and ``site-packages``, a new repository's
    fresh ``config`` and the ``*.sample`` files of its ``hooks``
    (`_made_by_a_tool`). Those stay, and are only named.

    Examples:
        >>> box = Confinement(profile="p", write=("/w",), protect=("**/.envrc", "**/.vscode/**"))
        >>> found = [Change(path=f"/w/{name}", change="created") for name in
        ...          (".envrc", ".vscode", ".vscode/tasks.json", "out")]
        >>> unplanned_points(box, found, [])
        ['/w/.envrc', '/w/.vscode']
    """
    places = Places(box)
    created = [
        change.path
        for change in found
        if change.change == "created"
        and not _predicted(change.path, writes)
        and places.place(change.path) == "protected"
        and not _made_by_a_tool(change.path, existed)
    ]
    return [path for path in created if not any(path.startswith(top + "/") for top in created)]


_FRESH_GIT_CONFIG: Final = frozenset(
    (
        ("core", "repositoryformatversion"),
        ("core", "filemode"),
        ("core", "bare"),
        ("core", "logallrefupdates"),
        ("core", "ignorecase"),
        ("core", "precomposeunicode"),
        ("core", "symlinks"),
        ("extensions", "objectformat"),
        ("extensions", "refstorage"),
    )
)
"""The settings ``git init`` writes in a new repository's ``config`` (none of them names a program)."""

_CONFIG_READ_MAX: Final = 4096


def _made_by_a_tool(path: str, existed: Callable[[str], bool]) -> bool:
    """
    Whether a new persistence point is one a known tool writes when it makes a directory the run made.

    A directory that did not exist before and now holds ``pyvenv.cfg`` and
    ``bin/python`` is a new virtual environment: its ``pyvenv.cfg`` and
    what lies in its ``site-packages``. One that holds ``HEAD``, ``objects``
    and ``refs`` is a new git directory: its ``config`` when it sets only
    what ``git init`` sets, its ``hooks`` directory and the ``*.sample``
    files in it (git never runs them). Anything else (a hook, CI files,
    ``.envrc``, an editor's or agent's settings) is not.
    """
    directory, _, name = path.rpartition("/")
    rest = [name]
    while directory and not existed(directory):
        if os.path.isfile(directory + "/pyvenv.cfg") and os.path.lexists(directory + "/bin/python"):
            return rest == ["pyvenv.cfg"] or (
                len(rest) >= 2 and "site-packages" in rest[1:3] and rest[0] in ("lib", "lib64")
            )
        if (
            os.path.isfile(directory + "/HEAD")
            and os.path.isdir(directory + "/objects")
            and os.path.isdir(directory + "/refs")
        ):
            if rest == ["config"]:
                return _fresh_git_config(directory + "/config")
            return rest == ["hooks"] or (
                len(rest) == 2 and rest[0] == "hooks" and rest[1].endswith(".sample")
            )
        directory, _, name = directory.rpartition("/")
        rest.insert(0, name)
    return False


def _fresh_git_config(path: str) -> bool:
    """Whether a git ``config`` file sets only what ``git init`` sets (a small file, plain ``[section]`` headers)."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(_CONFIG_READ_MAX + 1)
    except OSError:
        return False
    if len(data) > _CONFIG_READ_MAX:
        return False
    section = ""
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        header = re.fullmatch(r"\[([A-Za-z0-9-]+)\]", line)
        if header is not None:
            section = header.group(1).lower()
            continue
        key = re.fullmatch(r"([A-Za-z][A-Za-z0-9-]*)\s*=\s*[A-Za-z0-9_-]*", line)
        if key is None or (section, key.group(1).lower()) not in _FRESH_GIT_CONFIG:
            return False
    return True


def delete_bytecode(found: Sequence[Change], writes: Sequence[Write]) -> list[str]:
    """
    Delete the compiled Python files (``*.pyc``) a run created or changed where no planned write names them; the paths deleted.

    Python runs a ``__pycache__`` file whose header matches its source's
    time and size instead of the source, and no review of the source
    (``git diff``) shows it: a run could leave code there that runs later
    while the source looks clean. Python compiles them again from the
    source at the next import.
    """
    deleted = []
    for change in found:
        if change.change == "deleted" or not change.path.endswith(".pyc"):
            continue
        if _predicted(change.path, writes):
            continue
        try:
            os.unlink(change.path)
        except OSError:
            continue
        deleted.append(change.path)
    return deleted


def quarantine(paths: Sequence[str], directory: Path) -> list[str]:
    """
    Move each path (a file, a link or a directory, never followed) under ``directory``, by its absolute path.

    The paths a move failed for are left where they are and not returned.
    """
    moved = []
    for path in paths:
        target = directory / path.lstrip("/")
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            shutil.move(path, target)
        except OSError:
            continue
        moved.append(path)
    return moved


async def _planned_writes(gateway: Gateway, text: str, cwd: str, home: str | None) -> list[Write]:
    """The writes the plan of the text says it makes, their ``~/`` spelt out (none when it cannot be read again)."""
    try:
        analysis = await gateway.analyse(text, cwd)
    except GatewayError:
        return []
    found = []
    for effect in analysis.effects:
        if isinstance(effect, Write) and effect.path.value is not None:
            value = effect.path.value
            if value.startswith("~/") and home is not None:
                value = home.rstrip("/") + value[1:]
            if value.startswith("/"):
                found.append(
                    msgspec.structs.replace(
                        effect, path=msgspec.structs.replace(effect.path, value=value)
                    )
                )
    return found


def _predicted(path: str, writes: Sequence[Write]) -> bool:
    """Whether a write of the plan names the path: itself, a glob it matches, a recursive write above it, or a path below it (a directory made on the way)."""
    for write in writes:
        value = write.path.value or ""
        if write.path.pattern:
            if fnmatchcase(path, value):
                return True
            continue
        if path == value or value.startswith(path + "/"):
            return True
        if path.startswith(value + "/") and (write.recursive or write.action != "write"):
            return True
    return False


def run_changes(
    box: Confinement, status: int, found: Sequence[Change], writes: Sequence[Write]
) -> RunChanged:
    """
    The `RunChanged` record of a run: its changes by kind, and those no planned write names.

    Examples:
        >>> box = Confinement(profile="workspace-write", write=("/w",))
        >>> found = [Change(path="/w/out.txt", change="created"), Change(path="/w/.cache", change="created")]
        >>> run_changes(box, 0, found, []).unpredicted
        ('/w/.cache', '/w/out.txt')
        >>> box = Confinement(profile="p", write=("/w",), protect=("**/.envrc",))
        >>> run_changes(box, 0, [Change(path="/w/.envrc", change="created")], []).persistence
        ('/w/.envrc',)
    """
    kinds: dict[str, list[str]] = {"created": [], "changed": [], "deleted": []}
    unpredicted: list[str] = []
    persistence: list[str] = []
    places = Places(box)
    for change in found:
        kinds[change.change].append(change.path)
        if not _predicted(change.path, writes):
            unpredicted.append(change.path)
        if places.place(change.path) == "protected":
            persistence.append(change.path)
    kept = RUN_CHANGES_KEPT
    more = sum(max(len(paths) - kept, 0) for paths in kinds.values())
    return RunChanged(
        profile=box.profile,
        status=status,
        created=tuple(kinds["created"][:kept]),
        changed=tuple(kinds["changed"][:kept]),
        deleted=tuple(kinds["deleted"][:kept]),
        unpredicted=tuple(sorted(unpredicted)[:kept]),
        persistence=tuple(sorted(persistence)[:kept]),
        more=more,
    )


def _outcome(
    box: Confinement, status: int, record: RunChanged | None, outlived: float | None = None
) -> str:
    """One sentence: how the confined run ended (``outlived``: the time limit it was killed at), and what it changed in the writable roots."""
    ended = f"The confined run ({box.profile}) exited with status {status}"
    if outlived is not None:
        ended = (
            f"The confined run ({box.profile}) outlived its time limit of {outlived:g} s "
            "and was killed with everything it started"
        )
    if not box.write:
        return f"{ended}; it could change nothing outside its scratch space."
    if record is None:
        return f"{ended}; its writable roots hold too many files to compare."
    count = len(record.created) + len(record.changed) + len(record.deleted) + record.more
    if not count:
        return f"{ended} and changed nothing in its writable roots."
    listed = [
        f"{kind} {path}"
        for kind, paths in (
            ("created", record.created),
            ("changed", record.changed),
            ("deleted", record.deleted),
        )
        for path in paths
    ]
    unpredicted = len(record.unpredicted)
    return shorten(
        f"{ended}, changed {count} paths ({unpredicted} that no planned write names): "
        f"{_described(listed)}.",
        480,
    )


def _run(arguments: argparse.Namespace) -> int:
    text = arguments.text
    if not text.strip():
        raise CommandError("Give the shell text to run: gateway run -- 'SHELL TEXT'.")
    cwd = os.getcwd()
    config = load_tiers(arguments).config
    if arguments.audit:
        config = with_audit_file(config, os.path.abspath(arguments.audit))
    config = without_person(config)
    profile = _profile(config, arguments.profile)
    rules = {**config.approver.get("rules", {}), "profile": profile}
    config = msgspec.structs.replace(config, approver={**config.approver, "rules": rules})
    try:
        return anyio.run(_review_and_run, config, profile, text, cwd, arguments.timeout)
    except GatewayError as error:
        raise CommandError(str(error)) from None


COMMAND = Subcommand(
    name="run",
    help="Review shell text as a call in this directory and run it with bash inside its boundary (bubblewrap) when allowed.",
    configure=_configure,
    run=_run,
)
