"""
The launcher table: programs that run another program named in their own arguments.

This is data, and the one place it lives. Each row declares a launcher's
options with their *arity* (0: a switch; 1: takes the next word, or a fused
``--long=value`` / ``-kVALUE``), and how the launcher finds what it runs.
`gateway._plan._position` reads it; a test per row pins every declared option and
checks that the word after an arity-1 option is never read as the program.

What a row may never get wrong: declaring an arity-1 option as arity 0 would
read its value as the program. A row declares only options whose arity every
supported implementation agrees on; any option a row does not declare
*refuses* (the program position is unreadable), which is the safe side.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

import msgspec

__all__ = [
    "LAUNCHERS",
    "SHELLS",
    "SHELL_ROW",
    "STARTUP_FUNCTION_PREFIX",
    "STARTUP_VARIABLES",
    "LauncherRow",
    "ShellRow",
]

WhenNoProgram = Literal["self", "shell", "default"]
FileAction = Literal["read", "write", "append", "create"]
LauncherLifetime = Literal["detached", "bounded", "unbounded"]


class LauncherRow(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    How one launcher reads its arguments.

    Attributes:
        options: Each option spelling → its arity (0 or 1). Long options with a
            value are also read fused (``--signal=TERM``), short ones fused
            (``-k5``), and arity-0 short options in clusters (``-pv``).
        fused_only: Options whose value is optional and may only be given fused
            (``-i[replace]``, ``--max-lines[=N]``): bare, they are switches.
        negative_integer_is_own_argument: A bare ``-5`` is the launcher's own
            argument (``nice -5 cmd``), not an unknown option.
        required_operands: Operands consumed before the program, whatever they
            spell (``timeout DURATION``, ``chrt PRIORITY``, ``flock FILE``).
        assignment_operands: ``NAME=VALUE`` operands before the program are the
            launcher's (``env A=1 cmd``, ``sudo A=1 cmd``).
        command_string: Options whose value is a whole command line that runs
            (``env -S``, ``su -c``, ``flock -c``, ``script -c``).
        shell_options: Switches that make the launcher run a shell
            (``sudo -s``, ``sudo -i``, ``doas -s``).
        no_run_options: Switches with which the launcher runs nothing and is
            itself the program (``command -v git`` only looks ``git`` up).
        exec_options: Switches that turn shell-text operands into a program
            and its arguments (``watch -x``).
        shell_text: The operands are shell text joined with spaces (``watch``).
        operands_are_shell_arguments: The operands are a user and arguments for
            the shell it starts (``su``), never a program.
        program_options: Switches with which the operands *are* a program after
            all (``runuser -u USER cmd``).
        when_no_program: With no program word: the launcher is itself the
            program (``self``: ``env`` prints the environment), a shell runs
            (``shell``), or its default program runs (``default``).
        default_program: The program run when none is named (``xargs`` → ``echo``).
        argv_from_stdin: The launcher turns standard input into the program's
            operands (``xargs``): they arrive on a stream the text never shows.
        always_refuse: The launcher builds a command line for a shell itself
            (GNU ``parallel``): its program position is never readable.
        transparent: The launcher runs the named program unchanged, as the same
            user and with the same files (``env``, ``timeout``, ``nice``…): a
            rule about the program decides for the whole chain.
        privileged: The program runs as another user (``sudo``, ``doas``,
            ``su``, ``runuser``, ``chroot``): a `Privilege` effect.
        default_user: The user it runs as when none is named (``root``).
        user_options: Options whose value names the user (``sudo -u``).
        user_operand: The first operand names the user (``su deploy``).
        cwd_options: Options whose value is the program's working directory
            (``env -C``, ``sudo -D``): later paths of the command resolve there.
        file_options: Options whose value is a file the launcher reads or
            writes itself (``time -o``, ``xargs -a``), with what it does.
        file_operands: What the launcher does to its required operands
            (``flock FILE``: creates the lock file).
        unset_options: Options whose value names a variable the program runs
            without (``env -u NAME``).
        lifetime: How the launcher changes the program's lifetime: it
            detaches it (``nohup``, ``setsid``), bounds it (``timeout``), or
            runs it again and again (``watch``).
        new_root: The program runs under another root directory (``chroot``):
            the paths it names are not the paths written.
    """

    options: Mapping[str, int] = MappingProxyType({})
    fused_only: frozenset[str] = frozenset()
    negative_integer_is_own_argument: bool = False
    required_operands: int = 0
    assignment_operands: bool = False
    command_string: frozenset[str] = frozenset()
    shell_options: frozenset[str] = frozenset()
    no_run_options: frozenset[str] = frozenset()
    exec_options: frozenset[str] = frozenset()
    shell_text: bool = False
    operands_are_shell_arguments: bool = False
    program_options: frozenset[str] = frozenset()
    when_no_program: WhenNoProgram = "self"
    default_program: str | None = None
    argv_from_stdin: bool = False
    always_refuse: bool = False
    transparent: bool = False
    privileged: bool = False
    default_user: str | None = None
    user_options: frozenset[str] = frozenset()
    user_operand: bool = False
    cwd_options: frozenset[str] = frozenset()
    file_options: Mapping[str, FileAction] = MappingProxyType({})
    file_operands: FileAction | None = None
    unset_options: frozenset[str] = frozenset()
    lifetime: LauncherLifetime | None = None
    new_root: bool = False


def _opts(**spellings: int) -> Mapping[str, int]:
    """Option table from keyword spellings: ``_opts(u=1, unset=1)`` → ``{"-u": 1, "--unset": 1}``."""
    table: dict[str, int] = {}
    for key, arity in spellings.items():
        name = key.rstrip("_").replace("_", "-")
        table[("-" if len(name) == 1 else "--") + name] = arity
    return MappingProxyType(table)


def _merge(*tables: Mapping[str, int]) -> Mapping[str, int]:
    merged: dict[str, int] = {}
    for table in tables:
        merged.update(table)
    return MappingProxyType(merged)


_SU_OPTIONS: Final = _merge(
    _opts(l=0, login=0, m=0, p=0, preserve_environment=0, s=1, g=1, group=1, G=1),
    {"--shell": 1},
    _opts(supp_group=1, P=0, pty=0, w=1, whitelist_environment=1, f=0, fast=0),
    {"-": 0},
)

LAUNCHERS: Final[Mapping[str, LauncherRow]] = MappingProxyType(
    {
        "env": LauncherRow(
            options=_merge(
                _opts(i=0, ignore_environment=0, u=1, unset=1, C=1, chdir=1, v=0, debug=0),
                {"-0": 0, "--null": 0, "--list-signal-handling": 0},
                {"--block-signal": 0, "--default-signal": 0, "--ignore-signal": 0},
            ),
            fused_only=frozenset({"--block-signal", "--default-signal", "--ignore-signal"}),
            assignment_operands=True,
            command_string=frozenset({"-S", "--split-string"}),
            transparent=True,
            cwd_options=frozenset({"-C", "--chdir"}),
            unset_options=frozenset({"-u", "--unset"}),
        ),
        "sudo": LauncherRow(
            options=_merge(
                _opts(u=1, user=1, g=1, group=1, C=1, close_from=1, D=1, chdir=1, h=1, host=1),
                _opts(
                    p=1, prompt=1, R=1, chroot=1, r=1, role=1, t=1, type=1, T=1, command_timeout=1
                ),
                _opts(U=1, other_user=1, A=0, askpass=0, b=0, background=0, E=0, preserve_env=0),
                _opts(H=0, set_home=0, k=0, reset_timestamp=0, n=0, non_interactive=0, P=0),
                _opts(preserve_groups=0, S=0, stdin=0, B=0, bell=0, N=0, no_update=0),
                _opts(s=0, shell=0, i=0, login=0),
            ),
            assignment_operands=True,
            shell_options=frozenset({"-s", "--shell", "-i", "--login"}),
            when_no_program="self",
            privileged=True,
            default_user="root",
            user_options=frozenset({"-u", "--user"}),
            cwd_options=frozenset({"-D", "--chdir"}),
        ),
        "doas": LauncherRow(
            options=_opts(n=0, s=0, u=1),
            shell_options=frozenset({"-s"}),
            privileged=True,
            default_user="root",
            user_options=frozenset({"-u"}),
        ),
        "timeout": LauncherRow(
            options=_opts(
                s=1, signal=1, k=1, kill_after=1, v=0, verbose=0, preserve_status=0, foreground=0
            ),
            required_operands=1,
            transparent=True,
            lifetime="bounded",
        ),
        "nice": LauncherRow(
            options=_opts(n=1, adjustment=1),
            negative_integer_is_own_argument=True,
            transparent=True,
        ),
        "time": LauncherRow(
            options=_opts(
                p=0,
                portability=0,
                f=1,
                format=1,
                o=1,
                output=1,
                a=0,
                append=0,
                v=0,
                verbose=0,
                q=0,
                quiet=0,
            ),
            transparent=True,
            file_options=MappingProxyType({"-o": "write", "--output": "write"}),
        ),
        "nohup": LauncherRow(transparent=True, lifetime="detached"),
        "stdbuf": LauncherRow(
            options=_opts(i=1, input=1, o=1, output=1, e=1, error=1), transparent=True
        ),
        "setsid": LauncherRow(
            options=_opts(c=0, ctty=0, f=0, fork=0, w=0, wait=0),
            transparent=True,
            lifetime="detached",
        ),
        "ionice": LauncherRow(
            options=_opts(c=1, class_=1, n=1, classdata=1, t=0, ignore=0), transparent=True
        ),
        "chrt": LauncherRow(
            options=_opts(
                b=0,
                batch=0,
                d=0,
                deadline=0,
                f=0,
                fifo=0,
                i=0,
                idle=0,
                o=0,
                other=0,
                r=0,
                rr=0,
                R=0,
                reset_on_fork=0,
                v=0,
                verbose=0,
                T=1,
                sched_runtime=1,
                P=1,
                sched_period=1,
                D=1,
                sched_deadline=1,
            ),
            required_operands=1,
            transparent=True,
        ),
        "taskset": LauncherRow(
            options=_opts(c=0, cpu_list=0, a=0, all_tasks=0),
            required_operands=1,
            transparent=True,
        ),
        "command": LauncherRow(
            options=_opts(p=0, v=0, V=0),
            no_run_options=frozenset({"-v", "-V"}),
            transparent=True,
        ),
        "exec": LauncherRow(options=_opts(c=0, l=0, a=1), transparent=True),
        "builtin": LauncherRow(transparent=True),
        "xargs": LauncherRow(
            options=_merge(
                _opts(
                    a=1,
                    arg_file=1,
                    d=1,
                    delimiter=1,
                    E=1,
                    I=1,
                    L=1,
                    n=1,
                    max_args=1,
                    P=1,
                    max_procs=1,
                ),
                _opts(s=1, max_chars=1, process_slot_var=1, o=0, open_tty=0, p=0, interactive=0),
                _opts(r=0, no_run_if_empty=0, t=0, verbose=0, v=0, x=0, exit=0, null=0),
                {"-0": 0, "-e": 0, "-i": 0, "-l": 0, "--eof": 0, "--replace": 0, "--max-lines": 0},
            ),
            fused_only=frozenset({"-e", "-i", "-l", "--eof", "--replace", "--max-lines"}),
            when_no_program="default",
            default_program="echo",
            argv_from_stdin=True,
            file_options=MappingProxyType({"-a": "read", "--arg-file": "read"}),
        ),
        "watch": LauncherRow(
            options=_merge(
                _opts(
                    n=1,
                    interval=1,
                    d=0,
                    differences=0,
                    t=0,
                    no_title=0,
                    b=0,
                    beep=0,
                    e=0,
                    errexit=0,
                ),
                _opts(
                    g=0, chgexit=0, c=0, color=0, C=0, no_color=0, p=0, precise=0, w=0, no_wrap=0
                ),
                _opts(x=0, exec_=0, q=1, equexit=1),
            ),
            fused_only=frozenset({"-d", "--differences"}),
            shell_text=True,
            exec_options=frozenset({"-x", "--exec"}),
            when_no_program="self",
            lifetime="unbounded",
        ),
        "flock": LauncherRow(
            options=_merge(
                _opts(s=0, shared=0, x=0, e=0, exclusive=0, u=0, unlock=0, n=0, nb=0, nonblock=0),
                _opts(o=0, close=0, F=0, no_fork=0, v=0, verbose=0, w=1, wait=1, timeout=1),
                _opts(E=1, conflict_exit_code=1),
            ),
            required_operands=1,
            command_string=frozenset({"-c", "--command"}),
            file_operands="create",
        ),
        "script": LauncherRow(
            options=_merge(
                _opts(a=0, append=0, e=0, return_=0, f=0, flush=0, q=0, quiet=0, E=1, echo=1),
                _opts(I=1, log_in=1, O=1, log_out=1, B=1, log_io=1, T=1, log_timing=1, m=1),
                _opts(logging_format=1),
            ),
            command_string=frozenset({"-c", "--command"}),
            when_no_program="shell",
            operands_are_shell_arguments=True,
            file_options=MappingProxyType(
                {
                    "-O": "write",
                    "--log-out": "write",
                    "-I": "write",
                    "--log-in": "write",
                    "-B": "write",
                    "--log-io": "write",
                    "-T": "write",
                    "--log-timing": "write",
                }
            ),
        ),
        "su": LauncherRow(
            options=_SU_OPTIONS,
            command_string=frozenset({"-c", "--command", "--session-command"}),
            when_no_program="shell",
            operands_are_shell_arguments=True,
            privileged=True,
            default_user="root",
            user_operand=True,
        ),
        "runuser": LauncherRow(
            options=_merge(_SU_OPTIONS, _opts(u=1, user=1)),
            program_options=frozenset({"-u", "--user"}),
            command_string=frozenset({"-c", "--command", "--session-command"}),
            when_no_program="shell",
            operands_are_shell_arguments=True,
            privileged=True,
            default_user="root",
            user_operand=True,
            user_options=frozenset({"-u", "--user"}),
        ),
        "parallel": LauncherRow(always_refuse=True, argv_from_stdin=True),
        "chroot": LauncherRow(
            options=_opts(userspec=1, groups=1, skip_chdir=0),
            required_operands=1,
            when_no_program="shell",
            privileged=True,
            default_user="root",
            user_options=frozenset({"--userspec"}),
            new_root=True,
        ),
    }
)

SHELLS: Final = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh"}
)
"""Programs that run shell text: ``-c TEXT``, a script file, or standard input."""

STARTUP_VARIABLES: Final = frozenset(
    {
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
    }
)
"""
Variables in its environment that make a shell run code its text does not
show (measured with bash 5.2 and dash): ``BASH_ENV`` (a file bash sources
before a script or ``-c``), ``ENV`` (sourced by an interactive or POSIX
shell), ``SHELLOPTS``/``BASHOPTS`` (options at start: ``xtrace`` expands
``PS4``, ``extdebug`` loads a debugger profile), the prompts and
``PROMPT_COMMAND`` (expanded or run by an interactive shell, ``PS4`` under
``-x``).
"""
STARTUP_FUNCTION_PREFIX: Final = "BASH_FUNC_"
"""``BASH_FUNC_NAME%%=() { …; }`` in its environment: bash defines the function NAME at start."""


class ShellRow(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    How a shell (`SHELLS`) reads its own arguments, up to the text it runs.

    A shell takes clusters of one-letter switches (``-lc``, ``+x``) and long
    switches (``--login``). A letter of ``value_letters`` takes the next
    unread word as the name of an option it sets (``-o pipefail``, ``-eo
    pipefail``, ``-O dotglob``), as ``set -o`` and ``shopt -s`` do; a long
    option of ``start_files`` takes the next word as a file. After the
    options, the first operand is the command text when the
    ``command_letter`` switch was given (``bash -lc TEXT``; ``+c`` too), else
    a script file; with no operand it reads standard input.

    What the options do is judged as the same options set in the text are: a
    letter of ``set`` (``-k``) and a ``long_options`` name (``--posix``) set
    that option of ``set -o``, a ``value_letters`` name sets its option.
    Only the ``switches`` change nothing else the plan reads; any other
    option (``-i``, ``--debugger``) is one whose effect it does not follow.

    Attributes:
        value_letters: Letters that take the next word as an option name,
            and the builtin whose options they name (``o``: ``set``).
        command_letter: The switch letter that makes the first operand the command text.
        start_files: The long options whose value is a file the shell runs
            before its text (``--rcfile F``).
        long_options: Long switches that set an option of ``set -o``.
        switches: Letters and long switches whose effect the plan follows: the
            command text, standard input, a login shell (the user's own
            start-up files, outside every write root), no start-up files.
    """

    value_letters: Mapping[str, Literal["set", "shopt"]]
    command_letter: str
    start_files: frozenset[str] = frozenset()
    long_options: Mapping[str, str] = MappingProxyType({})
    switches: frozenset[str] = frozenset()


SHELL_ROW: Final = ShellRow(
    value_letters=MappingProxyType({"o": "set", "O": "shopt"}),
    command_letter="c",
    start_files=frozenset({"--rcfile", "--init-file"}),
    long_options=MappingProxyType({"--posix": "posix", "--verbose": "verbose"}),
    switches=frozenset({"c", "s", "l", "--login", "--norc", "--noprofile"}),
)
