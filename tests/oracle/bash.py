"""
Bash 5.2, confined, as the tests' oracle for what a text runs.

The suite proves the reader against bash itself. This module is the only
place in the tests that starts a bash on shell text, and the session guard in
``tests/conftest.py`` admits exactly the processes `_spawn` starts here, in
exactly this confinement:

* a fresh temporary directory per run, holding the working directory, ``HOME``,
  the harness script and the logs; nothing else of the machine is named;
* ``PATH`` holding only *loggers*: every program name resolves to a stub that
  appends its argv to a log and exits 0, and ``command_not_found_handle`` does
  the same for any other name;
* no network (a new network namespace with no interface up), a new PID
  namespace (when the run ends, everything it started dies with it) and a
  mount namespace with its own ``/proc``;
* an unprivileged identity: as root, a fresh unused uid and gid with no
  capabilities and ``no_new_privs``; otherwise the caller's own uid inside a
  user namespace;
* hard limits: CPU seconds, address space, file size, no core dumps, a
  process count (with a dedicated uid), and a wall-clock time limit after
  which the whole namespace is killed.

Two ways of asking bash, neither of which runs the text:

`read` — the *oracle*. ``shopt -s extdebug`` and a DEBUG trap are installed
before the text is parsed. The trap records ``$BASH_COMMAND`` (bash's own
print of the command it is about to run) and returns 1, so bash skips every
simple command, ``[[ ]]``, ``(( ))``, ``for`` and ``case`` head. Before
skipping a simple command, the trap *probes* it: in a subshell it evaluates
``builtin set -- COMMAND``, so bash performs every expansion of the
command's words, redirect targets and heredoc bodies — every ``$( )``,
backtick and ``<( )`` in them — and records the argv it arrived at; the
commands those substitutions contain reach the trap in turn (``set -T``) and
are recorded and skipped the same way (a command bash reaches a fourth time in one process — a loop —
is skipped without a record, and ``break``/``continue`` alone are let run, so
loops end). The probe subshell may run nothing but
that ``set`` (anything else reaching the trap there is recorded as an escape
and skipped). Before the trace, the same process asks bash to re-print the
text canonically: ``NAME() { TEXT\\n}`` is evaluated under the same trap
(a random ``NAME``, so the text cannot know it) and ``declare -f NAME``
prints bash's reading; if the text closed the function early, whatever
followed reached the trap and was skipped, or a second function appeared —
both are reported, and no re-print is given.

`run` — the text *really runs*, confined as above, for tests that prove
what bash does (marker files in the working directory, the argv a program
received, a redirect's target). Only texts written by the tests belong here.

A text that defines a function named like a builtin the trap itself uses
(``builtin``, ``printf``, ``local``…) could take over the trap, so `read`
does not trace such a text (it is re-printed only) — the check is deliberately
loose: quotes and backslashes are ignored.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Final, NamedTuple

__all__ = [
    "BASH",
    "DEFAULT_PROGRAMS",
    "PLACEHOLDER",
    "Command",
    "OracleUnavailable",
    "Reading",
    "Run",
    "available",
    "read",
    "run",
]

BASH: Final = "/bin/bash"
UNSHARE: Final = "/usr/bin/unshare"
SETPRIV: Final = "/usr/bin/setpriv"
RUNNER: Final = Path(__file__).resolve()
"""This file: the session guard admits only processes started by `_spawn` in it."""

CPU_SECONDS: Final = 20
MEMORY_KIB: Final = 1 << 20
FILE_KIB: Final = 64 << 10
PROCESSES: Final = 256
TIME_LIMIT: Final = 60.0
"""Seconds of wall time a run may take before its namespace is killed (generous: the machine is shared)."""
PLACEHOLDER: Final = "__gw_out"
"""What a skipped command prints in a trace: ``$(id -u)`` expands to it."""
TRACE_LIMIT: Final = 2_000
"""Commands one bash process may record before the trace stops (``while :`` never ends otherwise)."""

DEFAULT_PROGRAMS: Final = (
    "awk",
    "base64",
    "basename",
    "bash",
    "bzip2",
    "cat",
    "chmod",
    "chown",
    "cmp",
    "comm",
    "cp",
    "curl",
    "cut",
    "date",
    "dd",
    "diff",
    "dirname",
    "docker",
    "du",
    "echo",
    "env",
    "expr",
    "false",
    "find",
    "git",
    "grep",
    "gzip",
    "head",
    "id",
    "install",
    "jq",
    "kill",
    "less",
    "ln",
    "ls",
    "make",
    "md5sum",
    "mkdir",
    "mktemp",
    "mv",
    "nc",
    "node",
    "npm",
    "od",
    "paste",
    "perl",
    "pip",
    "printf",
    "ps",
    "python",
    "python3",
    "readlink",
    "realpath",
    "rm",
    "rmdir",
    "rsync",
    "scp",
    "sed",
    "seq",
    "sh",
    "sha256sum",
    "sleep",
    "sort",
    "split",
    "ssh",
    "stat",
    "sudo",
    "tail",
    "tar",
    "tee",
    "test",
    "time",
    "timeout",
    "touch",
    "tr",
    "true",
    "uname",
    "uniq",
    "wc",
    "wget",
    "which",
    "xargs",
    "xxd",
    "yes",
    "zcat",
    "zip",
)
"""Program names that get a logger file on ``PATH`` (any other name goes to ``command_not_found_handle``)."""

# Builtins the trap's own code calls, and the harness's names: a text that
# defines a function of one of these names is re-printed but not traced.
_TRAP_NAMES: Final = (
    "builtin",
    "local",
    "printf",
    "eval",
    "set",
    "declare",
    "typeset",
    "return",
    "exit",
    "readonly",
    "unset",
    "trap",
    "shopt",
    "enable",
    "command",
    "exec",
    "read",
    "command_not_found_handle",
    r"__gw_\w*",
)
_SHADOWING: Final = re.compile(
    r"(?:^|[^\w-])(?:function\s+(?:"
    + "|".join(_TRAP_NAMES)
    + r")(?![\w-])|(?:"
    + "|".join(_TRAP_NAMES)
    + r")\s*\(\s*\))",
    re.MULTILINE,
)


class OracleUnavailable(RuntimeError):
    """Bash 5.2 cannot be run confined on this machine."""


class Command(NamedTuple):
    """
    One command bash reached while tracing a text.

    Attributes:
        text: ``$BASH_COMMAND``: bash's own print of the command, before expansion.
        argv: The words after bash's expansions, assignments first, as the
            probe found them; ``None`` for a head (``for``, ``case``,
            ``[[ ]]``, ``(( ))``) or when the expansion failed.
        head: True for a compound command's head rather than a simple command.
        inner: The commands bash reached while expanding this one's words
            (inside its substitutions), in the order they were recorded.
    """

    text: str
    argv: tuple[str, ...] | None
    head: bool
    inner: tuple[Command, ...]


class Reading(NamedTuple):
    """
    What bash made of a text, without running it.

    Attributes:
        text: The text read.
        reprint: ``declare -f NAME`` of ``NAME() { TEXT\\n}``: bash's canonical
            print of its parse of the text, as a function definition; ``None``
            when bash could not define it (a syntax error) or the text closed
            the function early.
        name: The function's name in ``reprint``.
        closed_early: The text closed the wrapping function before its end.
        commands: The top-level commands bash reached, in order, each with the
            commands inside its substitutions; ``None`` when the text was not
            traced (it names a builtin the trap uses as a function).
        escaped: Commands that reached the trap where only the harness may
            run anything (while defining, or inside a probe); always skipped.
        logged: Argv recorded by the loggers: anything here ran a program
            despite the trap, and must be empty.
        complete: The trace ran to its end (no trace limit, no time limit).
        errors: What bash wrote on standard error.
    """

    text: str
    reprint: str | None
    name: str
    closed_early: bool
    commands: tuple[Command, ...] | None
    escaped: tuple[str, ...]
    logged: tuple[tuple[str, ...], ...]
    complete: bool
    errors: str

    def walk(self) -> Iterator[Command]:
        """Every command reached, top-level ones and those inside substitutions, depth first."""
        stack = list(reversed(self.commands or ()))
        while stack:
            command = stack.pop()
            yield command
            stack.extend(reversed(command.inner))


class Run(NamedTuple):
    """
    What really running a text, confined, did.

    Attributes:
        status: The exit status; ``None`` when the time limit killed it.
        stdout: Its standard output.
        stderr: Its standard error.
        logged: The argv of every program run through a logger (or not found), in order.
        files: Every regular file under the working directory afterwards, by relative path.
        links: Every symbolic link under the working directory, by relative path, with its target.
        home: Every regular file under ``HOME`` afterwards, by relative path.
        workdir: The absolute path of the working directory the text ran in (gone afterwards).
        home_path: The absolute path ``HOME`` was (gone afterwards).
    """

    status: int | None
    stdout: bytes
    stderr: bytes
    logged: tuple[tuple[str, ...], ...]
    files: dict[str, bytes]
    links: dict[str, str]
    home: dict[str, bytes]
    workdir: str
    home_path: str


# ───────────────────────── the harness scripts ─────────────────────────

_LIMITS: Final = """\
ulimit -c 0
ulimit -t {cpu}
ulimit -v {memory}
ulimit -f {files}
{processes}"""

_LOGGER: Final = """\
#!/bin/bash --norc
builtin printf '%s\\0' "$(( $# + 1 ))" "${{0##*/}}" "$@" >> {log}
"""

# The trap: everything before ``trap`` is the harness's own code; the text is
# only read into a variable (as data) before it, and parsed after it.
TRACE_HARNESS: Final = """\
# bash oracle: trace harness (tests/oracle/bash.py)
{limits}
exec 9>>{trace} 1>{print} 2>{errors} </dev/null
IFS= read -r -d '' __gw_text < {input}
__gw_definition="{name}() {{ $__gw_text"$'\\n''}}'
__gw_level=-1 __gw_seq=0 __gw_count=0 __gw_phase= __gw_parent=
declare -A __gw_seen=()
command_not_found_handle() {{ builtin printf '%s\\0' "$#" "$@" >> {programs}; }}
__gw_trap() {{
    local __gw_c=$BASH_COMMAND
    if (( BASH_SUBSHELL == __gw_level )); then
        case $__gw_c in
        'builtin eval -- "$__gw_probe"' | "builtin printf '%s\\0' A \\"\\$__gw_id\\" \\"\\$#\\" \\"\\$@\\" 1>&9" | 'builtin set -- '*)
            return 0 ;;
        esac
        builtin printf '%s\\0' E probe "$BASH_SUBSHELL" "$__gw_c" >&9
        return 1
    fi
    if (( BASH_SUBSHELL == 0 )); then
        case $__gw_phase:$__gw_c in
        ':builtin eval -- "$__gw_definition"') __gw_phase=define; return 0 ;;
        'define:builtin declare -F') __gw_phase=functions; return 0 ;;
        'functions:builtin declare -f {name}') __gw_phase=print; return 0 ;;
        'print:builtin eval -- "$__gw_text"') __gw_phase=trace; exec 1>/dev/null; return 0 ;;
        'trace:builtin : {name}_end') __gw_phase=end; return 0 ;;
        esac
    fi
    [[ $__gw_phase == end ]] && return 0  # the harness's own drain, after the text
    if [[ $__gw_phase != trace ]]; then
        builtin printf '%s\\0' E "$__gw_phase" "$BASH_SUBSHELL" "$__gw_c" >&9
        return 1
    fi
    if (( ++__gw_count > {trace_limit} )); then
        builtin printf '%s\\0' L "" "" "" >&9
        builtin exit 97
    fi
    case $__gw_c in
    break | continue | 'break '[1-9] | 'continue '[1-9])
        return 0 ;;  # a loop's own control: lets `while k; do …; break; done` end
    esac
    # A command seen three times in this process (a loop) is skipped unrecorded.
    local __gw_key=${{__gw_c//[^a-zA-Z0-9_]/_}}
    local __gw_seen_count=${{__gw_seen[$__gw_key]:-0}}
    (( __gw_seen_count >= 3 )) && return 1
    __gw_seen[$__gw_key]=$(( __gw_seen_count + 1 ))
    local __gw_id=$BASHPID.$(( ++__gw_seq ))
    builtin printf '%s\\0' C "$__gw_id" "$__gw_parent" "$__gw_c" >&9
    case $__gw_c in
    '[['* | '(('* | 'for '* | 'for(('* | 'case '* | 'select '*)
        # A head runs nothing by itself: let bash evaluate it, so it takes
        # its branch and expands its words (their substitutions reach the trap).
        return 0 ;;
    esac
    local __gw_probe="builtin set -- $__gw_c"
    local __gw_saved_level=$__gw_level __gw_saved_parent=$__gw_parent
    __gw_level=$(( BASH_SUBSHELL + 1 )) __gw_parent=$__gw_id
    ( builtin eval -- "$__gw_probe" && builtin printf '%s\\0' A "$__gw_id" "$#" "$@" >&9 )
    __gw_level=$__gw_saved_level __gw_parent=$__gw_saved_parent
    # What a skipped command "prints": a substitution around it expands to a
    # plain word, so a redirect target it forms is valid and the expansions
    # after it still happen.
    builtin printf {placeholder}
    return 1
}}
builtin readonly -f __gw_trap command_not_found_handle
shopt -s extdebug
set -T
trap __gw_trap DEBUG
builtin eval -- "$__gw_definition"
builtin declare -F
builtin declare -f {name}
builtin eval -- "$__gw_text"
builtin : {name}_end
# Process substitutions run on after their command: wait (a few seconds at
# most) until this shell is the only process left in its namespace.
exec 5<> <(:)
for (( __gw_i = 0; __gw_i < 500; __gw_i++ )); do
    __gw_p=(/proc/[0-9]*)
    (( ${{#__gw_p[@]}} <= 1 )) && break
    builtin read -r -t 0.01 -u 5
done
"""

RUN_HARNESS: Final = """\
# bash oracle: run harness (tests/oracle/bash.py)
{limits}
command_not_found_handle() {{ builtin printf '%s\\0' "$#" "$@" >> {programs}; return 0; }}
"""

_HARNESS_FUNCTIONS: Final = frozenset({"__gw_trap", "command_not_found_handle"})


# ───────────────────────── confinement ─────────────────────────


class _Box(NamedTuple):
    root: Path
    work: Path
    home: Path
    bin: Path
    out: Path
    uid: int | None


@cache
def available() -> str | None:
    """
    ``None`` when bash 5.2 runs confined here; else the reason it cannot.

    The check is a confined run itself: it proves the namespaces, the
    identity and the limits can be set up, and asks that bash its version.
    """
    for tool in (BASH, UNSHARE, *((SETPRIV,) if os.geteuid() == 0 else ())):
        if not os.access(tool, os.X_OK):
            return f"{tool} is not installed"
    probe = _run_confined('builtin printf %s "$BASH_VERSION"', {}, (), b"", TIME_LIMIT)
    if probe.status != 0:
        stderr = probe.stderr.decode("utf-8", "replace").strip()
        return f"a confined bash did not start ({stderr or probe.status})"
    version = probe.stdout.decode("utf-8", "replace")
    if not version.startswith("5.2."):
        return f"the oracle is bash 5.2 and {BASH} is {version or 'of unknown version'}"
    return None


def _require() -> None:
    reason = available()
    if reason is not None:
        raise OracleUnavailable(f"The bash oracle cannot run: {reason}.")


def _box(programs: Iterable[str]) -> _Box:
    root = Path(tempfile.mkdtemp(prefix="gateway-oracle-"))
    root.chmod(0o755)
    box = _Box(
        root=root,
        work=root / "work",
        home=root / "home",
        bin=root / "bin",
        out=root / "out",
        uid=_sandbox_uid() if os.geteuid() == 0 else None,
    )
    for directory in (box.work, box.home, box.out):
        directory.mkdir(mode=0o700)
        if box.uid is not None:
            os.chown(directory, box.uid, box.uid)
    (box.work / "tmp").mkdir(mode=0o700)
    if box.uid is not None:
        os.chown(box.work / "tmp", box.uid, box.uid)
    box.bin.mkdir(mode=0o755)
    logger = box.bin / ".logger"
    logger.write_text(_LOGGER.format(log=shlex.quote(str(box.out / "programs"))))
    logger.chmod(0o755)
    for name in sorted({*DEFAULT_PROGRAMS, *programs}):
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"A logger cannot be named {name!r}.")
        (box.bin / name).symlink_to(".logger")
    return box


def _sandbox_uid() -> int:
    """A uid and gid no account uses, different for every run (so a run cannot reach another's processes)."""
    while True:
        uid = 3_000_000 + secrets.randbelow(1_000_000)
        try:
            import pwd

            pwd.getpwuid(uid)
        except KeyError:
            return uid


def _argv(box: _Box, script: Path) -> list[str]:
    namespaces = ["--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
    bash = [BASH, "--norc", "--noprofile", str(script)]
    if box.uid is None:
        return [UNSHARE, "--user", "--map-root-user", *namespaces, "--", *bash]
    drop = [
        SETPRIV,
        f"--reuid={box.uid}",
        f"--regid={box.uid}",
        "--clear-groups",
        "--no-new-privs",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]
    return [UNSHARE, *namespaces, "--", *drop, *bash]


def _environment(box: _Box) -> dict[str, str]:
    return {
        "PATH": str(box.bin),
        "HOME": str(box.home),
        "TMPDIR": str(box.work / "tmp"),
        "LC_ALL": "C.UTF-8",
        "PWD": str(box.work),
    }


def _limits(box: _Box) -> str:
    processes = f"ulimit -u {PROCESSES}\n" if box.uid is not None else ""
    return _LIMITS.format(
        cpu=CPU_SECONDS, memory=MEMORY_KIB, files=FILE_KIB, processes=processes
    ).rstrip("\n")


def _spawn(
    box: _Box, script: Path, stdin: bytes, timeout: float
) -> tuple[int | None, bytes, bytes]:
    """Start the confined bash on ``script``; the only Popen of a shell the session guard admits."""
    with subprocess.Popen(
        _argv(box, script),
        cwd=box.work,
        env=_environment(box),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        close_fds=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            # The session leader is unshare; killing it kills the namespace's
            # first process (--kill-child), and with it every process inside.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            return None, stdout, stderr
        return process.returncode, stdout, stderr


# ───────────────────────── reading the logs ─────────────────────────


def _fields(data: bytes) -> list[str]:
    parts = data.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return [part.decode("utf-8", "surrogateescape") for part in parts]


def _argv_records(data: bytes) -> tuple[tuple[str, ...], ...]:
    fields = _fields(data)
    records: list[tuple[str, ...]] = []
    index = 0
    while index < len(fields):
        count = int(fields[index])
        records.append(tuple(fields[index + 1 : index + 1 + count]))
        index += 1 + count
    return tuple(records)


class _Node:
    __slots__ = ("argv", "inner", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.argv: tuple[str, ...] | None = None
        self.inner: list[str] = []


def _trace(data: bytes) -> tuple[tuple[Command, ...], list[tuple[str, str]], bool]:
    """Commands (as a tree), escapes with their phase, and whether the trace limit was hit."""
    fields = _fields(data)
    nodes: dict[str, _Node] = {}
    top: list[str] = []
    escaped: list[tuple[str, str]] = []
    limited = False
    index = 0
    while index < len(fields):
        kind = fields[index]
        if kind == "C":
            identity, parent, text = fields[index + 1 : index + 4]
            nodes[identity] = _Node(text)
            (nodes[parent].inner if parent in nodes else top).append(identity)
            index += 4
        elif kind == "A":
            identity, count = fields[index + 1], int(fields[index + 2])
            if identity in nodes:
                nodes[identity].argv = tuple(fields[index + 3 : index + 3 + count])
            index += 3 + count
        elif kind == "E":
            escaped.append((fields[index + 1], fields[index + 3]))
            index += 4
        elif kind == "L":
            limited = True
            index += 4
        else:
            raise ValueError(f"The trace log holds an unknown record {kind!r}.")

    def build(identity: str) -> Command:
        node = nodes[identity]
        head = node.argv is None and _is_head(node.text)
        return Command(
            text=node.text,
            argv=node.argv,
            head=head,
            inner=tuple(build(child) for child in node.inner),
        )

    return tuple(build(identity) for identity in top), escaped, limited


def _is_head(text: str) -> bool:
    return text.startswith(("[[", "((", "for ", "for((", "case ", "select "))


def _functions(listing: str) -> tuple[set[str], str]:
    """Split ``declare -F`` lines off the print; return the function names and the rest."""
    names: set[str] = set()
    lines = listing.split("\n")
    index = 0
    while index < len(lines) and lines[index].startswith("declare -f"):
        names.add(lines[index].split()[-1])
        index += 1
    return names, "\n".join(lines[index:])


def _files(root: Path) -> tuple[dict[str, bytes], dict[str, str]]:
    files: dict[str, bytes] = {}
    links: dict[str, str] = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(directory) / name
            relative = str(path.relative_to(root))
            if path.is_symlink():
                links[relative] = os.readlink(path)
            elif name in filenames and path.is_file():
                files[relative] = path.read_bytes()
    return files, links


# ───────────────────────── the two ways to ask ─────────────────────────


TORN_TRACE_RUNS: Final = 3
"""Times bash is asked for one text's trace before a torn trace is an error."""


def _traced(
    box: _Box, script: Path, timeout: float
) -> tuple[int | None, tuple[tuple[Command, ...], list[tuple[str, str]], bool]]:
    """
    Run the harness; its exit status and its trace.

    Processes of one text that run at once (a process substitution beside a
    command substitution) each append whole records, yet once in thousands of
    runs a record came out torn: bash is then asked again, and a trace torn
    `TORN_TRACE_RUNS` times is an error.
    """
    for attempt in range(TORN_TRACE_RUNS):
        for log in ("trace", "print", "errors", "programs"):
            (box.out / log).write_bytes(b"")
        status, _, _ = _spawn(box, script, b"", timeout)
        try:
            return status, _trace((box.out / "trace").read_bytes())
        except ValueError:
            if attempt == TORN_TRACE_RUNS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def read(text: str, *, timeout: float = TIME_LIMIT) -> Reading:
    """
    Ask bash what it makes of ``text`` without running it: its canonical print and a trace.

    Raises:
        OracleUnavailable: bash 5.2 cannot run confined on this machine.
        ValueError: The text holds a NUL byte (bash cannot be given one).
    """
    _require()
    if "\0" in text:
        raise ValueError("A text for bash cannot hold a NUL byte.")
    box = _box(())
    try:
        name = f"__gw_f_{secrets.token_hex(8)}"
        (box.root / "input").write_bytes(text.encode("utf-8", "surrogateescape"))
        for log in ("trace", "print", "errors", "programs"):
            (box.out / log).touch()
            if box.uid is not None:
                os.chown(box.out / log, box.uid, box.uid)
        script = box.root / "harness.bash"
        script.write_text(
            TRACE_HARNESS.format(
                limits=_limits(box),
                trace=shlex.quote(str(box.out / "trace")),
                print=shlex.quote(str(box.out / "print")),
                errors=shlex.quote(str(box.out / "errors")),
                input=shlex.quote(str(box.root / "input")),
                programs=shlex.quote(str(box.out / "programs")),
                name=name,
                trace_limit=TRACE_LIMIT,
                placeholder=PLACEHOLDER,
            )
        )
        traced = _SHADOWING.search(re.sub(r"[\\'\"]", "", text)) is None
        if not traced:
            # Re-print only: stop before the trace phase.
            body = script.read_text().rsplit('builtin eval -- "$__gw_text"\n', 1)[0]
            script.write_text(body)
        status, (commands, escaped, limited) = _traced(box, script, timeout)
        functions, printed = _functions(
            (box.out / "print").read_bytes().decode("utf-8", "surrogateescape")
        )
        closed_early = any(phase == "define" for phase, _ in escaped) or bool(
            functions - _HARNESS_FUNCTIONS - {name}
        )
        defined = name in functions and not closed_early
        return Reading(
            text=text,
            reprint=printed if defined and printed.startswith(f"{name} () ") else None,
            name=name,
            closed_early=closed_early,
            commands=commands if traced else None,
            escaped=tuple(text for _, text in escaped),
            logged=_argv_records((box.out / "programs").read_bytes()),
            complete=status is not None and not limited,
            errors=(box.out / "errors").read_bytes().decode("utf-8", "surrogateescape"),
        )
    finally:
        shutil.rmtree(box.root, ignore_errors=True)


def run(
    text: str,
    *,
    files: Mapping[str, str | bytes] | None = None,
    programs: Iterable[str] = (),
    stdin: str | bytes = b"",
    timeout: float = TIME_LIMIT,
) -> Run:
    """
    Really run ``text`` with bash, confined; return what it did.

    Args:
        text: The script. Only texts the tests wrote: it runs.
        files: Files to create in the working directory first (relative paths).
        programs: Names that get a logger file on ``PATH`` besides `DEFAULT_PROGRAMS`.
        stdin: What the script reads on standard input.
        timeout: Seconds of wall time before the run is killed.

    Raises:
        OracleUnavailable: bash 5.2 cannot run confined on this machine.
        ValueError: A NUL byte in ``text``, or a file path that leaves the working directory.
    """
    _require()
    if "\0" in text:
        raise ValueError("A text for bash cannot hold a NUL byte.")
    return _run_confined(
        text, files or {}, programs, stdin.encode() if isinstance(stdin, str) else stdin, timeout
    )


def _run_confined(
    text: str,
    files: Mapping[str, str | bytes],
    programs: Iterable[str],
    stdin: bytes,
    timeout: float,
) -> Run:
    box = _box(programs)
    try:
        for relative, content in files.items():
            target = (box.work / relative).resolve()
            if not target.is_relative_to(box.work.resolve()) or target == box.work.resolve():
                raise ValueError(f"The file {relative!r} is not inside the working directory.")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.encode() if isinstance(content, str) else content)
            if box.uid is not None:
                for path in (target, *target.parents):
                    if path == box.work:
                        break
                    os.chown(path, box.uid, box.uid)
        (box.out / "programs").touch()
        if box.uid is not None:
            os.chown(box.out / "programs", box.uid, box.uid)
        script = box.root / "harness.bash"
        script.write_text(
            RUN_HARNESS.format(
                limits=_limits(box),
                programs=shlex.quote(str(box.out / "programs")),
            )
            + text
        )
        status, stdout, stderr = _spawn(box, script, stdin, timeout)
        work_files, links = _files(box.work)
        home_files, _ = _files(box.home)
        return Run(
            status=status,
            stdout=stdout,
            stderr=stderr,
            logged=_argv_records((box.out / "programs").read_bytes()),
            files=work_files,
            links=links,
            home=home_files,
            workdir=str(box.work),
            home_path=str(box.home),
        )
    finally:
        shutil.rmtree(box.root, ignore_errors=True)
