"""
The project's own word scanner: a word's source text → its parts and literal value.

Neither parser is trusted with quoting. A reader tells this module *where* a
word is (its span) and *which substitutions it parsed* inside it (start offset
→ end offset and body); the scanner then reads the word's characters itself,
following bash's quoting rules, and requires that every ``$(``, backtick,
``<(`` and ``>(`` it meets is one the reader parsed — and that the reader
parsed nothing the scanner did not meet. A disagreement is `Unreadable`, which
the reader turns into an unmeasured result.

Literal values come from here (quote removal as bash does it), never from a
parser's idea of the word.

Nothing here runs or expands anything: parameter values, globs and tildes are
recorded as parts, not resolved.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Final, Literal as L, NamedTuple

import msgspec

from gateway._read._limits import (
    MAX_NESTING,
    SCAN_STEP_FLOOR,
    SCAN_STEPS_PER_CHAR,
    UNLIMITED,
    ReadingBudget,
)
from gateway._read._source import Source
from gateway._read._tree import (
    AnsiC,
    Arithmetic,
    Brace,
    CommandSubstitution,
    DoubleQuoted,
    Glob,
    Literal,
    Parameter,
    Part,
    ProcessSubstitution,
    SingleQuoted,
    Span,
    Statement,
    Tilde,
    Word,
)

__all__ = [
    "NAME",
    "PLAIN_CHARACTERS",
    "PLAIN_STRINGS",
    "MissingSubstitution",
    "SubEntry",
    "SubKind",
    "Unreadable",
    "WordMemo",
    "WordScanner",
    "decode_ansi_c",
    "split_assignment",
    "unquote_delimiter",
    "unquoted_characters",
    "word_value",
]

NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A shell variable name (bash's ``name``): a letter or ``_``, then letters, digits and ``_``."""

SubKind = L["dollar", "backtick", "in", "out"]

_NAME_START: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_CHARS: Final = _NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS: Final = frozenset("?$#@!*-")
_DIGITS: Final = frozenset("0123456789")
_LOGIN_CHARS: Final = _NAME_CHARS | frozenset(".-+")
PLAIN_CHARACTERS: Final = r"A-Za-z0-9_./,:=+@%^-"
"""The characters of a plain word, as the inside of a regex class: none of them expands or is special to bash."""
PLAIN_STRINGS: Final = r"'([^']*)'|" + r'"([^"$`\\]*)"'
"""A single-quoted string, or a double-quoted one without ``$``, backtick or backslash (their texts in groups 1 and 2)."""
# A word made only of plain characters is one literal part: the fast path.
_PLAIN_WORD: Final = re.compile(f"[{PLAIN_CHARACTERS}]+")
_ASSIGNMENT_SHAPED: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
"""The unquoted ``NAME=`` (or ``NAME+=``) that starts a word shaped like an assignment."""
_QUOTED_PLAIN: Final = re.compile(f"(?:[{PLAIN_CHARACTERS}]|{PLAIN_STRINGS})+")
"""
A word of plain characters and `PLAIN_STRINGS`.

One plain character per repetition, never a run: each alternative starts with
its own character, so a word that does not match fails in linear time (a run
inside the repetition backtracks exponentially on ``aaa…a$``).
"""
_QUOTED_PLAIN_PIECE: Final = re.compile(f"[{PLAIN_CHARACTERS}]+|{PLAIN_STRINGS}")
_ASSIGNMENT: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[)?")
_EXTGLOB_STARTS: Final = frozenset("@!+*?")
_ANSI_SIMPLE: Final = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_OCT: Final = frozenset("01234567")
# Parameter-expansion operators, longest first so that ``##`` wins over ``#``.
_PARAM_OPERATORS: Final = (
    ":-",
    ":=",
    ":?",
    ":+",
    "##",
    "%%",
    "//",
    "/#",
    "/%",
    "^^",
    ",,",
    "-",
    "=",
    "?",
    "+",
    "#",
    "%",
    "/",
    "^",
    ",",
    ":",
)


class Unreadable(Exception):
    """A word or body the scanner cannot read, or one a reader read differently."""

    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


class MissingSubstitution(Unreadable):
    """The scanner met a substitution the reader did not parse (a reader may parse it and retry)."""

    def __init__(self, reason: str, offset: int, kind: SubKind) -> None:
        super().__init__(reason, offset)
        self.kind: SubKind = kind


class SubEntry(NamedTuple):
    """A substitution a reader parsed: where it ends, what it is, and its statements."""

    end: int
    kind: SubKind
    body: tuple[Statement, ...]


def decode_ansi_c(text: str) -> str | None:
    """
    Decode the inside of a ``$'…'`` string the way bash does.

    ``\\xHH`` and octal escapes give single *bytes* (``$'\\xc3\\xa9'`` is the two
    bytes of "é"), ``\\u``/``\\U`` give characters; unknown escapes keep their
    backslash; a decoded NUL ends the string, as in bash.

    Returns:
        The decoded text, or ``None`` when the bytes are not valid UTF-8 (the
        value then cannot be shown exactly as text).

    Examples:
        >>> decode_ansi_c(r"\\x72m")
        'rm'
        >>> decode_ansi_c(r"a\\tb\\101")
        'a\\tbA'
        >>> decode_ansi_c(r"\\xc3\\xa9")
        'é'
    """
    out = bytearray()
    i = 0
    n = len(text)
    while i < n:
        char = text[i]
        if char != "\\" or i + 1 >= n:
            out += char.encode("utf-8", "surrogatepass")
            i += 1
            continue
        esc = text[i + 1]
        i += 2
        if esc in _ANSI_SIMPLE:
            out += _ANSI_SIMPLE[esc].encode()
        elif esc in _OCT:
            j = i - 1
            while j < n and j < i + 2 and text[j] in _OCT:
                j += 1
            out.append(int(text[i - 1 : j], 8) & 0xFF)
            i = j
        elif esc == "x" and i < n and text[i] == "{":
            # `\x{HH…}`: every hex digit up to the brace, the last byte kept
            # (none is a NUL, which ends the string).
            j = i + 1
            while j < n and text[j] in _HEX:
                j += 1
            out.append(int(text[i + 1 : j] or "0", 16) & 0xFF)
            i = j + 1 if j < n and text[j] == "}" else j
        elif esc in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[esc]
            j = i
            while j < n and j < i + limit and text[j] in _HEX:
                j += 1
            if j == i:
                out += ("\\" + esc).encode()
            else:
                code = int(text[i:j], 16)
                if esc == "x":
                    out.append(code)
                elif code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
                    out += chr(code).encode()
                else:
                    # bash writes such a code point's bytes all the same: not
                    # UTF-8, so the value is not exact.
                    out += b"\xff"
                i = j
        elif esc == "c" and i < n:
            control = text[i].encode("utf-8", "surrogatepass")
            i += 1
            if control == b"\\" and i < n and text[i] == "\\":
                i += 1  # `\c\\` is the control character of one backslash
            first = control[0]
            out.append(
                0x7F
                if first == 0x3F
                else (ord(chr(first).upper()) if first < 0x80 else first) & 0x1F
            )
            out += control[1:]
        else:
            out += ("\\" + esc).encode("utf-8", "surrogatepass")
    nul = out.find(0)
    if nul >= 0:
        del out[nul:]
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


def unquote_delimiter(raw: str) -> tuple[str, bool]:
    """
    Return a heredoc delimiter word with its quotes removed, and whether it was quoted.

    Any quoting at all (``'EOF'``, ``"EOF"``, ``\\EOF``, ``E"O"F``) makes the
    body literal. A delimiter with an expansion character is not read.

    Raises:
        Unreadable: The delimiter holds ``$`` or a backtick, or a quote is unclosed.
    """
    if "$" in raw or "`" in raw:
        raise Unreadable(f"the heredoc delimiter {raw!r} holds an expansion character", 0)
    out: list[str] = []
    quoted = False
    i = 0
    n = len(raw)
    while i < n:
        char = raw[i]
        if char in "'\"":
            close = raw.find(char, i + 1)
            if close < 0:
                raise Unreadable(f"the heredoc delimiter {raw!r} has an unclosed quote", i)
            out.append(raw[i + 1 : close])
            quoted = True
            i = close + 1
        elif char == "\\":
            out.append(raw[i + 1 : i + 2])
            quoted = True
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out), quoted


def split_assignment(text: str) -> tuple[str, tuple[int, int] | None, bool, int] | None:
    """
    Split ``NAME[sub]+=value`` as bash's assignment grammar reads it.

    Returns:
        ``(name, subscript_bounds, append, value_start)`` with offsets relative
        to ``text``, or ``None`` when the text is not an assignment word.
    """
    match = _ASSIGNMENT.match(text)
    if match is None:
        return None
    name = match.group(1)
    i = match.end(1)
    subscript: tuple[int, int] | None = None
    if match.group(2):
        depth = 0
        j = i
        while j < len(text):
            if text[j] == "[":
                depth += 1
            elif text[j] == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        else:
            return None
        subscript = (i + 1, j)
        i = j + 1
    append = text.startswith("+=", i)
    if append:
        i += 2
    elif text.startswith("=", i):
        i += 1
    else:
        return None
    return name, subscript, append, i


def word_value(parts: tuple[Part, ...]) -> str | None:
    """Return the word's text after quote removal, or ``None`` when any part expands."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, AnsiC) and not part.exact:
            return None
        if isinstance(part, Literal | SingleQuoted | AnsiC):
            out.append(part.text)
        elif isinstance(part, DoubleQuoted):
            inner = word_value(part.parts)
            if inner is None:
                return None
            out.append(inner)
        else:
            return None
    return "".join(out)


def unquoted_characters(word: Word, text: str) -> Iterator[int]:
    """
    The offset of every character of ``word`` that stands unquoted and unescaped.

    Those are the characters of its literal, pattern and tilde parts and of
    the parts inside its brace expansions (not the braces themselves), less
    each backslash and the character it escapes; quoted strings, parameters
    and substitutions hold none. ``text`` is the source text.
    """
    stack: list[Part] = list(reversed(word.parts))
    while stack:
        part = stack.pop()
        if isinstance(part, Brace):
            stack.extend(reversed(part.parts))
        elif isinstance(part, Literal | Glob | Tilde):
            index = part.span.start
            while index < part.span.end:
                if text[index] == "\\":
                    index += 2
                    continue
                yield index
                index += 1


_Context = L["word", "dquote", "heredoc", "operand", "dbrace"]
# ``dbrace``: the operand of ``${x:-…}`` (and ``-`` ``:=`` ``=`` ``:+`` ``+``)
# inside double quotes or an unquoted heredoc body, where bash keeps single
# quotes as plain characters and expands what stands between them.
_LITERAL_QUOTE_OPERATORS: Final = frozenset({":-", "-", ":=", "=", ":+", "+"})
_DOUBLE_QUOTED: Final = frozenset({"dquote", "heredoc", "dbrace"})


_CHECK_EVERY: Final = 4_096
"""Scanner steps between two looks at the reading's clocks (a look costs about a microsecond)."""


WordMemo = dict[tuple[int, int, bool], Word]
"""
The words a scanner of one source has read, by (start, end, whether an assignment's value).

A word is a function of the source and those three alone whenever the
scanner meets no substitution in it, so a second reading of the same text
may take what the first scanned instead of scanning it again. Only a
scanner given no substitutions (the plain-word reader's) remembers words
for another: a word holding a substitution makes that scanner raise, so it
is never remembered.
"""


class WordScanner:
    """
    Scans words, heredoc bodies and arithmetic of one source.

    One scanner serves one reading: it is given every substitution the reader
    parsed (keyed by start offset) and, after the last word, `finish` checks
    that each was met exactly once.

    It is bounded like the readers: ``${…}``, brace expansions and arithmetic
    nest at most `MAX_NESTING` deep inside a word, and every step of every
    loop (look-ahead included) is charged against a budget proportional to the
    source, so no word can make it quadratic or worse; every few thousand
    steps it also checks the reading's budget (`ReadingBudget`). Past any
    bound the reading is `Unreadable`.
    """

    def __init__(
        self,
        source: Source,
        subs: dict[int, SubEntry],
        reader: str,
        resolve: Callable[[int, SubKind], SubEntry] | None = None,
        budget: ReadingBudget = UNLIMITED,
        remember: WordMemo | None = None,
        known: Mapping[tuple[int, int, bool], Word] | None = None,
    ) -> None:
        self._source = source
        self._remember = remember
        self._known = known
        self._text = source.text
        self._subs = subs
        self._reader = reader
        self._resolve = resolve
        self._used: set[int] = set()
        self._depth = 0
        self._steps = 0
        self._step_limit = SCAN_STEPS_PER_CHAR * len(source.text) + SCAN_STEP_FLOOR
        self._budget = budget
        self._next_check: float = _CHECK_EVERY if budget.bounded else math.inf

    # ── entry points ──

    def word(self, start: int, end: int, *, assignment: bool = False) -> Word:
        """
        Read the word at ``start:end``: the one in ``known`` when another scanner read it.

        Each word read is put in ``remember`` when one was given.
        """
        if self._known is not None:
            found = self._known.get((start, end, assignment))
            if found is not None:
                return found
        word = self._word(start, end, assignment=assignment)
        if self._remember is not None:
            self._remember[(start, end, assignment)] = word
        return word

    def _word(self, start: int, end: int, *, assignment: bool) -> Word:
        text = self._text[start:end]
        span = self._source.span(start, end)
        # Outside POSIX mode bash expands a tilde in a word shaped like an
        # assignment as in one (`dd of=~/f`, `ls a=b:~/c`): after its first
        # unquoted `=` and after each `:`.
        named = None if assignment or "~" not in text else _ASSIGNMENT_SHAPED.match(text)
        if _PLAIN_WORD.fullmatch(text) is not None and not (
            (assignment or named is not None) and "~" in text
        ):
            return Word(span=span, text=text, parts=(Literal(span=span, text=text),), value=text)
        if _QUOTED_PLAIN.fullmatch(text) is not None and named is None:
            return self._quoted_plain(start, text, span)
        if named is not None:
            value_at = start + named.end()
            head = Literal(span=self._source.span(start, value_at), text=named.group())
            rest, stop = self._scan(value_at, end, "word", tilde_after_colon=True)
            parts = (head, *rest)
        else:
            parts, stop = self._scan(start, end, "word", tilde_after_colon=assignment)
        if stop != end:  # pragma: no cover - _scan reads to ``end`` in word context
            raise Unreadable("the word ends early", stop)
        return Word(span=span, text=text, parts=parts, value=word_value(parts))

    def _quoted_plain(self, start: int, text: str, span: Span) -> Word:
        """
        A word of `_QUOTED_PLAIN`, its parts built piece by piece as `_scan` builds them.

        Nothing in such a word expands or escapes: a plain run is a literal,
        a single-quoted string its text, a double-quoted one a literal inside
        (no part when empty). `tests/shell/test_words.py` checks it against the scan.
        """
        source = self._source
        parts: list[Part] = []
        values: list[str] = []
        for piece in _QUOTED_PLAIN_PIECE.finditer(text):
            at, to = start + piece.start(), start + piece.end()
            single, double = piece.group(1), piece.group(2)
            if single is not None:
                parts.append(SingleQuoted(span=source.span(at, to), text=single))
                values.append(single)
            elif double is not None:
                inner = (Literal(span=source.span(at + 1, to - 1), text=double),) if double else ()
                parts.append(DoubleQuoted(span=source.span(at, to), parts=inner))
                values.append(double)
            else:
                plain = piece.group()
                parts.append(Literal(span=source.span(at, to), text=plain))
                values.append(plain)
        return Word(span=span, text=text, parts=tuple(parts), value="".join(values))

    def heredoc_body(self, start: int, end: int) -> tuple[Part, ...]:
        """Read an unquoted heredoc body (a double-quote-like context where ``"`` is plain)."""
        parts, _ = self._scan(start, end, "heredoc")
        return parts

    def arithmetic(self, start: int, end: int) -> Arithmetic:
        """Read ``start:end`` as an arithmetic expression (the inside of ``((…))``)."""
        return self._arithmetic(start, end)

    def finish(self) -> None:
        """
        Check that every substitution the reader parsed was met by the scanner.

        Raises:
            Unreadable: The reader parsed a substitution the scanner never met.
        """
        missed = sorted(set(self._subs) - self._used)
        if missed:
            raise Unreadable(
                f"the {self._reader} reader parsed a substitution at offset {missed[0]} "
                "that the word scanner does not see there",
                missed[0],
            )

    # ── bounds ──

    def _charge(self, steps: int, at: int) -> None:
        """Count ``steps`` loop steps against the budget."""
        self._steps += steps
        if self._steps > self._step_limit:
            raise Unreadable(
                f"scanning the words takes more than {SCAN_STEPS_PER_CHAR} steps a character "
                f"(the budget ran out at offset {at})",
                at,
            )
        if self._steps >= self._next_check:
            self._next_check = self._steps + _CHECK_EVERY
            overrun = self._budget.overrun()
            if overrun is not None:
                raise Unreadable(f"scanning the words {overrun} (at offset {at})", at)

    def _descend(self, at: int) -> None:
        """Enter one more level of ``${…}``, brace expansion or arithmetic."""
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise Unreadable(f"the text nests deeper than {MAX_NESTING} levels at offset {at}", at)

    # ── the scanner ──

    def _take_sub(self, at: int, kind: SubKind, limit: int) -> tuple[SubEntry, int]:
        entry = self._subs.get(at)
        if entry is None and self._resolve is not None:
            # The reader may parse a substitution its parser skipped; it must
            # still end where the scanner expects, and the other reader agree.
            entry = self._subs[at] = self._resolve(at, kind)
        if entry is None or entry.kind != kind:
            spelled = {"dollar": "$(", "backtick": "`", "in": "<(", "out": ">("}[kind]
            raise MissingSubstitution(
                f"the {self._reader} reader did not parse the {spelled} substitution at offset {at}",
                at,
                kind,
            )
        closer = "`" if kind == "backtick" else ")"
        if entry.end > limit or entry.end <= at or self._text[entry.end - 1] != closer:
            raise Unreadable(
                f"the {self._reader} reader ended the substitution at offset {at} "
                "where the word scanner does not",
                at,
            )
        self._used.add(at)
        return entry, entry.end

    def _scan(
        self,
        start: int,
        end: int,
        context: _Context,
        *,
        tilde_after_colon: bool = False,
    ) -> tuple[tuple[Part, ...], int]:
        """
        Scan parts from ``start`` until ``end`` (or, for ``dquote``/``operand``, the closer).

        Returns the parts and the offset just past the last character consumed
        (for ``dquote`` the closing quote, for ``operand`` the closing brace).
        """
        text = self._text
        source = self._source
        parts: list[Part] = []
        literal: list[str] = []
        literal_start = start
        i = start
        steps = 0
        escaped = -1  # the offset just past the last backslash escape

        def flush(upto: int) -> None:
            if literal:
                parts.append(Literal(span=source.span(literal_start, upto), text="".join(literal)))
                literal.clear()

        while i < end:
            steps += 1
            char = text[i]
            # Closers of the enclosing construct.
            if context == "dquote" and char == '"':
                flush(i)
                self._charge(steps, start)
                return tuple(parts), i + 1
            if context in ("operand", "dbrace") and char == "}":
                flush(i)
                self._charge(steps, start)
                return tuple(parts), i + 1
            if not literal:
                literal_start = i
            if char == "\\":
                nxt = text[i + 1] if i + 1 < end else ""
                if nxt == "\n":
                    i += 2  # line continuation: removed in every context
                    continue
                if context in ("word", "operand"):
                    if nxt:
                        literal.append(nxt)
                        i += 2
                        escaped = i
                    else:
                        literal.append("\\")
                        i += 1
                    continue
                escapable = {"dquote": '$`"\\', "dbrace": '$`"\\}'}.get(context, "$`\\")
                if nxt and nxt in escapable:
                    literal.append(nxt)
                    i += 2
                else:
                    literal.append("\\")
                    i += 1
                continue
            if char == "'" and context in ("word", "operand"):
                close = text.find("'", i + 1, end)
                if close < 0:
                    raise Unreadable(f"the single quote at offset {i} is not closed", i)
                flush(i)
                parts.append(SingleQuoted(span=source.span(i, close + 1), text=text[i + 1 : close]))
                i = close + 1
                continue
            if char == "'" and context == "dbrace":
                # Bash matches the braces past a quoted ``}`` but keeps the
                # quotes and expands what is between them, with the escapes
                # of double quotes. Only plain text is read here.
                close = text.find("'", i + 1, end)
                if close < 0:
                    raise Unreadable(f"the single quote at offset {i} is not closed", i)
                between = text[i + 1 : close]
                if any(c in between for c in '$`"\\'):
                    raise Unreadable(
                        f"bash expands the text between the single quotes at offset {i} "
                        "(inside a double-quoted parameter expansion), which is not read",
                        i,
                    )
                literal.append(text[i : close + 1])
                i = close + 1
                continue
            if char == '"' and context in ("word", "operand", "dbrace"):
                flush(i)
                inner, after = self._scan(i + 1, end, "dquote")
                if after > end or text[after - 1] != '"' or after == i + 1:
                    raise Unreadable(f"the double quote at offset {i} is not closed", i)
                parts.append(DoubleQuoted(span=source.span(i, after), parts=inner))
                i = after
                continue
            if char == "$" and i + 1 < end:
                part, after = self._dollar(i, end, context)
                if part is not None:
                    flush(i)
                    parts.append(part)
                    i = after
                    continue
                literal.append("$")
                i += 1
                continue
            if char == "`":
                flush(i)
                entry, after = self._take_sub(i, "backtick", end)
                self._check_backtick(i, after, dquoted=context in ("dquote", "dbrace"))
                parts.append(
                    CommandSubstitution(span=source.span(i, after), backtick=True, body=entry.body)
                )
                i = after
                continue
            if context == "word":
                if char in "<>" and i + 1 < end and text[i + 1] == "(":
                    flush(i)
                    kind: SubKind = "in" if char == "<" else "out"
                    entry, after = self._take_sub(i, kind, end)
                    parts.append(
                        ProcessSubstitution(
                            span=source.span(i, after),
                            direction="<" if char == "<" else ">",
                            body=entry.body,
                        )
                    )
                    i = after
                    continue
                # In an assignment a tilde after an unquoted ``:`` expands too,
                # whatever quoted parts came before it (``x='a':~/b``); after
                # ``\:`` it does not.
                if char == "~" and (
                    i == start or (tilde_after_colon and text[i - 1] == ":" and escaped != i)
                ):
                    tilde = self._tilde_end(i, end)
                    if tilde is not None:
                        flush(i)
                        parts.append(Tilde(span=source.span(i, tilde), text=text[i:tilde]))
                        i = tilde
                        continue
                if char in _EXTGLOB_STARTS and i + 1 < end and text[i + 1] == "(":
                    paren = self._matching(i + 1, end, "(", ")")
                    if paren is not None:
                        flush(i)
                        parts.append(Glob(span=source.span(i, paren + 1), text=text[i : paren + 1]))
                        i = paren + 1
                        continue
                if char in "*?":
                    flush(i)
                    parts.append(Glob(span=source.span(i, i + 1), text=char))
                    i += 1
                    continue
                if char == "[":
                    bracket = self._bracket_end(i, end)
                    if bracket is not None:
                        flush(i)
                        parts.append(
                            Glob(span=source.span(i, bracket + 1), text=text[i : bracket + 1])
                        )
                        i = bracket + 1
                        continue
                if char == "{":
                    brace = self._brace_end(i, end)
                    if brace is not None:
                        flush(i)
                        self._descend(i)
                        inner, _ = self._scan(i + 1, brace, "word")
                        self._depth -= 1
                        parts.append(Brace(span=source.span(i, brace + 1), parts=inner))
                        i = brace + 1
                        continue
            literal.append(char)
            i += 1
        if context == "dquote":
            raise Unreadable(f"the double quote before offset {start} is not closed", start)
        if context in ("operand", "dbrace"):
            raise Unreadable(f"the parameter expansion before offset {start} is not closed", start)
        flush(end)
        self._charge(steps, start)
        return tuple(parts), end

    def _dollar(self, i: int, end: int, context: _Context) -> tuple[Part | None, int]:
        """Read what starts with the ``$`` at ``i``; ``None`` when it is a plain dollar sign."""
        text = self._text
        source = self._source
        nxt = text[i + 1]
        if nxt in "'\"" and context == "dbrace":
            # ``extquote``: bash decodes the string, then expands the result again
            # (``"${x:-$'\x24(id)'}"`` runs ``id``).
            raise Unreadable(
                f"bash expands the ${nxt}…{nxt} string at offset {i} again after decoding it "
                "(inside a double-quoted parameter expansion), which is not read",
                i,
            )
        if nxt == "'" and context in ("word", "operand"):
            j = i + 2
            while j < end:
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "'":
                    break
                j += 1
            self._charge(j - i, i)
            if j >= end:
                raise Unreadable(f"the $'…' string at offset {i} is not closed", i)
            decoded = decode_ansi_c(text[i + 2 : j])
            part = AnsiC(
                span=source.span(i, j + 1),
                text=decoded if decoded is not None else text[i + 2 : j],
                exact=decoded is not None,
            )
            return part, j + 1
        if nxt == '"' and context in ("word", "operand"):
            inner, after = self._scan(i + 2, end, "dquote")
            return DoubleQuoted(span=source.span(i, after), parts=inner, locale=True), after
        if nxt == "(":
            if i in self._subs:
                entry, after = self._take_sub(i, "dollar", end)
                return CommandSubstitution(
                    span=source.span(i, after), backtick=False, body=entry.body
                ), after
            if i + 2 < end and text[i + 2] == "(":
                closing = self._arith_end(i + 3, end)
                if closing is None:
                    raise Unreadable(f"the arithmetic expansion at offset {i} is not closed", i)
                arith = self._arithmetic(i + 3, closing)
                return msgspec.structs.replace(arith, span=source.span(i, closing + 2)), closing + 2
            entry, after = self._take_sub(i, "dollar", end)
            return CommandSubstitution(
                span=source.span(i, after), backtick=False, body=entry.body
            ), after
        if nxt == "[":
            square = self._matching(i + 1, end, "[", "]")
            if square is None:
                raise Unreadable(f"the arithmetic expansion at offset {i} is not closed", i)
            arith = self._arithmetic(i + 2, square)
            return msgspec.structs.replace(arith, span=source.span(i, square + 1)), square + 1
        if nxt == "{":
            self._descend(i)
            parameter = self._braced_parameter(i, end, context)
            self._depth -= 1
            return parameter
        if nxt in _NAME_START:
            j = i + 2
            while j < end and text[j] in _NAME_CHARS:
                j += 1
            return Parameter(span=source.span(i, j), name=text[i + 1 : j]), j
        if nxt in _DIGITS or nxt in _SPECIAL_PARAMS:
            return Parameter(span=source.span(i, i + 2), name=nxt, special=True), i + 2
        return None, i + 1

    def _braced_parameter(self, i: int, end: int, context: _Context) -> tuple[Part, int]:
        text = self._text
        source = self._source
        j = i + 2
        length = indirect = False
        if j < end and text[j] == "#" and j + 1 < end and text[j + 1] != "}":
            # ``${#x}`` is a length; ``${#}`` is the special parameter ``#``.
            length = True
            j += 1
        elif j < end and text[j] == "!" and j + 1 < end and text[j + 1] != "}":
            indirect = True
            j += 1
        name_start = j
        if j < end and text[j] in _NAME_START:
            while j < end and text[j] in _NAME_CHARS:
                j += 1
            special = False
        elif j < end and text[j] in _DIGITS:
            while j < end and text[j] in _DIGITS:
                j += 1
            special = True
        elif j < end and (text[j] in _SPECIAL_PARAMS or text[j] == "0"):
            j += 1
            special = True
        else:
            raise Unreadable(f"the parameter expansion at offset {i} names no parameter", i)
        name = text[name_start:j]
        subscript: Arithmetic | None = None
        if j < end and text[j] == "[":
            close = self._matching(j, end, "[", "]")
            if close is None:
                raise Unreadable(f"the subscript at offset {j} is not closed", j)
            subscript = self._arithmetic(j + 1, close)
            j = close + 1
        if j >= end:
            raise Unreadable(f"the parameter expansion at offset {i} is not closed", i)
        if text[j] == "}":
            return (
                Parameter(
                    span=source.span(i, j + 1),
                    name=name,
                    special=special,
                    braced=True,
                    length=length,
                    indirect=indirect,
                    subscript=subscript,
                ),
                j + 1,
            )
        if length:
            raise Unreadable(f"the length expansion at offset {i} has an operator", i)
        operator: str | None = None
        if text[j] == "@" and j + 1 < end:
            operator = text[j : j + 2]
        elif indirect and text[j] in "*@" and j + 1 < end and text[j + 1] == "}":
            operator = text[j]
        else:
            for candidate in _PARAM_OPERATORS:
                if text.startswith(candidate, j):
                    operator = candidate
                    break
        if operator is None:
            raise Unreadable(f"the parameter expansion at offset {i} has an unknown operator", j)
        j += len(operator)
        operand: tuple[Part, ...]
        if operator == ":":
            close = self._operand_end(j, end)
            operand = (self._arithmetic(j, close),)
            after = close + 1
        elif operator in _LITERAL_QUOTE_OPERATORS and context in _DOUBLE_QUOTED:
            operand, after = self._scan(j, end, "dbrace")
        else:
            operand, after = self._scan(j, end, "operand")
        return (
            Parameter(
                span=source.span(i, after),
                name=name,
                special=special,
                braced=True,
                indirect=indirect,
                subscript=subscript,
                operator=operator,
                operand=operand,
            ),
            after,
        )

    def _operand_end(self, start: int, end: int) -> int:
        """Offset of the ``}`` that closes an operand, skipping quotes and nested expansions."""
        _, after = self._scan_quietly(start, end)
        return after - 1

    def _scan_quietly(self, start: int, end: int) -> tuple[tuple[Part, ...], int]:
        used = set(self._used)
        try:
            return self._scan(start, end, "operand")
        finally:
            self._used = used

    def _arithmetic(self, start: int, end: int) -> Arithmetic:
        """Read an arithmetic expression: bare names are reads, ``$…`` and backticks are parts."""
        text = self._text
        variables: list[str] = []
        parts: list[Part] = []
        self._descend(start)
        steps = 0
        i = start
        while i < end:
            steps += 1
            char = text[i]
            if char == "$" and i + 1 < end:
                part, after = self._dollar(i, end, "dquote")
                if part is not None:
                    parts.append(part)
                    i = after
                    continue
                i += 1
                continue
            if char == "`":
                entry, after = self._take_sub(i, "backtick", end)
                self._check_backtick(i, after, dquoted=True)
                parts.append(
                    CommandSubstitution(
                        span=self._source.span(i, after), backtick=True, body=entry.body
                    )
                )
                i = after
                continue
            if char == "'":
                raise Unreadable(f"a single quote at offset {i} inside arithmetic", i)
            if char in _DIGITS:
                # A number, including base#digits and 0x… forms: never a name.
                while i < end and (text[i] in _NAME_CHARS or text[i] in "#@"):
                    steps += 1
                    i += 1
                continue
            if char in _NAME_START:
                j = i
                while j < end and text[j] in _NAME_CHARS:
                    j += 1
                steps += j - i
                variables.append(text[i:j])
                i = j
                continue
            i += 1
        self._depth -= 1
        self._charge(steps, start)
        return Arithmetic(
            span=self._source.span(start, end),
            expression=text[start:end],
            variables=tuple(variables),
            parts=tuple(parts),
        )

    def _check_backtick(self, start: int, end: int, *, dquoted: bool) -> None:
        """
        Refuse a backtick substitution whose body bash reads after removing backslashes.

        Before parsing a backtick body bash turns ``\\$``, ``\\``` and ``\\\\``
        (and, in double quotes, ``\\"``) into the character alone, so the
        command it runs is not the text the readers parsed:
        ``echo "`echo \\"'\\" ; rm x ; echo \\"'\\"`"`` runs ``rm``.
        """
        text = self._text
        escapes = '$`\\"' if dquoted else "$`\\"
        at = text.find("\\", start + 1, end - 1)
        while at >= 0:
            if text[at + 1] in escapes:
                raise Unreadable(
                    f"the backtick substitution at offset {start} holds a backslash escape "
                    "bash removes before it reads the command, which is not read",
                    start,
                )
            at = text.find("\\", at + 2, end - 1)

    # ── matching helpers ──

    def _skip_quoted(self, i: int, end: int) -> int:
        """Return the offset past the quoted string, expansion or escape at ``i`` (``i + 1`` otherwise)."""
        text = self._text
        char = text[i]
        if char == "\\":
            return min(i + 2, end)
        if char == "'":
            close = text.find("'", i + 1, end)
            return end if close < 0 else close + 1
        if char == '"':
            j = i + 1
            steps = 0
            while j < end:
                steps += 1
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == '"':
                    self._charge(steps, i)
                    return j + 1
                if text[j] in "$`":
                    j = self._skip_quoted(j, end)
                    continue
                j += 1
            self._charge(steps, i)
            return end
        if char in "`$<>" and i in self._subs:
            return self._subs[i].end
        if char == "$" and i + 1 < end and text[i + 1] == "{":
            brace = self._matching(i + 1, end, "{", "}")
            return end if brace is None else brace + 1
        return i + 1

    def _matching(self, i: int, end: int, opener: str, closer: str) -> int | None:
        """Offset of the ``closer`` matching the ``opener`` at ``i``, skipping quoted text."""
        text = self._text
        depth = 0
        steps = 0
        j = i
        while j < end:
            steps += 1
            char = text[j]
            if char == opener:
                depth += 1
            elif char == closer:
                depth -= 1
                if depth == 0:
                    self._charge(steps, i)
                    return j
            elif char in "\\'\"`$<>":
                after = self._skip_quoted(j, end)
                if after != j + 1:
                    j = after
                    continue
            j += 1
        self._charge(steps, i)
        return None

    def _arith_end(self, start: int, end: int) -> int | None:
        """Offset of the ``))`` closing an arithmetic expansion whose inside starts at ``start``."""
        text = self._text
        depth = 0
        steps = 0
        j = start
        while j < end:
            steps += 1
            char = text[j]
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    self._charge(steps, start)
                    return j if j + 1 < end and text[j + 1] == ")" else None
                depth -= 1
            elif char in "\\'\"`$":
                after = self._skip_quoted(j, end)
                if after != j + 1:
                    j = after
                    continue
            j += 1
        self._charge(steps, start)
        return None

    def _bracket_end(self, i: int, end: int) -> int | None:
        """Offset of the ``]`` closing a glob bracket expression at ``i``, or ``None``."""
        text = self._text
        j = i + 1
        if j < end and text[j] in "!^":
            j += 1
        if j < end and text[j] == "]":
            j += 1
        while j < end:
            char = text[j]
            if char == "]":
                self._charge(j - i, i)
                return j
            if char in "'\"\\$`/":
                self._charge(j - i, i)
                return None
            j += 1
        self._charge(end - i, i)
        return None

    def _brace_end(self, i: int, end: int) -> int | None:
        """Offset of the ``}`` closing a brace expansion at ``i``, or ``None`` when it is not one."""
        text = self._text
        depth = 0
        expands = False
        steps = 0
        j = i
        while j < end:
            steps += 1
            char = text[j]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    self._charge(steps, i)
                    return j if expands else None
            elif (char == "," and depth == 1) or (
                char == "." and depth == 1 and text.startswith("..", j)
            ):
                expands = True
            elif char in "\\'\"`$<>":
                after = self._skip_quoted(j, end)
                if after != j + 1:
                    j = after
                    continue
            j += 1
        self._charge(steps, i)
        return None

    def _tilde_end(self, i: int, end: int) -> int | None:
        """Offset past a tilde prefix at ``i``, or ``None`` when bash would not expand it."""
        text = self._text
        j = i + 1
        while j < end and text[j] in _LOGIN_CHARS:
            j += 1
        if j < end and text[j] not in "/:":
            return None
        return j
