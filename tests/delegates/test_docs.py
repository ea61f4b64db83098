"""
docs/plugins.md on delegates says what the code does: its example program runs and decides
as the page says, and its tables name every field of the document and every option.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import anyio
import msgspec
import pytest
from gateway_delegates._envelope import DEFAULT_MAY_ALLOW, KIND_TERMS, PATH_TERMS
from gateway_delegates.command import CommandApprover, CommandOptions
from gateway_delegates.model import ModelOptions
from gateway_delegates.webhook import WebhookOptions

from delegates.support import BOUND, context
from gateway import Gateway, ReviewRequest, ToolCall

PAGE = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
TEXT = PAGE.read_text(encoding="utf-8")
MARKER = "<!-- the delegate program checked by tests/delegates/test_docs.py -->\n```python\n"


def _section(title: str) -> str:
    start = TEXT.index(f"### {title}")
    end = TEXT.find("\n### ", start + 1)
    return TEXT[start : end if end != -1 else None]


def _first_column(section: str) -> set[str]:
    """The names in the first column of a section's tables (several, split by commas)."""
    names: set[str] = set()
    for row in re.findall(r"^\| ([^|]+) \|", section, flags=re.MULTILINE):
        names.update(re.findall(r"`([^`]+)`", row))
    return names


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """The page's example program, written where the approver can run it."""
    code = TEXT.split(MARKER, 1)[1].split("```", 1)[0]
    path = tmp_path / "review.py"
    path.write_text(code, encoding="utf-8")
    return path


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize(
    ("command", "decision", "reason"),
    [
        ("git status", "allow", "Every command only reads the repository."),
        (
            "git status --short && git log --oneline",
            "allow",
            "Every command only reads the repository.",
        ),
        ("git status > notes.txt", "ask", "Not a read-only git command; a person decides."),
        ("git status --porcelain", "ask", "Not a read-only git command; a person decides."),
        ("git push origin main", "decline", "Pushes need a person; push from your own terminal."),
        ("make", "ask", "Not a read-only git command; a person decides."),
    ],
)
async def test_the_example_program_decides_as_the_page_says(
    example: Path, command: str, decision: str, reason: str, anyio_backend: str
) -> None:
    approver = CommandApprover({"argv": [sys.executable, str(example)]}, context())
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[approver]) as gateway:
            verdict = await gateway.review(ToolCall("Bash", {"command": command}))
    assert (verdict.decision, verdict.reason) == (decision, reason)


def test_the_page_names_every_field_of_the_document() -> None:
    fields = {"version", *ReviewRequest.__struct_fields__}
    assert _first_column(_section("The document a delegate is sent")) == fields


@pytest.mark.parametrize(
    ("title", "options", "shared"),
    [
        ("`command`: run a program", CommandOptions, False),
        ("`webhook`: ask a web service", WebhookOptions, True),
        ("`model`: ask a language model", ModelOptions, True),
    ],
    ids=["command", "webhook", "model"],
)
def test_the_page_names_every_option(
    title: str, options: type[msgspec.Struct], shared: bool
) -> None:
    keys = {field.encode_name for field in msgspec.structs.fields(options)}
    named = _first_column(_section(title))
    if shared:  # "as for `command`" rows name the shared keys too
        named -= {"command"}
    assert named == keys


def test_the_page_gives_may_allow_as_the_code_has_it() -> None:
    """The default of `may-allow`, and every term it takes, as `_envelope` has them."""
    row = next(
        line
        for line in _section("`model`: ask a language model").splitlines()
        if line.startswith("| `may-allow` |")
    )
    _, default, terms = row.strip("| ").split(" | ")
    assert json.loads(default.strip("`")) == list(DEFAULT_MAY_ALLOW)
    classes, kinds = terms.split(" and effect kinds ")
    assert re.findall(r"`([^`]+)`", classes) == list(PATH_TERMS)
    assert re.findall(r"`([^`]+)`", kinds) == list(KIND_TERMS)
