"""
How many generated texts the planner misses against bash and dash run with real values.

Run: ``.venv/bin/python benchmarks/oracle_values.py [--count N] [--seed S] [--show K]``.

It generates ``--count`` texts (default 10,000) of every class of
``tests/oracle/values.py`` (integer attributes and binding forms, bash's own
integer variables, namerefs, startup variables and imported functions given
by launchers, texts for the system's ``sh``, tildes after ``=``), runs each
for real with bash 5.2 (and dash where the text starts it), confined, and
prints per class how many texts there were, how many plans are measured, in
how many the payload ran (``id``), and the **misses**: programs that ran
which a measured plan neither names nor says it cannot see. The goal is 0.
It shows the first ``--show`` missed texts (default 20).

Nothing here is asserted; ``tests/oracle/test_values.py`` runs a few of the same.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from oracle.values import CLASSES, generate, judge_many  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="texts to generate")
    parser.add_argument("--seed", type=int, default=0, help="the random source's seed")
    parser.add_argument("--show", type=int, default=20, help="missed texts to show")
    options = parser.parse_args()
    started = time.monotonic()
    judged = judge_many(generate(options.count, options.seed))
    texts, measured, payload, missed = (
        Counter[str](),
        Counter[str](),
        Counter[str](),
        Counter[str](),
    )
    for one in judged:
        texts[one.kind] += 1
        measured[one.kind] += one.measured
        payload[one.kind] += any(argv[:1] == ("id",) for argv in one.ran)
        missed[one.kind] += bool(one.misses)
    print(f"{len(judged)} texts in {time.monotonic() - started:.0f} s (seed {options.seed})")
    print(f"{'class':<22}{'texts':>8}{'measured':>10}{'id ran':>8}{'missed':>8}")
    for kind in CLASSES:
        print(f"{kind:<22}{texts[kind]:>8}{measured[kind]:>10}{payload[kind]:>8}{missed[kind]:>8}")
    print(
        f"{'all':<22}{sum(texts.values()):>8}{sum(measured.values()):>10}"
        f"{sum(payload.values()):>8}{sum(missed.values()):>8}"
    )
    shown = [one for one in judged if one.misses][: options.show]
    for one in shown:
        print(f"miss [{one.kind}] {one.text!r}: ran {', '.join(one.misses)}")


if __name__ == "__main__":
    main()
