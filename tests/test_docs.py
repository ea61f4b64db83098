"""The examples in docs/ and in the public docstrings run, and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path
from typing import Any

import pytest

import gateway

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if ">>> " in p.read_text(encoding="utf-8"))
MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(gateway.__path__, prefix="gateway.")
    if not name.endswith("__main__")
)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_documentation_examples_run(page: Path) -> None:
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_there_are_documented_examples() -> None:
    """The two tests above have something to run (a renamed folder would make them vacuous)."""
    assert len(PAGES) >= 2
    assert len(MODULES) >= 20


def test_readme_example_prints_what_the_readme_shows(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's first Python block, run, prints exactly the block that follows it."""
    text = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    shown = (
        text.split("```python\n", 1)[1].split("```", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    )
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102 -- our own README's example
    assert capsys.readouterr().out == shown


def test_install_commands_are_ones_that_work_before_the_package_is_published() -> None:
    """No page tells a newcomer to `pip install 'agent-gateway[…]'` (no index has it); the README says how."""
    import re
    import tomllib

    pages = [DOCS.parent / "README.md", *DOCS.rglob("*.md")]
    wrong = [
        f"{page.name}: {line.strip()}"
        for page in pages
        for line in page.read_text(encoding="utf-8").splitlines()
        if re.search(r"pip install +['\"]?agent-gateway\b", line) and "not published" not in line
    ]
    assert wrong == []
    extras = tomllib.loads((DOCS.parent / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    named = {
        extra
        for page in pages
        for group in re.findall(r"pip install -e '\.\[([a-z,]+)\]'", page.read_text("utf-8"))
        for extra in group.split(",")
    }
    assert named
    assert named <= set(extras)
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    assert "## Installing" in readme
    assert "not published" in readme


def _cli_sections() -> tuple[str, dict[str, str]]:
    """docs/cli.md's introduction, and each ``## `gateway NAME …`` section's text by NAME."""
    import re

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    intro, *parts = re.split(r"^## ", text, flags=re.MULTILINE)
    sections: dict[str, str] = {}
    for part in parts:
        found = re.match(r"`gateway ([a-z-]+)", part)
        if found:
            sections[found.group(1)] = sections.get(found.group(1), "") + part
    return intro, sections


def _long_options(parser: Any) -> set[str]:
    """The ``--options`` of a parser and of its actions' parsers."""
    import argparse

    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _long_options(sub)
        found.update(o for o in action.option_strings if o.startswith("--"))
    return found - {"--help", "--version", "--json"}


def test_every_subcommand_and_option_is_in_the_cli_page() -> None:
    """docs/cli.md has a section for every subcommand (plugins' too), naming each of its options."""
    import argparse

    from gateway._cli import build_parser

    intro, sections = _cli_sections()
    common = {option for option in ("--config", "--broker") if f"`{option}" in intro}
    assert common == {"--config", "--broker"}
    parser = build_parser([])
    names = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert {"install", "doctor", "uninstall", "remembered", "serve", "check"} <= set(names)
    missing: dict[str, list[str]] = {}
    for name in sorted(names):
        own = build_parser([name])
        sub = next(a for a in own._actions if isinstance(a, argparse._SubParsersAction))
        section = sections.get(name)
        if section is None:
            missing[name] = ["(no section)"]
            continue
        absent = sorted(o for o in _long_options(sub.choices[name]) - common if o not in section)
        if absent:
            missing[name] = absent
    assert missing == {}


def test_the_readme_lists_every_page_of_the_docs() -> None:
    """A newcomer finds every page from the README (the hosts' pages and their index included)."""
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    listed = readme.split("## Documentation", 1)[1].split("\n## ", 1)[0]
    pages = sorted(
        str(page.relative_to(DOCS.parent))
        for page in DOCS.rglob("*.md")
        if "examples" not in page.parts
    )
    assert [page for page in pages if f"({page})" not in listed] == []
