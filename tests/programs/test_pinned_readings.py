"""
Every reading of a broad set of git and find command lines, pinned.

``readings/git.jsonl`` and ``readings/find.jsonl`` hold, one line each, a
command line (the words after the program, ``null`` for a word that
expands; a line with expanding words is held twice, once with them known to
be one word each, ``one_word``, as a double-quoted ``"$x"`` is) and the
whole `ArgumentReading` the reader gives it: options,
operands, every fact, and what could not be read. A change to how the
readers read options must leave every line as it is, or change the file in
the same commit, where the difference is the change to review.

The lines are built here (`git_lines`, `find_lines`) from git's and find's
global and leading options in every spelling (exact, fused, ``=``, missing
value, expanding value, clusters, prefixes), in pairs and followed by
subcommands, aliases and expressions. ``python tests/programs/test_pinned_readings.py``
rewrites the files from the readers as they read today.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from gateway._programs import ArgumentReading
from gateway._programs._find import read_find
from gateway._programs._git import read_git
from gateway._programs._git_commands import COMMANDS
from gateway._programs._languages import LanguageReader

_HERE = Path(__file__).parent / "readings"
Line = list[str | None]

_GIT_GLOBALS: tuple[Line, ...] = (
    [], ["-C", "src"], ["-C", ""], ["-Csrc"], ["-C=src"], ["-C", None], ["-C"],
    ["-c", "core.pager=less"], ["-c", "core.fsmonitor=./x"], ["-c", "core.pager"],
    ["-c", "user.name=x"], ["-c", "alias.st=status"], ["-c", "alias.x=!id"],
    ["-c", "ALIAS.LG=log --oneline"], ["-c", "alias.y"], ["-c", "include.path=/srv/c"],
    ["-c", "includeIf.gitdir:/x/.path=/srv/c"], ["-c", "core.sshCommand=ssh -v"],
    ["-c", None], ["-ccore.pager=x"], ["-c=core.pager=x"], ["-c"],
    ["--config-env", "core.pager=PAGER"], ["--config-env=core.editor=E"],
    ["--config-env=user.name=N"], ["--config-env", "user.name"], ["--config-env", None],
    ["--config-env"], ["--config-env=alias.st=S"],
    ["--git-dir", "/srv/r"], ["--git-dir=/srv/r"], ["--git-dir="], ["--git-dir", None],
    ["--git-dir"], ["--work-tree", "w"], ["--work-tree=w"], ["--namespace", "n"],
    ["--namespace=n"], ["--super-prefix=p"], ["--super-prefix", "p"],
    ["--attr-source=HEAD"], ["--attr-source", "HEAD"], ["--shallow-file", "f"],
    ["--shallow-file=f"], ["--exec-path"], ["--exec-path=/srv/x"], ["--exec-path=", "x"],
    ["--exec-path", "/srv/x"], ["--exec-pathx"], ["--list-cmds=main"], ["--list-cmds"],
    ["-p"], ["--paginate"], ["-P"], ["--no-pager"], ["--no-pager=1"], ["-pP"], ["-Pp"],
    ["--no-replace-objects"], ["--bare"], ["--literal-pathspecs"], ["--glob-pathspecs"],
    ["--noglob-pathspecs"], ["--icase-pathspecs"], ["--no-optional-locks"],
    ["--no-lazy-fetch"], ["--no-advice"], ["--html-path"], ["--man-path"], ["--info-path"],
    ["-v"], ["--version"], ["-h"], ["--help"], ["--"], ["-"], ["--git"], ["--no-pag"],
    ["--GIT-DIR=x"], ["-x"], ["-Cx", "y"], [None], ["-C", "a", "-C", "b"],
    ["-c", "a.b=c", "-c", "core.editor=vi"], ["-p", "-P"], ["--bare", "-C", "r"],
)  # fmt: skip
"""git's own options, each spelling and its neighbours."""

_GIT_TAILS: tuple[Line, ...] = (
    [], ["status", "-s", "--", "a"], ["log", "--output=o", "-1"], ["st"], ["lg"], ["x"],
    ["y"], ["help", "log"], [None], ["--version"], ["push", "origin"], ["grep", "-O", "x"],
    ["-c", "core.pager=p", "log"], ["Status"],
)  # fmt: skip
"""What may follow git's options: subcommands with options, aliases, nothing, an expansion."""


def git_lines() -> Iterator[Line]:
    """Every pinned git command line."""
    for prefix, tail in itertools.product(_GIT_GLOBALS, _GIT_TAILS):
        yield [*prefix, *tail]
    for first, second in itertools.product(_GIT_GLOBALS[1:40:3], _GIT_GLOBALS[40::2]):
        yield [*first, *second, "status"]
    for name in sorted(COMMANDS):
        yield ["-C", "d", name]


_FIND_LEADING: tuple[Line, ...] = (
    [], ["-H"], ["-L"], ["-P"], ["-HL"], ["-LP"], ["-D", "tree"], ["-D", "stat,opt"],
    ["-D"], ["-D", None], ["-Dtree"], ["-D=tree"], ["-O3"], ["-O"], ["-O0"], ["-O99"],
    ["-Ofoo"], ["-O", "3"], ["-O3x"], ["-O٣"], ["-E"], ["-X"], ["-d"], ["-s"], ["-x"],
    ["-Ex"], ["-f", "-weird"], ["-f"], ["-f", None], ["-fx"], ["--"], ["-"], [None],
    ["-L", "-P"], ["-P", "-L"], ["-H", "-D", "tree", "-O2"], ["--", "-L"], ["-L", "--"],
    ["--help"], ["--version"], ["-help"], ["-name"], ["-x", "-f", "a", "-L"],
)  # fmt: skip
"""find's leading options, each spelling and its neighbours."""

_FIND_TAILS: tuple[Line, ...] = (
    [], ["."], [".", "src"], ["-name", "*.pyc"], [".", "-name", "*.pyc", "-delete"],
    ["/", "-exec", "rm", "{}", ";"], [".", "-newer", "f", "-fprint", "out"], [None],
    ["-"], [".", "-follow", "-delete"], ["(", "-name", "x", ")"], ["!", "-name", "x"],
    ["-files0-from", "list"], [".", "-maxdepth", "1", "-print"],
)  # fmt: skip
"""What may follow find's leading options: starting points and expressions."""


def find_lines() -> Iterator[Line]:
    """Every pinned find command line."""
    for prefix, tail in itertools.product(_FIND_LEADING, _FIND_TAILS):
        yield [*prefix, *tail]
    for first, second in itertools.product(_FIND_LEADING, _FIND_LEADING):
        yield [*first, *second, ".", "-print"]


_READERS: dict[str, tuple[LanguageReader, Callable[[], Iterator[Line]]]] = {
    "git": (read_git, git_lines),
    "find": (read_find, find_lines),
}
Case = tuple[Line, tuple[int, ...]]
"""A command line and the indexes of its expanding words known to be one word."""


def _encoded(reading: ArgumentReading) -> object:
    """The reading as JSON, each fact a list of its fields in order, and empty fields left out."""
    encoded: dict[str, object] = json.loads(msgspec.json.encode(reading))
    encoded["facts"] = [list(fact.values()) for fact in encoded["facts"]]  # type: ignore[attr-defined]
    return {name: value for name, value in encoded.items() if value not in (None, [])}


def _pinned(program: str) -> list[tuple[Case, object]]:
    path = _HERE / f"{program}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        ((case["args"], tuple(case.get("one_word", ()))), case["reading"])
        for case in map(json.loads, lines)
    ]


def _read(program: str, case: Case) -> object:
    reader, _ = _READERS[program]
    args, one_word = case
    return _encoded(reader(program, args, one_word=frozenset(one_word)))


@pytest.mark.parametrize("program", sorted(_READERS))
def test_every_pinned_line_is_read_as_it_was(program: str) -> None:
    changed = [
        (case, expected, _read(program, case))
        for case, expected in _pinned(program)
        if _read(program, case) != expected
    ]
    assert not changed, changed[:5]


@pytest.mark.parametrize("program", sorted(_READERS))
def test_the_pinned_lines_are_the_lines_built_here(program: str) -> None:
    _, lines = _READERS[program]
    assert [case for case, _ in _pinned(program)] == list(_cases(lines()))


def _cases(lines: Iterator[Line]) -> Iterator[Case]:
    """Each line once, and again with its expanding words known to be one word each."""
    seen: set[str] = set()
    for line in lines:
        key = json.dumps(line)
        if key in seen:
            continue
        seen.add(key)
        yield line, ()
        expanding = tuple(index for index, word in enumerate(line) if word is None)
        if expanding:
            yield line, expanding


def _write() -> None:
    for program, (_, lines) in _READERS.items():
        with (_HERE / f"{program}.jsonl").open("w", encoding="utf-8") as out:
            for case in _cases(lines()):
                args, one_word = case
                held: dict[str, object] = {"args": args}
                if one_word:
                    held["one_word"] = list(one_word)
                held["reading"] = _read(program, case)
                out.write(json.dumps(held, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    _write()
