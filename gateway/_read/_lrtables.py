"""
bashlex's LR parse tables, computed once and shipped, instead of at every import.

bashlex builds its LALR tables from its grammar each time ``bashlex.parser``
is imported (its bundled yacc never reads a saved table), which costs a
hook process tens to hundreds of milliseconds per tool call. The tables are
a pure function of the grammar, so they are shipped in ``_bashlex_tables.json``
with the signature of the grammar they were built from, and `install` makes
bashlex's table builder take them when, and only when, that signature is the
grammar being built (any other bashlex, or an edited grammar, builds its
tables as before). The tests rebuild the tables and check that they parse
exactly as the shipped ones, and that the file is current.

`install` must run before ``bashlex`` is first imported: it adds an import
hook that patches ``bashlex.yacc`` right after that module loads (bashlex's
own package import builds the parser at once), and removes itself.

Regenerate the file with ``python -m gateway._read._lrtables``.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final

__all__ = ["TABLES", "grammar_signature", "install", "write_tables"]

TABLES: Final = Path(__file__).with_name("_bashlex_tables.json")
"""The shipped tables: ``{"signature": …, "action": …, "goto": …}``."""


def grammar_signature(grammar: Any) -> str:
    """The digest of a yacc grammar: its productions in order, their precedence, and the start symbol."""
    productions = [
        [p.name, list(p.prod), list(p.prec)] for p in grammar.Productions if p is not None
    ]
    precedence = sorted([term, list(value)] for term, value in grammar.Precedence.items())
    preimage = json.dumps(
        {"productions": productions, "precedence": precedence, "start": grammar.Start},
        sort_keys=True,
    )
    return "sha256:" + hashlib.sha256(preimage.encode()).hexdigest()


def _decoded(table: dict[str, dict[str, int]]) -> dict[int, dict[str, int]]:
    return {int(state): dict(entries) for state, entries in table.items()}


def _shipped(signature: str) -> tuple[dict[int, dict[str, int]], dict[int, dict[str, int]]] | None:
    try:
        data = json.loads(TABLES.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("signature") != signature:
        return None
    return _decoded(data["action"]), _decoded(data["goto"])


def _patch(yacc: ModuleType) -> None:
    table_class = yacc.LRTable
    build = table_class.__init__

    def init(self: Any, grammar: Any, log: Any = None) -> None:
        shipped = _shipped(grammar_signature(grammar))
        if shipped is None:
            build(self, grammar, log)
            return
        self.grammar = grammar
        self.log = log or yacc.NullLogger()
        self.lr_action, self.lr_goto = shipped
        self.lr_productions = grammar.Productions
        self.lr_goto_cache = {}
        self.lr0_cidhash = {}
        self._add_count = 0
        self.sr_conflict = self.rr_conflict = 0
        self.conflicts, self.sr_conflicts, self.rr_conflicts = [], [], []

    table_class.__init__ = init
    table_class.gateway_build = build  # the builder itself, for `write_tables`


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        _patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "bashlex.yacc":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Make bashlex take the shipped tables (call before ``bashlex`` is first imported)."""
    if "bashlex.yacc" in sys.modules or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())


def write_tables(path: Path = TABLES) -> str:
    """Build bashlex's tables from its grammar (in this process) and write them to ``path``."""
    import bashlex.parser
    import bashlex.yacc as yacc

    grammar_holder: list[Any] = []
    patched = yacc.LRTable.__init__
    build = getattr(yacc.LRTable, "gateway_build", patched)

    def capture(self: Any, grammar: Any, log: Any = None) -> None:
        grammar_holder.append(grammar)
        build(self, grammar, log)

    yacc.LRTable.__init__ = capture
    try:
        built = yacc.yacc(module=bashlex.parser, debug=False, write_tables=False)
    finally:
        yacc.LRTable.__init__ = patched
    signature = grammar_signature(grammar_holder[0])
    path.write_text(
        json.dumps(
            {
                "signature": signature,
                "action": {str(k): v for k, v in built.action.items()},
                "goto": {str(k): v for k, v in built.goto.items()},
            },
            sort_keys=True,
            separators=(",", ":"),
        )
        + "\n",
        "utf-8",
    )
    return signature


if __name__ == "__main__":  # pragma: no cover - the maintainers' regeneration step
    sys.stdout.write(f"wrote {TABLES} for grammar {write_tables()}\n")
