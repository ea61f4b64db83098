"""
Option tables of the programs that list files or describe the system: ls, stat, ps, date…

Most only read names and metadata (``read`` facts with action
``metadata``). What the policy must still see: ``printenv``, ``env`` and
BSD ``ps e`` print environments; ``date -s`` and ``hostname NAME`` change the
system (stated as writes of the system paths that hold the clock and the
host name); ``tail``-like modes that never end (``free -s``, ``vmstat 1``,
``lsof -r``, ``findmnt --poll``) are lifetimes; ``getent hosts NAME`` and
``who --lookup`` resolve names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    DATA,
    ENVIRONMENT,
    FOLLOW,
    METADATA,
    READ,
    RESOLVE,
    Effect,
    Implicit,
    Mode,
    Operands,
    OptionSpec,
    ProgramRow,
    Role,
    allows,
    refuses,
    role,
)
from gateway._programs._tables._common import GNU, LISTS, NO_OPERANDS, READS, row

__all__ = ["SYSTEM_CLOCK", "SYSTEM_HOST_NAME", "SYSTEM_TABLES"]

SYSTEM_CLOCK: Final = "/dev/rtc"
"""The path a change of the system clock is stated as a write of (``date -s``)."""
SYSTEM_HOST_NAME: Final = "/proc/sys/kernel/hostname"
"""The path a change of the host name is stated as a write of (``hostname NAME``)."""

_SETS_CLOCK: Final = Effect(kind="write", action="write", value=SYSTEM_CLOCK, fixed=True)
_SETS_HOST_NAME: Final = Effect(kind="write", action="write", value=SYSTEM_HOST_NAME, fixed=True)
_READ_UNNAMED: Final = Effect(kind="read")
_TREE: Final = Effect(kind="read", action="metadata", recursive=True)
_DOT_TREE: Final = Effect(kind="read", action="metadata", recursive=True, value=".")
_UNNAMED_WRITE: Final = Effect(kind="write", action="create")

# BSD ls: -D FORMAT, -T (full time), -I, -w (raw): GNU -D, -T COLS, -I PATTERN
# and -w COLS differ, so only their GNU long spellings are declared.
_LS_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    *GNU,
    "-a --all",
    "-A --almost-all",
    "--author",
    "-b --escape",
    "--block-size =",
    "-B --ignore-backups",
    "-c",
    "-C",
    "--color [=]",
    "-d --directory",
    "--dired",
    "-f",
    "-F",
    "--classify [=]",
    "--file-type",
    "--format =",
    "--full-time",
    "-g",
    "--group-directories-first",
    "-G --no-group",
    "-h --human-readable",
    "--si",
    "-H --dereference-command-line",
    "--dereference-command-line-symlink-to-dir",
    "--hide =",
    "--hyperlink [=]",
    "--indicator-style =",
    "-i --inode",
    "--ignore =",
    "-k --kibibytes",
    "-l",
    "-L --dereference",
    "-m",
    "-n --numeric-uid-gid",
    "-N --literal",
    "-o",
    "-p",
    "-q --hide-control-chars",
    "--show-control-chars",
    "-Q --quote-name",
    "--quoting-style =",
    "-r --reverse",
    "-R --recursive",
    "-s --size",
    "-S",
    "--sort =",
    "--time =",
    "--time-style =",
    "-t",
    "--tabsize =",
    "-u",
    "-U",
    "-v",
    "--width =",
    "-x",
    "-X",
    "-Z --context",
    "--zero",
    "-1",
    "-e",  # BSD: ACLs
    "-O",  # BSD: file flags
    "-P",  # BSD: do not follow links
    "-W",  # BSD: whiteouts
    "-@",  # macOS: extended attributes
)
_LS: Final = row(
    *_LS_OPTIONS,
    recursive=frozenset({"--recursive"}),
    operands=LISTS,
    examples=(
        *allows("ls -la src"),
        *refuses("ls -la > listing.txt"),
    ),
)

# BSD stat: -f FORMAT and -t TIMEFORMAT take values where GNU -f and -t are
# switches: only --file-system and --terse are declared.
_STAT: Final = row(
    *GNU,
    "-L --dereference",
    "--file-system",
    "--cached =",
    "-c --format =",
    "--printf =",
    "--terse",
    "-F",  # BSD
    "-l",
    "-n",
    "-q",
    "-r",
    "-s",
    "-x",
    operands=Operands(rest=role(METADATA)),
    examples=(
        *allows("stat setup.py"),
        *refuses("stat setup.py > ~/.bashrc", profile="workspace-write"),
    ),
)

_DU: Final = row(
    *GNU,
    "-0 --null",
    "-a --all",
    "-A",  # BSD: apparent size
    "--apparent-size",
    "-B --block-size =",
    "-b --bytes",
    "-c --total",
    "-D --dereference-args",
    "-d --max-depth =",
    ("--files0-from =", READ, (_TREE,)),
    "-H",
    "-h --human-readable",
    "--inodes",
    "-I =",  # BSD: ignore a pattern
    "-k",
    "-L --dereference",
    "-l --count-links",
    "-m",
    "-g",  # BSD
    "-n",  # BSD
    "-r",  # BSD
    "-P --no-dereference",
    "-S --separate-dirs",
    "--si",
    "-s --summarize",
    "-t --threshold =",
    "--time [=]",
    "--time-style =",
    ("-X --exclude-from =", READ),
    "--exclude =",
    "-x --one-file-system",
    operands=Operands(rest=role(_TREE), empty=(_DOT_TREE,)),
    examples=(
        *allows("du -sh src"),
        *refuses("du -sh src > /etc/motd", profile="workspace-write"),
    ),
)

_DF: Final = row(
    *GNU,
    "-a --all",
    "-B --block-size =",
    "-h --human-readable",
    "-H --si",
    "-i --inodes",
    "-k",
    "-l --local",
    "--no-sync",
    "--output [=]",
    "-P --portability",
    "--sync",
    "--total",
    "-t --type =",
    "-T --print-type",
    "-x --exclude-type =",
    "-v",
    "-b",  # BSD
    "-c",
    "-g",
    "-m",
    "-n",
    operands=Operands(rest=role(METADATA)),
    examples=(
        *allows("df -h"),
        *refuses("df -h > ~/.bashrc", profile="workspace-write"),
    ),
)

_REALPATH: Final = row(
    *GNU,
    "-e --canonicalize-existing",
    "-m --canonicalize-missing",
    "-L --logical",
    "-P --physical",
    "-q --quiet",
    "--relative-to =",
    "--relative-base =",
    "-s --strip --no-symlinks",
    "-z --zero",
    operands=Operands(rest=role(METADATA)),
)
_READLINK: Final = row(
    *GNU,
    "-f --canonicalize",
    "-e --canonicalize-existing",
    "-m --canonicalize-missing",
    "-n --no-newline",
    "-q --quiet",
    "-s --silent",
    "-v --verbose",
    "-z --zero",
    operands=Operands(rest=role(METADATA)),
    examples=(
        *allows("readlink -f setup.py"),
        *refuses("readlink -f setup.py > /etc/hosts", profile="workspace-write"),
    ),
)
_BASENAME: Final = row(
    *GNU,
    "-a --multiple",
    "-s --suffix =",
    "-z --zero",
    operands=NO_OPERANDS,
    examples=(
        *allows("basename src/a.py .py"),
        *refuses("basename src/a.py > ~/.profile", profile="workspace-write"),
    ),
)
_DIRNAME: Final = row(
    *GNU,
    "-z --zero",
    operands=NO_OPERANDS,
    examples=(
        *allows("dirname src/a.py"),
        *refuses("dirname src/a.py > /etc/motd", profile="workspace-write"),
    ),
)
_NAMEI: Final = row(
    "-x --mountpoints",
    "-m --modes",
    "-o --owners",
    "-l --long",
    "-n --nosymlinks",
    "-v --vertical",
    "-h --help",
    "-V --version",
    operands=Operands(rest=role(METADATA)),
)
_LSBLK: Final = row(
    "-A --noempty",
    "-D --discard",
    "-E --dedup =",
    "-I --include =",
    "-J --json",
    "-M --merge",
    "-O --output-all",
    "-P --pairs",
    "-S --scsi",
    "-T --tree [=]",
    "-a --all",
    "-b --bytes",
    "-d --nodeps",
    "-e --exclude =",
    "-f --fs",
    "-i --ascii",
    "-l --list",
    "-m --perms",
    "-n --noheadings",
    "-o --output =",
    "-p --paths",
    "-r --raw",
    "-s --inverse",
    "-t --topology",
    "-w --width =",
    "-x --sort =",
    "-y --shell",
    "-z --zoned",
    ("--sysroot =", Effect(kind="read", recursive=True)),
    "-h --help",
    "-V --version",
    operands=Operands(rest=role(METADATA)),
)
_FINDMNT: Final = row(
    "-s --fstab",
    "-m --mtab",
    "-k --kernel",
    ("-p --poll [=]", FOLLOW),
    "-w --timeout =",
    "-A --all",
    "-a --ascii",
    "-b --bytes",
    "-C --nocanonicalize",
    "-c --canonicalize",
    "-D --df",
    "-d --direction =",
    "-e --evaluate",
    ("-F --tab-file =", READ),
    "-f --first-only",
    "-i --invert",
    "-J --json",
    "-l --list",
    "-N --task =",
    "-n --noheadings",
    "-O --options =",
    "-o --output =",
    "--output-all",
    "-P --pairs",
    "--pseudo",
    "--shadowed",
    "-R --submounts",
    "-r --raw",
    "--real",
    "-S --source =",
    "-T --target =",
    "-M --mountpoint =",
    "--tree",
    "-t --types =",
    "-U --uniq",
    "-u --notruncate",
    "-v --nofsroot",
    "-y --shell",
    "-x --verify",
    "--verbose",
    "--vfs-all",
    "-h --help",
    "-V --version",
    operands=Operands(rest=role(METADATA)),
)

# tree: -o FILE writes the listing; -R reruns tree in every directory with
# -o 00Tree.html, writing there.
_TREE_ROW: Final = row(
    *(f"-{letter}" for letter in "adlfxqNQpugshDFvtcUriASnCXJ"),
    "-L =",
    ("-R", Effect(kind="write", action="create", recursive=True, value=None)),
    "-P =",
    "-I =",
    "--gitignore",
    ("--gitfile =", READ),
    "--matchdirs",
    "--metafirst",
    "--ignore-case",
    "--nolinks",
    ("--hintro =", READ),
    ("--houtro =", READ),
    "--inodes",
    "--device",
    "--sort =",
    "--dirsfirst",
    "--filesfirst",
    "--filelimit =",
    "--si",
    "--du",
    "--prune",
    "--charset =",
    "--timefmt =",
    ("--fromfile", Effect(kind="read")),
    "--fflinks",
    "--info",
    ("--infofile =", READ),
    "--noreport",
    "--version",
    "--help",
    "-H =",
    "-T =",
    ("-o =", Effect(kind="write", action="write")),
    abbreviations=False,
    operands=Operands(rest=role(_TREE), empty=(_DOT_TREE,)),
)

# file: -C compiles a magic file into NAME.mgc in the working directory.
_FILE: Final = row(
    "--help",
    "-v --version",
    ("-m --magic-file =", READ),
    "-z --uncompress",
    "-Z --uncompress-noreport",
    "-b --brief",
    "-c --checking-printout",
    "-e --exclude =",
    "--exclude-quiet =",
    ("-f --files-from =", READ, (_READ_UNNAMED,)),
    "-F --separator =",
    "-i --mime",
    "--apple",
    "--extension",
    "--mime-type",
    "--mime-encoding",
    "-k --keep-going",
    "-l --list",
    "-L --dereference",
    "-h --no-dereference",
    "-n --no-buffer",
    "-N --no-pad",
    "-0 --print0",
    "-p --preserve-date",
    "-P --parameter =",
    "-r --raw",
    "-s --special-files",
    "-S --no-sandbox",
    ("-C --compile", _UNNAMED_WRITE),
    "-d --debug",
    "-D",  # BSD: debug
    "-I",  # macOS: MIME
    "-M =",  # macOS: magic files
    operands=READS,
    examples=(
        *allows("file setup.py"),
        *refuses("file -C -m magic"),
    ),
)

_ONE_VARIABLE: Final = Effect(kind="read_environment")
"""A read of one variable of the environment, the operand's name."""

_ENV: Final = row(
    *GNU,
    "-i --ignore-environment",
    "-0 --null",
    "-u --unset =",
    "-C --chdir =",
    "--block-signal [=]",
    "--default-signal [=]",
    "--ignore-signal [=]",
    "--list-signal-handling",
    "-v --debug",
    options_end_after=1,
    operands=Operands(rest=DATA),
    facts=(Implicit(effect=ENVIRONMENT, via="env"),),
)

_PRINTENV: Final = row(
    *GNU,
    "-0 --null",
    operands=Operands(rest=role(_ONE_VARIABLE), empty=(ENVIRONMENT,)),
)

# procps ps and BSD ps. BSD ps -e prints each process's environment (procps
# -e selects every process); both are stated as reading the environment, as
# is the BSD `e` letter. Left out: -C, -g, -N, -u (a value in one, a switch
# in the other).
_PS_DASH: Final[tuple[OptionSpec, ...]] = (
    "-A",
    "-a",
    ("-e", ENVIRONMENT),
    ("-E", ENVIRONMENT),
    "-d",
    "--deselect",
    "-G --Group =",
    "--group =",
    "-p --pid =",
    "--ppid =",
    "-q --quick-pid =",
    "-s --sid =",
    "-t --tty =",
    "--user =",
    "-U --User =",
    "-F",
    "-f",
    "--forest",
    "-H",
    "-j",
    "-l",
    "-M",
    "-O =",
    "-o --format =",
    "-P",
    "-y",
    "--context",
    "--headers",
    "--no-headers --no-heading",
    "--cols --columns --width =",
    "--rows --lines =",
    "-L",
    "-m",
    "-T",
    "-c",
    "--sort =",
    "--cumulative",
    "-V --version",
    "--help",
    "-w",
    "-x",
    "-X",
    "-h",
    "-r",
    "-S",
    "-v",
    "-Z",
)
_PS_LETTERS: Final = row(
    *(f"-{letter}" for letter in "arTxfjlsuvXHmcLnSVwZMh"),
    ("-e", ENVIRONMENT),
    ("-E", ENVIRONMENT),
    "-O =",
    "-o =",
    "-p =",
    "-q =",
    "-t =",
    "-U =",
    "-k =",
).options
_PS: Final = row(
    *_PS_DASH,
    dashless="every",
    dashless_options=_PS_LETTERS,
    operand_words=r"[0-9][0-9,]*",
    operands=NO_OPERANDS,
    examples=(
        *allows("ps aux"),
        *refuses("ps e"),
    ),
)

_PSTREE: Final = row(
    "-a --arguments",
    "-A --ascii",
    "-c --compact-not",
    "-C --color =",
    "-g --show-pgids",
    "-G --vt100",
    "-h --highlight-all",
    "-H --highlight-pid =",
    "-l --long",
    "-n --numeric-sort",
    "-N --ns-sort =",
    "-p --show-pids",
    "-s --show-parents",
    "-S --ns-changes",
    "-t --thread-names",
    "-T --hide-threads",
    "-u --uid-changes",
    "-U --unicode",
    "-V --version",
    "-Z --security-context",
    "--help",
    operands=NO_OPERANDS,
)

# procps pgrep and BSD pgrep; BSD -c CLASS is a value where procps -c counts.
_PGREP: Final = row(
    "-d --delimiter =",
    "-l --list-name",
    "-a --list-full",
    "-v --inverse",
    "-w --lightweight",
    "--count",
    "-f --full",
    "-g --pgroup =",
    "-G --group =",
    "-i --ignore-case",
    "-n --newest",
    "-o --oldest",
    "-O --older =",
    "-P --parent =",
    "-s --session =",
    "-t --terminal =",
    "-u --euid =",
    "-U --uid =",
    "-x --exact",
    ("-F --pidfile =", READ),
    "-L --logpidfile",
    "-r --runstates =",
    "-A --ignore-ancestors",
    "--cgroup =",
    "--ns =",
    "--nslist =",
    "-h --help",
    "-V --version",
    "-q",  # BSD
    "-S",
    "-I",
    "-j =",
    "-M =",
    "-N =",
    operands=NO_OPERANDS,
)

_WHO: Final = row(
    *GNU,
    "-a --all",
    "-b --boot",
    "-d --dead",
    "-H --heading",
    "--ips",
    "-l --login",
    ("--lookup", RESOLVE),
    "-m",
    "-p --process",
    "-q --count",
    "-r --runlevel",
    "-s --short",
    "-t --time",
    "-T -w --mesg --message --writable",
    "-u --users",
    operands=Operands(single=role(READ), rest=DATA),
)
_W: Final = row(
    "-h --no-header",
    "-u --no-current",
    "-s --short",
    "-f --from",
    "-o --old-style",
    "-i --ip-addr",
    "-p --pids",
    "--help",
    "-V --version",
    "-n",  # BSD
    "-d",
    "-M =",
    "-N =",
    operands=NO_OPERANDS,
)
_USERS: Final = row(*GNU, operands=READS)
_FREE: Final = row(
    *GNU,
    "-b --bytes",
    "--kilo",
    "--mega",
    "--giga",
    "--tera",
    "--peta",
    "-k --kibi",
    "-m --mebi",
    "-g --gibi",
    "--tebi",
    "--pebi",
    "-h --human",
    "--si",
    "-l --lohi",
    "-L --line",
    "-t --total",
    "-v --committed",
    ("-s --seconds =", FOLLOW),
    "-c --count =",
    "-w --wide",
    "-V",
    operands=NO_OPERANDS,
    modes=(
        Mode(when=frozenset({"--count"}), operands=NO_OPERANDS, option_effects={"--seconds": None}),
    ),
)

# vmstat [DELAY [COUNT]]: a delay without a count never ends. BSD vmstat -n and
# -w take values where procps -n and -w are switches.
_VMSTAT: Final = row(
    "-a --active",
    "-f --forks",
    "-m --slabs",
    "--one-header",
    "-s --stats",
    "-d --disk",
    "-D --disk-sum",
    "-p --partition =",
    "-S --unit =",
    "--wide",
    "-t --timestamp",
    "-y --no-first",
    "-h --help",
    "-V --version",
    "-c =",  # BSD: count
    "-M =",
    "-N =",
    operands=Operands(single=role(FOLLOW), rest=DATA),
)
_LSCPU: Final = row(
    "-a --all",
    "-b --online",
    "-B --bytes",
    "-C --caches [=]",
    "-c --offline",
    "-J --json",
    "-e --extended [=]",
    "-p --parse [=]",
    ("-s --sysroot =", Effect(kind="read", recursive=True)),
    "-x --hex",
    "-y --physical",
    "--output-all",
    "--hierarchic [=]",
    "-h --help",
    "-V --version",
    operands=NO_OPERANDS,
)
_NO_OPTIONS: Final = row(
    *GNU,
    operands=NO_OPERANDS,
    examples=(
        *allows("whoami"),
        *refuses("whoami > /etc/motd", profile="workspace-write"),
    ),
)
_UNAME: Final = row(
    *GNU,
    "-a --all",
    "-s --kernel-name",
    "-n --nodename",
    "-r --kernel-release",
    "-v --kernel-version",
    "-m --machine",
    "-p --processor",
    "-i --hardware-platform",
    "-o --operating-system",
    "-b",  # BSD
    "-K",
    "-U",
    operands=NO_OPERANDS,
)
_ID: Final = row(
    *GNU,
    "-a",
    "-Z --context",
    "-g --group",
    "-G --groups",
    "-n --name",
    "-r --real",
    "-u --user",
    "-z --zero",
    "-A",  # BSD
    "-c",
    "-F",
    "-M",
    "-P",
    "-p",
    operands=NO_OPERANDS,
)
_UPTIME: Final = row(
    "-p --pretty",
    "-h --help",
    "-s --since",
    "-V --version",
    operands=NO_OPERANDS,
)
_LOCALE: Final = row(
    "-a --all-locales",
    "-m --charmaps",
    "-c --category-name",
    "-k --keyword-name",
    "-v --verbose",
    "-? --help",
    "--usage",
    "-V --version",
    operands=NO_OPERANDS,
)
_TTY: Final = row(*GNU, "-s --silent --quiet", operands=NO_OPERANDS)
_NPROC: Final = row(*GNU, "--all", "--ignore =", operands=NO_OPERANDS)
_GETCONF: Final = row("-a", "-v =", operands=NO_OPERANDS)
_WHICH: Final = row(
    "-a --all",
    "-s",
    "--read-alias",
    "-i",
    "--read-functions",
    "--skip-alias",
    "--skip-dot",
    "--skip-tilde",
    "--show-dot",
    "--show-tilde",
    "--tty-only",
    "-v -V --version",
    "--help",
    operands=NO_OPERANDS,
    examples=(
        *allows("which python"),
        *refuses("which python > /etc/motd", profile="workspace-write"),
    ),
)
# whereis -B/-M/-S take every following directory up to -f: they are left out.
_WHEREIS: Final = row(
    "-b",
    "-m",
    "-s",
    "-u",
    "-l",
    "-a",
    "-q",
    "-h --help",
    "-V --version",
    operands=NO_OPERANDS,
)
# util-linux cal and BSD cal: -m is a switch in one and takes a month in the other.
_CAL: Final = row(
    "-1 --one",
    "-3 --three",
    "-n --months =",
    "-S --span",
    "-s --sunday",
    "--monday",
    "-j --julian",
    "--reform =",
    "--iso",
    "-y --year",
    "-Y --twelve",
    "-w --week [=]",
    "--color [=]",
    "-v --vertical",
    "-c --columns =",
    "-h --help",
    "-V --version",
    "-A =",  # BSD
    "-B =",
    "-d =",
    "-e",
    "-p",
    operands=NO_OPERANDS,
)
_LSMOD: Final = row(operands=NO_OPERANDS)
# GNU arch prints the machine; macOS arch [-arch NAME] PROGRAM [ARGS] runs a
# program (its -arch options are left out): an operand is a program it runs.
_ARCH: Final = row(
    *GNU,
    options_end_after=1,
    operands=Operands(
        head=(Role(effects=(Effect(kind="execute", action="program"),), arguments=True),)
    ),
)
_GROUPS: Final = row(*GNU, operands=NO_OPERANDS)

# getent DATABASE [KEY…]: the name databases resolve their keys.
_GETENT_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-A --no-addrconfig",
    "-i --no-idn",
    "-s --service =",
    "-? --help",
    "--usage",
    "-V --version",
)
_RESOLVES: Final = row(
    *_GETENT_OPTIONS,
    operands=Operands(rest=role(RESOLVE), empty=(Effect(kind="read", value="/etc/hosts"),)),
)
_LOOKS_UP: Final = row(*_GETENT_OPTIONS, operands=NO_OPERANDS)


def _reads_database(path: str) -> ProgramRow:
    return row(
        *_GETENT_OPTIONS,
        operands=NO_OPERANDS,
        facts=(Implicit(effect=Effect(kind="read", value=path), via="the database"),),
    )


_GETENT: Final = row(
    *_GETENT_OPTIONS,
    subcommands={
        **dict.fromkeys(("hosts", "ahosts", "ahostsv4", "ahostsv6", "networks"), _RESOLVES),
        **dict.fromkeys(
            (
                "aliases",
                "ethers",
                "group",
                "initgroups",
                "netgroup",
                "passwd",
                "protocols",
                "rpc",
                "services",
            ),
            _LOOKS_UP,
        ),
        "shadow": _reads_database("/etc/shadow"),
        "gshadow": _reads_database("/etc/gshadow"),
    },
)

# lsof: -i, -g, -s, -r… take the next word as their value unless it begins
# with - or +; +d and +D read a directory tree; -r and +r repeat forever.
_LSOF: Final = row(
    "-a",
    "-b",
    "-c =",
    "-d =",
    "-F [_]",
    "-g [_]",
    "-h -?",
    "-i [_]",
    "-K",
    "-l",
    "-n",
    "-N",
    "-o [_]",
    "-O",
    "-P",
    "-p =",
    "-R",
    ("-r [_]", FOLLOW),
    ("+r [_]", FOLLOW),
    "-s [_]",
    "-t",
    "-u =",
    "-U",
    "-v",
    "-V",
    "-w",
    "+w",
    "-X",
    ("+d =", _TREE),
    ("+D =", _TREE),
    "+c =",
    "-E",
    "+E",
    "-e =",
    abbreviations=False,
    plus_undeclared=True,
    operands=Operands(rest=role(METADATA)),
)

_MAN_DB: Final[tuple[OptionSpec, ...]] = (
    "-d --debug",
    "-v --verbose",
    "-r --regex",
    "-w --wildcard",
    "-l --long",
    ("-C --config-file =", READ),
    "-L --locale =",
    "-m --systems =",
    ("-M --manpath =", Effect(kind="read", recursive=True)),
    "-s --sections --section =",
    "-? --help",
    "--usage",
    "-V --version",
)
_APROPOS: Final = row(*_MAN_DB, "-e --exact", "-a --and", operands=NO_OPERANDS)
_WHATIS: Final = row(*_MAN_DB, operands=NO_OPERANDS)

# date [+FORMAT] or date MMDDhhmm[[CC]YY][.ss], which sets the clock. BSD date
# -f is an input format where GNU -f reads a file: the union reads it.
_DATE: Final = row(
    *GNU,
    "-d --date =",
    "--debug",
    ("-f --file =", READ),
    "-I --iso-8601 [=]",
    "--resolution",
    "-R --rfc-email --rfc-2822",
    "--rfc-3339 =",
    ("-r --reference =", METADATA),
    ("-s --set =", _SETS_CLOCK),
    "-u --utc --universal",
    "-j",  # BSD: do not set the clock
    "-n",
    "-v =",
    operands=Operands(prefixed=(("+", DATA),), rest=role(_SETS_CLOCK)),
    modes=(
        Mode(
            when=frozenset({"-j"}),
            operands=Operands(prefixed=(("+", DATA),), rest=DATA),
        ),
    ),
    examples=(
        *allows("date +%F"),
        *refuses("date -s 2020-01-01", profile="workspace-write"),
    ),
)

# hostname [NAME] sets the host name; -F FILE sets it from a file.
_HOSTNAME: Final = row(
    "-a --alias",
    "-A --all-fqdns",
    "-b --boot",
    "-d --domain",
    "-f --fqdn --long",
    ("-F --file =", READ, (_SETS_HOST_NAME,)),
    "-i --ip-address",
    "-I --all-ip-addresses",
    "-s --short",
    "-y --yp --nis",
    "-h --help",
    "-V --version",
    operands=Operands(rest=role(_SETS_HOST_NAME)),
    examples=(
        *allows("hostname"),
        *refuses("hostname evil", profile="workspace-write"),
    ),
)

SYSTEM_TABLES: Final[Mapping[str, ProgramRow]] = {
    "ls": _LS,
    "dir": _LS,
    "vdir": _LS,
    "stat": _STAT,
    "du": _DU,
    "df": _DF,
    "realpath": _REALPATH,
    "readlink": _READLINK,
    "basename": _BASENAME,
    "dirname": _DIRNAME,
    "namei": _NAMEI,
    "lsblk": _LSBLK,
    "findmnt": _FINDMNT,
    "tree": _TREE_ROW,
    "file": _FILE,
    "env": _ENV,
    "printenv": _PRINTENV,
    "ps": _PS,
    "pstree": _PSTREE,
    "pgrep": _PGREP,
    "who": _WHO,
    "w": _W,
    "users": _USERS,
    "free": _FREE,
    "vmstat": _VMSTAT,
    "lscpu": _LSCPU,
    "lsmod": _LSMOD,
    "arch": _ARCH,
    "uname": _UNAME,
    "id": _ID,
    "groups": _GROUPS,
    "whoami": _NO_OPTIONS,
    "uptime": _UPTIME,
    "locale": _LOCALE,
    "tty": _TTY,
    "nproc": _NPROC,
    "getconf": _GETCONF,
    "which": _WHICH,
    "whereis": _WHEREIS,
    "cal": _CAL,
    "getent": _GETENT,
    "lsof": _LSOF,
    "apropos": _APROPOS,
    "whatis": _WHATIS,
    "date": _DATE,
    "hostname": _HOSTNAME,
}
"""Basename → row, for the programs that list files or describe the system."""
