"""
The real commands the benchmarks measure on: ``tests/data/corpus/{agent,nl2bash,tldr}.jsonl``.

Each line is a JSON object whose ``cmd`` is one command as an agent, the
NL2Bash data set or a tldr page wrote it. The scripts import this module as
``_corpus`` (they run from this folder: ``python benchmarks/plan.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

CORPUS: Final = Path(__file__).resolve().parents[1] / "tests" / "data" / "corpus"
CORPORA: Final = ("agent", "nl2bash", "tldr")


def load(name: str, limit: int | None = None) -> list[str]:
    """The ``cmd`` of each line of one corpus, in file order; the first ``limit`` when given."""
    commands: list[str] = []
    with (CORPUS / f"{name}.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            if limit is not None and len(commands) >= limit:
                break
            if line.strip():
                commands.append(str(json.loads(line)["cmd"]))
    return commands
