"""
The find reader: hostile expressions and their harmless twins, proven against GNU find confined.

The proofs run GNU find in a temporary directory holding a few files, with
only relative starting points (``.``, ``d``): what the reader calls a delete
deletes, a written file is written, an ``-exec`` runs its command (the
``marker`` stub records it), and the twins touch nothing. A generated-
expression property does the same for expressions built from the primaries
that matter: nothing find does escapes what the reading states.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gateway._programs._find import read_find
from gateway._programs._languages import LANGUAGE_READERS
from programs.language_support import run_confined, steps

Fact = tuple[str, str, str | None]
DOT: Fact = ("read", "starting point", ".")


class Case(NamedTuple):
    args: list[str | None]
    facts: list[Fact]
    unreadable: str | None = None


HOSTILE: dict[str, Case] = {
    # After a test, what is deleted is what passes it below the starting point.
    "delete": Case([".", "-name", "*.tmp", "-delete"], [DOT, ("write", "-delete", "./")]),
    "delete-default-root": Case(["-delete"], [DOT, ("write", "-delete", ".")]),
    "delete-several-roots": Case(
        ["d", ".", "-delete"],
        [
            ("read", "starting point", "d"),
            DOT,
            ("write", "-delete", "d"),
            ("write", "-delete", "."),
        ],
    ),
    "delete-after-or": Case(
        [".", "-name", "x", "-o", "-delete"], [DOT, ("write", "-delete", "./")]
    ),
    "delete-following-links": Case(
        ["-L", ".", "-delete"],
        [DOT, ("read", "-L", None), ("write", "-delete", "."), ("write", "-delete", None)],
    ),
    "exec-semicolon": Case(
        [".", "-exec", "marker", "{}", ";"], [DOT, ("execute", "-exec", "marker")]
    ),
    "exec-plus": Case(
        [".", "-type", "f", "-exec", "marker", "{}", "+"], [DOT, ("execute", "-exec", "marker")]
    ),
    "exec-plus-not-after-braces-is-an-argument": Case(
        [".", "-exec", "marker", "+", "{}", "+"], [DOT, ("execute", "-exec", "marker")]
    ),
    "execdir": Case(
        [".", "-execdir", "marker", "{}", ";"], [DOT, ("execute", "-execdir", "marker")]
    ),
    "ok": Case([".", "-ok", "rm", "{}", ";"], [DOT, ("execute", "-ok", "rm")]),
    "okdir": Case([".", "-okdir", "rm", "{}", ";"], [DOT, ("execute", "-okdir", "rm")]),
    "two-execs": Case(
        [".", "-exec", "marker", "a", ";", "-exec", "marker", "{}", "+"],
        [DOT, ("execute", "-exec", "marker"), ("execute", "-exec", "marker")],
    ),
    "fprint": Case([".", "-fprint", "out"], [DOT, ("write", "-fprint", "out")]),
    "fprint0": Case([".", "-fprint0", "out"], [DOT, ("write", "-fprint0", "out")]),
    "fls": Case([".", "-fls", "out"], [DOT, ("write", "-fls", "out")]),
    "fprintf": Case([".", "-fprintf", "out", "%p\\n"], [DOT, ("write", "-fprintf", "out")]),
    "newer-reads-metadata": Case([".", "-newer", "ref"], [DOT, ("read", "-newer", "ref")]),
    "newerXY-file": Case([".", "-newermc", "ref"], [DOT, ("read", "-newermc", "ref")]),
    "samefile": Case([".", "-samefile", "ref"], [DOT, ("read", "-samefile", "ref")]),
    "files0-from": Case(
        ["-files0-from", "list"],
        [("read", "-files0-from", "list"), ("read", "starting point", None)],
    ),
    "home-root": Case(["/", "-name", "id_rsa"], [("read", "starting point", "/")]),
    "unknown-primary": Case([".", "-frobnicate"], [DOT], "not a find primary"),
    "bsd-starting-point-may-be-an-option": Case(
        ["-f", "-delete", "-name", "x"], [("read", "starting point", "-delete")]
    ),
    "bsd-option-clusters-are-not-read": Case(["-Ex", ".", "-name", "x"], [DOT], "not a find"),
    "bsd-f-expands": Case(["-f", None, "-delete"], [DOT], "`-f`"),
    "root-expands": Case([None, "-name", "x"], [DOT], "expands"),
    "primary-expands": Case([".", None], [DOT], "expands"),
    "argument-expands": Case([".", "-name", None, "-print"], [DOT], "expands"),
    "exec-argument-expands": Case([".", "-exec", "echo", None, ";"], [DOT], "expands"),
    "exec-unterminated": Case([".", "-exec", "rm", "{}"], [DOT], "no `;`"),
    "exec-no-program": Case([".", "-exec", ";"], [DOT], "no program"),
    "missing-argument": Case([".", "-name"], [DOT], "missing"),
}

HARMLESS: dict[str, Case] = {
    "name": Case([".", "-name", "*.py"], [DOT]),
    "testbed": Case(
        ["/testbed", "-type", "f", "-name", "setup.py"], [("read", "starting point", "/testbed")]
    ),
    "name-spells-delete": Case([".", "-name", "-delete"], [DOT]),
    "path-spells-exec": Case([".", "-path", "*-exec*"], [DOT]),
    "newermt-is-a-time": Case([".", "-newermt", "2020-01-01"], [DOT]),
    "maxdepth-print0": Case([".", "-maxdepth", "2", "-type", "d", "-print0"], [DOT]),
    "printf": Case([".", "-printf", "%p %s\\n"], [DOT]),
    "operators": Case(
        [".", "(", "-name", "a", "-o", "!", "-name", "b", ")", "-prune", ",", "-print"], [DOT]
    ),
    "leading-options": Case(["-H", "-O3", "-D", "tree", ".", "-name", "x"], [DOT]),
    "double-dash": Case(["--", ".", "-name", "x"], [DOT]),
    "no-arguments": Case([], [DOT]),
    "dash-starting-point": Case(["-", "-name", "x"], [("read", "starting point", "-")]),
    "bsd-leading-options": Case(["-E", "-x", "-s", ".", "-regex", ".*[.]py"], [DOT]),
    "bsd-f-starting-point": Case(
        ["-f", "src", "-name", "*.py"], [("read", "starting point", "src")]
    ),
}


@pytest.mark.parametrize("case", HOSTILE.values(), ids=HOSTILE.keys())
def test_states_what_a_hostile_expression_does(case: Case) -> None:
    reading = read_find("find", case.args)
    assert [(f.kind, f.via, f.value) for f in reading.facts] == case.facts
    if case.unreadable is None:
        assert reading.unreadable is None
    else:
        assert case.unreadable in (reading.unreadable or "")


@pytest.mark.parametrize("case", HARMLESS.values(), ids=HARMLESS.keys())
def test_states_only_reads_for_a_harmless_twin(case: Case) -> None:
    reading = read_find("find", case.args)
    assert reading.unreadable is None
    assert [(f.kind, f.via, f.value) for f in reading.facts] == case.facts


def test_exec_words_are_the_command_range() -> None:
    reading = read_find(
        "find", [".", "-name", "x", "-exec", "grep", "-l", "TODO", "{}", "+", "-print"]
    )
    execute = next(f for f in reading.facts if f.kind == "execute")
    assert execute.words == (4, 8)
    assert execute.index == 4


def test_starting_points_are_the_operands_and_read_names_only() -> None:
    reading = read_find("find", ["src", "tests", "-name", "*.py"])
    assert reading.operands == (0, 1)
    assert {(f.value, f.action, f.recursive) for f in reading.facts} == {
        ("src", "metadata", True),
        ("tests", "metadata", True),
    }


def test_with_exec_the_starting_points_are_read_for_contents() -> None:
    """The command ``-exec`` runs is handed what find walks: everything below is read, not only names."""
    reading = read_find("find", ["~", "-name", "*.pem", "-exec", "cat", "{}", "+"])
    roots = [f for f in reading.facts if f.via == "starting point"]
    assert [(f.value, f.action, f.recursive) for f in roots] == [("~", None, True)]
    listing = read_find("find", ["~", "-name", "*.pem", "-print"])
    assert [(f.value, f.action) for f in listing.facts] == [("~", "metadata")]


def test_find_is_registered() -> None:
    assert LANGUAGE_READERS["find"] is read_find


def test_an_expanding_argument_is_read_only_when_it_is_one_word() -> None:
    # `find . -name $p`: an unquoted `$p` may be `x -delete`.
    assert read_find("find", [".", "-name", None, "-print"]).unreadable is not None
    quoted = read_find("find", [".", "-name", None, "-print"], one_word={2})
    assert quoted.unreadable is None
    assert quoted.options == ("-name", "-print")
    assert read_find("find", ["-D", None, "."]).unreadable is not None
    assert read_find("find", ["-D", None, "."], one_word={1}).unreadable is None
    written = read_find("find", [".", "-fprint", None], one_word={2})
    assert ("write", "-fprint", None) in {(f.kind, f.via, f.value) for f in written.facts}
    # An expanding starting point may still be an operator, and one in `-exec` its end.
    assert read_find("find", [None, "-print"], one_word={0}, no_dash={0}).unreadable is not None
    exec_args: list[str | None] = [".", "-exec", "rm", None, ";"]
    assert read_find("find", exec_args, one_word={3}).unreadable is not None


# --- proofs against GNU find --------------------------------------------------

FILES = {"keep.txt": "k\n", "drop.tmp": "d\n", "d/inner.tmp": "i\n", "ref": "r\n"}


def _inside(value: str | None) -> bool:
    return value is None or (not value.startswith(("/", "~")) and ".." not in value.split("/"))


PROVABLE = {
    name: case
    for name, case in {**HOSTILE, **HARMLESS}.items()
    if case.unreadable is None
    and None not in case.args
    and all(
        _inside(f[2]) for f in case.facts if f[0] in ("write", "read") and f[1] == "starting point"
    )
    and "-ok" not in case.args
    and "-okdir" not in case.args
    and "-L" not in case.args
    and case.args[:1] != ["-files0-from"]
    and "/testbed" not in case.args
}


@pytest.mark.parametrize("case", PROVABLE.values(), ids=PROVABLE.keys())
def test_gnu_find_does_what_the_reading_states(case: Case) -> None:
    reading = read_find("find", case.args)
    roots = [f.value for f in reading.facts if f.via == "starting point"]
    assert all(_inside(root) for root in roots), "a proof only searches inside its directory"
    args = [arg for arg in case.args if arg is not None]
    outcome = run_confined(["find", *args], files=FILES)
    runs = any(f.kind == "execute" for f in reading.facts)
    assert bool(outcome.markers) == runs, outcome.stderr
    deletes = any(f.action == "delete" for f in reading.facts)
    assert bool(outcome.deleted) == deletes, (outcome.deleted, outcome.stderr)
    written = {f.value for f in reading.facts if f.kind == "write" and f.action == "write"}
    assert outcome.created | outcome.changed == written


GNU_LEADING = (
    ["-H"], ["-L"], ["-P"], ["-HL"], ["-LP"], ["-D", "tree"], ["-D", "nosuch"], ["-Dtree"],
    ["-D=tree"], ["-O3"], ["-O0"], ["-O99"], ["-O"], ["-Ofoo"], ["-O3x"], ["-Ox1"], ["-O", "3"],
    ["--"], ["--", "-L"], ["-L", "--"], ["-H", "-D", "tree", "-O2"], ["-L", "-P"],
)  # fmt: skip
"""GNU find's leading options, with neighbours it refuses (no clusters, ``-D`` and ``-O`` as it spells them)."""


@pytest.mark.parametrize("words", GNU_LEADING, ids=" ".join)
def test_gnu_find_reads_the_leading_options_the_reader_reads(words: list[str]) -> None:
    # Were a refused word read as an option, the marker would run.
    args = [*words, ".", "-maxdepth", "0", "-exec", "marker", "{}", ";"]
    reading = read_find("find", args)
    outcome = run_confined(["find", *args], files=FILES)
    read = reading.unreadable is None
    assert (outcome.returncode == 0) == read, (reading, outcome.stderr)
    assert outcome.markers == (("marker .",) if read else ()), outcome.stderr
    if read:
        assert [f.value for f in reading.facts if f.via == "starting point"] == ["."]


# --- generated expressions ----------------------------------------------------

PRIMARY = st.sampled_from(
    [
        ["-name", "*.tmp"],
        ["-type", "f"],
        ["-delete"],
        ["-exec", "marker", "{}", ";"],
        ["-exec", "marker", "{}", "+"],
        ["-fprint", "out"],
        ["-newer", "ref"],
        ["-maxdepth", "1"],
        ["-print"],
        ["-prune"],
        ["!"],
        ["-o"],
        ["-a"],
        ["-quit"],
        ["-empty"],
        ["-path", "./d*"],
        ["-execdir", "marker", "{}", ";"],
        ["-fprintf", "out2", "%p"],
        [","],
    ]
)
EXPRESSIONS = st.tuples(
    st.sampled_from([[], ["."], ["d"], [".", "d"]]),
    st.lists(PRIMARY, max_size=5),
).map(lambda t: [*t[0], *[word for primary in t[1] for word in primary]])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS)
def test_a_generated_expression_does_nothing_the_reading_does_not_state(args: list[str]) -> None:
    reading = read_find("find", list(args))
    if reading.unreadable is not None:
        return
    outcome = run_confined(["find", *args], files=FILES)
    if not any(f.kind == "execute" for f in reading.facts):
        assert outcome.markers == (), args
    if not any(f.action == "delete" for f in reading.facts):
        assert outcome.deleted == frozenset(), args
    written = {f.value for f in reading.facts if f.kind == "write" and f.action == "write"}
    assert outcome.created | outcome.changed <= written, args


# --- properties ---------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "-exec",
                    ";",
                    "+",
                    "{}",
                    "-delete",
                    "(",
                    ")",
                    "!",
                    "-o",
                    "-name",
                    "-newerXt",
                    "-L",
                    "-D",
                    "--",
                    ".",
                ]
            ),
            st.text(max_size=6),
            st.none(),
        ),
        max_size=10,
    )
)
def test_never_raises_on_any_command_line(args: list[str | None]) -> None:
    read_find("find", args)


def test_work_grows_linearly_with_the_expression() -> None:
    for shape in (
        ["-name", "x", "-o"],
        ["-exec", "a", "b", ";"],
        ["(", "!", ")"],
        ["-delete"],
        ["d"],
    ):
        small = [".", *shape * 300] if shape != ["d"] else shape * 300
        large = [".", *shape * 600] if shape != ["d"] else shape * 600
        _, small_steps = steps(read_find, "find", small)
        _, large_steps = steps(read_find, "find", large)
        assert large_steps <= 2.2 * small_steps + 200, shape
