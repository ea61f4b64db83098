"""The shape of the neutral tree, and the agreement of the two readers that build it."""

from __future__ import annotations

import pytest

from gateway._read import read_shell
from gateway._read._bashlex import read_with_bashlex
from gateway._read._consensus import compare, project
from gateway._read._source import Source
from gateway._read._tree import (
    CommandSubstitution,
    For,
    Function,
    Group,
    If,
    Parameter,
    Program,
    Redirect,
    SimpleCommand,
    Subshell,
    While,
)
from gateway._read._treesitter import read_with_tree_sitter
from shell.walk import (
    check_spans,
    command_names,
    heredocs,
    measured,
    nodes,
    only_command,
    only_simple,
    statement_texts,
)

# ───────────────────────── statements ─────────────────────────


def test_statements_keep_their_terminators() -> None:
    source = "a; b & c"
    program = measured(source)
    assert [s.terminator for s in program.statements] == [";", "&", None]
    assert [s.background for s in program.statements] == [False, True, False]
    assert statement_texts(source, program.statements) == ["a", "b &", "c"]


def test_newline_separates_statements_without_a_terminator() -> None:
    program = measured("a\nb\n\nc")
    assert [s.terminator for s in program.statements] == [None, None, None]
    assert command_names(program) == ["a", "b", "c"]


def test_comment_is_not_a_command() -> None:
    program = measured("a x # b; rm -rf /\n# rm y")
    assert command_names(program) == ["a"]
    assert [w.value for w in only_simple(program).words] == ["a", "x"]


def test_hash_inside_a_word_does_not_start_a_comment() -> None:
    assert command_names(measured("echo a#b; rm x")) == ["echo", "rm"]


def test_and_or_list_is_one_statement() -> None:
    program = measured("a && b || c")
    (statement,) = program.statements
    assert statement.body.operators == ("&&", "||")
    assert [len(p.commands) for p in statement.body.pipelines] == [1, 1, 1]


def test_pipeline_keeps_its_operators() -> None:
    program = measured("a | b |& c")
    (statement,) = program.statements
    (pipeline,) = statement.body.pipelines
    assert pipeline.operators == ("|", "|&")
    assert command_names(program) == ["a", "b", "c"]
    assert not pipeline.negated


def test_bang_negates_the_pipeline() -> None:
    (statement,) = measured("! a | b").statements
    assert statement.body.pipelines[0].negated


def test_pipeline_ended_by_ampersand_runs_in_the_background() -> None:
    source = "a | b & c && d"
    program = measured(source)
    assert [s.background for s in program.statements] == [True, False]
    assert statement_texts(source, program.statements) == ["a | b &", "c && d"]


def test_ampersand_binds_looser_than_and_or() -> None:
    program = measured("a && b & c")
    assert [len(s.body.pipelines) for s in program.statements] == [2, 1]
    assert program.statements[0].background


# ───────────────────────── compound commands ─────────────────────────


def test_subshell_holds_its_statements_and_redirects() -> None:
    command = only_command(measured("(a; b) > f"))
    assert isinstance(command, Subshell)
    assert command_names(Program(statements=command.body)) == ["a", "b"]
    assert [(r.operator, r.target.value if r.target else None) for r in command.redirects] == [
        (">", "f")
    ]


def test_group_holds_its_statements_and_redirects() -> None:
    command = only_command(measured("{ a; b; } 2>/dev/null"))
    assert isinstance(command, Group)
    assert len(command.body) == 2
    assert [(r.fd, r.operator) for r in command.redirects] == [("2", ">")]


def test_nested_subshells_with_blanks_are_subshells() -> None:
    command = only_command(measured("( ( a ) )"))
    assert isinstance(command, Subshell)
    inner = command.body[0].body.pipelines[0].commands[0]
    assert isinstance(inner, Subshell)


def test_if_keeps_every_clause_and_the_else() -> None:
    command = only_command(measured("if a; then b; elif c; then d; else e; fi"))
    assert isinstance(command, If)
    assert [
        (command_names(Program(statements=c.condition)), command_names(Program(statements=c.body)))
        for c in command.clauses
    ] == [(["a"], ["b"]), (["c"], ["d"])]
    assert command.else_body is not None
    assert command_names(Program(statements=command.else_body)) == ["e"]


def test_if_without_else_has_no_else_body() -> None:
    command = only_command(measured("if a\nthen\n  b\nfi"))
    assert isinstance(command, If)
    assert command.else_body is None
    assert len(command.clauses) == 1


def test_for_with_in_lists_its_items() -> None:
    command = only_command(measured("for x in 1 'two' $y; do echo $x; done"))
    assert isinstance(command, For)
    assert command.variable == "x"
    assert command.items is not None
    assert [item.value for item in command.items] == ["1", "two", None]
    assert command_names(Program(statements=command.body)) == ["echo"]


def test_for_without_in_has_no_items() -> None:
    command = only_command(measured("for x; do echo; done"))
    assert isinstance(command, For)
    assert command.items is None


@pytest.mark.parametrize(
    ("source", "until"), [("while a; do b; done", False), ("until a; do b; done", True)]
)
def test_while_and_until_keep_condition_and_body(source: str, until: bool) -> None:
    command = only_command(measured(source))
    assert isinstance(command, While)
    assert command.until is until
    assert command_names(Program(statements=command.condition)) == ["a"]
    assert command_names(Program(statements=command.body)) == ["b"]


@pytest.mark.parametrize(
    ("source", "name", "body"),
    [
        ("f() { a; }", "f", Group),
        ("function g { b; }", "g", Group),
        ("function h() ( c )", "h", Subshell),
    ],
)
def test_function_definition_keeps_its_name_and_body(source: str, name: str, body: type) -> None:
    command = only_command(measured(source))
    assert isinstance(command, Function)
    assert command.name == name
    assert isinstance(command.body, body)


# ───────────────────────── redirects ─────────────────────────


@pytest.mark.parametrize(
    ("source", "fd", "operator", "target"),
    [
        ("a > f", None, ">", "f"),
        ("a >> f", None, ">>", "f"),
        ("a < f", None, "<", "f"),
        ("a 2> err", "2", ">", "err"),
        ("a 10>f", "10", ">", "f"),
        ("a 2>&1", "2", ">&", "1"),
        ("a >&2", None, ">&", "2"),
        ("a <&3", None, "<&", "3"),
        ("a >&-", None, ">&-", None),
        ("a 2>&-", "2", ">&-", None),
        ("a &> f", None, "&>", "f"),
        ("a &>> f", None, "&>>", "f"),
        ("a >| f", None, ">|", "f"),
        ('a <<< "hi there"', None, "<<<", "hi there"),
        ("a <<<$x", None, "<<<", None),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_redirect_keeps_descriptor_operator_and_target(
    source: str, fd: str | None, operator: str, target: str | None
) -> None:
    command = only_simple(measured(source))
    (redirect,) = command.redirects
    assert (redirect.fd, redirect.operator) == (fd, operator)
    assert (redirect.target.value if redirect.target else None) == target
    assert [word.value for word in command.words] == ["a"]


def test_redirect_in_the_middle_leaves_the_arguments_around_it() -> None:
    command = only_simple(measured("echo a 2>&1 b > out c"))
    assert [word.value for word in command.words] == ["echo", "a", "b", "c"]
    assert [(r.fd, r.operator) for r in command.redirects] == [("2", ">&"), (None, ">")]


def test_quoted_digit_before_a_redirect_is_an_argument() -> None:
    command = only_simple(measured('echo "2">f'))
    assert [word.value for word in command.words] == ["echo", "2"]
    assert command.redirects[0].fd is None


# ───────────────────────── heredocs ─────────────────────────


def only_heredoc_redirect(source: str) -> Redirect:
    (redirect,) = [r for r in nodes(measured(source)) if isinstance(r, Redirect) and r.heredoc]
    return redirect


def test_quoted_heredoc_is_literal_and_keeps_the_rest_of_its_line() -> None:
    source = "cat <<'EOF' > f.py && echo done\nprint($x)\nEOF"
    program = measured(source)
    assert command_names(program) == ["cat", "echo"]
    (heredoc,) = heredocs(program)
    assert (heredoc.operator, heredoc.delimiter, heredoc.delimiter_text) == ("<<", "EOF", "'EOF'")
    assert heredoc.quoted
    assert heredoc.body == "print($x)\n"
    assert heredoc.parts == ()
    cat = program.statements[0].body.pipelines[0].commands[0]
    assert [r.operator for r in cat.redirects] == ["<<", ">"]


@pytest.mark.parametrize("delimiter", ['"EOF"', "\\EOF"])
def test_any_quoting_in_the_delimiter_makes_the_body_literal(delimiter: str) -> None:
    program = measured(f"cat <<{delimiter}\n$(rm x) $y\nEOF")
    (heredoc,) = heredocs(program)
    assert heredoc.quoted
    assert heredoc.delimiter == "EOF"
    assert heredoc.parts == ()
    assert command_names(program) == ["cat"]


@pytest.mark.parametrize("delimiter", ['E"O"F', "'E'OF"])
def test_partly_quoted_delimiter_is_never_read_as_an_unquoted_body(delimiter: str) -> None:
    """tree-sitter-bash rejects these; if a reading is ever measured, its body must be literal."""
    reading = read_shell(f"cat <<{delimiter}\n$(rm x)\nEOF")
    if reading.program is None:
        assert reading.reason
    else:
        (heredoc,) = heredocs(reading.program)
        assert heredoc.quoted
        assert command_names(reading.program) == ["cat"]


@pytest.mark.parametrize(
    "source",
    [
        'echo "$(cat <<EOF\nEOF $(rm -rf ~/x)\nEOF\n)"',
        "echo $(cat <<'EOF'\nEOF (rm -rf ~/x)\nEOF\n)",
        "diff <(cat <<-EOF\n\tEOF rm -rf ~/x ) f\n",
        "x=$(cat <<EOF\nhi\nEOF)",
    ],
)
def test_a_heredoc_line_in_a_substitution_that_starts_with_the_delimiter_and_holds_a_paren_is_refused(
    source: str,
) -> None:
    # bash ends the body at that line and runs the rest of it as commands
    # (its re-print of each holds `rm -rf ~/x` as a command; `EOF)` closes the `$( )`).
    reading = read_shell(source)
    assert reading.status == "unmeasured"
    assert "starts with its delimiter" in (reading.reason or "")


@pytest.mark.parametrize(
    "source",
    [
        'echo "$(cat <<EOF\nEOF and more\nEOF\n)"',  # no `)` after the delimiter
        "echo $(cat <<EOF\nxEOF (y)\nEOF\n)",  # the line does not start with it
        "cat <<EOF\nEOF (rm -rf ~/x)\nEOF",  # outside a substitution: body
        "( cat <<EOF\nEOF (rm -rf ~/x)\nEOF\n)",  # a subshell is no substitution
    ],
)
def test_its_harmless_twins_are_read_as_body(source: str) -> None:
    program = measured(source)
    (heredoc,) = heredocs(program)
    assert heredoc.body.split("\n")[0] in ("EOF and more", "xEOF (y)", "EOF (rm -rf ~/x)")
    assert "rm" not in command_names(program)


def test_unquoted_heredoc_body_has_its_expansions() -> None:
    program = measured("cat <<EOF\nhi $x\nEOF")
    (heredoc,) = heredocs(program)
    assert not heredoc.quoted
    assert heredoc.body == "hi $x\n"
    assert [type(part).__name__ for part in heredoc.parts] == ["Literal", "Parameter", "Literal"]
    (parameter,) = [part for part in heredoc.parts if isinstance(part, Parameter)]
    assert parameter.name == "x"


def test_quoted_heredoc_body_has_no_substitutions() -> None:
    program = measured("cat <<'EOF'\n$(rm x)\nEOF")
    assert command_names(program) == ["cat"]
    assert not [n for n in nodes(program) if isinstance(n, CommandSubstitution)]


def test_dash_heredoc_keeps_the_tabs_in_its_body() -> None:
    source = "cat <<-EOF\n\thi\n\tEOF\necho after"
    program = measured(source)
    (heredoc,) = heredocs(program)
    assert heredoc.operator == "<<-"
    assert heredoc.body == "\thi\n"
    assert command_names(program) == ["cat", "echo"]


def test_heredoc_body_keeps_carriage_returns() -> None:
    (heredoc,) = heredocs(measured("cat <<'EOF'\nline\r\nEOF\n"))
    assert heredoc.body == "line\r\n"


def test_empty_heredoc_has_an_empty_body() -> None:
    (heredoc,) = heredocs(measured("cat <<EOF\nEOF"))
    assert heredoc.body == ""


def test_heredocs_on_separate_lines_are_read_in_order() -> None:
    program = measured("cat <<A\na\nA\ncat <<B\nb\nB")
    assert [(h.delimiter, h.body) for h in heredocs(program)] == [("A", "a\n"), ("B", "b\n")]
    assert command_names(program) == ["cat", "cat"]


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("cat <<A; cat <<B\na\nA\nb\nB", ["cat", "cat"]),
        ("cat <<A && cat <<B\na\nA\nb\nB", ["cat", "cat"]),
        ("cat <<A <<B\na\nA\nb\nB", ["cat"]),
        ("cat <<A | cat <<B\na\nA\nb\nB\n", ["cat", "cat"]),
    ],
    ids=["semicolon", "and", "one-command", "pipe"],
)
def test_several_heredocs_on_one_line_are_read_in_order(source: str, names: list[str]) -> None:
    """Bodies follow the line in the order of their operators (the heredoc reader, not tree-sitter's)."""
    program = measured(source)
    assert [(h.delimiter, h.body) for h in heredocs(program)] == [("A", "a\n"), ("B", "b\n")]
    assert command_names(program) == names


def test_heredoc_inside_a_substitution_is_read() -> None:
    program = measured("x=$(cat <<EOF\nhi\nEOF\n)")
    (heredoc,) = heredocs(program)
    assert heredoc.body == "hi\n"
    assert command_names(program) == ["cat"]


def test_closing_parenthesis_in_a_heredoc_inside_a_substitution_is_body_text() -> None:
    program = measured("echo $(cat <<EOF\n)\nEOF\n)")
    (heredoc,) = heredocs(program)
    assert heredoc.body == ")\n"
    assert command_names(program) == ["echo", "cat"]


@pytest.mark.parametrize(
    "source",
    [
        "cat <<EOF\nhé ✓ 😀\nEOF\necho ü",
        "printf 'ü' | cat <<'EOF' > 文件\n\t😀 $x\nEOF",
        "x=$(cat <<EOF\nñ $(echo é)\nEOF\n) ; echo 'ß'",
    ],
    ids=["two-three-four-byte", "quoted-after-pipe", "in-substitution"],
)
def test_heredoc_body_span_slices_back_in_chars_and_bytes(source: str) -> None:
    reading = read_shell(source)
    assert reading.program is not None, reading.reason
    data = source.encode()
    for heredoc in heredocs(reading.program):
        span = heredoc.body_span
        assert source[span.start : span.end] == heredoc.body
        assert data[span.start_byte : span.end_byte] == heredoc.body.encode()
    check_spans(source, reading)


def test_heredoc_body_after_non_ascii_text_has_a_larger_byte_offset() -> None:
    source = "echo ü; cat <<EOF\nbody é\nEOF"
    (heredoc,) = heredocs(measured(source))
    span = heredoc.body_span
    assert (span.start, span.end) == (18, 25)
    assert (span.start_byte, span.end_byte) == (19, 27)
    assert source.encode()[span.start_byte : span.end_byte] == "body é\n".encode()


def test_non_ascii_words_have_char_and_byte_spans() -> None:
    source = "echo ü 'é' \"😀\" naïve"
    program = measured(source)
    command = only_simple(program)
    assert [word.value for word in command.words] == ["echo", "ü", "é", "😀", "naïve"]
    last = command.words[-1]
    assert (last.span.start, last.span.end) == (15, 20)
    assert (last.span.start_byte, last.span.end_byte) == (20, 26)
    check_spans(source, read_shell(source))


def test_heredoc_body_start_is_after_the_whole_introducer_line() -> None:
    source = "cat <<EOF && echo done\nbody\nEOF\n"
    (heredoc,) = heredocs(measured(source))
    assert heredoc.body_span.start == source.index("body")


# ───────────────────────── the two readers agree ─────────────────────────

AGREED = [
    "ls -la | wc -l",
    "a; b & c",
    "a && b || c",
    "! a | b |& c",
    "(a; b) > f",
    "{ a; b; } 2>/dev/null",
    "if a; then b; elif c; then d; else e; fi",
    "for x in 1 2; do echo $x; done",
    "for x; do echo; done",
    "while read l; do rm $l; done < <(ls)",
    "until a; do b; done",
    "f() { a; }",
    "function g { b; }",
    "echo a 2>&1 >&- &>f",
    'a <<< "hi"',
    "cat <<'EOF' > f.py && echo done\nprint($x)\nEOF",
    "cat <<EOF\nhi $x $(date) ${y:-$(id)}\nEOF",
    "cat <<-EOF\n\thi\n\tEOF",
    "x=$(cat <<EOF\nhi\nEOF\n)",
    'echo ${x:-$(rm x)} "$(id)" <(a) >(b)',
    "A=1 B=$(id) cmd 'a b' \"c $d\" $'e\\x41'",
    "echo ü 'é' \"😀\" | grep -v ñ",
    "[ -f x ] && echo yes",
    "find . -name '*.py' -exec rm {} \\;",
    "cd /tmp && (cd x; make) | tee log",
    "echo ~/x ~root *.py {a,b}",
    "x='a`b'; echo \"$x\"",
    "echo a'`b' x'<(b' y'$(b'",
    "x=a'`'b'`'c; ls",
]


def test_single_quoted_text_in_a_word_is_plain_and_what_follows_it_is_read() -> None:
    source = "x=a'`b $(c'$(id) k2 \"'$(k3)'\""
    first, second = read_with_tree_sitter(Source(source)), read_with_bashlex(Source(source))
    assert compare(first, second, ("tree-sitter", "bashlex")) is None
    assert sorted(command_names(measured(source))) == ["id", "k2", "k3"]


@pytest.mark.parametrize("source", AGREED, ids=lambda source: source.split("\n")[0][:40])
def test_readers_produce_equal_projections(source: str) -> None:
    assert read_shell(source).status == "measured"
    first = read_with_tree_sitter(Source(source))
    second = read_with_bashlex(Source(source))
    assert project(first) == project(second)
    assert compare(first, second, ("tree-sitter", "bashlex")) is None


def test_consensus_reports_the_first_difference_in_one_sentence() -> None:
    first = read_with_tree_sitter(Source("a b"))
    second = read_with_tree_sitter(Source("a b c"))
    difference = compare(first, second, ("left", "right"))
    assert difference is not None
    assert difference.startswith("the readers disagree")
    assert "\n" not in difference


def test_measured_program_is_the_tree_sitter_reading() -> None:
    source = "echo $(id) | cat"
    reading = read_shell(source)
    assert reading.program == read_with_tree_sitter(Source(source))


def test_reading_bytes_equals_reading_text() -> None:
    source = "echo ü | cat"
    assert read_shell(source.encode()) == read_shell(source)


def test_simple_command_of_a_lone_assignment_has_no_words() -> None:
    command = only_simple(measured("x=1"))
    assert isinstance(command, SimpleCommand)
    assert command.words == ()
    assert [a.name for a in command.assignments] == ["x"]


def test_where_the_text_ends_unexpectedly_does_not_depend_on_the_text_read_before() -> None:
    # bashlex ties its end-of-input token to a text it read earlier: after a
    # text ending in a backslash, it placed the next text's end at the
    # earlier text's length.
    before = read_shell("echo the offset of the end \\")
    assert before.status == "unmeasured"
    text = 'find / -name "*.stale-end" -exec /bin/rm {} \\'
    reading = read_shell(text)
    assert reading.status == "unmeasured"
    assert reading.offset == len(text)
