"""
Tables that read only a program's version and help: compilers and tools whose other uses run code.

For these programs the tables declare only the spellings that print a
version or help and do nothing else (``gcc --version``, ``terraform
version``); any other option is undeclared and any other operand an unknown
subcommand, so nothing else they are given can be allowed on their table.
(``gcc -v`` is left out: with an input file it compiles.)
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from gateway._programs._rows import ProgramRow
from gateway._programs._tables._common import row

__all__ = ["VERSION_TABLES"]

_NO_SUBCOMMANDS: Final[Mapping[str, ProgramRow]] = MappingProxyType({})
_PRINTS: Final = ProgramRow()


def _version_only(*spellings: str, subcommands: tuple[str, ...] = ()) -> ProgramRow:
    """A row that reads only ``spellings`` (each a switch) and ``subcommands`` that only print."""
    return row(
        *spellings,
        style="words",
        subcommands=dict.fromkeys(subcommands, _PRINTS) or _NO_SUBCOMMANDS,
    )


_COMPILER: Final = _version_only("--version", "--help", "-dumpversion", "-dumpmachine")

VERSION_TABLES: Final[Mapping[str, ProgramRow]] = {
    "gcc": _COMPILER,
    "g++": _COMPILER,
    "cc": _COMPILER,
    "c++": _COMPILER,
    "clang": _COMPILER,
    "clang++": _COMPILER,
    "rustc": _version_only("--version", "-V", "--help", "-h"),
    "javac": _version_only("--version", "-version", "--help", "-help"),
    "deno": _version_only("--version", "-V", "--help", "-h"),
    "bun": _version_only("--version", "-v", "--help", "-h"),
    "tsc": _version_only("--version", "-v", "--help", "-h"),
    "swift": _version_only("--version", "--help", "-h"),
    "dotnet": _version_only(
        "--version", "--info", "--help", "-h", "--list-sdks", "--list-runtimes"
    ),
    "cmake": _version_only("--version", "--help", "-h"),
    "terraform": _version_only(
        "--version", "-version", "-v", "--help", "-help", "-h", subcommands=("version",)
    ),
    "helm": _version_only("--help", "-h", subcommands=("version",)),
    "black": _version_only("--version", "--help", "-h"),
    "ruff": _version_only("--version", "-V", "--help", "-h", subcommands=("version",)),
    "mypy": _version_only("--version", "-V", "--help", "-h"),
    "uv": _version_only("--version", "-V", "--help", "-h", subcommands=("version",)),
    "poetry": _version_only("--version", "-V", "--help", "-h"),
    "conda": _version_only("--version", "-V", "--help", "-h"),
    "gem": _version_only("--version", "-v", "--help", "-h"),
    "brew": _version_only("--version", "-v", "--help", "-h"),
    "rpm": _version_only("--version", "--help"),
}
"""Basename → a row that reads only its version and help."""
