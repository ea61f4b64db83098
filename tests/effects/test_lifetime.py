"""
What outlives the call or may never end, as ``lifetime`` effects.

Where that is safe, bash, run confined, shows the plan is right: a job it
starts in the background, a loop that runs a program once per item, a
brace range that expands to that many words.
"""

from __future__ import annotations

import pytest

from effects.support import effects_of, in_bash, only
from gateway.effects import Lifetime


@pytest.mark.parametrize(
    ("source", "lifetimes"),
    [
        ("make &", [("background", "&")]),
        ("a | b &", [("background", "&"), ("background", "&")]),
        ("nohup make", [("detached", "nohup")]),
        ("setsid -f make", [("detached", "setsid")]),
        ("make & disown", [("background", "&"), ("detached", "disown")]),
        ("while :; do date; done", [("unbounded", "while")]),
        ("while true; do date; done", [("unbounded", "while")]),
        ("until false; do date; done", [("unbounded", "until")]),
        ("for ((;;)); do date; done", [("unbounded", "for (( ))")]),
        ("while read -r l; do echo $l; done < f", [("loop", "while")]),
        ("for f in a b; do echo $f; done", [("loop", "for")]),
        ("for ((i = 0; i < 3; i++)); do echo $i; done", [("loop", "for (( ))")]),
        ("echo {1..1000000}", [("unbounded", "brace range")]),
        ("echo {1..100}", []),
        ("cat /dev/zero", [("unbounded", "reads /dev/zero")]),
        ("sort < /dev/urandom", [("unbounded", "reads /dev/urandom")]),
        ("head -c 16 /dev/urandom", []),
        ("tail -f log", [("unbounded", "tail --follow")]),
        ("timeout 10 tail -f log", []),
        ("watch ls", [("unbounded", "watch")]),
        (
            "f() { f | f & }; f",
            [("unbounded", "f calls itself"), ("background", "&"), ("background", "&")],
        ),
    ],
)
def test_lifetimes(source: str, lifetimes: list[tuple[str, str]]) -> None:
    assert [(e.kind, e.via) for e in only(effects_of(source), Lifetime)] == lifetimes


@pytest.mark.parametrize(
    ("source", "background"),
    [
        ('make & wait; echo "job:$!"', True),
        ('{ make; } & wait; echo "job:$!"', True),
        ('make; echo "job:$!"', False),
        ('make && wait; echo "job:$!"', False),
    ],
)
def test_a_background_job_is_one_bash_starts(source: str, background: bool) -> None:
    """``$!`` names the last job bash started in the background: set exactly when the plan says so."""
    run = in_bash(source, programs=("make",))
    assert run.logged == (("make",),)
    assert (run.stdout != b"job:\n") == background
    kinds = [e.kind for e in only(effects_of(source), Lifetime)]
    assert ("background" in kinds) == background


@pytest.mark.parametrize(
    ("source", "runs", "loop"),
    [
        ('for f in a b c; do make "$f"; done', 3, True),
        ('while read -r f; do make "$f"; done < items', 3, True),
        ("make a; make b; make c", 3, False),
    ],
)
def test_a_loop_runs_its_body_once_per_item(source: str, runs: int, loop: bool) -> None:
    run = in_bash(source, programs=("make",), files={"items": "a\nb\nc\n"})
    assert len(run.logged) == runs
    assert all(argv[0] == "make" for argv in run.logged)
    assert (["loop"] if loop else []) == [e.kind for e in only(effects_of(source), Lifetime)]


@pytest.mark.parametrize(("bound", "unbounded"), [(100, False), (1_000_000, True)])
def test_a_brace_range_expands_to_every_word_before_anything_runs(
    bound: int, unbounded: bool
) -> None:
    run = in_bash(f"set -- {{1..{bound}}}; echo $#")
    assert run.stdout == f"{bound}\n".encode()
    lifetimes = [(e.kind, e.via) for e in only(effects_of(f"echo {{1..{bound}}}"), Lifetime)]
    assert lifetimes == ([("unbounded", "brace range")] if unbounded else [])
