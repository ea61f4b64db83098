"""
Shell text a POSIX ``sh`` runs: where dash would read it otherwise than bash.

``/bin/sh`` is dash on Debian and Ubuntu, and ``sh -c``, ``watch`` and a git
shell alias run their text with it. The planner reads every text as bash
does, so a text that dash reads differently is refused rather than
misread: ``$'…'`` is ``$`` and a single-quoted string to dash (``echo
$'x\\' ; id ; \\''`` runs ``id`` there and nothing in bash), ``((…))`` is
two subshells, ``a &>f b`` puts ``a`` in the background and runs ``b``,
``[[``, ``coproc``, ``time``, ``declare`` and the other bash-only
builtins are programs found on ``PATH``, ``x+=y`` is a command name, a
word shaped like an assignment keeps its ``~`` (``dd of=~/f``), brace
expansion and ``<( )`` do not exist, and ``alias`` takes effect in a
script.

`dash_differs` is asked of the tree the reader made of the text (bash's
reading); each construct it names was run with both shells (see the tests).
A construct that only makes dash stop with an error (``${x/a/b}``, ``;&``)
is not named: dash then runs less than the plan says, never more.
"""

from __future__ import annotations

from typing import Final

from gateway._read._tree import (
    AnsiC,
    ArithCommand,
    ArithFor,
    Arithmetic,
    Assignment,
    Brace,
    Coproc,
    DoubleQuoted,
    For,
    Function,
    Glob,
    Pipeline,
    ProcessSubstitution,
    Program,
    Redirect,
    SimpleCommand,
    Test,
    Tilde,
    Word,
    walk,
)

__all__ = ["DASH_SHELLS", "dash_differs", "reads_as_dash"]

DASH_SHELLS: Final = frozenset({"sh", "dash", "ash", "watch"})
"""What runs its text with the system's ``sh`` (dash), named as the planner's ``via`` starts."""
_BASH_ONLY_COMMANDS: Final = frozenset(
    {
        "alias",
        "bind",
        "builtin",
        "caller",
        "compgen",
        "complete",
        "compopt",
        "declare",
        "dirs",
        "disown",
        "enable",
        "help",
        "let",
        "logout",
        "mapfile",
        "popd",
        "pushd",
        "readarray",
        "shopt",
        "source",
        "suspend",
        "typeset",
    }
)
"""Bash builtins dash does not have (it looks them up on ``PATH``), and ``alias``, which dash applies to the lines after it."""
_BASH_ONLY_REDIRECTS: Final = frozenset({"&>", "&>>", "<<<", ">&", "<&"})


def reads_as_dash(via: str) -> bool:
    """True when what ``via`` launches is read by the system's ``sh`` (``sh -c``, ``watch``, a git ``!`` alias)."""
    first = via.split(" ", 1)[0].rsplit("/", 1)[-1]
    return first in DASH_SHELLS or via.startswith("git -c alias.")


def dash_differs(program: Program, text: str) -> str | None:
    """
    The first construct of ``program`` (bash's reading of ``text``) dash reads otherwise, or ``None``.

    The answer is a noun phrase for a sentence (``$'…' quoting``).
    """
    values = {id(node.value) for node in walk(program) if isinstance(node, Assignment)}
    for node in walk(program):
        found = _differs(node, text, values)
        if found is not None:
            return found
    return None


def _differs(node: object, text: str, values: set[int]) -> str | None:
    if isinstance(node, AnsiC):
        return "`$'…'` quoting"
    if isinstance(node, DoubleQuoted) and node.locale:
        return '`$"…"` quoting'
    if isinstance(node, ProcessSubstitution):
        return "a process substitution"
    if isinstance(node, Brace):
        return "brace expansion"
    if isinstance(node, Glob) and "(" in node.text:
        return "an extended pattern"
    if isinstance(node, Arithmetic) and text.startswith("$[", node.span.start):
        return "`$[…]`"
    if isinstance(node, Tilde) and node.text in ("~+", "~-"):
        return f"`{node.text}`"
    if (
        isinstance(node, Word)
        and id(node) not in values
        and any(isinstance(part, Tilde) for part in node.parts[1:])
    ):
        return "a tilde after `=` in a word"
    if isinstance(node, ArithCommand | ArithFor):
        return "`((…))`"
    if isinstance(node, Test):
        return "`[[ … ]]`"
    if isinstance(node, Coproc):
        return "`coproc`"
    if isinstance(node, For) and node.select:
        return "`select`"
    if isinstance(node, Function) and text.startswith("function", node.span.start):
        return "the `function` keyword"
    if isinstance(node, Pipeline) and (node.time is not None or "|&" in node.operators):
        return "`time`" if node.time is not None else "`|&`"
    if isinstance(node, Assignment) and (node.append or node.array is not None):
        return "an array or `+=` assignment"
    if isinstance(node, Redirect) and (
        node.operator in _BASH_ONLY_REDIRECTS or (node.fd or "").startswith("{")
    ):
        if node.operator in (">&", "<&") and _descriptor(node):
            return None
        return f"the redirect `{node.operator}`"
    if isinstance(node, SimpleCommand) and node.words:
        name = node.words[0].value
        if name in _BASH_ONLY_COMMANDS:
            return f"`{name}`"
    return None


def _descriptor(redirect: Redirect) -> bool:
    """``>&2``, ``<&-``: a descriptor both shells duplicate or close alike."""
    if (redirect.fd or "").startswith("{"):
        return False
    target = None if redirect.target is None else redirect.target.value
    return target is not None and (target.isdigit() or target == "-")
