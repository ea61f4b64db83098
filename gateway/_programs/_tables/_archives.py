"""
Option tables of the archivers and compressors: tar, gzip, bzip2, xz, zstd, zip, unzip, 7z.

What an archiver does depends on its mode: ``tar -c -f A DIR`` reads DIR and
writes A; ``tar -x -f A`` reads A and writes under the working directory
(anywhere with ``-P``), names that come from the archive and no word shows.
Several options run programs: tar's ``--use-compress-program``,
``--to-command``, ``--checkpoint-action``, ``--info-script``,
``--rsh-command``; zip's ``-TT``; a GNU tar archive named ``HOST:FILE`` is
reached over the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from gateway._programs._rows import (
    APPEND,
    DATA,
    MOVE,
    READ,
    RUN_PROGRAM,
    RUN_SHELL,
    WRITE,
    Effect,
    Implicit,
    Mode,
    Operands,
    Option,
    OptionSpec,
    ProgramRow,
    RowExample,
    allows,
    refuses,
    role,
)
from gateway._programs._tables._common import GNU, READS, row

__all__ = ["ARCHIVE_TABLES"]

_READ_TREE: Final = Effect(kind="read", recursive=True)
_REMOVES_TREE: Final = Effect(kind="write", action="delete", recursive=True)
"""What a switch that removes the sources after archiving them (``tar --remove-files``, ``7z -sdel``) does to each."""
_READ_UNNAMED: Final = Effect(kind="read")
"""A read of files no word names (the names a list file holds)."""
_EXTRACT_HERE: Final = Effect(kind="write", action="create", recursive=True, value=".")
_EXTRACT_ANYWHERE: Final = Effect(kind="write", action="create", recursive=True, value="/")
_EXTRACT_INTO: Final = Effect(kind="write", action="create", recursive=True)
_CHDIR: Final = Effect(kind="cwd")
_ARCHIVE: Final = Effect(kind="read", form="archive")

# GNU tar and bsdtar (libarchive, the tar of macOS and FreeBSD) agree on these.
# Left out: -H (GNU: --format FORMAT; bsdtar: follow symlinks), -L (GNU:
# --tape-length N; bsdtar: follow symlinks), -s (GNU: --same-order; bsdtar:
# -s PATTERN), -I is a program in GNU tar and a file list in bsdtar (both a value).
_TAR_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    *GNU,
    "-A --catenate --concatenate",
    "-c --create",
    "--delete",
    "-d --diff --compare",
    "-r --append",
    "--test-label",
    "-t --list",
    "-u --update",
    "-x --extract --get",
    "--check-device",
    ("-g --listed-incremental =", WRITE),
    "-G --incremental",
    "--hole-detection =",
    "--ignore-failed-read",
    "--level =",
    "--no-check-device",
    "--no-seek",
    "-n --seek",
    "--occurrence [=]",
    "--sparse-version =",
    "-S --sparse",
    "--add-file =",
    ("-C --directory =", _CHDIR),
    "--exclude =",
    "--include =",
    "--exclude-backups",
    "--exclude-caches",
    "--exclude-caches-all",
    "--exclude-ignore =",
    "--exclude-ignore-recursive =",
    "--exclude-tag =",
    "--exclude-tag-under =",
    "--exclude-tag-all =",
    "--exclude-vcs",
    "--exclude-vcs-ignores",
    "--no-null",
    "--no-recursion",
    "--no-unquote",
    "--no-verbatim-files-from",
    "--null",
    "--recursion",
    ("-T --files-from =", READ, (_READ_UNNAMED,)),
    "--unquote",
    "--verbatim-files-from",
    ("-X --exclude-from =", READ),
    "--anchored",
    "--ignore-case",
    "--no-anchored",
    "--no-ignore-case",
    "--no-wildcards",
    "--no-wildcards-match-slash",
    "--wildcards",
    "--wildcards-match-slash",
    "--keep-directory-symlink",
    "--keep-newer-files",
    "-k --keep-old-files",
    "--no-overwrite-dir",
    "--one-top-level [=]",
    "--overwrite",
    "--overwrite-dir",
    "--recursive-unlink",
    "--remove-files",
    "--skip-old-files",
    "-U --unlink-first",
    "-W --verify",
    "--no-ignore-command-error",
    "--ignore-command-error",
    "-O --to-stdout",
    ("--to-command =", RUN_SHELL),
    "--atime-preserve [=]",
    "--clamp-mtime",
    "--delay-directory-restore",
    "--group =",
    "--group-map =",
    "--mode =",
    "--mtime =",
    "-m --touch",
    "--no-delay-directory-restore",
    "--no-same-owner",
    "--no-same-permissions",
    "--numeric-owner",
    "--owner =",
    "--owner-map =",
    "-p --preserve-permissions --same-permissions",
    "--same-owner",
    "--sort =",
    "--preserve-order --same-order",
    "--acls",
    "--no-acls",
    "--no-selinux",
    "--no-xattrs",
    "--selinux",
    "--xattrs",
    "--xattrs-exclude =",
    "--xattrs-include =",
    "--force-local",
    ("-f --file =", _ARCHIVE),
    ("-F --info-script --new-volume-script =", RUN_SHELL),
    "--tape-length =",
    "-M --multi-volume",
    ("--rmt-command =", RUN_PROGRAM),
    ("--rsh-command =", RUN_PROGRAM),
    ("--volno-file =", WRITE),
    "-b --blocking-factor =",
    "-B --read-full-records",
    "-i --ignore-zeros",
    "--record-size =",
    "--format =",
    "--old-archive --portability",
    "--pax-option =",
    "--posix",
    "-V --label =",
    "-a --auto-compress",
    ("-I --use-compress-program =", RUN_SHELL),
    "-j --bzip2",
    "-J --xz",
    "--lzip",
    "--lzma",
    "--lzop",
    "--lz4",
    "--no-auto-compress",
    "--zstd",
    "-z --gzip --gunzip --ungzip",
    "-Z --compress --uncompress",
    "--backup [=]",
    "--hard-dereference",
    "-h --dereference",
    "-K --starting-file =",
    "--newer-mtime =",
    "-N --newer --after-date =",
    "--one-file-system",
    "-P --absolute-names",
    "--suffix =",
    "--strip-components =",
    "--transform --xform =",
    "--checkpoint [=]",
    ("--checkpoint-action =", RUN_SHELL),
    "--full-time",
    ("--index-file =", WRITE),
    "-l --check-links",
    "--no-quote-chars =",
    "--quote-chars =",
    "--quoting-style =",
    "-R --block-number",
    "--show-defaults",
    "--show-omitted-dirs",
    "--show-snapshot-field-ranges",
    "--show-transformed-names --show-stored-names",
    "--totals [=]",
    "--utc",
    "-v --verbose",
    "--warning =",
    "-w --interactive --confirmation",
    "-o",
    "--restrict",
    "--usage",
    "-q --fast-read",  # bsdtar
    "-y",  # bsdtar: bzip2
    "--options =",  # bsdtar
)

_TAR: Final = row(
    *_TAR_OPTIONS,
    dashless="first",
    operands=Operands(rest=DATA),
    modes=(
        Mode(when=frozenset({"--extract", "--to-stdout"}), operands=Operands(rest=DATA)),
        Mode(when=frozenset({"--extract", "--to-command"}), operands=Operands(rest=DATA)),
        Mode(
            when=frozenset({"--extract", "--absolute-names"}),
            operands=Operands(rest=DATA),
            facts=(Implicit(effect=_EXTRACT_ANYWHERE, via="the archive's members"),),
        ),
        Mode(
            when=frozenset({"--extract"}),
            operands=Operands(rest=DATA),
            facts=(Implicit(effect=_EXTRACT_HERE, via="the archive's members"),),
        ),
        Mode(when=frozenset({"--list"}), operands=Operands(rest=DATA)),
        Mode(
            when=frozenset({"--diff"}),
            operands=Operands(rest=DATA),
            facts=(Implicit(effect=Effect(kind="read", recursive=True, value="."), via="diff"),),
        ),
        *(
            Mode(
                when=frozenset({adding, "--remove-files"}),
                operands=Operands(rest=role(_READ_TREE, _REMOVES_TREE)),
                option_effects={"--file": WRITE if adding == "--create" else APPEND},
            )
            for adding in ("--create", "--append", "--update")
        ),
        Mode(
            when=frozenset({"--create"}),
            operands=Operands(rest=role(_READ_TREE)),
            option_effects={"--file": WRITE},
        ),
        Mode(
            when=frozenset({"--append"}),
            operands=Operands(rest=role(_READ_TREE)),
            option_effects={"--file": APPEND},
        ),
        Mode(
            when=frozenset({"--update"}),
            operands=Operands(rest=role(_READ_TREE)),
            option_effects={"--file": APPEND},
        ),
        Mode(
            when=frozenset({"--catenate"}),
            operands=Operands(rest=role(READ)),
            option_effects={"--file": APPEND},
        ),
        Mode(
            when=frozenset({"--delete"}),
            operands=Operands(rest=DATA),
            option_effects={"--file": WRITE},
        ),
    ),
    examples=(
        *allows("tar -tzf a.tgz", "tar -czf out.tgz src", profile="workspace-write"),
        *refuses("tar -czf out.tgz src"),
        *refuses("tar -xzf a.tgz -C /", "tar -czf out.tgz -T names.txt", profile="workspace-write"),
    ),
)


_ADDS_SUFFIX: Final = Effect(kind="write", action="create", derive="add_suffix")
_STRIPS_SUFFIX: Final = Effect(kind="write", action="create", derive="strip_suffix")
_RESTORED: Final = Implicit(
    effect=Effect(kind="write", action="create"), via="the name the compressed file stores"
)


def _compressor(
    *extra: OptionSpec,
    suffixes: tuple[str, ...],
    implied: frozenset[str] = frozenset(),
    keeps: bool = False,
    numeric: bool = False,
    stdout: str = "-c --stdout",
    decompress: str = "-d --decompress",
    compress: str | None = "-z --compress",
    restores: str | None = None,
    removes: str | None = None,
) -> ProgramRow:
    """
    A gzip-like compressor: it replaces each FILE with FILE.SUFFIX (or the reverse with -d).

    ``-c`` writes to standard output; ``-k`` keeps the input (``keeps``: it
    always does, as zstd); ``-t`` and ``-l`` only read; ``-r`` works through
    directories, on names no word shows. ``restores``: the option that makes
    it decompress to the name the file stores (``gzip -dN``), which no word shows.
    ``removes``: the option that makes a compressor that ``keeps`` remove its
    input after all (``zstd --rm``): each FILE is then moved, as gzip's are,
    whatever keeps it too.
    """
    source = READ if keeps else MOVE
    return row(
        *extra,
        stdout,
        decompress,
        *((compress,) if compress else ()),
        "-f --force",
        "-k --keep",
        "-t --test",
        "-q --quiet",
        "-v --verbose",
        *(() if numeric else (*(f"-{digit}" for digit in "123456789"), "--fast", "--best")),
        numeric=Option(name="-LEVEL") if numeric else None,
        implied=implied,
        suffixes=suffixes,
        suffix_options=frozenset({"--suffix"}),
        recursive=frozenset({"--recursive"}),
        operands=Operands(rest=role(source, _ADDS_SUFFIX)),
        modes=(
            Mode(when=frozenset({"--stdout"}), operands=READS),
            Mode(when=frozenset({"--test"}), operands=READS),
            Mode(when=frozenset({"--list"}), operands=READS),
            Mode(
                when=frozenset({"--recursive"}),
                operands=Operands(rest=role(Effect(kind="write", action="write", recursive=True))),
            ),
            *(
                Mode(
                    when=frozenset({"--decompress", restores, *keep}),
                    operands=kept,
                    facts=(_RESTORED,),
                )
                for keep, kept in (
                    (("--keep",), READS),
                    ((), Operands(rest=role(source))),
                )
                if restores is not None
            ),
            *(
                (
                    Mode(
                        when=frozenset({"--decompress", removes}),
                        operands=Operands(rest=role(MOVE, _STRIPS_SUFFIX)),
                    ),
                    Mode(
                        when=frozenset({removes}), operands=Operands(rest=role(MOVE, _ADDS_SUFFIX))
                    ),
                )
                if removes is not None
                else ()
            ),
            Mode(
                when=frozenset({"--decompress", "--keep"}),
                operands=Operands(rest=role(READ, _STRIPS_SUFFIX)),
            ),
            Mode(
                when=frozenset({"--decompress"}),
                operands=Operands(rest=role(source, _STRIPS_SUFFIX)),
            ),
            Mode(when=frozenset({"--keep"}), operands=Operands(rest=role(READ, _ADDS_SUFFIX))),
        ),
    )


_GZIP_SUFFIXES: Final = (".gz", ".tgz>.tar", ".taz>.tar", "-gz", ".z", "-z", "_z", ".Z")
_GZIP_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "-V --version",
    "-l --list",
    "-L --license",
    "-n --no-name",
    "-N --name",
    "-r --recursive",
    "--rsyncable",
    "--synchronous",
    "-S --suffix =",
)


def _gzip(
    implied: frozenset[str] = frozenset(), examples: tuple[RowExample, ...] = ()
) -> ProgramRow:
    row = _compressor(
        *_GZIP_OPTIONS,
        suffixes=_GZIP_SUFFIXES,
        implied=implied,
        stdout="-c --stdout --to-stdout",
        decompress="-d --decompress --uncompress",
        compress=None,
        restores="--name",
    )
    return msgspec.structs.replace(row, examples=examples)


_GZIP: Final = _gzip(
    examples=(
        *allows("gzip -l a.gz", "gzip -d -S .x data.x", profile="workspace-write"),
        *refuses(
            "gzip ~/.bashrc",
            "gzip -dN data.gz",
            "gzip -d -S .x .envrc.x",
            profile="workspace-write",
        ),
    ),
)
_GUNZIP: Final = _gzip(frozenset({"--decompress"}))
_ZCAT: Final = _gzip(frozenset({"--decompress", "--stdout"}))

_BZIP2_SUFFIXES: Final = (".bz2", ".bz", ".tbz2>.tar", ".tbz>.tar")
_BZIP2_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "-L --license",
    "-V --version",
    "-s --small",
)
_BZIP2: Final = _compressor(*_BZIP2_OPTIONS, suffixes=_BZIP2_SUFFIXES)
_BUNZIP2: Final = _compressor(
    *_BZIP2_OPTIONS, suffixes=_BZIP2_SUFFIXES, implied=frozenset({"--decompress"})
)
_BZCAT: Final = _compressor(
    *_BZIP2_OPTIONS, suffixes=_BZIP2_SUFFIXES, implied=frozenset({"--decompress", "--stdout"})
)

_XZ_SUFFIXES: Final = (".xz", ".txz>.tar", ".lzma", ".tlz>.tar")
_XZ_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "-H --long-help",
    "-V --version",
    "-l --list",
    "-e --extreme",
    "-T --threads =",
    "-S --suffix =",
    "-F --format =",
    "-C --check =",
    "-M --memlimit --memory =",
    "--memlimit-compress =",
    "--memlimit-decompress =",
    "--memlimit-mt-decompress =",
    "--no-adjust",
    "--single-stream",
    "--no-sparse",
    "--ignore-check",
    "--block-size =",
    "--block-list =",
    "--flush-timeout =",
    "-Q --no-warn",
    "--robot",
    "--info-memory",
    "-0",
    ("--files [=]", READ, (_READ_UNNAMED,)),
    ("--files0 [=]", READ, (_READ_UNNAMED,)),
)


def _xz(implied: frozenset[str] = frozenset()) -> ProgramRow:
    return _compressor(
        *_XZ_OPTIONS,
        suffixes=_XZ_SUFFIXES,
        implied=implied,
        stdout="-c --stdout --to-stdout",
        decompress="-d --decompress --uncompress",
    )


_XZ: Final = _xz()
_UNXZ: Final = _xz(frozenset({"--decompress"}))
_XZCAT: Final = _xz(frozenset({"--decompress", "--stdout"}))

# zstd keeps its input unless --rm; -o names the one output file.
_ZSTD_SUFFIXES: Final = (".zst", ".tzst>.tar", ".zstd")
_ZSTD_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-h",
    "-H --help",
    "-V --version",
    "-l --list",
    ("-o =", WRITE),
    "--rm",
    ("-D =", READ),
    ("--trace =", WRITE),
    "-r",
    ("--filelist =", READ, (_READ_UNNAMED,)),
    ("--output-dir-flat =", Effect(kind="write", action="create", recursive=True)),
    ("--output-dir-mirror =", Effect(kind="write", action="create", recursive=True)),
    "--ultra",
    "--fast [=]",
    "--adapt",
    "--long [=]",
    ("--patch-from =", READ),
    "--single-thread",
    "--auto-threads =",
    "--rsyncable",
    "--exclude-compressed",
    "--stream-size =",
    "--size-hint =",
    "--no-dictID",
    "--format =",
    "--progress",
    "--no-progress",
    "--check",
    "--no-check",
    "--sparse",
    "--no-sparse",
    "-T (=)",
    "-B (=)",
    "-M (=)",
)
_ZSTD: Final = _compressor(
    *_ZSTD_OPTIONS,
    suffixes=_ZSTD_SUFFIXES,
    keeps=True,
    removes="--rm",
    numeric=True,
    decompress="-d --decompress --uncompress",
)
_UNZSTD: Final = _compressor(
    *_ZSTD_OPTIONS,
    suffixes=_ZSTD_SUFFIXES,
    keeps=True,
    removes="--rm",
    numeric=True,
    decompress="-d --decompress --uncompress",
    implied=frozenset({"--decompress"}),
)
_ZSTDCAT: Final = _compressor(
    *_ZSTD_OPTIONS,
    suffixes=_ZSTD_SUFFIXES,
    keeps=True,
    removes="--rm",
    numeric=True,
    decompress="-d --decompress --uncompress",
    implied=frozenset({"--decompress", "--stdout"}),
)

# zip ZIPFILE FILE…: zip's short options may be two letters (-TT CMD runs a
# command to test the archive; -sf lists). -x and -i take every following word
# up to the next option, so they are left out.
_ZIP: Final = row(
    "-h --help",
    "-h2 --more-help",
    "-v --version --verbose",
    "-r --recurse-paths",
    "-R --recurse-patterns",
    "-q --quiet",
    "-0 -1 -2 -3 -4 -5 -6 -7 -8 -9",
    "-j --junk-paths",
    "-D --no-dir-entries",
    "-y --symlinks",
    "-X --no-extra",
    "-o --latest-time",
    "-T --test",
    ("-TT --unzip-command =", RUN_SHELL),
    "-u --update",
    "-f --freshen",
    "-d --delete",
    "-U --copy-entries",
    "-m --move",
    "-sf --show-files",
    "-e --encrypt",
    "-P --password =",
    "-Z --compression-method =",
    "-n --suffixes =",
    "-t --from-date =",
    "-tt --before-date =",
    ("-b --temp-path =", Effect(kind="write", action="create", prefix=True)),
    ("-O --output-file =", WRITE),
    "-s --split-size =",
    "-l --to-crlf",
    "-ll --from-crlf",
    "-k --DOS-names",
    "-A --adjust-sfx",
    "-J --junk-sfx",
    "-F --fix",
    "-FF --fixfix",
    "-FS --filesync",
    "-ws --wild-stop-dirs",
    "-nw --no-wild",
    "-dc --display-counts",
    "-dd --display-dots",
    "-dg --display-globaldots",
    "-dv --display-volume",
    "-MM --must-match",
    ("-@ --names-stdin", Effect(kind="read")),
    style="getopt",
    multichar_short=True,
    abbreviations=False,
    operands=Operands(head=(role(WRITE),), rest=role(READ)),
    recursive=frozenset({"--recurse-paths", "--recurse-patterns"}),
    modes=(
        Mode(
            when=frozenset({"--output-file"}),
            operands=Operands(head=(role(READ),), rest=role(READ)),
        ),
        Mode(when=frozenset({"--delete"}), operands=Operands(head=(role(WRITE),), rest=DATA)),
        Mode(
            when=frozenset({"--show-files"}), operands=Operands(head=(role(READ),), rest=role(READ))
        ),
        Mode(
            when=frozenset({"--move"}),
            operands=Operands(
                head=(role(WRITE),), rest=role(READ, Effect(kind="write", action="delete"))
            ),
        ),
    ),
)

# unzip ZIPFILE [MEMBER…] [-d DIR]: it writes the members (names from the
# archive) under DIR, or the working directory; -: lets a member's ../ climb out.
# -x takes every following word up to the next option, so it is left out.
_UNZIP: Final = row(
    "-Z",
    "-c",
    "-f",
    "-l",
    "-p",
    "-t",
    "-T",
    "-u",
    "-v",
    "-z",
    "-a",
    "-b",
    "-B",
    "-C",
    "-D",
    "-j",
    "-K",
    "-L",
    "-M",
    "-n",
    "-o",
    "-q",
    "-s",
    "-U",
    "-V",
    "-W",
    "-X",
    "-h",
    "-hh",
    ("-d =", _EXTRACT_INTO),
    "-P =",
    "-:",
    "-^",
    "-$",
    "-/ =",
    multichar_short=True,
    abbreviations=False,
    operands=Operands(head=(role(READ),), rest=DATA),
    modes=(
        *(
            Mode(when=frozenset({name}), operands=Operands(head=(role(READ),), rest=DATA))
            for name in ("-Z", "-l", "-t", "-v", "-z", "-p", "-c", "-d")
        ),
        Mode(
            when=frozenset({"-:"}),
            operands=Operands(head=(role(READ),), rest=DATA),
            facts=(Implicit(effect=_EXTRACT_ANYWHERE, via="the archive's members"),),
        ),
    ),
    facts=(
        Implicit(
            effect=_EXTRACT_HERE,
            via="the archive's members",
            unless=frozenset({"-Z", "-l", "-t", "-v", "-z", "-p", "-c", "-d", "-:"}),
        ),
    ),
    examples=(
        *allows("unzip -l a.zip", profile="workspace-write"),
        *refuses("unzip a.zip -d /etc", profile="workspace-write"),
    ),
)


def _seven_zip(
    operands: Operands, *, facts: tuple[Implicit, ...] = (), modes: tuple[Mode, ...] = ()
) -> ProgramRow:
    """One 7z command: its switches are whole words, their values fused (``-oDIR``)."""
    return row(
        "-y",
        "-r -r- -r0",
        ("-o (=)", _EXTRACT_INTO),
        "-p [=]",
        "-t (=)",
        "-m (=)",
        "-v (=)",
        "-bb [=]",
        "-bs (=)",
        "-bt",
        "-bd",
        "-ba",
        "-so",
        "-si [=]",
        "-ao (=)",
        "-sdel",
        "-snl",
        "-snh",
        "-ssw",
        "-slt",
        "-scs (=)",
        "-scc (=)",
        "-sccUTF-8",
        "-x (=)",
        "-i (=)",
        "-an",
        style="words",
        fused_prefix=True,
        response_files=True,
        operands=operands,
        facts=facts,
        modes=modes,
    )


_7Z_ADDS: Final = _seven_zip(
    Operands(head=(role(WRITE),), rest=role(_READ_TREE)),
    modes=(
        # -sdel deletes the files it added, after adding them: each FILE goes, with what is below it.
        Mode(
            when=frozenset({"-sdel"}),
            operands=Operands(head=(role(WRITE),), rest=role(_READ_TREE, _REMOVES_TREE)),
        ),
    ),
)
_7Z_CHANGES: Final = _seven_zip(Operands(head=(role(WRITE),), rest=DATA))
_7Z_READS: Final = _seven_zip(Operands(head=(role(READ),), rest=DATA))
_7Z_EXTRACTS: Final = _seven_zip(
    Operands(head=(role(READ),), rest=DATA),
    facts=(
        Implicit(
            effect=_EXTRACT_HERE,
            via="the archive's members",
            unless=frozenset({"-o", "-so"}),
        ),
    ),
)
_7Z: Final = ProgramRow(
    subcommands={
        "a": _7Z_ADDS,
        "u": _7Z_ADDS,
        "d": _7Z_CHANGES,
        "rn": _7Z_CHANGES,
        "e": _7Z_EXTRACTS,
        "x": _7Z_EXTRACTS,
        "l": _7Z_READS,
        "t": _7Z_READS,
        "h": _7Z_READS,
        "i": _seven_zip(Operands()),
        "b": _seven_zip(Operands()),
    },
)

ARCHIVE_TABLES: Final[Mapping[str, ProgramRow]] = {
    "tar": _TAR,
    "gzip": _GZIP,
    "gunzip": _GUNZIP,
    "zcat": _ZCAT,
    "bzip2": _BZIP2,
    "bunzip2": _BUNZIP2,
    "bzcat": _BZCAT,
    "xz": _XZ,
    "unxz": _UNXZ,
    "xzcat": _XZCAT,
    "zstd": _ZSTD,
    "unzstd": _UNZSTD,
    "zstdcat": _ZSTDCAT,
    "zip": _ZIP,
    "unzip": _UNZIP,
    "7z": _7Z,
    "7za": _7Z,
    "7zz": _7Z,
}
"""Basename → row, for the archivers and compressors."""
