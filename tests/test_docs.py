"""The examples in docs/ and in the public docstrings run, and say what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

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
