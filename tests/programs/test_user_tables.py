"""
Option tables a configuration declares (``[programs.NAME]``): checked at load, read complete or refused.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from gateway import ConfigError, load_config
from gateway._programs._user import UserTable, user_reader


def table(**fields: Any) -> UserTable:
    return msgspec.convert(fields, UserTable)


REPORT = table(
    options=[
        "-v --verbose",
        "-n --limit =",
        {"spelling": "-o --output =", "effect": "write"},
        {"spelling": "-c --config =", "effect": "read"},
        {"spelling": "--hook =", "effect": "code"},
    ],
    operands={"head": ["none"], "rest": "read"},
)
READ = user_reader({"report": REPORT})


def facts(argv: list[str | None]) -> list[tuple[str, str, str | None]]:
    return [(f.kind, f.via, f.value) for f in READ("report", argv).facts]


def test_reads_options_and_operands_as_the_row_format_does() -> None:
    assert facts(["-vn", "3", "sales", "a.csv", "b.csv"]) == [
        ("read", "operand", "a.csv"),
        ("read", "operand", "b.csv"),
    ]
    assert facts(["-o", "out.txt", "--config=team.toml", "sales"]) == [
        ("write", "--output", "out.txt"),
        ("read", "--config", "team.toml"),
    ]
    assert facts(["-vo", "out.txt", "sales"]) == [("write", "--output", "out.txt")]
    assert facts(["--hook", "./x.py", "sales"]) == [("execute", "--hook", "./x.py")]


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--frobnicate", "sales"], "undeclared"),
        (["-x", "sales"], "undeclared"),
        (["--out=x", "sales"], "undeclared"),  # no abbreviations unless declared
        ([None, "sales"], "unreadable"),  # an expansion could spell `-o FILE`
        (["-n"], "unreadable"),  # missing its value
    ],
)
def test_what_the_table_does_not_declare_is_refused(argv: list[str | None], problem: str) -> None:
    reading = READ("report", argv)
    assert getattr(reading, problem) is not None, reading


def test_harmless_twins_are_read_in_full() -> None:
    for argv in (["sales"], ["--", "-odd-name.csv"], ["-n", "-5", "sales"], ["-v", "--", None]):
        reading = READ("report", argv)
        assert reading.undeclared is None, (argv, reading)
        assert reading.unreadable is None, (argv, reading)


def test_abbreviations_and_where_options_end_are_the_tables_to_say() -> None:
    lax = user_reader(
        {
            "report": table(
                options=[{"spelling": "--output =", "effect": "write"}],
                abbreviations=True,
                **{"options-end-after": 1},
            )
        }
    )
    assert [(f.kind, f.value) for f in lax("report", ["--out=x", "sales"]).facts] == [
        ("write", "x")
    ]
    assert lax("report", ["sales", "--frobnicate"]).undeclared is None  # an operand now


def test_other_programs_are_read_as_built_in() -> None:
    assert READ("sort", ["-o", "x", "y"]).options == ("--output",)
    assert not READ("other-tool", []).table


@pytest.mark.parametrize(
    ("toml", "says"),
    [
        ("[programs.ls]\noptions = []", "programs.ls has a built-in table already"),
        ("[programs.awk]\noptions = []", "programs.awk has a built-in table already"),
        ('[programs."a/b"]\noptions = []', "is not a program's basename"),
        ("[programs.r]\noptions = ['verbose']", "an option is malformed"),
        ("[programs.r]\noptions = ['-v', '-v --verbose']", "declared twice"),
        (
            "[programs.r]\noptions = [{ spelling = '-o =', effect = 'run' }]",
            "the option '-o =' has the effect 'run'",
        ),
        ("[programs.r]\noperands = { rest = 'exec' }", "the rest of the operands has the effect"),
        ("[programs.r]\noperands = { head = ['read', 'x'] }", "operand 2 has the effect 'x'"),
        ("[programs.r]\nopts = []", "unknown field `opts`"),
        ("[programs.r]\noptions-end-after = 0", "options-end-after is a number of operands"),
    ],
)
def test_a_malformed_table_stops_the_load_with_one_sentence(toml: str, says: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(toml.encode())
    message = str(raised.value)
    assert says in message, message
    assert message.endswith("."), message
    assert message.count(". ") == 0, message


def test_a_config_declares_tables_by_name() -> None:
    config = load_config(b"[programs.report]\noptions = ['-v --verbose']\n")
    assert list(config.programs) == ["report"]
    assert user_reader(config.programs)("report", ["-v"]).options == ("--verbose",)
