"""
``time``, ``select``, ``coproc`` and extended patterns: what bash does, proven confined, and how the reader reads each.

bashlex reads none of these. ``time`` and ``select`` are measured through
masks (tree-sitter's reading of the original text against bashlex's reading
of the masked one); so is ``coproc``, which tree-sitter does not read either:
both read the text with the keyword and its name blanked, and the command
each reads right after the blanks is the coprocess's body. An extended
pattern is measured only where bash reads it whatever ``shopt extglob`` says.
"""

from __future__ import annotations

import pytest

from gateway._calls._effects import Bind, Effect, Lifetime, Write
from gateway._read._tree import Coproc, For, Group, Pipeline, SimpleCommand, Subshell, walk
from gateway.plans import plan_program
from gateway.shell import read_shell
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


def test_bash_takes_a_name_only_before_a_compound_command() -> None:
    ran = bash.run(
        "coproc N k1; wait; coproc 'Q' { k1; }; k2 \"${Q_PID:+named}\"; wait",
        programs=("k1", "k2", "N"),
    )
    # The coprocess races the command after it.
    assert ran.logged[0] == ("N", "k1")
    assert sorted(ran.logged[1:]) == [("k1",), ("k2", "named")]


def test_bash_reads_a_reserved_word_as_a_keyword_right_after_a_coprocess_word() -> None:
    for text in ("coproc k1 then", "coproc N ! k1", "coproc coproc k1", "coproc f() { k1; }"):
        ran = bash.run(text + "; wait", programs=("k1",))
        assert ran.logged == (), text
        assert b"syntax error" in ran.stderr, text


def test_bash_binds_the_name_and_its_pid_in_the_shell_running_the_coprocess() -> None:
    # Each coprocess waits for a line from the shell, so it still runs when the
    # shell looks at its name: bash unsets the name once it has reaped it,
    # which a busy machine makes early or late.
    ran = bash.run(
        'coproc N { x=1; k1; read -r _; }; k2 "${N_PID:+pid}"; echo >&"${N[1]}"; wait; '
        'k2 "${x:-unset}" "${N_PID:-gone}"; '
        'declare -n M=X; coproc M { k1; read -r _; }; k2 "${X_PID:+xpid}" "${M_PID:-nompid}"; '
        'echo >&"${X[1]}"; wait',
        programs=("k1", "k2"),
    )
    # What the body binds stays in its subshell; the name is unset again once the
    # coprocess is waited for; a nameref binds the variable it names.
    expected = [("k1",), ("k2", "pid"), ("k2", "unset", "gone"), ("k1",), ("k2", "xpid", "nompid")]
    assert sorted(ran.logged) == sorted(expected)
    # A coprocess as a pipeline's stage: bash 5.2 may bind its name and id in
    # the shell running the pipeline, or not, by how the race with its end
    # goes — so the plan holds them unknown there.
    ran = bash.run('coproc k1 | k2; k2 "${COPROC_PID:-none}"; wait', programs=("k1", "k2"))
    (looked,) = [args for args in ran.logged if args[0] == "k2" and len(args) == 2]
    assert looked[1] == "none" or looked[1].isdigit()


def test_bash_applies_the_redirects_after_a_coprocess_to_its_body() -> None:
    ran = bash.run(
        "coproc N { builtin echo one; } > out; wait; coproc builtin echo two >> out; wait"
    )
    assert ran.files["out"] == b"one\ntwo\n"


def test_bash_runs_a_simple_coprocess_in_a_substitution_by_its_name() -> None:
    # bash 5.2 runs `$( )` and `<( )` from its own print of the body, which
    # names the coprocess: `coproc COPROC k1 a`, the program `COPROC`.
    ran = bash.run("x=$(coproc k1 a; wait); wait", programs=("k1", "COPROC"))
    assert ran.logged == (("COPROC", "k1", "a"),)
    ran = bash.run("k2 <(coproc k1 a; wait); wait", programs=("k1", "k2", "COPROC"))
    assert sorted(ran.logged) == [("COPROC", "k1", "a"), ("k2", "/dev/fd/63")]
    ran = bash.run('x="$(coproc N { k1 b; }; wait)"', programs=("k1", "COPROC"))
    assert ran.logged == (("k1", "b"),)


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


def test_bash_expands_an_extended_pattern_in_a_command_word_only_with_extglob_on() -> None:
    files = {"keep": "", "other": "", "third": ""}
    off = bash.run("k1 !(keep) @(oth*|x)", programs=("k1",), files=files)
    assert off.logged == ()
    assert b"syntax error" in off.stderr
    on = bash.run("shopt -s extglob\nk1 !(keep) @(oth*|x)", programs=("k1",), files=files)
    # Every file but `keep` (the harness's `tmp` too), then the one `oth*` matches.
    assert on.logged == (("k1", "other", "third", "tmp", "other"),)


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


COPROCESSES = {
    "coproc k1 a": ("COPROC", SimpleCommand),
    "coproc N { k1 b; }": ("N", Group),
    "coproc  N2  ( k1 ) > f": ("N2", Subshell),
    "coproc { k1; } 2>&1": ("COPROC", Group),
    "coproc (k1)": ("COPROC", Subshell),
    "coproc N k1": ("COPROC", SimpleCommand),  # the program `N`
    "coproc A=1 k1 > f": ("COPROC", SimpleCommand),
    "k2 && coproc k1 | k2": ("COPROC", SimpleCommand),
    "! coproc k1 &": ("COPROC", SimpleCommand),
    'x=$(coproc N { k1 "$(k2)"; })': ("N", Group),
}


@pytest.mark.parametrize("text", COPROCESSES, ids=COPROCESSES)
def test_a_coprocess_is_read_with_its_name_and_body_and_agrees_with_bash(text: str) -> None:
    comparison = compare(text)
    assert comparison.measured, comparison.reading.reason
    assert comparison.mismatches == ()
    assert comparison.reading.program is not None
    (coprocess,) = [n for n in walk(comparison.reading.program) if isinstance(n, Coproc)]
    name, body = COPROCESSES[text]
    assert (coprocess.name, type(coprocess.body)) == (name, body)
    assert text[coprocess.keyword.start : coprocess.keyword.end].split() == (
        ["coproc"] if name == "COPROC" else ["coproc", name]
    )


def test_a_simple_coprocess_runs_the_words_after_the_keyword() -> None:
    reading = read_shell("coproc N k1 > f")
    assert reading.program is not None, reading.reason
    (coprocess,) = [n for n in walk(reading.program) if isinstance(n, Coproc)]
    assert isinstance(coprocess.body, SimpleCommand)
    assert [w.value for w in coprocess.body.words] == ["N", "k1"]
    assert [r.target and r.target.value for r in coprocess.body.redirects] == ["f"]
    plain = read_shell("echo coproc k1; A=1 coproc k1").program  # arguments, and a program
    assert plain is not None
    assert not [n for n in walk(plain) if isinstance(n, Coproc)]


@pytest.mark.parametrize(
    "text",
    [
        "coproc N while k1; do k2; done",  # a name before a compound the readers do not admit
        "coproc if k1; then k2; fi",
        "coproc k1 then",  # bash reads `then` as its keyword: a syntax error
        "coproc N ! k1",
        "coproc coproc k1",
        "coproc 'N' { k1; }",  # bash's name `N`, quoted
        "coproc $x { k1; }",
        "coproc N(k1)",
        "coproc(k1)",
        "coproc N ((1))",
        "time coproc k1",
        "x=$(coproc k1)",  # bash runs `COPROC k1`
        "x=`coproc k1`",
        "k2 <(coproc k1)",
        "coproc N { x=$(coproc rm -rf y); }",
        "cat <<E\n$(coproc N { k1; })\nE",
        "coproc",
        "coproc ; k1",
        "coproc # c\nk1",
        "coproc f() { k1; }",
        "co\\\nproc rm -rf x",  # bash joins the lines first: its keyword, which bashlex meets
        "coproc\\\n N { k1; }",
        "! coproc N { k1; }",  # tree-sitter reads `! {` as a command named `{`
        "coproc !(k1)",
        "coproc if { k1; }",  # a reserved word as the name: a syntax error
        "coproc do { k1; }",
        "coproc in { k1; }",
        "coproc function { k1; }",
        "coproc time { k1; }",  # bash names it `time`; the readers do not read it
    ],
)
def test_coproc_in_a_form_the_readers_do_not_read_is_unmeasured(text: str) -> None:
    assert read_shell(text).status == "unmeasured"


def _statement_plan(text: str) -> tuple[list[tuple[str | None, ...]], list[Effect], list[Effect]]:
    plan = plan_program(text)
    assert plan.status == "measured", plan.reason
    (statement,) = plan.statements
    commands = [
        tuple(None if w is None else w.plain for w in c.argv) for c in statement.plan.commands
    ]
    inner = [e for c in statement.plan.commands for e in c.effects]
    return commands, list(statement.plan.effects), inner


def test_the_commands_of_a_coprocess_are_planned_in_the_background_with_every_effect() -> None:
    commands, effects, inner = _statement_plan("coproc rm -rf x")
    assert commands == [("rm", "-rf", "x")]
    assert any(isinstance(e, Write) and e.action == "delete" for e in inner)
    assert Lifetime(kind="background", via="coproc") in inner
    assert Lifetime(kind="background", via="coproc") in effects
    commands, _, inner = _statement_plan("coproc { curl -s https://example.com/i | sh; }")
    assert commands == [("curl", "-s", "https://example.com/i"), ("sh",)]
    assert any(getattr(e, "kind", None) == "shell_text" for e in inner)
    commands, effects, _ = _statement_plan("coproc N (k1 x) >file")
    assert commands == [("k1", "x")]
    assert any(isinstance(e, Write) and e.path.value == "./file" for e in effects)


def test_a_coprocess_binds_its_name_and_pid_and_its_body_binds_nothing_outside() -> None:
    plan = plan_program("coproc N { x=1; k1; }; k2 $x $N_PID")
    assert plan.status == "measured", plan.reason
    first, second = plan.statements
    binds = [e.name for e in first.plan.effects if isinstance(e, Bind)]
    assert binds[-2:] == ["N", "N_PID"]  # after the body's own `x`
    assert {"N", "N_PID"} <= set(first.plan.bound_variables)
    (k2,) = second.plan.commands
    # `$x` is not known to be 1 after the coprocess (its body ran in a subshell), nor
    # `$N_PID` to be a number (bash unsets it once the coprocess has ended).
    assert [None if w is None else w.plain for w in k2.argv] == ["k2", None, None]
    plan = plan_program("declare -n M=X; coproc M { k1; }")
    assert plan.status == "measured", plan.reason
    binds = [e.name for e in plan.statements[1].plan.effects if isinstance(e, Bind)]
    assert binds == ["X", "X_PID"]


def test_a_harmless_coprocess_is_measured_and_runs_in_the_background() -> None:
    commands, _, inner = _statement_plan("coproc cat")
    assert commands == [("cat",)]
    assert inner == [Lifetime(kind="background", via="coproc")]
    pipeline = plan_program("coproc k1 &").statements[0].plan.commands[0]
    assert pipeline.background


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
        "rm -f !(keep)",  # a syntax error, or every file but one deleted
        "k1 @(a|b) +(c)",
        "x=*(a) k1",
        "coproc k1 ?(a)",
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
