"""
What the default policy decides on real command corpora: how much it allows, asks and declines.

Run: ``.venv/bin/python benchmarks/policy.py [--limit N] [--corpus NAME ...] [--show REASON]``.

Every command of ``tests/data/corpus/{agent,nl2bash,tldr}.jsonl`` is reviewed
by a real `gateway.Gateway` whose only approver is the rules approver with the
default policy (no person, no sinks), exactly as ``gateway check`` would. It
prints the share allowed, asked and declined, the 20 most common reasons for
ask and the 10 most common reasons for decline. Reasons are grouped by the
rule that decided, or else by their clause with the command text taken out
(``Asked about `cat x > y`: it writes to `y`.`` groups as ``it writes to …``),
so that one reason counts once however many commands it was given for.

A policy that asks about everything is not a policy: the top ask reasons are
where to look for harmless, read-only commands the policy does not know yet.
Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter
from collections.abc import Sequence

import anyio
from _corpus import CORPORA, load
from gateway_rules import RulesApprover

from gateway import Gateway, GatewayConfig, ToolCall, Verdict

_PREFIX = re.compile(
    r"^(?:Heredoc hole [0-9.]+: )?(Asked about|Declined|Allowed) (?:`(?:[^`]|`(?!: ))*`|the call|the tool `[^`]*`): "
)
_RULE = re.compile(r"^rule ([a-z0-9._-]+) ")
_UNCOVERED = re.compile(r"^no rule covers `([^`]*)`")
_QUOTED = re.compile(r"`[^`]*`")
_NUMBER = re.compile(r"\d+")


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


async def review_all(corpus: Sequence[str]) -> list[Verdict]:
    """Each command's verdict from a gateway whose only approver is the default rules."""
    approver = RulesApprover({}, None)
    verdicts: list[Verdict] = []
    async with Gateway(GatewayConfig(), approvers=[approver], sinks={}) as gateway:
        for index, command in enumerate(corpus):
            call = ToolCall("Bash", {"command": command}, call_id=str(index))
            verdicts.append(await gateway.review(call))
    return verdicts


def report(name: str, corpus: Sequence[str], show: str | None) -> None:
    """Print the shares and the top reasons of one corpus."""
    started = time.perf_counter()
    verdicts = anyio.run(review_all, corpus)
    elapsed = time.perf_counter() - started
    total = len(verdicts)
    counts = Counter(v.decision for v in verdicts)
    print(f"\n== {name}: {total} commands ({elapsed:.1f} s) ==")
    for decision in ("allow", "ask", "decline"):
        share = 100 * counts[decision] / max(total, 1)
        print(f"  {decision:<8}{counts[decision]:>7}  {share:6.2f} %")
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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--limit", type=int, default=None, help="only the first N commands")
    parser.add_argument(
        "--corpus", action="append", choices=CORPORA, help="a corpus (default: all three)"
    )
    parser.add_argument("--show", metavar="REASON", help="list the commands of one reason group")
    arguments = parser.parse_args(argv)
    for name in arguments.corpus or CORPORA:
        report(name, load(name, arguments.limit), arguments.show)


if __name__ == "__main__":
    main()
