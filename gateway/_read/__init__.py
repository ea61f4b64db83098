"""
The shell reader: bash text in, a neutral syntax tree or an unmeasured reason out.

A source is *measured* only when two independent readers — tree-sitter-bash
and bashlex (repaired) — both read it cleanly and agree on what it runs:
statement boundaries, every command and its words, every substitution, every
heredoc. A text made only of plain words, quotes, ``|``, ``&&``, ``;``, ``>``
and newlines has a reader of its own (``_plain``) that stands in for bashlex
when it agrees with tree-sitter. Anything else is *unmeasured*, with one
sentence saying why. Nothing above this package sees a parser's node types.

Reading is bounded: sources over 65,536 bytes, with NUL bytes, or nesting
deeper than 64 levels are unmeasured, and no source takes more than two
seconds of CPU time (or 30 s of wall-clock time, should it get no CPU at all),
whatever it holds. Every part of the work counts against it: the word scanner
and bashlex charge their steps to budgets proportional to the text and look
at the budget as they go (bashlex from inside its own tokenizer), so a
reading in the calling thread is bounded too; for sources over 16 KiB bashlex
runs in a bounded worker process with a kernel-enforced CPU cap — unless the
reading runs in one already.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from gateway._read import _lrtables
from gateway._read._consensus import compare
from gateway._read._limits import (
    INPROCESS_MAX_BYTES,
    MAX_NESTING,
    MAX_SOURCE_BYTES,
    PARSE_BACKSTOP_SECONDS,
    PARSE_BUDGET_SECONDS,
    ReadingBudget,
)
from gateway._read._masks import Mask, find_masks
from gateway._read._plain import READER as PLAIN_READER, read_plain
from gateway._read._source import Source
from gateway._read._tree import Program
from gateway._read._words import Unreadable, WordMemo

__all__ = ["INTERNAL_FAILURE", "ShellReading", "read_shell"]

# bashlex builds its parse tables when first imported (by `_bashlex`, in this
# process or in a worker); make it take the shipped ones instead.
_lrtables.install()

_READERS: Final = ("tree-sitter", "bashlex")
_PLAIN_READERS: Final = ("tree-sitter", PLAIN_READER)
INTERNAL_FAILURE: Final = "The shell reader failed on this text"
"""How the reason of a reading that hit a bug in a reader begins (tests look for it)."""


class ShellReading(msgspec.Struct, frozen=True, kw_only=True):
    """
    What the shell reader made of a source.

    Attributes:
        status: ``"measured"`` when both readers agree, else ``"unmeasured"``.
        reason: One sentence saying why the source is unmeasured; ``None`` when measured.
        program: The neutral syntax tree when measured; ``None`` otherwise.
        offset: Where reading failed (a character offset), when one reader said.
    """

    status: Literal["measured", "unmeasured"]
    reason: str | None
    program: Program | None
    offset: int | None = None

    @property
    def measured(self) -> bool:
        """True when the source was measured."""
        return self.status == "measured"


def _sentence(clause: str) -> str:
    clause = " ".join(clause.split())
    clause = clause[0].upper() + clause[1:] if clause else "The source could not be read"
    return clause if clause.endswith(".") else clause + "."


def unmeasured(reason: str, offset: int | None = None) -> ShellReading:
    """Return an unmeasured reading with ``reason`` made into one sentence."""
    return ShellReading(status="unmeasured", reason=_sentence(reason), program=None, offset=offset)


def check_limits(text: str) -> tuple[Source | None, str | None]:
    """Apply the limits every reading obeys; return the `Source`, or why there is none."""
    if "\x00" in text:
        return None, f"the text contains a NUL byte at offset {text.index(chr(0))}"
    try:
        source = Source(text)
    except UnicodeEncodeError as error:
        return None, f"the text is not valid Unicode (a lone surrogate at offset {error.start})"
    if len(source.data) > MAX_SOURCE_BYTES:
        return (
            None,
            f"the text is {len(source.data)} bytes long, over the limit of {MAX_SOURCE_BYTES}",
        )
    return source, None


def _read_bashlex(source: Source, budget: ReadingBudget, masks: tuple[Mask, ...] = ()) -> Program:
    # Imported here so that start-up stays light.
    from gateway._work._bounded import in_worker

    if len(source.data) <= INPROCESS_MAX_BYTES or in_worker():
        from gateway._read._bashlex import read_with_bashlex

        return read_with_bashlex(source, masks, budget)
    from gateway._read._worker import read_in_worker

    result = read_in_worker(source.text, masks, budget)
    if result.program is None:
        raise Unreadable(result.reason or "the bashlex worker gave no answer", result.offset)
    return result.program


def _explain(source: Source, unreadable: Unreadable, budget: ReadingBudget) -> ShellReading:
    """
    tree-sitter's syntax errors say only where; bashlex often says what (an
    unterminated heredoc, a missing ``)``). When bashlex also fails, its words
    are the better reason; when it reads the text, tree-sitter's stand.
    """
    if unreadable.reason.startswith(
        "tree-sitter found a syntax error"
    ) or unreadable.reason.startswith("tree-sitter expected"):
        try:
            _read_bashlex(source, budget)
        except Unreadable as second:
            if second.reason.startswith("bashlex could not parse"):
                return unmeasured(second.reason, second.offset)
        except RecursionError:
            pass
    return unmeasured(unreadable.reason, unreadable.offset)


def read_shell(text: str | bytes) -> ShellReading:
    """
    Read bash text; return its neutral syntax tree when both readers agree.

    Never raises for any input: bad input (invalid UTF-8, NUL bytes, oversize,
    hostile nesting) is an unmeasured reading with a reason.

    Args:
        text: The source, as text or as UTF-8 bytes.

    Returns:
        A measured `ShellReading` with the program, or an unmeasured one with
        one sentence of reason.

    Examples:
        >>> read_shell("ls -la | wc -l").status
        'measured'
        >>> read_shell("case $x in a) echo;; esac").status
        'measured'
        >>> read_shell("coproc x { :; }").status
        'measured'
        >>> read_shell("x=$(coproc k)").reason
        'The `coproc` at offset 4 is inside a substitution, where bash runs its name as the program.'
    """
    try:
        return _read(text)
    except Exception as error:  # noqa: BLE001 -- a reader's own bug must not escape: it is unmeasured
        return unmeasured(
            f"{INTERNAL_FAILURE} ({type(error).__name__}), so what it runs is not known"
        )


def _read(text: str | bytes) -> ShellReading:
    budget = ReadingBudget(PARSE_BUDGET_SECONDS, PARSE_BACKSTOP_SECONDS)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8", "strict")
        except UnicodeDecodeError as error:
            return unmeasured(f"the text is not valid UTF-8 (byte offset {error.start})")
    source, problem = check_limits(text)
    if source is None:
        return unmeasured(problem or "the text could not be read")
    from gateway._read._treesitter import bare_shape, confirms_bare, read_with_tree_sitter

    # The plain-word reader reads first, so that tree-sitter's reading takes
    # the words it scanned rather than scanning them again (`WordMemo`); a
    # plain reading of bare commands is checked against tree-sitter's parse
    # itself, with no neutral tree made of it (`confirms_bare`).
    words: WordMemo = {}
    plain = read_plain(source, budget, words)
    if plain is not None:
        shape = bare_shape(plain)
        if shape is not None and confirms_bare(source, shape):
            return _measured(plain, budget)
    try:
        first = read_with_tree_sitter(source, budget, words)
    except Unreadable as unreadable:
        return _explain(source, unreadable, budget)
    except RecursionError:
        return unmeasured(f"the text nests deeper than {MAX_NESTING} levels")
    if plain is None or compare(first, plain, _PLAIN_READERS) is not None:
        try:
            second = _read_bashlex(source, budget, find_masks(first, source.text))
        except Unreadable as unreadable:
            return unmeasured(unreadable.reason, unreadable.offset)
        except RecursionError:
            return unmeasured("bashlex ran out of recursion depth")
        difference = compare(first, second, _READERS)
        if difference is not None:
            return unmeasured(difference)
    return _measured(first, budget)


def _measured(program: Program, budget: ReadingBudget) -> ShellReading:
    """The measured reading of ``program``, unless reading it overran its budget."""
    overrun = budget.overrun()
    if overrun is not None:
        return unmeasured(f"reading the text {overrun}")
    return ShellReading(status="measured", reason=None, program=program)
