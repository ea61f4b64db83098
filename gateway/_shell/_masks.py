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
  and the header of ``for (( … ))`` becomes ``x in 000…``.

The neutral tree is still built from the *original* text by the project's
own word scanner. If tree-sitter misplaced a construct, the mask changes what
bashlex reads and the consensus comparison fails: a mask can turn a reading
unmeasured, never make a misreading agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Literal, NamedTuple

from gateway._shell._tree import (
    ArithCommand,
    ArithFor,
    Arithmetic,
    CommandSubstitution,
    Heredoc,
    Node,
    Part,
    ProcessSubstitution,
    Program,
    Test,
    walk,
    walk_parts,
)

__all__ = ["Mask", "apply_masks", "find_masks"]

MaskKind = Literal["test", "arith_command", "arithmetic", "arith_for"]
_OPERATOR_CHARACTERS: Final = frozenset("&|<>()!;")


class Mask(NamedTuple):
    """One construct to mask: what, where, which spans inside stay verbatim, and (``for``) its expressions."""

    kind: MaskKind
    start: int
    end: int
    keep: tuple[tuple[int, int], ...]
    expressions: tuple[tuple[int, int], ...] = ()


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
    return tuple(sorted(masks, key=lambda mask: (mask.start, -mask.end)))


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
            else:
                offset = index - mask.start
                chars[index] = "x in "[offset] if offset < 5 else "0"
    return "".join(chars)
