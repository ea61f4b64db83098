"""
The option scanner: the one reader of how a command line spells its options.

Every reader of options reads with it, each keeping only its table and what
it does with what the scanner finds:

- **option tables** (`gateway._programs._table_reader`, `read_row`): every row
  feature — clusters, fused values, ``--long=value``, unique prefixes of long
  options, ``--``, optional values (fused only, or the next word unless it
  looks like an option), ``digits`` values inside a cluster (``perl -0777``),
  old-style dashless clusters whose values follow in order (``tar xzf F``),
  multi-letter short options, one-dash whole words (``find``-style
  ``-name``, with ``=`` or fused values), ``-NUM`` and ``+WORD`` words,
  ``+`` clusters, ``@file`` response files, subcommands that change the table
  mid-line, an operand count after which options end (``options_end_after``);
  an expanding word is an operand when the caller knows it cannot begin with
  a dash, or when the row is inert, else the reading stops.
- **launchers** (`gateway._plan._position`, finding the program behind ``env``,
  ``sudo``, ``xargs``, ``timeout``…): exact long spellings (no prefixes),
  clusters, fused and separated values, values that are only ever fused
  (``xargs -i``, ``--replace=R``), options whose value is a whole command
  line (``env -S``, ``su -c``), ``NAME=VALUE`` operands before the program,
  ``-NUM`` as the launcher's own argument, ``-`` as an option (``su -``),
  ``--``; the first other operand is the program. A value may expand (it is
  one word to the launcher); an expanding word where an option could stand
  stops the reading, since it may spell one.
- **bash's builtins** (`gateway._plan._builtins`: ``declare``/``read``/
  ``mapfile``/``printf -v``/``hash``/``enable``/``cd``/``unset``…): bash's
  own getopt — clusters, a value fused or in the next word (whatever it
  spells, ``--`` and an expansion included), ``--``, ``+`` clusters for
  ``declare``, no long options, no permutation; a letter the table does not
  list is a switch (bash refuses it and the builtin does nothing, so reading
  it as a switch only states more); an expanding word that may begin with
  ``-`` may be an option. ``set`` is not getopt and keeps its own loop: each
  ``o`` of a cluster takes the next unread word unless it looks like an
  option, and ``-`` ends the options.
- **language programs** (`Scanner`, for sed, awk and jq): clusters, fused
  values, ``--long=value`` and prefixes where the program accepts them, one-
  dash whole words (the one true awk's ``-safe``), ``--``, permutation or the
  first operand ending options (awk), which words look like options (jq's
  ``-1`` is a program), and reading *step by step*, so that a language reader
  can take further words itself between items (``jq --arg NAME VALUE``,
  ``mawk -W exec FILE``) or end the options.

- **git's own options** (`gateway._programs._git`, before the subcommand)
  and **find's leading options** (`gateway._programs._find`): rows without
  clusters (`ProgramRow.clusters`): each short option is a whole word
  (``-C DIR``; ``-Cdir`` and ``-pP`` are unknown to git, ``-HL`` is no
  leading option of find), a value fused only where the arity says
  (find's ``-O3``), exact long spellings; for git ``--`` and a lone ``-``
  are unknown options (`ProgramRow.dash_option`), and the first operand is
  the subcommand; for find an unknown word, ``-`` or an operand begins the
  starting points, and ``--`` ends the options.

`OptionScan` is the scanner; a caller subclasses it with its table
(`OptionScan.row`) and what it does with each option and operand. It never
guesses: an option the table does not declare stops the reading
(`OptionScan.undeclared`), and so does a word that expands where an option
could stand, or as a separate value that may be no word or several
(`OptionScan.unreadable`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping, Sequence, Set
from typing import Final, Literal, NamedTuple

import msgspec

from gateway._programs._rows import Option, OptionSpec, ProgramRow, option_table

__all__ = [
    "Item",
    "Lookup",
    "Met",
    "OptionScan",
    "OptionTable",
    "Problem",
    "Scanner",
    "argument",
    "long_option",
    "option_lookup",
    "table",
]

EXPANDS: Final = (
    "an argument expands where an option could stand, so the command line cannot be read"
)
"""What a language reader says of an expanding word where an option could stand."""
_NUMERIC: Final = re.compile(r"-[0-9]+")
_DIGITS: Final = re.compile(r"x[0-9A-Fa-f]+|[0-9]+")


def argument(index: int) -> str:
    """How a sentence names the word at ``index`` (counting from one)."""
    return f"argument {index + 1}"


def _several(option: str, index: int) -> str:
    return f"the value of `{option}` ({argument(index)}) expands, and may be no word or several"


# ───────────────────────── the table ─────────────────────────


class Lookup(NamedTuple):
    """The options a reader accepts at one point, with the long spellings sorted for prefixes."""

    options: Mapping[str, Option]
    longs: tuple[str, ...]
    abbreviations: bool


_LOOKUPS: dict[tuple[int, ...], tuple[tuple[ProgramRow, ...], Lookup]] = {}
_LOOKUPS_HELD: Final = 4096
"""How many chains of rows the lookup cache holds (the tables have a few hundred)."""


def option_lookup(rows: Sequence[ProgramRow]) -> Lookup:
    """The accepted options of a chain of rows (a subcommand and the parents it inherits)."""
    key = tuple(map(id, rows))
    cached = _LOOKUPS.get(key)
    if cached is not None:
        return cached[1]
    options: dict[str, Option] = {}
    for row in reversed(rows):
        options.update(row.options)
    longs = tuple(sorted(spelling for spelling in options if spelling.startswith("--")))
    lookup = Lookup(options, longs, all(row.abbreviations for row in rows))
    if len(_LOOKUPS) >= _LOOKUPS_HELD:
        _LOOKUPS.clear()
    # Keeping the rows with their lookup keeps their ids from being reused.
    _LOOKUPS[key] = (tuple(rows), lookup)
    return lookup


def long_option(lookup: Lookup, name: str) -> Option | None:
    """A long option by exact spelling, else by a prefix that names one option only."""
    exact = lookup.options.get(name)
    if exact is not None or not lookup.abbreviations:
        return exact
    start = bisect.bisect_left(lookup.longs, name)
    found: Option | None = None
    for spelling in lookup.longs[start:]:
        if not spelling.startswith(name):
            break
        option = lookup.options[spelling]
        if found is not None and (option.name != found.name or option.arity != found.arity):
            return None  # ambiguous: the program refuses it, and so does the table
        found = option
    return found


# ───────────────────────── the scanner ─────────────────────────


class Met(msgspec.Struct, frozen=True):
    """
    One option the scanner met.

    Attributes:
        option: The option, from the table.
        written: Its spelling as written, without a fused value (``-e``,
            ``--expr``, ``+x`` for a ``+`` cluster).
        start: The index of the word it is written in.
        value: Its value (fused or the next word); ``None`` when it has none
            or the value expands.
        value_at: The index of the word holding the value (``start`` when
            fused); ``None`` when it was given no value.
        plus: Written in a ``+`` cluster (``declare +x``, ``set +e``).
    """

    option: Option
    written: str
    start: int
    value: str | None
    value_at: int | None
    plus: bool = False

    @property
    def given(self) -> bool:
        """The option was given a value (which may expand)."""
        return self.value_at is not None

    @property
    def at(self) -> int:
        """Where the option's fact stands: its value's word, else its own."""
        return self.start if self.value_at is None else self.value_at


class OptionScan:
    """
    Reads ``argv`` word by word with a table; a caller subclasses it.

    A subclass gives the table (`row`, `lookup`) and says what an option
    (`met`) and an operand (`operand`) do; it may say what an expansion where
    an option could stand does (`expansion`), what ``--`` does (`double_dash`)
    and what a missing value does (`missing`). `halt` stops the reading at a
    word (the program a launcher runs); `refuse` and `cannot` stop it for good.

    ``one_word``: indexes of expanding words known to be exactly one word.
    ``no_dash``: indexes of expanding words none of whose words can begin
    with ``-``.
    """

    def __init__(
        self,
        argv: Sequence[str | None],
        *,
        one_word: Set[int] = frozenset(),
        no_dash: Set[int] = frozenset(),
        whole_words: bool = False,
    ) -> None:
        self.argv = argv
        self.one_word = one_word
        self.no_dash = no_dash
        self.whole_words = whole_words
        self.ended = False
        self.soft_end = False
        self.halted: int | None = None
        self.undeclared: str | None = None
        self.unreadable: str | None = None

    # ── what a caller gives ──

    @property
    def row(self) -> ProgramRow:  # pragma: no cover - every scanner has a table
        raise NotImplementedError

    def lookup(self) -> Lookup:
        return option_lookup([self.row])

    def met(self, met: Met) -> None:  # pragma: no cover - every scanner reads options
        raise NotImplementedError

    def operand(self, index: int, value: str | None) -> None:  # pragma: no cover
        raise NotImplementedError

    def expansion(self, index: int) -> None:
        """An expanding word where an option could stand: it may spell one."""
        self.cannot(f"{argument(index)} is an expansion where an option could stand")

    def double_dash(self, index: int) -> None:
        self.ended = True

    def missing(self, option: Option, index: int) -> None:
        """``option``, at ``index``, takes a value and is the last word."""
        self.cannot(f"`{option.name}` is missing the value it takes")

    # ── where the reading is ──

    @property
    def stopped(self) -> bool:
        return self.undeclared is not None or self.unreadable is not None or self.halted is not None

    def refuse(self, word: str) -> None:
        self.undeclared = word

    def cannot(self, clause: str) -> None:
        self.unreadable = clause

    def halt(self, index: int) -> None:
        self.halted = index

    def scan(self, start: int = 0) -> int:
        """Read from ``start`` until the words end or the reading stops; the index reached."""
        i = start
        while i < len(self.argv) and not self.stopped:
            i = self.word(i)
        return i

    # ── one word ──

    def word(self, i: int) -> int:
        """Read the word at ``i`` (and any value it takes); the index of the next word."""
        word = self.argv[i]
        row = self.row
        if word is None:
            if self.ended or i in self.no_dash:
                self.operand(i, None)
            else:
                self.expansion(i)
            return i + 1
        if self.ended:
            if self.soft_end and word.startswith(("-", "+")) and word != "-":
                self.cannot(
                    f"an expansion before `{word}` may be no word, so `{word}` may be an option"
                )
                return i + 1
            self.operand(i, word)
            return i + 1
        if (word == "--" and row.double_dash) or (word == "-" and row.dash_ends_options):
            self.double_dash(i)
            return i + 1
        if row.operand_words is not None and re.fullmatch(row.operand_words, word):
            self.operand(i, word)
            return i + 1
        lead = word[:1]
        if lead != "-" and lead != "+":
            # No dash and no plus: an operand, unless the row reads a response
            # file or dashless options here (no `optionish` takes such a word).
            if lead == "@" and row.response_files and len(word) > 1:
                self.refuse(word)
                return i + 1
            if lead and row.dashless is not None:
                if row.dashless == "first" and self.dashless_first(i):
                    letters = row.dashless_options or self.lookup().options
                    return self.cluster(word, i, letters, start=0, values_follow=True)
                if row.dashless == "every":
                    letters = row.dashless_options or self.lookup().options
                    return self.cluster(word, i, letters, start=0, values_follow=False)
            self.operand(i, word)
            return i + 1
        lookup = self.lookup()
        if word.startswith("+") and len(word) > 1:
            taken = self.plus_word(word, i, lookup)
            if taken is not None:
                return taken
        if not self.optionish(word):
            self.operand(i, word)
            return i + 1
        if row.numeric is not None and _NUMERIC.fullmatch(word):
            self.met(Met(row.numeric, row.numeric.name, i, word[1:], i))
            return i + 1
        if row.unknown_is_operand and not self.declared(word, lookup):
            self.operand(i, word)
            return i + 1
        if row.style == "words":
            return self.whole_word(word, i, lookup)
        if word.startswith("--"):
            return self.long(word, i, lookup)
        if self.whole_words and len(word) > 2:
            whole = lookup.options.get(word)
            if whole is not None:
                return self.whole_word(word, i, lookup)
        if not row.clusters:
            return self.short_word(word, i, lookup)
        return self.cluster(word, i, lookup.options, start=1, values_follow=False)

    def dashless_first(self, index: int) -> bool:
        """Whether a dashless word at ``index`` is the first word, read as a cluster."""
        return index == 0

    def optionish(self, word: str) -> bool:
        """Whether a word (not ``+``-led) is read as options: a dash and more (or a lone dash, where the row says)."""
        return word.startswith("-") and (len(word) >= 2 or self.row.dash_option)

    def declared(self, word: str, lookup: Lookup) -> bool:
        """The word is an option the row reads (for rows where anything else is an operand)."""
        if self.row.style == "words":
            return word in lookup.options
        if word.startswith("--"):
            return long_option(lookup, word.partition("=")[0]) is not None
        if not self.row.clusters:
            return _whole_short(word, lookup) is not None
        return all("-" + letter in lookup.options for letter in word[1:])

    def value_after(self, option: Option, index: int) -> tuple[int, str | None] | None:
        """The separated value of an arity-1 option at ``index``: (its index, its value)."""
        if index + 1 >= len(self.argv):
            self.missing(option, index)
            return None
        value = self.argv[index + 1]
        if value is None and index + 1 not in self.one_word:
            self.cannot(_several(option.name, index + 1))
            return None
        return index + 1, value

    def optional_next(self, option: Option, written: str, index: int, *, plus: bool) -> int:
        """An ``optional_next`` option at ``index``: take the next word unless it looks like an option."""
        if index + 1 >= len(self.argv):
            self.met(Met(option, written, index, None, None, plus))
            return index + 1
        value = self.argv[index + 1]
        if value is None:
            self.cannot(
                f"`{option.name}` takes the next word as its value unless it is an option, "
                f"and {argument(index + 1)} is an expansion"
            )
            return index + 1
        if value.startswith(("-", "+")):
            self.met(Met(option, written, index, None, None, plus))
            return index + 1
        self.met(Met(option, written, index, value, index + 1, plus))
        return index + 2

    def separated(self, option: Option, written: str, index: int, *, plus: bool) -> int:
        """An option at ``index`` whose value is the next word."""
        found = self.value_after(option, index)
        if found is None:
            return index + 1
        self.met(Met(option, written, index, found[1], found[0], plus))
        return found[0] + 1

    def cluster(
        self,
        word: str,
        index: int,
        options: Mapping[str, Option],
        *,
        start: int,
        values_follow: bool,
        prefix: str = "-",
        plus: bool = False,
    ) -> int:
        """
        Read a cluster of short options in ``word[start:]``; return the next word's index.

        With ``values_follow`` the cluster is old-style (``tar xzf ARCHIVE``):
        every letter that takes a value takes the next unread word, in order,
        and no letter takes the rest of the cluster. Otherwise the first letter
        that takes a value takes the rest of the word, or the next word.
        """
        taken = index + 1
        k = start
        longest = 3 if self.row.multichar_short else 1
        sign = "+" if plus else prefix
        while k < len(word):
            width = 1
            for n in range(longest, 1, -1):
                if prefix + word[k : k + n] in options:
                    width = n
                    break
            spelling = prefix + word[k : k + width]
            written = sign + word[k : k + width]
            option = options.get(spelling)
            if option is None:
                self.refuse(word[k] if start == 0 else spelling if k > start else word)
                return taken
            rest = word[k + width :]
            if option.arity == "digits":
                digits = _DIGITS.match(rest)
                length = digits.end() if digits else 0
                value_at = index if length else None
                self.met(Met(option, written, index, rest[:length] or None, value_at, plus))
                k += width + length
                continue
            if option.arity == "fused" and (values_follow or not rest):
                self.refuse(spelling)
                return taken
            if option.arity == 0 or (
                option.arity in ("optional", "optional_next") and values_follow
            ):
                self.met(Met(option, written, index, None, None, plus))
                k += width
                continue
            if not values_follow:
                if option.arity == "optional_next" and not rest:
                    return self.optional_next(option, written, index, plus=plus)
                if option.arity in ("optional", "fused", "optional_next") or rest:
                    self.met(
                        Met(option, written, index, rest or None, index if rest else None, plus)
                    )
                    return taken
            found = self.value_after(option, taken - 1)
            if found is None:
                return taken
            value_index, value = found
            self.met(Met(option, written, index, value, value_index, plus))
            taken = value_index + 1
            if not values_follow:
                return taken
            k += width
        return taken

    def short_word(self, word: str, index: int, lookup: Lookup) -> int:
        """A short option that is a whole word (rows without clusters), its value fused only where its arity says."""
        found = _whole_short(word, lookup)
        if found is None:
            self.refuse(word)
            return index + 1
        option, value = found
        if value is not None:
            self.met(Met(option, word[:2], index, value, index))
            return index + 1
        return self.unfused(option, word, index)

    def unfused(self, option: Option, written: str, index: int) -> int:
        """An option at ``index`` written without a value: it takes the next word where its arity says."""
        if option.arity == 1:
            return self.separated(option, written, index, plus=False)
        if option.arity == "optional_next":
            return self.optional_next(option, written, index, plus=False)
        self.met(Met(option, written, index, None, None))
        return index + 1

    def long(self, word: str, index: int, lookup: Lookup) -> int:
        name, equals, fused = word.partition("=")
        option = long_option(lookup, name)
        if (
            option is None
            or (equals and option.arity == 0)
            or (not equals and option.arity == "fused")
        ):
            self.refuse(name)
            return index + 1
        if equals:
            self.met(Met(option, name, index, fused, index))
            return index + 1
        return self.unfused(option, name, index)

    def whole_word(self, word: str, index: int, lookup: Lookup) -> int:
        """An option that is one whole word (``-name``), its value in the next word or after ``=``."""
        option = lookup.options.get(word)
        if option is not None and option.arity != "fused":
            return self.unfused(option, word, index)
        name, equals, fused = word.partition("=")
        option = lookup.options.get(name) if equals and self.row.fused_equals else None
        if option is None and self.row.fused_prefix:
            for width in range(len(word) - 1, 1, -1):
                candidate = lookup.options.get(word[:width])
                if candidate is not None and candidate.arity in ("fused", "optional"):
                    self.met(Met(candidate, word[:width], index, word[width:], index))
                    return index + 1
        if option is None or option.arity == 0:
            self.refuse(name)
            return index + 1
        self.met(Met(option, name, index, fused, index))
        return index + 1

    def plus_word(self, word: str, index: int, lookup: Lookup) -> int | None:
        """Read a ``+WORD`` the row gives a meaning; ``None`` when it is an operand."""
        row = self.row
        if row.plus_clusters:
            return self.cluster(
                word, index, lookup.options, start=1, values_follow=False, plus=True
            )
        if word[:2] in lookup.options:
            return self.cluster(
                word, index, lookup.options, start=1, values_follow=False, prefix="+"
            )
        if row.plus is not None:
            self.met(Met(row.plus, row.plus.name, index, word[1:], index))
            return index + 1
        if row.plus_undeclared:
            self.refuse(word)
            return index + 1
        return None


def _whole_short(word: str, lookup: Lookup) -> tuple[Option, str | None] | None:
    """A short option written as a whole word: the option, with the value fused in the word (or ``None``)."""
    option = lookup.options.get(word)
    if option is not None and option.arity not in ("fused", "digits"):
        return option, None
    option = lookup.options.get(word[:2])
    rest = word[2:]
    if option is None or not rest:
        return None
    if option.arity in ("fused", "optional") or (
        option.arity == "digits" and rest.isascii() and rest.isdigit()
    ):
        return option, rest
    return None


# ───────────────────────── step by step ─────────────────────────


class OptionTable(NamedTuple):
    """
    A program's options for step-by-step reading.

    Attributes:
        options: Every spelling → its option, in the option-table notation
            (``-x``, ``--long``, and whole words of one dash such as ``-safe``).
        row: The same options as a row, for the scanner.
    """

    options: Mapping[str, Option]
    row: ProgramRow


def table(*specs: OptionSpec, abbreviate: bool = True) -> OptionTable:
    """An option table from option-table specs (``"-e --expression ="``, ``"--in-place -i [=]"``)."""
    options = option_table(*specs)
    return OptionTable(options, ProgramRow(options=options, abbreviations=abbreviate))


class Item(msgspec.Struct, frozen=True):
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


class Scanner(OptionScan):
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
        super().__init__(args, whole_words=True)
        self.args = args
        self.options = options
        self._row = options.row
        self.permute = permute
        self._optionish = optionish
        self.at = 0
        self._pending: list[Item] = []
        self._lookup = option_lookup([self._row])

    @property
    def row(self) -> ProgramRow:
        return self._row

    def lookup(self) -> Lookup:
        return self._lookup

    @property
    def problem(self) -> Problem | None:
        """Why the reading stopped, if it did."""
        if self.undeclared is None and self.unreadable is None:
            return None
        return Problem(self.undeclared, self.unreadable)

    def optionish(self, word: str) -> bool:
        return super().optionish(word) if self._optionish is None else self._optionish(word)

    def met(self, met: Met) -> None:
        option = met.option
        values: tuple[str | None, ...] = () if met.value_at is None else (met.value,)
        indexes = () if met.value_at is None else (met.value_at,)
        self._pending.append(
            Item("option", met.start, option.name, met.written, values, indexes, option)
        )

    def operand(self, index: int, value: str | None) -> None:
        if not self.permute:
            self.ended = True
        self._pending.append(Item("operand", index, values=(value,), indexes=(index,)))

    def double_dash(self, index: int) -> None:
        self.ended = True
        self._pending.append(Item("end", index))

    def expansion(self, index: int) -> None:
        self.cannot(EXPANDS)

    def end_options(self) -> None:
        """Read every remaining word as an operand."""
        self.ended = True

    def take(self, option: str) -> tuple[str, int] | None:
        """The next word, consumed as a further value of ``option``; ``None`` (and `problem` set) when there is none or it expands."""
        if self.at >= len(self.args):
            self.cannot(f"`{option}` is missing the value it takes")
            return None
        word = self.args[self.at]
        if word is None:
            self.cannot(_several(option, self.at))
            return None
        self.at += 1
        return word, self.at - 1

    def next(self) -> Item | None:
        """The next item, or ``None`` at the end or when `problem` is set."""
        while not self._pending:
            if self.stopped or self.at >= len(self.args):
                return None
            self.at = self.word(self.at)
            if self.undeclared is not None or self.unreadable is not None:
                self._pending.clear()  # a word that cannot be read gives nothing
                return None
        return self._pending.pop(0)

    def __iter__(self) -> Scanner:
        return self

    def __next__(self) -> Item:
        item = self.next()
        if item is None:
            raise StopIteration
        return item
