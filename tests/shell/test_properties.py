"""
Property tests: generated shell-like text never makes the reader raise, and
every span of a measured reading slices back to the source in chars and bytes.

The generator follows a small grammar of bash (words made of quotes,
expansions and substitutions; redirects; heredocs; pipelines, lists and
compound commands) and mixes in mutations and random text, so both readers'
happy paths and their error paths are exercised.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from gateway._read import read_shell
from gateway._read._tree import Program
from shell.walk import check_spans

PROPERTY_SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

NAME = st.sampled_from(["x", "HOME", "a_1", "PATH", "IFS"])
PLAIN = st.text(
    alphabet="abcdefgrm0123456789-./_=:,@%+éü✓😀",
    min_size=1,
    max_size=6,
)
SPECIAL = st.sampled_from(["1", "?", "$", "@", "#", "!", "-", "*", "0"])


def atoms(statements: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """The pieces a word is glued from; ``statements`` reads a nested statement list."""
    double_inner = st.lists(
        st.one_of(
            PLAIN,
            st.sampled_from([" ", '\\"', "\\\\", "\\$", "'", "\\\n", "\\a", "*", "~"]),
            NAME.map(lambda n: "$" + n),
            NAME.map(lambda n: "${" + n + "}"),
            statements.map(lambda s: "$(" + s + ")"),
        ),
        max_size=4,
    ).map("".join)
    return st.one_of(
        PLAIN,
        st.sampled_from(
            ["*", "?", "[ab]", "{a,b}", "{1..3}", "~", "~/x", "{}", "[", "]", "!", "#"]
        ),
        st.sampled_from(["\\ ", "\\;", "\\$", "\\'", '\\"', "\\\\", "\\\n", "\\é"]),
        st.text(alphabet='ab $\\"`()|;&\né😀', max_size=6).map(lambda t: "'" + t + "'"),
        double_inner.map(lambda t: '"' + t + '"'),
        st.sampled_from(["\\x72", "\\101", "\\n", "\\'", "\\u00e9", "\\c", "a\\0b", "\\q"]).map(
            lambda t: "$'" + t + "'"
        ),
        NAME.map(lambda n: "$" + n),
        SPECIAL.map(lambda s: "$" + s),
        st.tuples(
            NAME, st.sampled_from([":-", "-", ":=", "#", "##", "%", "/", ":+", ":"]), PLAIN
        ).map(lambda t: "${" + t[0] + t[1] + t[2] + "}"),
        NAME.map(lambda n: "${#" + n + "}"),
        statements.map(lambda s: "$(" + s + ")"),
        statements.map(lambda s: "`" + s.replace("\\", "").replace("`", "") + "`"),
        statements.map(lambda s: "<(" + s + ")"),
        st.sampled_from(["$((1 + x))", "$[2*3]", "$((y++))"]),
    )


def words(statements: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(atoms(statements), min_size=1, max_size=2).map("".join)


REDIRECT = st.one_of(
    st.sampled_from(["> f", ">> f", "< in", "2>&1", ">&-", "&> log", "2> /dev/null", ">| f"]),
    PLAIN.map(lambda w: "<<< " + w),
    PLAIN.map(lambda w: "> " + w),
)


def simple_commands(statements: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(
        st.lists(st.tuples(NAME, words(statements)).map(lambda t: t[0] + "=" + t[1]), max_size=1),
        PLAIN,
        st.lists(words(statements), max_size=2),
        st.lists(REDIRECT, max_size=1),
    ).map(lambda t: " ".join([*t[0], t[1], *t[2], *t[3]]))


def compounds(lists: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        lists.map(lambda s: "( " + s + " )"),
        lists.map(lambda s: "{ " + s + "; }"),
        st.tuples(lists, lists).map(lambda t: f"if {t[0]}; then {t[1]}; fi"),
        st.tuples(lists, lists, lists).map(lambda t: f"if {t[0]}; then {t[1]}; else {t[2]}; fi"),
        st.tuples(PLAIN, lists).map(lambda t: f"for x in {t[0]} b; do {t[1]}; done"),
        st.tuples(lists, lists).map(lambda t: f"while {t[0]}; do {t[1]}; done"),
        lists.map(lambda s: "f() { " + s + "; }"),
    )


def statement_lists(depth: int, *, top: bool = True) -> st.SearchStrategy[str]:
    """A list of statements, nesting substitutions and compounds up to ``depth`` levels."""
    if depth == 0:
        inner: st.SearchStrategy[str] = st.sampled_from(["a", "ls -la", "rm -rf x", "true"])
    else:
        inner = st.deferred(lambda: statement_lists(depth - 1, top=False))
    command = (
        st.one_of(simple_commands(inner), compounds(inner)) if depth else simple_commands(inner)
    )
    pipeline = st.tuples(
        st.booleans(),
        st.lists(command, min_size=1, max_size=2),
        st.sampled_from([" | ", " |& ", "|"]),
    ).map(lambda t: ("! " if t[0] else "") + t[2].join(t[1]))
    and_or = st.tuples(
        st.lists(pipeline, min_size=1, max_size=2), st.sampled_from([" && ", " || "])
    ).map(lambda t: t[1].join(t[0]))
    # A comment would swallow the closer of an enclosing construct: only at the top.
    ends = ["", ";", " &", "\n", " # note"] if top else [""]
    return st.tuples(
        st.lists(and_or, min_size=1, max_size=2),
        st.sampled_from(["; ", " & ", "\n", ";"]),
        st.sampled_from(ends),
    ).map(lambda t: t[1].join(t[0]) + t[2])


HEREDOC_BODY = st.lists(
    st.one_of(
        PLAIN,
        st.sampled_from(
            ["$x", "${y:-z}", "$(date)", "`id`", "\\$x", "\\", "\t", "EOF ", " EOF", "é😀"]
        ),
        st.text(max_size=8).filter(lambda t: "\n" not in t and "\x00" not in t),
    ),
    max_size=4,
).map("".join)


def heredoc_statements() -> st.SearchStrategy[str]:
    return st.tuples(
        st.sampled_from(["cat", "python3", "sh -s"]),
        st.sampled_from(["<<", "<<-"]),
        st.sampled_from(["EOF", "'EOF'", '"EOF"', "\\EOF"]),
        st.sampled_from(["", " > out.py", " && echo done", " | grep x"]),
        st.lists(HEREDOC_BODY, max_size=3),
        st.sampled_from(["EOF", "\tEOF"]),
        st.sampled_from(["", "\n", "\nrm -rf x\n"]),
    ).map(
        lambda t: (
            f"{t[0]} {t[1]}{t[2]}{t[3]}\n"
            + "".join(line + "\n" for line in t[4])
            + (t[5] if t[1] == "<<-" else "EOF")
            + t[6]
        )
    )


SHELL = st.one_of(
    statement_lists(2),
    heredoc_statements(),
    st.tuples(statement_lists(1), heredoc_statements()).map(lambda t: t[0] + "\n" + t[1]),
    st.tuples(heredoc_statements(), statement_lists(1)).map(lambda t: t[0] + "\n" + t[1]),
    statement_lists(1).map(lambda s: "x=$(" + s + ")"),
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """Generated shell with a random slice replaced by random characters."""
    text = draw(SHELL)
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 4)))
    filler = draw(st.text(alphabet="'\"`$(){}[]<>|&;\\\n #~*=é", max_size=3))
    return text[:start] + filler + text[end:]


ANY_TEXT = st.one_of(
    SHELL,
    mutated(),
    st.text(alphabet="ab $'\"`\\(){}[]<>|&;#~*?!=\n\t-é😀\r\u2028", max_size=40),
    st.text(max_size=40),
)


def statement_starts_ascend(program: Program) -> bool:
    starts = [statement.span.start for statement in program.statements]
    return starts == sorted(starts)


@PROPERTY_SETTINGS
@given(ANY_TEXT)
def test_reading_never_raises_and_measured_spans_slice_back(text: str) -> None:
    reading = read_shell(text)
    assert reading.status in ("measured", "unmeasured")
    assert (reading.program is None) == (reading.status == "unmeasured")
    assert (reading.reason is None) == (reading.status == "measured")
    if reading.program is not None:
        check_spans(text, reading)
        assert statement_starts_ascend(reading.program)


@PROPERTY_SETTINGS
@given(SHELL)
def test_reading_generated_shell_is_deterministic(text: str) -> None:
    """No state carried between readings (worker pool, caches) changes what a source reads as."""
    first = read_shell(text)
    check_spans(text, first)
    assert read_shell(text) == first


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40))
def test_reading_bytes_never_raises(data: bytes) -> None:
    reading = read_shell(data)
    assert (reading.program is None) == (reading.status == "unmeasured")
    if reading.program is not None:
        check_spans(data.decode("utf-8"), reading)
