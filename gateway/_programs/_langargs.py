"""
Reading the command line of a program with a language of its own, one word at a time.

The options of sed, awk and jq are declared in the option-table notation
(`gateway._programs._rows.option_table`: spellings, arity) and long options
are resolved with the table reader's own lookup (`gateway._programs._read`:
an exact spelling, else a unique prefix when the program accepts
abbreviations), so an option means the same to every reader. What this
module adds is the one thing `read_row` does not offer: reading *step by
step*, so that a language reader can act between words. awk stops reading
options at its program text; mawk's ``-W exec FILE`` takes the next word; jq's
``--args`` changes what later operands are; ``--arg NAME VALUE`` takes two.

It never guesses: an option the table does not declare stops the reading
(`Problem.undeclared`), and so does a word that expands where an option
could stand, or as a separate value (`Problem.unreadable`): an expansion may
be no word or several, and then the words after it could spell options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final, Literal, NamedTuple

from gateway._programs._read import _lookup, long_option
from gateway._programs._rows import Option, OptionSpec, ProgramRow, option_table

__all__ = ["Item", "OptionTable", "Problem", "Scanner", "table"]

EXPANDS: Final = (
    "an argument expands where an option could stand, so the command line cannot be read"
)


class OptionTable(NamedTuple):
    """
    A program's options for step-by-step reading.

    Attributes:
        options: Every spelling → its option, in the option-table notation
            (``-x``, ``--long``, and whole words of one dash such as ``-safe``).
        row: The same options as a row, for the table reader's long-option lookup.
        clusters: Short letters combine in one word (``-nE``).
    """

    options: Mapping[str, Option]
    row: ProgramRow
    clusters: bool


def table(*specs: OptionSpec, abbreviate: bool = True, clusters: bool = True) -> OptionTable:
    """An option table from option-table specs (``"-e --expression ="``, ``"--in-place -i [=]"``)."""
    options = option_table(*specs)
    return OptionTable(options, ProgramRow(options=options, abbreviations=abbreviate), clusters)


class Item(NamedTuple):
    """
    One piece of a command line: an option with its values, an operand, or ``--``.

    Attributes:
        kind: ``option``, ``operand`` or ``end`` (the ``--`` that ends options).
        start: The index of the word it starts at.
        name: The option's canonical name (``""`` for operands and ``end``).
        written: The option as written, without a fused value (``-e``, ``--expr``).
        values: The option's values, or the operand's value as a one-tuple
            (``None`` for an operand that expands).
        indexes: The index of each value's word (the option's own index when fused).
        option: The option itself (its arity and effect), for options.
    """

    kind: Literal["option", "operand", "end"]
    start: int
    name: str = ""
    written: str = ""
    values: tuple[str | None, ...] = ()
    indexes: tuple[int, ...] = ()
    option: Option | None = None

    @property
    def value(self) -> str | None:
        """The first value (``None`` when there is none, or for an operand that expands)."""
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
    reader may consume words itself with `take` and end the options with
    `end_options`. ``optionish`` says which words are options (by default:
    a dash and more; jq reads ``-1`` as an operand).
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
        self.lookup = _lookup([options.row])
        self.permute = permute
        self.optionish = optionish
        self.at = 0
        self.options_done = False
        self.problem: Problem | None = None
        self._pending: list[Item] = []

    def end_options(self) -> None:
        """Read every remaining word as an operand."""
        self.options_done = True

    def take(self, option: str) -> tuple[str, int] | None:
        """The next word, consumed as a further value of ``option``; ``None`` (and `problem` set) when there is none or it expands."""
        if self.at >= len(self.args):
            self.problem = Problem(unreadable=f"`{option}` is missing its value")
            return None
        word = self.args[self.at]
        if word is None:
            self.problem = Problem(
                unreadable=f"the value of `{option}` expands, and may be no word or several"
            )
            return None
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
        optionish = (
            word.startswith("-") and word != "-" if self.optionish is None else self.optionish(word)
        )
        if not optionish:
            if not self.permute:
                self.options_done = True
            return Item("operand", index, values=(word,), indexes=(index,))
        if word.startswith("--"):
            return self._long(word, index)
        whole = self.options.options.get(word) if len(word) > 2 else None
        if whole is not None:
            return self._valued(whole, word, index, fused=None)
        return self._short(word, index)

    def __iter__(self) -> Scanner:
        return self

    def __next__(self) -> Item:
        item = self.next()
        if item is None:
            raise StopIteration
        return item

    def _valued(
        self, option: Option, written: str, index: int, *, fused: str | None
    ) -> Item | None:
        """An option met at ``index``, with its fused value if any; a separate value is the next word."""
        if option.arity == 0:
            if fused is not None:
                self.problem = Problem(unreadable=f"`{written}` takes no value")
                return None
            return Item("option", index, option.name, written, option=option)
        if fused is not None:
            return Item("option", index, option.name, written, (fused,), (index,), option)
        if option.arity in ("optional", "optional_next"):
            return Item("option", index, option.name, written, option=option)
        if option.arity == "fused":
            self.problem = Problem(undeclared=written)
            return None
        taken = self.take(written)
        if taken is None:
            return None
        return Item("option", index, option.name, written, (taken[0],), (taken[1],), option)

    def _long(self, word: str, index: int) -> Item | None:
        name, has_value, fused = word.partition("=")
        option = long_option(self.lookup, name)
        if option is None:
            self.problem = Problem(undeclared=name)
            return None
        return self._valued(option, name, index, fused=fused if has_value else None)

    def _short(self, word: str, index: int) -> Item | None:
        items: list[Item] = []
        position = 1
        while position < len(word):
            written = "-" + word[position]
            option = self.options.options.get(written)
            if option is None:
                self.problem = Problem(undeclared=written)
                return None
            position += 1
            rest = word[position:]
            if option.arity != 0:
                item = self._valued(option, written, index, fused=rest or None)
                if item is None:
                    return None
                items.append(item)
                break
            items.append(Item("option", index, option.name, written, option=option))
            if not self.options.clusters and position < len(word):
                self.problem = Problem(undeclared=word)
                return None
        self._pending.extend(items[1:])
        return items[0]
