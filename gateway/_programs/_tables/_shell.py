"""
Option tables of bash's builtins and the small programs that print or test: echo, cd, set…

Bash's builtins stop reading options at their first operand, and most print
or change the shell itself: what they bind is the planner's to state (it
reads assignments, ``read``, ``declare`` and ``set`` itself). What the tables
add: ``set``, ``declare``, ``export``, ``readonly`` and ``local`` without
names print variables (the environment); ``source FILE`` runs the file;
``jobs -x`` and ``command`` run a program; ``cd`` and ``pushd`` change the
directory; ``yes`` never ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    CHDIR,
    DATA,
    ENVIRONMENT,
    FOLLOW,
    Effect,
    Implicit,
    Mode,
    Operands,
    OptionSpec,
    ProgramRow,
    Role,
    allows,
    refuses,
)
from gateway._programs._tables._common import GNU, NO_OPERANDS, row

__all__ = ["SHELL_TABLES"]

_UNKNOWN_DIRECTORY: Final = Effect(kind="cwd", value=None, fixed=True)
_HOME: Final = Effect(kind="cwd", value="~")
_RUNS_SCRIPT: Final = Role(effects=(Effect(kind="execute", action="script"),), arguments=True)
_RUNS_PROGRAM: Final = Role(effects=(Effect(kind="execute", action="program"),), arguments=True)
_NUMBER: Final = r"-[0-9]+"

# Builtins read options up to their first operand (options_end_after=1), and `--` ends them.

_ECHO: Final = row(
    "-n",
    "-e",
    "-E",
    options_end_after=1,
    double_dash=False,
    unknown_is_operand=True,
    operands=NO_OPERANDS,
    examples=(
        *allows("echo hello"),
        *refuses("echo hello > ~/.bashrc", profile="workspace-write"),
    ),
)
_PWD: Final = row(
    "-L",
    "-P",
    *GNU,
    options_end_after=1,
    operands=NO_OPERANDS,
    examples=(*allows("pwd"), *refuses("pwd > ~/.bashrc", profile="workspace-write")),
)
_IGNORES_ARGUMENTS: Final = ProgramRow(
    double_dash=False,
    unknown_is_operand=True,
    operands=NO_OPERANDS,
    examples=(*allows("true", "false --help"), *refuses("true > ~/.profile")),
)
_PRINTF: Final = row(
    "-v =",
    options_end_after=1,
    operands=NO_OPERANDS,
    examples=(
        *allows("printf '%s\\n' a"),
        *refuses("printf -v PATH /tmp", profile="workspace-write"),
    ),
)
_TEST: Final = ProgramRow(
    double_dash=False,
    unknown_is_operand=True,
    operands=NO_OPERANDS,
    examples=(
        *allows("test -f setup.py"),
        *refuses("test -f setup.py > /etc/motd", profile="workspace-write"),
    ),
)
_EXPR: Final = row(
    *GNU, double_dash=True, unknown_is_operand=True, options_end_after=1, operands=NO_OPERANDS
)
_SLEEP: Final = row(
    *GNU,
    operands=NO_OPERANDS,
    examples=(*allows("sleep 1"), *refuses("sleep 1 > ~/.bashrc", profile="workspace-write")),
)
_YES: Final = row(*GNU, operands=NO_OPERANDS, facts=(Implicit(effect=FOLLOW, via="yes"),))
_SEQ: Final = row(
    *GNU,
    "-f --format =",
    "-s --separator =",
    "-t =",  # BSD: terminator
    "-w --equal-width",
    operand_words=r"-[0-9.][0-9.eE+-]*|-inf|-infinity|-nan",
    operands=NO_OPERANDS,
    examples=(
        *allows("seq 1 10"),
        *refuses("seq 1 10 > ~/.bashrc", profile="workspace-write"),
    ),
)
_TYPE: Final = row("-a", "-f", "-P", "-p", "-t", options_end_after=1, operands=NO_OPERANDS)
_COMMAND: Final = row(
    "-p",
    "-v",
    "-V",
    options_end_after=1,
    operands=Operands(head=(_RUNS_PROGRAM,)),
    modes=(
        Mode(when=frozenset({"-v"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"-V"}), operands=NO_OPERANDS),
    ),
)
_HELP: Final = row("-d", "-m", "-s", options_end_after=1, operands=NO_OPERANDS)
_CD: Final = row(
    "-L",
    "-P",
    "-e",
    "-@",
    options_end_after=1,
    operands=Operands(rest=Role(effects=(CHDIR,)), empty=(_HOME,)),
    examples=(
        *allows("cd src"),
        *refuses("cd src > ~/.profile", profile="workspace-write"),
    ),
)
# pushd DIR changes directory; pushd +N / -N and a bare pushd rotate the stack.
_PUSHD: Final = row(
    "-n",
    options_end_after=1,
    operand_words=_NUMBER,
    operands=Operands(
        prefixed=(
            ("+", Role(effects=(_UNKNOWN_DIRECTORY,))),
            ("-", Role(effects=(_UNKNOWN_DIRECTORY,))),
        ),
        rest=Role(effects=(CHDIR,)),
        empty=(_UNKNOWN_DIRECTORY,),
    ),
    modes=(Mode(when=frozenset({"-n"}), operands=NO_OPERANDS),),
)
_POPD: Final = row(
    "-n",
    options_end_after=1,
    operand_words=_NUMBER,
    operands=Operands(rest=Role(effects=(_UNKNOWN_DIRECTORY,)), empty=(_UNKNOWN_DIRECTORY,)),
    modes=(Mode(when=frozenset({"-n"}), operands=NO_OPERANDS),),
)
_DIRS: Final = row(
    "-c", "-l", "-p", "-v", options_end_after=1, operand_words=_NUMBER, operands=NO_OPERANDS
)
_JOBS: Final = row(
    "-l",
    "-n",
    "-p",
    "-r",
    "-s",
    "-x",
    options_end_after=1,
    operands=NO_OPERANDS,
    modes=(Mode(when=frozenset({"-x"}), operands=Operands(head=(_RUNS_PROGRAM,))),),
)

# Without a name these print variables: the environment and more.
_PRINTS_VARIABLES: Final = Operands(rest=DATA, empty=(ENVIRONMENT,))
_DECLARE_OPTIONS: Final[tuple[OptionSpec, ...]] = tuple(f"-{letter}" for letter in "aAfFgiIlnrtuxp")
_DECLARE: Final = row(
    *_DECLARE_OPTIONS,
    options_end_after=1,
    plus_clusters=True,
    operands=_PRINTS_VARIABLES,
    modes=(
        Mode(
            when=frozenset({"-p"}),
            operands=Operands(rest=Role(effects=(ENVIRONMENT,)), empty=(ENVIRONMENT,)),
        ),
    ),
)
_EXPORT: Final = row("-f", "-n", "-p", options_end_after=1, operands=_PRINTS_VARIABLES)
_READONLY: Final = row("-a", "-A", "-f", "-p", options_end_after=1, operands=_PRINTS_VARIABLES)
_UNSET: Final = row("-f", "-v", "-n", options_end_after=1, operands=NO_OPERANDS)
_READ: Final = row(
    "-a =",
    "-d =",
    "-e",
    "-E",
    "-i =",
    "-n =",
    "-N =",
    "-p =",
    "-r",
    "-s",
    "-t =",
    "-u =",
    options_end_after=1,
    operands=NO_OPERANDS,
)
_COUNTS: Final = row(options_end_after=1, operand_words=_NUMBER, operands=NO_OPERANDS)
_WAIT: Final = row(
    "-f", "-n", "-p =", options_end_after=1, operand_words=_NUMBER, operands=NO_OPERANDS
)

# set alone prints every variable and function; `set -o` alone lists options.
_SET: Final = row(
    *(f"-{letter}" for letter in "abefhkmnptuvxBCEHPT"),
    "-o [_]",
    options_end_after=1,
    plus_clusters=True,
    operands=NO_OPERANDS,
    facts=(Implicit(effect=ENVIRONMENT, via="set", only_bare=True),),
)
_SHOPT: Final = row("-p", "-q", "-s", "-u", "-o", options_end_after=1, operands=NO_OPERANDS)
_SOURCE: Final = row(options_end_after=1, operands=Operands(head=(_RUNS_SCRIPT,)))

SHELL_TABLES: Final[Mapping[str, ProgramRow]] = {
    "echo": _ECHO,
    "printf": _PRINTF,
    "true": _IGNORES_ARGUMENTS,
    "false": _IGNORES_ARGUMENTS,
    ":": _IGNORES_ARGUMENTS,
    "test": _TEST,
    "[": _TEST,
    "expr": _EXPR,
    "sleep": _SLEEP,
    "yes": _YES,
    "seq": _SEQ,
    "type": _TYPE,
    "command": _COMMAND,
    "help": _HELP,
    "cd": _CD,
    "pushd": _PUSHD,
    "popd": _POPD,
    "dirs": _DIRS,
    "jobs": _JOBS,
    "declare": _DECLARE,
    "typeset": _DECLARE,
    "local": _DECLARE,
    "export": _EXPORT,
    "readonly": _READONLY,
    "unset": _UNSET,
    "read": _READ,
    "shift": _COUNTS,
    "exit": _COUNTS,
    "return": _COUNTS,
    "break": _COUNTS,
    "continue": _COUNTS,
    "wait": _WAIT,
    "set": _SET,
    "shopt": _SHOPT,
    "pwd": _PWD,
    "source": _SOURCE,
    ".": _SOURCE,
}
"""Basename → row, for bash's builtins and the programs that only print or test."""
