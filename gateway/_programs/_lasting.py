"""
How long a program waits and how much it prints, read from its arguments.

A few harmless programs run as long, or print as much, as a number in their
arguments says: ``sleep infinity`` never ends, ``seq inf`` and
``printf '%*s' 2147483647 x`` flood whoever reads their output, and
``head -n 1 /dev/zero`` reads forever (the device has no newline). These are
read as allowlists of bounded forms: a number written in the call that keeps
the wait within `LONGEST_WAIT` and the output within `MOST_OUTPUT` is
bounded; anything else (a larger number, ``inf``, a hexadecimal float, a
value only known when the command runs) may never end. Pure, linear in the
arguments, no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Final

from gateway._calls._places import DEFAULT_TEMP_ROOTS

__all__ = ["LONGEST_WAIT", "MOST_OUTPUT", "MOST_ROUNDS", "device_read_ends", "unending"]

LONGEST_WAIT: Final = 600.0
"""Seconds a program may wait and still end within the call: the longest tool timeout hosts allow."""
MOST_OUTPUT: Final = 16 * 1024 * 1024
"""Bytes a program may print and still not flood the host that reads its output."""
MOST_ROUNDS: Final = 1_000_000
"""Times a loop of a program's own language (awk, jq) may go round, by a count written in it, and still be bounded."""

_DECIMAL: Final = r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_DURATION: Final = re.compile(rf"({_DECIMAL})([smhd]?)")
_SIGNED: Final = re.compile(rf"[+-]?{_DECIMAL}")
_INTEGER: Final = re.compile(r"[+-]?[0-9]+")
_SIZE: Final = re.compile(r"([0-9]+)(b|[kKMGTPEZYRQ](?:iB|B)?)?")
_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_CONVERSION: Final = re.compile(
    r"%(?:%|\([^)]*\)T|[-+ #0']*(\*|[0-9]*)(?:\.(\*|[0-9]*))?[diouxXeEfFgGaAcsbq])"
)
_RANDOM_LINE: Final = 256
"""Bytes a line of random data averages (one newline in 256 bytes)."""
_ENDING_DEVICES: Final = frozenset({"/dev/null", "/dev/stdin"})
"""Devices a read of which ends: the null device, and the call's own input (what the host gives it)."""
_DESCRIPTORS: Final = "/dev/fd/"
"""The call's own descriptors, under /dev but no device (``<(…)`` is ``/dev/fd/63``)."""
_BLOCKING_FILES: Final = frozenset({"/proc/kmsg", "/sys/kernel/debug/tracing/trace_pipe"})
"""Kernel files outside /dev that block until the kernel writes more."""
_RANDOM_DEVICES: Final = frozenset({"/dev/urandom", "/dev/random"})
_HELP: Final = frozenset({"--help", "--version"})


def unending(program: str, argv: Sequence[str | None]) -> str | None:
    """
    Why a program may never end or flood its output, as the argument that says so; ``None`` when it is bounded.

    Args:
        program: The program's basename.
        argv: Its arguments, quotes removed (``None`` for a word only known
            when it runs).

    Examples:
        >>> unending("sleep", ["infinity"]), unending("sleep", ["2m", "30"])
        ('infinity', None)
        >>> unending("seq", ["inf"]), unending("seq", ["1", "2", "10"])
        ('inf', None)
        >>> unending("printf", ["%*s", "2147483647", "x"]), unending("printf", ["%s\\n", None])
        ('2147483647', None)
    """
    if program == "sleep":
        return _sleep(argv)
    if program == "seq":
        return _seq(argv)
    if program == "printf":
        return _printf(argv)
    return None


def device_read_ends(program: str, argv: Sequence[str | None], path: str) -> bool:
    """
    True when the program's reading of ``path`` ends: it is no device, or the program stops by itself.

    A read of a device other than the null device and the call's own input
    and descriptors (``/dev/zero``, ``/dev/urandom``, ``/dev/tty``, a disk:
    not ``/dev/stdin``, ``/dev/fd/63``, ``/dev/shm/x``) or of a kernel
    file that blocks (``/proc/kmsg``) may never end, unless ``head`` stops it
    within `MOST_OUTPUT` bytes (a count of lines stops only random data: a
    line of ``/dev/zero`` never ends), or ``dd`` is given ``count=``.

    Examples:
        >>> device_read_ends("cat", ["/dev/null"], "/dev/null")
        True
        >>> device_read_ends("cat", ["/dev/tty"], "/dev/tty")
        False
        >>> device_read_ends("head", ["-c", "64", "/dev/zero"], "/dev/zero")
        True
        >>> device_read_ends("head", ["-n", "1", "/dev/zero"], "/dev/zero")
        False
    """
    if path in _BLOCKING_FILES:
        return False
    if (
        not path.startswith("/dev/")
        or path in _ENDING_DEVICES
        or path.startswith(_DESCRIPTORS)
        or any(path == root or path.startswith(f"{root}/") for root in DEFAULT_TEMP_ROOTS)
    ):
        return True  # `/dev/shm` holds ordinary files
    if program == "dd":
        return any((word or "").startswith("count=") for word in argv)
    if program == "head":
        size = _head_bytes(argv, random=path in _RANDOM_DEVICES)
        return size is not None and size <= MOST_OUTPUT
    return False


def _sleep(argv: Sequence[str | None]) -> str | None:
    total = 0.0
    words = list(argv)
    options = words[: words.index("--")] if "--" in words else words
    if any(word in _HELP for word in options):
        return None
    for word in words:
        if word == "--":
            continue
        if word is None:
            return "a duration only known when it runs"
        match = _DURATION.fullmatch(word)
        if match is None:
            return word
        total += float(match[1]) * _UNITS[match[2] or "s"]
        if not total <= LONGEST_WAIT:
            return word
    return None


def _seq(argv: Sequence[str | None]) -> str | None:
    numbers: list[str] = []
    widest = 0
    separator = 1
    at = 0
    while at < len(argv):
        word = argv[at]
        at += 1
        if word is None:
            return "a number only known when it runs"
        if word in _HELP and not numbers:
            return None
        if word.startswith(("-f", "--f", "-s", "--s", "-t")) and not _SIGNED.fullmatch(word):
            name, equals, written = word.partition("=")
            value: str | None = written
            if not equals and name in ("-f", "--format", "-s", "--separator", "-t"):
                value = argv[at] if at < len(argv) else ""
                at += 1
            elif not equals:
                value = word[2:]
            if value is None:
                return "a format only known when it runs"
            if word.startswith(("-f", "--f")):
                width = _format_width(value)
                if width is None:
                    return value
                widest = max(widest, width)
            else:
                separator = max(separator, len(value))
            continue
        if word in ("-w", "--equal-width", "--"):
            continue
        if not _SIGNED.fullmatch(word):
            return word
        numbers.append(word)
    if not 1 <= len(numbers) <= 3:
        return None  # seq refuses it
    first, step, last = (
        ("1", "1", numbers[0])
        if len(numbers) == 1
        else (numbers[0], "1", numbers[1])
        if len(numbers) == 2
        else (numbers[0], numbers[1], numbers[2])
    )
    start, increment, end = float(first), float(step), float(last)
    if increment == 0:
        return step
    span = (end - start) / increment
    if not math.isfinite(span):
        return last
    count = max(0.0, math.floor(span) + 1)
    width = max(widest, len(first), len(last)) + separator
    return last if count * width > MOST_OUTPUT else None


def _format_width(text: str) -> int | None:
    """The widest field a format asks for (``None`` when it asks for more than `MOST_OUTPUT`)."""
    widest = 0
    for match in _CONVERSION.finditer(text):
        for number in (match[1], match[2]):
            if number and number != "*":
                if len(number) > 9 or int(number) > MOST_OUTPUT:
                    return None
                widest = max(widest, int(number))
    return widest + len(text)


def _printf(argv: Sequence[str | None]) -> str | None:
    at = 0
    while at < len(argv) and argv[at] in ("-v", "--"):
        at += 2 if argv[at] == "-v" else 1
    if at < len(argv) and argv[at] is not None and str(argv[at]).startswith("-v"):
        at += 1
    if at >= len(argv):
        return None
    template = argv[at]
    if template is None:
        return "a format only known when it runs"
    values = argv[at + 1 :]
    fields = list(_CONVERSION.finditer(template))
    taking = [m for m in fields if m[0] != "%%" and not m[0].endswith("T")]
    stars = sum((m[1] == "*") + (m[2] == "*") for m in taking)
    per_pass = len(taking) + stars
    passes = 1 if per_pass == 0 else max(1, math.ceil(len(values) / per_pass))
    total = 0
    used = 0
    for _ in range(passes):
        total += len(template)
        for match in taking:
            for number in (match[1], match[2]):
                if number == "*":
                    value = values[used] if used < len(values) else "0"
                    used += 1
                    if value is None:
                        return "a width only known when it runs"
                    if not _INTEGER.fullmatch(value):
                        continue  # bash refuses it and prints nothing for it
                    number = value.lstrip("+-")
                if number and (len(number) > 9 or int(number) > MOST_OUTPUT):
                    return number
                total += int(number or 0)
            argument = values[used] if used < len(values) else ""
            used += 1
            total += len(argument or "")
        if total > MOST_OUTPUT:
            return template
    return None


def _head_bytes(argv: Sequence[str | None], *, random: bool) -> int | None:
    """How many bytes ``head`` reads at most; ``None`` when that is unknown or unbounded."""
    lines = 10
    size: int | None = None
    at = 0
    while at < len(argv):
        word = argv[at]
        at += 1
        if word is None:
            return None
        if word == "--":
            break
        value: str | None
        if word.startswith(("--bytes", "--lines")):
            name, equals, value = word.partition("=")
            if not equals:
                value = argv[at] if at < len(argv) else None
                at += 1
            option = "-c" if name.startswith("--b") else "-n"
        elif word[:2] in ("-c", "-n"):
            option = word[:2]
            value = word[2:] if len(word) > 2 else argv[at] if at < len(argv) else None
            at += 0 if len(word) > 2 else 1
        elif len(word) > 1 and word[0] == "-" and word[1:].isdigit():
            option, value = "-n", word[1:]
        else:
            continue
        number = None if value is None else _size(value)
        if number is None:
            return None
        if option == "-c":
            size = number
        else:
            size, lines = None, number
    if size is not None:
        return size
    return lines * _RANDOM_LINE if random else None


def _size(text: str) -> int | None:
    match = _SIZE.fullmatch(text)
    if match is None or len(match[1]) > 18:
        return None
    suffix = match[2] or ""
    if not suffix:
        return int(match[1])
    if suffix == "b":
        return int(match[1]) * 512
    power = "kKMGTPEZYRQ".index(suffix[0])
    base = 1000 if suffix.endswith("B") and not suffix.endswith("iB") else 1024
    return int(match[1]) * int(base ** max(power, 1))
