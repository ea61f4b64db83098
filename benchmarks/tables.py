"""
How much of real traffic the option tables can read.

Run: ``.venv/bin/python benchmarks/tables.py [--corpus agent] [--limit N] [--top K]``.

Plans every command of a corpus (``tests/data/corpus``), and for every
command of every measured plan (nested shell text included) whose program is
read, reads the program's own arguments with `gateway._programs.read_arguments`.
It prints the share of commands whose program has a table (or a language
reader) and whose every option is declared and every word readable, the
share of calls all of whose commands are, then the programs without a table,
the undeclared options and the unreadable clauses, most frequent first.

Expanding words are passed as `read_arguments` expects from the planner: a
word that cannot begin with a dash (``"src/$f"``, ``~/x``, ``./*``, a process
substitution) is in ``no_dash``, and a double-quoted expansion without ``@``
or a process substitution is in ``one_word``.
Nothing here is asserted.
"""

from __future__ import annotations

import argparse
from collections import Counter

from _corpus import CORPORA, load
from positions import walk

from gateway._programs import read_arguments
from gateway._programs._languages import LANGUAGE_READERS
from gateway.plans import plan_program

_CANNOT_START_OPTION = frozenset("/._:,=+@%^~")


def _may_spell_option(written: str) -> bool:
    """
    True when an argument that expands, written as ``written``, could expand to an option.

    A word cannot when it starts with a literal character other than ``-`` and
    nothing in it is split into more words: ``~/dir``, ``./*``, ``"src/$name"``.
    A word that starts with an expansion, a glob or a brace (``$X``, ``*``,
    ``{-delete,x}``) can, and so can one with an unquoted ``$`` or backquote
    (``/x$(cmd)`` splits on blanks) or an ``@`` expansion (``"${a[@]}"``).
    """
    text = written.removeprefix('"')
    if not text or not (text[0].isalnum() or text[0] in _CANNOT_START_OPTION):
        return True
    if "$" in written and "@" in written:
        return True
    quote = ""
    index = 0
    while index < len(written):
        char = written[index]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            index += 1
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char in "$`":
            return True
        index += 1
    return False


def _process_substitution(written: str) -> bool:
    """``<(…)`` and ``>(…)`` expand to one path (``/dev/fd/63``), never to an option."""
    return written.startswith(("<(", ">(")) and written.endswith(")")


def _one_word(written: str) -> bool:
    """A double-quoted word with no ``@`` expansion is one word after expansion."""
    return _process_substitution(written) or (
        len(written) >= 2
        and written.startswith('"')
        and written.endswith('"')
        and "@" not in written
        and '"' not in written[1:-1].replace('\\"', "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=CORPORA, default="agent")
    parser.add_argument("--limit", type=int, default=None, help="the first N commands")
    parser.add_argument("--top", type=int, default=25, help="how many of each list to print")
    arguments = parser.parse_args()

    totals: Counter[str] = Counter()
    untabled: Counter[str] = Counter()
    undeclared: Counter[str] = Counter()
    unreadable: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for source in load(arguments.corpus, arguments.limit):
        totals["calls"] += 1
        plan = plan_program(source)
        if plan.status != "measured":
            totals["calls unmeasured"] += 1
            continue
        whole = True
        for statement in plan.statements:
            for command, _depth in walk(statement.plan):
                program = command.position.program
                if program is None or program.index is None:
                    continue
                totals["commands"] += 1
                start = program.index + 1
                values = [None if value is None else value.plain for value in command.argv[start:]]
                written = [value.display for value in command.args[start - 1 :]]
                no_dash = frozenset(
                    i
                    for i, text in enumerate(written)
                    if values[i] is None
                    and (_process_substitution(text) or not _may_spell_option(text))
                )
                one_word = frozenset(
                    i for i, text in enumerate(written) if values[i] is None and _one_word(text)
                )
                base = program.basename
                reading = read_arguments(base, values, one_word=one_word, no_dash=no_dash)
                if not reading.table:
                    totals["no table"] += 1
                    untabled[base] += 1
                    whole = False
                    continue
                totals["with a table"] += 1
                totals["by a language reader"] += base in LANGUAGE_READERS
                whole = whole and reading.undeclared is None and reading.unreadable is None
                if reading.undeclared is not None:
                    totals["undeclared option"] += 1
                    label = f"{base} {reading.undeclared}"
                    undeclared[label] += 1
                    examples.setdefault(label, statement.plan.rendered)
                elif reading.unreadable is not None:
                    totals["unreadable"] += 1
                    label = f"{base}: {reading.unreadable}"
                    unreadable[label] += 1
                    examples.setdefault(label, statement.plan.rendered)
                else:
                    totals["read in full"] += 1
        totals["calls read in full"] += whole

    commands = totals["commands"] or 1
    print(f"corpus {arguments.corpus}: {totals['commands']} commands whose program is read")
    for key in (
        "with a table",
        "by a language reader",
        "read in full",
        "undeclared option",
        "unreadable",
        "no table",
    ):
        print(f"  {key:<22} {totals[key]:>7}  {100 * totals[key] / commands:6.2f} %")
    calls = totals["calls"] or 1
    print(
        f"calls: {totals['calls']}, unmeasured {totals['calls unmeasured']}; every command "
        f"read in full: {totals['calls read in full']} "
        f"({100 * totals['calls read in full'] / calls:.2f} %)"
    )
    for title, counter in (
        ("programs without a table", untabled),
        ("undeclared options", undeclared),
        ("unreadable", unreadable),
    ):
        print(f"\n{title}:")
        for label, count in counter.most_common(arguments.top):
            example = " ".join(examples.get(label, "").split())[:70]
            print(f"  {count:>6}  {label:<50} {example}")


if __name__ == "__main__":
    main()
