"""
Option tables of the programs that create, change and remove files: cp, mv, rm, tee, dd…

What each writes is stated per operand: ``cp SRC… DEST`` reads its sources
and writes DEST (and ``DEST/basename(SRC)``, in case DEST is a directory);
``mv`` moves every operand; ``rm`` deletes them (recursively with ``-r``);
``tee`` writes them all; ``chmod MODE FILE…`` changes modes; ``dd`` reads
``if=`` and writes ``of=``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from gateway._programs._rows import (
    APPEND,
    CREATE,
    DATA,
    DELETE,
    DIRECTORY,
    METADATA,
    MODE,
    MOVE,
    OWNER,
    READ,
    RUN_CODE,
    RUN_PROGRAM,
    RUN_SHELL,
    WRITE,
    Effect,
    Implicit,
    Mode,
    Operands,
    OptionSpec,
    ProgramRow,
    allows,
    refuses,
    role,
)
from gateway._programs._tables._common import GNU, row

__all__ = ["FILE_TABLES"]

_COPY: Final = Effect(kind="write", action="copy")
_LINK: Final = Effect(kind="write", action="link")
_TREE_COPY: Final = Effect(kind="write", action="copy", recursive=True)
_CHDIR: Final = Effect(kind="cwd")

_BACKUPS: Final = frozenset({"--backup", "-b", "--suffix"})
"""GNU's backup options (`ProgramRow.backups`); a suffix alone also makes backups."""

_COPIES: Final = Operands(tail=(role(_COPY),), rest=role(READ), into=True)
"""``cp SRC… DEST``: the sources are read, DEST (or ``DEST/basename(SRC)``) written."""
_COPIES_INTO: Final = Operands(rest=role(READ), into_option="--target-directory")
_COPIES_ONTO: Final = Operands(tail=(role(_COPY),), rest=role(READ))
_LINKS: Final = Operands(tail=(role(_LINK),), rest=role(READ), into=True)
"""``cp -s SRC… DEST``: DEST (or ``DEST/basename(SRC)``) becomes a link to each source."""

_CP: Final = row(
    *GNU,
    "-a --archive",
    "--attributes-only",
    "--backup [=]",
    "-b",
    "--copy-contents",
    "-d",
    "-f --force",
    "-i --interactive",
    "-H",
    "-l --link",
    "-L --dereference",
    "-n --no-clobber",
    "-P --no-dereference",
    "-p",
    "--preserve [=]",
    "--no-preserve =",
    "--parents",
    "-R -r --recursive",
    "--reflink [=]",
    "--remove-destination",
    "--sparse =",
    "--strip-trailing-slashes",
    "-s --symbolic-link",
    "-S --suffix =",
    ("-t --target-directory =", _COPY),
    "-T --no-target-directory",
    "-u --update[=]",
    "-v --verbose",
    "-x --one-file-system",
    "-Z",
    "--context [=]",
    "--debug",
    "-c",  # macOS: clone
    "-X",  # macOS: no extended attributes
    recursive=frozenset({"--recursive", "--archive"}),
    backups=_BACKUPS,
    operands=_COPIES,
    modes=(
        # `cp -s` and `cp -l` make links, not copies: a later write through
        # one lands wherever its source is.
        *(
            Mode(
                when=frozenset({link, "--target-directory"}),
                operands=_COPIES_INTO,
                option_effects=MappingProxyType({"--target-directory": _LINK}),
            )
            for link in ("--symbolic-link", "--link")
        ),
        *(Mode(when=frozenset({link}), operands=_LINKS) for link in ("--symbolic-link", "--link")),
        Mode(when=frozenset({"--target-directory"}), operands=_COPIES_INTO),
        Mode(when=frozenset({"--no-target-directory"}), operands=_COPIES_ONTO),
        Mode(
            when=frozenset({"--parents"}),
            operands=Operands(tail=(role(_TREE_COPY),), rest=role(READ)),
        ),
    ),
    examples=(
        *allows("cp a.txt b.txt", "cp -b -S .bak a.txt b.txt", profile="workspace-write"),
        *refuses(
            "cp a.txt ~/.bashrc",
            "cp -b --suffix=g a.txt .git/confi",
            "cp --backup -S rc -t . .env",
            profile="workspace-write",
        ),
    ),
)

_MOVES: Final = Operands(tail=(role(MOVE),), rest=role(MOVE), into=True)

_MV: Final = row(
    *GNU,
    "--backup [=]",
    "-b",
    "-f --force",
    "-i --interactive",
    "-n --no-clobber",
    "--strip-trailing-slashes",
    "-S --suffix =",
    ("-t --target-directory =", MOVE),
    "-T --no-target-directory",
    "-u --update[=]",
    "-v --verbose",
    "-Z --context",
    "--debug",
    "--exchange",
    "--no-copy",
    "-h",  # BSD: do not follow a symbolic link to a directory
    backups=_BACKUPS,
    operands=_MOVES,
    modes=(
        Mode(
            when=frozenset({"--target-directory"}),
            operands=Operands(rest=role(MOVE), into_option="--target-directory"),
        ),
        Mode(
            when=frozenset({"--no-target-directory"}),
            operands=Operands(tail=(role(MOVE),), rest=role(MOVE)),
        ),
    ),
    examples=(
        *allows("mv a.txt b.txt", "mv --backup=simple a.txt b.txt", profile="workspace-write"),
        *refuses("mv a.txt /usr/bin/a", "mv -b -S nvrc a.txt .e", profile="workspace-write"),
    ),
)

_RM: Final = row(
    *GNU,
    "-f --force",
    "-i",
    "-I",
    "--interactive [=]",
    "--one-file-system",
    "--no-preserve-root",
    "--preserve-root [=]",
    "-r -R --recursive",
    "-d --dir",
    "-v --verbose",
    "-P",  # BSD: overwrite before deleting
    "-W",  # BSD: undelete
    "-x",  # BSD: stay on one file system
    recursive=frozenset({"--recursive"}),
    operands=Operands(rest=role(DELETE)),
    examples=(
        *allows("rm build/tmp.txt", profile="workspace-write"),
        *refuses("rm build/tmp.txt"),
        *refuses("rm -rf ~", profile="workspace-write"),
    ),
)

_RMDIR: Final = row(
    *GNU,
    "--ignore-fail-on-non-empty",
    "-p --parents",
    "-v --verbose",
    operands=Operands(rest=role(DELETE)),
    examples=(
        *allows("rmdir build", profile="workspace-write"),
        *refuses("rmdir ~/.ssh", profile="workspace-write"),
    ),
)

_MKDIR: Final = row(
    *GNU,
    "-m --mode =",
    "-p --parents",
    "-v --verbose",
    "-Z",
    "--context [=]",
    operands=Operands(rest=role(DIRECTORY)),
    examples=(
        *allows("mkdir -p build/out", profile="workspace-write"),
        *refuses("mkdir -p build/out"),
        *refuses("mkdir -p ~/.config/autostart", profile="workspace-write"),
    ),
)

_TOUCH: Final = row(
    *GNU,
    "-a",
    "-c --no-create",
    "-d --date =",
    "-f",
    "-h --no-dereference",
    "-m",
    ("-r --reference =", METADATA),
    "-t =",
    "--time =",
    "-A =",  # BSD: adjust the time
    operands=Operands(rest=role(CREATE)),
    examples=(
        *allows("touch notes.txt", profile="workspace-write"),
        *refuses("touch ~/.bashrc", profile="workspace-write"),
    ),
)

_LN: Final = row(
    *GNU,
    "--backup [=]",
    "-b",
    "-d -F --directory",
    "-f --force",
    "-i --interactive",
    "-L --logical",
    "-n --no-dereference",
    "-P --physical",
    "-r --relative",
    "-s --symbolic",
    "-S --suffix =",
    ("-t --target-directory =", _LINK),
    "-T --no-target-directory",
    "-v --verbose",
    "-h",  # BSD: do not follow a link to a directory
    "-w",  # BSD: warn about missing targets
    backups=_BACKUPS,
    operands=Operands(
        tail=(role(_LINK),),
        rest=DATA,
        single=role(Effect(kind="write", action="link", derive="basename")),
        into=True,
    ),
    modes=(
        Mode(
            when=frozenset({"--target-directory"}),
            operands=Operands(rest=DATA, into_option="--target-directory"),
        ),
        Mode(
            when=frozenset({"--no-target-directory"}),
            operands=Operands(tail=(role(_LINK),), rest=DATA),
        ),
    ),
    examples=(
        *allows("ln --version", profile="workspace-write"),
        *refuses(
            "ln -s a.txt b.txt",
            "ln -s /etc/passwd ~/.bashrc",
            "ln -sb -S rc a.txt .env",
            profile="workspace-write",
        ),
    ),
)

# A mode written as an option (`chmod -x FILE`, `chmod -rwx,g+w FILE`) is an operand.
_MODE_WORD: Final = r"-[rwxXstugoa0-7,+=-]+"

_CHMOD: Final = row(
    *GNU,
    "-c --changes",
    "-f --silent --quiet",
    "-v --verbose",
    "--no-preserve-root",
    "--preserve-root",
    ("--reference =", METADATA),
    "-R --recursive",
    "-h",  # BSD: the link itself
    "-H",
    "-L",
    "-P",
    operand_words=_MODE_WORD,
    recursive=frozenset({"--recursive"}),
    operands=Operands(head=(DATA,), rest=role(MODE)),
    modes=(Mode(when=frozenset({"--reference"}), operands=Operands(rest=role(MODE))),),
    examples=(
        *allows("chmod +x run.sh", profile="workspace-write"),
        *refuses("chmod -R 777 /", profile="workspace-write"),
    ),
)


def _owner_row(*extra: OptionSpec) -> ProgramRow:
    """chown OWNER FILE… / chgrp GROUP FILE…."""
    return row(
        *GNU,
        *extra,
        "-c --changes",
        "-f --silent --quiet",
        "-v --verbose",
        "--dereference",
        "-h --no-dereference",
        "--no-preserve-root",
        "--preserve-root",
        ("--reference =", METADATA),
        "-R --recursive",
        "-H",
        "-L",
        "-P",
        "-n",  # BSD: numeric ids
        "-x",  # BSD: stay on one file system
        recursive=frozenset({"--recursive"}),
        operands=Operands(head=(DATA,), rest=role(OWNER)),
        modes=(Mode(when=frozenset({"--reference"}), operands=Operands(rest=role(OWNER))),),
    )


# GNU install's -D (make parents), -T (no target directory) and -S SUFFIX are
# BSD install's -D DESTDIR, -T TAGS and -S (safe copy): their short spellings
# are left out.
_INSTALL: Final = row(
    *GNU,
    "--backup [=]",
    "-b",
    "-c",
    "-C --compare",
    "-d --directory",
    "-g --group =",
    "-m --mode =",
    "-o --owner =",
    "-p --preserve-timestamps",
    "-s --strip",
    ("--strip-program =", RUN_PROGRAM),
    "--suffix =",
    ("-t --target-directory =", _COPY),
    "--no-target-directory",
    "-v --verbose",
    "--preserve-context",
    "-Z",
    "--context [=]",
    "--debug",
    "-B =",  # BSD: backup suffix
    "-f =",  # BSD: file flags
    "-M",
    "-U",
    backups=frozenset({*_BACKUPS, "-B"}),
    operands=_COPIES,
    modes=(
        Mode(when=frozenset({"--directory"}), operands=Operands(rest=role(DIRECTORY))),
        Mode(when=frozenset({"--target-directory"}), operands=_COPIES_INTO),
        Mode(when=frozenset({"--no-target-directory"}), operands=_COPIES_ONTO),
    ),
)

_TRUNCATE: Final = row(
    *GNU,
    "-c --no-create",
    "-o --io-blocks",
    ("-r --reference =", METADATA),
    "-s --size =",
    operands=Operands(rest=role(WRITE)),
)

_SHRED: Final = row(
    *GNU,
    "-f --force",
    "-n --iterations =",
    ("--random-source =", READ),
    "-s --size =",
    "-u --remove[=]",
    "-v --verbose",
    "-x --exact",
    "-z --zero",
    operands=Operands(rest=role(WRITE)),
    modes=(Mode(when=frozenset({"--remove"}), operands=Operands(rest=role(WRITE, DELETE))),),
)

_TEE: Final = row(
    *GNU,
    "-a --append",
    "-i --ignore-interrupts",
    "-p",
    "--output-error [=]",
    operands=Operands(rest=role(WRITE)),
    modes=(Mode(when=frozenset({"--append"}), operands=Operands(rest=role(APPEND))),),
    examples=(
        *allows("tee out.txt", profile="workspace-write"),
        *refuses("tee out.txt"),
        *refuses("tee ~/.bashrc", profile="workspace-write"),
    ),
)

# split [INPUT [PREFIX]]: PREFIX (default `x`) begins the names of the files it writes.
_PREFIX: Final = Effect(kind="write", action="create", prefix=True)
_X_PREFIX: Final = Effect(kind="write", action="create", prefix=True, value="x", fixed=True)

_SPLIT: Final = row(
    *GNU,
    "-a --suffix-length =",
    "--additional-suffix =",
    "-b --bytes =",
    "-C --line-bytes =",
    "-d",
    "--numeric-suffixes [=]",
    "-x",
    "--hex-suffixes [=]",
    "-e --elide-empty-files",
    ("--filter =", RUN_SHELL),
    "-l --lines =",
    "-n --number =",
    "-t --separator =",
    "-u --unbuffered",
    "--verbose",
    "-p =",  # BSD: split at lines matching a pattern
    operands=Operands(
        head=(role(READ), role(_PREFIX)),
        rest=DATA,
        single=role(READ, _X_PREFIX),
        empty=(_X_PREFIX,),
    ),
    modes=(
        Mode(
            when=frozenset({"--filter"}),
            operands=Operands(head=(role(READ),), rest=DATA),
        ),
    ),
)

_CSPLIT: Final = row(
    *GNU,
    "-b --suffix-format =",
    ("-f --prefix =", _PREFIX),
    "-k --keep-files",
    "--suppress-matched",
    "-n --digits =",
    "-s --quiet --silent",
    "-z --elide-empty-files",
    operands=Operands(head=(role(READ),), rest=DATA),
    facts=(
        Implicit(
            effect=Effect(kind="write", action="create", prefix=True, value="xx"),
            via="the default prefix",
            unless=frozenset({"--prefix"}),
        ),
    ),
)

_DD: Final = row(
    *GNU,
    operands=Operands(
        keys={
            "if": role(READ),
            "of": role(WRITE),
            **dict.fromkeys(
                [
                    "bs",
                    "ibs",
                    "obs",
                    "cbs",
                    "count",
                    "skip",
                    "seek",
                    "iseek",
                    "oseek",
                    "iflag",
                    "oflag",
                    "conv",
                    "status",
                    "fillchar",
                    "speed",
                    "files",
                ],
                DATA,
            ),
        }
    ),
)

_UNLINK: Final = row(*GNU, operands=Operands(rest=role(DELETE)))

# GNU mktemp -t is a switch, BSD mktemp -t PREFIX takes a value: -t is left out.
# A template's trailing X's become random characters; what precedes them
# begins the name. In another directory (-p DIR, $TMPDIR) the name is DIR/….
_TEMP_FILE: Final = Effect(
    kind="write",
    action="create",
    prefix=True,
    value="/tmp/tmp.",  # noqa: S108 - where mktemp creates its file, stated, not used
)
_IN_DIRECTORY: Final = Effect(kind="write", action="create", prefix=True)
_MKTEMP: Final = row(
    *GNU,
    "-d --directory",
    "-u --dry-run",
    "-q --quiet",
    "--suffix =",
    ("-p= --tmpdir[=]", _IN_DIRECTORY),
    operands=Operands(
        rest=role(Effect(kind="write", action="create", prefix=True, derive="template")),
        empty=(_TEMP_FILE,),
    ),
    modes=(
        Mode(when=frozenset({"--dry-run"}), operands=Operands()),
        Mode(
            when=frozenset({"--tmpdir"}),
            operands=Operands(
                rest=role(Effect(kind="write", action="create", prefix=True, fixed=True))
            ),
        ),
    ),
    examples=(
        *allows("mktemp", profile="workspace-write"),
        *refuses("mktemp -p /etc", profile="workspace-write"),
    ),
)

# patch writes the files its patch names, which no word of the command shows.
_PATCHED: Final = Effect(kind="write", action="write", value=None)
_PATCH: Final = row(
    "-p --strip =",
    "-F --fuzz =",
    "-l --ignore-whitespace",
    "-c --context",
    "-e --ed",
    "-n --normal",
    "-u --unified",
    "-N --forward",
    "-R --reverse",
    ("-i --input =", READ),
    ("-o --output =", WRITE),
    ("-r --reject-file =", WRITE),
    "-D --ifdef =",
    "--merge [=]",
    "-E --remove-empty-files",
    "-Z --set-utc",
    "-T --set-time",
    "--quoting-style =",
    "-b --backup",
    "--backup-if-mismatch",
    "--no-backup-if-mismatch",
    "-V --version-control =",
    ("-B --prefix =", _PREFIX),
    ("-Y --basename-prefix =", _PREFIX),
    "-z --suffix =",
    "-g --get =",
    "-t --batch",
    "-f --force",
    "-s --quiet --silent",
    "--verbose",
    "--dry-run",
    "-C --check",
    "--posix",
    ("-d --directory =", _CHDIR),
    "--reject-format =",
    "--binary",
    "--read-only =",
    "-v --version",
    "--help",
    "-x --debug =",
    operands=Operands(head=(role(WRITE), role(READ)), rest=DATA),
    modes=tuple(
        Mode(when=frozenset({name}), operands=Operands(head=(role(READ), role(READ))))
        for name in ("--dry-run", "--check", "--output")
    ),
    facts=(
        Implicit(
            effect=_PATCHED,
            via="the files the patch names",
            unless=frozenset({"--dry-run", "--check", "--output"}),
        ),
    ),
    cwd_first=True,
)

# Two programs are called rename: the Perl one runs its first operand as
# Perl code; util-linux's replaces text in the names. The union is stated.
_RENAME: Final = row(
    "-v --verbose",
    "-n --nono --no-act",
    "-f --force",
    "-s --symlink",
    "-o --no-overwrite",
    "-i --interactive",
    "-l --last",
    "-d --filename --nopath --nofullpath",
    ("-e =", RUN_CODE),
    ("-E =", RUN_CODE),
    "-h --help",
    "-V --version",
    operands=Operands(head=(role(RUN_CODE),), rest=role(MOVE)),
    modes=(
        Mode(when=frozenset({"-e"}), operands=Operands(rest=role(MOVE))),
        Mode(when=frozenset({"-E"}), operands=Operands(rest=role(MOVE))),
    ),
)

FILE_TABLES: Final[Mapping[str, ProgramRow]] = {
    "cp": _CP,
    "mv": _MV,
    "rm": _RM,
    "rmdir": _RMDIR,
    "mkdir": _MKDIR,
    "touch": _TOUCH,
    "ln": _LN,
    "chmod": _CHMOD,
    "chown": _owner_row("--from ="),
    "chgrp": _owner_row(),
    "install": _INSTALL,
    "truncate": _TRUNCATE,
    "shred": _SHRED,
    "tee": _TEE,
    "split": _SPLIT,
    "csplit": _CSPLIT,
    "dd": _DD,
    "unlink": _UNLINK,
    "mktemp": _MKTEMP,
    "patch": _PATCH,
    "rename": _RENAME,
}
"""Basename → row, for the programs that change files."""
