"""What outlives the call or may never end, as ``lifetime`` effects."""

from __future__ import annotations

import pytest

from effects.support import effects_of, only
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
