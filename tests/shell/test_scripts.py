"""
The reader over real shell scripts (``tests/data/scripts``, from Debian packages).

Scripts are where bash's whole grammar turns up — ``case``, arrays, here-documents
of every kind, loops reading lines. At least 97 % of their bash-valid statements must
be measured, no statement may hit a bug of a reader, and every span of a measured
reading must slice back to the source.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from gateway._read import INTERNAL_FAILURE, read_shell
from shell.scripts import corpus, is_valid_bash
from shell.walk import check_spans

pytestmark = pytest.mark.corpus

MEASURED_AMONG_VALID = 0.97


def test_the_corpus_holds_the_scripts_of_many_packages() -> None:
    units = corpus()
    assert len({name.split("/")[0] for name, _ in units}) >= 20
    assert len({name for name, _ in units}) >= 50
    assert len(units) > 1_000


def test_measures_nearly_every_valid_statement_of_real_scripts() -> None:
    units = corpus()
    with ThreadPoolExecutor(max_workers=4) as pool:
        valid = [
            t
            for (_, t), ok in zip(
                units, pool.map(is_valid_bash, [t for _, t in units]), strict=True
            )
            if ok
        ]
    # bash itself must accept nearly every piece, or the cut (or bash) is broken.
    assert len(valid) >= 0.95 * len(units), f"bash -n accepts {len(valid)}/{len(units)}"
    readings = [read_shell(text) for text in valid]
    unmeasured = [
        (t, r.reason) for t, r in zip(valid, readings, strict=True) if r.status != "measured"
    ]
    rate = 1 - len(unmeasured) / len(valid)
    assert rate >= MEASURED_AMONG_VALID, (
        f"{len(valid) - len(unmeasured)}/{len(valid)} valid statements measured; "
        f"first unmeasured: {unmeasured[:3]!r}"
    )
    for text, reading in zip(valid, readings, strict=True):
        assert not (reading.reason or "").startswith(INTERNAL_FAILURE), (text, reading.reason)
        check_spans(text, reading)
