"""An operand ``-`` that the program reads as standard input names no file, and runs no script ``./-``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gateway._programs import read_arguments
from gateway.plans import plan_program

_STREAM_READERS = ("cat", "head", "tail", "wc")
_INTERPRETERS = ("python3", "node", "ruby", "perl")


def _facts(program: str, argv: list[str | None]) -> list[tuple[str, str | None, str | None]]:
    reading = read_arguments(program, argv)
    assert reading.undeclared is None, reading
    assert reading.unreadable is None, reading
    return [(fact.kind, fact.action, fact.value) for fact in reading.facts]


@pytest.mark.parametrize("program", _STREAM_READERS)
def test_a_dash_operand_reads_standard_input_and_no_file(program: str) -> None:
    assert _facts(program, ["-"]) == []


@pytest.mark.parametrize("program", _STREAM_READERS)
def test_a_file_beside_the_dash_is_still_read(program: str) -> None:
    assert _facts(program, ["-", "~/.ssh/id_rsa"]) == [("read", None, "~/.ssh/id_rsa")]
    assert _facts(program, ["~/.ssh/id_rsa", "-"]) == [("read", None, "~/.ssh/id_rsa")]


def test_only_the_exact_dash_word_is_standard_input() -> None:
    assert _facts("cat", ["./-"]) == [("read", None, "./-")]
    assert _facts("cat", ["--", "-"]) == []
    assert _facts("cat", ["-n", "-"]) == []


def test_an_expansion_is_still_every_file_it_may_name() -> None:
    reading = read_arguments("cat", [None], one_word={0}, no_dash={0})
    assert [(fact.kind, fact.value) for fact in reading.facts] == [("read", None)]


@pytest.mark.parametrize("program", _INTERPRETERS)
def test_an_interpreter_given_a_dash_runs_code_from_standard_input(program: str) -> None:
    assert _facts(program, ["-"]) == [("execute", "code", None)]
    assert _facts(program, ["-", "./x.py"]) == [("execute", "code", None)]
    assert _facts(program, []) == [("execute", "code", None)]


@pytest.mark.parametrize("program", _INTERPRETERS)
def test_an_interpreter_still_runs_a_script_it_is_named(program: str) -> None:
    assert _facts(program, ["./x"]) == [("execute", "script", "./x")]


def test_the_dash_of_a_file_written_stays_a_file() -> None:
    # ``tee -`` writes a file named ``-`` (GNU tee has no standard-output operand).
    facts = _facts("tee", ["-"])
    assert any(kind == "write" and value == "-" for kind, _, value in facts), facts


def _reading(tmp_path: Path, argv: list[str], stdin: str) -> str:
    completed = subprocess.run(
        argv,
        cwd=tmp_path,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return completed.stdout


@pytest.mark.parametrize(
    ("argv", "in_file", "in_stdin"),
    [
        (["cat", "-"], "FILE\n", "STDIN\n"),
        (["head", "-"], "FILE\n", "STDIN\n"),
        (["python3", "-"], 'print("FILE")\n', 'print("STDIN")\n'),
        (["node", "-"], 'console.log("FILE")\n', 'console.log("STDIN")\n'),
        (["perl", "-"], 'print "FILE\\n";\n', 'print "STDIN\\n";\n'),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else "",
)
def test_the_programs_read_the_dash_as_standard_input(
    tmp_path: Path, argv: list[str], in_file: str, in_stdin: str
) -> None:
    executable = shutil.which(argv[0], path="/usr/bin:/bin")
    if executable is None:
        pytest.skip(f"{argv[0]} is not installed")
    (tmp_path / "-").write_text(in_file)
    assert _reading(tmp_path, [executable, *argv[1:]], in_stdin) == "STDIN\n"


def _plan_effects(source: str) -> list[tuple[str, str | None]]:
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    (command,) = plan.statements[0].plan.commands
    return [
        (type(effect).__name__, getattr(getattr(effect, "path", None), "value", None))
        for effect in command.effects
    ]


def test_the_plan_of_a_dash_beside_a_secret_still_reads_the_secret() -> None:
    assert _plan_effects("cat - ~/.ssh/id_rsa") == [("Read", "~/.ssh/id_rsa")]
    assert _plan_effects("cat -") == []


def test_the_plan_of_an_interpreter_reading_a_dash_still_runs_code() -> None:
    assert _plan_effects("python3 - < x.py") == [("Read", "./x.py"), ("Execute", None)]


# bash and POSIX sh read a lone `-` as the end of their options, as `--`:
# `bash - x.sh` runs x.sh and `bash -c - TEXT` runs TEXT (both shown by running
# bash and dash in a scratch directory with a file `./-` beside x.sh).
@pytest.mark.parametrize("shell", ["bash", "sh", "dash"])
def test_a_shell_reads_a_lone_dash_as_the_end_of_its_options(shell: str) -> None:
    assert _facts(shell, ["-", "x.sh"]) == [("execute", "script", "x.sh")]
    assert _facts(shell, ["-x", "-", "x.sh"]) == [("execute", "script", "x.sh")]
    assert _facts(shell, ["-", "-x"]) == [("execute", "script", "-x")]
    assert _facts(shell, ["-"]) == [("execute", "code", None)]


@pytest.mark.parametrize("shell", ["bash", "sh"])
def test_the_plan_of_a_shell_given_a_dash_reads_the_script_after_it(shell: str) -> None:
    assert _plan_effects(f"{shell} - x.sh") == [("Execute", None), ("Read", "./x.sh")]
    assert _plan_effects(f"{shell} -") == [("Execute", None)]


def test_the_plan_of_a_shell_command_after_a_dash_is_that_command() -> None:
    plan = plan_program("bash -c - 'cat ~/.ssh/id_rsa'")
    assert plan.status == "measured", plan.reason
    (command,) = plan.statements[0].plan.commands
    texts = [getattr(effect, "text", None) for effect in command.effects]
    assert texts == ["cat ~/.ssh/id_rsa"]


# php is the exception: its CLI takes the first operand as the script and
# fopen()s it, `-` included, so `php -` runs the file `./-` and never reads
# standard input; only no operand, or `--` before the operands, runs standard
# input (`php -- x.php` with x.php as `$argv[1]`). Shown with PHP 8.4's CLI in a
# scratch directory holding `./-` and `x.php`, and by php_cli.c.
def test_php_runs_a_lone_dash_as_the_script_file_named_dash() -> None:
    assert _facts("php", ["-"]) == [("execute", "script", "-")]
    assert _facts("php", ["-n", "-", "x.php"]) == [("execute", "script", "-")]
    assert _facts("php", ["-f", "-"]) == [("execute", "script", "-")]


def test_php_after_a_double_dash_runs_standard_input_and_no_script() -> None:
    assert _facts("php", ["--", "x.php"]) == [("execute", "code", None)]
    assert _facts("php", ["--", "-"]) == [("execute", "code", None)]
    assert _facts("php", ["-n", "--", "x.php", "a"]) == [("execute", "code", None)]
    assert _facts("php", []) == [("execute", "code", None)]
    # After the script, `--` is the script's own argument.
    assert _facts("php", ["x.php", "--", "a"]) == [("execute", "script", "x.php")]


def test_the_plan_of_php_given_a_dash_runs_the_file_written_before_it() -> None:
    # The bypass: the heredoc is harmless, and php runs `./-`, written just before.
    source = "printf '<?php system(\"id\");' > ./- && php - <<'EOF'\n<?php echo 1;\nEOF"
    plan = plan_program(source)
    assert plan.status == "measured", plan.reason
    commands = [command for statement in plan.statements for command in statement.plan.commands]
    effects = [
        (type(effect).__name__, getattr(getattr(effect, "path", None), "value", None))
        for command in commands
        for effect in command.effects
    ]
    assert ("Write", "./-") in effects
    assert ("Read", "./-") in effects
    assert ("Execute", None) in effects


def test_the_plan_of_php_reading_a_heredoc_runs_code_and_reads_no_file() -> None:
    # The harmless twins: no operand, or `--` first, and php runs the heredoc.
    assert _plan_effects("php <<'EOF'\n<?php echo 1;\nEOF") == [("Execute", None)]
    assert _plan_effects("php -- x.php <<'EOF'\n<?php echo 1;\nEOF") == [("Execute", None)]


@pytest.mark.parametrize(
    ("args", "ran"),
    [
        (["-"], "DASH"),
        (["-n", "-"], "DASH"),
        (["--", "x.php"], "STDIN"),
        (["x.php"], "X"),
        ([], "STDIN"),
    ],
    ids=" ".join,
)
def test_php_runs_what_the_reading_says(tmp_path: Path, args: list[str], ran: str) -> None:
    executable = shutil.which("php")
    if executable is None:
        pytest.skip("php is not installed")
    (tmp_path / "-").write_text('<?php echo "DASH\\n";')
    (tmp_path / "x.php").write_text('<?php echo "X\\n";')
    assert _reading(tmp_path, [executable, "-n", *args], '<?php echo "STDIN\\n";') == f"{ran}\n"
    stated = _facts("php", ["-n", *args])
    assert stated == (
        [("execute", "code", None)] if ran == "STDIN" else [("execute", "script", args[-1])]
    )
