"""
Helpers for the effects tests (imported by them; not a test module).

`effects_of` plans a text as a call run in `CWD` with home `HOME` and lists
every effect in walk order; `in_bash` runs a text the tests wrote with bash
5.2, confined (`oracle.bash.run`), and `planned_in` plans the same text as if
it ran where that run did, so a test can hold the plan to what bash did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from typing import Any, Final, TypeVar

from oracle import bash

from gateway._plan import plan_source
from gateway._plan._paths import PathContext
from gateway._programs import ArgumentFact, ArgumentReading, read_arguments
from gateway.effects import Effect, Execute, iter_effects

CWD: Final = "/work/app"
HOME: Final = "/home/amy"
PATHS: Final = PathContext(cwd=CWD, home=HOME)

E = TypeVar("E")


def effects_of(
    source: str,
    paths: PathContext = PATHS,
    *,
    arguments: Callable[..., ArgumentReading] = read_arguments,
) -> list[Effect]:
    """Every effect of ``source`` (measured), statements' own and commands', nested included."""
    plan = plan_source(source, paths, arguments=arguments).published
    assert plan.status == "measured", plan.reason
    return [effect for s in plan.statements for _, effect in iter_effects(s.plan)]


def only(effects: Sequence[Effect], kind: type[E]) -> list[E]:
    """The effects of one type."""
    return [e for e in effects if isinstance(e, kind)]


def number_sites(source: str) -> list[tuple[str, str | None, str]]:
    """``(kind, text, origin)`` of every number site and second expansion of ``source``."""
    return [
        (e.kind, e.text, e.origin)
        for e in only(effects_of(source), Execute)
        if e.kind in ("number", "expansion")
    ]


def runs_code(source: str) -> bool:
    """True when the plan says evaluating something in ``source`` runs code, or its origin is unknown."""
    return any(
        kind == "expansion" or origin == "unknown" for kind, _, origin in number_sites(source)
    )


def in_bash(text: str, **options: Any) -> bash.Run:
    """Run ``text`` (written by the test) with bash 5.2, confined; it must end within the limit."""
    run = bash.run(text, **options)
    assert run.status is not None, f"{text!r} did not end"
    return run


def planned_in(run: bash.Run, source: str, **options: Any) -> list[Effect]:
    """The effects of ``source`` planned as if it ran where ``run`` did."""
    return effects_of(source, PathContext(cwd=run.workdir, home=run.home_path), **options)


def reader(*facts: ArgumentFact, **fields: Any) -> Callable[..., ArgumentReading]:
    """A reader of program arguments that states ``facts`` for every program (a test's table)."""

    def read(
        basename: str,
        argv: Sequence[str | None],
        *,
        one_word: Set[int] = frozenset(),
        no_dash: Set[int] = frozenset(),
    ) -> ArgumentReading:
        return ArgumentReading(program=basename, table=True, facts=facts, **fields)

    return read
