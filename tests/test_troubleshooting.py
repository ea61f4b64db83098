"""
docs/troubleshooting.md lists every error message a user can meet, and only ones the code says.

The messages are collected from the code itself: the first sentence given
to every error a person reads — a command's `CommandError`, a hook's
`Blocked` and `HookError`, the configuration's `ConfigError`, the rules'
`RuleError`, the memory file's, the token store's, and the approval page's
`DecisionRefused` — read from the source's syntax tree, each formatted value
shown as ``…``. Every one must be in the first column of a table of the page,
written the same way; and every message of the page must be said by the code
(its words between the ``…`` are in the source), so the page cannot keep a
message the code no longer gives.

A few errors carry a sentence made elsewhere (the message of an error they
caught, or one built from parts): `DYNAMIC` names each such place and why
its sentences are on the page already.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path
from typing import Final

REPOSITORY = Path(__file__).resolve().parent.parent
PAGE = REPOSITORY / "docs" / "troubleshooting.md"
SOURCES: Final = (REPOSITORY / "gateway", REPOSITORY / "plugins")

ERRORS: Final = {
    "CommandError": 0,
    "Blocked": 0,
    "HookError": 0,
    "ConfigError": 0,
    "RuleError": 0,
    "MemoryFileError": 0,
    "TokenError": 0,
    "DecisionRefused": 1,
}
"""The errors whose message a person reads, and which argument is the message."""

DYNAMIC: Final = {
    ("gateway/_cli/_check.py", "CommandError"): "`_QUESTION`, a GatewayError's own",
    ("gateway/_cli/_common.py", "CommandError"): "the questions `read_input` is given",
    ("gateway/_cli/_explain.py", "CommandError"): "a GatewayError's own",
    ("gateway/_cli/_fleet.py", "CommandError"): "a GatewayError's own, and `needs_extra`",
    ("gateway/_cli/_otlp.py", "CommandError"): "`needs_extra`",
    ("gateway/_cli/_run.py", "CommandError"): "a ConfigError's, a GatewayError's own",
    ("gateway/_cli/_settings.py", "CommandError"): "a GatewayError's own",
    ("gateway/_cli/_token.py", "CommandError"): "a TokenError's own",
    ("gateway/_cli/_verify.py", "CommandError"): "a ConfigError's own",
    ("plugins/gateway_hooks/_commands.py", "CommandError"): "a ValueError the installer raised",
    ("plugins/gateway_rules/_command.py", "CommandError"): "a RuleError's, a GatewayError's own",
    ("plugins/gateway_web/_command.py", "CommandError"): "a start failure's, and `needs_extra`",
    ("plugins/gateway_rules/__init__.py", "RuleError"): "a failing example's, in parts",
}


def _sentence(node: ast.expr) -> str | None:
    """A message as written: literal text, each formatted value as ``…`` (``None``: not literal)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(part.value) if isinstance(part, ast.Constant) else "…" for part in node.values
        )
    return None


@cache
def raised() -> dict[str, set[str]]:
    """Every literal message of the errors in `ERRORS`, and the places that give other ones."""
    found: dict[str, set[str]] = {"": set()}
    for root in SOURCES:
        for path in sorted(root.rglob("*.py")):
            where = str(path.relative_to(REPOSITORY))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name not in ERRORS or len(node.args) <= ERRORS[name]:
                    continue
                text = _sentence(node.args[ERRORS[name]])
                if text is None:
                    found.setdefault(f"{where}:{name}", set())
                elif not text.startswith(("A subcommand cannot", "The hook blocked")):
                    found[""].add(text)
    return found


@cache
def listed() -> list[str]:
    """The messages of the page: the first cell of every table row, as the code writes them."""
    messages = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cell = re.match(r"^\| (``? ?)(.+?) ?\1 \| ", line)
        if cell and not line.startswith("| message |"):
            messages.append(cell.group(2).replace("\\|", "|"))
    return messages


@cache
def source_text() -> str:
    """Every string the code writes (a Python literal as one, concatenated parts joined; the page's script as is)."""
    texts: list[str] = []
    for root in SOURCES:
        for path in root.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant | ast.JoinedStr):
                    text = _sentence(node)
                    if text is not None:
                        texts.append(text)
        texts.extend(path.read_text(encoding="utf-8") for path in root.rglob("*.js"))
    return "\n".join(texts)


def test_every_message_the_code_raises_is_on_the_page() -> None:
    page = set(listed())
    assert sorted(raised()[""] - page) == []


def test_the_places_that_raise_other_messages_are_known() -> None:
    places = {tuple(key.rsplit(":", 1)) for key in raised() if key}
    assert places == set(DYNAMIC)


def test_every_message_on_the_page_is_one_the_code_gives() -> None:
    source = source_text()
    stale = [
        message
        for message in listed()
        if message not in raised()[""]
        and not all(
            fragment.strip() in source
            for fragment in message.split("…")
            if len(fragment.strip()) >= 3
        )
    ]
    assert stale == []


def test_the_page_is_listed_and_has_messages() -> None:
    assert len(listed()) >= 150
    assert len(set(listed())) == len(listed()), "each message once"
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    assert "(docs/troubleshooting.md)" in readme
