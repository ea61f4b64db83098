"""
``time``, ``select``, ``coproc`` and extended patterns: what bash does, proven confined, and how the reader reads each.

bashlex reads none of these. ``time`` and ``select`` are measured through
masks (tree-sitter's reading of the original text against bashlex's reading
of the masked one); ``coproc`` stays unmeasured; an extended pattern is
measured only where bash reads it whatever ``shopt extglob`` says.
"""

from __future__ import annotations

import pytest

from gateway import read_shell
from gateway._shell._tree import For, Pipeline, SimpleCommand, walk
from oracle import bash
from oracle.harness import compare

# ───────────────────────── what bash does ─────────────────────────


def test_bash_times_the_whole_pipeline_and_runs_only_its_commands() -> None:
    ran = bash.run("time -p k1 | k2; ! time k1; time ! k1; time -p -- k1", programs=("k1", "k2"))
    # The two stages of the pipeline run at once: their order is the scheduler's.
    assert sorted(ran.logged[:2]) == [("k1",), ("k2",)]
    assert ran.logged[2:] == (("k1",), ("k1",), ("k1",))
    assert b"real" in ran.stderr


def test_bash_reads_time_as_a_program_after_a_pipe_an_assignment_or_a_second_option() -> None:
    ran = bash.run("k1 | time k2; A=1 time k2; time -p -p k2", programs=("k1", "k2"))
    assert sorted(ran.logged[:2]) == [("k1",), ("time", "k2")]  # a pipeline's stages race
    assert ran.logged[2:] == (("time", "k2"), ("-p", "k2"))


def test_bash_runs_a_select_body_with_a_chosen_word_or_the_empty_string() -> None:
    ran = bash.run('select v in a b; do k1 "$v" "$REPLY"; done', programs=("k1",), stdin="1\n9\n")
    assert ran.logged == (("k1", "a", "1"), ("k1", "", "9"))


def test_bash_runs_a_coprocess_in_the_background_and_binds_its_name() -> None:
    ran = bash.run(
        'coproc k1 a; k2 "${COPROC_PID:+pid}" "${#COPROC[@]}"; wait; coproc N { k1 b; }; wait',
        programs=("k1", "k2"),
    )
    assert sorted(ran.logged) == [("k1", "a"), ("k1", "b"), ("k2", "pid", "2")]


def test_bash_parses_a_line_before_it_runs_the_shopt_on_it() -> None:
    same_line = bash.run("shopt -s extglob; k1 @(a)", programs=("k1",))
    assert same_line.logged == ()
    assert b"syntax error" in same_line.stderr
    next_line = bash.run("shopt -s extglob\nk1 @(a)", programs=("k1",))
    assert next_line.logged == (("k1", "@(a)"),)


def test_bash_runs_a_file_for_a_negated_subshell_when_extglob_is_on() -> None:
    off = bash.run("!(k1)", programs=("k1",), files={"a-file": ""})
    assert off.logged == (("k1",),)
    on = bash.run("shopt -s extglob\n!(k1)", programs=("k1",), files={"a-file": ""})
    # The pattern matched the files of the working directory; the first ran.
    assert on.logged[0][0] == "a-file"


def test_bash_reads_an_extended_pattern_in_a_case_only_with_extglob_on() -> None:
    off = bash.run("case a in @(a|b)) k1;; esac", programs=("k1",))
    assert off.logged == ()
    assert b"syntax error" in off.stderr
    on = bash.run("shopt -s extglob\ncase a in @(a|b)) k1;; esac", programs=("k1",))
    assert on.logged == (("k1",),)


def test_bash_reads_an_extended_pattern_after_double_equals_whatever_extglob_says() -> None:
    ran = bash.run("shopt -u extglob\n[[ ab == @(x|a)b && ab != !(ab) ]] && k1", programs=("k1",))
    assert ran.logged == (("k1",),)


# ───────────────────────── how the reader reads them ─────────────────────────


def _pipelines(text: str) -> list[Pipeline]:
    reading = read_shell(text)
    assert reading.program is not None, reading.reason
    return [node for node in walk(reading.program) if isinstance(node, Pipeline)]


def test_a_timed_pipeline_holds_the_commands_it_times_and_where_time_stands() -> None:
    text = "time -p -- k1 -v | wc -l && ! time k2"
    first, second = _pipelines(text)
    assert first.time is not None
    assert text[first.time.start : first.time.end] == "time -p --"
    assert [c.words[0].value for c in first.commands if isinstance(c, SimpleCommand)] == [
        "k1",
        "wc",
    ]
    assert second.negated
    assert second.time is not None
    assert text[second.time.start : second.time.end] == "time"


@pytest.mark.parametrize(
    "text",
    [
        "A=1 time k1",  # a program named time, after an assignment
        "'time' k1",
        "\\time k1",
        "echo time",
    ],
)
def test_time_that_is_not_the_keyword_stays_a_word(text: str) -> None:
    assert all(pipeline.time is None for pipeline in _pipelines(text))


@pytest.mark.parametrize(
    "text",
    [
        "time",
        "time -p",
        "time -p -p k1",
        "time time k1",
        "time { k1; }",
        "time A=1 k1",
        "k1 | time k2",
        "time ; k1",
    ],
)
def test_time_in_a_form_the_readers_do_not_read_is_unmeasured(text: str) -> None:
    assert read_shell(text).status == "unmeasured"


def test_a_select_loop_is_a_for_loop_marked_select() -> None:
    reading = read_shell('select v in a "$(k1)"; do k2 "$v"; done')
    assert reading.program is not None, reading.reason
    loops = [node for node in walk(reading.program) if isinstance(node, For)]
    assert [(loop.variable, loop.select) for loop in loops] == [("v", True)]
    plain = read_shell("for v in a; do k2; done").program
    assert plain is not None
    assert [node.select for node in walk(plain) if isinstance(node, For)] == [False]


@pytest.mark.parametrize(
    "text",
    ["coproc k1", "coproc N { k1; }", "coproc { k1; }", "k2 && coproc k1 | k2"],
)
def test_coproc_stays_unmeasured(text: str) -> None:
    assert read_shell(text).status == "unmeasured"


@pytest.mark.parametrize(
    "text",
    [
        "!(k1)",
        "k2 && !(k1)",
        "case x in @(a|b)) k1;; esac",
        "case x in !(a)) k1;; esac",
        "case x in [@](a)) k1;; esac",
        "[[ @(a) == x ]]",
        "[[ -n !(a) ]]",
        "f*() { k1; }",
        "shopt -s extglob\nk1 @(a)",
        "shopt -s extglob; k1 @(a)",
    ],
)
def test_a_reading_that_depends_on_extglob_is_unmeasured(text: str) -> None:
    reading = read_shell(text)
    assert reading.status == "unmeasured"


@pytest.mark.parametrize(
    "text",
    [
        "[[ $x == @(a|b) ]] && k1",
        "[[ $x != !(c*) ]] || k1",
        "[[ $x = +(d) ]]",
        "[[ $x =~ ^(a|b)$ ]]",
        "! (k1)",
        "k1 \\@\\(a\\) '@(b)' \"!(c)\"",
        "k1 ${x/@(a)/b}",
    ],
)
def test_a_pattern_bash_reads_alike_either_way_is_measured_and_agrees_with_bash(
    text: str,
) -> None:
    comparison = compare(text)
    assert comparison.measured, comparison.reading.reason
    assert comparison.mismatches == ()
