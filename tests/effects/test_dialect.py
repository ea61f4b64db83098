"""
``sh -c`` runs its text with the system's sh, which is dash here: a text dash reads otherwise is refused.

Each bypass is run with the real dash and the real bash 5.2, confined, the
loggers recording whether ``id`` ran: dash runs it, bash does not, and the
plan leaves the nested text unmeasured (so no allow rests on bash's
reading). The twins are texts both shells read alike: they are planned.
"""

from __future__ import annotations

import pytest

from effects.support import in_bash
from gateway._calls._plans import NestedShell
from gateway._plan import plan_source

DIFFERS = [
    ("ansi-c-quote", "echo $'\\' ; id ; #'"),
    ("and-greater", "true &>x id"),
    ("double-parentheses", "((id))"),
    ("double-brackets", "[[ -n x ]] || id"),
    ("append-assignment", "x+=1 || id"),
    ("declare", "declare x=1 || id"),
    ("let", "let x=1 || id"),
    ("source", "source /dev/null || id"),
    ("alias", "alias ls=id\nls"),
]
"""Texts after which dash runs ``id`` and bash does not."""

ALIKE = [
    ("plain", "ls -la"),
    ("pipeline", 'echo "$HOME" | wc -c'),
    ("descriptor-duplicate", "ls 2>&1 >/dev/null"),
    ("assignment-with-tilde", 'x=~/a:~/b; ls "$x"'),
    ("test-and-or", "[ -n x ] && ls || id"),
]
"""Texts dash and bash read alike (``id`` runs in neither)."""


def _nested(source: str) -> NestedShell:
    plan = plan_source(source).published
    assert plan.status == "measured", plan.reason
    return plan.statements[0].plan.commands[0].nested[0]


def _sh(text: str) -> str:
    return "/bin/sh -c '" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize(("name", "text"), DIFFERS, ids=[r[0] for r in DIFFERS])
def test_a_text_dash_reads_otherwise_is_not_planned_as_bash_reads_it(name: str, text: str) -> None:
    assert ("id",) in in_bash(_sh(text)).logged
    assert ("id",) not in in_bash("/bin/bash -c '" + text.replace("'", "'\\''") + "'").logged
    nested = _nested(_sh(text))
    assert nested.status == "unmeasured"
    assert "dash" in (nested.reason or "")


@pytest.mark.parametrize(("name", "text"), ALIKE, ids=[r[0] for r in ALIKE])
def test_a_text_both_shells_read_alike_is_planned(name: str, text: str) -> None:
    assert ("id",) not in in_bash(_sh(text)).logged
    assert _nested(_sh(text)).status == "measured"


def test_a_tilde_after_equals_is_a_name_to_dash() -> None:
    run = in_bash(_sh("ls a=~/x"))
    assert run.logged == (("ls", "a=~/x"),)
    assert _nested(_sh("ls a=~/x")).status == "unmeasured"
    assert _nested("bash -c 'ls a=~/x'").status == "measured"


@pytest.mark.parametrize("launch", ["sh -c", "dash -c", "watch", "bash -c"])
def test_every_way_to_the_system_sh_is_read_as_dash(launch: str) -> None:
    nested = _nested(f"{launch} '((id))'")
    assert nested.status == ("measured" if launch == "bash -c" else "unmeasured")
