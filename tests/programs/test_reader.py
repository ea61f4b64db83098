"""The table reader's rules, on small rows made for each rule: how words become options, operands and facts."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from gateway._programs import ArgumentFact, ArgumentReading, read_arguments, reading_problem
from gateway._programs._option_scanner import Scanner, table
from gateway._programs._rows import (
    DATA,
    READ,
    RUN_SHELL,
    WRITE,
    Effect,
    Implicit,
    Mode,
    Operands,
    Option,
    ProgramRow,
    Role,
    option_table,
    role,
)
from gateway._programs._table_reader import read_row

_TOOL = ProgramRow(
    options=option_table(
        "-a --all",
        "-b --bare",
        ("-o --output =", WRITE),
        "-k --key =",
        "--color [=]",
        "-i --in-place [=]",
        "-C --context (=)",
        "-s --select [_]",
        "--compress",
        "--compare",
        "--compress-program =",
    ),
    operands=Operands(rest=role(READ)),
)
_POSIX = ProgramRow(
    options=option_table("-a", "-k ="), options_end_after=1, operands=Operands(rest=role(READ))
)


def _read(row: ProgramRow, argv: Sequence[str | None], **kwargs: frozenset[int]) -> ArgumentReading:
    return read_row("tool", row, argv, **kwargs)


def _facts(reading: ArgumentReading) -> list[tuple[str, str | None, str | None]]:
    return [(fact.kind, fact.via, fact.value) for fact in reading.facts]


# ───────────────────────── spellings ─────────────────────────

SPELLINGS = [
    pytest.param(["-a"], ("--all",), (), id="short"),
    pytest.param(["--all"], ("--all",), (), id="long"),
    pytest.param(["-ab"], ("--all", "--bare"), (), id="cluster of switches"),
    pytest.param(["-k", "5", "f"], ("--key",), (2,), id="separated short value"),
    pytest.param(["-k5", "f"], ("--key",), (1,), id="fused short value"),
    pytest.param(
        ["-abk5", "f"], ("--all", "--bare", "--key"), (1,), id="cluster ending in a value"
    ),
    pytest.param(
        ["-abk", "5", "f"], ("--all", "--bare", "--key"), (2,), id="cluster, value in next word"
    ),
    pytest.param(["--key=5", "f"], ("--key",), (1,), id="long equals value"),
    pytest.param(["--key", "5", "f"], ("--key",), (2,), id="long separated value"),
    pytest.param(["-k", "-a", "f"], ("--key",), (2,), id="a value may look like an option"),
    pytest.param(["-k", "--", "f"], ("--key",), (2,), id="a value may be --"),
    pytest.param(["--color", "f"], ("--color",), (1,), id="optional value not taken bare"),
    pytest.param(["--color=never", "f"], ("--color",), (1,), id="optional value taken fused"),
    pytest.param(["-i", "f"], ("--in-place",), (1,), id="optional short bare"),
    pytest.param(["-i.bak", "f"], ("--in-place",), (1,), id="optional short fused"),
    pytest.param(["-C3", "f"], ("--context",), (1,), id="fused-only arity fused"),
    pytest.param(["--context=3", "f"], ("--context",), (1,), id="fused-only arity long"),
    pytest.param(["-s", "x", "f"], ("--select",), (2,), id="optional-next takes a word"),
    pytest.param(
        ["-s", "-a", "f"], ("--select", "--all"), (2,), id="optional-next leaves an option"
    ),
    pytest.param(["-s"], ("--select",), (), id="optional-next at the end"),
    pytest.param(["f", "-a"], ("--all",), (0,), id="options after operands (GNU permutes)"),
    pytest.param(["--", "-a"], (), (1,), id="-- ends options"),
    pytest.param(["-", "-a"], ("--all",), (0,), id="a lone dash is an operand"),
    pytest.param(["--al"], ("--all",), (), id="unique prefix of a long option"),
    pytest.param(["--compress"], ("--compress",), (), id="exact match wins over prefixes"),
    pytest.param(["--compress-p=gzip"], ("--compress-program",), (), id="prefix with a value"),
]


@pytest.mark.parametrize(("argv", "options", "operands"), SPELLINGS)
def test_options_are_read_in_every_getopt_spelling(
    argv: list[str], options: tuple[str, ...], operands: tuple[int, ...]
) -> None:
    reading = _read(_TOOL, argv)
    assert reading.undeclared is None
    assert reading.unreadable is None
    assert reading.options == options
    assert reading.operands == operands


REFUSED = [
    pytest.param(["-x"], "-x", id="an unknown short option"),
    pytest.param(["-ax"], "-x", id="an unknown letter in a cluster is named alone"),
    pytest.param(["--nope"], "--nope", id="an unknown long option"),
    pytest.param(["--nope=1"], "--nope", id="an unknown long option is named without its value"),
    pytest.param(["--comp"], "--comp", id="an ambiguous prefix"),
    pytest.param(["--all=yes"], "--all", id="a value given to a switch"),
    pytest.param(["-C", "3"], "-C", id="fused-only arity written separated"),
    pytest.param(["--context", "3"], "--context", id="fused-only long written separated"),
    pytest.param(["f", "-x"], "-x", id="an unknown option after an operand"),
]


@pytest.mark.parametrize(("argv", "undeclared"), REFUSED)
def test_an_undeclared_option_is_named_as_written(argv: list[str], undeclared: str) -> None:
    reading = _read(_TOOL, argv)
    assert reading.undeclared == undeclared
    assert reading.table


def test_a_declared_option_missing_its_value_is_unreadable() -> None:
    reading = _read(_TOOL, ["f", "-o"])
    assert reading.unreadable == "`--output` is missing the value it takes"


def test_a_posix_program_stops_reading_options_at_its_first_operand() -> None:
    reading = _read(_POSIX, ["f", "-a", "-k"])
    assert reading.options == ()
    assert reading.operands == (0, 1, 2)
    assert reading.undeclared is None


def test_effects_of_options_name_their_values() -> None:
    reading = _read(_TOOL, ["-o", "out", "in", "--output=o2"])
    assert _facts(reading) == [
        ("write", "--output", "out"),
        ("read", "operand", "in"),
        ("write", "--output", "o2"),
    ]
    assert [fact.index for fact in reading.facts] == [1, 2, 3]


# ───────────────────────── expanding words ─────────────────────────


def test_an_expanding_word_where_an_option_could_stand_is_unreadable() -> None:
    reading = _read(_TOOL, [None])
    assert reading.unreadable == "argument 1 is an expansion where an option could stand"
    assert reading.options == ()


def test_an_expanding_word_after_double_dash_is_an_operand() -> None:
    reading = _read(_TOOL, ["--", None])
    assert reading.unreadable is None
    assert _facts(reading) == [("read", "operand", None)]


def test_an_expanding_word_that_cannot_begin_with_a_dash_is_an_operand() -> None:
    reading = _read(_TOOL, [None, "-a"], no_dash=frozenset({0}))
    assert reading.unreadable is None
    assert reading.options == ("--all",)


def test_an_expanding_option_value_may_be_several_words_unless_it_is_one() -> None:
    several = _read(_TOOL, ["-k", None, "f"])
    assert several.unreadable is not None
    assert "may be no word or several" in several.unreadable
    one = _read(_TOOL, ["-k", None, "f"], one_word=frozenset({1}))
    assert one.unreadable is None
    assert one.operands == (2,)


def test_after_an_expansion_that_may_be_empty_a_dash_word_may_be_an_option() -> None:
    reading = _read(_POSIX, ["--", None, "-a"])
    assert reading.unreadable is None  # after --, nothing is an option
    posix = _read(_POSIX, [None, "-a"], no_dash=frozenset({0}))
    assert posix.unreadable is not None
    assert "may be an option" in posix.unreadable


_UNIQ = ProgramRow(operands=Operands(head=(role(READ), role(WRITE)), rest=DATA))
_COPY = ProgramRow(
    operands=Operands(tail=(role(Effect(kind="write", action="copy")),), rest=role(READ))
)


def test_an_operand_shifted_by_an_expansion_gets_every_role_it_could_have() -> None:
    # `uniq "$@" out`: the expansion may be empty (out is read) or one word (out is written).
    reading = _read(_UNIQ, ["--", None, "out"])
    out = {(fact.kind, fact.action) for fact in reading.facts if fact.value == "out"}
    assert out == {("read", None), ("write", "write")}


def test_an_operand_fixed_by_one_word_expansions_keeps_its_role() -> None:
    reading = _read(_UNIQ, ["--", None, "out"], one_word=frozenset({1}))
    assert [(fact.kind, fact.value) for fact in reading.facts] == [("read", None), ("write", "out")]


def test_a_trailing_expansion_may_make_the_word_before_it_the_destination() -> None:
    # `cp a b $X`: with X empty, b is written.
    reading = _read(_COPY, ["--", "a", "b", None])
    written = {fact.value for fact in reading.facts if fact.kind == "write"}
    assert "b" in written
    assert None in written


def test_the_last_operand_stays_the_destination_whatever_precedes_it() -> None:
    reading = _read(_COPY, ["--", None, "dest"])
    assert ("write", "dest") in [(fact.kind, fact.value) for fact in reading.facts]
    assert ("read", "dest") not in [(fact.kind, fact.value) for fact in reading.facts]


# ───────────────────────── shapes of rows ─────────────────────────


def test_dashless_first_word_is_an_old_style_cluster_whose_values_follow() -> None:
    row = ProgramRow(
        options=option_table("-x", "-z", ("-f =", READ), ("-C =", Effect(kind="cwd"))),
        dashless="first",
    )
    reading = _read(row, ["xzfC", "a.tgz", "dir", "member"])
    assert reading.options == ("-x", "-z", "-f", "-C")
    assert _facts(reading) == [("read", "-f", "a.tgz"), ("cwd", "-C", "dir")]
    assert reading.operands == (3,)


def test_dashless_every_word_reads_its_own_letters() -> None:
    row = ProgramRow(
        options=option_table("-e"),
        dashless="every",
        dashless_options=option_table(("-e", Effect(kind="read_environment")), "-a", "-o ="),
    )
    reading = _read(row, ["ae", "o", "pid", "-e"])
    assert reading.options == ("-a", "-e", "-o", "-e")
    assert [fact.kind for fact in reading.facts] == ["read_environment"]
    assert _read(row, ["aq"]).undeclared == "q"


def test_numeric_plus_and_operand_words() -> None:
    row = ProgramRow(
        options=option_table("-n ="),
        numeric=Option(name="-NUM", arity=1),
        plus=Option(name="+CMD", arity=1, effect=RUN_SHELL),
        operand_words=r"-[rwx]+",
        operands=Operands(rest=role(READ)),
    )
    reading = _read(row, ["-20", "+!id", "-rw", "f"])
    assert reading.options == ("-NUM", "+CMD")
    assert _facts(reading) == [
        ("execute", "+CMD", "!id"),
        ("read", "operand", "-rw"),
        ("read", "operand", "f"),
    ]


def test_plus_clusters_switch_options_off() -> None:
    row = ProgramRow(options=option_table("-e", "-x", "-o [_]"), plus_clusters=True)
    assert _read(row, ["+ex", "-o", "pipefail"]).options == ("+e", "+x", "-o")


def test_unknown_words_are_operands_where_the_program_says_so() -> None:
    row = ProgramRow(options=option_table("-n", "-e"), unknown_is_operand=True, double_dash=False)
    reading = _read(row, ["-n", "-x", "--", "-e"])
    assert reading.options == ("-n", "-e")
    assert reading.operands == (1, 2)


def test_modes_choose_operand_roles_by_the_options_present() -> None:
    row = ProgramRow(
        options=option_table("-c", "-x", ("-f =", Effect(kind="read"))),
        operands=Operands(rest=DATA),
        modes=(
            Mode(
                when=frozenset({"-c"}),
                operands=Operands(rest=role(READ)),
                option_effects={"-f": WRITE},
            ),
            Mode(
                when=frozenset({"-x"}),
                operands=Operands(rest=DATA),
                facts=(Implicit(effect=Effect(kind="write", action="create", value="."), via="x"),),
            ),
        ),
    )
    create = _read(row, ["-c", "-f", "a.tar", "src"])
    assert _facts(create) == [("write", "-f", "a.tar"), ("read", "operand", "src")]
    extract = _read(row, ["-f", "a.tar", "-x", "member"])
    assert _facts(extract) == [("read", "-f", "a.tar"), ("write", "x", ".")]


def test_into_writes_each_source_inside_the_destination() -> None:
    copy = Effect(kind="write", action="copy")
    row = ProgramRow(
        options=option_table(("-t =", copy)),
        operands=Operands(tail=(role(copy),), rest=role(READ), into=True),
        modes=(Mode(when=frozenset({"-t"}), operands=Operands(rest=role(READ), into_option="-t")),),
    )
    reading = _read(row, ["a/.bashrc", "/root/"])
    assert ("write", "operand", "/root/.bashrc") in _facts(reading)
    assert ("write", "operand", "/root/") in _facts(reading)
    target = _read(row, ["-t", "/root", "x/.profile"])
    assert ("write", "-t", "/root/.profile") in _facts(target)


def test_key_operands_and_undeclared_keys() -> None:
    row = ProgramRow(operands=Operands(keys={"if": role(READ), "of": role(WRITE), "bs": DATA}))
    reading = _read(row, ["if=/dev/zero", "of=disk", "bs=1M"])
    assert _facts(reading) == [("read", "if=", "/dev/zero"), ("write", "of=", "disk")]
    assert _read(row, ["of=x", "frobnicate=1"]).undeclared == "frobnicate="
    assert _read(row, ["--", None]).unreadable is not None


def test_subcommands_inherit_their_parents_options_and_refuse_unknown_ones() -> None:
    install = ProgramRow(
        options=option_table("-r --requirement ="),
        inherit=True,
        facts=(Implicit(effect=Effect(kind="network", action="connect"), via="the index"),),
    )
    row = ProgramRow(
        options=option_table("-q --quiet"),
        subcommands={"install": install, "i": install},
        subcommand_names={"i": "install"},
    )
    reading = _read(row, ["-q", "i", "-q", "-r", "req.txt"])
    assert reading.subcommand == ("install",)
    assert reading.options == ("--quiet", "--quiet", "--requirement")
    assert _facts(reading) == [("network", "the index", None)]
    assert _read(row, ["frobnicate"]).undeclared == "frobnicate"
    assert _read(row, [None]).unreadable is not None


def test_arguments_of_what_runs_are_not_read() -> None:
    script = Role(effects=(Effect(kind="execute", action="script"),), arguments=True)
    row = ProgramRow(
        options=option_table(("-c =", Effect(kind="execute", action="code")), ends=("-c",)),
        options_end_after=1,
        operands=Operands(head=(script,), empty=(Effect(kind="execute", action="code"),)),
    )
    reading = _read(row, ["x.py", "-c", "--zz"])
    assert reading.undeclared is None
    assert reading.facts == (
        ArgumentFact(
            kind="execute", via="operand", index=0, value="x.py", action="script", words=(0, 3)
        ),
    )
    code = _read(row, ["-c", "print(1)", "x.py"])
    assert _facts(code) == [("execute", "-c", "print(1)")]
    assert _facts(_read(row, [])) == [("execute", "no operand", None)]


def test_recursive_options_reach_reads_and_writes_of_operands() -> None:
    row = ProgramRow(
        options=option_table("-r"),
        recursive=frozenset({"-r"}),
        operands=Operands(rest=role(Effect(kind="write", action="delete"))),
    )
    assert [fact.recursive for fact in _read(row, ["-r", "d"]).facts] == [True]
    assert [fact.recursive for fact in _read(row, ["d"]).facts] == [False]


def test_directory_changes_come_first_when_the_program_changes_directory_first() -> None:
    row = ProgramRow(
        options=option_table(("-f =", READ), ("-C =", Effect(kind="cwd"))),
        cwd_first=True,
    )
    assert [fact.kind for fact in _read(row, ["-f", "M", "-C", "d"]).facts] == ["cwd", "read"]


def test_a_program_without_a_table_says_so() -> None:
    reading = read_arguments("no-such-program-anywhere", ["-x"])
    assert reading == ArgumentReading(program="no-such-program-anywhere", table=False)


@pytest.mark.parametrize("width", [1, 100, 10_000])
def test_reading_is_linear_in_the_words(width: int) -> None:
    """A long argv is read word by word: every operand is seen once."""
    reading = read_arguments("cat", ["-n", *(f"f{index}" for index in range(width))])
    assert len(reading.operands) == width
    assert len(reading.facts) == width


def test_a_reading_problem_is_one_sentence_naming_what_was_not_read() -> None:
    assert reading_problem(read_arguments("pip", ["frobnicate"])) == (
        "`pip` is given `frobnicate`, which its option table does not declare."
    )
    assert reading_problem(read_arguments("no-such-program-anywhere", [])) == (
        "`no-such-program-anywhere` has no option table, so what it does with its arguments is unknown."
    )
    assert reading_problem(read_arguments("sort", ["-o"])) == (
        "`sort`'s arguments cannot be read: `--output` is missing the value it takes."
    )


def test_reading_many_options_and_operands_stays_linear() -> None:
    """Options and operands interleaved (modes are looked up per operand) and many -t targets."""
    words = [word for index in range(5_000) for word in ("-n", f"f{index}")]
    assert len(read_arguments("cat", words).facts) == 5_000
    targets = [word for index in range(2_000) for word in ("-t", f"d{index}")]
    reading = read_arguments("cp", [*targets, *(f"s{index}" for index in range(2_000))])
    assert len([fact for fact in reading.facts if fact.via == "--target-directory"]) == 4_000


# ───────────────────────── one scanner ─────────────────────────

_SPECS = ("-a --all", "-o --output =", "-i --in-place [=]", "--compress", "--compare")
_ONE_WORD_AT_A_TIME: list[list[str | None]] = [
    ["-ao", "f", "x"],
    ["-aof", "x"],
    ["--out=f", "--all"],
    ["--comp"],
    ["--compr", "x"],
    ["-i", "x"],
    ["-i.bak", "x"],
    ["--in-place=.bak"],
    ["--", "-a"],
    ["-az"],
    ["--all=1"],
    ["-o"],
    ["-o", None],
    [None, "-a"],
]


@pytest.mark.parametrize(
    "argv",
    _ONE_WORD_AT_A_TIME,
    ids=[" ".join(str(word) for word in a) for a in _ONE_WORD_AT_A_TIME],
)
def test_a_table_reads_the_same_whole_or_one_word_at_a_time(argv: list[str | None]) -> None:
    """The table reader and a language reader's step-by-step scanner are one scanner: the same options, the same refusal."""
    steps = table(*_SPECS)
    reading = read_row("tool", ProgramRow(options=steps.options), argv)
    scanner = Scanner(argv, steps, permute=True)
    items = list(scanner)
    problem = scanner.problem
    assert (problem is None) == (reading.undeclared is None and reading.unreadable is None)
    if problem is not None:
        assert problem.undeclared == reading.undeclared
        return
    assert tuple(item.name for item in items if item.kind == "option") == reading.options
    assert tuple(item.start for item in items if item.kind == "operand") == reading.operands
