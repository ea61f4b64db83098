"""
What outlives the call or may never end, as ``lifetime`` effects.

Where that is safe, bash, run confined, shows the plan is right: a job it
starts in the background, a loop that runs a program once per item, a
brace range that expands to that many words.
"""

from __future__ import annotations

import pytest
from oracle import bash

from effects.support import effects_of, in_bash, only
from gateway._programs._lasting import MOST_OUTPUT
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
        ("sleep infinity", [("unbounded", "infinity")]),
        ("sleep 1000000", [("unbounded", "1000000")]),
        ("sleep 9m 61", [("unbounded", "61")]),
        ("sleep 0x1p30", [("unbounded", "0x1p30")]),
        ("sleep 2.5; sleep 10m", []),
        ("n=inf; sleep $n", [("unbounded", "inf")]),
        ("timeout 5 sleep infinity", []),
        ("seq inf", [("unbounded", "inf")]),
        ("seq 1e9", [("unbounded", "1e9")]),
        ("seq 1 0 5", [("unbounded", "0")]),
        ("seq -f '%99999999g' 3", [("unbounded", "%99999999g")]),
        ("seq 10; seq 5 -1 1; seq -w 1 0.5 100000", []),
        ("printf '%*s' 2147483647 x", [("unbounded", "2147483647")]),
        ("printf '%2147483647d' 1", [("unbounded", "2147483647")]),
        ("printf -v v '%.*f' 2147483647 1", [("unbounded", "2147483647")]),
        ("/usr/bin/printf '%*s' 99999999 x", [("unbounded", "99999999")]),
        ('printf "$fmt"', [("unbounded", "a format only known when it runs")]),
        ("printf '%*s' \"$w\" x", [("unbounded", "a width only known when it runs")]),
        ("printf '%s\\n' \"$x\" a b; printf '%-*s|\\n' 8 a", []),
        ("head -c 100000000000 /dev/zero", [("unbounded", "reads /dev/zero")]),
        ("head -n 1 /dev/zero", [("unbounded", "reads /dev/zero")]),
        ("head -c 1G < /dev/urandom", [("unbounded", "reads /dev/urandom")]),
        ("head -n 3 /dev/urandom; head -c 1K /dev/zero", []),
        ("cat /dev/tty", [("unbounded", "reads /dev/tty")]),
        ("cat /dev/sda", [("unbounded", "reads /dev/sda")]),
        ("cat /proc/kmsg", [("unbounded", "reads /proc/kmsg")]),
        ("cat /dev/null /dev/stdin", []),
        ("diff <(sort a) b; cat /dev/fd/3 3< f; ls -l /dev/sda; find /dev/shm -type f", []),
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


@pytest.mark.parametrize(
    ("source", "endless"),
    [
        ("/usr/bin/sleep 1000000", True),
        ("/usr/bin/seq inf", True),
        ("/usr/bin/seq 1e9", True),
        ("printf '%*s' 2147483647 x", True),
        ("printf '%2147483647d' 1", True),
        ("/usr/bin/head -n 1 /dev/zero", True),
        ("/usr/bin/head -c 100000000000 /dev/zero", True),
        ("/usr/bin/sleep 0.1", False),
        ("/usr/bin/seq -w 1 0.5 100000", False),
        ("printf '%*s|%s\\n' 8 a b c", False),
        ("/usr/bin/head -c 1K /dev/zero; /usr/bin/head -n 3 /dev/urandom", False),
    ],
)
def test_what_may_never_end_floods_or_outlasts_the_call(source: str, endless: bool) -> None:
    """
    Bash agrees: what the plan calls unbounded prints past the most output or is still running.

    The programs are named by path, so the real coreutils run (the runner puts
    loggers first on ``PATH``). The output goes through ``head -c`` to ``wc
    -c``, so a flood ends when the count is reached. The bound only catches a
    hang: a busy machine makes a flood look like a command still running,
    which the test counts the same.
    """
    limit = MOST_OUTPUT + 1
    counted = f"{{ {source}; }} | /usr/bin/head -c {limit} | /usr/bin/wc -c"
    run = bash.run(counted, timeout=5 if endless else 120)
    assert run.status is not None or endless, "a bounded text did not end"
    flooded_or_running = run.status is None or int(run.stdout) >= limit
    assert flooded_or_running == endless, (run.stdout, run.stderr)
    kinds = [e.kind for e in only(effects_of(source), Lifetime)]
    assert ("unbounded" in kinds) == endless
