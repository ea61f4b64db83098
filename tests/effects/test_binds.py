"""
Every way a variable, a shell option, a trap, an alias or a function gets set, as effects.

Each row is planned, and run with bash 5.2, confined, with a probe after it
that prints what bash then holds: the plan's ``Bind`` effects name exactly
what bash set, in order, with where the value came from.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from effects.support import effects_of, in_bash, only
from gateway.effects import Bind, Execute, Opaque, Write

ON = "case $- in *%s*) echo 1;; esac"
"""A probe that prints 1 when a one-letter shell option is on."""


class Row(NamedTuple):
    id: str
    source: str
    binds: list[tuple[str | None, str, str]]
    """``(name, via, origin)`` of each ``Bind``, in order."""
    probe: str
    """Shell text run after the source; prints what bash holds."""
    output: str


ROWS = [
    Row("assignment", "x=1", [("x", "assignment", "literal")], 'echo "$x"', "1"),
    Row(
        "assignment-from-substitution",
        "x=$(echo hi)",
        [("x", "assignment", "unknown")],
        'echo "$x"',
        "hi",
    ),
    Row(
        "assignment-from-a-bound-variable",
        "a=1; b=$a",
        [("a", "assignment", "literal"), ("b", "assignment", "call_bound")],
        'echo "$b"',
        "1",
    ),
    Row(
        "append",
        "x=a; x+=b",
        [("x", "assignment", "literal"), ("x", "assignment", "call_bound")],
        'echo "$x"',
        "ab",
    ),
    Row("prefix-does-not-stay", "x=1 true", [("x", "prefix", "literal")], 'echo "[$x]"', "[]"),
    Row("export", "export X=1", [("X", "export", "literal")], 'echo "$X"', "1"),
    Row(
        "export-with-expansion",
        "export P=$HOME/bin",
        [("P", "export", "call_bound")],
        'echo "${P##*/}"',
        "bin",
    ),
    Row("declare", "declare y=2", [("y", "declare", "literal")], 'echo "$y"', "2"),
    Row("typeset", "typeset y=2", [("y", "declare", "literal")], 'echo "$y"', "2"),
    Row("declare-integer", "declare -i n=1+2", [("n", "declare", "literal")], 'echo "$n"', "3"),
    Row(
        "local",
        "f() { local z=3; echo $z; }; f",
        [("f", "function", "literal"), ("z", "local", "literal")],
        "",
        "3",
    ),
    Row("readonly", "readonly r=4", [("r", "readonly", "literal")], 'echo "$r"', "4"),
    Row(
        "read",
        "read -r a b <<< 'x y'",
        [("a", "read", "unknown"), ("b", "read", "unknown")],
        'echo "$a-$b"',
        "x-y",
    ),
    Row("read-reply", "read <<< word", [("REPLY", "read", "unknown")], 'echo "$REPLY"', "word"),
    Row(
        "read-array",
        "read -ra parts <<< 'p q'",
        [("parts", "read", "unknown")],
        'echo "${parts[1]}"',
        "q",
    ),
    Row(
        "mapfile",
        "mapfile -t lines <<< one",
        [("lines", "mapfile", "unknown")],
        'echo "${lines[0]}"',
        "one",
    ),
    Row(
        "readarray",
        "readarray rows <<< one",
        [("rows", "mapfile", "unknown")],
        'echo -n "${rows[0]}"',
        "one",
    ),
    Row(
        "mapfile-default",
        "mapfile <<< one",
        [("MAPFILE", "mapfile", "unknown")],
        'echo -n "${MAPFILE[0]}"',
        "one",
    ),
    Row("printf-v", "printf -v out %s hi", [("out", "printf", "unknown")], 'echo "$out"', "hi"),
    Row(
        "printf-v-fused", "printf -vout %s hi", [("out", "printf", "unknown")], 'echo "$out"', "hi"
    ),
    Row(
        # bash binds the last `-v`; the plan states every one it may bind.
        "printf-v-twice",
        "printf -v x -v y %s hi",
        [("x", "printf", "unknown"), ("y", "printf", "unknown")],
        'echo "$y"',
        "hi",
    ),
    Row(
        "printf-v-fused-expanding",
        'n=out; printf -v"$n" %s hi',
        [("n", "assignment", "literal"), (None, "printf", "unknown")],
        'echo "$out"',
        "hi",
    ),
    Row(
        "printf-v-through-an-argument",
        'o=-v; printf "$o" out %s hi',
        [("o", "assignment", "literal"), (None, "printf", "unknown")],
        'echo "$out"',
        "hi",
    ),
    Row("default-assigns", ": ${V:=val}", [("V", "default", "literal")], 'echo "$V"', "val"),
    Row(
        "default-assigns-unset-only",
        ": ${W=val}",
        [("W", "default", "literal")],
        'echo "$W"',
        "val",
    ),
    Row(
        "default-of-a-set-variable-assigns-nothing",
        "V=x; : ${V:=val}",
        [("V", "assignment", "literal")],
        'echo "$V"',
        "x",
    ),
    Row(
        "unset",
        "x=1; unset x",
        [("x", "assignment", "literal"), ("x", "unset", "literal")],
        'echo "[${x-unset}]"',
        "[unset]",
    ),
    Row("set-allexport", "set -a", [("allexport", "set", "literal")], ON % "a", "1"),
    Row(
        "set-o-allexport",
        "set -o allexport",
        [("allexport", "set", "literal")],
        "shopt -po allexport",
        "set -o allexport",
    ),
    Row(
        # `-o` before a word that looks like an option lists the options, and
        # bash reads that word as options: xtrace is on, no option "-x" is set.
        "set-o-then-an-option",
        "set -o -x >/dev/null",
        [("xtrace", "set", "literal")],
        ON % "x",
        "1",
    ),
    Row(
        # `-o` with no word after it lists the options; the cluster goes on.
        "set-o-then-letters",
        "set -oe >/dev/null",
        [("errexit", "set", "literal")],
        ON % "e",
        "1",
    ),
    Row(
        "set-letters-then-o",
        "set -eo pipefail",
        [("errexit", "set", "literal"), ("pipefail", "set", "literal")],
        "shopt -po pipefail",
        "set -o pipefail",
    ),
    Row("set-keyword", "set -k", [("keyword", "set", "literal")], ON % "k", "1"),
    Row(
        "set-o-keyword",
        "set -o keyword",
        [("keyword", "set", "literal")],
        "shopt -po keyword",
        "set -o keyword",
    ),
    Row(
        "xtrace-with-ps4",
        "PS4='+ '; set -x",
        [("PS4", "assignment", "literal"), ("xtrace", "set", "literal")],
        ON % "x",
        "1",
    ),
    Row("positional", "set -- a b", [("@", "set", "literal")], 'echo "$2"', "b"),
    Row(
        "shopt",
        "shopt -s extglob",
        [("extglob", "shopt", "literal")],
        "shopt extglob",
        "extglob        \ton",
    ),
    Row(
        "trap",
        "trap 'echo bye' EXIT",
        [("EXIT", "trap", "literal")],
        "trap -p EXIT",
        "trap -- 'echo bye' EXIT\nbye",
    ),
    Row("alias", "alias ll='ls -l'", [("ll", "alias", "literal")], "alias ll", "alias ll='ls -l'"),
    Row(
        "function-shadowing-a-program",
        "ls() { echo shadowed; }; ls",
        [("ls", "function", "literal")],
        "",
        "shadowed",
    ),
    Row(
        "getopts",
        "set -- -a; getopts a opt",
        [
            ("@", "set", "literal"),
            ("opt", "getopts", "literal"),
            ("OPTARG", "getopts", "unknown"),
            ("OPTIND", "getopts", "literal"),
        ],
        'echo "$opt"',
        "a",
    ),
    Row("for", "for i in 1 2; do :; done", [("i", "for", "literal")], 'echo "$i"', "2"),
    Row("arithmetic", "(( n = 2 ))", [("n", "arithmetic", "literal")], 'echo "$n"', "2"),
    Row("let", "let m=3", [("m", "arithmetic", "literal")], 'echo "$m"', "3"),
    Row(
        "nameref",
        "declare -n ref=TARGET; ref=7",
        [
            ("ref", "declare", "literal"),
            ("ref", "assignment", "literal"),
            ("TARGET", "assignment", "literal"),
        ],
        'echo "$TARGET"',
        "7",
    ),
    Row(
        # bash unbinds the nameref itself: NAME becomes a plain variable, and
        # what it named is left alone (a later NAME=… binds NAME only).
        "wait-p-replaces-a-nameref",
        "declare -n ref=TARGET; sleep 0 & wait -n -p ref; ref=7",
        [
            ("ref", "declare", "literal"),
            ("ref", "wait", "unknown"),
            ("ref", "assignment", "literal"),
        ],
        'echo "${TARGET-unset} $ref"',
        "unset 7",
    ),
    Row(
        "printf-v-through-a-nameref",
        "declare -n ref=TARGET; printf -v ref %s hi",
        [
            ("ref", "declare", "literal"),
            ("ref", "printf", "unknown"),
            ("TARGET", "printf", "unknown"),
        ],
        'echo "$TARGET"',
        "hi",
    ),
    Row("hash", "hash -p /bin/echo greet", [("greet", "hash", "literal")], "greet hi", "hi"),
    Row("umask", "umask 077", [("umask", "umask", "literal")], "umask", "0077"),
]


def _binds(source: str) -> list[tuple[str | None, str, str]]:
    return [(b.name, b.via, b.origin) for b in only(effects_of(source), Bind)]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_a_bind_form_binds_what_bash_binds(row: Row) -> None:
    assert _binds(row.source) == row.binds
    run = in_bash(f"{row.source}\n{row.probe}" if row.probe else row.source)
    assert run.stdout.decode().strip() == row.output, run.stderr


def test_bound_text_is_given_when_it_is_written_in_the_call() -> None:
    by_name = {b.name: b for b in only(effects_of("trap 'rm -f /tmp/x' EXIT; alias g='git'"), Bind)}
    assert by_name["EXIT"].text == "rm -f /tmp/x"
    assert by_name["g"].text == "git"


def test_a_name_only_known_at_run_time_binds_a_name_only_known_at_run_time() -> None:
    for source in ('export "$v"=1', "declare $v", 'read -r "$v"', "unset $v", "set $v"):
        names = [b.name for b in only(effects_of(source), Bind)]
        assert None in names, source


def test_set_k_makes_later_assignment_words_the_environment_of_the_command() -> None:
    """``set -k``: ``env A=1`` no longer passes ``A=1`` as an argument; the bind says the option is on."""
    assert in_bash("env A=1").logged == (("env", "A=1"),)
    assert in_bash("set -k; env A=1").logged == (("env",),)
    assert ("keyword", "set", "literal") in _binds("set -k; env A=1")


STARTED = [
    # (a shell started with options, the same options set in its text)
    ("bash -k -c :", "set -k"),
    ("bash -kc :", "set -k"),
    ("bash -xk -c :", "set -xk"),
    ("bash -o keyword -c :", "set -o keyword"),
    ("bash -eo pipefail -c :", "set -eo pipefail"),
    ("bash +o braceexpand -c :", "set +o braceexpand"),
    ("bash -P -c :", "set -P"),
    ("bash --posix -c :", "set -o posix"),
    ("bash -O cdable_vars -c :", "shopt -s cdable_vars"),
    ("bash +O dotglob -c :", "shopt -u dotglob"),
    ("bash -lc :", ":"),
    ("sh -e -c :", "set -e"),
]


def _bound(source: str) -> list[tuple[str | None, str, str | None]]:
    return [(b.name, b.via, b.text) for b in only(effects_of(source), Bind)]


@pytest.mark.parametrize(("started", "inside"), STARTED, ids=[s for s, _ in STARTED])
def test_a_shell_started_with_options_binds_what_set_and_shopt_bind(
    started: str, inside: str
) -> None:
    """``bash -k -c TEXT`` sets what ``set -k`` sets, so one rule judges both."""
    assert _bound(started) == _bound(inside)


def test_a_shell_takes_its_start_options_as_set_and_shopt_do() -> None:
    """bash at start: ``-k`` makes later assignment words the environment; ``-eo`` and ``-O`` take the next word."""
    run = in_bash(
        "/bin/bash -k -c 'env A=1'; /bin/bash -eo pipefail -c 'shopt -po pipefail'; "
        "/bin/bash -O cdable_vars -c 'shopt -p cdable_vars'"
    )
    assert run.logged == (("env",),)
    assert run.stdout.decode().split("\n")[:2] == ["set -o pipefail", "shopt -s cdable_vars"]


def test_a_shell_started_with_an_option_the_plan_does_not_follow_names_it() -> None:
    for source, option in (
        ("bash -i -c ls", "`bash -i`"),
        ("bash --debugger -c ls", "`bash --debugger`"),
    ):
        (reason,) = [e.reason for e in only(effects_of(source), Opaque)]
        assert option in reason, reason


def test_a_trap_or_an_alias_is_shell_text_planned_in_turn() -> None:
    effects = effects_of("trap 'curl -s x | sh' EXIT")
    trap = [e for e in only(effects, Execute) if e.via == "trap"]
    assert [(e.kind, e.text) for e in trap] == [("shell_text", "curl -s x | sh")]
    inner = [e for e in only(effects, Execute) if e.via == "sh"]  # the shell the text pipes into
    assert [(e.kind, e.origin) for e in inner] == [("shell_text", "unknown")]


def test_select_binds_reply_and_its_variable_to_a_word_or_the_empty_string() -> None:
    """bash binds the variable to the chosen word, or to ``""`` when the line chose none."""
    source = 'select v in /srv/x; do rm -rf "/$v"; break; done'
    assert _binds(source) == [("REPLY", "select", "unknown"), ("v", "select", "literal")]
    run = in_bash('select v in a; do echo "[$v] $REPLY"; break; done', stdin="7\n")
    assert run.stdout.decode().strip() == "[] 7"
    # `rm -rf "/$v"` removes `/srv/x` or, on a line that chose no word, `/`.
    assert sorted(w.path.value or "" for w in only(effects_of(source), Write)) == ["/", "/srv/x"]
