"""
Fragments: the exact text a heredoc feeds its command, or the questions that block it.

`expand_fragment` follows bash for unquoted bodies — ``\\$`` → ``$``,
``\\``` → `````, ``\\\\`` → ``\\``, backslash-newline joins lines, other
backslashes stay; ``$x``/``${x}`` (with their operators) come from the scope
the caller supplies and never from the environment — and answers "blocked"
whenever anything is unknown: every ``$( )`` or backtick in the body is a
`Hole` that must be answered first, and (strictly) every variable the scope
does not supply is named in ``unbound``. There is no half-expanded text.

Answers are the host's output of running an approved hole, keyed by the
hole's flat index; an answer goes in verbatim (trailing newlines removed, as
bash does) and is never scanned for ``$( )`` again.

Expansion works on what the planner kept of a call (`Fragments`: each
statement's heredoc nodes and holes), so expanding a fragment of a call the
gateway has planned reads nothing again (`expand_planned`).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence

import msgspec

from gateway._calls._plans import (
    Blocked,
    Complete,
    Expansion,
    FragmentAddr,
    FragmentError,
    Hole,
)
from gateway._plan import PlannedStatement, plan_source
from gateway._plan._arith_eval import ArithmeticError_, evaluate
from gateway._plan._parts import substitutions
from gateway._read._tree import (
    AnsiC,
    Arithmetic,
    Brace,
    CommandSubstitution,
    DoubleQuoted,
    Glob,
    Heredoc,
    Literal,
    Parameter,
    Part,
    ProcessSubstitution,
    SingleQuoted,
    Tilde,
)
from gateway._read._words import NAME

__all__ = ["Fragments", "StatementFragments", "expand_fragment", "expand_planned", "fragments_of"]

Scope = Mapping[str, str | int]


class StatementFragments(msgspec.Struct, frozen=True, kw_only=True):
    """
    What expanding the heredocs of one statement needs, kept from its planning.

    Attributes:
        heredocs: The heredoc nodes, by flat index (unredacted: internal only).
        holes: For each heredoc, the holes of its body with their plans
            (secrets masked), empty when the body is literal.
    """

    heredocs: tuple[Heredoc, ...]
    holes: tuple[tuple[Hole, ...], ...]


Fragments = tuple[StatementFragments, ...]
"""The heredocs and holes of every statement of a call, in order."""


def fragments_of(statements: Sequence[PlannedStatement]) -> Fragments:
    """Keep what fragments need from the planned statements of a call."""
    return tuple(StatementFragments(heredocs=p.heredocs, holes=p.holes) for p in statements)


class _Expander:
    def __init__(
        self, source: str, scope: Scope, answers: Mapping[int, str], *, strict: bool
    ) -> None:
        self.source = source
        self.scope = scope
        self.answers = answers
        self.strict = strict
        self.unbound: set[str] = set()
        self.holes: dict[int, int] = {}  # substitution start offset → hole index

    # ── variables ──

    def get(self, name: str) -> str | None:
        value = self.scope.get(name)
        if value is None:
            if self.strict:
                self.unbound.add(name)
            return None
        return str(value)

    def special(self, name: str) -> FragmentError:
        return FragmentError(
            "needs_session_state",
            f"The body reads `${name}`, which needs session state a scope cannot carry; "
            "supply the text some other way.",
        )

    def lookup(self, name: str, depth: int) -> int:
        value = self.get(name)
        if value is None or not value.strip():
            return 0
        try:
            return evaluate(value, self.lookup, depth)
        except ArithmeticError_ as error:
            raise FragmentError(
                "parse", f"The value of `{name}` is not valid arithmetic: {error}."
            ) from None

    # ── parts ──

    def parts(
        self, parts: Sequence[Part], *, strip_tabs: bool = False, at_line_start: bool = False
    ) -> str:
        out: list[str] = []
        line_start = at_line_start
        for part in parts:
            if isinstance(part, Literal):
                text = part.text
                if strip_tabs:
                    text = (
                        re.sub(r"(?m)^\t+", "", text)
                        if line_start
                        else re.sub(r"\n\t+", "\n", text)
                    )
                out.append(text)
                line_start = text.endswith("\n") if text else line_start
                continue
            line_start = False
            out.append(self.part(part))
        return "".join(out)

    def part(self, part: Part) -> str:
        if isinstance(part, Literal | SingleQuoted | AnsiC):
            return part.text
        if isinstance(part, DoubleQuoted):
            return self.parts(part.parts)
        if isinstance(part, Parameter):
            return self.parameter(part)
        if isinstance(part, CommandSubstitution | ProcessSubstitution):
            index = self.holes.get(part.span.start)
            if (
                index is None or index not in self.answers
            ):  # pragma: no cover - holes are checked first
                raise FragmentError("parse", "A substitution was left unanswered.")
            return self.answers[index].rstrip("\n")
        if isinstance(part, Arithmetic):
            return str(self.arithmetic(part))
        if isinstance(part, Tilde):
            home = self.get("HOME") if part.text == "~" else None
            return part.text if home is None else home
        if isinstance(part, Glob):
            return part.text
        if isinstance(part, Brace):  # pragma: no cover - not produced in heredoc bodies
            return self.source[part.span.start : part.span.end]
        raise FragmentError(
            "parse",
            f"The body holds an expansion the gateway cannot expand at offset {part.span.start}.",
        )  # pragma: no cover

    def arithmetic(self, part: Arithmetic) -> int:
        # Substitute the expansions inside the expression, then evaluate it.
        text = self.source
        inner_start = part.span.start + (3 if text.startswith("$((", part.span.start) else 2)
        if not text.startswith("$", part.span.start):
            inner_start = part.span.start
        pieces: list[str] = []
        position = inner_start
        for inner in part.parts:
            pieces.append(text[position : inner.span.start])
            pieces.append(self.part(inner))
            position = inner.span.end
        pieces.append(text[position : inner_start + len(part.expression)])
        expression = "".join(pieces)
        special = re.search(r"\$\s*([?$#@!*0-9-])", expression)
        if special is not None:
            raise self.special(special.group(1))
        expression = re.sub(r"\$\s*(?=[A-Za-z_])", "", expression)
        try:
            return evaluate(expression, self.lookup)
        except ArithmeticError_ as error:
            raise FragmentError(
                "parse", f"The arithmetic `{part.expression.strip()}` is not valid: {error}."
            ) from None

    def parameter(self, part: Parameter) -> str:
        if part.special:
            raise self.special(part.name)
        if part.subscript is not None:
            # Arrays cannot be supplied through a scope of strings.
            if self.strict:
                self.unbound.add(part.name)
            return ""
        name = part.name
        if part.indirect:
            target = self.get(name)
            if target is None:
                return ""
            if not NAME.fullmatch(target):
                raise FragmentError(
                    "parse", f"`${{!{name}}}` names `{target}`, which is not a variable."
                )
            name = target
        value = self.get(name)
        if part.length:
            return str(len(value or ""))
        operator = part.operator
        if operator is None:
            return value or ""
        # An unsupplied name stays unbound under these operators too: in strict
        # mode `${X:-d}` cannot be known without knowing whether X is set, and
        # `Complete` must mean every value was supplied. (Lenient mode never
        # records it, so the operator then sees it unset, as bash would.)
        if operator in (":-", "-", ":=", "="):
            unset = value is None or (operator[0] == ":" and value == "")
            if unset:
                return self.parts(part.operand)
            return value or ""
        if operator in (":+", "+"):
            present = value is not None and (operator == "+" or value != "")
            return self.parts(part.operand) if present else ""
        if operator in (":?", "?"):
            return value or ""
        if value is None:
            return ""
        if operator in ("#", "##", "%", "%%"):
            pattern = self.parts(part.operand)
            return _remove(value, pattern, operator)
        if operator in ("/", "//", "/#", "/%"):
            operand = self.parts(part.operand)
            pattern, _, replacement = operand.partition("/")
            return _replace(value, pattern, replacement, operator)
        if operator in ("^^", ",,", "^", ","):
            mapped = value.upper() if operator[0] == "^" else value.lower()
            return mapped if len(operator) == 2 else mapped[:1] + value[1:]
        if operator == ":":
            expression = part.operand[0] if part.operand else None
            if not isinstance(
                expression, Arithmetic
            ):  # pragma: no cover - the scanner reads `:` operands as arithmetic
                return value
            offset_text, _, length_text = expression.expression.partition(":")
            offset = evaluate(offset_text, self.lookup) if offset_text.strip() else 0
            if offset < 0:
                offset = max(len(value) + offset, 0)
            if not length_text:
                return value[offset:]
            length = evaluate(length_text, self.lookup)
            end = offset + length if length >= 0 else len(value) + length
            return value[offset:end]
        if operator == "@Q":
            return "'" + value.replace("'", "'\\''") + "'"
        if operator in ("@U", "@u", "@L"):
            return {"@U": value.upper(), "@u": value[:1].upper() + value[1:], "@L": value.lower()}[
                operator
            ]
        raise FragmentError(
            "parse",
            f"The expansion `${{{part.name}{operator}…}}` cannot be expanded without running it.",
        )


def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(
        fnmatch.translate(pattern).removesuffix(r"\Z").removeprefix("(?s:").removesuffix(")"),
        re.DOTALL,
    )


def _remove(value: str, pattern: str, operator: str) -> str:
    regex = _pattern(pattern)
    ends = range(len(value) + 1)
    if operator in ("#", "##"):
        candidates = ends if operator == "#" else reversed(ends)
        for end in candidates:
            if regex.fullmatch(value[:end]):
                return value[end:]
        return value
    starts = reversed(ends) if operator == "%" else ends
    for start in starts:
        if regex.fullmatch(value[start:]):
            return value[:start]
    return value


def _replace(value: str, pattern: str, replacement: str, operator: str) -> str:
    if not pattern:
        return value
    regex = _pattern(pattern)
    if operator == "/#":
        for end in range(len(value), -1, -1):
            if regex.fullmatch(value[:end]):
                return replacement + value[end:]
        return value
    if operator == "/%":
        for start in range(len(value) + 1):
            if regex.fullmatch(value[start:]):
                return value[:start] + replacement
        return value
    out: list[str] = []
    i = 0
    replaced = False
    while i <= len(value):
        if replaced and operator == "/":
            out.append(value[i:])
            break
        match_end = next(
            (end for end in range(len(value), i, -1) if regex.fullmatch(value[i:end])), None
        )
        if match_end is not None:
            out.append(replacement)
            i = match_end
            replaced = True
            continue
        if i < len(value):
            out.append(value[i])
        i += 1
    return "".join(out)


def expand_fragment(
    source: str,
    addr: FragmentAddr,
    scope: Scope | None = None,
    answers: Mapping[int, str] | None = None,
    *,
    strict: bool = True,
) -> Expansion:
    """
    Expand one heredoc of a shell call to the exact text its command reads.

    Args:
        source: The shell call's text.
        addr: Which statement, and which heredoc of it (its flat index).
        scope: Variable values to expand with (never the environment).
        answers: The output of holes the host ran, by hole index.
        strict: When true (the default), a variable missing from ``scope``
            blocks the expansion and is named in ``unbound``; when false it
            expands empty, as bash would.

    Returns:
        `Complete` with the text, or `Blocked` with the unanswered holes (each
        with its plans) and the unbound names.

    Raises:
        FragmentError: The source does not parse (``parse``), the address names
            no statement or heredoc (``no_such_statement``/``no_such_heredoc``),
            or the body needs session state such as ``$?`` or ``$1``
            (``needs_session_state``).

    Examples:
        >>> source = "cat <<EOF\\nhello $NAME\\nEOF"
        >>> expand_fragment(source, FragmentAddr(statement=0, heredoc=0), {"NAME": "amy"}).complete
        'hello amy\\n'
        >>> expand_fragment(source, FragmentAddr(statement=0, heredoc=0)).blocked.unbound
        ('NAME',)
    """
    result = plan_source(source)
    if result.published.status != "measured":
        raise FragmentError("parse", result.published.reason or "The source could not be read.")
    return expand_planned(
        source, fragments_of(result.statements), addr, scope, answers, strict=strict
    )


def expand_planned(
    source: str,
    fragments: Fragments,
    addr: FragmentAddr,
    scope: Scope | None = None,
    answers: Mapping[int, str] | None = None,
    *,
    strict: bool = True,
) -> Expansion:
    """
    Expand one heredoc of a call already planned, from what its planning kept (reads nothing).

    Args and the result are those of `expand_fragment`; ``fragments`` are the
    call's (`fragments_of`, or `gateway._review._analysis.CallAnalysis.fragments`).
    """
    if not 0 <= addr.statement < len(fragments):
        raise FragmentError(
            "no_such_statement",
            f"No such statement {addr.statement}; the source has {len(fragments)} statement{'s' if len(fragments) != 1 else ''}.",
        )
    statement = fragments[addr.statement]
    heredocs = statement.heredocs
    if not 0 <= addr.heredoc < len(heredocs):
        raise FragmentError(
            "no_such_heredoc",
            f"No such heredoc {addr.heredoc} in statement {addr.statement}; it has {len(heredocs)}.",
        )
    heredoc = heredocs[addr.heredoc]
    strip = heredoc.operator == "<<-"
    if heredoc.quoted:
        body = heredoc.body
        return Complete(re.sub(r"(?m)^\t+", "", body) if strip else body)
    given = dict(answers or {})
    expander = _Expander(source, scope or {}, given, strict=strict)
    subs = list(substitutions(heredoc.parts))
    expander.holes = {sub.span.start: index for index, sub in enumerate(subs)}
    unanswered = [index for index in range(len(subs)) if index not in given]
    if unanswered:
        holes = statement.holes[addr.heredoc]
        return Blocked(holes=tuple(holes[i] for i in unanswered), unbound=())
    text = expander.parts(heredoc.parts, strip_tabs=strip, at_line_start=True)
    if expander.unbound:
        return Blocked(holes=(), unbound=tuple(sorted(expander.unbound)))
    return Complete(text)
