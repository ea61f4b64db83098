"""
The real-script corpus (``tests/data/scripts``): shell scripts shipped in Debian packages.

A script is measured statement by statement: its top-level statements, and
the statements of each top-level function body (so one construct in a long
function costs one statement, not the function). The cut is made with
tree-sitter; what each piece is worth is decided by ``bash -n`` (valid or
not) and the reader (measured or not).
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

from gateway._read._treesitter import parse_only

SCRIPTS = Path(__file__).resolve().parents[1] / "data" / "scripts"


def statements(text: str) -> list[str]:
    """The statements a script is measured by, each as its own text."""
    data = text.encode("utf-8", "surrogateescape")
    root = parse_only(data).root_node
    pieces: list[str] = []
    for node in root.children:
        if node.type == "comment":
            continue
        body = node.child_by_field_name("body") if node.type == "function_definition" else None
        inner = body.children if body is not None and body.type == "compound_statement" else None
        if inner is not None:
            pieces.extend(
                data[child.start_byte : child.end_byte].decode("utf-8", "surrogateescape")
                for child in inner
                if child.type not in ("{", "}", "comment", ";", "&")
            )
        elif node.type not in (";", "&"):
            pieces.append(data[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape"))
    return [piece for piece in pieces if piece.strip()]


@cache
def corpus() -> tuple[tuple[str, str], ...]:
    """Every statement of every script: ``(package/script, statement)``, in file order."""
    out: list[tuple[str, str]] = []
    for path in sorted(p for p in SCRIPTS.rglob("*") if p.is_file() and p.name != "README.md"):
        name = str(path.relative_to(SCRIPTS))
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        out.extend((name, statement) for statement in statements(text))
    return tuple(out)


def is_valid_bash(text: str) -> bool:
    """What ``bash -n`` says: the text parses (bash runs nothing with ``-n``)."""
    try:
        result = subprocess.run(
            ["bash", "-n", "-c", text], capture_output=True, timeout=30, check=False
        )
    except (ValueError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0
