"""
What runs later beyond the fixed persistence patterns: the modules ``.pth`` files import, and where a persistence point that is a link leads.

Python's ``site`` module runs every line of a ``site-packages/*.pth`` file
that begins with ``import`` at every start of the interpreter. The ``.pth``
file itself is a persistence point (`gateway._calls._places`), but the
module its line imports is an ordinary file beside it:
``distutils-precedence.pth`` (setuptools) imports ``_distutils_hack``,
``_virtualenv.pth`` imports ``_virtualenv``, an editable install's
``.pth`` imports its ``__editable___*_finder``. `startup_points` reads the
``.pth`` files of a ``site-packages`` directory (bounded) and names those
modules as points: source, bytecode, extension module or package.

A persistence point that is a link (``.git/hooks/pre-commit ->
../../tools/pre-commit``, ``.envrc -> config/envrc``) runs what it leads to:
`link_points` names that target too.

Synchronous file I/O, bounded; what cannot be read or bound raises
`StartupUnknown`, whose message is the clause (never a reason to allow).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from typing import Final

__all__ = [
    "MAX_PTH_BYTES",
    "MAX_PTH_FILES",
    "MAX_PTH_LINES",
    "SITE_DIRECTORIES",
    "StartupUnknown",
    "link_points",
    "point",
    "pth_imports",
    "site_directory",
    "startup_points",
]

MAX_PTH_BYTES: Final = 64 * 1024
"""The largest ``.pth`` file read; a larger one makes what runs at start not known."""

MAX_PTH_LINES: Final = 2000
"""The most lines of one ``.pth`` file read; more make what runs at start not known."""

MAX_PTH_FILES: Final = 512
"""The most ``.pth`` files of one ``site-packages`` directory read; more make what runs at start not known."""

SITE_DIRECTORIES: Final = ("site-packages", "dist-packages")
"""The names of the directories whose ``.pth`` files ``site`` reads at start."""

_IMPORTERS: Final = frozenset(("__import__", "import_module"))
_RUNNERS: Final = frozenset(("exec", "eval", "compile", "run_path", "run_module"))


class StartupUnknown(Exception):
    """What runs at an interpreter's start cannot be known; the message is the clause."""


def point(path: str) -> str:
    """
    A path as a pattern that matches it: a glob character stands for any one character (never fewer matches).

    Examples:
        >>> point("/w/a[1]/x*")
        '/w/a?1]/x?'
    """
    return "".join("?" if c in "*?[" else c for c in path) or "/"


def site_directory(path: str) -> str | None:
    """
    The ``site-packages`` (or ``dist-packages``) directory a normalised absolute path is in or is, or ``None``.

    Examples:
        >>> site_directory("/w/.venv/lib/python3.11/site-packages/_distutils_hack/__init__.py")
        '/w/.venv/lib/python3.11/site-packages'
        >>> site_directory("/w/src/pkg/module.py") is None
        True
    """
    pieces = path.split("/")
    for index in range(len(pieces) - 1, 0, -1):
        if pieces[index] in SITE_DIRECTORIES:
            return "/".join(pieces[: index + 1])
    return None


def pth_imports(text: str, where: str = "a .pth file") -> tuple[str, ...]:
    """
    The top-level modules the ``import`` lines of a ``.pth`` file's text import, in order.

    ``site`` runs a line that begins with ``import`` (then a space or a tab)
    and adds every other line to ``sys.path``. A name is taken from an
    ``import`` or ``from`` statement and from ``__import__('NAME')`` or
    ``importlib.import_module('NAME')``; a line that cannot be parsed
    runs nothing.

    Raises:
        StartupUnknown: A line imports or runs what its text does not name
            (a computed module name, ``exec``), or the text has more than
            `MAX_PTH_LINES` lines.

    Examples:
        >>> pth_imports("import os; var = 'X'; enabled = 1; enabled and __import__('_distutils_hack').add_shim();")
        ('os', '_distutils_hack')
        >>> pth_imports("/w/src\\nimport __editable___pkg_1_0_finder; __editable___pkg_1_0_finder.install()")
        ('__editable___pkg_1_0_finder',)
    """
    lines = text.splitlines()
    if len(lines) > MAX_PTH_LINES:
        raise StartupUnknown(f"{where} has more than {MAX_PTH_LINES} lines")
    found: dict[str, None] = {}
    for line in lines:
        if not line.startswith(("import ", "import\t")):
            continue
        try:
            tree = ast.parse(line.strip())
        except (SyntaxError, ValueError):
            continue  # `site` cannot run it either
        for name in _imported(tree, where):
            found[name.split(".")[0]] = None
    return tuple(found)


def _imported(tree: ast.AST, where: str) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
        elif isinstance(node, ast.Call):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if name in _RUNNERS:
                raise StartupUnknown(f"{where} runs code its text does not show (`{name}`)")
            if name not in _IMPORTERS:
                continue
            first = node.args[0] if node.args else None
            if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
                raise StartupUnknown(f"{where} imports a module whose name it computes")
            yield first.value


def module_points(directory: str, names: tuple[str, ...]) -> list[str]:
    """
    The patterns of the modules named, in a ``site-packages`` directory: source, bytecode, extension or package.

    Examples:
        >>> module_points("/s", ("_virtualenv",))
        ['/s/_virtualenv.*', '/s/_virtualenv/**', '/s/__pycache__/_virtualenv.*']
    """
    base = point(directory)
    return [
        pattern
        for name in names
        for pattern in (f"{base}/{name}.*", f"{base}/{name}/**", f"{base}/__pycache__/{name}.*")
    ]


def startup_points(directory: str) -> list[str]:
    """
    The patterns of the modules the ``.pth`` files of a ``site-packages`` directory import (none when it does not exist).

    Raises:
        StartupUnknown: A ``.pth`` file (or the directory) cannot be read,
            or passes a bound.
    """
    try:
        entries = [entry.name for entry in os.scandir(directory)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as error:
        raise StartupUnknown(f"`{directory}` cannot be listed ({error.strerror})") from None
    files = sorted(name for name in entries if name.endswith(".pth"))
    if len(files) > MAX_PTH_FILES:
        raise StartupUnknown(f"`{directory}` holds more than {MAX_PTH_FILES} .pth files")
    names: dict[str, None] = {}
    for name in files:
        path = os.path.join(directory, name)
        try:
            with open(path, "rb") as stream:
                data = stream.read(MAX_PTH_BYTES + 1)
        except OSError as error:
            raise StartupUnknown(f"`{path}` cannot be read ({error.strerror})") from None
        if len(data) > MAX_PTH_BYTES:
            raise StartupUnknown(f"`{path}` is larger than {MAX_PTH_BYTES} bytes")
        text = data.decode("utf-8", "replace")
        names.update(dict.fromkeys(pth_imports(text, f"`{path}`")))
    return module_points(directory, tuple(names))


def link_points(path: str) -> list[str]:
    """
    The patterns of where a link at a persistence point leads (its final target; a directory with all it holds); none for what is no link.

    Examples:
        >>> link_points("/nonexistent-place/.envrc")
        []
    """
    if not os.path.islink(path):
        return []
    target = os.path.realpath(path)
    if os.path.isdir(target):
        return [point(target) + "/**"]
    return [point(target)]
