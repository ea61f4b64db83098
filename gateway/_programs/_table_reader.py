"""
The table reader: argv, read with a `ProgramRow`, becomes an `ArgumentReading`.

One pass over the words with the option scanner (`gateway._programs._option_scanner`),
as the program's own option parser would make it, the row being its grammar;
this module keeps what the options and operands mean (subcommands, modes,
facts). Then one pass gives each operand its role (read, written, run…) from
its position and the modes the options select. Pure and linear: a word is
looked at a bounded number of times, and a long option is found by bisection.

An expanding word (``None``) is never guessed. Where an option could stand it
makes the reading unreadable, unless the caller knows it cannot begin with a
dash; where it may be several words (or none) every operand whose position it
could shift gets every role it could have.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from typing import Final

import msgspec

from gateway._programs import ArgumentFact, ArgumentReading
from gateway._programs._option_scanner import Lookup, Met, OptionScan, argument, option_lookup
from gateway._programs._rows import Effect, Implicit, Mode, Operands, Option, ProgramRow, Role
from gateway._programs._socat import socat_address_effects
from gateway._programs._ssh import ssh_option_effect

__all__ = ["read_row"]

_PAGER_MOVE: Final = re.compile(r"[0-9]*[gGp%]?|[/?][^\x00-\x1f]*")
_FOLLOWS: Final = Effect(kind="lifetime", action="unbounded")


class _Operand(msgspec.Struct, frozen=True):
    at: int
    value: str | None
    several: bool  # an expansion that may be no word or several


_NO_FACT: Final = object()
_REMOTE_ARCHIVE: Final = Effect(kind="network", action="connect")
_ONE_VARIABLE: Final = Effect(kind="read_environment")
_READ: Final = Effect(kind="read")
_STDIN_CODE: Final = Effect(kind="execute", action="code", fixed=True)  # value: none
_WRITES_UNNAMED: Final = Effect(kind="write", action="write")
_OUTPUT_FILE: Final = re.compile(r"%output\{([^}]*)\}")
_REMOTE_HOST: Final = re.compile(
    r"(?:rsync|scp|sftp)://(?:[^@/]*@)?([^:/]+)|([^/:][^/:]*)::?.*", re.DOTALL
)


def _option_target(effect: Effect, value: str | None, *, given: bool) -> str | object | None:
    """The fact value an option's value names, or `_NO_FACT` when this value names nothing."""
    if not given or effect.fixed:
        return effect.value
    if effect.form in ("value", "archive"):
        return value
    if value is None:
        return None
    match effect.form:
        case "at_file" | "header_file":
            return value[1:] if value.startswith("@") else _NO_FACT
        case "form_file":
            _, equals, rest = value.partition("=")
            if equals and rest[:1] in ("@", "<"):
                return rest[1:].split(";", 1)[0]
            return _NO_FACT
        case "urlencode_file":
            at_sign, equals_sign = value.find("@"), value.find("=")
            if at_sign < 0 or (0 <= equals_sign < at_sign):
                return _NO_FACT
            return value[at_sign + 1 :]
        case "write_out":
            return _NO_FACT
        case "bind_mount":
            source = value.split(":", 1)[0]
            return source if source.startswith(("/", ".", "~")) else _NO_FACT
        case "mount_spec":
            fields: dict[str, str] = {}
            for part in value.split(","):
                key, _, setting = part.partition("=")
                fields[key.strip()] = setting
            bound = fields.get("source") or fields.get("src")
            if fields.get("type") == "bind" and bound:
                return bound
            return _NO_FACT
        case "pager_command":
            return _NO_FACT if _PAGER_MOVE.fullmatch(value) or value == "F" else value
        case "pass_source":
            return value[5:] if value.startswith("file:") else _NO_FACT
        case "cookie_file":
            return _NO_FACT if "=" in value else value
        case _:  # "key_value"
            _, equals, rest = value.partition("=")
            return rest if equals else _NO_FACT


class _Scan(OptionScan):
    """The state of one reading, and what its options and operands say; `read_row` drives it."""

    def __init__(
        self,
        program: str,
        row: ProgramRow,
        argv: Sequence[str | None],
        one_word: Set[int],
        no_dash: Set[int],
    ) -> None:
        super().__init__(argv, one_word=one_word, no_dash=no_dash)
        self.program = program
        self.rows: list[ProgramRow] = [row]
        self.subcommand: list[str] = []
        self.options: list[str] = []
        self.named: set[str] = set(row.implied)
        self.values: dict[
            str, str | None
        ] = {}  # each option's last value (`None`: none, or it expands)
        self.facts: list[tuple[int, ArgumentFact]] = []
        self.operands: list[_Operand] = []
        self.several = False  # an operand read so far may be no word or several
        self.ended_by_option = False
        self._lookup: Lookup | None = None  # of the rows as they are; a subcommand clears it
        self._layout: tuple[tuple[int, int], tuple[Operands, tuple[Implicit, ...]]] | None = (
            None  # the last `layout`, with the sizes it was found at
        )

    # ── where the reading is ──

    @property
    def row(self) -> ProgramRow:
        return self.rows[-1]

    def lookup(self) -> Lookup:
        if self._lookup is not None:
            return self._lookup
        if len(self.rows) == 1:
            self._lookup = option_lookup(self.rows)
            return self._lookup
        chain: list[ProgramRow] = [self.rows[-1]]
        for parent in reversed(self.rows[:-1]):
            if not chain[-1].inherit:
                break
            chain.append(parent)
        self._lookup = option_lookup(chain)
        return self._lookup

    def dashless_first(self, index: int) -> bool:
        return index == 0 and not self.subcommand

    def double_dash(self, index: int) -> None:
        if self.row.double_dash_arguments and not self.operands:
            self.halt(index + 1)  # the rest are arguments of the code read from standard input
            return
        super().double_dash(index)

    def expansion(self, index: int) -> None:
        if _inert(self.row):
            self.operand(index, None)
        else:
            super().expansion(index)

    def present(self) -> frozenset[str]:
        """The options given so far and those the rows imply (kept as the words are read)."""
        return frozenset(self.named)

    def mode(self) -> Mode | None:
        modes = self.row.modes
        if not modes:
            return None
        present = self.named
        for mode in modes:
            if mode.when <= present:
                return mode
        return None

    def layout(self) -> tuple[Operands, tuple[Implicit, ...]]:
        # The layout follows the rows and the options named; both only grow,
        # so their sizes say whether the last answer still holds.
        version = (len(self.rows), len(self.named))
        if self._layout is not None and self._layout[0] == version:
            return self._layout[1]
        mode = self.mode()
        found = (self.row.operands, ()) if mode is None else (mode.operands, mode.facts)
        self._layout = (version, found)
        return found

    # ── what the reading says ──

    def fact(
        self,
        index: int | None,
        effect: Effect,
        via: str,
        value: str | None,
        words: tuple[int, int] | None = None,
    ) -> None:
        self.facts.append(
            (
                len(self.argv) if index is None else index,
                ArgumentFact(
                    kind=effect.kind,
                    via=via,
                    index=index,
                    value=value,
                    action=effect.action,
                    recursive=effect.recursive,
                    prefix=effect.prefix,
                    words=words,
                ),
            )
        )

    def option(
        self, option: Option, index: int, value: str | None, *, given: bool, plus: bool = False
    ) -> None:
        """Record an option met at ``index``; ``value`` is its value when ``given``."""
        name = "+" + option.name[1:] if plus else option.name
        self.options.append(name)
        self.named.add(name)
        self.values[name] = value if given else None
        effect = option.effect
        if effect is not None:
            if effect.form == "ssh_option":
                self._ssh_option(option, index, value, given=given)
            else:
                target = _option_target(effect, value, given=given)
                # A fixed value is the program's own file (`~/.profile`), not the
                # option word's; a read with no value given names no word (`zip -@`
                # reads the files standard input names).
                unnamed = not given and target is None and effect.kind == "read"
                own = None if (effect.fixed and effect.value is not None) or unnamed else index
                if target is not _NO_FACT:
                    self.fact(own, effect, name, target if target is None else str(target))
                if given and value is not None:
                    self._value_facts(effect, index, name, value)
        for extra in option.also:
            # Without a value of its own, what it names no word shows (`tar -T LIST`).
            self.fact(index if extra.value is not None else None, extra, name, extra.value)
        if option.ends_options:
            self.halt(index + 1)
            self.ended_by_option = True

    def met(self, met: Met) -> None:
        self.option(met.option, met.at, met.value, given=met.given, plus=met.plus)

    def _value_facts(self, effect: Effect, index: int, name: str, value: str) -> None:
        """Facts a value gives beyond its target: ``env:VAR`` reads VAR; ``HOST:FILE`` connects."""
        if effect.form == "write_out":
            if value.startswith("@"):
                self.fact(index, _READ, name, value[1:])
                self.fact(index, _WRITES_UNNAMED, name, None)
            for target in _OUTPUT_FILE.findall(value):
                self.fact(index, _WRITES_UNNAMED, name, target.removeprefix(">>"))
        elif effect.form == "pager_command" and value == "F":
            self.fact(index, _FOLLOWS, name, None)
        elif effect.form == "pass_source" and value.startswith("env:"):
            self.fact(index, _ONE_VARIABLE, name, value[4:])
        elif effect.form == "archive":
            host, colon, path = value.partition(":")
            if colon and host and "/" not in host and path:
                self.fact(index, _REMOTE_ARCHIVE, name, host)

    def _ssh_option(self, option: Option, index: int, value: str | None, *, given: bool) -> None:
        if not given or value is None:
            self.cannot(f"the value of `{option.name}` is an expansion, so its setting is unknown")
            return
        key = value.strip().split("=", 1)[0].split(None, 1)[0] if value.strip() else value
        result = ssh_option_effect(value)
        if result is None:
            self.refuse(f"{option.name} {key}")
            return
        effect, target = result
        if effect is not None:
            self.fact(index, effect, f"{option.name} {key}", target)

    def operand(self, index: int, value: str | None) -> None:
        """An operand at ``index``: a subcommand, the start of arguments, or an operand."""
        several = value is None and index not in self.one_word
        row = self.row
        if row.subcommands is not None:
            if value is None:
                self.cannot(f"the subcommand ({argument(index)}) is an expansion")
                return
            sub = row.subcommands.get(value)
            if sub is None:
                self.refuse(value)
                return
            self.subcommand.append(row.subcommand_names.get(value, value))
            self.rows.append(sub)
            self._lookup = None
            self.named |= sub.implied
            self.ended = False
            return
        position = len(self.operands)
        self.operands.append(_Operand(index, value, several))
        if not self.several:
            layout, _ = self.layout()
            if position < len(layout.head) and layout.head[position].arguments:
                self.several = several
                self.halt(index + 1)
                return
        self.several = self.several or several
        end_after = row.options_end_after
        if end_after is not None and len(self.operands) >= end_after and not self.ended:
            self.ended = True
            self.soft_end = self.several


def _inert(row: ProgramRow) -> bool:
    """
    Whatever an expansion spells, it changes nothing the reading states.

    True for a row whose unknown words are operands and whose options are all
    switches without effects (``echo``, ``test``): an expansion is then an
    operand or an option that does nothing the policy judges.
    """
    return (
        row.unknown_is_operand
        and not row.modes
        and not row.subcommands
        and row.operands.uniform
        and all(
            option.arity == 0
            and option.effect is None
            and not option.also
            and not option.ends_options
            for option in row.options.values()
        )
    )


# ───────────────────────── operand roles ─────────────────────────


def _roles(layout: Operands, operands: Sequence[_Operand]) -> list[list[Role]]:
    """Every role each operand could have, given the expansions that may shift positions."""
    count = len(operands)
    # One operand (most commands) is asked directly, without a walk over all of them.
    one_word = not operands[0].several if count == 1 else not any(o.several for o in operands)
    if one_word and not layout.prefixed and layout.slashed is None:
        # Every operand is one word: each has the one role its position gives.
        if count == 1 and layout.single is not None:
            return [[layout.single]]
        head, tail = layout.head, layout.tail
        return [
            [head[j]]
            if j < len(head)
            else [tail[count - 1 - j]]
            if count - 1 - j < len(tail)
            else [layout.rest]
            for j in range(count)
        ]
    several = [operand.several for operand in operands]
    total_several = sum(several)
    exactly_one = total_several == 0 and count == 1
    maybe_one = exactly_one or (total_several > 0 and count - total_several <= 1)
    head, tail = layout.head, layout.tail
    roles: list[list[Role]] = []
    before = 0
    for j, operand in enumerate(operands):
        after = total_several - before - several[j]
        found: list[Role] = []
        prefixed = [
            role
            for prefix, role in layout.prefixed
            if operand.value is None or operand.value.startswith(prefix)
        ]
        if layout.slashed is not None and (operand.value is None or "/" in operand.value):
            prefixed.append(layout.slashed)
        if operand.value is not None and prefixed:
            roles.append(prefixed)
            before += several[j]
            continue
        found.extend(prefixed)
        if exactly_one and layout.single is not None:
            roles.append([*found, layout.single])
            before += several[j]
            continue
        start_low = j - before
        start_open = before > 0 or operand.several
        end_low = (count - 1 - j) - after
        end_open = after > 0 or operand.several
        start_high = len(head) if start_open else min(start_low + 1, len(head))
        found.extend(head[s] for s in range(max(start_low, 0), start_high))
        if start_open or start_low >= len(head):
            end_high = len(tail) if end_open else min(end_low + 1, len(tail))
            found.extend(tail[e] for e in range(max(end_low, 0), end_high))
            if end_open or end_low >= len(tail):
                found.append(layout.rest)
        if maybe_one and layout.single is not None:
            found.append(layout.single)
        unique: list[Role] = []
        for candidate in found:
            if candidate not in unique:
                unique.append(candidate)
        roles.append(unique)
        before += several[j]
    return roles


def _basename(value: str) -> str:
    stripped = value.rstrip("/")
    return stripped.rsplit("/", 1)[-1] if stripped else value


def _suffixes(scan: _Scan) -> tuple[tuple[str, str], ...] | None:
    """
    The suffixes derived names add or remove, the added one first, each with its replacement.

    A suffix option's value comes before the row's own (``gunzip -S .x f.x``
    creates ``f``); ``None`` when it expands or is empty, so names are unknown.
    """
    row = scan.row
    own = tuple((strip, replace) for strip, _, replace in (s.partition(">") for s in row.suffixes))
    for name in row.suffix_options:
        if name in scan.values:
            given = scan.values[name]
            return ((given, ""), *own) if given else None
    return own or None


def _derived(
    effect: Effect, value: str | None, suffixes: tuple[tuple[str, str], ...] | None
) -> str | None:
    if value is None or effect.derive is None:
        return value
    if effect.derive == "basename":
        return _basename(value)
    if effect.derive == "template":
        return value.rstrip("X")
    if effect.derive == "after_at":
        return value.removeprefix("@")
    if suffixes is None:
        return None
    if effect.derive == "add_suffix":
        return value + suffixes[0][0]
    for strip, replace in suffixes:
        if value.endswith(strip) and len(value) > len(strip):
            return value[: -len(strip)] + replace
    return None


def _backup(effect: Effect) -> Effect:
    """The write of the backups kept of what ``effect`` writes in place: the paths that begin with it."""
    return msgspec.structs.replace(effect, action="create", prefix=True)


def _keeping_backups(layout: Operands) -> Operands:
    """The roles when the program keeps backups (`ProgramRow.backups`) of the files it writes in place."""

    def keeping(each: Role) -> Role:
        backups = tuple(_backup(effect) for effect in each.effects if effect.kind == "write")
        return msgspec.structs.replace(each, effects=(*each.effects, *backups))

    return msgspec.structs.replace(
        layout,
        tail=tuple(keeping(each) for each in layout.tail),
        single=None if layout.single is None else keeping(layout.single),
    )


def _into(directory: str | None, source: str | None, *, uncertain: bool) -> str | None:
    """The path ``source`` gets inside ``directory`` (``cp a b dir/`` writes ``dir/a``)."""
    if uncertain or directory is None or source is None:
        return None
    return f"{directory.rstrip('/')}/{_basename(source)}"


def _with_recursion(effect: Effect, *, recursive: bool) -> Effect:
    if recursive and effect.kind in ("write", "read") and not effect.recursive:
        return msgspec.structs.replace(effect, recursive=True)
    return effect


def _from_stdin(effects: tuple[Effect, ...]) -> tuple[Effect, ...]:
    """
    What an operand ``-`` does where the program reads it as standard input.

    A file read names no path (it is dropped); a script runs code from
    standard input; anything else (a file written) keeps the file ``./-``.
    """
    kept: list[Effect] = []
    for effect in effects:
        if effect.kind == "read" and effect.action is None and not effect.fixed:
            continue
        kept.append(
            _STDIN_CODE if effect.kind == "execute" and effect.action == "script" else effect
        )
    return tuple(kept)


def _operand_facts(scan: _Scan) -> None:
    row = scan.row
    layout, _ = scan.layout()
    present = scan.present()
    backups = bool(present & row.backups)
    if backups:
        layout = _keeping_backups(layout)
    recursive = any(present & each.recursive for each in scan.rows)
    suffixes = _suffixes(scan)
    operands = scan.operands
    if layout.keys is not None:
        _key_facts(scan, layout.keys, recursive=recursive)
        return
    if scan.ended_by_option:
        return  # the rest are the arguments of the code an option runs
    if not operands:
        for effect in layout.empty:
            scan.fact(
                None, _with_recursion(effect, recursive=recursive), "no operand", effect.value
            )
        return
    for operand, candidates in zip(operands, _roles(layout, operands), strict=True):
        stdin = row.dash_stdin and operand.value == "-"
        for candidate in candidates:
            words = (operand.at, len(scan.argv)) if candidate.arguments else None
            effects = _from_stdin(candidate.effects) if stdin else candidate.effects
            for effect in effects:
                if effect.form in ("remote_path", "socat_address"):
                    if not _address_facts(scan, operand, effect, recursive=recursive):
                        return
                    continue
                value = effect.value if effect.fixed else _derived(effect, operand.value, suffixes)
                # A name derived from a word but not known (`gzip -S "$s" f`), or
                # fixed without a value, is no word's.
                unknown = value is None and (
                    (operand.value is not None and effect.derive is not None)
                    or (effect.fixed and effect.kind in ("read", "write") and not effect.prefix)
                )
                scan.fact(
                    None if unknown else operand.at,
                    _with_recursion(effect, recursive=recursive),
                    "operand",
                    value,
                    words,
                )
    uncertain = any(operand.several for operand in operands)
    if layout.into and len(operands) > 1 and layout.tail:
        last = operands[-1]
        for operand in operands[:-1]:
            value = _into(last.value, operand.value, uncertain=uncertain)
            for effect in layout.tail[0].effects:
                scan.fact(
                    operand.at, _with_recursion(effect, recursive=recursive), "operand", value
                )
    if layout.into_option is not None:
        _into_option_facts(
            scan, layout.into_option, recursive=recursive, uncertain=uncertain, backups=backups
        )


def remote_host(value: str) -> str | None:
    """The host of a remote operand (``HOST:PATH``, ``USER@HOST:PATH``, ``rsync://HOST/``), else ``None``."""
    match = _REMOTE_HOST.fullmatch(value)
    if match is None:
        return None
    host = match.group(1) or match.group(2)
    return host.rsplit("@", 1)[-1] if host else None


def _address_facts(scan: _Scan, operand: _Operand, effect: Effect, *, recursive: bool) -> bool:
    """The facts of an operand that names a place (scp's HOST:PATH, socat's TYPE:…); ``False`` refuses."""
    value = operand.value
    if effect.form == "socat_address":
        if value is None:
            scan.cannot(f"{argument(operand.at)} is an expansion where a socat address stands")
            return False
        found = socat_address_effects(value)
        if found is None:
            scan.refuse(value.partition(",")[0].partition(":")[0])
            return False
        for each, target in found:
            scan.fact(operand.at, each, "operand", target)
        return True
    local = msgspec.structs.replace(effect, form="value")
    host = None if value is None else remote_host(value)
    if value is None or host is None:
        scan.fact(operand.at, _with_recursion(local, recursive=recursive), "operand", value)
    if value is None or host is not None:
        scan.fact(operand.at, _REMOTE_ARCHIVE, "operand", host)
    return True


def _into_option_facts(
    scan: _Scan, name: str, *, recursive: bool, uncertain: bool, backups: bool
) -> None:
    """``cp -t DIR a b``: every operand is also written as ``DIR/basename(operand)``."""
    effect = next(
        (
            option.effect
            for option in scan.lookup().options.values()
            if option.name == name and option.effect is not None
        ),
        None,
    )
    if effect is None:
        return
    # The program writes into the directory the last such option names, as
    # that option acts in the program's mode (`cp -s -t DIR` links there).
    directories = [fact for _, fact in scan.facts if fact.via == name]
    for directory in directories[-1:]:
        acting = msgspec.structs.replace(effect, action=directory.action or effect.action)
        for operand in scan.operands:
            value = _into(directory.value, operand.value, uncertain=uncertain or operand.several)
            for each in (acting, _backup(acting)) if backups else (acting,):
                scan.fact(operand.at, _with_recursion(each, recursive=recursive), name, value)


def _key_facts(scan: _Scan, keys: Mapping[str, Role], *, recursive: bool) -> None:
    for operand in scan.operands:
        if operand.value is None:
            scan.cannot(f"{argument(operand.at)} is an expansion where a NAME=VALUE operand stands")
            return
        key, equals, value = operand.value.partition("=")
        role = keys.get(key) if equals else None
        if role is None:
            scan.refuse(f"{key}=" if equals else operand.value)
            return
        for effect in role.effects:
            scan.fact(operand.at, _with_recursion(effect, recursive=recursive), f"{key}=", value)


def _mode_option_effects(scan: _Scan) -> None:
    """Give the options the effects the mode gives them (``tar -c -f`` writes the archive)."""
    mode = scan.mode()
    if mode is None or not mode.option_effects:
        return
    changed: list[tuple[int, ArgumentFact]] = []
    for position, fact in scan.facts:
        if fact.via in mode.option_effects and fact.kind != "network":
            effect = mode.option_effects[fact.via]
            if effect is None:
                continue
            fact = msgspec.structs.replace(
                fact, kind=effect.kind, action=effect.action, recursive=effect.recursive
            )
        changed.append((position, fact))
    scan.facts = changed


def _implicit_facts(scan: _Scan) -> None:
    present = scan.present()
    _, mode_facts = scan.layout()
    implicit: list[Implicit] = [fact for row in scan.rows for fact in row.facts]
    implicit.extend(mode_facts)
    alone = scan.options[0] if len(scan.argv) == 1 and len(scan.options) == 1 else None
    for fact in implicit:
        if fact.unless & present or (fact.only_bare and scan.argv) or alone in fact.unless_alone:
            continue
        scan.fact(None, fact.effect, fact.via, fact.effect.value)


def read_row(
    program: str,
    row: ProgramRow,
    argv: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    """
    Read a program's arguments with its row.

    Args:
        program: The program's basename.
        row: Its row.
        argv: The argument values after the program word (``None``: expands).
        one_word: Indexes of expanding words known to be exactly one word.
        no_dash: Indexes of expanding words none of whose words can begin
            with ``-`` (their first character is a literal other than ``-``).

    Returns:
        The reading; `ArgumentReading.undeclared` / ``unreadable`` say where it stopped.
    """
    scan = _Scan(program, row, argv, one_word, no_dash)
    scan.scan()
    complete = scan.undeclared is None and scan.unreadable is None
    if complete:
        _mode_option_effects(scan)
        _operand_facts(scan)
    if complete and scan.undeclared is None and scan.unreadable is None:
        _implicit_facts(scan)
    rows = scan.rows
    facts = scan.facts
    if len(facts) > 1:
        if any(each.cwd_first for each in rows):
            facts.sort(key=lambda item: (item[1].kind != "cwd", item[0]))
        else:
            facts.sort(key=_fact_at)
    environment = rows[0].environment
    for each in rows[1:]:
        environment |= each.environment
    return ArgumentReading(
        program=program,
        table=True,
        subcommand=tuple(scan.subcommand),
        options=tuple(scan.options),
        operands=tuple([operand.at for operand in scan.operands]),
        facts=tuple([fact for _, fact in facts]),
        undeclared=scan.undeclared,
        unreadable=scan.unreadable,
        environment=tuple(sorted(environment)) if environment else (),
    )


def _fact_at(item: tuple[int, ArgumentFact]) -> int:
    """Where a fact stands in the command line (the sort key of a reading's facts)."""
    return item[0]
