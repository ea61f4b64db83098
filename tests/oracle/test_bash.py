"""The confined bash runner: it answers like bash, and it cannot do harm."""

from __future__ import annotations

import os
import shutil

import pytest

from gateway._read import read_shell
from oracle import bash
from oracle.harness import compare, compare_reading


def test_bash_5_2_runs_confined_here() -> None:
    assert bash.available() is None


# ───────────────────────── read: the trace ─────────────────────────


def test_traces_commands_inside_substitutions_with_their_expanded_argv() -> None:
    reading = bash.read('ls -l "$(id -u)" | wc -l')
    assert reading.complete
    assert reading.escaped == ()
    assert reading.logged == ()
    assert reading.commands is not None
    first, second = reading.commands
    assert first.text == 'ls -l "$(id -u)"'
    assert first.argv == ("ls", "-l", bash.PLACEHOLDER)  # what the skipped `id` "printed"
    assert [inner.argv for inner in first.inner] == [("id", "-u")]
    assert second.argv == ("wc", "-l")


def test_traces_the_backtick_inside_a_quoted_default_that_the_readers_once_missed() -> None:
    reading = bash.read("echo \"${PATH:+'`curl -s URL | sh`'}\"")
    assert [c.argv for c in reading.walk()][1:] == [("curl", "-s", "URL"), ("sh",)]
    echo = reading.commands[0].argv if reading.commands else None
    assert echo is not None
    assert echo[0] == "echo"
    assert bash.PLACEHOLDER in echo[1]


def test_traces_a_backtick_in_double_quotes_with_its_backslashes_removed() -> None:
    reading = bash.read('echo "`echo \\"\'\\" ; rm -rf ~/x ; echo \\"\'\\"`"')
    assert [c.text for c in reading.walk()][1:] == ['echo "\'"', "rm -rf ~/x", 'echo "\'"']
    assert reading.logged == ()


def test_traces_heredoc_bodies_redirect_targets_and_process_substitutions() -> None:
    reading = bash.read("cat <<EOF > $(out)\n$(inner)\nEOF\ndiff <(a) >(b)")
    names = sorted(c.argv[0] for c in reading.walk() if c.argv)
    assert names == ["a", "b", "cat", "diff", "inner", "out"]


def test_lets_heads_take_their_branch_and_skips_their_simple_commands() -> None:
    reading = bash.read("for i in 1 2; do e $i; done; case x in x) w;; esac; if c; then t; fi")
    assert [c.argv for c in reading.walk() if not c.head] == [
        ("e", "1"),
        ("e", "2"),
        ("w",),
        ("c",),
        ("t",),
    ]


def test_an_endless_loop_stops_at_the_trace_limit() -> None:
    reading = bash.read("while :; do z; done")
    assert not reading.complete
    assert reading.logged == ()


# ───────────────────────── read: the re-print ─────────────────────────


def test_reprints_the_text_canonically_as_a_function() -> None:
    reading = bash.read("if a; then b; elif c; then d; fi")
    assert reading.reprint is not None
    assert reading.reprint.startswith(f"{reading.name} () \n{{ \n")
    assert "else\n        if c; then" in reading.reprint


def test_a_text_that_closes_the_function_early_gets_no_reprint_and_runs_nothing() -> None:
    reading = bash.read(":; }; rm -rf ~; g() { :")
    assert reading.closed_early
    assert reading.reprint is None
    assert "rm -rf ~" in reading.escaped
    assert reading.logged == ()


def test_a_second_function_defined_by_closing_early_is_seen() -> None:
    reading = bash.read("echo a; }; g() { echo b")
    assert reading.closed_early
    assert reading.reprint is None


def test_a_text_defining_a_function_the_trap_uses_is_not_traced() -> None:
    reading = bash.read("builtin() { rm -rf ~; }; x")
    assert reading.commands is None
    assert reading.reprint is not None
    assert reading.logged == ()


def test_a_syntax_error_gets_no_reprint() -> None:
    reading = bash.read("echo $(")
    assert reading.reprint is None
    assert not reading.closed_early


def test_bash_runs_a_substitution_while_reading_a_text_it_then_refuses() -> None:
    # Each heredoc ends at a line that starts with its delimiter and holds a
    # `)`, the rest of the line pushed back into bash's input: bash runs k3
    # before its trap sees any command, then refuses the text. The confinement
    # is what bounds it (k3 is a logger); the reader refuses the text, and the
    # harness counts no mismatch only for such an unmeasured reading.
    text = "k1 $(k2 <<'E' <<'E'\nE $(k3)\nEOF)+\nE\n)"
    reading = bash.read(text)
    assert reading.logged == (("k3",),)
    assert reading.reprint is None
    comparison = compare(text)
    assert comparison.reading.status == "unmeasured"
    assert comparison.mismatches == ()
    # The same logged run beside a measured reading is a failure of the trace.
    measured = compare_reading(text, read_shell("k1"), reading)
    assert [m.kind for m in measured.mismatches][:1] == ["trace-escaped"]


def test_bash_strips_the_tabs_of_a_logical_heredoc_line_after_joining_its_continuations() -> None:
    # What the harness's heredoc comparison must model: a `<<-` body line
    # continued by backslash-newline keeps the tab of its second half, and
    # that half is no terminator.
    text = "while IFS= read -r l; do builtin printf '[%s]' \"$l\"; done <<-E\n\tx \\\n\tE\n\tE\n"
    assert bash.run(text).stdout == b"[x \tE]"


def test_rejects_a_nul_byte() -> None:
    with pytest.raises(ValueError, match="NUL"):
        bash.read("a\0b")


# ───────────────────────── run ─────────────────────────


def test_run_writes_marker_files_in_its_working_directory_and_logs_programs() -> None:
    result = bash.run(
        'printf hi > marker; git status --short "a b"; nosuch x; cat in.txt',
        files={"in.txt": "data"},
    )
    assert result.status == 0
    assert result.files["marker"] == b"hi"
    assert result.files["in.txt"] == b"data"
    assert result.logged == (
        ("git", "status", "--short", "a b"),
        ("nosuch", "x"),
        ("cat", "in.txt"),
    )
    assert result.stdout == b""  # cat is a logger: it printed nothing


def test_run_has_a_temporary_home_and_no_privilege() -> None:
    result = bash.run('printf %s "$HOME" > home; /usr/bin/id -u > uid; : > /etc/gateway-probe')
    assert result.files["home"].decode() == result.home_path
    assert os.path.commonpath([result.home_path, result.workdir]) != "/"
    if os.geteuid() == 0:
        assert result.files["uid"].strip() != b"0"
    assert b"Permission denied" in result.stderr
    assert not os.path.exists("/etc/gateway-probe")


def test_run_has_no_network() -> None:
    result = bash.run("exec 3<>/dev/tcp/127.0.0.1/9 && printf open > marker")
    assert "marker" not in result.files
    assert b"Network is unreachable" in result.stderr


def test_run_reports_links_without_following_them() -> None:
    result = bash.run("/usr/bin/ln -s /etc/hostname link")
    assert result.links == {"link": "/etc/hostname"}
    assert "link" not in result.files


def test_run_is_killed_at_its_time_limit() -> None:
    result = bash.run("while :; do :; done", timeout=1.0)
    assert result.status is None


def test_run_leaves_nothing_behind() -> None:
    result = bash.run("printf x > marker")
    assert not os.path.exists(result.workdir)
    assert shutil.which("gateway-oracle") is None


def test_run_refuses_files_outside_its_working_directory() -> None:
    with pytest.raises(ValueError, match="not inside the working directory"):
        bash.run(":", files={"../escape": "x"})
