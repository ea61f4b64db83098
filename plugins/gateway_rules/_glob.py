"""
Globs over agent text, matched in linear time.

A rule's globs are matched against values an agent wrote (paths, hosts,
arguments, variable names), and an agent can write them to be slow: a
backtracking matcher (``fnmatch``, ``re``) on ``*a*a*a*b`` against 60,000
``a`` takes exponential or polynomial time. A `Glob` is compiled once, when
its rule loads, into a small automaton, and matching runs it over the text
once, carrying the set of states it may be in: at most (pattern length + 1)
steps per character, whatever the text.

Two flavours:

* **path** globs, for resolved paths: ``*`` and ``?`` never match ``/``;
  ``**/`` spans any number of directories (``**/.env`` is every ``.env``);
  a trailing ``/**`` matches the directory itself and everything below it;
  ``**`` elsewhere matches anything. The same spellings as the ``[paths]``
  table's patterns.
* **plain** globs, for arguments, hosts and names: ``*`` matches anything,
  ``?`` one character.

Both know ``[abc]``, ``[a-z]`` and ``[!…]`` (or ``[^…]``) classes; a ``[``
without its ``]`` is a literal.
"""

from __future__ import annotations

from typing import Final, NamedTuple

__all__ = ["Glob", "compile_glob"]

_LITERAL: Final = 0
_ANY: Final = 1
_CLASS: Final = 2
_STAR: Final = 3
"""``*``: any run of characters (not ``/`` in a path glob)."""
_DEEP: Final = 4
"""``**/`` in a path glob: nothing, or anything that ends with ``/``."""
_SPAN: Final = 5
"""``**`` elsewhere, or a trailing ``/**`` after its ``/``: anything, ``/`` included."""
_TAIL: Final = 6
"""A trailing ``/**`` in a path glob: nothing, or ``/`` and anything after it."""


class _Step(NamedTuple):
    kind: int
    char: str = ""
    ranges: tuple[tuple[str, str], ...] = ()
    negated: bool = False


def _class(pattern: str, start: int) -> tuple[_Step, int] | None:
    """The class that starts at ``pattern[start] == "["`` and the index after it, or ``None``."""
    index = start + 1
    negated = index < len(pattern) and pattern[index] in "!^"
    if negated:
        index += 1
    first = index
    ranges: list[tuple[str, str]] = []
    while index < len(pattern):
        char = pattern[index]
        if char == "]" and index > first:
            return _Step(_CLASS, ranges=tuple(ranges), negated=negated), index + 1
        if index + 2 < len(pattern) and pattern[index + 1] == "-" and pattern[index + 2] != "]":
            ranges.append((char, pattern[index + 2]))
            index += 3
        else:
            ranges.append((char, char))
            index += 1
    return None


def _steps(pattern: str, *, path: bool) -> tuple[_Step, ...]:
    steps: list[_Step] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            end = index
            while end < len(pattern) and pattern[end] == "*":
                end += 1
            double = end - index >= 2
            if path and double:
                at_start = index == 0 or pattern[index - 1] == "/"
                if at_start and end < len(pattern) and pattern[end] == "/":
                    steps.append(_Step(_DEEP))
                    index = end + 1
                    continue
                if at_start and end == len(pattern) and index > 0:
                    steps.pop()  # the "/" before it belongs to the tail
                    steps.append(_Step(_TAIL))
                    index = end
                    continue
            steps.append(_Step(_SPAN if (double or not path) else _STAR))
            index = end
        elif char == "?":
            steps.append(_Step(_ANY))
            index += 1
        elif char == "[":
            found = _class(pattern, index)
            if found is None:
                steps.append(_Step(_LITERAL, "["))
                index += 1
            else:
                steps.append(found[0])
                index = found[1]
        else:
            steps.append(_Step(_LITERAL, char))
            index += 1
    return tuple(steps)


class Glob:
    """
    A compiled glob: `matches` runs in time linear in the text.

    The glob is an automaton of a few states per step; matching carries the
    set of states it may be in as a bit mask, and remembers the move for each
    (mask, character) it has seen, so a long text costs one dictionary
    lookup a character once its masks repeat.

    Attributes:
        pattern: The glob as written.
        path: Whether it is a path glob (``*`` stops at ``/``; ``**`` spans directories).
    """

    __slots__ = ("_accept", "_closure", "_moves", "_start", "_steps", "path", "pattern")

    _MEMORY: Final = 4096
    """Moves remembered per glob before the memory starts again (it only saves time)."""

    def __init__(self, pattern: str, *, path: bool) -> None:
        self.pattern = pattern
        self.path = path
        self._steps = _steps(pattern, path=path)
        end = len(self._steps)
        # States: 0..end are "before step i" (end: matched); end + 1 is below a
        # trailing `/**`; end + 2 + i is inside the `**/` of step i.
        closure: list[int] = []
        for state in range(2 * end + 2):
            mask = 1 << state
            reach = state
            while reach < end and self._steps[reach].kind in (_STAR, _DEEP, _SPAN, _TAIL):
                reach += 1
                mask |= 1 << reach
            closure.append(mask)
        self._closure = tuple(closure)
        self._start = closure[0]
        self._accept = (1 << end) | (1 << (end + 1))
        self._moves: dict[tuple[int, str], int] = {}

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r}, path={self.path})"

    def _fits(self, step: _Step, char: str) -> bool:
        if step.kind == _LITERAL:
            return char == step.char
        if self.path and char == "/":
            return False
        if step.kind == _ANY:
            return True
        inside = any(low <= char <= high for low, high in step.ranges)
        return inside != step.negated

    def _move(self, mask: int, char: str) -> int:
        steps = self._steps
        end = len(steps)
        below = end + 1
        reached: list[int] = []
        state = 0
        while mask:
            if mask & 1:
                if state == below:
                    reached.append(below)
                elif state > below:
                    deep = state - end - 2
                    reached.append(state)
                    if char == "/":
                        reached.append(deep + 1)
                elif state < end:
                    step = steps[state]
                    kind = step.kind
                    if kind == _STAR:
                        if not (self.path and char == "/"):
                            reached.append(state)
                    elif kind == _SPAN:
                        reached.append(state)
                    elif kind == _DEEP:
                        reached.append(end + 2 + state)
                        if char == "/":
                            reached.append(state + 1)
                    elif kind == _TAIL:
                        if char == "/":
                            reached.append(below)
                    elif self._fits(step, char):
                        reached.append(state + 1)
            mask >>= 1
            state += 1
        following = 0
        for target in reached:
            following |= self._closure[target]
        return following

    def matches(self, text: str) -> bool:
        """True when the whole of ``text`` matches."""
        moves = self._moves
        mask = self._start
        for char in text:
            key = (mask, char)
            following = moves.get(key)
            if following is None:
                if len(moves) >= self._MEMORY:
                    moves.clear()
                following = moves[key] = self._move(mask, char)
            if not following:
                return False
            mask = following
        return bool(mask & self._accept)


def compile_glob(pattern: str, *, path: bool) -> Glob:
    """
    Compile a glob.

    Examples:
        >>> compile_glob("**/.env", path=True).matches("/work/app/.env")
        True
        >>> compile_glob("~/.ssh/**", path=True).matches("~/.ssh")
        True
        >>> compile_glob("/etc/*", path=True).matches("/etc/cron.d/job")
        False
        >>> compile_glob("-*e*", path=False).matches("-le")
        True
    """
    return Glob(pattern, path=path)
