"""
The shell reader over real command corpora (``tests/data/corpus``).

Agent traffic is what the gateway reads all day: nearly every valid command in
it must be measured. On every corpus the reader must never raise, and every
span of a measured reading — heredoc bodies above all — must slice back to
the source bytes.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from gateway._read import read_shell
from shell.walk import check_spans, heredocs

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
CORPORA = ("agent", "nl2bash", "tldr")
MEASURED_AMONG_VALID = 0.995


@cache
def commands(name: str) -> tuple[str, ...]:
    with (CORPUS / f"{name}.jsonl").open(encoding="utf-8") as lines:
        return tuple(json.loads(line)["cmd"] for line in lines if line.strip())


def is_valid_bash(command: str) -> bool:
    """What ``bash -n`` says: the text parses (bash runs nothing with ``-n``)."""
    try:
        result = subprocess.run(
            ["bash", "-n", "-c", command],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (ValueError, subprocess.TimeoutExpired):  # a NUL byte in the argument; a hung bash
        return False
    return result.returncode == 0


def test_corpora_are_present() -> None:
    assert len(commands("agent")) > 7_000
    assert len(commands("nl2bash")) > 10_000
    assert len(commands("tldr")) > 28_000


def test_measures_nearly_every_valid_agent_command() -> None:
    agent = commands("agent")
    with ThreadPoolExecutor(max_workers=8) as pool:
        valid = [c for c, ok in zip(agent, pool.map(is_valid_bash, agent), strict=True) if ok]
    unmeasured = [c for c in valid if read_shell(c).status != "measured"]
    rate = 1 - len(unmeasured) / len(valid)
    assert len(valid) > 0.95 * len(agent)
    assert rate >= MEASURED_AMONG_VALID, (
        f"{len(valid) - len(unmeasured)}/{len(valid)} valid agent commands measured; "
        f"first unmeasured: {unmeasured[:5]!r}"
    )


@pytest.mark.parametrize("name", CORPORA)
def test_reads_every_corpus_command_and_slices_every_span_back(name: str) -> None:
    measured = heredoc_count = 0
    for command in commands(name):
        reading = read_shell(command)
        assert reading.status in ("measured", "unmeasured")
        if reading.program is None:
            assert reading.reason
            continue
        measured += 1
        data = command.encode("utf-8")
        for heredoc in heredocs(reading.program):
            heredoc_count += 1
            span = heredoc.body_span
            assert data[span.start_byte : span.end_byte] == heredoc.body.encode("utf-8"), command
        check_spans(command, reading)
    assert measured > 0.95 * len(commands(name))
    if name == "agent":
        assert heredoc_count > 1_000
