"""
A shell started with variables that make it run code its text does not show.

``BASH_ENV`` (a file bash sources first), ``ENV`` (an interactive shell's),
``SHELLOPTS`` (``xtrace`` expands a ``PS4`` from outside), ``PS4`` under
``-x`` and an imported function (``BASH_FUNC_ls%%``) are inputs of the shell
as much as its text. Each bypass is run with the real bash 5.2 (or dash),
confined, a file ``f`` holding ``id`` and the loggers recording whether ``id``
ran: where it ran, the plan states code the shell runs at start; where it
did not (the twins), it states none.
"""

from __future__ import annotations

import pytest

from effects.support import effects_of, in_bash, only
from gateway.effects import Execute

RUNS = [
    ("imported-function", "/usr/bin/env 'BASH_FUNC_ls%%=() { id; }' /bin/bash -c ls"),
    (
        "imported-function-read-from-stdin",
        "/usr/bin/env 'BASH_FUNC_ls%%=() { id; }' /bin/bash -s <<< ls",
    ),
    ("bash-env-prefix", "BASH_ENV=./f /bin/bash -c :"),
    ("bash-env-through-env", "/usr/bin/env BASH_ENV=./f /bin/bash -c :"),
    ("bash-env-exported-before", "export BASH_ENV=./f; /bin/bash -c :"),
    ("bash-env-exported-by-allexport", "set -a; BASH_ENV=./f; /bin/bash -c :"),
    ("bash-env-before-a-script", "BASH_ENV=./f /bin/bash nothing.sh"),
    ("shellopts-xtrace-and-ps4", "/usr/bin/env SHELLOPTS=xtrace PS4='$(id)' /bin/bash -c :"),
    ("ps4-under-x", "PS4='$(id)' /bin/bash -xc :"),
    ("env-of-an-interactive-sh", "ENV=./f /bin/sh -i -c :"),
    ("env-of-bash-posix-interactive", "ENV=./f /bin/bash --posix -i -c :"),
    ("bash-env-of-a-program-that-is-a-bash-script", "BASH_ENV=./f ls"),
    ("bash-env-exported-to-a-program", "export BASH_ENV=./f; ls"),
    ("xtrace-and-ps4-to-a-program", "/usr/bin/env SHELLOPTS=xtrace PS4='$(id)' ls"),
]
"""Texts where the started shell runs ``id`` (from ``f``, a prompt or an imported function)."""

HARMLESS = [
    ("another-variable", "/usr/bin/env FOO=1 /bin/bash -c :"),
    ("a-function-look-alike", "/usr/bin/env 'LS_COLORS=() { id; }' /bin/bash -c :"),
    ("plain-shell", "/bin/bash -c :"),
    ("a-variable-of-the-same-name-inside", "/bin/bash -c 'BASH_ENV=./f; :'"),
]
"""Look-alikes where the shell runs nothing but its text."""


FILE = "unset BASH_ENV; id\n"
"""What ``f`` holds: it runs ``id`` once (the loggers are bash scripts, which read ``BASH_ENV`` too)."""


def _starts_with_code(source: str) -> list[Execute]:
    return [e for e in only(effects_of(source), Execute) if e.kind == "code" and " ($" in e.via]


@pytest.mark.parametrize(("name", "source"), RUNS, ids=[r[0] for r in RUNS])
def test_a_shell_started_with_code_in_its_environment_says_so(name: str, source: str) -> None:
    run = in_bash(source, files={"f": FILE})
    assert ("id",) in run.logged, run.stderr
    found = _starts_with_code(source)
    assert found, effects_of(source)
    assert all(e.kind == "code" for e in found)


@pytest.mark.parametrize(("name", "source"), HARMLESS, ids=[r[0] for r in HARMLESS])
def test_a_shell_started_without_it_runs_only_its_text(name: str, source: str) -> None:
    run = in_bash(source, files={"f": FILE})
    assert ("id",) not in run.logged
    assert not _starts_with_code(source)


def test_the_variables_a_launcher_passes_count_as_the_environment() -> None:
    found = _starts_with_code("sudo BASH_ENV=./f bash -c ls")
    assert [(e.via, e.origin) for e in found] == [("bash at start ($BASH_ENV)", "unknown")]


def test_an_imported_function_is_shown_as_the_code_it_is() -> None:
    found = _starts_with_code("env 'BASH_FUNC_ls%%=() { id; }' bash -c ls")
    assert [(e.text, e.origin) for e in found] == [("() { id; }", "literal")]


@pytest.mark.parametrize(
    ("source", "runs"),
    [
        ("PS4='$(id)'; set -x; :", True),
        ("set -x; PS4='$(id)'; :", True),
        ("read -r PS4 < f; set -x; :", True),
        ("PS4='+ '; set -x; :", False),
    ],
)
def test_a_prompt_traced_commands_expand_is_code_when_it_may_run_some(
    source: str, *, runs: bool
) -> None:
    run = in_bash(source, files={"f": "$(id)\n"})
    assert (("id",) in run.logged) is runs
    found = [e for e in only(effects_of(source), Execute) if e.via.startswith("$PS4")]
    assert bool(found) is runs
