"""
The find reader: its starting points, and what its expression reads, writes, deletes and runs.

find's words are a language: leading options (``-H``, ``-L``, ``-P``, ``-D
LIST``, ``-Olevel``, ``--``; read by the option scanner with `_LEADING`, each
a whole word as GNU find reads them), then starting points (every word up to the
first that begins with ``-`` or is ``(``, ``)``, ``,`` or ``!``), then an
expression of primaries, each with a fixed number of arguments, and
operators. The reader walks the expression word by word with a table of GNU
findutils' primaries (busybox's are a subset) and states:

* a ``read`` (names and metadata only, recursive) of each starting point, or
  of ``.`` when there is none; ``-files0-from`` makes them unknown. With
  ``-exec`` and its kin the read is of contents too: the command it runs is
  handed the paths find walks and may read everything below the starting points;
* ``-delete``: a recursive delete over every starting point;
* ``-exec``/``-execdir``/``-ok``/``-okdir``: the program it runs, with
  ``words`` the argv range of its command (ended by ``;`` or by ``{} +``), so
  the planner plans that command from the same words;
* ``-fprint``, ``-fprint0``, ``-fls``, ``-fprintf``: files written;
* ``-newer``, ``-anewer``, ``-cnewer``, ``-newerXY``, ``-samefile``: files
  whose metadata is read;
* ``-L``/``-follow``: symbolic links are followed, so what is read (and
  deleted) may lie outside the starting points.

BSD find's leading options (``-E``, ``-X``, ``-d``, ``-s``, ``-x``, ``-f
PATH``) are read as BSD reads them; GNU find refuses them and runs nothing,
so the reading holds for both.

An unknown primary, a primary missing its arguments, an ``-exec`` with no end,
or an expanding word where a starting point, a primary or the end of an
``-exec`` could stand is unreadable: an expansion could spell ``-delete``.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Final, Literal, NamedTuple

from gateway._programs import ArgumentFact, ArgumentReading
from gateway._programs._option_scanner import Met, OptionScan
from gateway._programs._rows import Option, ProgramRow, option_table

__all__ = ["read_find"]

Role = Literal["none", "metadata", "write", "files0"]


class _Primary(NamedTuple):
    arguments: int
    role: Role = "none"


_OPERATORS: Final = frozenset({"(", ")", "!", "-not", "-a", "-and", "-o", "-or", ","})
_EXECUTES: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

# fmt: off
_PRIMARIES: Final[dict[str, _Primary]] = {
    # options
    **dict.fromkeys(
        ("-daystart", "-depth", "-d", "-follow", "-help", "--help", "-ignore_readdir_race",
         "-noignore_readdir_race", "-mount", "-nowarn", "-version", "--version", "-warn", "-xdev",
         "-noleaf"),
        _Primary(0),
    ),
    "-maxdepth": _Primary(1), "-mindepth": _Primary(1), "-regextype": _Primary(1),
    "-files0-from": _Primary(1, "files0"),
    # tests
    **dict.fromkeys(
        ("-amin", "-atime", "-cmin", "-context", "-ctime", "-fstype", "-gid", "-group", "-ilname",
         "-iname", "-inum", "-ipath", "-iregex", "-iwholename", "-links", "-lname", "-mmin",
         "-mtime", "-name", "-path", "-perm", "-regex", "-size", "-type", "-uid", "-used",
         "-user", "-wholename", "-xtype"),
        _Primary(1),
    ),
    **dict.fromkeys(
        ("-empty", "-executable", "-false", "-nogroup", "-nouser", "-readable", "-true",
         "-writable"),
        _Primary(0),
    ),
    **dict.fromkeys(("-anewer", "-cnewer", "-newer", "-samefile"), _Primary(1, "metadata")),
    # actions
    **dict.fromkeys(("-ls", "-print", "-print0", "-prune", "-quit", "-delete"), _Primary(0)),
    "-printf": _Primary(1),
    **dict.fromkeys(("-fls", "-fprint", "-fprint0"), _Primary(1, "write")),
    "-fprintf": _Primary(2, "write"),
}
# fmt: on
"""GNU findutils 4.9's primaries, by spelling: how many words follow, and what the first names."""

_NOT_TESTS: Final = frozenset(
    {
        "-daystart", "-depth", "-d", "-follow", "-help", "--help", "-ignore_readdir_race",
        "-noignore_readdir_race", "-mount", "-nowarn", "-version", "--version", "-warn", "-xdev",
        "-noleaf", "-maxdepth", "-mindepth", "-regextype", "-files0-from", "-true", "-ls",
        "-print", "-print0", "-prune", "-quit", "-delete", "-printf", "-fls", "-fprint",
        "-fprint0", "-fprintf",
    }
)  # fmt: skip
"""The primaries that select nothing: options and actions (and ``-true``). Any other is a test."""

_TIME_LETTERS: Final = frozenset("aBcm")

_LEADING: Final = ProgramRow(
    options=option_table(
        "-H", "-L", "-P", "-D =", "-O [0]",
        # BSD find's (extended regexes, xargs warnings, depth first, sorted, one file
        # system): none has an effect. GNU find refuses them and runs nothing.
        "-E", "-X", "-d", "-s", "-x",
        # BSD: `-f PATH` is a starting point that may begin with `-`.
        "-f =",
    ),
    abbreviations=False,
    clusters=False,
    unknown_is_operand=True,
)  # fmt: skip
"""find's leading options: whole words (``-HL`` is no option), ``-D LIST``, ``-Olevel``
fused and decimal; ``--`` ends them, and any other word begins the starting points."""


class _Leading(OptionScan):
    """Reads find's leading options; `halted` is where the starting points begin."""

    def __init__(self, reading: _Reading) -> None:
        super().__init__(reading.args, one_word=reading.one_word)
        self.reading = reading

    @property
    def row(self) -> ProgramRow:
        return _LEADING

    def met(self, met: Met) -> None:
        name = met.option.name
        if name == "-f":
            if met.value is None:
                self.missing(met.option, met.start)
                return
            self.reading.roots.append((met.at, met.value))
        self.reading.options.append(name)
        self.reading.follow = self.reading.follow or name == "-L"

    def operand(self, index: int, value: str | None) -> None:
        self.halt(index)

    def double_dash(self, index: int) -> None:
        self.halt(index + 1)

    def expansion(self, index: int) -> None:
        self.cannot("an argument expands where a find option or starting point could stand")

    def missing(self, option: Option, index: int) -> None:
        if option.name == "-f":
            self.cannot("`-f` is missing its starting point, or it expands")
        else:
            self.cannot(f"`{option.name}` is missing its list")


def _newer(word: str) -> _Primary | None:
    """``-newerXY``: X and Y from ``aBcmt``; the reference is a file unless Y is ``t`` (a time)."""
    if len(word) != 8 or not word.startswith("-newer"):
        return None
    x, y = word[6], word[7]
    if x not in _TIME_LETTERS or y not in (*_TIME_LETTERS, "t"):
        return None
    return _Primary(1, "none" if y == "t" else "metadata")


def _starts_expression(word: str) -> bool:
    return (word.startswith("-") and word != "-") or word in ("(", ")", ",", "!")


class _Reading:
    """The state of one reading of a find command line."""

    def __init__(self, args: Sequence[str | None], one_word: Set[int]) -> None:
        self.args = args
        self.one_word = one_word
        self.options: list[str] = []
        self.facts: list[ArgumentFact] = []
        self.roots: list[tuple[int | None, str | None]] = []
        self.follow = False
        self.tested = False
        self.unreadable: str | None = None

    def fact(self, fact: ArgumentFact) -> None:
        self.facts.append(fact)

    def leading(self) -> int:
        """Read the leading options; return where the starting points begin."""
        scan = _Leading(self)
        at = scan.scan()
        self.unreadable = scan.unreadable
        return at if scan.halted is None else scan.halted

    def starting_points(self, at: int) -> int:
        while at < len(self.args):
            word = self.args[at]
            if word is None:
                self.unreadable = (
                    "a starting point expands, and could spell a primary such as `-delete`"
                )
                return at
            if _starts_expression(word):
                return at
            self.roots.append((at, word))
            at += 1
        return at

    def expression(self, at: int) -> None:
        while at < len(self.args) and self.unreadable is None:
            word = self.args[at]
            if word is None:
                self.unreadable = "an argument expands where a find primary could stand"
                return
            if word in _OPERATORS:
                at += 1
                continue
            if word in _EXECUTES:
                at = self.execute(word, at)
                continue
            primary = _PRIMARIES.get(word) or _newer(word)
            if primary is None:
                self.unreadable = f"`{word}` is not a find primary the reader knows"
                return
            if at + primary.arguments >= len(self.args) + (1 if primary.arguments == 0 else 0):
                self.unreadable = f"`{word}` is missing its argument"
                return
            if any(
                self.args[index] is None and index not in self.one_word
                for index in range(at + 1, at + 1 + primary.arguments)
            ):
                self.unreadable = f"the argument of `{word}` expands, and may be no word or several"
                return
            self.options.append(word)
            if word == "-follow":
                self.follow = True
            if word not in _NOT_TESTS:
                self.tested = True
            if word == "-delete":
                self.delete(word)
            value = self.args[at + 1] if primary.arguments else None
            if primary.role == "metadata":
                self.fact(
                    ArgumentFact(
                        kind="read", via=word, index=at + 1, value=value, action="metadata"
                    )
                )
            elif primary.role == "write":
                self.fact(
                    ArgumentFact(kind="write", via=word, index=at + 1, value=value, action="write")
                )
            elif primary.role == "files0":
                self.fact(ArgumentFact(kind="read", via=word, index=at + 1, value=value))
                # The starting points are the names the file holds: unknown here.
                self.fact(self.root_fact(None, None))
                self.roots.append((None, None))
            at += 1 + primary.arguments

    def execute(self, word: str, at: int) -> int:
        """``-exec CMD ARGS ;`` or ``-exec CMD ARGS {} +``: state the program and its argv range."""
        start = at + 1
        end = start
        while end < len(self.args):
            current = self.args[end]
            if current is None:
                self.unreadable = (
                    f"an argument of `{word}` expands, so where its command ends is unknown"
                )
                return len(self.args)
            if current == ";" or (current == "+" and end > start and self.args[end - 1] == "{}"):
                break
            end += 1
        else:
            self.unreadable = f"`{word}` has no `;` or `{{}} +` to end its command"
            return len(self.args)
        if end == start:
            self.unreadable = f"`{word}` names no program"
            return len(self.args)
        self.options.append(word)
        self.fact(
            ArgumentFact(
                kind="execute",
                via=word,
                index=start,
                value=self.args[start],
                action="program",
                words=(start, end),
            )
        )
        return end + 1

    def root_fact(
        self, index: int | None, root: str | None, *, contents: bool = False
    ) -> ArgumentFact:
        """The recursive read of a starting point: of names only, or of ``contents`` too."""
        return ArgumentFact(
            kind="read",
            via="starting point",
            index=index,
            value=root,
            action=None if contents else "metadata",
            recursive=True,
        )

    def delete(self, word: str) -> None:
        # After a test (`-name '*.pyc' -delete`) what is deleted is what passes
        # it, below each starting point: the point's contents, not the point.
        for root_index, root in self.roots or [(None, ".")]:
            contents = self.tested and root is not None
            self.fact(
                ArgumentFact(
                    kind="write",
                    via=word,
                    index=None if contents else root_index,
                    value=(root.rstrip("/") + "/") if contents and root is not None else root,
                    action="delete",
                    recursive=True,
                    prefix=contents,
                )
            )
        if self.follow:
            # Followed links lead outside the starting points, and what is below them is deleted too.
            self.fact(
                ArgumentFact(
                    kind="write", via=word, index=None, value=None, action="delete", recursive=True
                )
            )


def read_find(
    program: str,
    args: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    """
    Read a find command line: its leading options, starting points and expression.

    Args:
        program: The basename looked up (``find``, ``gfind``).
        args: The arguments after the program word, ``None`` for one that expands.
        one_word: Indexes of expanding words known to be exactly one word: as
            the value of a leading option or the argument of a primary
            (``-name "$pattern"``) each is that one argument, its value unknown.
        no_dash: Not used: an expanding starting point may still be an
            operator (``"!$x"`` with ``x`` empty is ``!``), and an expanding
            word in an ``-exec`` command may be the ``;`` that ends it.

    Returns:
        The reading: `ArgumentReading.operands` are the starting points;
        facts as the module says, in argument order.

    >>> reading = read_find("find", [".", "-name", "*.pyc", "-exec", "rm", "{}", ";"])
    >>> [(fact.kind, fact.via, fact.value, fact.words) for fact in reading.facts]
    [('read', 'starting point', '.', None), ('execute', '-exec', 'rm', (4, 6))]
    """
    reading = _Reading(args, one_word)
    at = reading.leading()
    if reading.unreadable is None:
        at = reading.starting_points(at)
    roots = list(reading.roots)
    if not roots and "-files0-from" not in args[at:]:
        # With no starting point GNU find searches `.`.
        reading.roots.append((None, "."))
    starting = list(reading.roots)
    if reading.unreadable is None:
        reading.expression(at)
    runs = any(fact.kind == "execute" for fact in reading.facts)
    facts = [reading.root_fact(index, root, contents=runs) for index, root in starting]
    if reading.follow:
        facts.append(
            ArgumentFact(
                kind="read", via="-L", index=None, value=None, action="metadata", recursive=True
            )
        )
    facts.extend(reading.facts)
    return ArgumentReading(
        program=program,
        table=True,
        options=tuple(reading.options),
        operands=tuple(index for index, _ in roots if index is not None),
        facts=tuple(facts),
        unreadable=reading.unreadable,
    )
