"""
Option tables of the programs that read text and print it: cat, head, sort, grep, diff…

Each of these reads its file operands and prints to standard output; the
table says which options name a file it reads, writes (``sort -o``,
``base64 -o``, ``uniq IN OUT``) or runs (``sort --compress-program``), and
which arities the GNU, BSD and busybox implementations agree on. Where they
disagree the option is left out (it is then undeclared) or declared with the
``fused`` arity, whose separated spelling is undeclared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    DATA,
    FOLLOW,
    READ,
    RUN_PROGRAM,
    WRITE,
    Effect,
    Implicit,
    Mode,
    Operands,
    Option,
    OptionSpec,
    ProgramRow,
    allows,
    refuses,
    role,
)
from gateway._programs._tables._common import GNU, NO_OPERANDS, READS, row

__all__ = ["TEXT_TABLES"]

_READ_UNNAMED: Final = Effect(kind="read", value=None)
"""A read of files no word names (the list in ``--files0-from``, a check file's entries)."""
_CREATE_IN: Final = Effect(kind="write", action="create")

_FILES0: Final = ("--files0-from =", READ, (_READ_UNNAMED,))

_CAT: Final = row(
    *GNU,
    "-A --show-all",
    "-b --number-nonblank",
    "-e",
    "-E --show-ends",
    "-n --number",
    "-s --squeeze-blank",
    "-t",
    "-T --show-tabs",
    "-u",
    "-v --show-nonprinting",
    "-l",  # BSD: lock the output
    operands=READS,
    dash_stdin=True,
    examples=(
        *allows("cat setup.py"),
        *refuses("cat ~/.ssh/id_rsa"),
        *refuses("cat setup.py > ~/.bashrc", profile="workspace-write"),
    ),
)

_HEAD: Final = row(
    *GNU,
    "-c --bytes =",
    "-n --lines =",
    "-q --quiet --silent",
    "-v --verbose",
    "-z --zero-terminated",
    numeric=Option(name="-NUM", arity=1),
    operands=READS,
    dash_stdin=True,
    examples=(
        *allows("head -n 20 setup.py"),
        *refuses("head -c 100 /etc/shadow"),
    ),
)

_TAIL: Final = row(
    *GNU,
    "-c --bytes =",
    ("-f --follow[=]", FOLLOW),
    ("-F", FOLLOW),
    "-n --lines =",
    "--max-unchanged-stats =",
    "--pid =",
    "-q --quiet --silent",
    ("--retry", FOLLOW),
    "-s --sleep-interval =",
    "-v --verbose",
    "-z --zero-terminated",
    "-b =",  # BSD: count in 512-byte blocks
    "-r",  # BSD: reverse
    numeric=Option(name="-NUM", arity=1),
    operands=READS,
    dash_stdin=True,
    examples=(
        *allows("tail -n 5 log.txt"),
        *refuses("tail -f log.txt"),
    ),
)

_WC: Final = row(
    *GNU,
    "-c --bytes",
    "-m --chars",
    "-l --lines",
    "-L --max-line-length",
    "-w --words",
    "--total =",
    _FILES0,
    operands=READS,
    dash_stdin=True,
    examples=(
        *allows("wc -l setup.py"),
        *refuses("wc -c ~/.aws/credentials"),
    ),
)

_NL: Final = row(
    *GNU,
    "-b --body-numbering =",
    "-d --section-delimiter =",
    "-f --footer-numbering =",
    "-h --header-numbering =",
    "-i --line-increment =",
    "-l --join-blank-lines =",
    "-n --number-format =",
    "-p --no-renumber",
    "-s --number-separator =",
    "-v --starting-line-number =",
    "-w --number-width =",
    operands=READS,
    examples=(
        *allows("nl -ba setup.py"),
        *refuses("nl -ba setup.py > ~/.bashrc", profile="workspace-write"),
    ),
)

_OD: Final = row(
    *GNU,
    "-A --address-radix =",
    "--endian =",
    "-j --skip-bytes =",
    "-N --read-bytes =",
    "-S= --strings[=]",
    "-t --format =",
    "-v --output-duplicates",
    "-w --width [=]",
    "--traditional",
    *(f"-{letter}" for letter in "abBcdDeFfHhIiLlOosXx"),
    operands=READS,
    examples=(
        *allows("od -c file.bin"),
        *refuses("od -c ~/.ssh/id_rsa"),
    ),
)

_HEXDUMP: Final = row(
    *GNU,
    "-b --one-byte-octal",
    "-c --one-byte-char",
    "-C --canonical",
    "-d --two-bytes-decimal",
    "-o --two-bytes-octal",
    "-x --two-bytes-hex",
    "-e --format =",
    ("-f --format-file =", READ),
    "-n --length =",
    "-s --skip =",
    "-v --no-squeezing",
    "-h",
    "-V",
    operands=READS,
)

_STRINGS: Final = row(
    *GNU,
    "-a --all",
    "-d --data",
    "-f --print-file-name",
    "-n --bytes =",
    "-t --radix =",
    "-o",
    "-T --target =",
    "-w --include-all-whitespace",
    "-e --encoding =",
    "-s --output-separator =",
    "-U --unicode =",
    "-v -V",
    numeric=Option(name="-NUM", arity=1),
    response_files=True,
    operands=READS,
)

_CUT: Final = row(
    *GNU,
    "-b --bytes =",
    "-c --characters =",
    "-d --delimiter =",
    "-f --fields =",
    "-n",
    "--complement",
    "-s --only-delimited",
    "--output-delimiter =",
    "-z --zero-terminated",
    "-w",  # BSD: split fields on whitespace
    operands=READS,
    examples=(
        *allows("cut -d, -f1 data.csv"),
        *refuses("cut -f1 /etc/shadow"),
    ),
)

_PASTE: Final = row(
    *GNU,
    "-d --delimiters =",
    "-s --serial",
    "-z --zero-terminated",
    operands=READS,
    examples=(
        *allows("paste -d, a.txt b.txt"),
        *refuses("paste a.txt ~/.netrc"),
    ),
)

_JOIN: Final = row(
    *GNU,
    "-a =",
    "-e =",
    "-i --ignore-case",
    "-j =",
    "-o =",
    "-t =",
    "-v =",
    "-1 =",
    "-2 =",
    "--check-order",
    "--nocheck-order",
    "--header",
    "-z --zero-terminated",
    operands=READS,
)

_COMM: Final = row(
    *GNU,
    "-1",
    "-2",
    "-3",
    "-i",  # BSD: case-insensitive
    "--check-order",
    "--nocheck-order",
    "--output-delimiter =",
    "--total",
    "-z --zero-terminated",
    operands=READS,
    examples=(
        *allows("comm -12 a.txt b.txt"),
        *refuses("comm a.txt ~/.ssh/id_rsa"),
    ),
)

_TR: Final = row(
    *GNU,
    "-c -C --complement",
    "-d --delete",
    "-s --squeeze-repeats",
    "-t --truncate-set1",
    "-u",  # BSD: unbuffered
    operands=NO_OPERANDS,
    examples=(
        *allows("tr a-z A-Z < in.txt"),
        *refuses("tr a-z A-Z < ~/.ssh/id_rsa"),
    ),
)

_FOLD: Final = row(*GNU, "-b --bytes", "-s --spaces", "-w --width =", operands=READS)

# BSD fmt's -p (indented paragraphs) and -t (tab width, a value) differ from
# GNU's -p PREFIX and -t (tagged paragraphs): only the long spellings are declared.
_FMT: Final = row(
    *GNU,
    "-c --crown-margin",
    "--prefix =",
    "-s --split-only",
    "--tagged-paragraph",
    "-u --uniform-spacing",
    "-w --width =",
    "-g --goal =",
    "-d =",  # BSD: sentence-ending characters
    "-l =",  # BSD: tab stops to replace
    "-m",  # BSD: mail header lines
    "-n",  # BSD: lines starting with a dot
    numeric=Option(name="-NUM", arity=1),
    operands=READS,
)

_EXPAND: Final = row(*GNU, "-i --initial", "-t --tabs =", operands=READS)
_UNEXPAND: Final = row(*GNU, "-a --all", "--first-only", "-t --tabs =", operands=READS)
_TAC: Final = row(*GNU, "-b --before", "-r --regex", "-s --separator =", operands=READS)
_REV: Final = row(*GNU, "-0 --zero", "-h", "-V", operands=READS)

# util-linux column; the BSD column's -n (do not merge delimiters) is a switch
# where util-linux's -n names the table, so -n is left out.
_COLUMN: Final = row(
    "-t --table",
    "--table-name =",
    "-O --table-order =",
    "-N --table-columns =",
    "-l --table-columns-limit =",
    "-E --table-noextreme =",
    "-d --table-noheadings",
    "-e --table-header-repeat",
    "-H --table-hide =",
    "-R --table-right =",
    "-T --table-truncate =",
    "-W --table-wrap =",
    "-L --keep-empty-lines",
    "-J --json",
    "-r --tree =",
    "-i --tree-id =",
    "-p --tree-parent =",
    "-c --output-width =",
    "-o --output-separator =",
    "-s --separator =",
    "-x --fillrows",
    "-h --help",
    "-V --version",
    operands=READS,
)

_DIFF: Final = row(
    *GNU,
    "--normal",
    "-q --brief",
    "-s --report-identical-files",
    "-c",
    "-C =",
    "--context [=]",
    "-u",
    "-U =",
    "--unified [=]",
    "-e --ed",
    "-n --rcs",
    "-y --side-by-side",
    "-W --width =",
    "--left-column",
    "--suppress-common-lines",
    "-p --show-c-function",
    "-F --show-function-line =",
    "--label =",
    "-t --expand-tabs",
    "-T --initial-tab",
    "--tabsize =",
    "--suppress-blank-empty",
    "-l --paginate",
    "-r --recursive",
    "--no-dereference",
    "-N --new-file",
    "--unidirectional-new-file",
    "--ignore-file-name-case",
    "--no-ignore-file-name-case",
    "-x --exclude =",
    ("-X --exclude-from =", READ),
    "-S --starting-file =",
    ("--from-file =", READ),
    ("--to-file =", READ),
    "-i --ignore-case",
    "-E --ignore-tab-expansion",
    "-Z --ignore-trailing-space",
    "-b --ignore-space-change",
    "-w --ignore-all-space",
    "-B --ignore-blank-lines",
    "-I --ignore-matching-lines =",
    "-a --text",
    "--strip-trailing-cr",
    "-D --ifdef =",
    "--old-group-format =",
    "--new-group-format =",
    "--unchanged-group-format =",
    "--changed-group-format =",
    "--line-format =",
    "--old-line-format =",
    "--new-line-format =",
    "--unchanged-line-format =",
    "-d --minimal",
    "--horizon-lines =",
    "--speed-large-files",
    "--color [=]",
    "--palette =",
    "-v",
    recursive=frozenset({"--recursive"}),
    operands=READS,
    examples=(
        *allows("diff -u a.txt b.txt"),
        *refuses("diff a.txt ~/.ssh/id_rsa"),
    ),
)

_CMP: Final = row(
    *GNU,
    "-b --print-bytes",
    "-i --ignore-initial =",
    "-l --verbose",
    "-n --bytes =",
    "-s --quiet --silent",
    "-v",
    operands=Operands(head=(role(READ), role(READ)), rest=DATA),
)


def _checksum(*extra: OptionSpec) -> ProgramRow:
    """A GNU checksum program (md5sum, sha256sum…): ``--check`` also reads the files it lists."""
    return row(
        *GNU,
        "-b --binary",
        "-c --check",
        "--tag",
        "-t --text",
        "-z --zero",
        "--ignore-missing",
        "--quiet",
        "--status",
        "--strict",
        "-w --warn",
        *extra,
        operands=READS,
        modes=(
            Mode(
                when=frozenset({"--check"}),
                operands=READS,
                facts=(Implicit(effect=_READ_UNNAMED, via="the files a check list names"),),
            ),
        ),
    )


_CKSUM: Final = row(
    *GNU,
    "-a --algorithm =",
    "-c --check",
    "-l --length =",
    "--tag",
    "--untagged",
    "--base64",
    "--raw",
    "-z --zero",
    "--ignore-missing",
    "--quiet",
    "--status",
    "--strict",
    "-w --warn",
    "--debug",
    "-o =",  # BSD: the historic algorithm
    operands=READS,
    modes=(
        Mode(
            when=frozenset({"--check"}),
            operands=READS,
            facts=(Implicit(effect=_READ_UNNAMED, via="the files a check list names"),),
        ),
    ),
)

# macOS and FreeBSD md5/sha256…: -c STRING compares, -s STRING digests a string.
_BSD_DIGEST: Final = row(
    "-c =",
    "-p",
    "-q",
    "-r",
    "-s =",
    "-t",
    "-x",
    operands=READS,
)

_SHASUM: Final = row(
    "-a --algorithm =",
    "-b --binary",
    "-c --check",
    "-t --text",
    "-U --UNIVERSAL",
    "-0 --01",
    "--tag",
    "--ignore-missing",
    "-s --status",
    "-q --quiet",
    "-w --warn",
    "--strict",
    "-h --help",
    "-v --version",
    operands=READS,
    modes=(
        Mode(
            when=frozenset({"--check"}),
            operands=READS,
            facts=(Implicit(effect=_READ_UNNAMED, via="the files a check list names"),),
        ),
    ),
)

_SUM: Final = row(*GNU, "-r", "-s --sysv", operands=READS)

# GNU base64 -i is --ignore-garbage (a switch); macOS base64 -i is --input
# FILE: the short spelling is left out. macOS -o/--output writes a file.
_BASE64: Final = row(
    *GNU,
    "-d -D --decode",
    "--ignore-garbage",
    "-w --wrap =",
    "-b --break =",
    ("--input =", READ),
    ("-o --output =", WRITE),
    "-h",
    operands=READS,
)
_BASE32: Final = row(
    *GNU,
    "-d --decode",
    "-i --ignore-garbage",
    "-w --wrap =",
    operands=READS,
)

_SORT_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    *GNU,
    "-b --ignore-leading-blanks",
    "-d --dictionary-order",
    "-f --ignore-case",
    "-g --general-numeric-sort",
    "-i --ignore-nonprinting",
    "-M --month-sort",
    "-h --human-numeric-sort",
    "-n --numeric-sort",
    "-R --random-sort",
    ("--random-source =", READ),
    "-r --reverse",
    "--sort =",
    "-V --version-sort",
    "--batch-size =",
    "-c --check[=]",
    "-C",
    ("--compress-program =", RUN_PROGRAM),
    "--debug",
    _FILES0,
    "-k --key =",
    "-m --merge",
    ("-o --output =", WRITE),
    "-s --stable",
    "-S --buffer-size =",
    "-t --field-separator =",
    ("-T --temporary-directory =", _CREATE_IN),
    "--parallel =",
    "-u --unique",
    "-z --zero-terminated",
    "--radixsort",  # BSD
    "--mergesort",
    "--qsort",
    "--heapsort",
    "--mmap",
)
_SORT: Final = row(
    *_SORT_OPTIONS,
    operands=READS,
    examples=(
        *allows("sort names.txt"),
        *refuses(
            "sort -o ~/.bashrc names.txt",
            "sort --compress-program=sh names.txt",
            profile="workspace-write",
        ),
    ),
)

# uniq [INPUT [OUTPUT]]: the second operand is a file it writes.
_UNIQ: Final = row(
    *GNU,
    "-c --count",
    "-d --repeated",
    "-D",
    "--all-repeated [=]",
    "-f --skip-fields =",
    "--group [=]",
    "-i --ignore-case",
    "-s --skip-chars =",
    "-u --unique",
    "-z --zero-terminated",
    "-w --check-chars =",
    numeric=Option(name="-NUM", arity=1),
    plus=Option(name="+NUM"),
    operands=Operands(head=(role(READ), role(WRITE)), rest=DATA),
    examples=(
        *allows("uniq -c names.txt"),
        *refuses("uniq names.txt ~/.bashrc", profile="workspace-write"),
    ),
)

# xxd [options] [INFILE [OUTFILE]]: options are whole words (-ps, -cols 8).
_XXD: Final = row(
    "-a -autoskip",
    "-b -bits",
    "-C -capitalize",
    "-E -EBCDIC",
    "-e",
    "-h -help",
    "-i -include",
    "-p -ps -postscript -plain",
    "-r -revert",
    "-d",
    "-u -uppercase",
    "-v -version",
    "-c -cols =",
    "-g -groupsize =",
    "-l -len =",
    "-n -name =",
    "-o -offset =",
    "-s -seek =",
    "-R =",
    style="words",
    operands=Operands(head=(role(READ), role(WRITE)), rest=DATA),
)

_PATTERN: Final = Operands(head=(DATA,), rest=role(READ), empty=())
"""``grep PATTERN FILE…``: the first operand is the pattern."""
_DOT: Final = Effect(kind="read", value=".", fixed=True)


def _pattern_modes(
    pattern_options: frozenset[str], recursive_options: frozenset[str]
) -> tuple[Mode, ...]:
    """
    Modes of a searcher: with a pattern option no operand is the pattern, and
    a recursive search without files reads ``.``.
    """
    modes = [
        Mode(
            when=frozenset({pattern, recursive}),
            operands=Operands(rest=role(READ), empty=(_DOT,)),
        )
        for pattern in sorted(pattern_options)
        for recursive in sorted(recursive_options)
    ]
    modes.extend(
        Mode(when=frozenset({p}), operands=Operands(rest=role(READ)))
        for p in sorted(pattern_options)
    )
    modes.extend(
        Mode(
            when=frozenset({r}),
            operands=Operands(head=(DATA,), rest=role(READ), single=role(_DOT)),
        )
        for r in sorted(recursive_options)
    )
    return tuple(modes)


_GREP_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-E --extended-regexp",
    "-F --fixed-strings",
    "-G --basic-regexp",
    "-P --perl-regexp",
    "-e --regexp =",
    ("-f --file =", READ),
    "-i -y --ignore-case",
    "--no-ignore-case",
    "-w --word-regexp",
    "-x --line-regexp",
    "-z --null-data",
    "-s --no-messages",
    "-v --invert-match",
    "-V --version",
    "--help",
    "-m --max-count =",
    "-b --byte-offset",
    "-n --line-number",
    "--line-buffered",
    "-H --with-filename",
    "-h --no-filename",
    "--label =",
    "-o --only-matching",
    "-q --quiet --silent",
    "--binary-files =",
    "-a --text",
    "-I",
    "-d --directories =",
    "-D --devices =",
    "-r --recursive",
    "-R --dereference-recursive",
    "--include =",
    "--exclude =",
    ("--exclude-from =", READ),
    "--exclude-dir =",
    "-L --files-without-match",
    "-l --files-with-matches",
    "-c --count",
    "-T --initial-tab",
    "-Z --null",
    "-B --before-context =",
    "-A --after-context =",
    # -C NUM everywhere; BSD grep's --context takes its value only fused.
    "-C= --context(=)",
    "--group-separator =",
    "--no-group-separator",
    "--color --colour [=]",
    "-U --binary",
    "-J --bz2decompress",  # BSD
    "-O",
    "-S",
    "-p",
    "-M --lzma",
)

_GREP: Final = row(
    *_GREP_OPTIONS,
    numeric=Option(name="-NUM", arity=1),
    recursive=frozenset({"--recursive", "--dereference-recursive"}),
    operands=_PATTERN,
    modes=_pattern_modes(
        frozenset({"--regexp", "--file"}), frozenset({"--recursive", "--dereference-recursive"})
    ),
    examples=(
        *allows("grep -rn TODO src"),
        *refuses("grep -f ~/.ssh/id_rsa setup.py"),
    ),
)

_PR: Final = row(
    *GNU,
    "--columns =",
    "-a --across",
    "-c --show-control-chars",
    "-d --double-space",
    "-D --date-format =",
    "-e --expand-tabs [=]",
    "-F -f --form-feed",
    "-h --header =",
    "-i --output-tabs [=]",
    "-J --join-lines",
    "-l --length =",
    "-m --merge",
    "-n --number-lines [=]",
    "-N --first-line-number =",
    "-o --indent =",
    "-r --no-file-warnings",
    "-s --separator [=]",
    "-S --sep-string [=]",
    "-t --omit-header",
    "-T --omit-pagination",
    "-v --show-nonprinting",
    "-w --width =",
    "-W --page-width =",
    "--pages =",
    "-p",  # BSD: pause between pages
    numeric=Option(name="-COLUMN", arity=1),
    plus=Option(name="+PAGE"),
    operands=READS,
)

# GNU bc (-e and -f are the BSD bc's expression and file).
_BC: Final = row(
    "-h --help",
    "-i --interactive",
    "-l --mathlib",
    "-q --quiet",
    "-s --standard",
    "-w --warn",
    "-v --version",
    "-e --expression =",
    ("-f --file =", READ),
    operands=READS,
)

_FACTOR: Final = row(*GNU, "-h --exponents", operands=NO_OPERANDS)

_NUMFMT: Final = row(
    *GNU,
    "--debug",
    "-d --delimiter =",
    "--field =",
    "--format =",
    "--from =",
    "--from-unit =",
    "--grouping",
    "--header [=]",
    "--invalid =",
    "--padding =",
    "--round =",
    "--suffix =",
    "--to =",
    "--to-unit =",
    "-z --zero-terminated",
    operand_words=r"-[0-9][0-9.,]*[A-Za-z]*",
    operands=NO_OPERANDS,
)

_DIFFSTAT: Final = row(
    *(f"-{letter}" for letter in "bcCdEhkKlmqRstTuvV"),
    ("-D =", READ),
    ("-e =", WRITE),
    "-f =",
    "-n =",
    "-N =",
    ("-o =", WRITE),
    "-p =",
    "-r =",
    ("-S =", READ),
    "-w =",
    operands=READS,
)

# yq: both implementations (the Go yq and the Python jq wrapper) read their
# files and may read the environment (`env`, `strenv`, `$ENV`) and other files
# (`load`) from their expression. -s is --split-exp FILE in one and --slurp in
# the other; -i edits the files in place.
_YQ_EXPRESSION: Final = role(Effect(kind="execute", action="code"))
"""
yq's expression is a program no reader of the project reads: it may read
any file (``load``, ``load_str``), the environment (``env``, ``strenv``,
``envsubst``) and more, so it is code the rules cannot see into.
"""
_YQ: Final = row(
    "-C --colors",
    "-M --no-colors",
    "-e --exit-status",
    ("-f --from-file =", Effect(kind="execute", action="script")),
    "--front-matter =",
    "-h --help",
    "-I --indent =",
    "-p --input-format =",
    "-o --output-format =",
    "-P --prettyPrint",
    "-N --no-doc",
    "-0 --nul-output",
    "-n --null-input",
    "-r --raw-output",
    "-j --tojson",
    "-y --yaml-output",
    "-Y --yaml-roundtrip",
    "-c --compact-output",
    "-V --version",
    "-v --verbose",
    ("--expression =", _YQ_EXPRESSION.effects[0]),
    "-i --inplace --in-place",
    operands=Operands(head=(_YQ_EXPRESSION,), rest=role(READ)),
    modes=(
        Mode(
            when=frozenset({"--inplace"}),
            operands=Operands(head=(_YQ_EXPRESSION,), rest=role(READ, WRITE)),
        ),
        Mode(when=frozenset({"--from-file"}), operands=Operands(rest=role(READ))),
    ),
    facts=(),
)

TEXT_TABLES: Final[Mapping[str, ProgramRow]] = {
    "cat": _CAT,
    "head": _HEAD,
    "tail": _TAIL,
    "wc": _WC,
    "nl": _NL,
    "od": _OD,
    "hexdump": _HEXDUMP,
    "strings": _STRINGS,
    "cut": _CUT,
    "paste": _PASTE,
    "join": _JOIN,
    "comm": _COMM,
    "tr": _TR,
    "fold": _FOLD,
    "fmt": _FMT,
    "expand": _EXPAND,
    "unexpand": _UNEXPAND,
    "rev": _REV,
    "tac": _TAC,
    "column": _COLUMN,
    "diff": _DIFF,
    "cmp": _CMP,
    "md5sum": _checksum(),
    "sha1sum": _checksum(),
    "sha224sum": _checksum(),
    "sha256sum": _checksum(),
    "sha384sum": _checksum(),
    "sha512sum": _checksum(),
    "b2sum": _checksum("-l --length ="),
    "cksum": _CKSUM,
    "md5": _BSD_DIGEST,
    "sha1": _BSD_DIGEST,
    "sha256": _BSD_DIGEST,
    "sha512": _BSD_DIGEST,
    "shasum": _SHASUM,
    "sum": _SUM,
    "base64": _BASE64,
    "base32": _BASE32,
    "sort": _SORT,
    "uniq": _UNIQ,
    "xxd": _XXD,
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "pr": _PR,
    "bc": _BC,
    "factor": _FACTOR,
    "numfmt": _NUMFMT,
    "diffstat": _DIFFSTAT,
    "yq": _YQ,
}
"""Basename → row, for the text programs."""
