"""
The registry of readers for programs with a language of their own (awk, sed, jq, find, git).

`gateway._programs.read_arguments` consults this mapping before the option
tables: a program listed here is read by its own reader, which tokenizes its
program text instead of matching it. A reader takes the argument values after
the program word (``None`` for a word that expands), and what is known of
the expanding words, and returns an `ArgumentReading`; it is pure and linear
in its input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from types import MappingProxyType
from typing import Final, Protocol

from gateway._programs import ArgumentReading
from gateway._programs._awk import read_awk
from gateway._programs._find import read_find
from gateway._programs._git import read_git
from gateway._programs._jq import read_jq
from gateway._programs._sed import read_sed

__all__ = ["LANGUAGE_READERS", "LanguageReader"]


class LanguageReader(Protocol):
    """
    A language reader: ``(basename, argv after the program word) -> ArgumentReading``.

    ``one_word`` and ``no_dash`` say of expanding words what
    `gateway._programs.read_arguments` says; a reader that does not use them
    reads every expanding word as possibly several words, any of which may
    begin with a dash.
    """

    def __call__(
        self,
        program: str,
        args: Sequence[str | None],
        /,
        *,
        one_word: Set[int] = ...,
        no_dash: Set[int] = ...,
    ) -> ArgumentReading: ...


LANGUAGE_READERS: Final[Mapping[str, LanguageReader]] = MappingProxyType(
    {
        "awk": read_awk,
        "gawk": read_awk,
        "mawk": read_awk,
        "nawk": read_awk,
        "original-awk": read_awk,
        "find": read_find,
        "gfind": read_find,
        "git": read_git,
        "jq": read_jq,
        "gojq": read_jq,
        "jaq": read_jq,
        "sed": read_sed,
        "gsed": read_sed,
    }
)
"""Basename → reader, for every program read by a language reader."""
