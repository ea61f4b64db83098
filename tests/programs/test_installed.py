"""
The tables against the programs installed on this machine: every declared long option exists.

For each program whose ``--help`` lists its long options, a declared long
option must appear there (or be listed below as another implementation's
option, or an alias the help does not print), and no long option the
program has may begin a declared one unless the table declares it too:
otherwise a unique prefix the table accepts could name an option the program
reads differently. Programs that are not installed are not checked
(``shutil.which``), so the test runs wherever the suite does.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Final, NamedTuple

import pytest

from gateway._programs._tables import PROGRAM_TABLES

_LONG: Final = re.compile(r"(?<![\w-])--(\[no-?\])?([A-Za-z0-9][-A-Za-z0-9._]*)")


class Help(NamedTuple):
    """
    How to ask a program for its help, and what the help leaves out.

    Attributes:
        program: The program.
        argv: The arguments that print its help.
        elsewhere: Declared long options its help does not list: another
            implementation's, a newer release's, or an alias it does not print.
        unshown: Declared long options whose value its help does not show
            (``wget --max-redirect``, ``file --parameter``, aliases printed
            before the value, ``--proxy [protocol://]host``).
    """

    program: str
    argv: tuple[str, ...]
    elsewhere: frozenset[str] = frozenset()
    unshown: frozenset[str] = frozenset()


def _help(program: str, *argv: str, elsewhere: str = "", unshown: str = "") -> Help:
    return Help(
        program, argv or ("--help",), frozenset(elsewhere.split()), frozenset(unshown.split())
    )


_BSD_SORT = "--radixsort --mergesort --qsort --heapsort --mmap"
_NEWER_COREUTILS = "--total --base64 --raw --debug --exchange --no-copy"
"""Options of GNU coreutils releases newer than this machine's (9.2 and later)."""
_RIPGREP_14 = (
    "--hostname-bin --hyperlink-format --generate --maxdepth --stop-on-nonmatch "
    "--no-stop-on-nonmatch --no-auto-hybrid-regex --no-byte-offset --no-column --no-context "
    "--no-crlf --no-fixed-strings --no-follow --no-hidden --no-include-zero --no-invert-match "
    "--no-max-columns --no-multiline --no-multiline-dotall --no-one-file-system --no-pcre2 "
    "--no-search-zip --no-sort-files --no-stats --no-trim --no-unrestricted --sort-files"
)
"""Options of ripgrep 14 that ripgrep 13 does not list."""
HELPS: Final = (
    _help("cat"),
    _help("head"),
    _help("tail"),
    _help("wc", elsewhere=_NEWER_COREUTILS),
    _help("nl"),
    _help("od"),
    _help("cut"),
    _help("paste"),
    _help("join"),
    _help("comm"),
    _help("tr"),
    _help("fold"),
    _help("fmt"),
    _help("expand"),
    _help("unexpand"),
    _help("tac"),
    _help(
        "diff",
        elsewhere="--old-group-format --new-group-format --unchanged-group-format "
        "--changed-group-format --old-line-format --new-line-format --unchanged-line-format",
    ),
    _help("cmp"),
    _help("md5sum"),
    _help("sha256sum"),
    _help("b2sum"),
    _help("cksum", elsewhere=_NEWER_COREUTILS),
    _help("sum"),
    _help("base64", elsewhere="--break --input --output"),
    _help("base32"),
    _help("sort", elsewhere=_BSD_SORT),
    _help("uniq"),
    _help("grep", elsewhere="--bz2decompress --lzma"),
    _help("pr"),
    _help("numfmt"),
    _help("cp", elsewhere=_NEWER_COREUTILS),
    _help("mv", elsewhere=_NEWER_COREUTILS),
    _help("rm"),
    _help("rmdir"),
    _help("mkdir"),
    _help("touch"),
    _help("ln"),
    _help("chmod"),
    _help("chown"),
    _help("chgrp"),
    _help("install", elsewhere=_NEWER_COREUTILS),
    _help("truncate"),
    _help("shred"),
    _help("tee"),
    _help("split"),
    _help("csplit"),
    _help("mktemp"),
    _help("ls"),
    _help("stat"),
    _help("du"),
    _help("df"),
    _help("realpath"),
    _help("readlink"),
    _help("basename"),
    _help("dirname"),
    _help("date", elsewhere="--rfc-2822"),
    _help("env"),
    _help("printenv"),
    _help("id"),
    _help("uname"),
    _help("nproc"),
    _help("tty"),
    _help("seq"),
    _help("namei"),
    _help("lsblk"),
    _help("findmnt"),
    _help("column"),
    _help("hexdump"),
    _help("who"),
    _help("pgrep"),
    _help("free", elsewhere="--line"),
    _help("vmstat"),
    _help("lscpu", elsewhere="--hierarchic"),
    _help("w", elsewhere="--pids"),
    _help("uptime"),
    _help("getent"),
    _help("apropos"),
    _help("whatis"),
    _help("file", unshown="--parameter"),
    _help("gzip", elsewhere="--to-stdout --uncompress"),
    _help("bzip2"),
    _help(
        "xz", "--long-help", elsewhere="--to-stdout --uncompress --memory --files0 --fast --best"
    ),
    _help("zstd", "-H", elsewhere="--compress --list --uncompress"),
    _help("tar", elsewhere="--fast-read --options --lz4 --include --exclude-tag-all"),
    _help("curl", "--help", "all", unshown="--help --proxy --preproxy --trace"),
    _help("wget", unshown="--max-redirect --hsts-file"),
    _help(
        "rsync",
        elsewhere="--no-relative --protect-args --remove-sent-files",
        unshown="--cc --zc --zl",
    ),
    _help("telnet"),
    _help("traceroute"),
    _help("whois"),
    _help("nm", elsewhere="--without-symbol-versions"),
    _help("objdump", elsewhere="--headers --section-headers"),
    _help("readelf"),
    _help("size"),
    _help("strings"),
    _help(
        "less",
        elsewhere="--lesskey-src --lesskey-content --header --no-number-headers "
        "--no-search-headers --no-vbell --redraw-on-quit --search-options "
        "--exit-follow-on-close --proc-backspace --proc-tab --proc-return "
        "--show-preproc-errors --CLEAR-SCREEN",
    ),
    _help("man"),
    _help("make", elsewhere="--old-file --assume-old"),
    _help("top"),
    _help("mount"),
    _help("umount"),
    _help("patch", elsewhere="--check --debug"),
    _help(
        "ps",
        "--help",
        "all",
        elsewhere="--no-heading",
        unshown="--cols --columns --rows --sort --help",
    ),
    _help("rg", elsewhere=_RIPGREP_14),
)


def _installed() -> Iterator[Help]:
    for entry in HELPS:
        if entry.program in PROGRAM_TABLES and shutil.which(entry.program):
            yield entry


def _help_text(entry: Help) -> str:
    completed = subprocess.run(
        [entry.program, *entry.argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return completed.stdout + completed.stderr


def _real_longs(text: str) -> set[str]:
    """The long options a help text lists; ``--[no]NAME`` lists both spellings."""
    found: set[str] = set()
    for negation, name in _LONG.findall(text):
        found.add(f"--{name}")
        if negation:
            found.add(f"--{negation.strip('[]')}{name}")
    return found


def _declared_longs(program: str) -> set[str]:
    return {spelling for spelling in PROGRAM_TABLES[program].options if spelling.startswith("--")}


@pytest.mark.parametrize("entry", list(_installed()), ids=lambda entry: entry.program)
def test_every_declared_long_option_exists_in_the_installed_program(entry: Help) -> None:
    real = _real_longs(_help_text(entry))
    missing = sorted(_declared_longs(entry.program) - real - entry.elsewhere)
    assert missing == [], f"{entry.program} --help does not list {missing}"


@pytest.mark.parametrize("entry", list(_installed()), ids=lambda entry: entry.program)
def test_no_real_long_option_begins_a_declared_one_it_does_not_name(entry: Help) -> None:
    """A prefix the table reads as one option must not be an option of its own in the program."""
    row = PROGRAM_TABLES[entry.program]
    if not row.abbreviations:
        return
    declared = _declared_longs(entry.program)
    real = _real_longs(_help_text(entry))
    shadowed = sorted(
        (option, spelling)
        for option in real - declared
        for spelling in declared
        if spelling.startswith(option) and spelling != option
    )
    assert shadowed == []


_ARITY: Final = re.compile(
    r"(?<![\w-])--([A-Za-z0-9][-A-Za-z0-9._]*)(\[=|=|\s=|\s<|\s\[<|\s[A-Z][A-Z_]*(?:,|$)|)",
    re.MULTILINE,
)
_DEFINITION: Final = re.compile(r"^[ \t]{1,8}[-+]")
_GAP: Final = re.compile(r"\s{2,}|\t")


def _help_arities(text: str) -> dict[str, set[object]]:
    """
    What the help says each long option takes: 0, 1 or ``optional``.

    Only the lines that define options are read (``  -o, --output=FILE   …``),
    up to the gap before the description, so an option a description
    mentions in passing does not count.
    """
    found: dict[str, set[object]] = {}
    heads = [
        _GAP.split(line.strip(), maxsplit=1)[0]
        for line in text.splitlines()
        if _DEFINITION.match(line)
    ]
    for name, mark in _ARITY.findall("\n".join(heads)):
        if mark in ("[=", " [<"):
            arity: object = "optional"
        elif mark:
            arity = 1
        else:
            arity = 0
        found.setdefault(f"--{name}", set()).add(arity)
    return found


@pytest.mark.parametrize("entry", list(_installed()), ids=lambda entry: entry.program)
def test_every_declared_long_option_takes_what_the_installed_help_says(entry: Help) -> None:
    """
    A value the help shows (``--key=KEYDEF``) is declared, and one it does not show is not.

    An optional value (``--color[=WHEN]``) agrees with a help that shows the
    option bare, or both bare and with a value; a fused-only or
    optional-next option is a decision the row documents, not checked here.
    """
    said = _help_arities(_help_text(entry))
    agrees: dict[object, tuple[set[object], ...]] = {
        0: ({0},),
        1: ({1},),
        "optional": ({"optional"}, {0}, {0, 1}, {0, "optional"}, {0, 1, "optional"}),
    }
    wrong = sorted(
        (spelling, str(option.arity), sorted(map(str, said[spelling])))
        for spelling, option in PROGRAM_TABLES[entry.program].options.items()
        if spelling in said
        and spelling not in entry.unshown
        and option.arity in agrees
        and said[spelling] not in agrees[option.arity]
    )
    assert wrong == []
