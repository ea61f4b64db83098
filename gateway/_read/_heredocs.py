"""
The project's own heredoc reader: where each here-document of a text starts and ends.

tree-sitter-bash misreads here-documents in several ways agents write every
day: two on one line (``cat <<A <<B``, ``a <<A && b <<B``), a partly quoted
delimiter (``EO"F"``), ``\\$X`` in a body, a bare ``-`` before the operator
(``python3 - <<'PY'``), and the body after ``<<-\\EOF &&``. So tree-sitter is
never shown a here-document: this module finds them by bash's own rules —
an operator ``<<`` or ``<<-`` outside quotes, comments, arithmetic and
here-strings; its delimiter word; the body, which starts on the line after
the one holding the operator (several on a line are read in order) and ends
at the first line equal to the delimiter (leading tabs stripped for
``<<-``) — and `for_tree_sitter` writes a copy of the text, of the same
length, in which each operator is a plain ``<`` redirect and each body is
blank. The tree-sitter reader builds the heredocs from these spans; bashlex
reads the original text with its own heredoc reader, and the two readings
must agree on every heredoc (operator, delimiter, quotedness, body span).

What this reader cannot tell, it refuses (`Unreadable`): an unterminated
body, a delimiter holding an expansion, a heredoc inside backticks, a heredoc
whose substitution closes on the operator's line, and a body line inside a
substitution that starts with the delimiter and holds a ``)`` (`_Scanner.body`).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from gateway._read._source import Source
from gateway._read._words import Unreadable, unquote_delimiter

__all__ = [
    "HeredocSpan",
    "blank_outside",
    "body_substitutions",
    "closing_parenthesis",
    "find_heredocs",
    "for_tree_sitter",
    "only_substitutions",
]

_BLANKS: Final = frozenset(" \t")
_WORD_ENDS: Final = frozenset(" \t\n;&|<>()")
# After these a `#` starts a comment and `((` an arithmetic command.
_COMMAND_STARTS: Final = frozenset(" \t\n;&|(")


class HeredocSpan(NamedTuple):
    """
    One here-document, as character offsets into the text.

    Attributes:
        start: The operator's first character (after any descriptor digits).
        operator: ``<<`` or ``<<-``.
        word_start: The delimiter word's first character.
        word_end: One past its last character.
        delimiter: The delimiter with its quotes removed.
        quoted: Any quoting in the delimiter: the body is literal.
        body_start: The body's first character (the line after the operator's).
        body_end: One past the body's last character (the terminator line's start).
        end: One past the terminator line's last character (its newline excluded).
    """

    start: int
    operator: str
    word_start: int
    word_end: int
    delimiter: str
    quoted: bool
    body_start: int
    body_end: int
    end: int


class _Pending(NamedTuple):
    start: int
    operator: str
    word_start: int
    word_end: int
    delimiter: str
    quoted: bool


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[HeredocSpan] = []

    # ── skipping what cannot hold an operator ──

    def single(self, i: int) -> int:
        close = self.text.find("'", i + 1)
        if close < 0:
            raise Unreadable(f"the single quote at offset {i} is not closed", i)
        return close + 1

    def ansi(self, i: int) -> int:
        text = self.text
        j = i + 2
        while j < len(text):
            if text[j] == "\\":
                j += 2
                continue
            if text[j] == "'":
                return j + 1
            j += 1
        raise Unreadable(f"the $'…' string at offset {i} is not closed", i)

    def double(self, i: int) -> int:
        text = self.text
        j = i + 1
        while j < len(text):
            char = text[j]
            if char == "\\":
                j += 2
            elif char == '"':
                return j + 1
            elif char == "`":
                j = self.backtick(j)
            elif char == "$" and text.startswith("$((", j):
                j = self.arithmetic(j + 3)
            elif char == "$" and text.startswith("$(", j):
                j = self.level(j + 2, closer=True)
            elif char == "$" and text.startswith("${", j):
                j = self.parameter(j)
            else:
                j += 1
        raise Unreadable(f"the double quote at offset {i} is not closed", i)

    def backtick(self, i: int) -> int:
        text = self.text
        j = i + 1
        while j < len(text):
            if text[j] == "\\":
                j += 2
                continue
            if text[j] == "`":
                if "<<" in text[i:j].replace("<<<", ""):
                    raise Unreadable(f"a heredoc inside the backticks at offset {i} is not read", i)
                return j + 1
            j += 1
        raise Unreadable(f"the backtick at offset {i} is not closed", i)

    def parameter(self, i: int) -> int:
        text = self.text
        j = i + 2
        while j < len(text):
            char = text[j]
            if char == "\\":
                j += 2
            elif char == "}":
                return j + 1
            elif char == "'":
                j = self.single(j)
            elif char == '"':
                j = self.double(j)
            elif char == "`":
                j = self.backtick(j)
            elif char == "$" and text.startswith("$((", j):
                j = self.arithmetic(j + 3)
            elif char == "$" and text.startswith("$(", j):
                j = self.level(j + 2, closer=True)
            elif char == "$" and text.startswith("${", j):
                j = self.parameter(j)
            else:
                j += 1
        raise Unreadable(f"the parameter expansion at offset {i} is not closed", i)

    def arithmetic(self, i: int) -> int:
        """Past the ``))`` closing arithmetic whose inside starts at ``i``."""
        text = self.text
        depth = 0
        j = i
        while j < len(text):
            char = text[j]
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    if text.startswith("))", j):
                        return j + 2
                    raise Unreadable(f"the arithmetic before offset {j} is not closed", j)
                depth -= 1
            elif char in "'\"`$\\":
                j = self.quoted(j)
                continue
            j += 1
        raise Unreadable(f"the arithmetic at offset {i} is not closed", i)

    def quoted(self, j: int) -> int:
        text = self.text
        char = text[j]
        if char == "\\":
            return j + 2
        if char == "'":
            return self.single(j)
        if char == '"':
            return self.double(j)
        if char == "`":
            return self.backtick(j)
        if text.startswith("$((", j):
            return self.arithmetic(j + 3)
        if text.startswith("$(", j):
            return self.level(j + 2, closer=True)
        if text.startswith("${", j):
            return self.parameter(j)
        if text.startswith("$'", j):
            return self.ansi(j)
        return j + 1

    # ── the operator and the bodies ──

    def operator(self, i: int, pending: list[_Pending]) -> int:
        text = self.text
        start = i
        j = i + 2
        operator = "<<"
        if j < len(text) and text[j] == "-":
            operator = "<<-"
            j += 1
        while j < len(text) and text[j] in _BLANKS:
            j += 1
        word_start = j
        while j < len(text) and text[j] not in _WORD_ENDS:
            char = text[j]
            if char == "\\":
                j += 2
            elif char == "'":
                j = self.single(j)
            elif char == '"':
                close = text.find('"', j + 1)
                if close < 0:
                    raise Unreadable(f"the double quote at offset {j} is not closed", j)
                j = close + 1
            else:
                j += 1
        j = min(j, len(text))
        if j == word_start:
            raise Unreadable(f"the heredoc at offset {start} has no delimiter", start)
        delimiter, quoted = unquote_delimiter(text[word_start:j])
        pending.append(_Pending(start, operator, word_start, j, delimiter, quoted))
        return j

    def bodies(self, i: int, pending: list[_Pending], *, substituted: bool) -> int:
        """
        Read the bodies of ``pending`` from the line starting at ``i``; return past the last.

        ``substituted``: the heredocs are inside a ``$( )``, ``<( )`` or ``>( )``.
        """
        for heredoc in pending:
            body_end, end = self.body(heredoc, i, substituted=substituted)
            self.found.append(
                HeredocSpan(
                    start=heredoc.start,
                    operator=heredoc.operator,
                    word_start=heredoc.word_start,
                    word_end=heredoc.word_end,
                    delimiter=heredoc.delimiter,
                    quoted=heredoc.quoted,
                    body_start=i,
                    body_end=body_end,
                    end=end,
                )
            )
            i = end + 1
        pending.clear()
        return i

    def body(self, heredoc: _Pending, start: int, *, substituted: bool) -> tuple[int, int]:
        """
        Where the body starting at ``start`` ends, and where its terminator line ends.

        In an unquoted body a line ending in an odd number of backslashes
        goes on on the next line (bash removes the backslash and the
        newline), and bash compares the line so joined with the delimiter:
        ``foo\\`` then ``EOF`` is the text ``fooEOF``, not the end.

        Inside a substitution (``substituted``) bash also ends the body at a
        line that starts with the delimiter and holds a ``)`` after it, and
        reads the rest of that line as commands (``EOF)`` closes the
        substitution; ``EOF $(rm x)`` runs ``rm``): such a line is refused.
        """
        text = self.text
        line_start = start
        logical_start = start
        logical = ""
        while True:
            newline = text.find("\n", line_start)
            if line_start >= len(text) or (newline < 0 and line_start == len(text)):
                break
            line_end = len(text) if newline < 0 else newline
            line = text[line_start:line_end]
            if heredoc.operator == "<<-":
                line = line.lstrip("\t")
            continued = not heredoc.quoted and (len(line) - len(line.rstrip("\\"))) % 2 == 1
            if continued:
                logical += line[:-1]
            else:
                joined = logical + line
                if joined == heredoc.delimiter:
                    return logical_start, line_end
                if (
                    substituted
                    and joined.startswith(heredoc.delimiter)
                    and ")" in joined[len(heredoc.delimiter) :]
                ):
                    raise Unreadable(
                        f"the line at offset {logical_start} of the heredoc at offset "
                        f"{heredoc.start} starts with its delimiter {heredoc.delimiter!r} and "
                        "holds a `)`: inside a substitution bash ends the heredoc there and "
                        "reads the rest of the line as commands",
                        logical_start,
                    )
                logical = ""
            if newline < 0:
                break
            line_start = newline + 1
            if not continued:
                logical_start = line_start
        raise Unreadable(
            f"the text ends in an unterminated heredoc (at offset {heredoc.start}): no line reads "
            f"{heredoc.delimiter!r} (bash would take the rest of the text as its body)",
            heredoc.start,
        )

    def level(self, i: int, *, closer: bool) -> int:
        """
        Scan commands from ``i``; with ``closer``, up to and past the ``)`` that closes them.

        ``closer`` is given for the commands of a substitution (``$( )``,
        ``<( )``, ``>( )``), where bash reads a heredoc's body by one more rule (`body`).
        """
        text = self.text
        pending: list[_Pending] = []
        depth = 0
        while i < len(text):
            char = text[i]
            previous = text[i - 1] if i else "\n"
            if char == "\n":
                i = self.bodies(i + 1, pending, substituted=closer) if pending else i + 1
            elif char == "#" and previous in _COMMAND_STARTS:
                newline = text.find("\n", i)
                i = len(text) if newline < 0 else newline
            elif char == "(" and text.startswith("((", i) and previous in _COMMAND_STARTS:
                i = self.arithmetic(i + 2)
            elif char == "(" and previous in "<>":
                i = self.level(i + 1, closer=True)  # a process substitution
            elif char == "(":
                depth += 1
                i += 1
            elif char == ")":
                if depth == 0 and closer:
                    if pending:
                        raise Unreadable(
                            f"the heredoc at offset {pending[0].start} starts in a substitution "
                            "that ends on its line",
                            pending[0].start,
                        )
                    return i + 1
                depth = max(depth - 1, 0)
                i += 1
            elif char == "<" and text.startswith("<<<", i):
                i += 3
            elif char == "<" and text.startswith("<<", i):
                i = self.operator(i, pending)
            elif char in "\\'\"`$":
                i = self.quoted(i)
            else:
                i += 1
        if closer:
            raise Unreadable("a substitution is not closed", len(text))
        if pending:
            raise Unreadable(
                f"the heredoc at offset {pending[0].start} has no body", pending[0].start
            )
        return i


def find_heredocs(text: str) -> tuple[HeredocSpan, ...]:
    """
    Every here-document of ``text``, in the order bash reads them.

    Raises:
        Unreadable: The text holds a heredoc this reader cannot tell the extent of.
    """
    if "<<" not in text:
        return ()
    scanner = _Scanner(text)
    scanner.level(0, closer=False)
    return tuple(sorted(scanner.found, key=lambda h: h.start))


def for_tree_sitter(
    source: Source, heredocs: tuple[HeredocSpan, ...], data: bytes | None = None
) -> bytes:
    """
    The text's bytes with each operator written as a ``<`` redirect and each body and terminator blank.

    The copy has the same length in bytes, and every newline where it was:
    offsets are unchanged, and what tree-sitter makes of the command line is
    what bash does.
    """
    base = source.data if data is None else data
    if not heredocs:
        return base
    out = bytearray(base)
    for heredoc in heredocs:
        operator = source.byte_of(heredoc.start)
        out[operator + 1 : operator + len(heredoc.operator)] = b" " * (len(heredoc.operator) - 1)
        _blank(out, source.byte_of(heredoc.body_start), source.byte_of(heredoc.end))
    return bytes(out)


def only_substitutions(source: Source, spans: list[tuple[int, int]]) -> bytes:
    """The text's bytes with everything but the given spans (and newlines) blank."""
    data = bytearray(source.data)
    position = 0
    for start, end in sorted(spans):
        _blank(data, position, source.byte_of(start))
        position = source.byte_of(end)
    _blank(data, position, len(data))
    return bytes(data)


def blank_outside(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with every character outside ``spans`` but a newline made a blank."""
    out: list[str] = []
    position = 0
    for start, end in sorted(spans):
        out.append("".join("\n" if c == "\n" else " " for c in text[position:start]))
        out.append(text[start:end])
        position = end
    out.append("".join("\n" if c == "\n" else " " for c in text[position:]))
    return "".join(out)


_BLANKED: Final = bytes(0x0A if byte == 0x0A else 0x20 for byte in range(256))
"""Every byte but a newline made a blank (a body keeps its lines and its length)."""


def _blank(data: bytearray, start: int, end: int) -> None:
    data[start:end] = data[start:end].translate(_BLANKED)


def closing_parenthesis(text: str, start: int) -> int:
    """
    Past the ``)`` that closes a substitution whose text starts at ``start`` (after ``$(``).

    Quotes, escapes, comments, nested substitutions, arithmetic and heredoc
    bodies are skipped as bash skips them.

    Raises:
        Unreadable: No ``)`` closes it, or a heredoc in it cannot be read.
    """
    return _Scanner(text).level(start, closer=True)


def body_substitutions(text: str, heredoc: HeredocSpan) -> list[tuple[int, int]]:
    """
    Spans of the ``$( )`` and backtick substitutions in an unquoted body (not nested ones).

    The body is read as bash reads it: ``\\$``, ``\\``` and ``\\\\`` are escapes,
    ``$((`` starts arithmetic (whose own substitutions are returned), ``${``
    a parameter expansion (likewise).
    """
    if heredoc.quoted:
        return []
    scanner = _Scanner(text)
    spans: list[tuple[int, int]] = []
    i = heredoc.body_start
    end = heredoc.body_end
    while i < end:
        char = text[i]
        if char == "\\":
            i += 2
        elif char == "`":
            after = scanner.backtick(i)
            spans.append((i, after))
            i = after
        elif text.startswith("$((", i):
            i += 3
        elif text.startswith("$(", i):
            after = scanner.level(i + 2, closer=True)
            spans.append((i, after))
            i = after
        else:
            i += 1
    return [(lo, hi) for lo, hi in spans if hi <= end]
