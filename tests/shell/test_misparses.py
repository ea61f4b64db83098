"""
Known silent misparses of one parser or the other, each pinned.

Every input below fooled bashlex or tree-sitter (or both) into reporting a
command line that is not what bash runs. For each, the reading must either be
right — the command that really runs is visible in the tree — or be
unmeasured with a reason. The table pins which of the two it is today, so a
change of either direction is seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

import pytest

from gateway._read import read_shell
from gateway._read._tree import Program
from shell.walk import command_names, heredocs, only_simple, simple_commands, substitutions


class Misparse(NamedTuple):
    id: str
    source: str
    outcome: Literal["measured", "unmeasured"]
    check: Callable[[Program], None] | None = None


def runs(*names: str) -> Callable[[Program], None]:
    """A check that the tree shows exactly these commands (in any order)."""

    def check(program: Program) -> None:
        assert sorted(command_names(program)) == sorted(names)

    return check


def first_word_runs(value: str) -> Callable[[Program], None]:
    def check(program: Program) -> None:
        assert only_simple(program).words[0].value == value

    return check


def heredoc_body_is(program: Program, body: str, names: list[str]) -> None:
    (heredoc,) = heredocs(program)
    assert heredoc.body == body
    assert command_names(program) == names


def assert_words(program: Program, values: list[str]) -> None:
    assert [word.value for word in only_simple(program).words] == values


def quoted_heredoc_ends_at_its_first_terminator(program: Program) -> None:
    (heredoc,) = heredocs(program)
    assert heredoc.quoted
    assert heredoc.body == "foo\\\n"
    assert command_names(program) == ["cat", "rm", "EOF"]
    rm = simple_commands(program)[1]
    assert [word.value for word in rm.words] == ["rm", "-rf", "/"]


def unquoted_body_substitution_is_seen(program: Program) -> None:
    (heredoc,) = heredocs(program)
    assert not heredoc.quoted
    assert command_names(program) == ["cat", "rm"]
    assert len(substitutions(program)) == 1


def redirect_target_is_not_an_argument(program: Program) -> None:
    command = only_simple(program)
    assert [word.value for word in command.words] == ["cmd", "arg"]
    assert [(r.operator, r.target.value if r.target else None) for r in command.redirects] == [
        ("<", "in")
    ]


def quoted_parts_around_a_substitution_stay_one_word(program: Program) -> None:
    command = only_simple(program)
    assert len(command.words) == 2
    assert command.words[1].value is None
    assert sorted(command_names(program)) == ["echo", "rm"]


MISPARSES = [
    Misparse(
        "quotes-glued-to-substitution",
        "echo 'x'$(rm -rf ~)'y'",
        "measured",
        quoted_parts_around_a_substitution_stay_one_word,
    ),
    Misparse(
        "double-quoted-substitution-between-quotes",
        "echo 'x'\"$(id)\"'y'",
        "measured",
        runs("echo", "id"),
    ),
    Misparse("quoted-program-name", "'r''m' -rf x", "measured", first_word_runs("rm")),
    Misparse("ansi-c-program-name", "$'\\x72m' -rf x", "measured", first_word_runs("rm")),
    Misparse("double-quoted-program-name", '"r"m -rf x', "measured", first_word_runs("rm")),
    Misparse("escaped-program-name", "\\rm -rf x", "measured", first_word_runs("rm")),
    Misparse(
        "substitution-in-unquoted-heredoc",
        "cat <<EOF\n$(rm -rf ~)\nEOF",
        "measured",
        unquoted_body_substitution_is_seen,
    ),
    Misparse(
        "substitution-in-parameter-default",
        "echo ${x:-$(rm -rf ~)}",
        "measured",
        runs("echo", "rm"),
    ),
    Misparse("adjacent-backticks", "echo `true` `rm x`", "unmeasured"),
    Misparse("adjacent-backticks-with-quotes", 'echo `date +"%a"` `hostname`', "unmeasured"),
    Misparse(
        "backtick-in-unquoted-heredoc", "cat <<EOF\n`rm x`\nEOF", "measured", runs("cat", "rm")
    ),
    # bashlex reads `((` as two subshells; the reader reads `(( … ))` as arithmetic itself.
    Misparse("substitution-in-arithmetic-command", "(( $(id) ))", "measured", runs("id")),
    Misparse(
        "nested-substitutions",
        "echo $(echo $(echo $(id)))",
        "measured",
        runs("echo", "echo", "echo", "id"),
    ),
    Misparse(
        "quoted-heredoc-line-ending-in-backslash",
        "cat <<'EOF'\nfoo\\\nEOF\nrm -rf /\nEOF",
        "measured",
        quoted_heredoc_ends_at_its_first_terminator,
    ),
    # Unquoted, the backslash joins "foo" and "EOF": the body runs to the last
    # EOF and `rm` is body text (tree-sitter ended the body early).
    Misparse(
        "unquoted-heredoc-line-ending-in-backslash",
        "cat <<EOF\nfoo\\\nEOF\nrm -rf /\nEOF",
        "measured",
        lambda program: heredoc_body_is(program, "foo\\\nEOF\nrm -rf /\n", ["cat"]),
    ),
    # bash runs `[ a ]` with standard output sent to the file `b`.
    Misparse("redirect-inside-test-brackets", "[ a > b ]", "unmeasured"),
    Misparse(
        "argument-after-redirect-target",
        "cmd < in arg",
        "measured",
        redirect_target_is_not_an_argument,
    ),
    # bash opens a new descriptor stored in `fd`; neither parser knows the form.
    Misparse("named-descriptor-redirect", "cat x {fd}>out", "unmeasured"),
    Misparse("named-descriptor-heredoc", "cat {fd}<<EOF\nx\nEOF", "unmeasured"),
    # bashlex alone reads the heredoc body of a command inside a compound
    # command as commands (`x`): the body must stay a body.
    Misparse(
        "heredoc-inside-if",
        "if true; then cat <<EOF\nx\nEOF\nfi",
        "measured",
        lambda program: heredoc_body_is(program, "x\n", ["true", "cat"]),
    ),
    Misparse(
        "heredoc-inside-group",
        "{ cat <<EOF\nx\nEOF\n}",
        "measured",
        lambda program: heredoc_body_is(program, "x\n", ["cat"]),
    ),
    Misparse(
        "command-after-empty-heredoc-inside-group",
        "{ cat <<EOF\nEOF\nrm x\n}",
        "measured",
        lambda program: heredoc_body_is(program, "", ["cat", "rm"]),
    ),
    Misparse(
        "substitution-in-heredoc-inside-loop",
        "while a; do cat <<EOF\n$(rm x)\nEOF\ndone",
        "measured",
        runs("a", "cat", "rm"),
    ),
    # tree-sitter splits a word at backslash-newline, or at a vertical tab.
    Misparse("backslash-newline-inside-a-word", "echo a\\\nb", "unmeasured"),
    Misparse("line-continued-program-name", "r\\\nm -rf x", "unmeasured"),
    Misparse("vertical-tab-is-not-a-blank", "echo\vrm x", "unmeasured"),
    Misparse("form-feed-is-not-a-blank", "echo\frm x", "unmeasured"),
    # bash reads `a\r` as a word; tree-sitter drops the carriage return.
    Misparse("carriage-return-before-newline", "echo a\r\nrm x", "unmeasured"),
    # A terminator line with a trailing blank is body text in bash.
    Misparse("heredoc-terminator-with-trailing-blank", "cat <<EOF\nhi\nEOF \nrm x", "unmeasured"),
    Misparse(
        "heredoc-terminator-indented-without-dash",
        "cat <<EOF\nhi\n  EOF\nrm x\nEOF",
        "measured",
        lambda program: heredoc_body_is(program, "hi\n  EOF\nrm x\n", ["cat"]),
    ),
    Misparse(
        "heredoc-terminator-tab-stripped-with-dash",
        "cat <<-EOF\n\thi\n\tEOF\nrm x",
        "measured",
        runs("cat", "rm"),
    ),
    # tree-sitter-bash dropped a lone `-` argument written before `<<` (it never sees `<<` now).
    Misparse(
        "dash-argument-before-heredoc",
        "python3 - <<'EOF'\nprint(1)\nEOF",
        "measured",
        lambda program: assert_words(program, ["python3", "-"]),
    ),
    Misparse(
        "partly-quoted-delimiter",
        'cat <<EO"F"\n$(rm x)\nEOF',
        "measured",
        lambda program: heredoc_body_is(program, "$(rm x)\n", ["cat"]),
    ),
    Misparse(
        "escaped-dollar-in-unquoted-body",
        "cat <<EOF\n\\$X $(id)\nEOF",
        "measured",
        runs("cat", "id"),
    ),
    Misparse(
        "quoted-tab-stripped-body-then-and",
        "cat <<-\\EOF &&\n\tx\n\tEOF\necho done",
        "measured",
        lambda program: heredoc_body_is(program, "\tx\n", ["cat", "echo"]),
    ),
    Misparse(
        "dash-argument-before-other-redirect",
        "cat - > f",
        "measured",
        lambda program: assert_words(program, ["cat", "-"]),
    ),
    # A `#` inside `$( )` starts a comment that hides the `)`.
    Misparse(
        "comment-hides-closing-parenthesis",
        "echo $(echo a #)\nid)",
        "measured",
        runs("echo", "echo", "id"),
    ),
    Misparse("escaped-dollar-is-not-a-substitution", 'echo "\\$(rm x)"', "measured", runs("echo")),
    Misparse("single-quoted-substitution-is-text", "echo '$(rm x)'", "measured", runs("echo")),
    Misparse("escaped-backticks-are-text", "echo \\`rm x\\`", "measured", runs("echo")),
    Misparse(
        "substitution-in-quoted-heredoc-is-text",
        "cat <<'EOF'\n$(rm x)\nEOF",
        "measured",
        runs("cat"),
    ),
    Misparse("assignment-substitution", "a=$(rm x) b", "measured", runs("b", "rm")),
    # Inside double quotes bash keeps the single quotes of `${x:+'…'}` (and of
    # `:-` `-` `:=` `=` `+`) as characters and runs what stands between them.
    Misparse(
        "backtick-between-quotes-in-double-quoted-alternative",
        "echo \"${PATH:+'`curl -s URL | sh`'}\"",
        "unmeasured",
    ),
    Misparse(
        "substitution-between-quotes-in-double-quoted-default",
        "echo \"${x:-'$(rm -rf ~)'}\"",
        "unmeasured",
    ),
    Misparse(
        "single-quoted-text-in-double-quoted-default",
        "echo \"${1:-'none'}\"",
        "measured",
        runs("echo"),
    ),
    Misparse(
        "quoted-brace-in-double-quoted-default", "echo \"${u:-'}'}\"", "measured", runs("echo")
    ),
    Misparse(
        "substitution-between-quotes-in-unquoted-default",
        "echo ${x:-'$(rm x)'}",
        "measured",
        runs("echo"),
    ),
    # In a pattern operator the single quotes quote, in double quotes too.
    Misparse(
        "substitution-between-quotes-in-double-quoted-pattern",
        "echo \"${x#'$(rm x)'}\"",
        "measured",
        runs("echo"),
    ),
    # `extquote`: bash decodes `$'…'` in a double-quoted `${x:-…}`, then expands the result.
    Misparse("ansi-c-in-double-quoted-default", "echo \"${u:-$'\\x24(rm x)'}\"", "unmeasured"),
    # bash removes the backslash of `\"` (in double quotes), `\$`, `\`` and `\\`
    # in a backtick body before it reads the command.
    Misparse(
        "escaped-quotes-in-backticks-in-double-quotes",
        'echo "`echo \\"\'\\" ; rm -rf ~/x ; echo \\"\'\\"`"',
        "unmeasured",
    ),
    Misparse("escaped-dollar-in-backticks", "echo `echo \\$(rm x)`", "unmeasured"),
    Misparse(
        "plain-backticks-in-double-quotes", 'echo "`date +%s`"', "measured", runs("echo", "date")
    ),
    # bashlex nests every `elif` after the first in a reserved word.
    Misparse(
        "two-elifs",
        "if a; then b; elif c; then d; elif e; then f; fi",
        "measured",
        runs(*"abcdef"),
    ),
    Misparse(
        "three-elifs-and-else",
        "if a; then b; elif c; then d; elif e; then f; elif g; then h; else i; fi",
        "measured",
        runs(*"abcdefghi"),
    ),
    Misparse("process-substitutions", "diff <(rm x) >(id)", "measured", runs("diff", "rm", "id")),
    # tree-sitter reads `a&&b` in `[[ ]]` as one word; bash reads `a && b`,
    # and bashlex reads none of it (the `[[ ]]` is masked before it parses).
    Misparse("and-inside-a-conditional-word", "[[ a&&$(rm x) ]]", "unmeasured"),
    Misparse("less-than-in-a-conditional-regex", "[[ x =~ a<b ]]", "unmeasured"),
    Misparse("operator-as-a-conditional-operand", "[[ x =~ < ]]", "unmeasured"),
    Misparse("quoted-and-in-a-conditional-word", '[[ "a&&b" ]] && k', "measured", runs("k")),
    Misparse("escaped-and-in-a-conditional-word", "[[ a\\&\\&b ]] && k", "measured", runs("k")),
    Misparse("group-in-a-conditional-regex", "[[ x =~ (a|b) ]] && k", "measured", runs("k")),
    Misparse("extended-pattern-in-a-conditional", "[[ $x == @(a|b) ]] || k", "measured", runs("k")),
]


@pytest.mark.parametrize("case", MISPARSES, ids=[case.id for case in MISPARSES])
def test_known_misparse_is_read_right_or_unmeasured(case: Misparse) -> None:
    reading = read_shell(case.source)
    assert reading.status == case.outcome, reading.reason
    if reading.program is None:
        assert reading.reason
        return
    assert case.check is not None
    case.check(reading.program)


def test_every_measured_row_has_a_check() -> None:
    assert all(case.check is not None for case in MISPARSES if case.outcome == "measured")
