"""
The planner against bash and dash run with real values: does the plan account for every program that ran?

The reader's oracle (`oracle.harness`) asks bash what a text *would* run
without running it. Some of what runs is decided by values, though: a file's
content read into an integer variable (``declare -i x; read -r x <
evil.txt`` runs the ``$(…)`` inside it), a nameref whose target is a value,
``OPTIND`` given text, a function imported from the environment, ``BASH_ENV``,
and the system's ``sh`` (dash) reading a text otherwise than bash. Here each
text really runs, confined (`oracle.bash.run`), in a directory holding
`FILES` (``evil.txt`` holds ``a[$(id)]``, ``f`` holds code that runs ``id``),
and the loggers record every program it started.

A **miss** is a program that ran although the plan of the text is measured,
names no command of that program (nested shells included) and says nowhere
that code it cannot see may run there (an `Execute` of unknown origin or of
kind ``expansion`` or ``code``, an `Opaque`, a nested shell it did not
measure). A plan with a miss would let an allow rest on a reading bash
disproves.

Many texts run in one confined box (`judge_many`): each is written to its own
directory and run there by a fresh ``/bin/bash`` (a script, standard input
empty, a CPU limit), the driver logging a mark before each so the loggers'
records can be told apart.

`generate` makes texts of every class (`CLASSES`) from a seeded random source:
attributes and binding forms, bash's own integer variables, namerefs,
startup variables and imported functions given by launchers, and texts for
``sh -c``. ``benchmarks/oracle_values.py`` counts misses over many of them;
the suite runs a few (``test_values.py``).
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Callable, Iterable, Sequence
from typing import Final, NamedTuple

from gateway._calls._plans import Plan
from gateway._plan import iter_commands, plan_source
from gateway._plan._position import program_basename
from gateway.effects import Execute, Opaque, iter_effects
from oracle import bash

__all__ = ["CLASSES", "FILES", "Judged", "generate", "judge_many", "misses_of"]

PAYLOAD: Final = "a[$(id)]"
"""A value that runs ``id`` wherever bash evaluates it as arithmetic (``id`` is a logger)."""
FILES: Final = {
    "evil.txt": PAYLOAD + "\n",
    "name.txt": PAYLOAD + "\n",
    "plain.txt": "7\n",
    "f": "unset BASH_ENV; id\n",
}
"""What every text's directory holds (``f`` runs ``id`` once: the loggers are bash scripts too)."""
BATCH: Final = 150
"""Texts run in one confined box."""
_MARK: Final = "__gw_mark_"


class Judged(NamedTuple):
    """
    One text, its plan and what really ran.

    Attributes:
        text: The text.
        kind: The class it was generated for.
        measured: The plan is measured.
        ran: The argv of every program the loggers recorded.
        misses: Programs that ran and the measured plan does not account for.
    """

    text: str
    kind: str
    measured: bool
    ran: tuple[tuple[str, ...], ...]
    misses: tuple[str, ...]


# ───────────────────────── the judgement ─────────────────────────


def _says_unknown_code(plan: Plan) -> bool:
    """The plan says code it cannot see may run (no allow rests on it)."""
    for command, effect in iter_effects(plan):
        if isinstance(effect, Opaque):
            return True
        if isinstance(effect, Execute) and (
            effect.origin == "unknown" or effect.kind in ("expansion", "code")
        ):
            return True
        if command is not None and any(n.status != "measured" for n in command.nested):
            return True
    return False


def _programs(plan: Plan) -> tuple[set[str], bool]:
    """The basenames of the programs the plan names, and whether one is only known at run time."""
    names: set[str] = set()
    dynamic = False
    for command in iter_commands(plan):
        position = command.position
        if position.dynamic_program:
            dynamic = True
        if position.program is not None:
            names.add(program_basename(position.program.name))
        names.update(program_basename(step.name) for step in position.launchers)
        if command.argv and command.argv[0] is not None:
            names.add(program_basename(command.name))
    return names, dynamic


def misses_of(text: str, ran: Iterable[tuple[str, ...]]) -> tuple[bool, tuple[str, ...]]:
    """Whether the plan of ``text`` is measured, and the programs of ``ran`` it does not account for."""
    plan = plan_source(text).published
    if plan.status != "measured":
        return False, ()
    statements = [statement.plan for statement in plan.statements]
    if any(_says_unknown_code(statement) for statement in statements):
        return True, ()
    names: set[str] = set()
    for statement in statements:
        found, dynamic = _programs(statement)
        if dynamic:
            return True, ()
        names |= found
    missed = tuple(dict.fromkeys(argv[0] for argv in ran if argv and argv[0] not in names))
    return True, missed


def _driver(count: int) -> str:
    """The script that runs every text of a box in its own directory, a mark before each."""
    runs = [
        f"{_MARK}{index}; ( builtin cd t{index} && ulimit -t 5 && "
        f"/bin/bash --norc --noprofile ./text.sh < /dev/null > /dev/null 2>&1 )"
        for index in range(count)
    ]
    return "\n".join(['builtin cd -- "$PWD" || builtin exit 90', *runs]) + "\n"


def judge_many(texts: Sequence[tuple[str, str]]) -> list[Judged]:
    """
    Run each ``(kind, text)`` for real, confined, and judge its plan against what ran.

    Raises:
        OracleUnavailable: bash 5.2 cannot run confined on this machine.
    """
    judged: list[Judged] = []
    for start in range(0, len(texts), BATCH):
        chunk = texts[start : start + BATCH]
        files: dict[str, str] = {}
        for index, (_, text) in enumerate(chunk):
            files[f"t{index}/text.sh"] = text + "\n"
            for name, content in FILES.items():
                files[f"t{index}/{name}"] = content
        run = bash.run(_driver(len(chunk)), files=files, timeout=bash.TIME_LIMIT * 4)
        ran: list[list[tuple[str, ...]]] = [[] for _ in chunk]
        current = -1
        for argv in run.logged:
            if len(argv) == 1 and argv[0].startswith(_MARK):
                current = int(argv[0].removeprefix(_MARK))
            elif current >= 0:
                ran[current].append(argv)
        finished = current == len(chunk) - 1 and run.status is not None
        for index, (kind, text) in enumerate(chunk):
            measured, missed = misses_of(text, ran[index])
            if not finished and index >= max(current, 0):
                missed = (*missed, "<the box ended early>")
            judged.append(Judged(text, kind, measured, tuple(ran[index]), missed))
    return judged


# ───────────────────────── the generators ─────────────────────────

_VALUES: Final = (
    "'a[$(id)]'",
    '"$(< evil.txt)"',
    '"$(< plain.txt)"',
    "'7'",
    '"$OUTSIDE"',
    '"$(cat evil.txt)"',
)
"""Values given to a variable: a payload written in the text, read from a file, plain, or from outside."""

_ATTRIBUTES: Final = (
    "declare -i x; ",
    "typeset -i x; ",
    "declare -x -i x; ",
    "declare -ix x; ",
    "declare -il x; ",
    "g() { declare -gi x; }; g; ",
    "declare -n r=x; declare -i r; ",
    "declare -i x; declare +i x; ",
    "x=1; declare -i x; ",
    "",
)


def _binding(rng: random.Random, name: str) -> str:
    value = rng.choice(_VALUES)
    forms = (
        f"read -r {name} < evil.txt",
        f"read -r {name} < plain.txt",
        f"read -r {name} <<< {value}",
        f"while read -r {name}; do :; done < evil.txt",
        f"printf '%s\\n' {value} | {{ read -r {name}; }}",
        f"(read -r {name}) < evil.txt",
        f"mapfile {name} < evil.txt",
        f"mapfile -t {name} < plain.txt",
        f"read -ra {name} < evil.txt",
        f"IFS= read -rd '' {name} < evil.txt",
        f"printf -v {name} %s {value}",
        f"export {name}={value}",
        f"readonly {name}={value}",
        f"declare {name}={value}",
        f": ${{{name}:={value}}}",
        f"for {name} in {value}; do :; done",
        f"{name}={value}",
        f"{name}+={value}",
        f"{name}=({value})",
        f"{name}={value} :",
        f"set -- -a; getopts a {name}",
    )
    return rng.choice(forms)


def _use(rng: random.Random, name: str) -> str:
    return rng.choice(("", "", f"; echo ${name}", f"; echo $(({name}))", f'; [ "${name}" = 1 ]'))


def _integers(rng: random.Random) -> str:
    attribute = rng.choice(_ATTRIBUTES)
    name = "r" if "-n r" in attribute and rng.random() < 0.5 else "x"
    text = attribute + _binding(rng, name) + _use(rng, name)
    if rng.random() < 0.25:
        inner = text.replace("'", "'\\''")
        text = f"/bin/bash -c '{inner}'"
    elif rng.random() < 0.2:
        text = "f() { local -i x; " + _binding(rng, "x") + "; }; f"
    return text


_SHELL_VARIABLES: Final = (
    "OPTIND",
    "RANDOM",
    "SRANDOM",
    "HISTCMD",
    "SECONDS",
    "LINENO",
    "MAILCHECK",
    "BASHPID",
    "OPTERR",
    "COLUMNS",
)


def _shell_integers(rng: random.Random) -> str:
    name = rng.choice(_SHELL_VARIABLES)
    return _binding(rng, name) + _use(rng, name)


def _namerefs(rng: random.Random) -> str:
    declare = rng.choice(
        (
            "read -r n < name.txt; declare -n r=$n",
            'declare -n r="$(< name.txt)"',
            "declare -n r; read -r r < name.txt",
            "declare -n r; r='a[$(id)]'",
            "declare -n r=x",
            "declare -n r=GITHUB_TOKEN",
            'declare -n r="$OUTSIDE"',
            "declare -n r='a[1]'",
            "read -r n < plain.txt; declare -n r=v$n",
        )
    )
    use = rng.choice(
        ("echo $r", 'echo "${r}"', "r=1", "read -r r < plain.txt", "unset r", ": ${r:=1}")
    )
    return f"{declare}; {use}"


_STARTUP: Final = (
    "'BASH_FUNC_ls%%=() { id; }'",
    "'BASH_FUNC_id%%=() { :; }'",
    "BASH_ENV=./f",
    "ENV=./f",
    "SHELLOPTS=xtrace PS4='$(id)'",
    "PS4='$(id)'",
    "BASHOPTS=xpg_echo",
    "FOO=1",
    "'LS_COLORS=() { id; }'",
)
_SHELLS: Final = (
    "/bin/bash -c ls",
    "/bin/bash -xc :",
    "/bin/bash -s <<< ls",
    "/bin/sh -c ls",
    "/bin/sh -i -c :",
    "/bin/bash --posix -i -c :",
    "ls",
)


def _startup(rng: random.Random) -> str:
    variable = rng.choice(_STARTUP)
    shell = rng.choice(_SHELLS)
    how = rng.choice(("env", "/usr/bin/env", "prefix", "export", "allexport"))
    if how in ("env", "/usr/bin/env"):
        return f"/usr/bin/env {variable} {shell}"
    if how == "prefix" and not variable.startswith("'BASH_FUNC"):
        return f"{variable} {shell}"
    if how == "export" and not variable.startswith("'BASH_FUNC"):
        return f"export {variable}; {shell}"
    if not variable.startswith("'BASH_FUNC"):
        return f"set -a; {variable}; {shell}"
    return f"/usr/bin/env {variable} {shell}"


_DASH_TEXTS: Final = (
    "echo $'\\' ; id ; #'",
    "true &>x id",
    "((id))",
    "[[ -n x ]] || id",
    "x+=1 || id",
    "declare x=1 || id",
    "let x=1 || id",
    "source /dev/null || id",
    "alias ls=id\nls",
    "echo {a,b} && ls",
    'echo $"x" ; ls',
    "ls -la",
    'echo "$HOME" | wc -c',
    "[ -n x ] && ls || id",
    "ls 2>&1 >/dev/null",
    'x=~/a:~/b; ls "$x"',
    "ls a=~/x",
    "f() { ls; }; f",
    "case x in x) ls;; esac",
    "for i in 1 2; do ls; done",
)


def _dash(rng: random.Random) -> str:
    first = rng.choice(_DASH_TEXTS)
    text = first if rng.random() < 0.6 else f"{first}; {rng.choice(_DASH_TEXTS)}"
    launch = rng.choice(("/bin/sh -c", "/bin/dash -c"))
    return f"{launch} {shlex.quote(text)}"


def _tildes(rng: random.Random) -> str:
    word = rng.choice(("a=~/x", "of=~/f", "a=b:~/c", '"a=~/x"', "a\\=~/x", "a=\\~/x", "--a=~/x"))
    return f"{rng.choice(('ls', 'dd if=/dev/null', 'echo'))} {word}"


CLASSES: Final[dict[str, Callable[[random.Random], str]]] = {
    "integer-attributes": _integers,
    "shell-integers": _shell_integers,
    "namerefs": _namerefs,
    "startup-environment": _startup,
    "dash": _dash,
    "tilde-after-equals": _tildes,
}
"""Each class of text the generators make, with its generator."""


def generate(count: int, seed: int = 0) -> list[tuple[str, str]]:
    """``count`` texts ``(kind, text)``, the classes in turn, from a random source seeded with ``seed``."""
    rng = random.Random(seed)  # noqa: S311 -- texts to test, not secrets
    kinds = list(CLASSES)
    return [(kinds[i % len(kinds)], CLASSES[kinds[i % len(kinds)]](rng)) for i in range(count)]
