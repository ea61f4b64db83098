"""
Fragments (SEMANTICS.md §2): the exact text a heredoc feeds its command, or what blocks it.

`expand_fragment` gives `Complete` only when every value is known: holes
(``$( )``) are questions that must be answered first, unsupplied names block
in strict mode, and session state (``$?``, ``$1`` …) is an error a scope can
never satisfy. Values come from the scope, never from the environment.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from gateway.plans import Expansion, FragmentAddr, FragmentError, expand_fragment

FIRST = FragmentAddr(statement=0, heredoc=0)


def body(text: str, *, delimiter: str = "EOF", operator: str = "<<") -> str:
    """A `cat` command whose heredoc body is ``text`` (one trailing newline added)."""
    return f"cat {operator}{delimiter}\n{text}\n{delimiter.strip(chr(39) + chr(34))}"


def expand(
    source: str,
    scope: Mapping[str, str | int] | None = None,
    answers: Mapping[int, str] | None = None,
    *,
    strict: bool = True,
) -> Expansion:
    return expand_fragment(source, FIRST, scope, answers, strict=strict)


def complete(
    source: str,
    scope: Mapping[str, str | int] | None = None,
    answers: Mapping[int, str] | None = None,
    *,
    strict: bool = True,
) -> str:
    expansion = expand(source, scope, answers, strict=strict)
    assert expansion.complete is not None, expansion
    return expansion.complete


def error(source: str, addr: FragmentAddr = FIRST) -> FragmentError:
    with pytest.raises(FragmentError) as caught:
        expand_fragment(source, addr)
    return caught.value


# ───────────────────────── literal bodies ─────────────────────────


@pytest.mark.parametrize("delimiter", ["'EOF'", '"EOF"'], ids=["single-quoted", "double-quoted"])
def test_literal_body_expands_to_itself(delimiter: str) -> None:
    text = "$HOME ${X:-$(rm -rf /)} `id` $((1/0)) $? \\$ \\\\ trailing\\"
    assert complete(body(text, delimiter=delimiter), {"HOME": "/root"}) == text + "\n"


def test_backslash_quoted_delimiter_makes_the_body_literal() -> None:
    assert complete("cat <<\\EOF\n$x $(id)\nEOF") == "$x $(id)\n"


def test_literal_strip_tabs_body_loses_only_leading_tabs() -> None:
    source = "cat <<-'EOF'\n\t\t$keep\tinner\n  spaces\n\tEOF"
    assert complete(source) == "$keep\tinner\n  spaces\n"


def test_literal_body_keeps_crlf_and_non_ascii() -> None:
    assert complete("cat <<'EOF'\nx\r\nhé ✓ 😀\r\nEOF") == "x\r\nhé ✓ 😀\r\n"


# ───────────────────────── unquoted escapes ─────────────────────────

ESCAPES = [
    ("a \\$x b", "a $x b"),
    ("a \\` b", "a ` b"),
    ("a \\\\ b", "a \\ b"),
    ("joined\\\nline", "joinedline"),
    ("keep \\n \\t \\a \\\" \\'", "keep \\n \\t \\a \\\" \\'"),
    ("trailing \\z", "trailing \\z"),
]


@pytest.mark.parametrize(("text", "expected"), ESCAPES, ids=[t for t, _ in ESCAPES])
def test_unquoted_body_follows_bash_backslash_rules(text: str, expected: str) -> None:
    """`\\$`, `` \\` ``, `\\\\` and backslash-newline are escapes; any other backslash is kept."""
    assert complete(body(text), {"x": "X"}) == expected + "\n"


def test_unquoted_strip_tabs_body_loses_leading_tabs_after_expansion() -> None:
    source = "cat <<-EOF\n\t\t$X\tkept\n\tEOF"
    assert complete(source, {"X": "hi"}) == "hi\tkept\n"


def test_unquoted_body_keeps_crlf() -> None:
    assert complete("cat <<EOF\n$X\r\nEOF", {"X": "v"}) == "v\r\n"


# ───────────────────────── scope ─────────────────────────


def test_values_come_from_the_scope() -> None:
    assert complete(body("$A ${B} ${C}x"), {"A": "1", "B": 2, "C": "c"}) == "1 2 cx\n"


def test_the_environment_is_never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEWAY_TEST_LEAK", "from-the-environment")
    source = body("value=$GATEWAY_TEST_LEAK")
    strict = expand(source)
    assert strict.blocked is not None
    assert strict.blocked.unbound == ("GATEWAY_TEST_LEAK",)
    assert complete(source, strict=False) == "value=\n"
    assert complete(source, {"GATEWAY_TEST_LEAK": "given"}) == "value=given\n"


def test_tilde_is_not_expanded_in_a_heredoc_body() -> None:
    """Bash does no tilde expansion in heredoc bodies, whatever HOME is."""
    assert complete(body("~/x ~"), {"HOME": "/h"}) == "~/x ~\n"


def test_strict_mode_blocks_naming_every_unsupplied_name() -> None:
    expansion = expand(body("$A ${B} $C $B"), {"A": "1"})
    assert expansion.complete is None
    assert expansion.blocked is not None
    assert expansion.blocked.unbound == ("B", "C")
    assert expansion.blocked.holes == ()


def test_lenient_mode_expands_unsupplied_names_empty() -> None:
    assert complete(body("[$A] [${B}] [$C]"), {"A": "1"}, strict=False) == "[1] [] []\n"


@pytest.mark.parametrize("text", ["${X:-d}", "${X-d}", "${X:+alt}", "${X+alt}", "${X:=d}"])
def test_strict_mode_blocks_an_unsupplied_name_even_under_a_default_operator(text: str) -> None:
    """`Complete` means every value was supplied: `${X:-d}` depends on whether X is set."""
    expansion = expand(body(text))
    assert expansion.blocked is not None
    assert expansion.blocked.unbound == ("X",)


def test_strict_mode_blocks_a_name_read_bare_and_under_a_default_operator() -> None:
    expansion = expand(body("$X ${X:-d}"))
    assert expansion.blocked is not None
    assert expansion.blocked.unbound == ("X",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("${X:-d}", "d"), ("${X-d}", "d"), ("${X:+alt}", ""), ("${X+alt}", ""), ("${X:=d}", "d")],
)
def test_lenient_mode_treats_an_unsupplied_name_as_unset(text: str, expected: str) -> None:
    assert complete(body(text), strict=False) == expected + "\n"


# ───────────────────────── session state ─────────────────────────


@pytest.mark.parametrize(
    "text",
    [
        "$?",
        "$$",
        "$1",
        "${1}",
        "$@",
        "$#",
        "$!",
        "$-",
        "$0",
        "$*",
        "${#@}",
        "${?:-x}",
        "$(($? + 1))",
    ],
)
def test_special_parameters_need_session_state(text: str) -> None:
    caught = error(body(f"x={text}"))
    assert caught.kind == "needs_session_state"
    assert "session state" in caught.message


def test_session_state_is_an_error_even_in_lenient_mode_and_with_a_scope() -> None:
    with pytest.raises(FragmentError) as caught:
        expand_fragment(body("$1"), FIRST, {"1": "one"}, strict=False)
    assert caught.value.kind == "needs_session_state"


# ───────────────────────── holes ─────────────────────────


def test_every_substitution_is_a_hole_in_source_order() -> None:
    source = body('a $(first) ${X:-$(second)} $(( 1 + $(third) )) "$(fourth --x)"')
    expansion = expand(source, {"X": "x"})
    assert expansion.blocked is not None
    holes = expansion.blocked.holes
    assert [h.index for h in holes] == [0, 1, 2, 3]
    assert [h.source for h in holes] == ["$(first)", "$(second)", "$(third)", "$(fourth --x)"]
    assert [[c.name for p in h.plans for c in p.commands] for h in holes] == [
        ["first"],
        ["second"],
        ["third"],
        ["fourth"],
    ]


def test_a_hole_has_one_plan_per_statement_of_its_body() -> None:
    expansion = expand(body("$(cd /tmp; ls | wc -l)"))
    assert expansion.blocked is not None
    (hole,) = expansion.blocked.holes
    assert [p.rendered for p in hole.plans] == ["cd /tmp", "ls | wc -l"]
    assert [p.statement_kind for p in hole.plans] == ["command", "pipeline"]


def test_holes_are_checked_before_anything_else() -> None:
    """Unsupplied names and session state are not reported while a hole is open."""
    expansion = expand(body("$UNSET $? $(date)"))
    assert expansion.blocked is not None
    assert [h.source for h in expansion.blocked.holes] == ["$(date)"]
    assert expansion.blocked.unbound == ()


def test_backticks_in_an_unquoted_body_are_holes() -> None:
    """A backtick substitution in a body runs before the command reads it, like ``$( )``."""
    expansion = expand(body("a `date` b"))
    assert expansion.blocked is not None
    assert [hole.source for hole in expansion.blocked.holes] == ["`date`"]


# ───────────────────────── answers ─────────────────────────

THREE_HOLES = body("$(a) [$(b)] ${X:-$(c)}")


def test_answering_every_hole_completes_the_text() -> None:
    answers = {0: "A\n", 1: "B\n\n\n", 2: "C"}
    assert complete(THREE_HOLES, {"X": ""}, answers) == "A [B] C\n"


def test_answering_some_holes_leaves_the_rest_blocked() -> None:
    expansion = expand(THREE_HOLES, {}, {1: "B"})
    assert expansion.blocked is not None
    assert [(h.index, h.source) for h in expansion.blocked.holes] == [(0, "$(a)"), (2, "$(c)")]


def test_answering_no_hole_blocks_on_all_of_them() -> None:
    no_answers: tuple[dict[int, str] | None, ...] = (None, {})
    for answers in no_answers:
        expansion = expand(THREE_HOLES, {}, answers)
        assert expansion.blocked is not None
        assert [h.index for h in expansion.blocked.holes] == [0, 1, 2]


def test_an_answer_loses_only_its_trailing_newlines() -> None:
    assert complete(body("<$(a)>"), {}, {0: "\n\nline one\n\nline two\n\n\n"}) == (
        "<\n\nline one\n\nline two>\n"
    )


def test_an_answer_is_inserted_verbatim_and_never_rescanned() -> None:
    answer = "$(rm -rf /) `reboot` $HOME \\$ ${X:-y}"
    assert complete(body("[$(a)]"), {}, {0: answer}) == f"[{answer}]\n"


def test_answers_do_not_supply_variables() -> None:
    expansion = expand(body("$(a) $Y"), {}, {0: "ok"})
    assert expansion.blocked is not None
    assert expansion.blocked.holes == ()
    assert expansion.blocked.unbound == ("Y",)


# ───────────────────────── addresses ─────────────────────────


def test_no_such_statement_names_how_many_exist() -> None:
    caught = error("cat <<EOF\nx\nEOF\nls", FragmentAddr(statement=3, heredoc=0))
    assert caught.kind == "no_such_statement"
    assert caught.message == "No such statement 3; the source has 2 statements."


def test_no_such_statement_for_a_negative_index() -> None:
    caught = error(body("x"), FragmentAddr(statement=-1, heredoc=0))
    assert caught.kind == "no_such_statement"
    assert "the source has 1 statement." in caught.message


def test_no_such_heredoc_names_how_many_the_statement_has() -> None:
    caught = error(body("x"), FragmentAddr(statement=0, heredoc=1))
    assert caught.kind == "no_such_heredoc"
    assert caught.message == "No such heredoc 1 in statement 0; it has 1."


def test_a_statement_without_heredocs_has_none_to_expand() -> None:
    caught = error("ls; cat <<EOF\nx\nEOF", FragmentAddr(statement=0, heredoc=0))
    assert caught.kind == "no_such_heredoc"
    assert caught.message.endswith("it has 0.")


def test_an_unreadable_source_is_a_parse_error() -> None:
    caught = error("cat <<EOF\nnever closed")
    assert caught.kind == "parse"
    assert caught.message


# ───────────────────────── parameter operators ─────────────────────────

X = "a/boo/zoo/BaR"
OPERATORS = [
    ("${X:-d}", {"X": X}, X),
    ("${X:-d}", {"X": ""}, "d"),
    ("${X-d}", {"X": ""}, ""),
    ("${X:+alt}", {"X": X}, "alt"),
    ("${X:+alt}", {"X": ""}, ""),
    ("${X+alt}", {"X": ""}, "alt"),
    ("${#X}", {"X": X}, "13"),
    ("${#X}", {"X": "é✓"}, "2"),
    ("${X#*/}", {"X": X}, "boo/zoo/BaR"),
    ("${X##*/}", {"X": X}, "BaR"),
    ("${X%/*}", {"X": X}, "a/boo/zoo"),
    ("${X%%/*}", {"X": X}, "a"),
    ("${X#nomatch}", {"X": X}, X),
    ("${X/o/0}", {"X": X}, "a/b0o/zoo/BaR"),
    ("${X//o/0}", {"X": X}, "a/b00/z00/BaR"),
    ("${X//o}", {"X": X}, "a/b/z/BaR"),
    ("${X/#a/Z}", {"X": X}, "Z/boo/zoo/BaR"),
    ("${X/%R/r}", {"X": X}, "a/boo/zoo/Bar"),
    ("${X^^}", {"X": X}, "A/BOO/ZOO/BAR"),
    ("${X,,}", {"X": X}, "a/boo/zoo/bar"),
    ("${X^}", {"X": "word"}, "Word"),
    ("${X,}", {"X": "WORD"}, "wORD"),
    ("${X:2}", {"X": X}, "boo/zoo/BaR"),
    ("${X:2:3}", {"X": X}, "boo"),
    ("${X: -3}", {"X": X}, "BaR"),
    ("${X:1:-1}", {"X": X}, "/boo/zoo/Ba"),
    ("${X:N:2}", {"X": X, "N": "2"}, "bo"),
    ("${!P}", {"P": "X", "X": X}, X),
    ("${X@Q}", {"X": "it's"}, "'it'\\''s'"),
]


@pytest.mark.parametrize(
    ("text", "scope", "expected"),
    OPERATORS,
    ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(OPERATORS)],
)
def test_parameter_operators_expand_as_bash_does(
    text: str, scope: dict[str, str], expected: str
) -> None:
    assert complete(body(text), scope) == expected + "\n"


@pytest.mark.parametrize("text", ["${X#*/}", "${X//o/0}", "${X^^}", "${X:2:3}", "${#X}"])
def test_an_operator_on_an_unsupplied_name_blocks(text: str) -> None:
    expansion = expand(body(text))
    assert expansion.blocked is not None
    assert expansion.blocked.unbound == ("X",)


def test_an_array_read_cannot_be_supplied_by_a_scope() -> None:
    expansion = expand(body("${ARR[0]}"), {"ARR": "x"})
    assert expansion.blocked is not None
    assert expansion.blocked.unbound == ("ARR",)


# ───────────────────────── arithmetic ─────────────────────────

ARITHMETIC = [
    ("$((COUNT+1))", "42"),
    ("$(( COUNT + 1 ))", "42"),
    ("$(( $COUNT + ${COUNT} ))", "82"),
    ("$((2+3*4))", "14"),
    ("$(( 20 - 2 * 3 ))", "14"),
    ("$(( 10 % 3 ))", "1"),
    ("$((2**10))", "1024"),
    ("$((2 ** 3 ** 2))", "512"),
    ("$((-7/2))", "-3"),
    ("$((COUNT > 40 ? 1 : 0))", "1"),
    ("$((3>2 && 0))", "0"),
    ("$((010 + 0x1f))", "39"),
    ("$((~0))", "-1"),
    ("$((!0))", "1"),
    ("$((EXPR * 4))", "20"),
]


@pytest.mark.parametrize(("text", "expected"), ARITHMETIC, ids=[t for t, _ in ARITHMETIC])
def test_arithmetic_expands_with_bash_precedence(text: str, expected: str) -> None:
    """Values from the scope are numbers or expressions (`EXPR=2+3` evaluates as `(2+3)`)."""
    assert complete(body(text), {"COUNT": 41, "EXPR": "2+3"}) == expected + "\n"


@pytest.mark.parametrize("text", ["$((7/0))", "$(( 5 % 0 ))", "$((X/Y))"])
def test_division_by_zero_is_a_parse_error(text: str) -> None:
    with pytest.raises(FragmentError) as caught:
        expand_fragment(body(text), FIRST, {"X": 4, "Y": 0})
    assert caught.value.kind == "parse"
    assert "division by 0" in caught.value.message


def test_invalid_arithmetic_is_a_parse_error() -> None:
    with pytest.raises(FragmentError) as caught:
        expand_fragment(body("$(( 2 + ))"), FIRST)
    assert caught.value.kind == "parse"


def test_a_scope_value_that_is_not_arithmetic_is_a_parse_error() -> None:
    with pytest.raises(FragmentError) as caught:
        expand_fragment(body("$((N + 1))"), FIRST, {"N": "not a number"})
    assert caught.value.kind == "parse"
    assert "`N`" in caught.value.message


def test_arithmetic_on_an_unsupplied_name_blocks_in_strict_mode() -> None:
    expansion = expand(body("$((MISSING + 1))"))
    assert expansion.blocked is not None
    assert expansion.blocked.unbound == ("MISSING",)
    assert complete(body("$((MISSING + 1))"), strict=False) == "1\n"
