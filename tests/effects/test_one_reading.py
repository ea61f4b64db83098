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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import pytest
from gateway_codex import shell_text

from effects.support import in_bash
from gateway._plan import plan_statements
from gateway.plans import plan_program

ROOT: Final = Path(__file__).resolve().parents[2]
PLANNER: Final = ("gateway/_plan/", "gateway/_calls/_plans.py", "gateway/_read/")
"""The modules that read shell text and build the plan (and the plan's own type)."""
HOOK_COMMANDS: Final = ("plugins/gateway_hooks/",)
"""Split the gateway's own hook command in a host's settings file: never a tool call."""


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for folder in ("gateway", "plugins"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            yield name, ast.parse(path.read_text(), name)


def _places(exempt: tuple[str, ...], found: Callable[[ast.AST], bool]) -> list[str]:
    """Where in the gateway and its plugins, outside ``exempt``, a node is ``found``."""
    return [
        f"{name}:{getattr(node, 'lineno', 0)}"
        for name, tree in _modules()
        if not name.startswith(exempt)
        for node in ast.walk(tree)
        if found(node)
    ]


def test_no_module_after_the_planner_reads_the_rendered_text() -> None:
    assert _places(PLANNER, lambda n: isinstance(n, ast.Attribute) and n.attr == "rendered") == []


SHOWN_TO_A_PERSON: Final = (
    "plugins/gateway_human/_board.py",
    "plugins/gateway_web/_archive.py",
    "plugins/gateway_web/_history.py",
    "plugins/gateway_rules/_shown.py",
)
"""Show a call's text to a person (the question's subject, the history and its search, a remembered approval's list entry); decide nothing."""


def _names_a_plan(node: ast.expr) -> bool:
    """``plan``, ``request.plan``, ``request.body_plan``, ``self.hole``…: a plan or a hole."""
    name = (
        node.attr
        if isinstance(node, ast.Attribute)
        else node.id
        if isinstance(node, ast.Name)
        else ""
    )
    return "plan" in name or "hole" in name


def _reads_a_plans_text(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr in ("source", "rendered")
        and _names_a_plan(node.value)
    )


def _names_display_hazards(node: ast.AST) -> bool:
    names = (getattr(node, "id", None), getattr(node, "attr", None), getattr(node, "name", None))
    return isinstance(node, ast.Name | ast.Attribute | ast.alias) and "display_hazards" in names


def _splits_with_shlex(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "split"
        and isinstance(node.value, ast.Name)
        and node.value.id == "shlex"
    )


def test_no_module_after_the_planner_reads_a_plans_shell_text() -> None:
    """``plan.source`` (the call's text) and ``hole.source`` are for showing; facts are fields."""
    assert _places(PLANNER + SHOWN_TO_A_PERSON, _reads_a_plans_text) == []


def test_display_hazards_are_found_by_the_planner_only() -> None:
    assert _places(PLANNER, _names_display_hazards) == []


def test_no_module_after_the_planner_splits_shell_text_with_shlex() -> None:
    assert _places(PLANNER + HOOK_COMMANDS, _splits_with_shlex) == []


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


HAZARDS: Final = [
    ("echo 'a\rb'", "a carriage return"),
    ("echo '\x1b[8m'", "an ANSI escape"),
    ("echo 'a\u202eb'", "U+202E"),
    ("ls" + " " * 60 + "# x", "a long run of blanks"),
    ("echo 'unterminated \u200b", "U+200B"),
]


@pytest.mark.parametrize(("source", "named"), HAZARDS)
def test_the_plan_states_what_can_hide_text_from_a_person(source: str, named: str) -> None:
    plan = plan_program(source)
    assert plan.display_hazard is not None
    assert named in plan.display_hazard


def test_a_hazard_after_a_long_harmless_prefix_is_still_stated() -> None:
    assert plan_program("true; " * 2000 + "echo 'a\u202eb'").display_hazard is not None
    assert plan_program("true; " * 2000 + "echo 'naïve 日本語'").display_hazard is None


def test_a_hazard_inside_a_masked_secret_is_stated_on_the_published_plan() -> None:
    source = "curl -H 'Authorization: Bearer abcDEF123\u202e456ghiJKL789' https://x"
    published = plan_program(source)
    unredacted, _ = plan_statements(source)
    assert published.display_hazard == unredacted.display_hazard is not None


def test_the_digest_binds_the_text_the_hazard_is_read_from() -> None:
    plain, hidden = plan_program("echo 'ab'"), plan_program("echo 'a\u200bb'")
    assert plain.display_hazard is None
    assert hidden.display_hazard is not None
    assert plain.digest != hidden.digest
