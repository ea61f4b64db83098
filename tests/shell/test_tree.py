"""
The tree's own walkers: `walk` reaches every node the tree holds, `walk_parts` every part of a word.

Both are checked against a walk that knows nothing of the node kinds (it
follows every msgspec field), over generated shell read by the tree-sitter
reader alone — so a construct only one reader admits is covered too, and a
node kind added to the tree without a line in `children` fails here.
"""

from __future__ import annotations

import typing
from collections import Counter

import msgspec
from hypothesis import given, strategies as st

from gateway._read._source import Source
from gateway._read._tree import (
    _CHILDREN,
    CommandSubstitution,
    Node,
    Part,
    ProcessSubstitution,
    Program,
    Word,
    walk,
    walk_parts,
)
from gateway._read._treesitter import read_with_tree_sitter
from gateway._read._words import Unreadable
from shell.test_properties import PROPERTY_SETTINGS, SHELL
from shell.walk import measured, nodes

NODE_TYPES = tuple(
    kind for member in typing.get_args(Node) for kind in (typing.get_args(member) or (member,))
)
PART_TYPES = typing.get_args(Part)
EXTRA = st.sampled_from(
    [
        "case $x in a|b) echo $(id);; *) ls ${y[$(z)]};& esac",
        'a[$((1+2))]=x b=(1 $(two) "${c:-$(three)}") cmd',
        "for ((i=$(a); i<3; i++)); do [[ -n $(b) && $c == d ]]; (( e[$(f)] )); done",
        "f() { g <<EOF > $(h)\n$(i) ${j:+$(k)}\nEOF\n}",
        "echo {a,$(b)} ${#x} ${!y} ${z/$(p)/q} $'\\x41' $\"t\"",
    ]
)


def _tree(text: str) -> Program | None:
    try:
        return read_with_tree_sitter(Source(text))
    except (Unreadable, RecursionError):
        return None


def _identities(items: typing.Iterable[object]) -> Counter[int]:
    return Counter(id(item) for item in items)


@PROPERTY_SETTINGS
@given(st.one_of(SHELL, EXTRA))
def test_walk_reaches_every_node_of_the_tree(text: str) -> None:
    program = _tree(text)
    if program is None:
        return
    expected = [node for node in nodes(program) if isinstance(node, NODE_TYPES)]
    assert _identities(walk(program)) == _identities(expected)


@PROPERTY_SETTINGS
@given(st.one_of(SHELL, EXTRA))
def test_walk_parts_reaches_every_part_outside_substitution_bodies(text: str) -> None:
    program = _tree(text)
    if program is None:
        return
    for word in (node for node in walk(program) if isinstance(node, Word)):
        expected: list[msgspec.Struct] = []
        stack: list[object] = list(reversed(word.parts))
        while stack:
            item = stack.pop()
            if isinstance(item, PART_TYPES):
                expected.append(item)
                if isinstance(item, CommandSubstitution | ProcessSubstitution):
                    continue
            if isinstance(item, msgspec.Struct):
                fields = [getattr(item, f) for f in type(item).__struct_fields__]
                stack.extend(reversed(fields))
            elif isinstance(item, tuple):
                stack.extend(reversed(item))
        assert _identities(walk_parts(word.parts)) == _identities(expected)


def test_the_children_table_has_one_row_for_each_node_kind() -> None:
    assert set(_CHILDREN) == set(NODE_TYPES)
    assert len(NODE_TYPES) == len(set(NODE_TYPES))


def test_walk_yields_in_source_order_within_a_command() -> None:
    program = measured('A=$(a) cmd "$(b)" ${c:-$(d)} > "$(e)"')
    order = [node.span.start for node in walk(program) if isinstance(node, CommandSubstitution)]
    assert order == sorted(order)
    assert len(order) == 4


def test_walk_can_skip_what_is_below_a_node() -> None:
    program = measured("echo $(a $(b)) $(c)")
    outer = [
        node
        for node in walk(program, lambda node: not isinstance(node, CommandSubstitution))
        if isinstance(node, CommandSubstitution)
    ]
    assert [s.span.start for s in outer] == [5, 15]


def test_walk_of_a_long_pipeline_needs_no_recursion() -> None:
    text = " | ".join(["cat"] * 5_000)
    program = _tree(text)
    assert program is not None
    assert sum(1 for node in walk(program) if isinstance(node, Word)) == 5_000
