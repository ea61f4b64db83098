"""
Plans and verdicts on the corpora, as the golden file pins them (``tests/golden/corpora.py``).

The suite checks `SAMPLE`, a fixed share of the chunks (one command in 64
of each corpus, spread over the whole corpus: 732 commands, each planned and
judged under both default profiles); ``scripts/golden`` checks every chunk.
A failure here is a behaviour change: if it is meant, ``scripts/golden
--update`` writes the file again and the diff shows in review; ``scripts/golden
--explain`` shows the first command that moved.
"""

from __future__ import annotations

import shutil

import pytest

from golden.corpora import CHUNKS, CORPORA, GOLDEN, Chunk, Golden, commands, differences, run

pytestmark = pytest.mark.corpus

SAMPLE = (0,)
"""The chunks the suite reviews: chunk 0 of each corpus (the commands whose index is a multiple of 64)."""


@pytest.fixture(scope="module")
def expected() -> Golden:
    return Golden.parse(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_file_covers_every_command_of_every_corpus(expected: Golden) -> None:
    for name in CORPORA:
        chunks = [chunk for chunk in expected.chunks if chunk.corpus == name]
        assert [chunk.index for chunk in chunks] == list(range(CHUNKS))
        assert sum(chunk.commands for chunk in chunks) == len(commands(name))


def test_the_golden_file_is_written_as_it_is_read(expected: Golden) -> None:
    assert expected.text() == GOLDEN.read_text(encoding="utf-8")


def test_a_moved_decision_shows_in_the_chunk_line() -> None:
    line = "agent 07 116 read-only 60/55/1 workspace-write 90/25/1 0cf58f23ef7c74c0bf82482a01cc5301"
    chunk = Chunk.parse(line)
    assert chunk.line() == line
    moved = Chunk.parse(line.replace("60/55/1", "61/54/1"))
    found = Golden(policies=(), chunks=(moved,))
    assert differences(found, Golden(policies=(), chunks=(chunk,))) == [(chunk, moved)]


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the golden run needs bubblewrap")
def test_a_sample_of_the_corpora_is_planned_and_judged_as_the_golden_file_says(
    expected: Golden,
) -> None:
    found = Golden.parse(run(["--emit", "golden", "--chunks", ",".join(map(str, SAMPLE))]))
    assert len(found.chunks) == len(CORPORA) * len(SAMPLE)
    assert found.policies == expected.policies, (
        "the default policy changed: run scripts/golden --update"
    )
    moved = differences(found, expected)
    assert not moved, (
        "plans or verdicts changed on the corpora (scripts/golden --explain shows the first "
        "command that moved; scripts/golden --update writes the file again):\n"
        + "\n".join(
            f"- {b.line() if b else '(missing)'}\n+ {a.line() if a else ''}" for b, a in moved
        )
    )
