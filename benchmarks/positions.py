"""
What the program-position reader makes of real traffic.

Run: ``.venv/bin/python benchmarks/positions.py [--limit N] [--top K]``.

Plans every command of the three corpora (``tests/data/corpus``; the first N
of each with ``--limit``) and, over every command of every measured plan —
nested shell text included — prints:

* the distribution of programs read: the top K basenames of ``position.program``
  (a launcher's default program, such as the ``echo`` of a bare ``xargs``, counts);
* refusals by kind (and, for ``control_syntax_at_program_position``, whether a
  shell stands there), and declines by kind, each with an example;
* the launchers seen, in chain order;
* nested shell text by ``via`` and status.

It is a window on the reader, to show it on real traffic and to catch
surprises; nothing here is asserted.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterator

from _corpus import CORPORA, load

from gateway.plans import Plan, PlannedCommand, plan_program


def walk(plan: Plan) -> Iterator[tuple[PlannedCommand, int]]:
    """Every command of a plan with its nesting depth, nested shell text included."""
    stack = [(command, 0) for command in reversed(plan.commands)]
    while stack:
        command, depth = stack.pop()
        yield command, depth
        for nested in reversed(command.nested):
            for inner in reversed(nested.plans):
                stack.extend((c, depth + 1) for c in reversed(inner.commands))


def short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N commands of each corpus")
    parser.add_argument("--top", type=int, default=50, help="how many program basenames to list")
    arguments = parser.parse_args()

    programs: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    declines: Counter[str] = Counter()
    launchers: Counter[str] = Counter()
    nested_shells: Counter[tuple[str, str]] = Counter()
    examples: dict[str, str] = {}
    totals: Counter[str] = Counter()

    for name in CORPORA:
        for source in load(name, arguments.limit):
            totals["calls"] += 1
            plan = plan_program(source)
            if plan.status != "measured":
                totals["unmeasured calls"] += 1
                continue
            for statement in plan.statements:
                for command, depth in walk(statement.plan):
                    totals["commands"] += 1
                    totals["nested commands"] += depth > 0
                    for shell in command.nested:
                        nested_shells[(shell.via, shell.status)] += 1
                    position = command.position
                    if not command.name and position.program is None:
                        totals["commands without words (a bare redirect or heredoc)"] += 1
                        continue
                    if position.program is not None:
                        programs[position.program.basename] += 1
                    else:
                        totals["commands with no program read"] += 1
                    for step in position.launchers:
                        launchers[step.basename] += 1
                    if position.refusal is not None:
                        label: str = position.refusal.kind
                        if label == "control_syntax_at_program_position":
                            label += " (runs_shell)" if position.refusal.runs_shell else " (syntax)"
                        refusals[label] += 1
                        examples.setdefault(f"refusal {label}", statement.plan.rendered)
                    if position.decline is not None:
                        declines[position.decline] += 1
                        examples.setdefault(f"decline {position.decline}", statement.plan.rendered)

    print(
        f"corpora: {', '.join(CORPORA)}"
        + (f" (first {arguments.limit} of each)" if arguments.limit else "")
    )
    for key in (
        "calls",
        "unmeasured calls",
        "commands",
        "nested commands",
        "commands with no program read",
        "commands without words (a bare redirect or heredoc)",
    ):
        print(f"  {key}: {totals[key]}")

    print(
        f"\ntop {arguments.top} programs read (position.program.basename), of {sum(programs.values())}:"
    )
    for rank, (basename, count) in enumerate(programs.most_common(arguments.top), start=1):
        print(f"  {rank:>3}. {basename:<20} {count:>7}")
    print(f"  distinct programs: {len(programs)}")

    print("\nrefusals by kind:")
    for label, count in refusals.most_common():
        print(f"  {label:<55} {count:>6}   e.g. {short(examples[f'refusal {label}'])}")
    print("declines by kind:")
    for label, count in declines.most_common():
        print(f"  {label:<55} {count:>6}   e.g. {short(examples[f'decline {label}'])}")

    print("\nlaunchers seen (each step of a chain):")
    for basename, count in launchers.most_common():
        print(f"  {basename:<20} {count:>7}")

    print("\nnested shell text by via and status:")
    for (via, status), count in sorted(nested_shells.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {via:<30} {status:<11} {count:>6}")


if __name__ == "__main__":
    main()
