"""The project's own word scanner: quote removal, dynamic parts, and its helper functions."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from gateway._read._source import Source
from gateway._read._tree import (
    AnsiC,
    Brace,
    CommandSubstitution,
    DoubleQuoted,
    Glob,
    Literal,
    Parameter,
    SingleQuoted,
    Tilde,
    Word,
)
from gateway._read._words import (
    _QUOTED_PLAIN,
    Unreadable,
    WordScanner,
    decode_ansi_c,
    split_assignment,
    unquote_delimiter,
    word_value,
)
from shell.walk import measured, only_simple


def argument(source: str) -> Word:
    """The second word of the one command in ``source`` (read by both readers)."""
    command = only_simple(measured(source))
    assert len(command.words) == 2, command.words
    return command.words[1]


_PLAIN_RUN = st.text(alphabet="ab9_./,:=+@%^-", min_size=1, max_size=4)
_QUOTED_PLAIN_WORDS = st.lists(
    st.one_of(
        _PLAIN_RUN,
        st.text(alphabet='a b*~{}[]$`\\"!\n\t;&|<>()#', max_size=4).map(
            lambda t: "'" + t.replace("'", "") + "'"
        ),
        st.text(alphabet="a b*~{}[]'!\n\t;&|<>()#", max_size=4).map(lambda t: '"' + t + '"'),
    ),
    min_size=1,
    max_size=5,
).map("".join)
"""Words the scanner builds piece by piece: plain runs, '…', and "…" without $, backtick or backslash."""


def scan(text: str, *, assignment: bool = False) -> Word:
    """Scan ``text`` as one word with the scanner alone (no substitutions in it)."""
    scanner = WordScanner(Source(text), {}, "test")
    word = scanner.word(0, len(text), assignment=assignment)
    scanner.finish()
    return word


# ───────────────────────── literal values ─────────────────────────


@given(_QUOTED_PLAIN_WORDS, st.booleans(), st.sampled_from(["", "x ", "é "]))
def test_a_quoted_plain_word_is_read_as_the_full_scan_reads_it(
    word: str, assignment: bool, before: str
) -> None:
    # `_quoted_plain` builds these words piece by piece; the character scan
    # is the reference (and the offset before it tests spans past a wide character).
    assert _QUOTED_PLAIN.fullmatch(word) is not None  # the fast path is the one taken
    text = before + word
    source = Source(text)
    fast = WordScanner(source, {}, "test").word(len(before), len(text), assignment=assignment)
    parts, _ = WordScanner(source, {}, "test")._scan(
        len(before), len(text), "word", tilde_after_colon=assignment
    )
    assert fast.parts == parts
    assert fast.value == word_value(parts)
    assert fast.span == source.span(len(before), len(text))


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("echo 'r''m'", "rm"),
        ('echo "a\\b"', "a\\b"),
        ('echo "a\\$b"', "a$b"),
        ('echo "a\\"b"', 'a"b'),
        ('echo "a\\\\b"', "a\\b"),
        ('echo "a\\`b"', "a`b"),
        ("echo $'\\x72m'", "rm"),
        ("echo a\\ b", "a b"),
        ("echo a\\\\b", "a\\b"),
        ("echo \\r\\m", "rm"),
        ('echo "a\\\nb"', "ab"),
        ("echo 'a\\\nb'", "a\\\nb"),
        ("echo '\"'\"'\"", "\"'"),
        ("echo ''", ""),
        ('echo ""', ""),
        ('echo $"hi"', "hi"),
        ('echo --opt="x y"', "--opt=x y"),
        ("echo a=b", "a=b"),
        ("echo 'héllo wörld'", "héllo wörld"),
        ("echo '$HOME'", "$HOME"),
        ("echo '*.py'", "*.py"),
        ("echo '~/x'", "~/x"),
        ("echo x~", "x~"),
        ("echo [", "["),
        ("echo ]", "]"),
        ("echo a[b", "a[b"),
        ("echo {}", "{}"),
        ("echo {a}", "{a}"),
        ("echo \\;", ";"),
        ("echo \\$x", "$x"),
        ("echo a#b", "a#b"),
    ],
    ids=lambda value: repr(value),
)
def test_literal_word_value_is_the_text_after_quote_removal(source: str, value: str) -> None:
    word = argument(source)
    assert word.value == value
    assert word.text == source[len("echo ") :]


def test_program_name_spelled_with_quotes_has_its_unquoted_value() -> None:
    for source in ("'r''m' -rf x", "$'\\x72m' -rf x", '"r"m -rf x', "\\rm -rf x"):
        command = only_simple(measured(source))
        assert command.words[0].value == "rm", source


def test_backslash_newline_is_removed_from_an_unquoted_word() -> None:
    assert scan("a\\\nb").value == "ab"
    assert scan("a\\\n\\\nb").value == "ab"


def test_backslash_at_the_end_of_a_word_is_kept() -> None:
    assert scan("a\\").value == "a\\"


def test_single_quoted_word_keeps_backslashes_and_dollars() -> None:
    word = argument("echo 'a\\b $x `id`'")
    assert word.value == "a\\b $x `id`"
    assert [type(part) for part in word.parts] == [SingleQuoted]


def test_double_quoted_word_is_literal_only_without_expansions() -> None:
    assert argument('echo "plain text"').value == "plain text"
    assert argument('echo "$HOME"').value is None


def test_word_parts_keep_their_source_spans() -> None:
    source = "echo a'b'\"c\"$'d'"
    word = argument(source)
    assert [type(part) for part in word.parts] == [Literal, SingleQuoted, DoubleQuoted, AnsiC]
    assert [source[p.span.start : p.span.end] for p in word.parts] == ["a", "'b'", '"c"', "$'d'"]


def test_assignment_value_reads_tilde_after_colon() -> None:
    word = scan("~/a:~/b", assignment=True)
    assert [type(part) for part in word.parts] == [Tilde, Literal, Tilde, Literal]
    assert word.value is None


def test_assignment_value_expands_tilde_after_colon_that_follows_quoted_text() -> None:
    """bash expands ``x='a':~/b`` to ``a:$HOME/b``: the colon is unquoted."""
    word = scan("'a':~/b", assignment=True)
    assert [type(part) for part in word.parts] == [SingleQuoted, Literal, Tilde, Literal]
    assert word.value is None


def test_assignment_value_keeps_tilde_after_escaped_colon() -> None:
    """bash leaves ``x=a\\:~/b`` as ``a:~/b``: the colon is quoted."""
    assert scan("a\\:~/b", assignment=True).value == "a:~/b"


def test_plain_word_reads_a_tilde_after_colon_literally() -> None:
    word = scan("a:~/b")
    assert word.value == "a:~/b"


# ───────────────────────── dynamic words ─────────────────────────


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("echo $x", Parameter),
        ("echo ${x}", Parameter),
        ("echo ${#x}", Parameter),
        ("echo ${x:-default}", Parameter),
        ("echo $1", Parameter),
        ("echo $?", Parameter),
        ('echo "$x"', DoubleQuoted),
        ('echo "a${x}b"', DoubleQuoted),
        ("echo $(id)", CommandSubstitution),
        ("echo `id`", CommandSubstitution),
        ('echo "$(id)"', DoubleQuoted),
        ("echo ~/x", Tilde),
        ("echo ~", Tilde),
        ("echo ~root/x", Tilde),
        ("echo *.py", Glob),
        ("echo file?.txt", Literal),
        ("echo [ab]x", Glob),
        ("echo {a,b}", Brace),
        ("echo a{1..3}", Literal),
    ],
    ids=lambda value: value if isinstance(value, str) else value.__name__,
)
def test_dynamic_word_has_no_value(source: str, kind: type) -> None:
    word = argument(source)
    assert word.value is None
    assert isinstance(word.parts[0], kind)


def test_glob_characters_are_glob_parts() -> None:
    word = argument("echo file?.txt")
    assert [type(part) for part in word.parts] == [Literal, Glob, Literal]
    assert isinstance(word.parts[1], Glob)
    assert word.parts[1].text == "?"


def test_brace_expansion_keeps_its_inner_parts() -> None:
    word = argument("echo a{1..3}")
    brace = word.parts[1]
    assert isinstance(brace, Brace)
    assert [part.text for part in brace.parts if isinstance(part, Literal)] == ["1..3"]


def test_arithmetic_expansion_is_dynamic() -> None:
    word = scan("$((1 + x))")
    assert word.value is None
    assert word_value(word.parts) is None


def test_parameter_records_name_and_operator() -> None:
    (part,) = scan("${x:-$HOME}").parts
    assert isinstance(part, Parameter)
    assert (part.name, part.braced, part.operator) == ("x", True, ":-")
    assert isinstance(part.operand[0], Parameter)
    assert part.operand[0].name == "HOME"


def test_special_parameters_are_marked_special() -> None:
    for text in ("$1", "$?", "$$", "$@", "$#", "$!", "$-", "$*", "${10}"):
        (part,) = scan(text).parts
        assert isinstance(part, Parameter)
        assert part.special, text


def test_lone_dollar_is_literal() -> None:
    assert argument("echo $").value == "$"
    assert argument("echo a$").value == "a$"


def test_test_brackets_are_literal_words() -> None:
    command = only_simple(measured("[ -f x ]"))
    assert [word.value for word in command.words] == ["[", "-f", "x", "]"]


def test_find_exec_placeholder_is_literal() -> None:
    command = only_simple(measured("find . -exec rm {} \\;"))
    assert [word.value for word in command.words] == ["find", ".", "-exec", "rm", "{}", ";"]


# ───────────────────────── the scanner refuses ─────────────────────────


@pytest.mark.parametrize(
    "text",
    ["'abc", '"abc', "$'abc", "${x", "${}", "${x!y}", "$((1 + 2)"],
    ids=[
        "single-quote",
        "double-quote",
        "ansi-c",
        "parameter",
        "empty-parameter",
        "bad-operator",
        "arithmetic",
    ],
)
def test_scanner_refuses_an_unclosed_or_malformed_word(text: str) -> None:
    with pytest.raises(Unreadable):
        scan(text)


def test_scanner_refuses_a_substitution_the_reader_did_not_parse() -> None:
    with pytest.raises(Unreadable, match="did not parse"):
        scan("$(id)")


# ───────────────────────── decode_ansi_c ─────────────────────────


@pytest.mark.parametrize(
    ("escaped", "decoded"),
    [
        ("\\x72m", "rm"),
        ("\\101", "A"),
        ("\\0101", "\x081"),
        ("\\7", "\x07"),
        ("\\x41", "A"),
        ("\\x4", "\x04"),
        ("\\x4g", "\x04g"),
        ("\\u00e9", "é"),
        ("\\U0001F600", "😀"),
        ("\\ud800", None),  # bash writes the code point's bytes: not UTF-8
        ("\\U00110000", None),
        ("\\x{72}\\x{6d}", "rm"),
        ("\\x{0041}B", "AB"),
        ("\\x{4142}", "B"),
        ("\\x{41", "A"),
        ("\\x{}a", ""),
        ("\\cA", "\x01"),
        ("\\c\\\\x", "\x1cx"),
        ("\\cé", None),
        ("\\ca", "\x01"),
        ("\\c?", "\x7f"),
        ("\\a\\b\\e\\E\\f\\n\\r\\t\\v", "\a\b\x1b\x1b\f\n\r\t\v"),
        ("\\\\\\'\\\"\\?", "\\'\"?"),
        ("\\q", "\\q"),
        ("\\xZ", "\\xZ"),
        ("\\u", "\\u"),
        ("a\\", "a\\"),
        ("a\\0b", "a"),
        ("a\\x00b", "a"),
        ("a\\u0000b", "a"),
        ("", ""),
    ],
    ids=lambda value: repr(value),
)
def test_decode_ansi_c_follows_bash(escaped: str, decoded: str | None) -> None:
    assert decode_ansi_c(escaped) == decoded


# ───────────────────────── unquote_delimiter ─────────────────────────


@pytest.mark.parametrize(
    ("raw", "delimiter", "quoted"),
    [
        ("EOF", "EOF", False),
        ("'EOF'", "EOF", True),
        ('"EOF"', "EOF", True),
        ("\\EOF", "EOF", True),
        ('E"O"F', "EOF", True),
        ("'E'OF", "EOF", True),
        ("''", "", True),
        ("END_OF-TEXT", "END_OF-TEXT", False),
        ("'a b'", "a b", True),
    ],
)
def test_unquote_delimiter_removes_quotes_and_reports_quoting(
    raw: str, delimiter: str, quoted: bool
) -> None:
    assert unquote_delimiter(raw) == (delimiter, quoted)


@pytest.mark.parametrize("raw", ["$EOF", "${x}", "`id`", "'EOF", '"EOF'])
def test_unquote_delimiter_refuses_expansions_and_unclosed_quotes(raw: str) -> None:
    with pytest.raises(Unreadable):
        unquote_delimiter(raw)


# ───────────────────────── split_assignment ─────────────────────────


@pytest.mark.parametrize(
    ("text", "split"),
    [
        ("a=1", ("a", None, False, 2)),
        ("a=", ("a", None, False, 2)),
        ("a+=1", ("a", None, True, 3)),
        ("_x9=v", ("_x9", None, False, 4)),
        ("a==b", ("a", None, False, 2)),
        ("a[1]=x", ("a", (2, 3), False, 5)),
        ("a[b[1]]=x", ("a", (2, 6), False, 8)),
        ("a[i]+=x", ("a", (2, 3), True, 6)),
        ("PATH=$PATH:/x", ("PATH", None, False, 5)),
    ],
)
def test_split_assignment_splits_name_subscript_and_operator(
    text: str, split: tuple[str, tuple[int, int] | None, bool, int]
) -> None:
    assert split_assignment(text) == split


@pytest.mark.parametrize("text", ["a", "=x", "1a=x", "a[1=x", "a[1]", "a+b=1", "-a=1", "'a'=1"])
def test_split_assignment_refuses_words_that_do_not_assign(text: str) -> None:
    assert split_assignment(text) is None


def test_quoted_equals_sign_is_not_an_assignment() -> None:
    command = only_simple(measured("'a=1' x"))
    assert command.assignments == ()
    assert command.words[0].value == "a=1"


def test_leading_assignments_are_split_from_the_command() -> None:
    command = only_simple(measured("A=1 B+=two cmd arg"))
    assert [(a.name, a.append) for a in command.assignments] == [("A", False), ("B", True)]
    assert [a.value.value for a in command.assignments if a.value is not None] == ["1", "two"]
    assert [word.value for word in command.words] == ["cmd", "arg"]


def test_ansi_c_byte_escapes_decode_as_utf8_bytes() -> None:
    """``$'\\xc3\\xa9'`` is the two bytes of "é" in bash, not two Latin-1 characters."""
    from gateway._read._words import decode_ansi_c

    assert decode_ansi_c(r"\xc3\xa9") == "é"
    assert decode_ansi_c(r"\303\251") == "é"
    assert decode_ansi_c(r"\u00e9") == "é"


def test_ansi_c_bytes_that_are_not_utf8_make_the_word_dynamic() -> None:
    """A value that cannot be written exactly as text is not claimed as a literal."""
    word = argument("echo $'\\xff'")
    assert word.value is None
    assert argument("echo $'\\xc3\\xa9'").value == "é"
