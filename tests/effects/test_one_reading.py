"""
After the planner, nothing reads shell text again.

What an approver, an adapter or a CLI command needs to know about a command
is a field of the plan: none of them may match ``Plan.rendered`` (display
text, cut at 8 KiB) or split a command with rules that are not bash's. The
one adapter that unwraps shell text — Codex sends ``bash -lc 'TEXT'`` — reads
a string with the planner, and bash, run confined, shows it gets the same
text bash would run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from gateway_codex import shell_text

from effects.support import in_bash

ROOT: Final = Path(__file__).resolve().parents[2]
PLANNER: Final = ("gateway/_plan/", "gateway/_plans.py", "gateway/_shell/")
"""The modules that read shell text and build the plan (and the plan's own type)."""
HOOK_COMMANDS: Final = ("plugins/gateway_hooks/",)
"""Split the gateway's own hook command in a host's settings file: never a tool call."""


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for folder in ("gateway", "plugins"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            yield name, ast.parse(path.read_text(), name)


def test_no_module_after_the_planner_reads_the_rendered_text() -> None:
    readers = [
        f"{name}:{node.lineno}"
        for name, tree in _modules()
        if not name.startswith(PLANNER)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "rendered"
    ]
    assert readers == []


def test_no_module_after_the_planner_splits_shell_text_with_shlex() -> None:
    splitters = [
        f"{name}:{node.lineno}"
        for name, tree in _modules()
        if not name.startswith(PLANNER + HOOK_COMMANDS)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "split"
        and isinstance(node.value, ast.Name)
        and node.value.id == "shlex"
    ]
    assert splitters == []


UNWRAPPED: Final = [
    "bash -lc 'ls -a'",
    'bash -lc "echo \\$(id)"',
    'bash -lc "echo \\`id\\`"',
    "bash -lc $'ls\\x20-a'",
    "bash -c 'a'\"'\"'b'",
    "bash -lc ls",
]
"""One simple command of literal words: unwrapped to the third word, as bash passes it."""


@pytest.mark.parametrize("text", UNWRAPPED)
def test_codex_unwraps_the_text_bash_would_pass_to_the_inner_shell(text: str) -> None:
    run = in_bash(text, programs=("bash",))
    ((program, flag, inner),) = run.logged
    assert (program, flag) in (("bash", "-lc"), ("bash", "-c"))
    assert shell_text(text) == inner


@pytest.mark.parametrize(
    "text",
    [
        'bash -lc "$(cat script)"',
        "X=1 bash -lc ls",
        "bash -lc ls > out",
        "bash -lc ls; id",
        "bash -lc ls &",
        "bash -lc 'ls' extra",
        "bash -lc 'ls",
    ],
)
def test_codex_judges_anything_else_as_it_is(text: str) -> None:
    assert shell_text(text) is None


def test_an_argv_list_is_unwrapped_exactly() -> None:
    assert shell_text(["/bin/bash", "-lc", "echo $(id)"]) == "echo $(id)"
    assert shell_text(["bash", "-lc", "a", "b"]) is None
