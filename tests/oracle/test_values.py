"""
The planner against bash and dash run with real values (`oracle.values`): no measured plan misses a program that ran.

A few texts of every class run here; ``benchmarks/oracle_values.py`` runs
many thousands of the same generators and counts misses.
"""

from __future__ import annotations

import pytest

from oracle.values import CLASSES, generate, judge_many, misses_of

SEED = 20261205


def test_generated_texts_of_every_class_have_no_miss() -> None:
    texts = generate(10 * len(CLASSES), SEED)
    judged = judge_many(texts)
    assert {kind for kind, _ in texts} == set(CLASSES)
    missed = [(j.kind, j.text, j.misses) for j in judged if j.misses]
    assert missed == []
    # The generators reach what they are for: the payload runs in some texts of each class.
    ran_id = {j.kind for j in judged if any(argv[:1] == ("id",) for argv in j.ran)}
    assert ran_id >= set(CLASSES) - {"tilde-after-equals"}


@pytest.mark.parametrize(
    ("text", "ran"),
    [
        ("declare -i x; read -r x < evil.txt", [("id",)]),
        ("/usr/bin/env 'BASH_FUNC_ls%%=() { id; }' /bin/bash -c ls", [("id",)]),
        ("/bin/sh -c '((id))'", [("id",)]),
    ],
)
def test_a_program_the_plan_does_not_name_is_a_miss_unless_the_plan_says_it_cannot_see(
    text: str, ran: list[tuple[str, ...]]
) -> None:
    """The judgement itself: these plans say code they cannot see runs, so `id` is no miss; `ls` runs in none."""
    measured, missed = misses_of(text, ran)
    assert measured
    assert missed == ()
    assert misses_of("ls", [("id",)]) == (True, ("id",))
