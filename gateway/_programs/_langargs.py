"""
Reading the command line of a program with a language of its own: options, their values, operands.

awk, sed, jq and git read their options the way ``getopt_long`` does (with
each program's own twists: jq stacks letters but has no abbreviations; awk
stops at its program text; git's subcommands accept ``--no-`` forms). This
module is the one place that splits such a command line into options and
operands for the language readers, from a small table per program: each
option's spellings, its arity, and a canonical name the reader decides on.

It is pure and reads each word once. It never guesses: an option the table
does not have stops the reading (`Problem.undeclared`), and so does a word
that expands where an option could stand (`Problem.unreadable`), since its
value could spell any option.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final, Literal, NamedTuple

__all__ = ["Arity", "Item", "Option", "OptionTable", "Problem", "Scanner", "table"]

Arity = Literal[0, 1, 2, "optional"]
"""How many values an option takes: none, one (fused or the next word), two (the next two words), or an optional fused one (``-i.bak``, ``--in-place=.bak``)."""

EXPANDS: Final = (
    "an argument expands where an option could stand, so the command line cannot be read"
)


class Option(NamedTuple):
    """One option of a program: its canonical name (shown in readings) and its arity."""

    name: str
    arity: Arity


class OptionTable(NamedTuple):
    """
    A program's options, by spelling.

    Attributes:
        short: Letter → option (``"n"`` → ``-n``).
        long: Long name without dashes → option (``"quiet"`` → ``--quiet``).
        abbreviate: A unique prefix of a long name stands for it (``getopt_long``).
        clusters: Short letters combine in one word (``-nE``); the first that
            takes a value takes the rest of the word, or the next word.
        words: Options spelled as one whole word with one dash (the one
            true awk's ``-safe``), looked up before the word is read as letters.
    """

    short: Mapping[str, Option]
    long: Mapping[str, Option]
    abbreviate: bool
    clusters: bool
    words: Mapping[str, Option]


def table(
    rows: Iterable[tuple[tuple[str, ...], Arity]],
    *,
    abbreviate: bool = True,
    clusters: bool = True,
) -> OptionTable:
    """
    Build an option table from rows of ``(spellings, arity)``.

    The first spelling of a row is its canonical name: ``(("--quiet", "-n",
    "--silent"), 0)`` makes ``-n``, ``--quiet`` and ``--silent`` one option
    named ``--quiet``.

    A spelling of one dash and several letters (``-safe``) is a whole-word option.

    Raises:
        ValueError: A spelling does not start with a dash, or is given twice.
    """
    short: dict[str, Option] = {}
    long: dict[str, Option] = {}
    words: dict[str, Option] = {}
    for spellings, arity in rows:
        option = Option(spellings[0], arity)
        for spelling in spellings:
            if spelling.startswith("--") and len(spelling) > 2:
                key, into = spelling[2:], long
            elif spelling.startswith("-") and len(spelling) == 2:
                key, into = spelling[1], short
            elif spelling.startswith("-") and len(spelling) > 2:
                key, into = spelling, words
            else:
                raise ValueError(f"The option spelling {spelling!r} does not start with a dash.")
            if key in into:
                raise ValueError(f"The option spelling {spelling!r} is given twice.")
            into[key] = option
    return OptionTable(
        short=short, long=long, abbreviate=abbreviate, clusters=clusters, words=words
    )


class Item(NamedTuple):
    """
    One piece of a command line: an option with its values, an operand, or ``--``.

    Attributes:
        kind: ``option``, ``operand`` or ``end`` (the ``--`` that ends options).
        start: The index of the word it starts at.
        name: The option's canonical name (``""`` for operands and ``end``).
        written: The option as written, without a fused value (``-e``, ``--expr``).
        values: The option's values (``None`` for one that expands), or the
            operand's value as a one-tuple.
        indexes: The index of each value's word (the option's own index when fused).
    """

    kind: Literal["option", "operand", "end"]
    start: int
    name: str = ""
    written: str = ""
    values: tuple[str | None, ...] = ()
    indexes: tuple[int, ...] = ()

    @property
    def value(self) -> str | None:
        """The first value (``None`` when there is none or it expands)."""
        return self.values[0] if self.values else None


class Problem(NamedTuple):
    """Why a command line cannot be read: an undeclared option (as written), or a clause."""

    undeclared: str | None = None
    unreadable: str | None = None


class Scanner:
    """
    Splits ``args`` into `Item`s, one call of `next` at a time.

    ``permute``: options may follow operands (GNU ``getopt``); else the first
    operand ends the options (awk, whose first operand is its program). The
    reader may consume words itself with `take` (mawk's ``-W exec FILE``) and
    end the options with `end_options`. ``optionish`` says which words are
    options (by default: a dash and more; jq reads ``-1`` as an operand).
    """

    def __init__(
        self,
        args: Sequence[str | None],
        options: OptionTable,
        *,
        permute: bool,
        optionish: Callable[[str], bool] | None = None,
    ) -> None:
        self.args = args
        self.options = options
        self.permute = permute
        self.optionish = optionish
        self.at = 0
        self.options_done = False
        self.problem: Problem | None = None
        self._pending: list[Item] = []

    def end_options(self) -> None:
        """Read every remaining word as an operand."""
        self.options_done = True

    def take(self) -> tuple[str | None, int] | None:
        """The next raw word and its index, consumed; ``None`` at the end."""
        if self.at >= len(self.args):
            return None
        word = self.args[self.at]
        self.at += 1
        return word, self.at - 1

    def next(self) -> Item | None:
        """The next item, or ``None`` at the end or when `problem` is set."""
        if self._pending:
            return self._pending.pop(0)
        if self.problem is not None or self.at >= len(self.args):
            return None
        index = self.at
        word = self.args[index]
        self.at += 1
        if self.options_done:
            return Item("operand", index, values=(word,), indexes=(index,))
        if word is None:
            self.problem = Problem(unreadable=EXPANDS)
            return None
        if word == "--":
            self.options_done = True
            return Item("end", index)
        if not (
            word.startswith("-") and word != "-" if self.optionish is None else self.optionish(word)
        ):
            if not self.permute:
                self.options_done = True
            return Item("operand", index, values=(word,), indexes=(index,))
        if word.startswith("--"):
            return self._long(word, index)
        whole = self.options.words.get(word)
        if whole is not None:
            if whole.arity == 0:
                return Item("option", index, whole.name, word)
            taken = self._values(2 if whole.arity == 2 else 1, word)
            if taken is None:
                return None
            return Item("option", index, whole.name, word, taken[0], taken[1])
        return self._short(word, index)

    def __iter__(self) -> Scanner:
        return self

    def __next__(self) -> Item:
        item = self.next()
        if item is None:
            raise StopIteration
        return item

    def _values(
        self, count: int, option: str
    ) -> tuple[tuple[str | None, ...], tuple[int, ...]] | None:
        if self.at + count > len(self.args):
            self.problem = Problem(unreadable=f"`{option}` is missing its value")
            return None
        values = tuple(self.args[self.at : self.at + count])
        indexes = tuple(range(self.at, self.at + count))
        self.at += count
        return values, indexes

    def _long(self, word: str, index: int) -> Item | None:
        name, has_value, fused = word[2:].partition("=")
        option = self.options.long.get(name)
        if option is None and self.options.abbreviate and name:
            matches = {o for key, o in self.options.long.items() if key.startswith(name)}
            if len(matches) == 1:
                option = matches.pop()
        if option is None:
            self.problem = Problem(undeclared=word.partition("=")[0] if has_value else word)
            return None
        written = f"--{name}"
        if option.arity == 0:
            if has_value:
                self.problem = Problem(unreadable=f"`{written}` takes no value")
                return None
            return Item("option", index, option.name, written)
        if option.arity == "optional":
            values: tuple[str | None, ...] = (fused,) if has_value else ()
            return Item(
                "option", index, option.name, written, values, (index,) if has_value else ()
            )
        if has_value:
            if option.arity == 2:
                more = self._values(1, written)
                if more is None:
                    return None
                return Item(
                    "option", index, option.name, written, (fused, *more[0]), (index, *more[1])
                )
            return Item("option", index, option.name, written, (fused,), (index,))
        taken = self._values(option.arity, written)
        if taken is None:
            return None
        return Item("option", index, option.name, written, taken[0], taken[1])

    def _short(self, word: str, index: int) -> Item | None:
        items: list[Item] = []
        position = 1
        while position < len(word):
            letter = word[position]
            position += 1
            option = self.options.short.get(letter)
            written = f"-{letter}"
            if option is None:
                self.problem = Problem(undeclared=written)
                return None
            rest = word[position:]
            if option.arity == 0:
                items.append(Item("option", index, option.name, written))
            elif option.arity == "optional":
                items.append(
                    Item(
                        "option",
                        index,
                        option.name,
                        written,
                        (rest,) if rest else (),
                        (index,) if rest else (),
                    )
                )
                break
            elif rest:
                if option.arity == 2:
                    more = self._values(1, written)
                    if more is None:
                        return None
                    items.append(
                        Item(
                            "option",
                            index,
                            option.name,
                            written,
                            (rest, *more[0]),
                            (index, *more[1]),
                        )
                    )
                else:
                    items.append(Item("option", index, option.name, written, (rest,), (index,)))
                break
            else:
                taken = self._values(option.arity, written)
                if taken is None:
                    return None
                items.append(Item("option", index, option.name, written, taken[0], taken[1]))
                break
            if not self.options.clusters:
                if position < len(word):
                    self.problem = Problem(undeclared=word)
                    return None
                break
        self._pending.extend(items[1:])
        return items[0]
