"""
Masks: let bashlex read around the constructs it cannot parse, without trusting tree-sitter for what runs.

bashlex 0.18 raises on ``[[ … ]]``, ``(( … ))``, ``$(( … ))``, ``$[ … ]`` and
``for (( … ))``. None of these runs a program by itself: the only things in
them that run anything are command and process substitutions. So, after
tree-sitter has read a source, each such construct it found is *masked* in
the copy of the text bashlex parses:

* every byte offset is kept (the masked text has the same length) and every
  substitution inside the construct is kept verbatim, so bashlex parses and
  places each substitution itself;
* ``[[ a && b ]]`` becomes ``:  a 00 b   `` — the keyword becomes the no-op
  command ``:``, operator characters become ``0`` — so bashlex sees one word
  per operand, at the same offsets tree-sitter's operands have, and the two
  readings are compared word for word;
* ``(( … ))`` becomes ``: 000…``, ``$(( … ))`` becomes ``000…`` inside its word,
  and the header of ``for (( … ))`` becomes ``x in 000…``;
* bashlex has no ``time``, ``select`` or ``coproc`` either: the keyword
  ``time`` and its options become blanks, so bashlex reads the pipeline it
  times; ``select`` becomes ``for   `` — the same loop header; ``coproc``
  and the name after it become blanks, so bashlex reads the command the
  coprocess runs.

The neutral tree is still built from the *original* text by the project's
own word scanner. If tree-sitter misplaced a construct, the mask changes what
bashlex reads and the consensus comparison fails: a mask can turn a reading
unmeasured, never make a misreading agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Literal, NamedTuple

from gateway._read._tree import (
    ArithCommand,
    ArithFor,
    Arithmetic,
    Assignment,
    Case,
    CommandSubstitution,
    Coproc,
    For,
    Heredoc,
    Literal as LiteralPart,
    Node,
    Part,
    Pipeline,
    ProcessSubstitution,
    Program,
    SimpleCommand,
    Test,
    Word,
    walk,
    walk_parts,
)
from gateway._read._words import split_assignment

__all__ = ["CaseArm", "CaseLayout", "Mask", "apply_masks", "declares", "find_masks"]

MaskKind = Literal[
    "test",
    "arith_command",
    "arithmetic",
    "arith_for",
    "case",
    "array",
    "time",
    "select",
    "coproc",
]
# The builtins whose `NAME=(…)` arguments bash reads as array assignments.
_DECLARATIONS: Final = frozenset({"declare", "local", "typeset", "readonly", "export"})
_OPERATOR_CHARACTERS: Final = frozenset("&|<>()!;")


class CaseArm(NamedTuple):
    """Where one arm of a masked ``case`` is: its head (patterns through ``)``), patterns, extent."""

    head: tuple[int, int]
    patterns: tuple[tuple[int, int], ...]
    span: tuple[int, int]
    terminator: str | None


class CaseLayout(NamedTuple):
    """Where the pieces of a masked ``case`` are, for bashlex's reader to put them back."""

    subject: tuple[int, int]
    arms: tuple[CaseArm, ...]


class Mask(NamedTuple):
    """
    One construct to mask: what, where, which spans inside stay verbatim.

    ``expressions`` are a ``for (( ))`` header's three expressions; ``edits``
    are spans written over with a text of the same length (a ``case``), and
    ``case`` says where its pieces are.
    """

    kind: MaskKind
    start: int
    end: int
    keep: tuple[tuple[int, int], ...]
    expressions: tuple[tuple[int, int], ...] = ()
    edits: tuple[tuple[int, int, str], ...] = ()
    case: CaseLayout | None = None


def _subs_in(parts: Iterable[Part]) -> tuple[tuple[int, int], ...]:
    """Spans of the substitutions among ``parts`` (not inside their bodies)."""
    return tuple(
        (part.span.start, part.span.end)
        for part in walk_parts(parts)
        if isinstance(part, CommandSubstitution | ProcessSubstitution)
    )


def _outside_heredocs(node: Node) -> bool:
    # bashlex reads a heredoc body as text: nothing in it needs a mask.
    return not isinstance(node, Heredoc)


def find_masks(program: Program, text: str) -> tuple[Mask, ...]:
    """The constructs of a tree-sitter reading that bashlex needs masked, outermost first."""
    masks: list[Mask] = []
    for node in walk(program, _outside_heredocs):
        if isinstance(node, Arithmetic):
            if text.startswith(("$((", "$["), node.span.start):
                masks.append(
                    Mask("arithmetic", node.span.start, node.span.end, _subs_in(node.parts))
                )
        elif isinstance(node, Test):
            keep = tuple(span for word in node.operands for span in _subs_in(word.parts))
            masks.append(Mask("test", node.span.start, node.span.end, keep))
        elif isinstance(node, ArithCommand):
            keep = _subs_in((node.expression,))
            masks.append(Mask("arith_command", node.span.start, node.span.end, keep))
        elif isinstance(node, ArithFor):
            mask = _arith_for(node, text)
            if mask is not None:
                masks.append(mask)
        elif isinstance(node, Case):
            mask = _case(node, text)
            if mask is not None:
                masks.append(mask)
        elif isinstance(node, Assignment) and node.array is not None:
            masks.extend(_array_assignment(node, text))
        elif isinstance(node, SimpleCommand) and declares(node):
            masks.extend(_array_argument(w, text) for w in node.words[1:] if "=(" in w.text)
        elif isinstance(node, Pipeline) and node.time is not None:
            masks.append(Mask("time", node.time.start, node.time.end, ()))
        elif isinstance(node, Coproc):
            masks.append(Mask("coproc", node.keyword.start, node.keyword.end, ()))
        elif isinstance(node, For) and node.select:
            mask = _select(node, text)
            if mask is not None:
                masks.append(mask)
    return tuple(sorted(masks, key=lambda mask: (mask.start, -mask.end)))


def declares(command: SimpleCommand) -> bool:
    """True when the command is a builtin that reads ``NAME=(…)`` arguments as arrays."""
    return bool(command.words) and command.words[0].value in _DECLARATIONS


def _array_assignment(assignment: Assignment, text: str) -> list[Mask]:
    """
    ``NAME=(a b)``: the parentheses and what is between the elements become ``_``.

    bashlex cannot parse an array; through the mask it reads one assignment
    word (its substitutions kept verbatim, so it parses each), and its reader
    takes the elements' spans from the mask.
    """
    split = split_assignment(text[assignment.span.start : assignment.span.end])
    if split is None:
        return []
    open_at = assignment.span.start + split[3]
    end = assignment.span.end
    if text[open_at : open_at + 1] != "(" or text[end - 1 : end] != ")":
        return []
    elements = tuple((word.span.start, word.span.end) for word in assignment.array or ())
    return [Mask("array", open_at, end, elements, expressions=elements)]


def _array_argument(word: Word, text: str) -> Mask:
    """
    ``declare -a NAME=(a b)``: an argument bash reads as an array; blanks and parentheses become ``_``.

    Both readers read the argument as one word; the mask only lets bashlex
    read it as one word too (quotes, expansions and substitutions kept).
    """
    start = text.index("=(", word.span.start) + 1
    kept = tuple(
        (part.span.start, part.span.end)
        for part in word.parts
        if not isinstance(part, LiteralPart) and part.span.end > start
    )
    return Mask("array", start, word.span.end, kept)


def _case(command: Case, text: str) -> Mask | None:
    """
    The mask of a ``case``: a group bashlex can read, with every arm's body in place.

    ``case WORD in`` becomes ``{ : WORD;``, each arm's patterns through its
    ``)`` become ``: …;`` (substitutions in them kept), each terminator a
    ``;`` (blanks where a ``;`` would stand alone), and ``esac`` a ``}``.
    """
    start, end = command.span.start, command.span.end
    subject = command.subject.span
    at = subject.end
    while at < end and text[at] in " \t\n":
        at += 1
    if (
        text[start : start + 4] != "case"
        or text[at : at + 2] != "in"
        or text[at + 2 : at + 3] not in (" ", "\t", "\n")
        or text[end - 4 : end] != "esac"
    ):
        return None
    edits = [(start, start + 4, "{ : "), (at, at + 2, "; "), (end - 4, end, "}   ")]
    keep: list[tuple[int, int]] = []
    arms: list[CaseArm] = []
    for item in command.items:
        lo, hi = item.head.start, item.head.end
        if text[hi - 1 : hi] != ")":
            return None
        kept = [span for pattern in item.patterns for span in _subs_in(pattern.parts)]
        keep.extend(kept)
        head = [" "] * (hi - lo)
        for sub_start, sub_end in kept:
            head[sub_start - lo : sub_end - lo] = text[sub_start:sub_end]
        if not any(sub_start <= lo < sub_end for sub_start, sub_end in kept):
            head[0] = ":"
        head[-1] = ";"
        edits.append((lo, hi, "".join(head)))
        terminator = item.terminator
        if terminator is not None:
            t_start = item.span.end - len(terminator)
            if text[t_start : item.span.end] != terminator:
                return None
            before = t_start - 1
            while before > hi and text[before] in " \t":
                before -= 1
            alone = not item.body or text[before] in "\n;&"
            filler = " " * len(terminator) if alone else ";" + " " * (len(terminator) - 1)
            edits.append((t_start, item.span.end, filler))
        arms.append(
            CaseArm(
                head=(lo, hi),
                patterns=tuple((p.span.start, p.span.end) for p in item.patterns),
                span=(item.span.start, item.span.end),
                terminator=terminator,
            )
        )
    return Mask(
        "case",
        start,
        end,
        tuple(keep),
        edits=tuple(edits),
        case=CaseLayout(subject=(subject.start, subject.end), arms=tuple(arms)),
    )


def _select(command: For, text: str) -> Mask | None:
    """
    ``select NAME …`` becomes ``for    NAME …``: the same loop header, which bashlex reads.

    Its words and body stay as written, so bashlex reads and places each.
    """
    start = command.span.start
    if not text.startswith("select", start):
        return None
    return Mask("select", start, start + 6, (), edits=((start, start + 6, "for   "),))


def _arith_for(command: ArithFor, text: str) -> Mask | None:
    """The mask of a ``for (( ; ; ))`` header, or ``None`` when its shape is not the usual one."""
    open_at = text.find("((", command.span.start)
    if open_at < 0:
        return None
    depth = 0
    close_at = -1
    separators: list[int] = []
    for index in range(open_at + 2, command.span.end):
        char = text[index]
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                close_at = index
                break
            depth -= 1
        elif char == ";" and depth == 0:
            separators.append(index)
    if close_at < 0 or len(separators) != 2 or not text.startswith("))", close_at):
        return None
    bounds = [
        open_at + 2,
        separators[0],
        separators[0] + 1,
        separators[1],
        separators[1] + 1,
        close_at,
    ]
    expressions = ((bounds[0], bounds[1]), (bounds[2], bounds[3]), (bounds[4], bounds[5]))
    keep = tuple(span for expression in command.expressions for span in _subs_in((expression,)))
    if any(start < open_at + 5 for start, _ in keep) or close_at + 2 - open_at < 6:
        return None
    return Mask("arith_for", open_at, close_at + 2, keep, expressions)


def apply_masks(text: str, masks: Sequence[Mask]) -> str:
    """Return ``text`` with every mask applied; the length and every kept span are unchanged."""
    if not masks:
        return text
    chars = list(text)
    # Outer masks first; each leaves its own kept spans alone, and a mask
    # found inside a kept substitution is applied after it.
    for mask in masks:
        if mask.edits:
            for start, end, written in mask.edits:
                chars[start:end] = written
            continue
        kept = {index for start, end in mask.keep for index in range(start, end)}
        for index in range(mask.start, mask.end):
            if index in kept:
                continue
            char = chars[index]
            if mask.kind == "test":
                if index in (mask.end - 2, mask.end - 1):
                    chars[index] = " "
                elif index == mask.start:
                    chars[index] = ":"
                elif index == mask.start + 1 or char == "\n":
                    chars[index] = " "
                elif char in _OPERATOR_CHARACTERS:
                    chars[index] = "0"
            elif mask.kind == "arith_command":
                chars[index] = (
                    ":" if index == mask.start else " " if index == mask.start + 1 else "0"
                )
            elif mask.kind == "arithmetic":
                chars[index] = "0"
            elif mask.kind in ("time", "coproc"):
                chars[index] = " "
            elif mask.kind == "array":
                if char in " \t\n()" or index >= mask.end - 1 or mask.expressions:
                    chars[index] = "_"
            else:
                offset = index - mask.start
                chars[index] = "x in "[offset] if offset < 5 else "0"
    return "".join(chars)
