"""
What the default policy decides on real command corpora: how much it allows, asks and declines.

Run: ``.venv/bin/python benchmarks/policy.py [--limit N] [--corpus NAME ...]
[--profile NAME ...] [--confined] [--save FILE] [--compare FILE] [--show REASON]``.

Every command of ``tests/data/corpus/{agent,nl2bash,tldr}.jsonl`` is reviewed
by a real `gateway.Gateway` whose only approver is the rules approver with the
default policy (no person, no sinks), exactly as ``gateway check`` would, under
each profile asked for (default: ``read-only`` and ``workspace-write``). Calls
run in a working directory (``--cwd``, default ``/testbed``: the agent corpus
works in the repository checked out there), so paths under it are the
workspace. It prints the share allowed, asked and declined, the 20 most
common reasons for ask and the 10 most common reasons for decline.

Reasons are grouped by the rule that decided, or else by their clause with
the command text taken out (``Asked about `cat x > y`: it writes to `y`.``
groups as ``it writes to …``), so that one reason counts once however many
commands it was given for.

``--save FILE`` writes every verdict as a JSON line (corpus, profile, index,
decision, reason group); ``--compare FILE`` reads such a file made earlier (by
an older policy) and prints, per corpus and profile, how many commands moved
between decisions, the asks on *read-only work* before and after (commands
whose effects are all reads, directory changes and writes to standard streams:
the work a read-only profile must not ask more about) with their most
common reasons, and examples of each move. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path

import anyio
import msgspec
from _corpus import CORPORA, load
from gateway_rules import RulesApprover

from gateway import Gateway, GatewayConfig, ToolCall, Verdict
from gateway.confinement import Confining
from gateway.effects import AnalysisContext, ChangeDirectory, PathContext, Read, Write, analyse_call

PROFILES = ("read-only", "workspace-write")
_PREFIX = re.compile(
    r"^(?:Heredoc hole [0-9.]+: )?(Asked about|Declined|Allowed) (?:`(?:[^`]|`(?!: ))*`|the call|the tool `[^`]*`): "
)
_RULE = re.compile(r"^rule ([a-z0-9._-]+) ")
_UNCOVERED = re.compile(r"^no rule covers `([^`]*)`")
_QUOTED = re.compile(r"`[^`]*`")
_NUMBER = re.compile(r"\d+")


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """One verdict, as ``--save`` writes it."""

    corpus: str
    profile: str
    index: int
    decision: str
    group: str


def reason_group(verdict: Verdict) -> str:
    """
    The reason with the command taken out, so that equal reasons group.

    ``rule ID`` when a rule decided; ``no rule covers `PROGRAM``` (the program
    is the point); otherwise the clause, with quoted text and numbers
    replaced.
    """
    reason = verdict.reason or ""
    if verdict.rule:
        return f"rule {verdict.rule}"
    clause = _PREFIX.sub("", reason, count=1)
    found = _RULE.match(clause)
    if found:
        return f"rule {found.group(1)}"
    found = _UNCOVERED.match(clause)
    if found:
        return f"no rule covers `{found.group(1)}`"
    if clause.startswith("The command could not be read with confidence"):
        clause = clause.split(", so the rules", 1)[0].split("; a person", 1)[0]
    clause = _QUOTED.sub("`…`", clause)
    return _NUMBER.sub("N", clause).rstrip(".")


def read_only(command: str, cwd: str) -> bool:
    """True when every effect of the command is a read, a directory change or a write to a stream."""
    analysis = analyse_call(command, AnalysisContext(paths=PathContext(cwd=cwd)))
    if not analysis.measured:
        return False
    for effect in analysis.effects:
        if isinstance(effect, Read | ChangeDirectory):
            continue
        if isinstance(effect, Write) and effect.path.classes == ("stream",):
            continue
        return False
    return True


async def review_all(
    corpus: Sequence[str], profile: str | None, cwd: str, *, confined: bool = False
) -> list[Verdict]:
    """
    Each command's verdict from a gateway whose only approver is the default rules.

    ``confined``: reviewed for a caller that runs what is allowed inside the
    profile's boundary (as ``gateway run`` does), which is what lets code
    the rules cannot read be allowed there.
    """
    approver = RulesApprover({} if profile is None else {"profile": profile}, None)
    confining = Confining(profile=profile or "read-only") if confined else None
    verdicts: list[Verdict] = []
    async with Gateway(GatewayConfig(), approvers=[approver], sinks={}) as gateway:
        for index, command in enumerate(corpus):
            call = ToolCall("Bash", {"command": command}, call_id=str(index), cwd=cwd)
            verdicts.append(await gateway.review(call, confining=confining))
    return verdicts


def report(
    name: str,
    corpus: Sequence[str],
    profile: str | None,
    cwd: str,
    show: str | None,
    *,
    confined: bool = False,
) -> list[Row]:
    """Print the shares and the top reasons of one corpus under one profile; return its rows."""
    started = time.perf_counter()
    verdicts = anyio.run(partial(review_all, confined=confined), corpus, profile, cwd)
    elapsed = time.perf_counter() - started
    total = len(verdicts)
    counts = Counter(v.decision for v in verdicts)
    how = ", run confined" if confined else ""
    print(
        f"\n== {name}, profile {profile or 'default'}{how}: {total} commands ({elapsed:.1f} s) =="
    )
    for decision in ("allow", "ask", "decline"):
        share = 100 * counts[decision] / max(total, 1)
        print(f"  {decision:<8}{counts[decision]:>7}  {share:6.2f} %")
    bare = sum(1 for v in verdicts if v.decision == "allow" and v.boundary is None)
    print(f"  allowed without a boundary: {bare}")
    for decision, top in (("ask", 20), ("decline", 10)):
        groups = Counter(reason_group(v) for v in verdicts if v.decision == decision)
        print(f"  top {top} reasons for {decision}:")
        for group, times in groups.most_common(top):
            print(f"    {times:6d}  {group}")
    if show:
        print(f"  commands whose reason groups as {show!r}:")
        for command, verdict in zip(corpus, verdicts, strict=True):
            if reason_group(verdict) == show:
                print(f"    {verdict.decision:<8}{command[:150]!r}")
    return [
        Row(
            corpus=name,
            profile=profile or "default",
            index=index,
            decision=v.decision,
            group=reason_group(v),
        )
        for index, v in enumerate(verdicts)
    ]


def compare(rows: Iterable[Row], before: Path, corpora: dict[str, list[str]], cwd: str) -> None:
    """Print how the verdicts moved against an earlier ``--save`` file."""
    earlier: dict[tuple[str, int], Row] = {}
    with before.open(encoding="utf-8") as lines:
        for line in lines:
            row = msgspec.json.decode(line, type=Row)
            earlier[(row.corpus, row.index)] = row
    by_run: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        by_run.setdefault((row.corpus, row.profile), []).append(row)
    cache: dict[str, list[bool]] = {}
    for (name, profile), found in by_run.items():
        commands = corpora[name]
        if name not in cache:
            cache[name] = [read_only(command, cwd) for command in commands]
        readonly = cache[name]
        moves: Counter[tuple[str, str]] = Counter()
        examples: dict[tuple[str, str], list[str]] = {}
        asks = {"before": 0, "after": 0, "total": 0}
        reasons: dict[str, Counter[str]] = {"before": Counter(), "after": Counter()}
        for row in found:
            old = earlier.get((name, row.index))
            if old is None:
                continue
            if readonly[row.index]:
                asks["total"] += 1
                asks["before"] += old.decision == "ask"
                asks["after"] += row.decision == "ask"
                if old.decision == "ask":
                    reasons["before"][old.group] += 1
                if row.decision == "ask":
                    reasons["after"][row.group] += 1
            if old.decision != row.decision:
                key = (old.decision, row.decision)
                moves[key] += 1
                examples.setdefault(key, []).append(f"{commands[row.index][:110]!r}  [{row.group}]")
        before_asks = sum(1 for (c, _), r in earlier.items() if c == name and r.decision == "ask")
        after_asks = sum(1 for r in found if r.decision == "ask")
        print(f"\n== {name}, profile {profile}: against {before.name} ==")
        print(
            f"  asks: {before_asks} before, {after_asks} after"
            f" ({100 * (after_asks - before_asks) / max(before_asks, 1):+.1f} %)"
        )
        print(
            f"  read-only work ({asks['total']} commands): {asks['before']} asked before,"
            f" {asks['after']} after"
        )
        for when in ("before", "after"):
            print(f"  top reasons for asks on read-only work, {when}:")
            for group, times in reasons[when].most_common(8):
                print(f"    {times:6d}  {group}")
        for (old_decision, new_decision), times in moves.most_common():
            print(f"  {old_decision} → {new_decision}: {times}")
            for example in examples[(old_decision, new_decision)][:6]:
                print(f"      {example}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--limit", type=int, default=None, help="only the first N commands")
    parser.add_argument(
        "--corpus", action="append", choices=CORPORA, help="a corpus (default: all three)"
    )
    parser.add_argument(
        "--profile",
        action="append",
        help="a profile of the default policy (default: read-only and workspace-write); "
        "'default' reviews with no profile option",
    )
    parser.add_argument("--cwd", default="/testbed", help="the calls' working directory")
    parser.add_argument(
        "--confined",
        action="store_true",
        help="review for a caller that runs what is allowed inside the profile's boundary (gateway run)",
    )
    parser.add_argument("--save", type=Path, help="write every verdict as JSON lines")
    parser.add_argument("--compare", type=Path, help="compare with an earlier --save file")
    parser.add_argument("--show", metavar="REASON", help="list the commands of one reason group")
    arguments = parser.parse_args(argv)
    names = arguments.corpus or list(CORPORA)
    corpora = {name: load(name, arguments.limit) for name in names}
    rows: list[Row] = []
    for profile in arguments.profile or PROFILES:
        chosen = None if profile == "default" else profile
        for name in names:
            rows += report(
                name,
                corpora[name],
                chosen,
                arguments.cwd,
                arguments.show,
                confined=arguments.confined,
            )
    if arguments.save:
        with arguments.save.open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(msgspec.to_builtins(row)) + "\n")
    if arguments.compare:
        compare(rows, arguments.compare, corpora, arguments.cwd)


if __name__ == "__main__":
    main()
