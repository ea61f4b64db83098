"""
Replay every hostile call through ``gateway run`` under both profiles, with real bubblewrap, and count what it did.

Run: ``nice .venv/bin/python benchmarks/confined_replay.py [--workers N] [--every K] [--profile P]``.

The calls are the project's hostile tables (``tests/rules``,
``tests/programs``) and the replay's own (``tests/boundary/corpus.py``);
each runs in a fresh world of marker secrets (``tests/boundary/replay.py``
says what it holds and what counts as harm). Printed per profile: calls
run, allowed plainly, allowed inside the boundary, asked, declined, timed
out (the gateway did not end within the replay's bound: a hang), and every
harm found, with the call; and each allowed call that ``gateway run``
killed at the time limit the replay gives it (half its bound). The suite
(``tests/boundary/test_replay.py``) runs a deterministic sample; this runs
them all (``--every 1``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from boundary.corpus import PROFILES, hostile, sample
from boundary.replay import replay


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--every", type=int, default=1, help="every K-th table call (default all)")
    parser.add_argument("--profile", choices=PROFILES, action="append")
    arguments = parser.parse_args(argv)
    calls = sample(hostile(), arguments.every)
    profiles = arguments.profile or list(PROFILES)
    harmed = 0
    with (
        tempfile.TemporaryDirectory(prefix="gateway-replay-") as scratch,
        replay(Path(scratch), workers=arguments.workers) as runner,
    ):
        for profile in profiles:
            started = time.perf_counter()
            outcomes = runner.many([(profile, call.text) for call in calls])
            kinds = Counter(outcome.kind for outcome in outcomes)
            print(
                f"== {profile}: {len(outcomes)} calls in {time.perf_counter() - started:.0f} s: "
                + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
            )
            for call, outcome in zip(calls, outcomes, strict=True):
                if outcome.ran.outlived:
                    print(f"  KILLED AT ITS LIMIT {call.source}: {call.text!r}")
                if outcome.kind == "timeout":
                    print(f"  TIMEOUT {call.source}: {call.text!r}")
                    for line in outcome.ran.err.splitlines()[-3:]:
                        print(f"      {line[:200]}")
                if outcome.harms:
                    harmed += 1
                    print(f"  HARM [{outcome.kind}] {call.source}: {call.text!r}")
                    for harm in outcome.harms:
                        print(f"      {harm}")
            sources = Counter(
                call.source.split(":")[0]
                for call, outcome in zip(calls, outcomes, strict=True)
                if outcome.ran.verdict == "allow"
            )
            print(
                "  allowed by source: " + ", ".join(f"{s} {n}" for s, n in sorted(sources.items()))
            )
    print(f"== harms: {harmed}")
    return 1 if harmed else 0


if __name__ == "__main__":
    sys.exit(main())
