"""
Hostile inputs: every one returns a `ShellReading`, never an exception.

One row per bypass or exhaustion idea. Rows past a limit must be unmeasured
with one sentence of reason; rows at a limit are measured or say why not.
No row asserts on time (speed is measured in ``benchmarks/parse.py``), but
every row must return: the readers' bounds, not the test, end the work.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Literal, NamedTuple

import pytest

import gateway._read
from gateway._read import INTERNAL_FAILURE, ShellReading, read_shell
from gateway._read._limits import MAX_NESTING, MAX_SOURCE_BYTES, SCAN_STEPS_PER_CHAR
from gateway._read._source import Source
from gateway._read._tree import ArithCommand
from gateway._read._treesitter import read_with_tree_sitter
from gateway._read._words import Unreadable, WordScanner
from shell.walk import check_spans, command_names, only_command, only_simple

# ───────────────────────── nesting ─────────────────────────


def dollar(n: int) -> str:
    return "echo " + "$(echo " * n + "a" + ")" * n


def backtick_innermost(n: int) -> str:
    """``$( … )`` nested ``n - 1`` deep with a backtick substitution at the bottom."""
    return "echo " + "$(echo " * (n - 1) + "`echo a`" + ")" * (n - 1)


def subshell(n: int) -> str:
    return "( " * n + "a" + " )" * n


def group(n: int) -> str:
    return "{ " * n + "a" + "; }" * n


def if_(n: int) -> str:
    return "if true; then " * n + "a" + "; fi" * n


def while_(n: int) -> str:
    return "while a; do " * n + "b" + "; done" * n


def until(n: int) -> str:
    return "until a; do " * n + "b" + "; done" * n


def for_(n: int) -> str:
    return "for x in y; do " * n + "b" + "; done" * n


def parameter(n: int) -> str:
    return "echo " + "${x:-" * n + "a" + "}" * n


def quoted_parameter(n: int) -> str:
    return "echo " + '"${x:-' * n + "a" + '}"' * n


def quoted_substitution(n: int) -> str:
    return "echo " + '"$(echo ' * n + "a" + ')"' * n


def process_substitution(n: int) -> str:
    return "cat " + "<(cat " * n + "a" + ")" * n


def brace(n: int) -> str:
    return "echo " + "{a," * n + "b" + "}" * n


NESTINGS = {
    "dollar": dollar,
    "backtick": backtick_innermost,
    "subshell": subshell,
    "group": group,
    "if": if_,
    "while": while_,
    "until": until,
    "for": for_,
    "parameter": parameter,
    "quoted-parameter": quoted_parameter,
    "quoted-substitution": quoted_substitution,
    "process-substitution": process_substitution,
    "brace-expansion": brace,
}


class Row(NamedTuple):
    id: str
    source: str | bytes
    status: Literal["measured", "unmeasured", "either"]


# bashlex parses each nested substitution again from its start: at the limit it
# takes a second or more, so on a loaded machine the budget may end the
# reading first; either outcome holds the budget.
QUADRATIC_IN_BASHLEX = frozenset(
    {"dollar", "backtick", "quoted-substitution", "process-substitution"}
)

ROWS: list[Row] = [
    *(
        Row(
            f"{kind}-at-limit",
            make(MAX_NESTING),
            "either" if kind in QUADRATIC_IN_BASHLEX else "measured",
        )
        for kind, make in NESTINGS.items()
    ),
    *(
        Row(f"{kind}-past-limit", make(MAX_NESTING + 1), "unmeasured")
        for kind, make in NESTINGS.items()
    ),
    *(Row(f"{kind}-1000-deep", make(1000), "unmeasured") for kind, make in NESTINGS.items()),
    # `((((a))))` is an arithmetic command: its parentheses nest no shell construct.
    Row("arithmetic-command-parentheses", "(" * 1000 + "a" + ")" * 1000, "measured"),
    Row("escaped-nested-backticks", "echo `echo \\`echo \\\\\\`id\\\\\\`\\``", "unmeasured"),
    Row("arithmetic-parentheses", "echo $((" + "(" * 1000 + "1" + ")" * 1000 + "))", "measured"),
    Row(
        "arithmetic-expansions-nested", "(( " + "$((" * 100 + "1" + "))" * 100 + " ))", "unmeasured"
    ),
    Row("colon-parameter-exponential", "echo " + "${x:" * 30 + "1" + "}" * 30, "unmeasured"),
    Row("subscripts-nested", "echo ${a[" + "${a[" * 100 + "1" + "]}" * 100 + "]}", "unmeasured"),
    # ── size ──
    # 10,000 stages take bashlex about a second: whether that fits the 2 s
    # budget depends on how loaded the machine is, so either outcome is right
    # as long as it comes back, with a reason when unmeasured.
    Row("pipes-10000", "a | " * 9_999 + "a", "either"),
    Row("and-10000", "a && " * 9_999 + "a", "either"),
    Row("quoted-string-64KiB", "echo '" + "a" * (MAX_SOURCE_BYTES - 7) + "'", "either"),
    Row("blanks-to-exactly-the-limit", "true" + " " * (MAX_SOURCE_BYTES - 4), "measured"),
    Row("one-byte-over-the-limit", "true" + " " * (MAX_SOURCE_BYTES - 3), "unmeasured"),
    Row("multibyte-over-the-limit", "echo " + "é" * 32_766, "unmeasured"),
    Row("unclosed-braces-60000", "echo " + "{" * 60_000, "unmeasured"),
    Row("unclosed-brace-lists-60000", "echo " + "{a," * 20_000, "unmeasured"),
    Row("unclosed-brackets-60000", "echo " + "[" * 60_000, "unmeasured"),
    Row("unclosed-extglobs", "echo " + "@(" * 30_000, "unmeasured"),
    # bashlex asked for tokens past the end forever on these, growing past 2 GB.
    Row("bashlex-endless-tokens", ">(a#\"\")${\n)''", "unmeasured"),
    Row("bashlex-endless-tokens-repeated", ">(a#\"\")${\n)''" * 300, "unmeasured"),
    Row("bashlex-endless-tokens-in-a-word", 'echo >(a#"")${\n)', "unmeasured"),
    # A word that is almost of the quoted-plain class (runs, '…', "…") and then
    # is not: its fast path must fail in linear time, not backtrack through
    # every way of cutting the runs (`aaa…a'b'$x` once hung the reader).
    Row("quoted-plain-run-then-dollar", "echo " + "a" * 60_000 + "'b'$x", "measured"),
    Row("quoted-plain-pieces-then-dollar", "echo " + "a'b'\"c\"" * 6_000 + "$x", "measured"),
    # ── quoting ──
    Row("unbalanced-single-quote", "echo 'abc", "unmeasured"),
    Row("unbalanced-double-quote", 'echo "abc', "unmeasured"),
    Row("unbalanced-backtick", "echo `abc", "unmeasured"),
    Row("unbalanced-substitution", "echo $(abc", "unmeasured"),
    Row("unbalanced-parameter", "echo ${abc", "unmeasured"),
    Row("unbalanced-subshell", "(echo", "unmeasured"),
    Row("unbalanced-group", "{ echo;", "unmeasured"),
    Row("unclosed-if", "if true; then a", "unmeasured"),
    Row("unterminated-heredoc", "cat <<EOF\nbody", "unmeasured"),
    Row("unclosed-ansi-c", "echo $'abc", "unmeasured"),
    # ── bytes and characters ──
    Row("carriage-return-in-word", "echo a\rb", "unmeasured"),
    Row("carriage-return-alone", "\r", "unmeasured"),
    Row("line-separator", "echo\u2028rm x", "measured"),
    Row("byte-order-mark", "\ufeffecho x", "unmeasured"),
    Row("ansi-escapes", "echo \x1b[31mred\x1b[0m; printf '\x1b]0;title\x07'", "measured"),
    Row("nul-byte", "echo a\x00b", "unmeasured"),
    Row("nul-byte-in-bytes", b"echo a\x00b", "unmeasured"),
    Row("invalid-utf8", b"echo \xff\xfe", "unmeasured"),
    Row("overlong-utf8", b"echo \xc0\xaf", "unmeasured"),
    Row("lone-surrogate", "echo \ud800", "unmeasured"),
    Row("lone-surrogate-escaped", "echo \udcff", "unmeasured"),
    # ── nothing to run ──
    Row("empty", "", "measured"),
    Row("blanks-only", "  \n\t\n", "measured"),
    Row("comment-only", "# rm -rf /", "measured"),
    Row("comments-only", "# a\n  # b\n#", "measured"),
    # ── one row per bypass idea (STYLE 3.11) ──
    Row("bypass-substitution", "ls $(rm -rf ~)", "measured"),
    Row("bypass-backticks", "ls `rm -rf ~`", "measured"),
    Row("bypass-parameter", "${X:-rm} -rf ~", "measured"),
    Row("bypass-quoted-parameter", '"$X" -rf ~', "measured"),
    Row("bypass-tilde", "~/bin/rm -rf x", "measured"),
    Row("bypass-redirect", "echo x > ~/.bashrc", "measured"),
    Row("bypass-heredoc", "sh <<EOF\nrm -rf ~\nEOF", "measured"),
    Row("bypass-background", "ls & rm -rf ~", "measured"),
    Row("bypass-prefix-assignment", "PATH=/tmp/evil ls", "measured"),
    Row("bypass-double-semicolon", "ls;; rm -rf ~", "unmeasured"),
    Row("bypass-empty-pipe", "ls | | rm -rf ~", "unmeasured"),
    Row("bypass-dangling-pipe", "ls |", "unmeasured"),
    Row("bypass-dangling-and", "ls &&", "unmeasured"),
]


def assert_well_formed(reading: ShellReading) -> None:
    """A reading is measured with a program and no reason, or unmeasured with one sentence."""
    assert isinstance(reading, ShellReading)
    if reading.status == "measured":
        assert reading.reason is None
        assert reading.program is not None
        return
    assert reading.status == "unmeasured"
    assert reading.program is None
    reason = reading.reason
    assert reason is not None
    assert reason[0].isupper(), reason
    assert reason.endswith("."), reason
    assert "\n" not in reason
    assert "Traceback" not in reason
    assert not reason.startswith(INTERNAL_FAILURE), reason


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_hostile_input_returns_a_reading(row: Row) -> None:
    reading = read_shell(row.source)
    assert_well_formed(reading)
    if row.status != "either":
        assert reading.status == row.status, reading.reason
    if isinstance(row.source, str):
        check_spans(row.source, reading)


def test_row_ids_are_unique() -> None:
    assert len({row.id for row in ROWS}) == len(ROWS)


# ───────────────────────── what the reasons say ─────────────────────────


@pytest.mark.parametrize("kind", sorted(NESTINGS))
def test_reports_unmeasured_when_nesting_passes_the_limit(kind: str) -> None:
    reading = read_shell(NESTINGS[kind](MAX_NESTING + 1))
    assert reading.reason is not None
    assert f"nests deeper than {MAX_NESTING} levels" in reading.reason


def test_reports_unmeasured_when_the_source_is_over_the_byte_limit() -> None:
    reading = read_shell("true" + " " * (MAX_SOURCE_BYTES - 3))
    assert (
        reading.reason
        == f"The text is {MAX_SOURCE_BYTES + 1} bytes long, over the limit of {MAX_SOURCE_BYTES}."
    )


def test_reports_unmeasured_when_the_text_holds_a_nul_byte() -> None:
    reading = read_shell("echo a\x00b")
    assert reading.reason == "The text contains a NUL byte at offset 6."


def test_reports_unmeasured_when_bytes_are_not_utf8() -> None:
    reading = read_shell(b"echo \xff")
    assert reading.reason == "The text is not valid UTF-8 (byte offset 5)."


def test_reports_unmeasured_when_text_holds_a_lone_surrogate() -> None:
    reading = read_shell("echo \ud800")
    assert reading.reason == "The text is not valid Unicode (a lone surrogate at offset 5)."


# tree-sitter-bash's scanner asks ``isdigit`` of the characters after a ``{``
# (a brace range); past U+00FF that reads outside the C library's table. This
# text crashed the process that parsed it (found by the round-trip property
# in tests/test_wire.py).
OUTSIDE_THE_TABLE = "{\uf0ca\U000c3a48"


@pytest.mark.parametrize(
    ("source", "at"),
    [
        (OUTSIDE_THE_TABLE, 0),
        ("echo {\u03b1,\u03b2}", 5),
        ("echo {12\u0663}", 5),
        ("echo {1..\u0663}", 5),
        ("echo {1..2\u0663}", 5),
        ("echo a; echo $(echo {\u4e2d})", 20),
        ("echo '{\u4e2d'", 6),
    ],
    ids=["found", "letters", "digits", "range", "range-digits", "substitution", "quoted"],
)
def test_a_brace_before_a_character_past_latin1_is_not_given_to_tree_sitter(
    source: str, at: int
) -> None:
    reading = read_shell(source)
    assert reading.reason == (
        f"The `{{` at offset {at} is followed by a character past U+00FF, which tree-sitter-bash's"
        " scanner cannot classify without reading outside its table."
    )


@pytest.mark.parametrize(
    "source",
    [
        "echo {\u00e9,a}",
        "echo {1..3}",
        "echo \u4e2d{a,b}",
        "echo {a,\u4e2d}",
        "printf '%s' '{\"\u540d\": 1}'",
        "cat <<'EOF'\n{\u4e2d}\nEOF",
    ],
    ids=["latin1", "range", "before", "later", "json", "heredoc-body"],
)
def test_a_brace_before_ascii_or_latin1_is_read(source: str) -> None:
    assert read_shell(source).program is not None


def test_the_text_that_crashed_the_parser_is_refused_in_a_process_of_its_own() -> None:
    # The crash depends on what lies past the table, so it is shown where it
    # happened: a fresh interpreter, which ends normally.
    code = (
        "import sys; from gateway._read import read_shell;"
        "sys.stdout.write(read_shell(sys.argv[1]).reason or '')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, OUTSIDE_THE_TABLE],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("The `{` at offset 0 is followed by a character past U+00FF")


@pytest.mark.parametrize(
    "source",
    [
        "echo " + "{" * 60_000,
        "echo " + "[" * 60_000,
        "echo " + "${x:" * 30 + "1" + "}" * 30,
    ],
    ids=["braces", "brackets", "colon-parameters"],
)
def test_reports_unmeasured_when_scanning_words_would_take_too_long(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Look-ahead over these is quadratic or exponential; the scanner's step budget ends it."""
    # Take the time budgets away, so only the step budget (which counts, never
    # times) can end it.
    monkeypatch.setattr(gateway._read, "PARSE_BUDGET_SECONDS", 600.0)
    monkeypatch.setattr(gateway._read, "PARSE_BACKSTOP_SECONDS", 600.0)
    reading = read_shell(source)
    assert reading.reason is not None
    assert f"more than {SCAN_STEPS_PER_CHAR} steps a character" in reading.reason


def test_scanner_charges_look_ahead_against_its_budget() -> None:
    """Each unclosed ``{`` looks to the end of the word: 4,000 of them cost 8 million steps."""
    text = "{" * 4_000
    scanner = WordScanner(Source(text), {}, "test")
    with pytest.raises(Unreadable, match="steps a character"):
        scanner.word(0, len(text))


def test_scanner_reads_a_long_plain_word_within_budget() -> None:
    text = "a,b" * 20_000 + "'" + "x" * 1_000 + "'"
    scanner = WordScanner(Source(text), {}, "test")
    assert scanner.word(0, len(text)).value == "a,b" * 20_000 + "x" * 1_000


def test_parameter_expansions_nest_no_deeper_than_the_limit() -> None:
    with pytest.raises(Unreadable, match="nests deeper"):
        read_with_tree_sitter(Source(parameter(MAX_NESTING + 1)))
    assert read_with_tree_sitter(Source(parameter(MAX_NESTING))).statements


def test_loops_count_one_nesting_level_each() -> None:
    """A loop and its ``do … done`` are one level, as in bashlex: 64 nested loops are read."""
    assert read_with_tree_sitter(Source(while_(MAX_NESTING))).statements
    with pytest.raises(Unreadable, match="nests deeper"):
        read_with_tree_sitter(Source(while_(MAX_NESTING + 1)))


# ───────────────────────── what measured rows show ─────────────────────────


def test_parentheses_without_blanks_are_one_arithmetic_command() -> None:
    """bash reads ``((((0))))`` as arithmetic (its status is 1), not as subshells."""
    reading = read_shell("((((0))))")
    assert reading.program is not None
    assert isinstance(only_command(reading.program), ArithCommand)


def test_line_separator_is_part_of_the_program_name() -> None:
    """U+2028 is not a blank to bash: ``echo\\u2028rm`` is one word."""
    reading = read_shell("echo\u2028rm x")
    assert reading.program is not None
    assert command_names(reading.program) == ["echo\u2028rm"]


def test_nothing_to_run_is_a_program_without_statements() -> None:
    for source in ("", "  \n\t\n", "# rm -rf /", "# a\n  # b\n#"):
        reading = read_shell(source)
        assert reading.program is not None, source
        assert reading.program.statements == ()


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("ls $(rm -rf ~)", ["ls", "rm"]),
        ("ls `rm -rf ~`", ["ls", "rm"]),
        ("ls & rm -rf ~", ["ls", "rm"]),
        ("PATH=/tmp/evil ls", ["ls"]),
    ],
)
def test_bypass_shows_every_command(source: str, names: list[str]) -> None:
    reading = read_shell(source)
    assert reading.program is not None
    assert command_names(reading.program) == names


@pytest.mark.parametrize("source", ["${X:-rm} -rf ~", '"$X" -rf ~', "~/bin/rm -rf x"])
def test_dynamic_program_name_has_no_value(source: str) -> None:
    reading = read_shell(source)
    assert reading.program is not None
    assert only_simple(reading.program).words[0].value is None
