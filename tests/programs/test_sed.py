"""
The sed reader: hostile scripts and their harmless twins, proven against GNU sed where safe.

Each hostile row has a twin that looks alike and does nothing but read. The
proof runs the real GNU sed on a one-line input in a confined directory
(`language_support.run_confined`): a command the reader says runs does run
(the ``marker`` stub records it), a file it says is written is written, and
the twin does neither. A generated-script property holds the reader to GNU
sed's own compiler: a script sed compiles without ``--sandbox`` but refuses
with it (which forbids ``e``, ``r``, ``w``) is exactly one the reader states
a fact for, and the files sed creates are the ones the reader says it writes.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gateway._programs._sed import read_sed
from programs.language_support import run_confined, steps, tool

Fact = tuple[str, str, str | None]


class Case(NamedTuple):
    args: list[str | None]
    facts: list[Fact]
    unreadable: str | None = None


INPUT = {"f": "x\ny\n", "bak/.keep": "", "dev/.keep": ""}

HOSTILE: dict[str, Case] = {
    "e-command": Case(
        ["1e marker e", "f"], [("execute", "e", "marker e"), ("read", "operand", "f")]
    ),
    "e-after-negated-last-line-address": Case(
        ["$!e marker e", "f"], [("execute", "e", "marker e"), ("read", "operand", "f")]
    ),
    "e-after-step-address": Case(
        ["0~1 e marker e", "f"], [("execute", "e", "marker e"), ("read", "operand", "f")]
    ),
    "e-after-custom-delimiter-address": Case(
        [r"\,x,e marker e", "f"], [("execute", "e", "marker e"), ("read", "operand", "f")]
    ),
    "e-in-block": Case(
        ["1{e marker e\n}", "f"], [("execute", "e", "marker e"), ("read", "operand", "f")]
    ),
    "e-runs-pattern-space": Case(
        ["s/x/marker pattern/;e", "f"], [("execute", "e", None), ("read", "operand", "f")]
    ),
    "s-e-flag": Case(
        ["s/^x$/marker se/e", "f"], [("execute", "s///e", None), ("read", "operand", "f")]
    ),
    "s-e-flag-after-g": Case(
        ["s/^x$/marker se/ge", "f"], [("execute", "s///e", None), ("read", "operand", "f")]
    ),
    "e-text-with-escape-is-unknown": Case(
        [r"1e marker a\;marker b", "f"], [("execute", "e", None), ("read", "operand", "f")]
    ),
    "e-after-one-liner-a-in-other-expression": Case(
        ["-e", "a text", "-e", "e marker e", "f"],
        [("execute", "e", "marker e"), ("read", "operand", "f")],
    ),
    "e-on-line-after-one-liner-a": Case(
        ["a text\ne marker e", "f"], [("execute", "e", "marker e"), ("read", "operand", "f")]
    ),
    "e-after-y": Case(
        ["y/abc/xyz/;e marker e", "f"], [("execute", "e", "marker e"), ("read", "operand", "f")]
    ),
    "e-after-label-loop": Case(
        [":a;N;$!ba;s/^/marker j #/e", "f"], [("execute", "s///e", None), ("read", "operand", "f")]
    ),
    "e-long-expression-option": Case(
        ["--expression=1e marker e", "f"], [("execute", "e", "marker e"), ("read", "operand", "f")]
    ),
    "w-command": Case(["/x/w out", "f"], [("write", "w", "out"), ("read", "operand", "f")]),
    "w-after-range": Case(
        ["-n", "1,/re/W out", "f"], [("write", "W", "out"), ("read", "operand", "f")]
    ),
    "s-w-flag": Case(["s/x/y/w out", "f"], [("write", "s///w", "out"), ("read", "operand", "f")]),
    "s-w-flag-after-blank": Case(
        ["s/x/y/ w out", "f"], [("write", "s///w", "out"), ("read", "operand", "f")]
    ),
    "s-w-after-bracket-holding-delimiter": Case(
        ["s/[/]/x/w out", "f"], [("write", "s///w", "out"), ("read", "operand", "f")]
    ),
    "w-file-name-takes-the-semicolon": Case(
        ["w out;p", "f"], [("write", "w", "out;p"), ("read", "operand", "f")]
    ),
    "w-in-second-expression": Case(
        ["-n", "-e", "p", "-e", "w out", "f"], [("write", "w", "out"), ("read", "operand", "f")]
    ),
    "w-near-stdout-name": Case(
        ["w dev/stdout", "f"], [("write", "w", "dev/stdout"), ("read", "operand", "f")]
    ),
    "r-command": Case(["r secret", "f"], [("read", "r", "secret"), ("read", "operand", "f")]),
    "R-command": Case(["R secret", "f"], [("read", "R", "secret"), ("read", "operand", "f")]),
    "in-place": Case(
        ["-i", "s/x/y/", "f"], [("read", "operand", "f"), ("write", "--in-place", "f")]
    ),
    "in-place-fused-suffix": Case(
        ["-i.bak", "s/x/y/", "f"],
        [("read", "operand", "f"), ("write", "--in-place", "f"), ("write", "--in-place", "f.bak")],
    ),
    "in-place-swallows-e-as-suffix": Case(
        ["-ie", "s/x/y/", "f"],
        [("read", "operand", "f"), ("write", "--in-place", "f"), ("write", "--in-place", "fe")],
    ),
    "in-place-abbreviated": Case(
        ["--in-pl", "s/x/y/", "f"], [("read", "operand", "f"), ("write", "--in-place", "f")]
    ),
    "in-place-backup-in-directory": Case(
        ["-ibak/*", "s/x/y/", "f"],
        [("read", "operand", "f"), ("write", "--in-place", "f"), ("write", "--in-place", "bak/f")],
    ),
    "in-place-following-links": Case(
        ["-i", "--follow-symlinks", "s/x/y/", "f"],
        [
            ("read", "operand", "f"),
            ("write", "--in-place", "f"),
            ("write", "--follow-symlinks", None),
        ],
    ),
    "script-from-file": Case(
        ["-f", "script.sed", "f"],
        [("read", "-f", "script.sed"), ("read", "operand", "f")],
        "from a file",
    ),
    "script-expands": Case([None, "f"], [], "expands"),
    "expression-expands": Case(["-e", None, "f"], [], "expands"),
    "option-expands": Case(["s/x/y/", None], [], "expands"),
    "unknown-command": Case(["L", "f"], [("read", "operand", "f")], "not a sed command"),
    "backslash-c-before-delimiter": Case(
        [r"s/\c/x/e", "f"], [("read", "operand", "f")], "versions read differently"
    ),
    "unclosed-block": Case(["1{p", "f"], [("read", "operand", "f")], "no `}`"),
    "unknown-flag": Case(["s/x/y/q", "f"], [("read", "operand", "f")], "flag"),
    "no-script": Case([], [], "no script"),
}

HARMLESS: dict[str, Case] = {
    "print-range": Case(["-n", "240,260p", "f"], [("read", "operand", "f")]),
    "s-replacement-spells-e": Case(["s/x/e/", "f"], [("read", "operand", "f")]),
    "s-replacement-spells-w": Case(["s/x/w out/", "f"], [("read", "operand", "f")]),
    "s-regex-spells-e": Case(["1s/e/id/", "f"], [("read", "operand", "f")]),
    "address-regex-spells-w": Case(["/w out/p", "f"], [("read", "operand", "f")]),
    "address-regex-spells-W": Case(["-n", "1,/W out/p", "f"], [("read", "operand", "f")]),
    "negated-last-line-delete": Case(["$!d", "f"], [("read", "operand", "f")]),
    "custom-delimiter-regex-spells-e": Case([r"\,e marker e,d", "f"], [("read", "operand", "f")]),
    "block-print": Case(["1{p}", "f"], [("read", "operand", "f")]),
    "a-text-runs-past-semicolon": Case(["a text;e marker e", "f"], [("read", "operand", "f")]),
    "a-backslash-text-in-next-expression": Case(
        ["-e", "a\\", "-e", "e marker e", "f"], [("read", "operand", "f")]
    ),
    "a-continued-text": Case(["a\\\ntext\\\ne marker e", "f"], [("read", "operand", "f")]),
    "i-one-liner": Case(["1i e marker e", "f"], [("read", "operand", "f")]),
    "c-backslash-one-liner": Case(["c\\e marker e", "f"], [("read", "operand", "f")]),
    "y-spells-e": Case(["y/abc/xyz/;p", "f"], [("read", "operand", "f")]),
    "join-lines": Case([":a;N;$!ba;s/\\n/ /g", "f"], [("read", "operand", "f")]),
    "comment-spells-e": Case(["p # e marker e", "f"], [("read", "operand", "f")]),
    "label-spells-e": Case([":e;n;b e", "f"], [("read", "operand", "f")]),
    "s-global-after-blank": Case(["s/x/y/ g", "f"], [("read", "operand", "f")]),
    "bracket-holding-delimiter": Case(["s/[/]/x/", "f"], [("read", "operand", "f")]),
    "w-stdout-is-sed-stream": Case(["w /dev/stdout", "f"], [("read", "operand", "f")]),
    "expression-option": Case(["-e", "s/x/y/", "f"], [("read", "operand", "f")]),
    "quiet-posix-extended": Case(
        ["-nE", "--posix", "s/(x)/\\1/p", "f"], [("read", "operand", "f")]
    ),
    "operand-expands": Case(["--", "s/x/y/", None], [("read", "operand", None)]),
    "backslash-c-with-letter": Case([r"s/\cA/x/", "f"], [("read", "operand", "f")]),
    "lowercase-l-command": Case(["l", "f"], [("read", "operand", "f")]),
    "stdin": Case(["p"], []),
}


def _facts(args: list[str | None]) -> list[Fact]:
    return [(fact.kind, fact.via, fact.value) for fact in read_sed("sed", args).facts]


@pytest.mark.parametrize("case", HOSTILE.values(), ids=HOSTILE.keys())
def test_states_what_a_hostile_script_does(case: Case) -> None:
    reading = read_sed("sed", case.args)
    assert [(fact.kind, fact.via, fact.value) for fact in reading.facts] == case.facts
    if case.unreadable is None:
        assert reading.unreadable is None
    else:
        assert reading.unreadable is not None
        assert case.unreadable in reading.unreadable


@pytest.mark.parametrize("case", HARMLESS.values(), ids=HARMLESS.keys())
def test_states_only_reads_for_a_harmless_twin(case: Case) -> None:
    reading = read_sed("sed", case.args)
    assert reading.unreadable is None
    assert reading.undeclared is None
    assert [(fact.kind, fact.via, fact.value) for fact in reading.facts] == case.facts


def test_every_hostile_kind_has_harmless_twins() -> None:
    """The two tables stay balanced: a twin for each way of running, writing or reading."""
    assert len(HARMLESS) >= 25
    assert len(HOSTILE) >= 30


def _inside(path: str | None) -> bool:
    """A relative path that cannot climb out of the directory it is resolved in."""
    return path is not None and not path.startswith(("/", "~")) and ".." not in path.split("/")


def _literal(args: list[str | None]) -> list[str]:
    return [arg for arg in args if arg is not None]


PROVABLE = {
    name: case
    for name, case in {**HOSTILE, **HARMLESS}.items()
    if case.unreadable is None
    and None not in case.args
    and case.args
    and case.args[-1] == "f"
    and not any(fact[0] == "write" and fact[2] is None for fact in case.facts)
}


@pytest.mark.parametrize("case", PROVABLE.values(), ids=PROVABLE.keys())
def test_gnu_sed_does_what_the_reading_states(case: Case) -> None:
    """Run the real sed on a one-line file: what runs and what is written match the reading."""
    reading = read_sed("sed", case.args)
    written = {fact.value for fact in reading.facts if fact.kind == "write"}
    assert all(_inside(value) for value in written), "a proof never writes outside its directory"
    outcome = run_confined(["sed", *_literal(case.args)], files=INPUT)
    assert outcome.returncode == 0, outcome.stderr
    runs = any(fact.kind == "execute" for fact in reading.facts)
    assert bool(outcome.markers) == runs, outcome.markers
    assert outcome.created | outcome.changed == written


@pytest.mark.parametrize(
    "args",
    [["-e", "a\\", "-e", "e marker e", "f"], ["a text;e marker e", "f"], ["s/[/]/x/", "f"]],
    ids=["a-backslash-across-expressions", "one-liner-text", "bracket-delimiter"],
)
def test_gnu_sed_reads_the_twins_as_text(args: list[str]) -> None:
    """Where the reader says a lookalike is text, GNU sed prints it instead of running it."""
    outcome = run_confined(["sed", *args], files=INPUT)
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.markers == ()


# --- properties ---------------------------------------------------------------

SCRIPT_ALPHABET = "spyeawWrRi{}!;:#/\\[]^$,~+ \n0123456789abcxIgMm=.|"
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    st.text(alphabet=SCRIPT_ALPHABET, max_size=40),
    st.lists(st.sampled_from(["-n", "-i", "-E", "-s", "-z", "--", "-e", "x"]), max_size=4),
)
def test_never_raises_on_any_command_line(script: str, options: list[str]) -> None:
    reading = read_sed("sed", [*options, script, "f"])
    assert reading.program == "sed"


@SETTINGS
@given(st.text(max_size=60))
def test_never_raises_on_any_text(script: str) -> None:
    read_sed("sed", [script])


def test_work_grows_linearly_with_the_script() -> None:
    """Lines of the reader run per character stay bounded as hostile scripts double in size."""
    shapes = [
        "1{" * 1 + "p;" + "}" * 1,
        "s/[[[[/x/;",
        "a\\\n" + "x\\\n",
        "w out\n",
        "/" + "\\/" * 4 + "/p;",
        "e marker\n",
        "#" + "x" * 4 + "\n",
    ]
    for shape in shapes:
        small, large = shape * 500, shape * 1000
        _, small_steps = steps(read_sed, "sed", [small])
        _, large_steps = steps(read_sed, "sed", [large])
        assert large_steps <= 2.2 * small_steps + 100, shape
        assert large_steps <= 40 * len(large) + 200, shape


def _safe_to_run(script: str) -> bool:
    """No `w`/`W` can name an absolute path (sed creates w files when it compiles)."""
    for at, char in enumerate(script):
        if char in "wW" and script[at + 1 :].lstrip(" \t").startswith("/"):
            return False
    return True


PIECES = st.sampled_from(
    [
        *["s/x/y/", "s/[/]/x/", "y/a/b/", "/re/", "\\,x,", ":l", "p", "b"],
        "e marker",
        "w o",
        "W o3",
        "r f",
        "R f",
        "a t",
        "a\\",
        "i\\",
        "c\\",
        "s/a/b/w o2",
        "s/a/b/e",
        "b l",
        "#c",
        " ",
        "\n",
    ]
)
GENERATED = st.lists(
    st.one_of(PIECES, st.sampled_from(list(SCRIPT_ALPHABET))), min_size=1, max_size=8
).map("".join)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(GENERATED.filter(_safe_to_run))
def test_agrees_with_gnu_sed_sandbox_on_generated_scripts(script: str) -> None:
    """
    For any script GNU sed compiles, the reader states a fact exactly when ``--sandbox`` refuses it.

    sed runs nothing here (its input is empty); it only compiles, and creates
    the files its ``w`` commands name, inside the confined directory.
    """
    tool("sed")
    plain = run_confined(["sed", "-n", script], stdin="")
    if plain.returncode != 0:
        return
    sandboxed = run_confined(["sed", "-n", "--sandbox", script], stdin="")
    reading = read_sed("sed", ["-n", script])
    if reading.unreadable is not None:
        return
    # `--sandbox` refuses what reads, writes or runs; how long the script goes round is no part of it.
    facts = [fact for fact in reading.facts if fact.kind != "lifetime"]
    assert bool(facts) == (sandboxed.returncode != 0), (script, reading.facts)
    written = {fact.value for fact in reading.facts if fact.kind == "write"}
    assert plain.created == written, script
