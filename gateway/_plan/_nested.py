"""
Commands a command launches from its own words: shell text, or another command's words.

A command may hand text to a shell (``sh -c TEXT``, ``bash -lc TEXT``, ``env
-S``, ``su -c``, ``watch``, ``eval``, ``ssh host CMD``, a trap, an alias, a
git alias ``!…``) or run a command made of its own words (``find -exec CMD
… ;``). This module finds each one and says *what* to plan — a literal text,
the words of a command, or nothing (the text is built at run time, or comes
from a file or standard input) — and *in which shell state* it runs; the
planner (`gateway._plan._builder`) plans it in turn, to a bounded depth.

How a shell reads its own options is data (`gateway._plan._launchers.SHELL_ROW`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, Literal, NamedTuple

from gateway._calls._plans import NestedOrigin
from gateway._plan._builtins import SET_LETTERS
from gateway._plan._globs import GLOB_OPTIONS
from gateway._plan._launchers import SHELL_ROW, SHELLS
from gateway._plan._position import PositionReading
from gateway._read._tree import (
    AnsiC,
    DoubleQuoted,
    Literal as LiteralPart,
    Part,
    SingleQuoted,
    Word,
)

__all__ = ["NestedRequest", "RunsIn", "ShellOption", "join_values", "nested_requests"]

RunsIn = Literal["same", "child", "later", "remote", "elsewhere"]
"""
Where nested commands run: in the same shell (``eval``: what it binds and
where it moves stay), a child shell started here (``sh -c``), later in this
shell (a trap, an alias), on another host (``ssh``), or in a directory the
text does not show (``find -execdir``).
"""

_ARRAY_DECLARATIONS: Final = frozenset({"declare", "typeset", "local", "readonly"})
_NAME_EQUALS: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_FIND_EXEC: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_SSH_OPTIONS_WITH_VALUE: Final = frozenset("bcDEeFIiJLlmOopQRSWw")
_GIT_RUNNING_KEYS: Final = frozenset(
    {
        "core.pager",
        "core.editor",
        "core.sshcommand",
        "core.fsmonitor",
        "core.askpass",
        "core.gitproxy",
        "diff.external",
        "credential.helper",
        "sequence.editor",
        "gpg.program",
        "uploadpack.packobjectshook",
        "sendemail.sendmailcmd",
    }
)
_GIT_RUNNING_SUFFIXES: Final = (
    ".textconv",
    ".command",
    ".driver",
    ".clean",
    ".smudge",
    ".process",
    ".program",
    ".uploadpack",
    ".receivepack",
)


class ShellOption(NamedTuple):
    """
    An option a shell is started with, as ``set`` or ``shopt`` would set it in its text.

    Attributes:
        shown: As written (``-k``, ``-o pipefail``, ``-i``).
        name: The option it sets (``keyword``, ``pipefail``); ``None`` when it
            is no option of ``set`` or ``shopt`` and the plan does not follow
            what it does (``-i``).
        via: The builtin that names ``name``: ``set`` or ``shopt``.
        state: ``on`` or ``off`` (``+o``).
    """

    shown: str
    name: str | None
    via: Literal["set", "shopt"]
    state: Literal["on", "off"]


class NestedRequest(NamedTuple):
    """
    One thing a command launches, and how to plan it.

    Attributes:
        via: How it is launched (``sh -c``, ``find -exec``, ``trap``…).
        text: The shell text to plan, when it is a literal.
        words: Or the words of the command it runs (``find -exec rm {} ;``).
        reason: Why there is nothing to plan (neither ``text`` nor ``words``).
        origin: Where the text comes from.
        runs_in: The shell state it runs in.
        placeholders: Offsets of words another program fills in (``{}``).
        script: The script file a shell runs (``bash deploy.sh``): it reads it.
        globbing: The glob options a shell is started with (``bash -O dotglob``).
        options: The options a shell is started with (``bash -k``, ``-o pipefail``).
    """

    via: str
    text: str | None = None
    words: tuple[Word, ...] | None = None
    reason: str | None = None
    origin: NestedOrigin = "literal"
    runs_in: RunsIn = "child"
    placeholders: frozenset[int] = frozenset()
    script: Word | None = None
    globbing: frozenset[str] = frozenset()
    options: tuple[ShellOption, ...] = ()


def join_values(words: Sequence[Word]) -> str | None:
    """The words' values joined with spaces, or ``None`` when any of them expands."""
    values = [word.value for word in words]
    if any(value is None for value in values):
        return None
    return " ".join(value for value in values if value is not None)


def _dynamic(via: str, reason: str, origin: NestedOrigin = "expansion") -> NestedRequest:
    return NestedRequest(via=via, reason=reason, origin=origin)


def _text(
    via: str, text: str | None, runs_in: RunsIn = "child", globbing: frozenset[str] = frozenset()
) -> NestedRequest:
    if text is None:
        return NestedRequest(
            via=via,
            reason=f"the text `{via}` runs comes from an expansion and is only known when it runs",
            origin="expansion",
            runs_in=runs_in,
        )
    return NestedRequest(via=via, text=text, runs_in=runs_in, globbing=globbing)


def _shell(name: str, args: Sequence[Word]) -> NestedRequest:
    """``sh -c TEXT``, ``bash -lc TEXT``, ``bash script.sh``, or a shell reading standard input."""
    command = False
    globbing: frozenset[str] = frozenset()
    options: list[ShellOption] = []
    j = 0
    while j < len(args):
        value = args[j].value
        if value is None:
            if command:  # `sh -c "$CMD"`: the command text itself is the expansion
                return _text(f"{name} -c", None)
            return _dynamic(name, f"`{name}` is given an option from an expansion")
        if value in SHELL_ROW.start_files:
            script = args[j + 1] if j + 1 < len(args) else None
            shown = "" if script is None else f" `{script.text}`"
            return NestedRequest(
                via=name,
                reason=f"`{name} {value}` runs the start-up file{shown}, which the plan cannot see",
                origin="file",
                script=script,
            )
        if value in ("--", "-"):  # a lone `-` ends the options as `--` does
            j += 1
            break
        if value.startswith("--"):
            option = SHELL_ROW.long_options.get(value)
            if option is not None:
                options.append(ShellOption(value, option, "set", "on"))
            elif value not in SHELL_ROW.switches:
                options.append(ShellOption(value, None, "set", "on"))
            j += 1
            continue
        if not (len(value) > 1 and value[0] in "-+" and value[1:].isalpha()):
            break
        state: Literal["on", "off"] = "on" if value[0] == "-" else "off"
        following = j + 1  # each `o` or `O` of the cluster takes the next unread word
        for letter in value[1:]:
            shown = f"{value[0]}{letter}"
            via = SHELL_ROW.value_letters.get(letter)
            if via is None:
                command = command or letter == SHELL_ROW.command_letter
                if letter in SET_LETTERS:
                    options.append(ShellOption(shown, SET_LETTERS[letter], "set", state))
                elif letter not in SHELL_ROW.switches:
                    options.append(ShellOption(shown, None, "set", state))
                continue
            option = args[following].value if following < len(args) else ""
            following += 1
            if option is None:
                return _dynamic(name, f"`{name}` is given an option from an expansion")
            if via == "shopt":  # `bash -O dotglob -c …`: a glob option
                if not option or option.startswith(("-", "+")):
                    globbing = GLOB_OPTIONS  # lists the options, or one the text does not show
                elif option in GLOB_OPTIONS:
                    globbing = globbing | {option} if state == "on" else globbing - {option}
            if option:  # none: it lists the options
                options.append(ShellOption(f"{shown} {option}", option, via, state))
        j = following
    started = tuple(options)
    if command:
        if j >= len(args):
            return _dynamic(f"{name} -c", f"`{name} -c` is given no command text")
        return _text(f"{name} -c", args[j].value, globbing=globbing)._replace(options=started)
    if j < len(args):
        return NestedRequest(
            via=name,
            reason=f"`{name}` runs the script `{args[j].text}`, which the plan cannot see",
            origin="file",
            script=args[j],
        )
    return NestedRequest(
        via=name,
        reason=f"`{name}` reads its commands from standard input, which the plan cannot see",
        origin="stdin",
        globbing=globbing,
        options=started,
    )


def _ssh(args: Sequence[Word]) -> NestedRequest:
    j = 0
    while j < len(args):
        value = args[j].value
        if value is None:
            return _dynamic("ssh", "`ssh` is given an argument from an expansion")
        if value == "--":
            j += 1
            break
        if value.startswith("-") and len(value) > 1:
            letters = value[1:]
            takes = next(
                (k for k, letter in enumerate(letters) if letter in _SSH_OPTIONS_WITH_VALUE), None
            )
            j += 2 if takes is not None and takes == len(letters) - 1 else 1
            continue
        break
    if j >= len(args):
        return _dynamic("ssh", "`ssh` names no host", "remote")
    remote = args[j + 1 :]
    if not remote:
        return _dynamic("ssh", "`ssh` opens an interactive shell on the remote host", "remote")
    return _text("ssh", join_values(remote), "remote")


def filled_inside(via: str, words: Sequence[Word]) -> NestedRequest | None:
    """
    ``find -exec sh -c 'wc -l {}'``: shell text a file name is put into, which nothing can plan.

    GNU find puts each path it finds wherever ``{}`` stands in a word, so
    in a shell's text a file name becomes code (a file named ``$(id)``).
    ``None`` when the command is no shell, or every ``{}`` is a word of its
    own (a path, as ``{}.bak`` is).
    """
    program = words[0].value if words else None
    if program is None or program.rsplit("/", 1)[-1] not in SHELLS:
        return None
    for word in words[1:]:
        text = word.value if word.value is not None else word.text
        if "{}" in text and text != "{}":
            return NestedRequest(
                via=via,
                reason=f"`{via}` puts each path it finds inside the word `{word.text}`, "
                "so a file name becomes part of what runs",
                origin="expansion",
            )
    return None


def _find(args: Sequence[Word]) -> list[NestedRequest]:
    found: list[NestedRequest] = []
    j = 0
    while j < len(args):
        value = args[j].value
        if value not in _FIND_EXEC:
            j += 1
            continue
        start = k = j + 1
        while k < len(args) and not (
            args[k].value == ";"
            or (args[k].value == "+" and k > start and args[k - 1].value == "{}")
        ):
            k += 1
        via = f"find {value}"
        if k >= len(args):
            found.append(NestedRequest(via=via, reason=f"`{via}` has no `;` or `+` to end it."))
            break
        if k == start:
            found.append(NestedRequest(via=via, reason=f"`{via}` names no program."))
        elif (inside := filled_inside(via, args[start:k])) is not None:
            found.append(inside)
        else:
            words = tuple(args[start:k])
            found.append(
                NestedRequest(
                    via=via,
                    words=words,
                    runs_in="elsewhere" if value in ("-execdir", "-okdir") else "child",
                    placeholders=frozenset(w.span.start for w in words if w.value == "{}"),
                )
            )
        j = k + 1
    return found


def _git(args: Sequence[Word]) -> list[NestedRequest]:
    found: list[NestedRequest] = []
    j = 0
    while j < len(args):
        value = args[j].value
        if value is None or not value.startswith("-"):
            break
        if value == "-c" and j + 1 < len(args):
            setting = args[j + 1].value
            if setting is None:
                found.append(_dynamic("git -c", "`git -c` is given a setting from an expansion"))
            else:
                key, _, text = setting.partition("=")
                key = key.lower()
                if key.startswith("alias.") and text.startswith("!"):
                    found.append(_text(f"git -c {key}", text[1:]))
                elif (
                    key in _GIT_RUNNING_KEYS
                    or (key.count(".") >= 1 and key.endswith(_GIT_RUNNING_SUFFIXES))
                    or key.startswith("pager.")
                ):
                    found.append(_text(f"git -c {key}", text))
            j += 2
            continue
        j += (
            1
            if "=" in value
            or value in ("--no-pager", "-p", "--paginate", "--bare", "--no-replace-objects")
            else 2
        )
    return found


def _trap(args: Sequence[Word]) -> list[NestedRequest]:
    operands = [w for w in args if not (w.value or "").startswith("-")]
    if len(operands) < 2:
        return []
    action = operands[0]
    if action.value in ("", "-"):
        return []
    return [_text("trap", action.value, "later")]


def _alias(args: Sequence[Word]) -> list[NestedRequest]:
    found: list[NestedRequest] = []
    for word in args:
        if word.value is None or "=" not in word.value or word.value.startswith("-"):
            continue
        name, _, text = word.value.partition("=")
        if text:
            found.append(_text(f"alias {name}", text, "later"))
    return found


def _literal_prefix(parts: Sequence[Part]) -> tuple[str, bool]:
    """The text a word's parts start with before any expansion (quotes removed), and whether that is all of it."""
    text: list[str] = []
    for part in parts:
        if isinstance(part, LiteralPart | SingleQuoted) or (isinstance(part, AnsiC) and part.exact):
            text.append(part.text)
        elif isinstance(part, DoubleQuoted) and not part.locale:
            inner, whole = _literal_prefix(part.parts)
            text.append(inner)
            if not whole:
                return "".join(text), False
        else:
            return "".join(text), False
    return "".join(text), True


def _compound_operands(base: str, args: Sequence[Word]) -> list[NestedRequest]:
    """
    ``declare -a 'a=($(…))'``: an operand whose value is ``(…)`` is read again as an array.

    bash 5.2 reads such a value as a compound array assignment and expands
    its words, so a ``$(…)`` the quotes kept from running when the command
    was parsed runs now (with ``-a``/``-A``, or when the variable is an
    array already — which the text need not show, so a literal value is
    read again whatever the options). An operand written as a compound
    assignment (``a=(…)``, its parenthesis unquoted) was read as one by the
    parser, and its words are the reader's already.
    """
    found: list[NestedRequest] = []
    arrays = False
    options = True
    for word in args:
        if options and word.value is not None and word.value[:1] in ("-", "+"):
            if word.value == "--":
                options = False
            arrays = arrays or any(flag in word.value[1:] for flag in "aA")
            continue
        options = False
        written = _NAME_EQUALS.match(word.text)
        if written is not None and word.text[written.end() :].startswith("("):
            continue
        prefix, whole = _literal_prefix(word.parts)
        name = _NAME_EQUALS.match(prefix)
        if name is None:
            continue  # not NAME=…, or a name only known at run time (planned as such)
        value = prefix[name.end() :]
        via = f"{base} {prefix[: name.end()]}(…)"
        if whole:
            if value.startswith("(") and value.endswith(")"):
                found.append(_text(via, prefix, "same"))
        elif value.startswith("(") or (not value and arrays):
            found.append(_text(via, None, "same"))
    return found


def nested_requests(
    words: Sequence[Word], reading: PositionReading, *, table: bool
) -> list[NestedRequest]:
    """
    Everything one simple command launches from its own words, in order.

    Args:
        words: The command's words.
        reading: Its program position reading.
        table: The program's arguments were read by its option table or
            language reader, whose facts say what it runs: ``ssh``, ``find``
            and ``git`` are read here only when no reader knows them.
    """
    found: list[NestedRequest] = []
    position = reading.position
    if reading.command_string is not None:
        via, text = reading.command_string
        found.append(_text(via, text))
    if reading.shell_text_from is not None:
        via = position.launchers[-1].name if position.launchers else "watch"
        found.append(_text(via, join_values(words[reading.shell_text_from :])))
    program = position.program
    if program is None or program.index is None:
        return found
    args = words[program.index + 1 :]
    base = program.basename
    if base in SHELLS:
        found.append(_shell(program.name, args))
    elif base == "eval":
        found.append(_text("eval", join_values(args), "same"))
    elif base in ("source", "."):
        found.append(
            _dynamic(base, f"`{base}` runs the commands of a file the plan cannot see", "file")
        )
    elif base == "trap":
        found.extend(_trap(args))
    elif base == "alias":
        found.extend(_alias(args))
    elif base in _ARRAY_DECLARATIONS:
        found.extend(_compound_operands(base, args))
    elif not table and base == "ssh":
        found.append(_ssh(args))
    elif not table and base == "find":
        found.extend(_find(args))
    elif not table and base == "git":
        found.extend(_git(args))
    return found
