"""
Reading plain texts without bashlex, justified by bash itself.

A text made only of plain words, quotes, ``|``, ``&&``, ``;``, ``>`` and
newlines is read by tree-sitter and the plain-word reader (``_plain``), not
by bashlex. Over a generated set of exactly that class
(`grammar.PLAIN_CLASS`), this shows that the plain reading is what bash
reads (the oracle agrees with every measured reading), that wherever it
stands in for bashlex's (it agrees with tree-sitter's) bashlex reads the text
the same, and that texts just outside the class are left to both parsers.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from shell.test_corpus import commands as corpus_commands

from gateway._read import read_shell
from gateway._read._bashlex import read_with_bashlex
from gateway._read._consensus import compare as compare_readings
from gateway._read._limits import UNLIMITED
from gateway._read._plain import read_plain
from gateway._read._source import Source
from gateway._read._tree import Program, SimpleCommand, walk
from gateway._read._treesitter import Shape, bare_shape, confirms_bare, read_with_tree_sitter
from gateway._read._words import Unreadable, WordMemo
from oracle import grammar
from oracle.harness import compare

ORACLE = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
READERS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@ORACLE
@given(grammar.PLAIN_CLASS)
def test_a_plain_text_read_without_bashlex_is_what_bash_reads(text: str) -> None:
    comparison = compare(text)
    assert comparison.mismatches == (), (text, comparison.mismatches)
    source = Source(text)
    if _plain_stands(source):
        assert comparison.measured, comparison.reading.reason


def _plain_stands(source: Source) -> bool:
    """Whether the plain reading is read and tree-sitter agrees with it (else both parsers decide)."""
    plain = read_plain(source, UNLIMITED)
    if plain is None:
        return False
    try:
        first = read_with_tree_sitter(source)
    except Unreadable:
        return False
    return compare_readings(first, plain, ("tree-sitter", "plain")) is None


@pytest.mark.parametrize("text", ["echo a >2>f", "echo a >>2>f", "echo a > 2>f; rm -rf x"])
def test_a_redirect_target_of_digits_before_another_redirect_is_outside_the_class(
    text: str,
) -> None:
    """bash reads `2>` there as a descriptor, and `echo a >2>f` as a syntax error: no plain reading."""
    assert read_plain(Source(text), UNLIMITED) is None
    assert read_shell(text).status == "unmeasured"


@pytest.mark.parametrize("text", ["-1>>f", "a -1>f", "a -1>>f"])
def test_a_word_that_ends_in_digits_before_a_redirect_is_not_measured_on_tree_sitter_alone(
    text: str,
) -> None:
    """tree-sitter reads `-1` before `>` as a descriptor; bash and the plain reader read a word."""
    assert not _plain_stands(Source(text))
    assert read_shell(text).status == "unmeasured"


@READERS
@given(grammar.PLAIN_CLASS)
def test_where_the_plain_reading_stands_in_for_bashlex_bashlex_reads_the_same(text: str) -> None:
    source = Source(text)
    plain = read_plain(source, UNLIMITED)
    if plain is None:
        # Only a word of digits right before `>` (a descriptor) leaves the class.
        assert re.search(r"[0-9]>", text), text
        return
    try:
        first = read_with_tree_sitter(source)
    except Unreadable:
        return  # no reading without bashlex: both parsers read it
    if compare_readings(first, plain, ("tree-sitter", "plain")) is not None:
        return  # tree-sitter read it otherwise: bashlex is run after all
    try:
        second = read_with_bashlex(source)
    except Unreadable:
        return
    assert compare_readings(plain, second, ("plain", "bashlex")) is None


@READERS
@given(grammar.PLAIN_CLASS | grammar.CORNERS)
def test_tree_sitter_reads_alike_with_the_words_the_plain_reader_scanned(text: str) -> None:
    """
    Sharing scanned words (`WordMemo`) changes no reading: tree-sitter's
    reading given the plain reader's words, even those of a text the plain
    reader gave up on part way, is the one it makes alone.
    """
    source = Source(text)
    words: WordMemo = {}
    read_plain(source, UNLIMITED, words)
    assert _tree_sitter(source, words) == _tree_sitter(source, None)


def _tree_sitter(source: Source, known: WordMemo | None) -> Program | str:
    """tree-sitter's reading, or why it could not read the text."""
    try:
        return read_with_tree_sitter(source, UNLIMITED, known)
    except Unreadable as unreadable:
        return unreadable.reason


def _confirmed_without_a_tree(source: Source) -> Program | None:
    """The plain reading, when tree-sitter's parse confirms it without a neutral tree."""
    plain = read_plain(source, UNLIMITED)
    if plain is None:
        return None
    shape = bare_shape(plain)
    return plain if shape is not None and confirms_bare(source, shape) else None


def _check_confirmation(text: str) -> None:
    confirmed = _confirmed_without_a_tree(Source(text))
    if confirmed is not None:
        assert read_with_tree_sitter(Source(text)) == confirmed, text


@READERS
@given(grammar.PLAIN_CLASS | grammar.CORNERS)
def test_a_reading_confirmed_by_the_parse_alone_is_tree_sitters_full_reading(text: str) -> None:
    """
    Where tree-sitter's parse confirms a plain reading of bare commands
    (`confirms_bare`), the reading is exactly the one tree-sitter's full
    reading makes — so the consensus the text gets is the one it had.
    """
    _check_confirmation(text)


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["agent", "nl2bash", "tldr"])
def test_every_corpus_reading_confirmed_by_the_parse_alone_is_tree_sitters_full_reading(
    name: str,
) -> None:
    for text in corpus_commands(name):
        if "\x00" not in text:
            _check_confirmation(text)


@pytest.mark.parametrize(
    "text",
    [
        "a -1",  # tree-sitter's `number` node: a word
        "a'b' c",  # one word of two nodes
        'k "x y"z w',
        "a |\n b && c; d\n",
    ],
)
def test_bare_commands_are_confirmed_by_the_parse_alone(text: str) -> None:
    assert _confirmed_without_a_tree(Source(text)) is not None
    _check_confirmation(text)


def _perturbed(shape: Shape) -> list[Shape]:
    """Every shape one change away: a word's edge moved, words split or merged, an operator swapped."""
    out: list[Shape] = []
    for index, item in enumerate(shape):
        if isinstance(item, str):
            out.extend(
                [*shape[:index], other, *shape[index + 1 :]]
                for other in (";", "&&", "|")
                if other != item
            )
            out.append(shape[:index] + shape[index + 1 :])
            continue
        for k, (start, end) in enumerate(item):
            out.extend(
                [*shape[:index], (*item[:k], moved, *item[k + 1 :]), *shape[index + 1 :]]
                for moved in (
                    (start - 1, end),
                    (start + 1, end),
                    (start, end - 1),
                    (start, end + 1),
                )
            )
            if end - start > 1:
                split = ((start, start + 1), (start + 1, end))
                out.append(
                    [*shape[:index], (*item[:k], *split, *item[k + 1 :]), *shape[index + 1 :]]
                )
        if len(item) > 1:
            merged = ((item[0][0], item[1][1]), *item[2:])
            out.append([*shape[:index], merged, *shape[index + 1 :]])
            out.append([*shape[:index], item[:1], item[1:], *shape[index + 1 :]])
    return out


@pytest.mark.parametrize("text", ["a -1", "a'b' c", 'k "x y"z w', "a |\n b && c; d\n", "x  yy ;zz"])
def test_the_parse_confirms_only_the_shape_it_has(text: str) -> None:
    """One change to the plain reading's shape, and tree-sitter's parse no longer confirms it."""
    source = Source(text)
    plain = read_plain(source, UNLIMITED)
    assert plain is not None
    shape = bare_shape(plain)
    assert shape is not None
    assert confirms_bare(source, shape)
    wrong = _perturbed(shape)
    assert len(wrong) > 5
    assert not [other for other in wrong if confirms_bare(source, other)]


@pytest.mark.parametrize(
    "text",
    [
        "echo a > f",  # a redirect: tree-sitter's reading is made in full
        "A=1 k",  # an assignment
        "export A=1",  # tree-sitter's declaration_command
        "-1>>f",  # tree-sitter reads a descriptor where bash reads a word
    ],
)
def test_anything_but_bare_commands_is_read_in_full(text: str) -> None:
    assert _confirmed_without_a_tree(Source(text)) is None


# Just outside the class: the plain reader declines, and both parsers read them.
OUTSIDE = [
    "a || b",
    "a & b",
    "a &",
    "echo $HOME",
    "echo `id`",
    "echo a\\ b",
    'echo "$x"',
    "ls *.py",
    "ls a?",
    "echo ~",
    "echo {a,b}",
    "echo a # comment",
    "k 2>f",
    "k 2>>f",
    "k >&2",
    "k >| f",
    "k > >(tee x)",
    "k < f",
    "k <<< w",
    "if true; then a; fi",
    "a; then b",
    "time ls",
    "coproc ls",
    "a=1 for",
    "a |",
    "a &&",
    "a;;",
    "; a",
    "(a)",
    "! a",
    "a |& b",
    "a[1]=2 k",
]


@pytest.mark.parametrize("text", OUTSIDE)
def test_a_text_just_outside_the_class_is_left_to_both_parsers(text: str) -> None:
    assert read_plain(Source(text), UNLIMITED) is None


INSIDE = {
    "git status": [["git", "status"]],
    "cd src && grep -rn 'def main' .": [["cd", "src"], ["grep", "-rn", "def main", "."]],
    'python3 -m pytest -q > "out file.txt"\nls': [["python3", "-m", "pytest", "-q"], ["ls"]],
    "a=1 b='x y' k | wc -l;": [["k"], ["wc", "-l"]],
    "echo a>f b": [["echo", "a", "b"]],
    'k "a|b;c&&d>e"': [["k", "a|b;c&&d>e"]],
    "a |\n b &&\n\n c": [["a"], ["b"], ["c"]],
    "a ;\n\nb": [["a"], ["b"]],
    "x='a`b' k": [["k"]],  # bashlex raises on the backtick; bash assigns it as a character
}


@pytest.mark.parametrize("text", INSIDE, ids=range(len(INSIDE)))
def test_a_plain_text_is_read_by_the_plain_reader_and_bash_agrees(text: str) -> None:
    plain = read_plain(Source(text), UNLIMITED)
    assert plain is not None
    commands = [node for node in walk(plain) if isinstance(node, SimpleCommand)]
    assert [[word.value for word in command.words] for command in commands] == INSIDE[text]
    reading = read_shell(text)
    assert reading.measured, reading.reason
    comparison = compare(text)
    assert comparison.mismatches == ()
    assert comparison.measured
