"""
What a call would do, in one sentence, writes first: the line a person reads before anything else.

Built from the call's effects (what the plan states), never from a rule's
wording: a heredoc that sends ``~/.ssh/id_rsa`` to a URL opens with the send,
and ``sed -i`` says it writes the file, whatever the rule that allowed it says
of ``sed``. Each effect becomes a clause with a rank; the clauses are sorted
by rank — what leaves the machine (a send of a secret first), then every write
(to a start-up file or the system before one in the workspace), then what
runs, connects or reads a secret, and what only reads last — identical
clauses are said once, and the sentence names every clause up to
`SUMMARY_CLAUSES`, counting the rest (writes are named before anything is
counted). The rules' allow sentences say the same clauses (`say_clauses`), so
the page and the agent are told one thing.

A read and a network connection made by the same program (``curl -T F URL``,
``curl -F k=@F URL``) are one clause: it *sends* the file there. A read of a
secret and a connection by different commands of one call are said together
too, as what they are: it reads the secret and connects (the data may travel
through a pipe or a variable the effects do not follow).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple
from urllib.parse import urlsplit

from gateway._calls._effects import (
    Bind,
    Effect,
    EffectPath,
    Execute,
    Lifetime,
    Network,
    Opaque,
    Privilege,
    Read,
    ReadEnvironment,
    Write,
)
from gateway._calls._text import shorten_quoted

__all__ = [
    "SUMMARY_CLAUSES",
    "WRITE_VERBS",
    "Clause",
    "effect_clauses",
    "say_clauses",
    "summarise_effects",
]

SUMMARY_CLAUSES: Final = 12
"""Clauses a summary names at most (every one a real call has); the rest are counted."""

WRITE_VERBS: Final[Mapping[str, str]] = {
    "write": "writes",
    "append": "appends to",
    "create": "creates",
    "delete": "deletes",
    "move": "moves",
    "copy": "copies to",
    "link": "makes a link at",
    "mode": "changes the mode of",
    "owner": "changes the owner of",
    "directory": "makes the directory",
}
"""The verb of each write action, for sentences ("writes", "appends to", "deletes"…)."""
_EXECUTE_WORDS: Final = {
    "program": "runs another program",
    "shell_text": "runs shell text",
    "code": "runs code",
    "expansion": "expands text a second time",
    "configured": "may run code its configuration names",
    "number": "evaluates a value as a number",
}
_LIFETIME_WORDS: Final = {
    "background": "keeps running in the background",
    "detached": "detaches from the call",
    "unbounded": "may never end",
    "loop": "runs commands in a loop",
}
_DANGEROUS_PLACES: Final = frozenset({"secret", "persistence", "system"})


class Clause(NamedTuple):
    """
    One thing a call does: ``rank`` (0 comes first) and the clause, without a subject.

    ``reads`` is true for a clause that only reads or lists; every other clause
    changes something (``writes``: a write or a send) or reaches beyond the call.
    """

    rank: int
    text: str
    reads: bool = False
    writes: bool = False


def _place(path: EffectPath) -> str:
    """A path as a person reads it: as written when it is a plain relative name, else as resolved."""
    written = path.written
    if path.value is None:
        return f"`{shorten_quoted(written)}`" if written else "a path only known when it runs"
    relative = written and not written.startswith(("~", "/", "$", "."))
    if relative and "$" not in written and path.value.endswith("/" + written):
        return f"`{shorten_quoted(written)}`"
    return f"`{shorten_quoted(path.value)}`"


def _host(target: str | None) -> str:
    if target is None:
        return "a host only known when it runs"
    if "://" in target:
        try:
            host = urlsplit(target).hostname
        except ValueError:
            host = None
        if host:
            return shorten_quoted(host)
    return shorten_quoted(target.rsplit("@", 1)[-1])


def _stdin(read: Read) -> bool:
    """A read of standard input (``-``, ``/dev/stdin``): what it reads is said where it comes from."""
    return read.path.written in ("-", "/dev/stdin") or "stream" in read.path.classes


def _program(via: str) -> str:
    return via.split(" ", 1)[0]


def _write_rank(effect: Write) -> int:
    classes = set(effect.path.classes)
    if classes & _DANGEROUS_PLACES:
        return 2
    if "stream" in classes:
        return 99
    if classes <= {"workspace", "temp"}:
        return 4
    return 2 if effect.recursive and effect.action == "delete" else 3


def _clause(effect: Effect) -> Clause | None:
    """The clause of one effect, or ``None`` for what a person need not read first."""
    if isinstance(effect, Write):
        rank = _write_rank(effect)
        if rank == 99:
            return None
        below = " and everything below it" if effect.recursive else ""
        verb = WRITE_VERBS.get(effect.action, "writes")
        return Clause(rank, f"{verb} {_place(effect.path)}{below}", writes=True)
    if isinstance(effect, Read):
        if _stdin(effect):
            return None
        if "secret" in effect.path.classes:
            return Clause(8, f"reads {_place(effect.path)}")
        if effect.metadata:
            return Clause(13, f"lists {_place(effect.path)}", reads=True)
        return Clause(12, f"reads {_place(effect.path)}", reads=True)
    if isinstance(effect, ReadEnvironment):
        if effect.variable is not None:
            return Clause(8, f"reads the secret variable `{shorten_quoted(effect.variable)}`")
        return Clause(8, "reads the whole environment")
    if isinstance(effect, Privilege):
        user = (
            f"`{shorten_quoted(effect.user)}`" if effect.user else "a user only known when it runs"
        )
        return Clause(5, f"runs as {user}")
    if isinstance(effect, Network):
        verb = {"connect": "connects to", "listen": "listens on", "resolve": "looks up"}[
            effect.kind
        ]
        rank = 11 if effect.address in ("loopback", "private") else 7
        return Clause(rank, f"{verb} {_host(effect.target)}")
    if isinstance(effect, Execute):
        risky = effect.kind in ("shell_text", "code") and effect.origin == "unknown"
        words = _EXECUTE_WORDS[effect.kind]
        if effect.kind == "configured":
            return Clause(9, f"{words} (`{shorten_quoted(_program(effect.via))}`)")
        return Clause(6 if risky else 9, words)
    if isinstance(effect, Opaque):
        return Clause(6, f"does what cannot be read: {shorten_quoted(effect.reason, 100)}")
    if isinstance(effect, Lifetime):
        return Clause(10, _LIFETIME_WORDS[effect.kind])
    if isinstance(effect, Bind) and effect.via in ("trap", "alias", "function"):
        name = (
            f"`{shorten_quoted(effect.name)}`" if effect.name else "a name only known when it runs"
        )
        return Clause(9, f"defines the {effect.via} {name}")
    # Other bindings and a change of directory: said by what they lead to, not by themselves.
    return None


def _sends(effects: Sequence[Effect]) -> tuple[list[Clause], set[int]]:
    """Reads sent over the network (same program), and the indexes of the effects they stand for."""
    clauses: list[Clause] = []
    used: set[int] = set()
    connects = [
        (index, effect)
        for index, effect in enumerate(effects)
        if isinstance(effect, Network) and effect.kind == "connect"
    ]
    for index, effect in enumerate(effects):
        if not isinstance(effect, Read) or effect.metadata:
            continue
        # The connection by the same program that follows the read (the next one in bash's order).
        partner = next(
            (
                (where, network)
                for where, network in connects
                if where > index and _program(network.via) == _program(effect.via)
            ),
            None,
        )
        if partner is None or _stdin(effect):
            continue
        where, network = partner
        secret = "secret" in effect.path.classes
        clauses.append(
            Clause(
                0 if secret else 1,
                f"sends {_place(effect.path)} to {_host(network.target)}",
                writes=True,
            )
        )
        used.update((index, where))
    secrets = [
        (index, effect)
        for index, effect in enumerate(effects)
        if isinstance(effect, Read) and "secret" in effect.path.classes and index not in used
    ]
    public = [
        (index, effect)
        for index, effect in connects
        if index not in used and effect.address not in ("loopback", "private")
    ]
    if secrets and public:
        (read_at, read), (net_at, network) = secrets[0], public[0]
        clauses.append(
            Clause(1, f"reads {_place(read.path)} and connects to {_host(network.target)}")
        )
        used.update((read_at, net_at))
    return clauses, used


def effect_clauses(effects: Sequence[Effect]) -> list[Clause]:
    """Every clause of a call's effects, writes first, each said once (ties keep bash's order)."""
    clauses, used = _sends(effects)
    for index, effect in enumerate(effects):
        if index in used:
            continue
        clause = _clause(effect)
        if clause is not None:
            clauses.append(clause)
    seen: set[str] = set()
    unique: list[Clause] = []
    for clause in sorted(clauses, key=lambda clause: clause.rank):
        if clause.text not in seen:
            seen.add(clause.text)
            unique.append(clause)
    return unique


def say_clauses(found: Sequence[Clause], *, clauses: int = SUMMARY_CLAUSES) -> str:
    """
    Clauses (`effect_clauses`) as one clause list: ``writes `a` and reads `b```; empty for none.

    Every clause is named up to ``clauses``; the rest are counted, and the
    count says how many of them write (writes come first, so one is counted
    only when more than ``clauses`` are said).
    """
    named = [clause.text for clause in found[: max(1, clauses)]]
    rest = found[len(named) :]
    if rest:
        writing = sum(1 for clause in rest if clause.writes)
        tail = f", {writing} of them writes" if writing else ""
        return ", ".join(named) + f", and {len(rest)} more{tail}"
    if len(named) <= 1:
        return "".join(named)
    return ", ".join(named[:-1]) + " and " + named[-1]


def summarise_effects(effects: Sequence[Effect], *, clauses: int = SUMMARY_CLAUSES) -> str:
    """
    One sentence saying what a call would do, writes first, from its effects.

    Examples:
        >>> from gateway.effects import EffectPath, Network, Read, Write
        >>> key = EffectPath(written="~/.ssh/id_rsa", value="~/.ssh/id_rsa", classes=("home", "secret"))
        >>> script = EffectPath(written="deploy.sh", value="/w/deploy.sh", classes=("workspace",))
        >>> summarise_effects([
        ...     Write(path=script, via=">", action="write"),
        ...     Read(path=key, via="curl --upload-file"),
        ...     Network(kind="connect", via="curl", target="https://deploy.example/", address="public"),
        ... ])
        'Sends `~/.ssh/id_rsa` to deploy.example and writes `deploy.sh`.'
        >>> summarise_effects([])
        'Changes nothing and reads nothing the plan can see.'
    """
    sentence = say_clauses(effect_clauses(effects), clauses=clauses)
    if not sentence:
        return "Changes nothing and reads nothing the plan can see."
    return sentence[:1].upper() + sentence[1:] + "."
