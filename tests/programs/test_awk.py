"""
The awk reader: hostile programs and their harmless twins, proven against four real awks.

Each hostile row has a twin that looks alike and only reads. The proofs run
gawk, mawk, the one true awk and busybox awk confined
(`language_support.run_confined`): a command the reader says runs does run
(the ``marker`` stub records it), a file it says is written is written, a
file it says is read shows up in the output, and the twins do none of it.

Two generated-program properties hold the reader to the real programs: the
programs of a small awk grammar, run by each awk on one line of input, never
run a command or write a file the reader did not state; and gawk's own
parse of each (``--pretty-print``, which spells every redirection and
comparison out) reads to the same commands and files as the original.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gateway._programs._awk import read_awk
from programs.language_support import run_confined, steps, tool

Fact = tuple[str, str, str | None]


class Case(NamedTuple):
    args: list[str | None]
    facts: list[Fact]
    unreadable: str | None = None
    program: str = "awk"


F = ("read", "operand", "f")

HOSTILE: dict[str, Case] = {
    "system": Case(['{ system("marker s") }', "f"], [("execute", "system()", "marker s"), F]),
    "system-space-before-paren": Case(
        ['{ system ("marker s") }', "f"], [("execute", "system()", "marker s"), F]
    ),
    "system-backslash-newline-between-tokens": Case(
        ['BEGIN{system\\\n("marker s")}'], [("execute", "system()", "marker s")]
    ),
    "system-of-a-field": Case(["{ system($0) }", "f"], [("execute", "system()", None), F]),
    "system-of-a-concatenation": Case(
        ['{ system("marker " $1) }', "f"], [("execute", "system()", None), F]
    ),
    "system-in-condition": Case(
        ['NR == 1 && system("marker s") == 0', "f"], [("execute", "system()", "marker s"), F]
    ),
    "system-after-comment-ending-in-backslash": Case(
        ['# comment \\\nBEGIN { system("marker s") }'], [("execute", "system()", "marker s")]
    ),
    "system-with-escape-is-unknown": Case(
        ['BEGIN { system("marker a\\;marker b") }'], [("execute", "system()", None)]
    ),
    "print-to-command": Case(
        ['{ print "x" | "marker p" }', "f"], [("execute", "print |", "marker p"), F]
    ),
    "printf-to-command": Case(
        ['{ printf("%s", $0) | "marker p" }', "f"], [("execute", "print |", "marker p"), F]
    ),
    "command-into-getline": Case(
        ['BEGIN { "marker g" | getline x }'], [("execute", "| getline", "marker g")]
    ),
    "command-into-getline-in-while": Case(
        ['BEGIN { while (("marker g" | getline line) > 0) n++ }'],
        [("execute", "| getline", "marker g")],
    ),
    "concatenated-command-into-getline": Case(
        ['BEGIN { "marker " "g" | getline x }'], [("execute", "| getline", None)]
    ),
    "print-to-file": Case(['{ print $1 > "out" }', "f"], [("write", "print >", "out"), F]),
    "print-append-to-file": Case(['{ print >> "out" }', "f"], [("write", "print >>", "out"), F]),
    "print-comparison-is-a-redirection": Case(
        ["{ print 1 > 2 }", "f"], [("write", "print >", None), ("network", "print >", None), F]
    ),
    "print-list-continued-on-next-line": Case(
        ['{ print 1,\n 2 > "out" }', "f"], [("write", "print >", "out"), F]
    ),
    "print-to-concatenated-name": Case(
        ['{ print > "ou" "t" }', "f"], [("write", "print >", None), ("network", "print >", None), F]
    ),
    "print-to-field-name": Case(
        ['{ print > $1 ".txt" }', "f"],
        [("write", "print >", None), ("network", "print >", None), F],
    ),
    "getline-from-file": Case(
        ['BEGIN { getline line < "secret"; print line }'], [("read", "getline <", "secret")]
    ),
    "getline-into-field-from-file": Case(
        ['BEGIN { getline $2 < "secret"; print }'], [("read", "getline <", "secret")]
    ),
    "environ-one-variable": Case(
        ['BEGIN { print ENVIRON["SECRET"] }'], [("read_environment", "ENVIRON", "SECRET")]
    ),
    "environ-whole": Case(
        ['BEGIN { for (k in ENVIRON) print k "=" ENVIRON[k] }'],
        [("read_environment", "ENVIRON", None), ("read_environment", "ENVIRON", None)],
    ),
    "argv-changed": Case(
        ['BEGIN { ARGV[1] = "secret"; ARGC = 2 }'], [("read", "ARGV", None), ("read", "ARGC", None)]
    ),
    "regex-then-system": Case(
        ['/x/ { system("marker s") }', "f"], [("execute", "system()", "marker s"), F]
    ),
    "division-then-system": Case(
        ['{ a = $1 / 2; system("marker s") }', "f"], [("execute", "system()", "marker s"), F]
    ),
    "gawk-coprocess": Case(
        ['BEGIN { print "x" |& "marker c"; close("marker c") }'],
        [("execute", "print |&", "marker c")],
        program="gawk",
    ),
    "gawk-network-coprocess": Case(
        ['BEGIN { "/inet/tcp/0/example.com/80" |& getline }'],
        [("network", "|& getline", "example.com:80")],
        program="gawk",
    ),
    "gawk-network-listen": Case(
        ['BEGIN { print |& "/inet/tcp/8080/0/0" }'],
        [("network", "print |&", "port 8080")],
        program="gawk",
    ),
    "gawk-indirect-call": Case(
        ['BEGIN { f = "system"; @f("marker i") }'],
        [("execute", "@indirect call", None)],
        program="gawk",
    ),
    "gawk-include": Case(
        ['@include "lib"\nBEGIN { }'], [("read", "@include", "lib")], "includes", program="gawk"
    ),
    "gawk-load": Case(
        ['@load "filefuncs"\nBEGIN { }'],
        [("execute", "@load", "filefuncs")],
        "loads",
        program="gawk",
    ),
    "gawk-inplace": Case(
        ["-i", "inplace", "{ print }", "f"],
        [("read", "-i", "inplace"), F, ("write", "inplace", "f")],
        "includes",
        program="gawk",
    ),
    "gawk-load-option": Case(
        ["-l", "ext", "BEGIN { }"], [("execute", "-l", "ext")], "library", program="gawk"
    ),
    "gawk-dump-variables": Case(
        ["-d", "BEGIN { }"], [("write", "-d", "awkvars.out")], program="gawk"
    ),
    "gawk-profile-to-file": Case(
        ["--profile=prof", "BEGIN { }"], [("write", "--profile", "prof")], program="gawk"
    ),
    "gawk-w-dump-is-dump-variables": Case(
        ["-W", "dump", "BEGIN { }"], [("write", "-W dump", "awkvars.out")]
    ),
    "program-file": Case(["-f", "prog.awk", "f"], [("read", "-f", "prog.awk"), F], "from a file"),
    "mawk-w-exec": Case(
        ["-W", "exec", "prog.awk", "f"],
        [("read", "-W exec", "prog.awk"), F],
        "from a file",
        program="mawk",
    ),
    "gawk-exec": Case(
        ["-E", "prog.awk", "f"], [("read", "-E", "prog.awk"), F], "from a file", program="gawk"
    ),
    "gawk-debugger": Case(["-D", "BEGIN { }"], [], "debugger", program="gawk"),
    "program-expands": Case([None, "f"], [], "expands"),
    "division-after-increment": Case(["{ x++ / 2 }", "f"], [F], "split differently"),
    "slash-in-bracket-of-regex": Case(["/[/]/ { print }", "f"], [F], "bracket"),
    "slash-in-class-in-bracket": Case(["/[[:alpha:]/]/ { print }", "f"], [F], "bracket"),
    "stray-bar": Case(["{ x = 1 | 2 }", "f"], [F], "neither output"),
    "unclosed-string": Case(['BEGIN { print "x }'], [], "not closed"),
    "unbalanced-brace": Case(["BEGIN { print", "f"], [F], "never closed"),
    "ampersand": Case(["BEGIN { x = 1 & 2 }"], [], "character"),
    "unknown-option": Case(["--frobnicate", "BEGIN { }"], [], None),
}

HARMLESS: dict[str, Case] = {
    "backslash-newline-splits-a-name": Case(['BEGIN { sys\\\ntem("marker s") }'], []),
    "print-field": Case(["{ print $1 }", "f"], [F]),
    "sum-column": Case(["NR > 1 { s += $5 } END { print s }", "f"], [F]),
    "string-spells-system": Case(['{ print "system(\\"marker s\\")" }', "f"], [F]),
    "variable-named-like-system": Case(["{ systems = 1; print systems }", "f"], [F]),
    "regex-holds-bar-and-angle": Case(["/a|b>c/ { print }", "f"], [F]),
    "parenthesised-comparison": Case(["{ print ($1 > 2) }", "f"], [F]),
    "comparison-outside-print": Case(['$1 > 2 { print "big" }', "f"], [F]),
    "string-holds-redirection": Case(['{ print "a > out" }', "f"], [F]),
    "print-to-stderr": Case(['{ print "x" > "/dev/stderr" }', "f"], [F]),
    "getline-from-input": Case(["{ getline; print }", "f"], [F]),
    "getline-from-stdin": Case(['BEGIN { getline line < "-" }'], []),
    "field-separator-and-assignment": Case(
        ["-F:", "-v", "OFS=,", "{ $1 = $1; print }", "f", "x=1"], [F]
    ),
    "comment-spells-system": Case(['{ print } # system("marker s")', "f"], [F]),
    "division-chain": Case(["{ print $1 / 2 / 3 }", "f"], [F]),
    "regex-argument": Case(["{ n = split($0, a, /,/); print n }", "f"], [F]),
    "regex-with-slash-escaped": Case(["/a\\/b/ { print }", "f"], [F]),
    "bracket-without-slash": Case(["/[a-z]+[[:digit:]]/ { print }", "f"], [F]),
    "printf-format": Case(['{ printf "%s %d\\n", $1, NF }', "f"], [F]),
    "ternary-in-parens": Case(['{ print (NF > 2 ? "many" : "few") }', "f"], [F]),
    "length-divided": Case(["{ print length / 2 }", "f"], [F]),
    "gawk-namespace": Case(['@namespace "x"\nBEGIN { print 1 }'], [], program="gawk"),
    "gawk-typed-regex": Case(['BEGIN { r = @/a+/; print "a" ~ r }'], [], program="gawk"),
    "version": Case(["--version"], [], program="gawk"),
    "mawk-version": Case(["-W", "version"], [], program="mawk"),
    "one-true-awk-safe": Case(["-safe", "{ print }", "f"], [F], program="original-awk"),
    "stdin-operand": Case(["{ print }", "-"], []),
}


def _reading_facts(case: Case) -> list[Fact]:
    return [(fact.kind, fact.via, fact.value) for fact in read_awk(case.program, case.args).facts]


@pytest.mark.parametrize("case", HOSTILE.values(), ids=HOSTILE.keys())
def test_states_what_a_hostile_program_does(case: Case) -> None:
    reading = read_awk(case.program, case.args)
    assert [(fact.kind, fact.via, fact.value) for fact in reading.facts] == case.facts
    if case.unreadable is None:
        assert reading.unreadable is None or reading.undeclared is not None
    else:
        assert reading.unreadable is not None
        assert case.unreadable in reading.unreadable


@pytest.mark.parametrize("case", HARMLESS.values(), ids=HARMLESS.keys())
def test_states_only_reads_for_a_harmless_twin(case: Case) -> None:
    reading = read_awk(case.program, case.args)
    assert reading.unreadable is None
    assert reading.undeclared is None
    assert [(fact.kind, fact.via, fact.value) for fact in reading.facts] == case.facts


def test_an_option_no_awk_has_is_undeclared() -> None:
    assert read_awk("awk", ["--frobnicate", "{ print }"]).undeclared == "--frobnicate"
    assert read_awk("mawk", ["-l", "x", "{ print }"]).undeclared == "-l"


def test_gawk_options_read_by_any_awk_name() -> None:
    """``awk`` may be gawk: its code-loading options count under every name that may be gawk."""
    for name in ("awk", "nawk", "gawk"):
        reading = read_awk(name, ["-l", "ext", "BEGIN { }"])
        assert [(fact.kind, fact.value) for fact in reading.facts] == [("execute", "ext")]


# --- proofs against the real awks ---------------------------------------------


@pytest.fixture(scope="module")
def busybox_awk() -> Iterator[str]:
    """
    busybox awk under the name ``awk`` (busybox picks the applet by the name it is run as).

    A copy, not a link: the test guard resolves what a test deletes, and a
    link to /usr/bin would resolve outside the temporary directories.
    """
    with tempfile.TemporaryDirectory(prefix="gateway-busybox-") as directory:
        yield _busybox_as_awk(Path(directory))


def _busybox_as_awk(directory: Path) -> str:
    copy = directory / "awk"
    shutil.copy(tool("busybox"), copy)
    return str(copy)


AWKS = ["gawk", "mawk", "original-awk", "busybox"]
INPUT = {"f": "x y\n", "secret": "s3cr3t\n"}


def _awk_path(name: str, busybox_awk: str) -> str:
    return busybox_awk if name == "busybox" else tool(name)


def _inside(path: str | None) -> bool:
    return path is None or (not path.startswith(("/", "~")) and ".." not in path.split("/"))


def _prove(case: Case, awk: str) -> None:
    reading = read_awk(case.program, case.args)
    written = {fact.value for fact in reading.facts if fact.kind == "write"}
    assert all(_inside(value) for value in written), "a proof never writes outside its directory"
    args = [arg for arg in case.args if arg is not None]
    outcome = run_confined([awk, *args], files=INPUT, environment={"SECRET": "s3cr3t"}, timeout=20)
    commands = {fact.value for fact in reading.facts if fact.kind == "execute"}
    if not commands:
        assert outcome.markers == (), outcome.markers
    elif None not in commands:
        assert set(outcome.markers) == {
            f"marker {command.removeprefix('marker ')}" for command in commands if command
        }
    touched = outcome.created | outcome.changed
    if None not in written:
        assert touched == written, outcome.stderr
    reads_secret = any(
        fact.value in (None, "secret", "SECRET")
        for fact in reading.facts
        if fact.kind in ("read", "read_environment") and fact.via != "operand"
    )
    if not reads_secret:
        assert "s3cr3t" not in outcome.stdout
    elif None not in {
        fact.value for fact in reading.facts if fact.kind in ("read", "read_environment")
    }:
        assert "s3cr3t" in outcome.stdout


PORTABLE = {
    name: case
    for name, case in {**HOSTILE, **HARMLESS}.items()
    if case.program == "awk"
    and case.unreadable is None
    and None not in case.args
    and not str(case.args[0]).startswith(("-W", "--frobnicate"))
}


@pytest.mark.parametrize("awk", AWKS)
@pytest.mark.parametrize("case", PORTABLE.values(), ids=PORTABLE.keys())
def test_every_awk_does_what_the_reading_states(case: Case, awk: str, busybox_awk: str) -> None:
    _prove(case, _awk_path(awk, busybox_awk))


GAWK_ONLY = {
    name: case
    for name, case in {**HOSTILE, **HARMLESS}.items()
    if case.program == "gawk" and case.unreadable is None and "/inet" not in (case.args[0] or "")
}


@pytest.mark.parametrize("case", GAWK_ONLY.values(), ids=GAWK_ONLY.keys())
def test_gawk_does_what_the_reading_states(case: Case) -> None:
    _prove(case, tool("gawk"))


def test_gawk_inplace_rewrites_the_operand() -> None:
    outcome = run_confined(["gawk", "-i", "inplace", '{ print "changed" }', "f"], files=INPUT)
    assert outcome.changed == {"f"}


def test_gawk_program_file_from_the_working_directory_runs() -> None:
    """``-i NAME`` finds NAME.awk in the working directory first: code the call does not show."""
    outcome = run_confined(
        ["gawk", "-i", "lib", "BEGIN { }"],
        files={"lib.awk": 'BEGIN { system("marker included") }\n'},
    )
    assert outcome.markers == ("marker included",)
    assert read_awk("gawk", ["-i", "lib", "BEGIN { }"]).unreadable is not None


def test_mawk_splits_a_slash_after_increment_as_a_regex() -> None:
    """Why `x++ / 2` is unreadable: mawk reads a regular expression where gawk divides."""
    mawk = run_confined(["mawk", "BEGIN { x = 1; print x++ / 1 / 1 }"])
    gawk = run_confined(["gawk", "BEGIN { x = 1; print x++ / 1 / 1 }"])
    assert mawk.stdout != gawk.stdout


def test_busybox_ends_a_regex_at_a_slash_in_brackets(busybox_awk: str) -> None:
    """Why `/[/]/` is unreadable: busybox ends the literal where gawk reads on."""
    busybox = run_confined([busybox_awk, '/[/]/ { print "matched" }', "f"], files={"f": "a/b\n"})
    gawk = run_confined(["gawk", '/[/]/ { print "matched" }', "f"], files={"f": "a/b\n"})
    assert gawk.stdout == "matched\n"
    assert busybox.stdout != gawk.stdout


# --- generated programs -------------------------------------------------------

SAFE_STRINGS = st.sampled_from(
    ['"marker a"', '"marker b"', '"out1"', '"out2"', '"secret"', '"x"', '"SECRET"', '"-"']
)
ATOMS = st.one_of(
    SAFE_STRINGS,
    st.sampled_from(
        ["x", "$1", "$0", "NF", "1", "2", "a[1]", "length", "(x > 1)", "/re/", 'ENVIRON["SECRET"]']
    ),
)


def _expressions() -> st.SearchStrategy[str]:
    return st.recursive(
        ATOMS,
        lambda inner: st.one_of(
            st.tuples(
                inner,
                st.sampled_from([" + ", " - ", " * ", " / ", " ", " == ", " && ", " ~ ", " < "]),
                inner,
            ).map("".join),
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"system({e})"),
            st.tuples(inner).map(lambda e: f"substr({e[0]}, 1, 2)"),
            SAFE_STRINGS.map(lambda s: f"({s} | getline y)"),
            SAFE_STRINGS.map(lambda s: f"(getline y < {s})"),
        ),
        max_leaves=4,
    )


EXPRESSIONS = _expressions()
STATEMENTS = st.one_of(
    EXPRESSIONS.map(lambda e: f"print {e}"),
    st.tuples(EXPRESSIONS, st.sampled_from([">", ">>", "|"]), EXPRESSIONS).map(
        lambda t: f"print {t[0]} {t[1]} {t[2]}"
    ),
    st.tuples(EXPRESSIONS, EXPRESSIONS).map(lambda t: f'printf "%s", {t[0]} > {t[1]}'),
    EXPRESSIONS.map(lambda e: f"x = {e}"),
    EXPRESSIONS.map(lambda e: f"system({e})"),
    st.tuples(EXPRESSIONS, SAFE_STRINGS).map(lambda t: f"{t[1]} | getline y"),
    st.tuples(EXPRESSIONS, EXPRESSIONS).map(lambda t: f"if ({t[0]}) print {t[1]}"),
)
SEPARATORS = st.sampled_from(["; ", "\n", ";\n", " \\\n; ", "; # c\n"])
PROGRAMS = st.tuples(
    st.sampled_from(["BEGIN", "", "NR == 1", "/x/"]),
    st.lists(st.tuples(STATEMENTS, SEPARATORS), min_size=1, max_size=3),
).map(lambda t: t[0] + " { " + "".join(s + sep for s, sep in t[1]) + "}")

GENERATED_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@GENERATED_SETTINGS
@given(PROGRAMS, st.sampled_from(AWKS))
def test_a_generated_program_does_nothing_the_reading_does_not_state(
    program: str, awk: str
) -> None:
    """Run by a real awk on one line, a program runs no command and writes no file the reader did not state."""
    reading = read_awk("awk", [program, "f"])
    if reading.unreadable is not None:
        return
    with tempfile.TemporaryDirectory(prefix="gateway-busybox-") as directory:
        runs = _busybox_as_awk(Path(directory)) if awk == "busybox" else awk
        outcome = run_confined([runs, program, "f"], files=INPUT, timeout=20)
    executes = [fact for fact in reading.facts if fact.kind == "execute"]
    if not executes:
        assert outcome.markers == (), (program, outcome.markers)
    stated = {fact.value for fact in executes}
    if None not in stated:
        assert set(outcome.markers) <= {str(value) for value in stated}, program
    writes = {fact.value for fact in reading.facts if fact.kind == "write"}
    if None not in writes:
        assert outcome.created | outcome.changed <= writes, program


def _effect_counts(program: str) -> Counter[tuple[str, str]]:
    reading = read_awk("gawk", [program])
    assert reading.unreadable is None, (program, reading.unreadable)
    return Counter((fact.kind, fact.via) for fact in reading.facts if fact.kind != "network")


@GENERATED_SETTINGS
@given(PROGRAMS)
def test_gawk_pretty_print_reads_the_same(program: str) -> None:
    """gawk's own parse, spelled out with parentheses, has the same commands, files and reads."""
    reading = read_awk("gawk", [program])
    if reading.unreadable is not None:
        return
    printed = run_confined(["gawk", "--pretty-print=/dev/stdout", program])
    if printed.returncode != 0:
        return
    assert _effect_counts(printed.stdout) == _effect_counts(program), (program, printed.stdout)
    canonical = {(f.kind, f.via, f.value) for f in read_awk("gawk", [printed.stdout]).facts}
    for fact in reading.facts:
        if fact.value is not None and fact.kind != "network":
            assert (fact.kind, fact.via, fact.value) in canonical, (program, printed.stdout)


# --- tokenizer properties -----------------------------------------------------

AWK_ALPHABET = 'abegilmnoprstyBEGIN{}()[]$"\\/|&<>=!~+-*%^?:,;#@ \n\t.0123456789_'


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet=AWK_ALPHABET, max_size=60),
    st.sampled_from(["awk", "gawk", "mawk", "original-awk", "nawk"]),
)
def test_never_raises_on_any_program(program: str, name: str) -> None:
    read_awk(name, [program, "f"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(max_size=12), max_size=6),
    st.sampled_from(["awk", "gawk", "mawk", "original-awk"]),
)
def test_never_raises_on_any_command_line(args: list[str], name: str) -> None:
    read_awk(name, args)


def test_work_grows_linearly_with_the_program() -> None:
    """Lines of the reader run stay bounded per character as hostile programs double in size."""
    shapes = [
        "{ getline a[ ",
        '"x" | getline; ',
        'print ((((x > 1)))) > "o"; ',
        "/[[:a:]]x/ ~ $1; ",
        "@f(1); ",
        "$$$$$$x = 1; ",
        "a = b / c / d; ",
        "# comment \\\n",
        "\\\n",
    ]
    for shape in shapes:
        small, large = shape * 150, shape * 300
        _, small_steps = steps(read_awk, "gawk", [small])
        _, large_steps = steps(read_awk, "gawk", [large])
        assert large_steps <= 2.2 * small_steps + 200, shape
        assert large_steps <= 60 * len(large) + 400, shape


def test_proofs_leave_nothing_behind() -> None:
    """The confined runs write only inside their temporary directories (a canary in the real one)."""
    outcome = run_confined(["gawk", 'BEGIN { print "x" > "canary" }'])
    assert outcome.created == {"canary"}
    assert not os.path.exists("canary")
