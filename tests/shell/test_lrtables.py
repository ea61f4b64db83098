"""
bashlex's shipped LR tables: current for the pinned grammar, and read exactly as the built ones.

The tables in ``gateway/_read/_bashlex_tables.json`` replace the ones bashlex
would build at every import; a stale or wrong file would silently change how
bashlex reads commands, so both are checked: the file is what building gives
now, and a process using it reads a sample of real commands to the same
trees as a process that builds its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gateway._read import _lrtables

SAMPLE = [
    "ls -la | wc -l",
    "cd src && grep -rn TODO . || echo none",
    'for f in *.py; do ruff check "$f"; done',
    "cat <<'EOF' > out.txt\nhello $HOME\nEOF",
    "echo $(date +%s) `whoami` ${HOME:-/tmp}",
    "if [ -f x ]; then rm -f x; elif true; then :; else false; fi",
    "a=1 b=2 env -i sh -c 'echo \"$a\"' 2>&1 >/dev/null &",
    "case $1 in start) run;; *) stop;; esac",
]

_DUMP = """
import json, sys
{prelude}
import bashlex
out = []
for text in json.loads(sys.stdin.read()):
    try:
        out.append([tree.dump() for tree in bashlex.parse(text)])
    except Exception as error:  # the same refusal either way counts as the same reading
        out.append([type(error).__name__, str(error)])
print(json.dumps(out))
"""


def _trees(prelude: str) -> list[list[str]]:
    result = subprocess.run(
        [sys.executable, "-c", _DUMP.format(prelude=prelude)],
        input=json.dumps(SAMPLE),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    trees: list[list[str]] = json.loads(result.stdout)
    return trees


def test_the_shipped_tables_are_what_building_gives_now(tmp_path: Path) -> None:
    built = tmp_path / "tables.json"
    _lrtables.write_tables(built)
    assert built.read_text() == _lrtables.TABLES.read_text(), (
        "the shipped bashlex tables are stale: run `python -m gateway._read._lrtables`"
    )


def test_bashlex_reads_the_same_trees_with_the_shipped_tables() -> None:
    shipped = _trees("from gateway._read import _lrtables\n_lrtables.install()")
    built = _trees("")
    assert shipped == built
    assert len(shipped) == len(SAMPLE)


def test_tables_for_another_grammar_are_not_taken(tmp_path: Path) -> None:
    data = json.loads(_lrtables.TABLES.read_text())
    assert data["signature"].startswith("sha256:")
    assert _lrtables._shipped("sha256:" + "0" * 64) is None
    assert _lrtables._shipped(data["signature"]) is not None
