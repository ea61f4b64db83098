"""
The source text being read, with conversion between character and byte offsets.

tree-sitter speaks UTF-8 byte offsets and bashlex speaks string indices; the
neutral tree records both. One `Source` is built per read and shared by every
module that needs to turn an offset into a `Span`.
"""

from __future__ import annotations

from bisect import bisect_right

from gateway._read._tree import Span

__all__ = ["Source"]


class Source:
    """
    Text plus the offset tables to move between characters and UTF-8 bytes.

    For pure-ASCII text (most commands) both offsets are equal and no table is
    built.
    """

    __slots__ = ("_byte_of_char", "data", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8", "strict")
        if len(self.data) == len(text):
            self._byte_of_char: list[int] | None = None
            return
        byte_of_char = [0] * (len(text) + 1)
        position = 0
        for index, char in enumerate(text):
            byte_of_char[index] = position
            code = ord(char)
            position += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        byte_of_char[len(text)] = position
        self._byte_of_char = byte_of_char

    @property
    def ascii(self) -> bool:
        """Every character is one byte: a character offset is its byte offset (most commands)."""
        return self._byte_of_char is None

    def byte_of(self, char_offset: int) -> int:
        """Return the byte offset of a character offset."""
        if self._byte_of_char is None:
            return char_offset
        return self._byte_of_char[char_offset]

    def char_of(self, byte_offset: int) -> int:
        """Return the character offset of a byte offset (a byte inside a character maps to it)."""
        if self._byte_of_char is None:
            return byte_offset
        return bisect_right(self._byte_of_char, byte_offset) - 1

    def span(self, start: int, end: int) -> Span:
        """Return the `Span` of the characters ``start`` to ``end``."""
        table = self._byte_of_char  # looked up here, not through `byte_of`: spans are many
        if table is None:
            return Span(start=start, end=end, start_byte=start, end_byte=end)
        return Span(start=start, end=end, start_byte=table[start], end_byte=table[end])

    def byte_span(self, start_byte: int, end_byte: int) -> Span:
        """Return the `Span` of the bytes ``start_byte`` to ``end_byte``."""
        start = self.char_of(start_byte)
        end = self.char_of(end_byte)
        return Span(start=start, end=end, start_byte=start_byte, end_byte=end_byte)

    def slice(self, start: int, end: int) -> str:
        """Return the characters ``start`` to ``end``."""
        return self.text[start:end]
