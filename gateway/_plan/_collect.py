"""
Collecting the effects of one command: its words as values, its paths resolved, in order.

An `EffectSink` is what every reader of effects in the planner writes to
(redirects, builtins, launchers, program facts, number sites): it knows the
scope the command runs in, how to resolve a word to the paths it names, where
a value comes from, and how to mask a secret in anything it publishes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

import msgspec

from gateway._calls._effects import (
    Bind,
    BindVia,
    Effect,
    EffectPath,
    Execute,
    Opaque,
    Origin,
    Read,
    ReadEnvironment,
    Write,
    WriteAction,
)
from gateway._plan._numbers import NUMBER, Numbers, runs_code
from gateway._plan._paths import (
    HOME,
    PathContext,
    climbs_past_name,
    effect_path,
    expand_word,
    join,
    literal_text,
    role_path,
)
from gateway._plan._scope import Scope, Values
from gateway._read._tree import Tilde, Word

__all__ = ["EffectSink", "unmasked"]

_ENVIRON: Final = re.compile(r"/proc/[^/]+(?:/task/[^/]+)?/environ")
_ASSIGNS: Final[frozenset[BindVia]] = frozenset(
    {
        "assignment",
        "export",
        "declare",
        "local",
        "readonly",
        "read",
        "mapfile",
        "printf",
        "default",
        "for",
        "select",
        "getopts",
    }
)
"""
The binding forms that give a variable a value: bash evaluates one given to an
integer variable as arithmetic. Not a prefix assignment (``x=v cmd``: bash
puts it in the command's environment unevaluated), nor a bind of a number bash
made (``(( ))``, ``{fd}>``, ``wait -p``).
"""


def unmasked(text: str) -> str:
    """The scrub of a source that holds no secret: every string is published as it is."""
    return text


class EffectSink:
    """
    The effects of one command (or of a statement's own syntax), in the order bash has them.

    Attributes:
        scope: The scope the command runs in (changed by what it binds).
        paths: The call's path context.
        scrub: Masks the source's secrets in a string published from it.
        written: A word's source text, masked, for display.
        found: The effects so far.
        numbers: The number sites, writing to ``found``.
    """

    __slots__ = ("found", "numbers", "paths", "placeholders", "scope", "scrub", "written")

    def __init__(
        self,
        scope: Scope,
        paths: PathContext,
        scrub: Callable[[str], str],
        written: Callable[[Word], str],
    ) -> None:
        self.scope = scope
        self.paths = paths
        self.scrub = scrub
        self.written = written
        self.found: list[Effect] = []
        self.numbers = Numbers(scope, scrub)
        self.numbers.found = self.found
        self.placeholders: frozenset[int] = frozenset()
        """Offsets of words another program fills in (``find -exec … {}``): their values are unknown."""

    def add(self, effect: Effect) -> None:
        """Record one effect."""
        self.found.append(effect)

    def opaque(self, reason: str, option: str | None = None) -> None:
        """Record that the command's effects cannot all be stated."""
        self.add(
            Opaque(reason=self.scrub(reason), option=None if option is None else self.scrub(option))
        )

    # ── values ──

    def values(self, word: Word) -> Values:
        """The literal values a word may expand to, as far as the text shows (``None``: unknown)."""
        if word.span.start in self.placeholders:
            return None
        resolved = expand_word(word, self.scope)
        if resolved.values is None or resolved.pattern:
            return None
        if any(NUMBER in v for v in resolved.values):
            return None
        return frozenset(resolved.values)

    def origin(self, word: Word | None) -> tuple[Origin, Values]:
        """Where a word's value comes from, and its values when known."""
        if word is None:
            return "literal", frozenset({""})
        if word.span.start in self.placeholders:
            return "unknown", None
        if word.value is not None:
            return "literal", frozenset({word.value})
        values = self.values(word)
        return ("unknown", None) if values is None else ("call_bound", values)

    def shown(self, values: Values) -> str | None:
        """A bound value to publish: the one value (secrets masked), else ``None``."""
        if values is None or len(values) != 1:
            return None
        value = next(iter(values))
        return self.scrub(value.replace(HOME, "~"))

    # ── paths ──

    def paths_of(
        self,
        word: Word | None,
        *,
        value: str | None = None,
        written: str | None = None,
        directories: Sequence[str | None] | None = None,
        recursive: bool = False,
        pattern: bool = False,
        within: str | None = None,
    ) -> list[EffectPath]:
        """
        The paths a word (or a literal ``value``) names, resolved against the working directory.

        One `EffectPath` per value the word may have and per candidate
        directory; one unknown path when the value is not known. ``pattern``
        makes a literal value a glob; ``within`` (``git_dir``, ``work_tree``)
        says the value is relative to a directory only the repository knows.
        """
        shown = (
            written
            if written is not None
            else (self.written(word) if word else (value or "").replace(HOME, "~"))
        )
        shown = self.scrub(shown)
        if within is not None:
            if value is None:
                return [effect_path(shown, None, self.paths)]
            return [self._masked(role_path(shown, value, self.paths))]
        if value is not None:
            texts: Sequence[str] | None = (value,)
        elif word is not None and word.span.start not in self.placeholders:
            resolved = expand_word(word, self.scope)
            texts, pattern = resolved.values, resolved.pattern
        else:
            texts = None
        if texts is None or "" in texts or any(NUMBER in text for text in texts):
            return [effect_path(shown, None, self.paths)]
        plain = not pattern and (
            written == value
            if value is not None
            else word is not None
            and all(
                literal_text(part) is not None
                or (at == 0 and isinstance(part, Tilde) and part.text == "~")
                for at, part in enumerate(word.parts)
            )
        )
        if not plain and any(climbs_past_name(text) for text in texts):
            # Where `name/..` leads only the disk tells, and the disk is looked at
            # for plain text alone (and a leading `~`): an expansion or a glob
            # that climbs is unknown.
            return [effect_path(shown, None, self.paths)]
        bases = self.scope.directories if directories is None else directories
        found: dict[str | None, None] = {}
        for text in texts:
            for base in bases:
                found[join(base, text)] = None
        return [
            self._masked(
                effect_path(
                    shown,
                    path,
                    self.paths,
                    recursive=recursive,
                    pattern=pattern,
                    options=self.scope.globbing,
                )
            )
            for path in found
        ]

    def _masked(self, path: EffectPath) -> EffectPath:
        """The path with the source's secrets masked in its value too (`gzip ~/$TOKEN`)."""
        if path.value is None or self.scrub is unmasked:
            return path
        value = self.scrub(path.value)
        return path if value == path.value else msgspec.structs.replace(path, value=value)

    def located(self, path: str | None, written: str) -> EffectPath:
        """The `EffectPath` of a path already resolved (``None``: unknown)."""
        return self._masked(effect_path(self.scrub(written), path, self.paths))

    def read(
        self,
        word: Word | None,
        via: str,
        *,
        value: str | None = None,
        directories: Sequence[str | None] | None = None,
        recursive: bool = False,
        metadata: bool = False,
        within: str | None = None,
    ) -> None:
        """
        The command reads the file(s) a word names.

        A read of names only (``metadata``: ``find /``, ``du -sh ~``, ``ls -R``)
        takes the classes of the path it names, not of what lies below it: it
        lists the names of the files there and reads none of their contents.
        """
        below = recursive and not metadata
        for path in self.paths_of(
            word, value=value, directories=directories, recursive=below, within=within
        ):
            self.add(Read(path=path, via=self.scrub(via), recursive=recursive, metadata=metadata))
            if not metadata and path.value is not None and _ENVIRON.fullmatch(path.value):
                self.add(ReadEnvironment(via=self.scrub(via)))  # a process's whole environment

    def write(
        self,
        word: Word | None,
        via: str,
        action: WriteAction,
        *,
        value: str | None = None,
        directories: Sequence[str | None] | None = None,
        recursive: bool = False,
        pattern: bool = False,
        within: str | None = None,
    ) -> None:
        """The command changes the file(s) a word names."""
        for path in self.paths_of(
            word,
            value=value,
            directories=directories,
            recursive=recursive,
            pattern=pattern,
            within=within,
        ):
            self.add(Write(path=path, via=self.scrub(via), action=action, recursive=recursive))

    # ── bindings ──

    def bind(
        self,
        name: str | None,
        via: BindVia,
        origin: Origin,
        values: Values = None,
        *,
        text: str | None = None,
        apply: bool = True,
        keeps: bool = False,
    ) -> None:
        """
        The command binds ``name`` (``None``: a name only known at run time) to ``values``.

        A value given to a variable with the integer attribute is evaluated
        as arithmetic here, whatever the binding form (``keeps``: only the
        variable's attributes change, it keeps its value: ``export x``).
        """
        shown = text if text is not None else self.shown(values)
        self.add(
            Bind(
                name=None if name is None else self.scrub(name),
                via=via,
                origin=origin,
                text=None if shown is None else self.scrub(shown),
            )
        )
        if not apply:
            return
        if name is None:
            self.scope.forget_variables()
            return
        if via in _ASSIGNS and not keeps and self.scope.integer(name):
            self.numbers.assigned(f"{via} into integer {self.scrub(name)}", origin, values)
            values = frozenset({NUMBER})
        if (
            name == "PS4"
            and via in _ASSIGNS
            and not keeps
            and (values is None or any(runs_code(value) for value in values))
        ):
            # Under `set -x` (given here, later, or from outside) bash expands
            # PS4 before every command it traces: a `$( )` in it runs.
            self.add(
                Execute(
                    kind="expansion",
                    via="$PS4 (expanded before each traced command)",
                    text=None if shown is None else self.scrub(shown),
                    origin=origin,
                )
            )
        self.scope.bind(name, values)
