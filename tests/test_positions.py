"""
Program positions (SEMANTICS.md §3, issue 4): which program a simple command really runs.

A table of commands covering every launcher row (each declared option in its
spellings), control words, assignments and obfuscations of the program name;
a generated test per launcher row that an arity-1 option's value is never read
as the program; every refusal and decline kind with its sentence; nested shell
text at each depth; and sequence plans beyond the seed cases (§4).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import NamedTuple

import pytest
from oracle import bash

from gateway._plan import MAX_NESTED_SHELL_DEPTH
from gateway._plan._builder import position_words
from gateway._plan._position import direct_position, read_position
from gateway._read import read_shell
from gateway._read._tree import SimpleCommand, walk
from gateway.effects import Opaque
from gateway.plans import (
    NestedShell,
    PlannedCommand,
    ProgramPosition,
    command_sequence_plan,
    plan_program,
)
from gateway.shell import LAUNCHERS, LauncherRow, read_program_position
from gateway.text import NOT_AUTO_ALLOWED

OPTION = "option_at_program_position"
CONTROL = "control_syntax_at_program_position"
UNREADABLE = "unreadable_program_position"
STREAM = "stream_fed_operands"
CORPUS = Path(__file__).resolve().parent / "data" / "corpus"


class Row(NamedTuple):
    """One command and what its program position must say."""

    command: str
    program: str | None
    launchers: tuple[str, ...] = ()
    refusal: str | None = None
    decline: str | None = None
    runs_shell: bool = False
    name: str | None = None


def row(
    command: str,
    program: str | None,
    launchers: str = "",
    *,
    refusal: str | None = None,
    decline: str | None = None,
    via_shell: bool = False,
    name: str | None = None,
) -> Row:
    # An option no row declares, or control syntax where no shell stands, also declines.
    if refusal == OPTION or (refusal == CONTROL and not via_shell):
        decline = decline or UNREADABLE
    return Row(command, program, tuple(launchers.split()), refusal, decline, via_shell, name)


def shell_refusal(command: str, launchers: str) -> Row:
    """A shell (or shell text) stands where the program should be."""
    return row(command, None, launchers, refusal=CONTROL, via_shell=True)


TABLE = [
    # ── no launcher ──
    row("ls -la", "ls"),
    row("/usr/bin/cat f", "cat", name="/usr/bin/cat"),
    row("./ls", "ls", name="./ls"),
    row("../bin/ls", "ls", name="../bin/ls"),
    row("//usr//bin//ls", "ls", name="//usr//bin//ls"),
    # ── env ──
    row("env ls", "ls", "env"),
    row("env -i ls", "ls", "env"),
    row("env --ignore-environment ls", "ls", "env"),
    row("env -u HOME ls", "ls", "env"),
    row("env -uHOME ls", "ls", "env"),
    row("env --unset=HOME ls", "ls", "env"),
    row("env --unset HOME ls", "ls", "env"),
    row("env -C /tmp ls", "ls", "env"),
    row("env -C/tmp ls", "ls", "env"),
    row("env --chdir=/tmp ls", "ls", "env"),
    row("env -iv ls", "ls", "env"),
    row("env -v0i ls", "ls", "env"),
    row("env -iu HOME ls", "ls", "env"),
    row("env -0 ls", "ls", "env"),
    row("env --null --debug ls", "ls", "env"),
    row("env --block-signal ls", "ls", "env"),
    row("env --block-signal=INT ls", "ls", "env"),
    row("env A=1 B=2 ls", "ls", "env"),
    row('env "A=1" ls', "ls", "env"),
    row("env", "env"),
    shell_refusal("env -S 'ls -l'", "env"),
    shell_refusal("env -S'ls -l'", "env"),
    shell_refusal("env --split-string='ls -l'", "env"),
    row("env -- ls", None, "env", refusal=OPTION),
    row("env - ls", None, "env", refusal=OPTION),
    row("env -x ls", None, "env", refusal=OPTION),
    row("env -u", None, "env", refusal=OPTION),
    # ── sudo ──
    row("sudo ls", "ls", "sudo"),
    row("sudo -u root ls", "ls", "sudo"),
    row("sudo -uroot ls", "ls", "sudo"),
    row("sudo --user=root ls", "ls", "sudo"),
    row("sudo --user root ls", "ls", "sudo"),
    row("sudo -g wheel ls", "ls", "sudo"),
    row("sudo -C 3 -D /tmp -h host ls", "ls", "sudo"),
    row("sudo -p 'pw:' ls", "ls", "sudo"),
    row("sudo -R /srv -r role -t type -T 10 ls", "ls", "sudo"),
    row("sudo -U bob ls", "ls", "sudo"),
    row("sudo -nE rm x", "rm", "sudo"),
    row("sudo -EHu root ls", "ls", "sudo"),
    row("sudo -nHk ls", "ls", "sudo"),
    row("sudo A=1 ls", "ls", "sudo"),
    row("sudo -s ls", "ls", "sudo", via_shell=True),
    shell_refusal("sudo -s", "sudo"),
    shell_refusal("sudo -i", "sudo"),
    shell_refusal("sudo --login", "sudo"),
    row("sudo -l", None, "sudo", refusal=OPTION),
    row("sudo -u", None, "sudo", refusal=OPTION),
    row("sudo if true", None, "sudo", refusal=CONTROL),
    row("sudo { x", None, "sudo", refusal=CONTROL),
    row('sudo "if"', "if", "sudo"),
    row("sudo $CMD", None, "sudo", decline=UNREADABLE),
    row("sudo /usr/bin/env ls", "ls", "sudo env"),
    # ── doas ──
    row("doas ls", "ls", "doas"),
    row("doas -u root ls", "ls", "doas"),
    row("doas -uroot ls", "ls", "doas"),
    row("doas -n ls", "ls", "doas"),
    shell_refusal("doas -s", "doas"),
    shell_refusal("doas -ns", "doas"),
    row("doas -x ls", None, "doas", refusal=OPTION),
    # ── timeout ──
    row("timeout 5 ls", "ls", "timeout"),
    row("timeout -s KILL 5 ls", "ls", "timeout"),
    row("timeout -sKILL 5 ls", "ls", "timeout"),
    row("timeout --signal=KILL 5 ls", "ls", "timeout"),
    row("timeout --signal KILL 5 ls", "ls", "timeout"),
    row("timeout -k 5 10 ls", "ls", "timeout"),
    row("timeout -k5 10 ls", "ls", "timeout"),
    row("timeout --kill-after=5 10 ls", "ls", "timeout"),
    row("timeout -v --preserve-status --foreground 5 ls", "ls", "timeout"),
    row("timeout -vs KILL 5 ls", "ls", "timeout"),
    row("timeout", None, "timeout", decline=UNREADABLE),
    row("timeout $T ls", None, "timeout", decline=UNREADABLE),
    row("timeout -x 5 ls", None, "timeout", refusal=OPTION),
    # ── nice ──
    row("nice ls", "ls", "nice"),
    row("nice -n 5 ls", "ls", "nice"),
    row("nice -n5 ls", "ls", "nice"),
    row("nice -n -5 ls", "ls", "nice"),
    row("nice --adjustment=5 ls", "ls", "nice"),
    row("nice --adjustment 5 ls", "ls", "nice"),
    row("nice -5 ls", "ls", "nice"),
    row("nice -x ls", None, "nice", refusal=OPTION),
    # ── time: a control word bare, a launcher when quoted or escaped ──
    row("time ls", "ls"),
    row("time -p ls", "ls"),
    row("time -f %e ls", None, refusal=OPTION),
    row("\\time -f %e ls", "ls", "time"),
    row("\\time --format=%e ls", "ls", "time"),
    row("\\time -o out -a ls", "ls", "time"),
    row("\\time -pv ls", "ls", "time"),
    row('"time" -p ls', "ls", "time"),
    # ── nohup, stdbuf, setsid ──
    row("nohup ls", "ls", "nohup"),
    row("nohup -x ls", None, "nohup", refusal=OPTION),
    row("stdbuf -oL ls", "ls", "stdbuf"),
    row("stdbuf -o L ls", "ls", "stdbuf"),
    row("stdbuf --output=L ls", "ls", "stdbuf"),
    row("stdbuf --input 0 -e0 ls", "ls", "stdbuf"),
    row("setsid ls", "ls", "setsid"),
    row("setsid -f ls", "ls", "setsid"),
    row("setsid -cfw ls", "ls", "setsid"),
    row("setsid --ctty --wait ls", "ls", "setsid"),
    # ── ionice, chrt, taskset ──
    row("ionice -c 3 ls", "ls", "ionice"),
    row("ionice -c3 -n7 ls", "ls", "ionice"),
    row("ionice --class=3 ls", "ls", "ionice"),
    row("ionice --classdata 7 ls", "ls", "ionice"),
    row("ionice -tc3 ls", "ls", "ionice"),
    row("ionice -p 123", None, "ionice", refusal=OPTION),
    row("chrt 10 ls", "ls", "chrt"),
    row("chrt -f 10 ls", "ls", "chrt"),
    row("chrt --fifo 10 ls", "ls", "chrt"),
    row("chrt -rR 10 ls", "ls", "chrt"),
    row("chrt -T 5 -P 10 -D 10 -d 0 ls", "ls", "chrt"),
    row("chrt --sched-runtime=5 -d 0 ls", "ls", "chrt"),
    row("chrt -p 10 123", None, "chrt", refusal=OPTION),
    row("taskset 0x1 ls", "ls", "taskset"),
    row("taskset -c 0 ls", "ls", "taskset"),
    row("taskset --cpu-list 0-3 ls", "ls", "taskset"),
    row("taskset -ac 0 ls", "ls", "taskset"),
    row("taskset -p 0x1 123", None, "taskset", refusal=OPTION),
    # ── command, exec, builtin ──
    row("command ls", "ls", "command"),
    row("command -p ls", "ls", "command"),
    row("command -v ls", "command"),
    row("command -V ls", "command"),
    row("command -x ls", None, "command", refusal=OPTION),
    row("command time -f %e ls", None, "command", refusal=CONTROL),
    row("exec ls", "ls", "exec"),
    row("exec -a name ls", "ls", "exec"),
    row("exec -aname ls", "ls", "exec"),
    row("exec -cl ls", "ls", "exec"),
    row("builtin echo x", "echo", "builtin"),
    row("builtin -x", None, "builtin", refusal=OPTION),
    # ── xargs: operands arrive on a stream ──
    row("xargs", "echo", "xargs", decline=STREAM),
    row("xargs rm", "rm", "xargs", decline=STREAM),
    row("xargs -n 1 rm", "rm", "xargs", decline=STREAM),
    row("xargs -n1 rm", "rm", "xargs", decline=STREAM),
    row("xargs --max-args=1 rm", "rm", "xargs", decline=STREAM),
    row("xargs -I {} cp {} d", "cp", "xargs", decline=STREAM),
    row("xargs -I{} cp {} d", "cp", "xargs", decline=STREAM),
    row("xargs -i cp {} d", "cp", "xargs", decline=STREAM),
    row("xargs -irm ls", "ls", "xargs", decline=STREAM),
    row("xargs --replace=X cp X d", "cp", "xargs", decline=STREAM),
    row("xargs -0 rm", "rm", "xargs", decline=STREAM),
    row("xargs --null rm", "rm", "xargs", decline=STREAM),
    row("xargs -0r rm", "rm", "xargs", decline=STREAM),
    row("xargs -ptrx rm", "rm", "xargs", decline=STREAM),
    row("xargs -P4 -n2 rm", "rm", "xargs", decline=STREAM),
    row("xargs -d , rm", "rm", "xargs", decline=STREAM),
    row("xargs --delimiter=, rm", "rm", "xargs", decline=STREAM),
    row("xargs -a list.txt rm", "rm", "xargs", decline=STREAM),
    row("xargs -e rm", "rm", "xargs", decline=STREAM),
    row("xargs -eEND rm", "rm", "xargs", decline=STREAM),
    row("xargs -l rm", "rm", "xargs", decline=STREAM),
    row("xargs -L 1 rm", "rm", "xargs", decline=STREAM),
    row("xargs -s 100 rm", "rm", "xargs", decline=STREAM),
    row("xargs sh -c 'rm $1' _", "sh", "xargs", decline=STREAM, via_shell=True),
    row("xargs sudo rm", "rm", "xargs sudo", decline=STREAM),
    row("sudo xargs rm", "rm", "sudo xargs", decline=STREAM),
    row("xargs -Q rm", None, "xargs", refusal=OPTION),
    row("xargs -n", None, "xargs", refusal=OPTION),
    # ── watch: shell text unless -x ──
    shell_refusal("watch ls -l", "watch"),
    shell_refusal("watch -n 1 'ls -l'", "watch"),
    shell_refusal("watch -n1 ls", "watch"),
    shell_refusal("watch --interval=1 ls", "watch"),
    shell_refusal("watch --interval 1 ls", "watch"),
    shell_refusal("watch -d ls", "watch"),
    shell_refusal("watch --differences=cumulative ls", "watch"),
    shell_refusal("watch -tbe ls", "watch"),
    shell_refusal("watch -q 5 ls", "watch"),
    row("watch -x ls -l", "ls", "watch"),
    row("watch --exec ls", "ls", "watch"),
    row("watch", "watch"),
    row("watch -z ls", None, "watch", refusal=OPTION),
    # ── flock ──
    row("flock /tmp/l ls", "ls", "flock"),
    row("flock -n /tmp/l ls", "ls", "flock"),
    row("flock -sn /tmp/l ls", "ls", "flock"),
    row("flock -w 5 /tmp/l ls", "ls", "flock"),
    row("flock -w5 /tmp/l ls", "ls", "flock"),
    row("flock --timeout=5 /tmp/l ls", "ls", "flock"),
    row("flock -E 3 /tmp/l ls", "ls", "flock"),
    shell_refusal("flock /tmp/l -c ls", "flock"),
    shell_refusal("flock -c ls /tmp/l", "flock"),
    shell_refusal("flock --command='ls' /tmp/l", "flock"),
    row("flock", None, "flock", decline=UNREADABLE),
    # ── script, su, runuser: their operands are a shell's ──
    shell_refusal("script -c ls", "script"),
    shell_refusal("script --command=ls", "script"),
    shell_refusal("script -qc ls /dev/null", "script"),
    shell_refusal("script -E never -c ls", "script"),
    shell_refusal("script -q /dev/null", "script"),
    shell_refusal("script", "script"),
    shell_refusal("su -c ls", "su"),
    shell_refusal("su -c ls root", "su"),
    shell_refusal("su --command=ls root", "su"),
    shell_refusal("su - root -c ls", "su"),
    shell_refusal("su -l root", "su"),
    shell_refusal("su -s/bin/sh root", "su"),
    shell_refusal("su --shell=/bin/sh root", "su"),
    shell_refusal("su", "su"),
    row("su -x", None, "su", refusal=OPTION),
    row("runuser -u nobody ls", "ls", "runuser"),
    row("runuser -unobody ls", "ls", "runuser"),
    row("runuser --user=nobody ls", "ls", "runuser"),
    row("runuser -u nobody -- ls", None, "runuser", refusal=OPTION),
    shell_refusal("runuser -c ls nobody", "runuser"),
    shell_refusal("runuser -l nobody -c ls", "runuser"),
    shell_refusal("runuser nobody", "runuser"),
    # ── parallel builds shell command lines itself; chroot ──
    shell_refusal("parallel echo ::: a b", "parallel"),
    shell_refusal("parallel", "parallel"),
    row("chroot /mnt ls", "ls", "chroot"),
    row("chroot --userspec=a:b /mnt ls", "ls", "chroot"),
    row("chroot --userspec a:b /mnt ls", "ls", "chroot"),
    row("chroot --skip-chdir /mnt ls", "ls", "chroot"),
    shell_refusal("chroot /mnt", "chroot"),
    # ── chains ──
    row("env sudo -u x timeout 5 nice -n 2 ls", "ls", "env sudo timeout nice"),
    row("nohup setsid -f stdbuf -oL ls", "ls", "nohup setsid stdbuf"),
    row("time nice ls", "ls", "nice"),
    row("! time -p sudo ls", "ls", "sudo"),
    row("sudo sh -c ls", "sh", "sudo", via_shell=True),
    row("timeout 5 bash -lc ls", "bash", "timeout", via_shell=True),
    row("sudo timeout", None, "sudo timeout", decline=UNREADABLE),
    # ── control words ──
    row("if ls", "ls"),
    row("while ls", "ls"),
    row("until ls", "ls"),
    row("then ls", "ls"),
    row("elif ls", "ls"),
    row("else ls", "ls"),
    row("do ls", "ls"),
    row("{ ls", "ls"),
    row("! ls", "ls"),
    row("if", None, decline=UNREADABLE),
    row("'if' x", "if"),
    row("\\if x", "if"),
    row('"do" x', "do"),
    row('i"f" x', "if"),
    row("'time' -f %e ls", "ls", "time"),
    row("env then ls", None, "env", refusal=CONTROL),
    # ── assignments ──
    row("A=1 B=2 ls", "ls"),
    row("A='x y' ls", "ls"),
    row("A[1]=x ls", "ls"),
    row("A+=x ls", "ls"),
    row("A=$(id) ls", "ls"),
    row("A=1", None, decline=UNREADABLE),
    row('A"="1 ls', "A=1"),
    row('"A=1" ls', "A=1"),
    row("A\\=1 ls", "A=1"),
    # ── obfuscated program names ──
    row("'l's -la", "ls"),
    row("\\ls", "ls"),
    row("$'ls'", "ls"),
    row('l"s"', "ls"),
    row('"ls"', "ls"),
    row("$'\\x72m' -rf x", "rm"),
    row("/bin/r''m -rf x", "rm", name="/bin/rm"),
    row("$CMD", None, decline=UNREADABLE),
    row("${CMD}", None, decline=UNREADABLE),
    row('"$CMD" x', None, decline=UNREADABLE),
    row("$(echo ls) x", None, decline=UNREADABLE),
    row("`echo ls` x", None, decline=UNREADABLE),
    row("{ls,cat} x", None, decline=UNREADABLE),
    row("l? x", None, decline=UNREADABLE),
    row("l[s] x", None, decline=UNREADABLE),
    row("* x", None, decline=UNREADABLE),
    row("~/bin/ls", None, decline=UNREADABLE),
    row('watch "$CMD"', None, "watch", decline=UNREADABLE),
    row("sudo $(which rm) x", None, "sudo", decline=UNREADABLE),
]


def check(position: ProgramPosition, expected: Row) -> None:
    program = position.program
    assert (None if program is None else program.basename) == expected.program, position
    if expected.name is not None:
        assert program is not None
        assert program.name == expected.name
    assert tuple(step.basename for step in position.launchers) == expected.launchers
    assert (None if position.refusal is None else position.refusal.kind) == expected.refusal
    assert position.decline == expected.decline
    assert position.runs_shell == expected.runs_shell
    if position.refusal is None and position.decline is None:
        assert position.reason is None
    else:
        assert position.reason is not None
        assert position.reason.endswith(NOT_AUTO_ALLOWED)
    if position.refusal is not None:
        assert position.refusal.sentence.endswith(NOT_AUTO_ALLOWED)
        assert position.reason == position.refusal.sentence


def test_the_table_is_large_and_covers_every_launcher_row() -> None:
    assert len(TABLE) >= 150
    assert len({r.command for r in TABLE}) == len(TABLE)
    covered = {name for r in TABLE for name in r.launchers}
    assert set(LAUNCHERS) <= covered


@pytest.mark.parametrize("expected", TABLE, ids=[r.command for r in TABLE])
def test_program_position_is_read_through_launchers_and_spellings(expected: Row) -> None:
    check(read_program_position(expected.command), expected)


@pytest.mark.parametrize("expected", TABLE[:60], ids=[r.command for r in TABLE[:60]])
def test_plans_carry_the_same_position_as_the_reader(expected: Row) -> None:
    """Every planned command's `position` is the reader's answer for its words."""
    plan = plan_program(expected.command)
    assert plan.status == "measured", plan.reason
    command = plan.statements[0].plan.commands[0]
    assert command.position == read_program_position(expected.command)


def test_the_path_is_kept_as_written_but_resolves_to_its_basename() -> None:
    for command in ("cat f", "/usr/bin/cat f", "./cat f"):
        position = read_program_position(command)
        assert position.program is not None
        assert position.program.basename == "cat"
        assert position.program.name == command.split()[0]
    plan = plan_program("/usr/bin/cat f")
    assert plan.statements[0].plan.commands[0].name == "/usr/bin/cat"


def test_control_words_and_assignments_are_listed() -> None:
    position = read_program_position("! time -p A=1 B=2 sudo ls")
    assert position.control_words == ("!", "time")
    assert position.assignments == ("A", "B")
    assert [(s.index, s.basename) for s in position.launchers] == [(5, "sudo")]
    assert position.program is not None
    assert position.program.index == 6


def test_launcher_word_indexes_are_in_chain_order() -> None:
    position = read_program_position("env A=1 sudo -u root nice -n 5 ls")
    assert [(s.index, s.name) for s in position.launchers] == [(0, "env"), (2, "sudo"), (5, "nice")]
    assert position.program is not None
    assert position.program.index == 8


def test_a_bare_xargs_runs_its_default_program() -> None:
    position = read_program_position("xargs -0")
    assert position.runs_default_program
    assert position.argv_from_stdin
    assert position.program is not None
    assert (position.program.index, position.program.name) == (None, "echo")


def test_stream_fed_operands_follow_xargs_through_the_chain() -> None:
    assert read_program_position("xargs sudo rm").argv_from_stdin
    assert read_program_position("sudo xargs rm").argv_from_stdin
    assert not read_program_position("sudo rm").argv_from_stdin


def test_a_pipeline_into_xargs_is_read_from_its_own_stage() -> None:
    plan = plan_program("find . -name '*.tmp' | xargs rm -f")
    find, xargs = plan.statements[0].plan.commands
    assert find.position.decline is None
    assert xargs.position.decline == STREAM
    assert xargs.position.program is not None
    assert xargs.position.program.basename == "rm"


def test_text_that_is_not_one_command_is_unreadable() -> None:
    position = read_program_position("ls | wc")
    assert position.decline == UNREADABLE
    assert position.reason is not None
    assert position.reason.endswith(NOT_AUTO_ALLOWED)


def test_a_declared_option_missing_its_value_says_so() -> None:
    """`sudo -u` at the end refuses: the sentence names the missing value, not an undeclared option."""
    position = read_program_position("sudo -u")
    assert position.refusal is not None
    assert position.refusal.kind == OPTION
    assert position.refusal.option == "-u"
    assert "does not declare" not in position.refusal.sentence
    assert "value" in position.refusal.sentence


def test_a_control_word_alone_is_not_said_to_be_an_assignment() -> None:
    position = read_program_position("if")
    assert position.reason is not None
    assert "assignments" not in position.reason
    assert "`if`" in position.reason


# ───────────────────────── one test per launcher row ─────────────────────────


def _head(name: str) -> str:
    """The launcher's word: `time` bare is the shell keyword, so its row is reached quoted."""
    return "'time'" if name == "time" else name


def _command(name: str, *words: str) -> str:
    return " ".join([_head(name), shlex.join(words)]) if words else _head(name)


def _operands(row: LauncherRow) -> list[str]:
    return ["1"] * row.required_operands


def _option_spellings(option: str, arity: int, value: str) -> list[list[str]]:
    """The spellings of one declared option: separated, and fused (`--long=v` / `-kv`)."""
    if arity == 0:
        return [[option]]
    if option.startswith("--"):
        return [[option, value], [f"{option}={value}"]]
    return [[option, value], [f"{option}{value}"]]


def _expected_program(name: str, row: LauncherRow, option: str) -> str | None:
    """What a row runs after one of its options and `ls`, by the row's own declarations."""
    if row.always_refuse:
        return None
    if option in row.no_run_options:
        return name
    if row.operands_are_shell_arguments and option not in row.program_options:
        return None
    if row.shell_text and option not in row.exec_options:
        return None
    return "ls"


ROW_OPTIONS = [
    (name, option, arity)
    for name, launcher in LAUNCHERS.items()
    for option, arity in launcher.options.items()
    if option not in launcher.fused_only
]


@pytest.mark.parametrize(
    ("name", "option", "arity"), ROW_OPTIONS, ids=[f"{n} {o}" for n, o, _ in ROW_OPTIONS]
)
def test_each_declared_option_is_read_in_each_spelling(name: str, option: str, arity: int) -> None:
    launcher = LAUNCHERS[name]
    for spelling in _option_spellings(option, arity, "VALUE"):
        command = _command(name, *spelling, *_operands(launcher), "ls", "-l")
        position = read_program_position(command)
        expected = _expected_program(name, launcher, option)
        program = position.program
        assert (None if program is None else program.basename) == expected, (command, position)
        if expected == "ls":
            assert position.refusal is None, command
            assert position.decline in (None, STREAM), command


@pytest.mark.parametrize(
    ("name", "option"),
    [(n, o) for n, o, a in ROW_OPTIONS if a == 1],
    ids=[f"{n} {o}" for n, o, a in ROW_OPTIONS if a == 1],
)
def test_the_word_after_an_arity_1_option_is_never_the_program(name: str, option: str) -> None:
    """The one mistake a row must never make: reading an option's value as the program."""
    launcher = LAUNCHERS[name]
    for tail in ([], _operands(launcher), [*_operands(launcher), "ls"]):
        for spelling in _option_spellings(option, 1, "rm"):
            command = _command(name, *spelling, *tail)
            program = read_program_position(command).program
            assert program is None or program.name != "rm", command


@pytest.mark.parametrize("name", sorted(LAUNCHERS))
def test_arity_0_short_options_read_as_one_cluster(name: str) -> None:
    launcher = LAUNCHERS[name]
    letters = [
        option[1]
        for option, arity in launcher.options.items()
        if arity == 0
        and len(option) == 2
        and option[1].isalpha()
        and option not in launcher.fused_only
        and option not in launcher.no_run_options
        and option not in launcher.shell_options
        and option not in launcher.exec_options
        and option not in launcher.command_string
    ]
    cluster = [f"-{''.join(letters)}"] if letters else []
    command = _command(name, *cluster, *_operands(launcher), "ls")
    position = read_program_position(command)
    expected = _expected_program(name, launcher, "")
    program = position.program
    assert (None if program is None else program.basename) == expected, command


@pytest.mark.parametrize(
    "name", sorted(n for n, launcher in LAUNCHERS.items() if launcher.fused_only)
)
def test_optional_value_options_are_switches_bare_and_take_only_a_fused_value(name: str) -> None:
    launcher = LAUNCHERS[name]
    for option in sorted(launcher.fused_only):
        fused = f"{option}=rm" if option.startswith("--") else f"{option}rm"
        for spelling in ([option], [fused]):
            command = _command(name, *spelling, *_operands(launcher), "ls")
            program = read_program_position(command).program
            expected = _expected_program(name, launcher, option)
            assert (None if program is None else program.basename) == expected, command


@pytest.mark.parametrize(
    "name", sorted(n for n, launcher in LAUNCHERS.items() if launcher.command_string)
)
def test_command_string_options_hand_their_value_to_a_shell(name: str) -> None:
    launcher = LAUNCHERS[name]
    for option in sorted(launcher.command_string):
        spellings = [[option, "rm -rf x"]]
        spellings.append(
            [f"{option}=rm -rf x"] if option.startswith("--") else [f"{option}rm -rf x"]
        )
        for spelling in spellings:
            command = _command(name, *spelling, *_operands(launcher))
            position = read_program_position(command)
            assert position.program is None, command
            assert position.runs_shell, command
            assert position.refusal is not None
            assert position.refusal.kind == CONTROL
            assert position.refusal.runs_shell
            assert position.decline is None
            nested = plan_program(command).statements[0].plan.commands[0].nested
            assert [(n.status, [c.name for p in n.plans for c in p.commands]) for n in nested] == [
                ("measured", ["rm"])
            ], command


def test_undeclared_options_refuse_for_every_launcher() -> None:
    for name, launcher in LAUNCHERS.items():
        if launcher.always_refuse:
            continue
        undeclared = next(
            f"-{letter}"
            for letter in "ZQYXJKjz"
            if f"-{letter}" not in launcher.options and f"-{letter}" not in launcher.command_string
        )
        position = read_program_position(_command(name, undeclared, "ls"))
        assert position.refusal is not None, name
        assert (position.refusal.kind, position.refusal.option) == (OPTION, undeclared)
        assert position.decline == UNREADABLE
        assert position.program is None


# ───────────────────────── refusal and decline kinds ─────────────────────────

KINDS = [
    ("env -x ls", OPTION, False, UNREADABLE, "`env` is given the option `-x`"),
    ("sudo if true", CONTROL, False, UNREADABLE, "shell control word `if`"),
    ("watch 'ls | wc'", CONTROL, True, None, "hands `'ls | wc'` to a shell"),
    ("su -c ls", CONTROL, True, None, "hands `-c` to a shell"),
    ("parallel gzip ::: a", CONTROL, True, None, "hands `parallel` to a shell"),
    ("$CMD x", None, False, UNREADABLE, "is an expansion that is only known when it runs"),
    ("timeout", None, False, UNREADABLE, "missing an operand"),
    ("FOO=1", None, False, UNREADABLE, "only assignments"),
    ("xargs rm", None, False, STREAM, "takes its operands from standard input"),
    ("xargs", None, False, STREAM, "`xargs` runs `echo`"),
]


@pytest.mark.parametrize(
    ("command", "refusal", "runs_shell", "decline", "phrase"), KINDS, ids=[k[0] for k in KINDS]
)
def test_every_refusal_and_decline_is_one_sentence_with_the_same_suffix(
    command: str, refusal: str | None, runs_shell: bool, decline: str | None, phrase: str
) -> None:
    position = read_program_position(command)
    assert (None if position.refusal is None else position.refusal.kind) == refusal
    assert position.runs_shell == runs_shell
    assert position.decline == decline
    reason = position.reason
    assert reason is not None
    assert phrase in reason
    assert reason.endswith(" " + NOT_AUTO_ALLOWED)
    assert reason.count(NOT_AUTO_ALLOWED) == 1
    assert NOT_AUTO_ALLOWED == "— not auto-allowed."


def test_a_refusal_names_its_owner_and_the_offending_token() -> None:
    option = read_program_position("nohup sudo --bogus ls").refusal
    assert option is not None
    assert (option.owner, option.option, option.word) == ("sudo", "--bogus", None)
    control = read_program_position("env sudo { x").refusal
    assert control is not None
    assert (control.owner, control.option, control.word) == ("env", None, "{")


# ───────────────────────── nested shell text ─────────────────────────


def nested_of(source: str) -> tuple[NestedShell, ...]:
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    return plan.statements[0].plan.commands[0].nested


def inner_names(nested: NestedShell) -> list[str]:
    return [c.name for p in nested.plans for c in p.commands]


NESTED = [
    ("sh -c 'rm -rf x'", "sh -c", ["rm"]),
    ("bash -c 'ls | wc -l'", "bash -c", ["ls", "wc"]),
    ('bash -lc "make test"', "bash -c", ["make"]),
    ("zsh -c 'rm x'", "zsh -c", ["rm"]),
    ("dash -c rm", "dash -c", ["rm"]),
    ("sh -xc 'rm x'", "sh -c", ["rm"]),
    ("env -S 'rm -rf x'", "env -S", ["rm"]),
    ("env --split-string='rm x'", "env --split-string", ["rm"]),
    ("su -c 'rm x' root", "su -c", ["rm"]),
    ("su - postgres -c 'psql -c x'", "su -c", ["psql"]),
    ("runuser -u u -c 'rm x'", "runuser -c", ["rm"]),
    ("runuser -l nobody -c 'rm x'", "runuser -c", ["rm"]),
    ("watch -n1 'ls | wc -l'", "watch", ["ls", "wc"]),
    ("watch ls -l", "watch", ["ls"]),
    ("script -qc 'make test' /dev/null", "script -c", ["make"]),
    ("flock /tmp/l -c 'make'", "flock -c", ["make"]),
    ("ssh -p 22 host rm -rf /tmp/x", "ssh", ["rm"]),
    ("ssh -o StrictHostKeyChecking=no host 'sudo reboot'", "ssh", ["reboot"]),
    ("xargs sh -c 'rm $1' _", "sh -c", ["rm"]),
    ("sudo sh -c 'rm x'", "sh -c", ["rm"]),
    ("timeout 5 bash -c 'rm x'", "bash -c", ["rm"]),
    ("find . -name '*.pyc' -exec rm {} \\;", "find -exec", ["rm"]),
    ("find . -execdir rm {} +", "find -execdir", ["rm"]),
    ("find . -ok rm {} \\;", "find -ok", ["rm"]),
    ("find . -okdir rm {} +", "find -okdir", ["rm"]),
    # git's reader names the option or the alias that runs the text.
    ("git -c core.pager='less -R' log", "git -c", ["less"]),
    ("git -c alias.x='!rm -rf /' x", "git alias.x", ["rm"]),
    ("git -c core.sshCommand='ssh -i k' fetch", "git -c", ["ssh"]),
    ("eval 'ls; rm x'", "eval", ["ls", "rm"]),
]


@pytest.mark.parametrize(("source", "via", "names"), NESTED, ids=[n[0] for n in NESTED])
def test_literal_shell_text_is_planned_as_nested_statements(
    source: str, via: str, names: list[str]
) -> None:
    (nested,) = nested_of(source)
    assert (nested.via, nested.status, nested.reason) == (via, "measured", None)
    assert [
        c.position.program.basename for p in nested.plans for c in p.commands if c.position.program
    ] == names


def test_inner_positions_are_read_too() -> None:
    (nested,) = nested_of("sh -c 'sudo -u root rm -rf /srv'")
    (command,) = nested.plans[0].commands
    assert [s.basename for s in command.position.launchers] == ["sudo"]
    assert command.position.program is not None
    assert command.position.program.basename == "rm"


DYNAMIC = [
    ('sh -c "$CMD"', "sh -c"),
    ("eval $CMD", "eval"),
    ("bash script.sh", "bash"),
    ("bash", "bash"),
    (". ./env.sh", "."),
    ("source ./env.sh", "source"),
    ('env -S "$CMD"', "env -S"),
]


@pytest.mark.parametrize(("source", "via"), DYNAMIC, ids=[d[0] for d in DYNAMIC])
def test_shell_text_that_is_not_a_literal_is_dynamic(source: str, via: str) -> None:
    (nested,) = nested_of(source)
    assert (nested.via, nested.status, nested.text, nested.plans) == (via, "dynamic", None, ())
    assert nested.reason


def test_ssh_given_an_expansion_where_an_option_could_stand_is_not_read_at_all() -> None:
    """ssh's table cannot tell what ``"$CMD"`` is: nothing is planned, and it is opaque."""
    (command,) = plan_program('ssh host "$CMD"').statements[0].plan.commands
    assert command.nested == ()
    assert any(isinstance(e, Opaque) and "cannot be read" in e.reason for e in command.effects)


def test_find_exec_without_a_terminator_is_not_read_at_all() -> None:
    """find's reader cannot tell where the command ends: nothing is planned, and it is opaque."""
    plan = plan_program("find . -exec rm {}")
    (command,) = plan.statements[0].plan.commands
    assert command.nested == ()
    assert any(isinstance(e, Opaque) and "`-exec` has no `;`" in e.reason for e in command.effects)


def test_shell_text_the_readers_cannot_read_is_unmeasured_not_a_failed_plan() -> None:
    (nested,) = nested_of("sh -c 'echo \"unterminated'")
    assert nested.status == "unmeasured"
    assert nested.reason
    assert nested.plans == ()


def _nest(depth: int, inner: str = "rm -rf /tmp/x") -> str:
    text = inner
    for _ in range(depth):
        text = "sh -c " + shlex.quote(text)
    return text


def _descend(command: PlannedCommand) -> tuple[int, NestedShell | None, PlannedCommand]:
    """Follow the first nested shell down; return the depth reached, the last shell and command."""
    depth = 0
    while command.nested:
        nested = command.nested[0]
        if nested.status != "measured":
            return depth, nested, command
        command = nested.plans[0].commands[0]
        depth += 1
    return depth, None, command


@pytest.mark.parametrize("depth", range(1, MAX_NESTED_SHELL_DEPTH + 1))
def test_nested_shell_text_is_measured_down_to_the_depth_limit(depth: int) -> None:
    plan = plan_program(_nest(depth))
    reached, stopped, leaf = _descend(plan.statements[0].plan.commands[0])
    assert (reached, stopped, leaf.name) == (depth, None, "rm")


def test_nested_shell_text_past_the_depth_limit_is_unmeasured() -> None:
    assert MAX_NESTED_SHELL_DEPTH == 4
    plan = plan_program(_nest(MAX_NESTED_SHELL_DEPTH + 1))
    assert plan.status == "measured"
    reached, stopped, _ = _descend(plan.statements[0].plan.commands[0])
    assert reached == MAX_NESTED_SHELL_DEPTH
    assert stopped is not None
    assert stopped.status == "unmeasured"
    assert stopped.reason == "Shell text nests deeper than 4 levels."
    assert stopped.plans == ()


# ───────────────────────── sequence plans (§4) ─────────────────────────

UNMEASURED_SEQUENCES = [
    ("", "runs nothing"),
    ("cd a", "only changes directory"),
    ("cd a && cd b", "only changes directory"),
    ("make; make", "`;`"),
    ("make\nmake", "newlines"),
    ("make || make", "`||`"),
    ("make | cat", "Pipelines"),
    ("make &", "`&`"),
    ("make > out", "Redirects"),
    ("make 2>&1", "Redirects"),
    ("make < in", "Redirects"),
    ("A=1 make", "assignments"),
    ("if true; then make; fi", "Control flow"),
    ("{ make; }", "Control flow"),
    ("! make", "negated"),
    ("echo hi", "builtin `echo`"),
    ("exec make", "builtin `exec`"),
    (". env.sh", "builtin `.`"),
    ("true && make", "builtin `true`"),
    ("command make", "builtin `command`"),
    ('make "*"', "expansion or glob"),
    ("make '?'", "expansion or glob"),
    ("make '[a]'", "expansion or glob"),
    ("make '~'", "expansion or glob"),
    ('make "{a,b}"', "expansion or glob"),
    ("make '$x'", "expansion or glob"),
    ("make $(x)", "expansion or glob"),
    ("cd /tmp && make", "absolute path"),
    ("cd .. && make", "above the repository root"),
    ("cd a/../.. && make", "above the repository root"),
    ("cd && make", "one relative directory"),
    ("make && ( cd a && cd /b && make )", "absolute path"),
    ("make 'unterminated", "unterminated"),
]


@pytest.mark.parametrize(
    ("source", "phrase"), UNMEASURED_SEQUENCES, ids=[u[0] or "empty" for u in UNMEASURED_SEQUENCES]
)
def test_unmeasured_sequence_plans_have_no_steps(source: str, phrase: str) -> None:
    plan = command_sequence_plan(source)
    assert (plan.status, plan.steps) == ("unmeasured", ())
    assert plan.reason is not None
    assert phrase in plan.reason


def test_an_absolute_or_escaping_start_directory_is_unmeasured() -> None:
    for cwd in ("/abs", "sub/../.."):
        plan = command_sequence_plan("make", cwd)
        assert (plan.status, plan.steps) == ("unmeasured", ())


def test_more_than_128_steps_is_unmeasured() -> None:
    assert command_sequence_plan(" && ".join(["make"] * 128)).status == "measured"
    plan = command_sequence_plan(" && ".join(["make"] * 129))
    assert (plan.status, plan.steps) == ("unmeasured", ())


def test_a_source_over_the_size_limit_is_unmeasured() -> None:
    plan = command_sequence_plan("make " + "x" * 65_536)
    assert (plan.status, plan.steps) == ("unmeasured", ())


MEASURED_SEQUENCES = [
    ("pytest -k 'not soak'", "", [(("pytest", "-k", "not soak"), "")]),
    ("make 'a && b'", "", [(("make", "a && b"), "")]),
    ("m'a'ke test", "", [(("make", "test"), "")]),
    ("make\\ test", "", [(("make test",), "")]),
    ("make \\\n test", "", [(("make", "test"), "")]),
    ("cd a/../b && make", "", [(("make",), "b")]),
    ('cd "a b" && make', "", [(("make",), "a b")]),
    ("make && cd b && make", "", [(("make",), ""), (("make",), "b")]),
    ("cd a && cd a && make", "", [(("make",), "a/a")]),
    ("make", "a/./b/", [(("make",), "a/b")]),
    ("cd .. && make", "sub", [(("make",), "")]),
    (
        "(cd a && (cd b && make) && make) && make",
        "",
        [
            (("make",), "a/b"),
            (("make",), "a"),
            (("make",), ""),
        ],
    ),
]


@pytest.mark.parametrize(
    ("source", "cwd", "steps"), MEASURED_SEQUENCES, ids=[m[0] for m in MEASURED_SEQUENCES]
)
def test_measured_sequence_plans_list_literal_steps_and_directories(
    source: str, cwd: str, steps: list[tuple[tuple[str, ...], str]]
) -> None:
    plan = command_sequence_plan(source, cwd)
    assert plan.status == "measured", plan.reason
    assert plan.reason is None
    assert [(s.argv, s.cwd) for s in plan.steps] == steps


# ───────────────────────── a launcher's value that may vanish ─────────────────────────

SHIFTING_VALUES = [
    "sudo -u $U rm x",
    "env -u $V ls",
    "nice -n $N make",
    "timeout -s $S 5 ls",
    "env -u ${V:-} ls",
]
"""An unquoted expansion as a launcher option's value: empty, it vanishes and the words shift."""


@pytest.mark.parametrize("command", SHIFTING_VALUES)
def test_a_value_that_may_be_no_word_leaves_the_program_unread(command: str) -> None:
    position = read_program_position(command)
    assert position.program is None
    assert position.decline == UNREADABLE


@pytest.mark.parametrize(
    ("command", "program"),
    [('sudo -u "$U" rm x', "rm"), ('env -u "$V" ls', "ls"), ("nice -n ~ make", "make")],
)
def test_a_value_that_stays_one_word_is_the_options_value(command: str, program: str) -> None:
    position = read_program_position(command)
    assert position.program is not None
    assert position.program.basename == program


def test_bash_drops_an_empty_unquoted_value_so_the_program_becomes_the_value() -> None:
    """With ``$U`` empty, bash gives ``sudo`` the words ``-u rm x``: ``rm`` is the user, ``x`` runs."""
    run = bash.run('U=""; sudo -u $U rm x; sudo -u "$U" rm x', programs=("sudo",))
    assert run.status is not None
    assert run.logged == (("sudo", "-u", "rm", "x"), ("sudo", "-u", "", "rm", "x"))


@pytest.mark.corpus
def test_a_program_named_straight_is_read_as_the_position_reader_reads_it() -> None:
    """
    `direct_position`, the shortcut for a first word that names its program, says
    what `read_position` says over that command's words, on every simple command
    of the corpora that it takes.
    """
    taken = 0
    for name in ("agent", "nl2bash", "tldr"):
        for line in (CORPUS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            reading = read_shell(json.loads(line)["cmd"])
            if reading.program is None:
                continue
            for node in walk(reading.program):
                if not isinstance(node, SimpleCommand) or not node.words:
                    continue
                first = node.words[0]
                names = [a.name for a in node.assignments]
                direct = (
                    None if first.value is None else direct_position(first.value, first.text, names)
                )
                if direct is None:
                    continue
                taken += 1
                assert direct == read_position(position_words(node.words), names), node
    assert taken > 40_000


@pytest.mark.parametrize(
    "first", ["time", "!", "if", "then", "do", "{", "x=1", "a[0]=1", "sudo", "env", "xargs"]
)
def test_a_first_word_that_may_be_more_than_the_program_is_left_to_the_position_reader(
    first: str,
) -> None:
    """A control word, an assignment or a launcher is never read by the shortcut."""
    assert direct_position(first, first, []) is None
