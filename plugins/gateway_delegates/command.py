"""
The ``command`` approver: a program of yours decides, with the call as JSON on its standard input.

Registered in the ``gateway.approvers`` entry-point group as ``command``.
For each question it is asked, it runs the program once, with the delegate
document (see `gateway_delegates.document_of`) as its standard input (a file
in memory, so a program that never reads cannot block the gateway), and
reads one answer on its standard output:
``{"decision": "allow" | "decline" | "abstain", "reason": "…"}``.

The program gets nothing else of the gateway's: an empty environment (only
the variables ``env`` names are passed), ``/`` as its working directory, no
open file but its standard input, output (a pipe) and error (discarded),
and — unless ``isolate = false`` — mount and PID namespaces of its own (and
a user one, when the gateway is not root) in which every secret file the
config names (`gateway.config.secret_files`: bearer tokens, the service's state
directory, signing keys, broker credentials…) and every ``hide`` path are covered and the gateway's
processes cannot be seen (``_isolate.py``). It runs in its own process
group, which is killed when it answers, fails or runs out of time: nothing
it started outlives the question.

A non-zero exit, a timeout, output past ``max-output``, anything but one
answer object, an unknown field, or exiting before reading the whole call:
one sentence, and a decline (or an abstain, with ``on-failure = "abstain"``).
Never an allow.

Options (``[approver.command]``)::

    [approver.command]
    argv = ["/usr/local/bin/review-call", "--strict"]  # required
    timeout = 10           # seconds; then its process group is killed
    env = ["PATH", "LANG"] # variables passed from the gateway's environment
    isolate = true         # its own namespaces, secrets hidden (Linux)
    hide = ["~/.config/my-secrets"]  # more paths it must not see
    max-output = 65536     # bytes of answer
    max-document = 4194304 # bytes of document; a larger call fails
    concurrency = 4        # programs running at once
    on-failure = "decline" # or "abstain"
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess  # noqa: TID251 -- this approver's job is to run the program it is configured with
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Annotated, Any, Final

import anyio
import msgspec
from anyio.abc import ByteReceiveStream, Process

from gateway import Answer, ApproverContext, ReviewRequest
from gateway.config import secret_files
from gateway_delegates._contract import (
    GRACE,
    DelegateAnswer,
    DelegateOptions,
    Failure,
    Seconds,
    Size,
    answer_from,
    decode_options,
    document_of,
    encode_document,
    failed,
    read_answer,
    too_large,
)

__all__ = ["CommandApprover", "CommandOptions"]

WHO: Final = "the `command` approver's program"

_ISOLATE: Final = str(Path(__file__).with_name("_isolate.py"))
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CommandOptions(
    DelegateOptions, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    The ``[approver.command]`` table.

    Attributes:
        argv: The program (a path, or a name looked up on the gateway's
            ``PATH`` when it starts) and its arguments.
        timeout: Seconds the program may take, from the moment it may start.
        env: Names of the gateway's environment variables to pass (none by
            default; an unset one is left out).
        isolate: Run it in namespaces of its own, where the gateway's secret
            files and processes cannot be seen (Linux; the gateway will not
            start where that is impossible, unless this is false).
        hide: More files or directories the program must not see (with ``isolate``).
        max_output: Bytes the program may write on standard output.
    """

    argv: Annotated[tuple[str, ...], msgspec.Meta(min_length=1)]
    timeout: Seconds = 10.0
    env: tuple[str, ...] = ()
    isolate: bool = True
    hide: tuple[str, ...] = ()
    max_output: Size = 65_536


class CommandApprover:
    """
    Asks a program about each question; its answer, or a failure that is never an allow.

    Args:
        options: The ``[approver.command]`` table.
        context: The gateway's context (the secret files to hide are taken
            from its config: `gateway.config.secret_files`).

    Raises:
        ValueError: The options are invalid, the program is not found, or it
            cannot be isolated here.

    Attributes:
        name: ``command``.
        role: ``delegate``: its allow never outranks a rule's decline.
        timeout: What the gateway allows it: the program's timeout and a grace.
        options: The parsed options.
    """

    name = "command"
    role: Final = "delegate"

    def __init__(self, options: Mapping[str, Any], context: ApproverContext) -> None:
        self.options = decode_options(dict(options), CommandOptions, "approver.command")
        self.timeout = self.options.timeout + GRACE
        program = _resolve(self.options.argv[0])
        for variable in self.options.env:
            if not _NAME.fullmatch(variable):
                raise ValueError(
                    f"Invalid [approver.command] options: {variable!r} in `env` is not a variable name."
                )
        self._environment = {
            name: os.environ[name] for name in self.options.env if name in os.environ
        }
        argv = [program, *self.options.argv[1:]]
        self._command = argv
        if self.options.isolate:
            hidden = [
                *secret_files(context.config),
                *(_absolute(path) for path in self.options.hide),
            ]
            prefix = [sys.executable, "-I", "-S", "-B", _ISOLATE]
            for path in hidden:
                prefix += ["--hide", path]
            for variable in self._environment:
                prefix += ["--env", variable]
            problem = _probe(prefix)
            if problem is not None:
                raise ValueError(
                    f"The `command` approver cannot isolate its program here ({problem}); "
                    "set isolate = false in [approver.command] to run it with a clean environment only."
                )
            # Python adds variables of its own (LC_CTYPE) to the environment
            # of the isolating interpreter: it passes on only the named ones.
            self._command = [*prefix, "--", *argv]
        self._limiter = anyio.CapacityLimiter(self.options.concurrency)

    async def review(self, request: ReviewRequest) -> Answer:
        """Run the program on this question and answer what it said (or why it said nothing usable)."""
        outcome = await self.ask(encode_document(document_of(request)))
        return answer_from(outcome, self.options.on_failure)

    async def ask(self, document: bytes) -> DelegateAnswer | Failure:
        """The program's answer to a document, or the failure that says why there is none."""
        on_failure = self.options.on_failure
        oversized = too_large(document, self.options.max_document, WHO, on_failure)
        if oversized is not None:
            return oversized
        result: bytes | Failure | None = None
        with anyio.move_on_after(self.options.timeout):
            async with self._limiter:
                result = await self._run(document)
        if result is None:
            return failed("timeout", on_failure, who=WHO, seconds=self.options.timeout)
        if isinstance(result, Failure):
            return result
        return read_answer(result, WHO, on_failure)

    async def _run(self, document: bytes) -> bytes | Failure:
        on_failure = self.options.on_failure
        # The document is the program's standard input as a file in memory,
        # not a pipe: a program that never reads cannot make the gateway
        # wait on a full pipe, and the file's offset, which the program's
        # reads move, says afterwards whether it read all of it.
        with _document_file(document) as stdin:
            try:
                process = await anyio.open_process(
                    self._command,
                    stdin=stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    cwd="/",
                    env=self._environment,
                    start_new_session=True,
                )
            except OSError as error:
                return failed(
                    "start", on_failure, who=WHO, detail=error.strerror or type(error).__name__
                )
            oversized = False
            output = bytearray()
            limit = self.options.max_output

            async def collect(stream: ByteReceiveStream) -> None:
                nonlocal oversized
                async for chunk in stream:
                    output.extend(chunk)
                    if len(output) > limit:
                        oversized = True
                        _kill_group(process.pid)
                        return

            try:
                if process.stdout is None:  # pragma: no cover -- it is a pipe
                    raise RuntimeError("The program's output pipe was not opened.")
                async with anyio.create_task_group() as group:
                    group.start_soon(collect, process.stdout)
                    status = await process.wait()
                    # Whatever it started and left running dies now, and with
                    # it the last holder of its output: the answer is complete.
                    _kill_group(process.pid)
            finally:
                with anyio.CancelScope(shield=True):
                    await _end(process)
            read = os.lseek(stdin, 0, os.SEEK_CUR)
        if oversized:
            return failed("oversized", on_failure, who=WHO, limit=limit)
        if status < 0:
            return failed("signal", on_failure, who=WHO, signal=_signal_name(-status))
        if status != 0:
            return failed("exit", on_failure, who=WHO, status=status)
        if read < len(document):
            return failed("unread", on_failure, who=WHO)
        return bytes(output)


@contextmanager
def _document_file(document: bytes) -> Iterator[int]:
    """A file descriptor of an anonymous file holding ``document``, at offset 0."""
    descriptor = (
        os.memfd_create("gateway-call", os.MFD_CLOEXEC)
        if hasattr(os, "memfd_create")
        else _unlinked_file()
    )
    try:
        view = memoryview(document)
        while view:
            view = view[os.write(descriptor, view) :]
        os.lseek(descriptor, 0, os.SEEK_SET)
        yield descriptor
    finally:
        os.close(descriptor)


def _unlinked_file() -> int:
    descriptor, path = tempfile.mkstemp(prefix="gateway-call-")
    os.unlink(path)
    return descriptor


def _kill_group(pid: int) -> None:
    """
    Kill the program's process group.

    After the program itself was reaped, its id cannot have been given to
    another group while a member of its own still lives; with none left the
    kill finds nothing.
    """
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _end(process: Process) -> None:
    """Kill what is left of the program's process group (after a timeout: all of it) and reap it."""
    _kill_group(process.pid)
    with anyio.move_on_after(GRACE), suppress(Exception):
        await process.aclose()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _absolute(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def _resolve(program: str) -> str:
    """The program's absolute path: as given when it has a slash, else looked up on ``PATH``."""
    if "/" in program:
        path = _absolute(program)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise ValueError(
                f"Invalid [approver.command] options: the program {program!r} is not an executable file."
            )
        return path
    found = shutil.which(program)
    if found is None:
        raise ValueError(
            f"Invalid [approver.command] options: no program {program!r} is on the PATH; give its full path."
        )
    return _absolute(found)


def _probe(prefix: list[str]) -> str | None:
    """Why isolation does not work here, or ``None`` when it does (checked once, at load)."""
    try:
        done = subprocess.run(  # noqa: S603 -- our own isolating script, with an empty environment
            [*prefix, "--probe"],
            env={},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return type(error).__name__
    if done.returncode == 0:
        return None
    message = (
        done.stderr.decode(errors="replace").strip().removeprefix("cannot isolate the program: ")
    )
    return message[:200] or f"status {done.returncode}"
