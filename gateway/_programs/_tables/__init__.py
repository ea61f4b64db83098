"""
Every option table, by program basename: the one registry `read_arguments` consults.

The rows live in modules by noun (text programs, file programs, archives,
the network, interpreters, package managers, shell builtins…); this module
joins them and refuses a basename declared twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from gateway._programs._rows import ProgramRow
from gateway._programs._tables._admin import ADMIN_TABLES
from gateway._programs._tables._archives import ARCHIVE_TABLES
from gateway._programs._tables._builds import BUILD_TABLES
from gateway._programs._tables._clusters import CLUSTER_TABLES
from gateway._programs._tables._files import FILE_TABLES
from gateway._programs._tables._inspect import INSPECT_TABLES
from gateway._programs._tables._interpreters import INTERPRETER_TABLES
from gateway._programs._tables._network import NETWORK_TABLES
from gateway._programs._tables._search import SEARCH_TABLES
from gateway._programs._tables._shell import SHELL_TABLES
from gateway._programs._tables._system import SYSTEM_TABLES
from gateway._programs._tables._text import TEXT_TABLES
from gateway._programs._tables._versions import VERSION_TABLES

__all__ = ["PROGRAM_TABLES"]


def _join(*tables: Mapping[str, ProgramRow]) -> Mapping[str, ProgramRow]:
    joined: dict[str, ProgramRow] = {}
    for table in tables:
        for name, row in table.items():
            if name in joined:
                raise ValueError(f"Program {name!r} has two option tables.")
            joined[name] = row
    return MappingProxyType(joined)


PROGRAM_TABLES: Final[Mapping[str, ProgramRow]] = _join(
    TEXT_TABLES,
    FILE_TABLES,
    ARCHIVE_TABLES,
    SYSTEM_TABLES,
    SHELL_TABLES,
    INTERPRETER_TABLES,
    INSPECT_TABLES,
    NETWORK_TABLES,
    BUILD_TABLES,
    CLUSTER_TABLES,
    SEARCH_TABLES,
    VERSION_TABLES,
    ADMIN_TABLES,
)
"""Basename → its option table."""
