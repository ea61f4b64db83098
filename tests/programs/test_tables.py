"""Every row of every option table: each declared option is read in each of its spellings, with its value."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from gateway._programs import read_arguments
from gateway._programs._languages import LANGUAGE_READERS
from gateway._programs._rows import Option, ProgramRow
from gateway._programs._table_reader import read_row
from gateway._programs._tables import PROGRAM_TABLES

_CONFIG = Path(__file__).resolve().parents[2] / "config" / "default.toml"
_LANGUAGE_PROGRAMS = frozenset({"awk", "gawk", "mawk", "nawk", "sed", "jq", "find", "git"})
"""Programs read by their language's reader (`gateway._programs._languages`), not by a table."""

_VALUES = {"ssh_option": "BatchMode=yes", "socat_address": "TCP:h:1"}


class Declared(NamedTuple):
    program: str
    path: tuple[str, ...]
    row: ProgramRow
    spelling: str
    option: Option


def _rows(
    program: str, seen: set[int] | None = None
) -> Iterator[tuple[tuple[str, ...], ProgramRow]]:
    """Every row of a program (its subcommands' too), each once; ``seen`` spans programs."""
    seen = set() if seen is None else seen
    stack: list[tuple[tuple[str, ...], ProgramRow]] = []
    if id(PROGRAM_TABLES[program]) not in seen:
        seen.add(id(PROGRAM_TABLES[program]))
        stack.append(((), PROGRAM_TABLES[program]))
    while stack:
        path, row = stack.pop()
        yield path, row
        for word, sub in sorted((row.subcommands or {}).items(), reverse=True):
            key = id(sub)
            if key not in seen:
                seen.add(key)
                stack.append(((*path, word), sub))


def _declared() -> Iterator[Declared]:
    """Every option of every distinct row (a row shared by aliases is read once)."""
    seen: set[int] = set()
    for program in sorted(PROGRAM_TABLES):
        for path, row in _rows(program, seen):
            for spelling, option in row.options.items():
                yield Declared(program, path, row, spelling, option)


DECLARED = list(_declared())


def _value(option: Option) -> str:
    return _VALUES.get(option.effect.form if option.effect else "", "VALUE")


def _read(declared: Declared, words: list[str]) -> tuple[int, list[str]]:
    """The reading of ``words`` after the row's subcommand path, and the path's length."""
    argv = [*declared.path, *words]
    return len(declared.path), argv


def _separated(declared: Declared) -> list[str] | None:
    option = declared.option
    if option.arity in (1, "optional_next"):
        return [declared.spelling, _value(option)]
    if option.arity in (0, "optional", "digits"):
        return [declared.spelling]
    return None


def _fused(declared: Declared) -> list[str] | None:
    option, spelling, row = declared.option, declared.spelling, declared.row
    if option.arity == 0 or option.arity == "optional_next":
        return None
    if option.arity == "digits":
        return [spelling + "7"]
    if row.style == "words":
        if row.fused_prefix and option.arity in ("fused", "optional"):
            return [spelling + _value(option)]
        return [f"{spelling}={_value(option)}"] if row.fused_equals else None
    if spelling.startswith("--"):
        return [f"{spelling}={_value(option)}"]
    return [spelling + _value(option)]


def _problems_reading(declared: Declared) -> list[str]:
    """What is wrong with reading one declared option in each of its spellings (nothing, for a good row)."""
    problems: list[str] = []
    for words in (_separated(declared), _fused(declared)):
        if words is None:
            continue
        start, argv = _read(declared, words)
        reading = read_row(declared.program, PROGRAM_TABLES[declared.program], argv)
        name = declared.option.name
        plus = declared.spelling.startswith("+") and name.startswith("-")
        expected = "+" + name[1:] if plus else name
        if reading.undeclared is not None or reading.unreadable is not None:
            problems.append(f"{argv}: {reading.undeclared or reading.unreadable}")
        elif len(reading.subcommand) < len(declared.path) or expected not in reading.options:
            problems.append(f"{argv}: read as {reading.subcommand} {reading.options}")
        elif len(words) == 2 and start + 1 in reading.operands:
            problems.append(f"{argv}: its value is read as an operand")
    return problems


def _problems_with_effect(declared: Declared) -> list[str]:
    """An option with an effect on its value states it, on that value, at that index."""
    option = declared.option
    effect = option.effect
    if effect is None or effect.form != "value" or option.arity != 1 or effect.fixed:
        return []
    argv = [*declared.path, declared.spelling, "VALUE"]
    reading = read_row(declared.program, PROGRAM_TABLES[declared.program], argv)
    facts = [fact for fact in reading.facts if fact.via == option.name]
    if not facts or facts[0].value != "VALUE" or facts[0].index != len(declared.path) + 1:
        return [f"{argv}: facts {reading.facts}"]
    return []


def _problems_fused_only(declared: Declared) -> list[str]:
    if declared.option.arity != "fused" or declared.row.fused_prefix:
        return []
    argv = [*declared.path, declared.spelling, "VALUE"]
    reading = read_row(declared.program, PROGRAM_TABLES[declared.program], argv)
    return [] if reading.undeclared is not None else [f"{argv}: read separated"]


def _problems_in_clusters(declared: Declared) -> list[str]:
    row, spelling = declared.row, declared.spelling
    if (
        row.style != "getopt"
        or row.multichar_short
        or declared.option.arity != 0
        or len(spelling) != 2
        or spelling[0] != "-"
    ):
        return []
    partner = next(
        (
            other
            for other, option in sorted(row.options.items())
            if len(other) == 2 and other != spelling and option.arity == 0 and other[0] == "-"
        ),
        None,
    )
    if partner is None:
        return []
    argv = [*declared.path, f"{spelling}{partner[1]}"]
    reading = read_row(declared.program, PROGRAM_TABLES[declared.program], argv)
    if reading.undeclared is not None or row.options[partner].name not in reading.options:
        return [f"{argv}: {reading.undeclared or reading.options}"]
    return []


def _problems_with_spellings(declared: Declared) -> list[str]:
    """A getopt row's one-dash spelling is one letter, or the reader never meets it whole."""
    row, spelling = declared.row, declared.spelling
    short = spelling[0] in "-+" and not spelling.startswith("--")
    if row.style == "getopt" and not row.multichar_short and short and len(spelling) != 2:
        return [f"{spelling}: a one-dash spelling of several letters is read as a cluster"]
    return []


_CHECKS = (
    _problems_reading,
    _problems_with_effect,
    _problems_fused_only,
    _problems_in_clusters,
    _problems_with_spellings,
)


class Row(NamedTuple):
    program: str
    path: tuple[str, ...]
    options: tuple[Declared, ...]


def _by_row() -> list[Row]:
    rows: dict[tuple[str, tuple[str, ...]], list[Declared]] = {}
    for declared in DECLARED:
        rows.setdefault((declared.program, declared.path), []).append(declared)
    return [Row(program, path, tuple(found)) for (program, path), found in rows.items()]


@pytest.mark.parametrize("row", _by_row(), ids=lambda row: " ".join((row.program, *row.path)))
def test_every_declared_option_of_every_row_is_read_in_each_spelling(row: Row) -> None:
    """
    Each option is read under its canonical name in every spelling it has
    (separated, fused, in a cluster), a value it takes is never an operand,
    its effect names its value, and a fused-only option is refused separated.
    """
    problems = [
        problem for declared in row.options for check in _CHECKS for problem in check(declared)
    ]
    assert problems == []


def test_every_program_an_allow_rule_names_has_a_table_or_a_language_reader() -> None:
    config = tomllib.loads(_CONFIG.read_text(encoding="utf-8"))
    allowed: set[str] = set()
    for rule in config["approver"]["rules"]["rule"]:
        if rule.get("decision") == "allow":
            allowed |= set(rule.get("programs", ()))
    missing = allowed - set(PROGRAM_TABLES) - set(LANGUAGE_READERS) - _LANGUAGE_PROGRAMS
    assert not missing
    assert len(allowed) > 150


def test_no_table_shadows_a_language_reader() -> None:
    assert not set(PROGRAM_TABLES) & (set(LANGUAGE_READERS) | _LANGUAGE_PROGRAMS)


def test_the_programs_the_effects_need_have_tables() -> None:
    needed = [
        "cp",
        "mv",
        "rm",
        "rmdir",
        "mkdir",
        "touch",
        "ln",
        "chmod",
        "chown",
        "chgrp",
        "install",
        "truncate",
        "shred",
        "tee",
        "dd",
        "split",
        "csplit",
        "sort",
        "uniq",
        "tar",
        "zip",
        "unzip",
        "gzip",
        "gunzip",
        "bzip2",
        "xz",
        "zstd",
        "7z",
        "base64",
        "base32",
        "xxd",
        "curl",
        "wget",
        "ssh",
        "scp",
        "sftp",
        "rsync",
        "nc",
        "ncat",
        "socat",
        "telnet",
        "ftp",
        "dig",
        "host",
        "nslookup",
        "getent",
        "ping",
        "traceroute",
        "whois",
        "openssl",
        "man",
        "less",
        "more",
        "nm",
        "objdump",
        "strings",
        "tree",
        "file",
        "python",
        "python3",
        "node",
        "ruby",
        "perl",
        "php",
        "bash",
        "sh",
        "pip",
        "npm",
        "yarn",
        "pnpm",
        "cargo",
        "go",
        "make",
        "docker",
        "kubectl",
    ]
    assert [name for name in needed if name not in PROGRAM_TABLES] == []


def test_rows_with_arguments_roles_stop_options_at_an_operand() -> None:
    """An `arguments` role is decided while reading, so the program must not read options after operands."""
    for program in PROGRAM_TABLES:
        for path, row in _rows(program):
            layouts = [row.operands, *(mode.operands for mode in row.modes)]
            if any(role.arguments for layout in layouts for role in layout.head):
                has_options = any(not option.ends_options for option in row.options.values())
                assert (
                    row.options_end_after is not None or not has_options or program == "kubectl"
                ), (
                    program,
                    path,
                )


def test_read_arguments_consults_the_tables() -> None:
    assert read_arguments("sort", ["-o", "x"]).facts[0].kind == "write"
