"""
Option tables of administration programs the corpora show agents using: crontab, top, ssh-keygen, mount.

``crontab FILE`` installs a schedule that runs commands later (a write of the
user's crontab, a persistence path); ``crontab -e`` also runs an editor.
``top`` never ends unless given a number of iterations. ``ssh-keygen``
writes or reads key files by its mode, and loads provider libraries (``-w``,
``-D``). ``mount`` attaches a file system over a directory (a write of it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    FOLLOW,
    READ,
    RUN_CODE,
    RUN_PROGRAM,
    WRITE,
    Effect,
    Implicit,
    Mode,
    Operands,
    OptionSpec,
    ProgramRow,
    role,
)
from gateway._programs._tables._common import NO_OPERANDS, row

__all__ = ["ADMIN_TABLES", "USER_CRONTAB"]

USER_CRONTAB: Final = "/var/spool/cron/crontabs"
"""Where a user's crontab lives; ``crontab FILE`` is stated as a write of it."""

_INSTALLS_CRONTAB: Final = Effect(kind="write", action="write", value=USER_CRONTAB, fixed=True)

# cronie and Vixie cron: crontab [-u USER] FILE | -l | -r | -e.
_CRONTAB: Final = row(
    "-u =",
    "-l",
    "-r",
    "-e",
    "-i",
    "-n =",
    "-c",
    "-s",
    "-T",
    "-V",
    options_end_after=1,
    operands=Operands(
        rest=role(READ, _INSTALLS_CRONTAB),
        empty=(Effect(kind="read", value="-"), _INSTALLS_CRONTAB),
    ),
    modes=(
        Mode(
            when=frozenset({"-l"}),
            operands=NO_OPERANDS,
            facts=(Implicit(effect=Effect(kind="read", value=USER_CRONTAB), via="the crontab"),),
        ),
        Mode(
            when=frozenset({"-r"}),
            operands=NO_OPERANDS,
            facts=(
                Implicit(
                    effect=Effect(kind="write", action="delete", value=USER_CRONTAB),
                    via="the crontab",
                ),
            ),
        ),
        Mode(
            when=frozenset({"-e"}),
            operands=NO_OPERANDS,
            facts=(
                Implicit(
                    effect=Effect(kind="write", action="write", value=USER_CRONTAB),
                    via="the crontab",
                ),
                Implicit(effect=RUN_PROGRAM, via="the editor"),
            ),
        ),
        Mode(when=frozenset({"-T"}), operands=Operands(rest=role(READ))),
        Mode(when=frozenset({"-V"}), operands=NO_OPERANDS),
    ),
    environment=frozenset({"EDITOR", "VISUAL"}),
)

# procps top and BSD top: without a number of iterations (-n, macOS -l) it
# never ends. Left out: -s and -u (a switch in one, a value in the other).
_TOP: Final = row(
    "-b --batch-mode",
    "-c --cmdline-toggle",
    "-d --delay =",
    "-E --scale-summary-mem =",
    "-e --scale-task-mem =",
    "-H --threads-show",
    "-i --idle-toggle",
    "-n --iterations =",
    "-O --list-fields",
    "-o --sort-override =",
    "-p --pid =",
    "-S --accum-time-toggle",
    "-U --filter-any-user =",
    "-V --version",
    "-h --help",
    "-1 --single-cpu-toggle",
    "-l =",  # macOS: samples
    operands=NO_OPERANDS,
    facts=(
        Implicit(
            effect=FOLLOW,
            via="top",
            unless=frozenset({"--iterations", "-l", "--version", "--help", "--list-fields"}),
        ),
    ),
)

# ssh-keygen: what -f names is written when a key is made or changed, and
# read in the modes that only show or check.
_KEY_WRITES: Final = Effect(kind="write", action="write")
_SSH_KEYGEN_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-q",
    "-a =",
    "-b =",
    "-C =",
    ("-f =", _KEY_WRITES),
    "-m =",
    "-N =",
    "-O =",
    "-t =",
    ("-w =", RUN_CODE),
    "-Z =",
    "-p",
    "-P =",
    "-i",
    "-e",
    "-y",
    "-c",
    "-l",
    "-v",
    "-E =",
    "-B",
    ("-D =", RUN_CODE),
    "-F =",
    "-H",
    "-K",
    "-R =",
    "-r =",
    "-g",
    "-M =",
    "-I =",
    ("-s =", READ),
    "-h",
    "-U",
    "-n =",
    "-V =",
    "-z =",
    "-L",
    "-A",
    "-k",
    "-u",
    "-Q",
    "-Y =",
)
_SHOWS: Final = ("-i", "-e", "-y", "-l", "-B", "-F", "-L", "-Q")
_SSH_KEYGEN: Final = row(
    *_SSH_KEYGEN_OPTIONS,
    abbreviations=False,
    operands=Operands(rest=role(WRITE)),
    modes=(
        *(
            Mode(
                when=frozenset({name}),
                operands=Operands(rest=role(READ)),
                option_effects={"-f": READ},
            )
            for name in _SHOWS
        ),
        Mode(
            when=frozenset({"-A"}),
            operands=NO_OPERANDS,
            facts=(
                Implicit(
                    effect=Effect(kind="write", action="create", value="/etc/ssh"),
                    via="the host keys",
                ),
            ),
        ),
    ),
    facts=(
        Implicit(
            effect=Effect(kind="write", action="create", value="~/.ssh", recursive=True),
            via="the default key file",
            unless=frozenset({"-f", *_SHOWS, "-A"}),
        ),
    ),
)

# mount [-t TYPE] [-o OPTIONS] DEVICE DIR: DIR is covered by the file system.
_MOUNT_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-a --all",
    "-f --fake",
    "-F --fork",
    "-i --internal-only",
    "-l --show-labels",
    "-n --no-mtab",
    "-r --read-only",
    "-w --rw --read-write",
    "-v --verbose",
    "-V --version",
    "-h --help",
    "-t --types =",
    "-o --options =",
    "-L --label =",
    "-U --uuid =",
    "-B --bind",
    "-R --rbind",
    "-M --move",
    "--make-private",
    "--make-shared",
    "--make-slave",
    "--make-rprivate",
    "--make-rshared",
    "--make-rslave",
    "-T --fstab =",
    "--target =",
    "--source =",
)
_COVERS: Final = Effect(kind="write", action="write", recursive=True)
_MOUNT: Final = row(
    *_MOUNT_OPTIONS,
    operands=Operands(
        tail=(role(_COVERS),),
        rest=role(READ),
        single=role(_COVERS),
        empty=(Effect(kind="read", value="/proc/mounts"),),
    ),
    modes=(
        Mode(when=frozenset({"--version"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"--help"}), operands=NO_OPERANDS),
        Mode(
            when=frozenset({"--all"}),
            operands=NO_OPERANDS,
            facts=(
                Implicit(
                    effect=Effect(kind="write", action="write", recursive=True, value="/"),
                    via="fstab",
                ),
            ),
        ),
    ),
)
_UMOUNT: Final = row(
    "-a --all",
    "-f --force",
    "-l --lazy",
    "-r --read-only",
    "-R --recursive",
    "-v --verbose",
    "-n --no-mtab",
    "-t --types =",
    "-O --test-opts =",
    "-q --quiet",
    "-V --version",
    "-h --help",
    operands=Operands(rest=role(_COVERS)),
)

ADMIN_TABLES: Final[Mapping[str, ProgramRow]] = {
    "crontab": _CRONTAB,
    "top": _TOP,
    "ssh-keygen": _SSH_KEYGEN,
    "mount": _MOUNT,
    "umount": _UMOUNT,
}
"""Basename → row, for the administration programs."""
