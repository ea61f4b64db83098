"""
Option tables of the recursive searchers ripgrep (rg) and the silver searcher (ag).

Both read the tree below each path (``.`` without one). What else they do:
``rg --pre COMMAND`` runs a program on every file, ``--hostname-bin`` runs one
for its hyperlinks, ``-z`` runs the decompressors found on ``PATH``; ``ag
--pager COMMAND`` pipes its output through shell text; ``rg -f``, ``ag -p``
and ``--ignore-file`` read files; ``RIPGREP_CONFIG_PATH`` names a file of
more options.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    DATA,
    READ,
    RUN_PROGRAM,
    RUN_SHELL,
    Effect,
    Mode,
    Operands,
    OptionSpec,
    ProgramRow,
    role,
)
from gateway._programs._tables._common import NO_OPERANDS, row

__all__ = ["SEARCH_TABLES"]

_TREE: Final = Effect(kind="read", recursive=True)
_DOT_TREE: Final = Effect(kind="read", recursive=True, value=".", fixed=True)
_SEARCHES: Final = Operands(head=(DATA,), rest=role(_TREE), single=role(_DOT_TREE))
"""``rg PATTERN [PATH…]``: the pattern, then trees it reads (``.`` without one)."""
_SEARCHES_WITHOUT_PATTERN: Final = Operands(rest=role(_TREE), empty=(_DOT_TREE,))

# ripgrep 13 and 14 (14 adds -d, --hostname-bin, --hyperlink-format and the
# --no- forms of its switches).
_RG_SWITCHES: Final = (
    "--auto-hybrid-regex --binary --block-buffered --column --count-matches --crlf --debug "
    "--files --files-without-match --glob-case-insensitive --heading --ignore-file-case-insensitive "
    "--include-zero --json --line-buffered --max-columns-preview --mmap --multiline-dotall "
    "--no-config --no-heading --no-ignore --no-ignore-dot --no-ignore-exclude --no-ignore-files "
    "--no-ignore-global --no-ignore-messages --no-ignore-parent --no-ignore-vcs --no-messages "
    "--no-mmap --no-pcre2-unicode --no-require-git --no-unicode --null-data --one-file-system "
    "--passthru --pcre2-version --sort-files --stats --trim --type-list --vimgrep "
    "--no-context-separator --no-hidden --no-follow --no-binary --no-block-buffered "
    "--no-column --no-crlf --no-glob-case-insensitive --no-ignore-file-case-insensitive "
    "--no-include-zero --no-line-buffered --no-max-columns-preview --no-multiline "
    "--no-multiline-dotall --no-one-file-system --no-pcre2 --no-search-zip --no-sort-files "
    "--no-stats --no-text --no-trim --no-invert-match --no-fixed-strings --no-crlf "
    "--no-auto-hybrid-regex --no-byte-offset --no-encoding --no-max-columns --no-unrestricted "
    "--stop-on-nonmatch --no-stop-on-nonmatch --unicode --pcre2-unicode --no-context"
)
_RG: Final = row(
    *sorted(set(_RG_SWITCHES.split())),
    "-A --after-context =",
    "-B --before-context =",
    "-C --context =",
    "-b --byte-offset",
    "-s --case-sensitive",
    "--color =",
    "--colors =",
    "--context-separator =",
    "-c --count",
    "--dfa-size-limit =",
    "-E --encoding =",
    "--engine =",
    "--field-context-separator =",
    "--field-match-separator =",
    ("-f --file =", READ),
    "-l --files-with-matches",
    "-F --fixed-strings",
    "-L --follow",
    "-g --glob =",
    "-h --help",
    "-. --hidden",
    "--iglob =",
    "-i --ignore-case",
    ("--ignore-file =", READ),
    "-v --invert-match",
    "-n --line-number",
    "-x --line-regexp",
    "-M --max-columns =",
    "-m --max-count =",
    "-d --max-depth --maxdepth =",
    "--max-filesize =",
    "-U --multiline",
    "-I --no-filename",
    "-N --no-line-number",
    "-0 --null",
    "-o --only-matching",
    "--path-separator =",
    "-P --pcre2",
    ("--pre =", RUN_PROGRAM),
    "--pre-glob =",
    "-p --pretty",
    "-q --quiet",
    "--regex-size-limit =",
    "-e --regexp =",
    "-r --replace =",
    ("-z --search-zip", Effect(kind="execute", action="program", value=None)),
    "-S --smart-case",
    "--sort =",
    "--sortr =",
    "-a --text",
    "-j --threads =",
    "-t --type =",
    "--type-add =",
    "--type-clear =",
    "-T --type-not =",
    "-u --unrestricted",
    "-V --version",
    "-H --with-filename",
    "-w --word-regexp",
    ("--hostname-bin =", RUN_PROGRAM),
    "--hyperlink-format =",
    "--generate =",
    abbreviations=False,
    operands=_SEARCHES,
    modes=(
        Mode(when=frozenset({"--version"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"--help"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"--type-list"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"--files"}), operands=_SEARCHES_WITHOUT_PATTERN),
        Mode(when=frozenset({"--regexp"}), operands=_SEARCHES_WITHOUT_PATTERN),
        Mode(when=frozenset({"--file"}), operands=_SEARCHES_WITHOUT_PATTERN),
    ),
    environment=frozenset({"RIPGREP_CONFIG_PATH"}),
)

_AG_TYPES: Final = (
    "actionscript ada asciidoc apl asm asp aspx batch bazel bitbake cc cfmx chpl clojure coffee "
    "config coq cpp crystal csharp cshtml css cython delphi dlang dot dts ebuild elisp elixir elm "
    "erlang factor fortran fsharp gettext glsl go gradle groovy haml handlebars haskell haxe hh "
    "html idris ini ipython isabelle j jade java jinja2 js json jsp julia kotlin less liquid lisp "
    "log lua m4 make mako markdown mason matlab mathematica md mercury naccess nim nix objc objcpp "
    "ocaml octave org parrot pdb perl php pike plist plone powershell proto ps1 pug puppet python "
    "qml racket rake razor restructuredtext rs r rdoc ruby rust salt sass scala scheme shell "
    "smalltalk sml sql stata stylus swift tcl terraform tex thrift tla tt toml ts twig vala vb "
    "velocity verilog vhdl vim vue wix wsdl wadl xml yaml zeek zephir"
)
_AG_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    *(f"--{name}" for name in _AG_TYPES.split()),
    "--ackmate",
    "-A= --after[=]",
    "-B= --before[=]",
    "-C= --context[=]",
    "-c --count",
    "--color",
    "--nocolor",
    "--color-line-number =",
    "--color-match =",
    "--color-path =",
    "--column",
    "-H --heading",
    "--noheading",
    "--break",
    "--nobreak",
    "--filename",
    "--nofilename",
    "--group",
    "--nogroup",
    "--numbers",
    "--nonumbers",
    "-l --files-with-matches",
    "-L --files-without-matches",
    "--print-all-files",
    "-o --only-matching",
    "--print-long-lines",
    "--passthrough --passthru",
    "--silent",
    "--stats",
    "--stats-only",
    "--vimgrep",
    "-0 --null --print0",
    "-a --all-types",
    "-D --debug",
    "--depth =",
    "-f --follow",
    "-F -Q --fixed-strings --literal",
    "--hidden",
    "-i --ignore-case",
    "--ignore =",
    "--ignore-dir =",
    "-m --max-count =",
    "--one-device",
    ("-p --path-to-ignore =", READ),
    "-s --case-sensitive",
    "-S --smart-case",
    "--search-binary",
    "-t --all-text",
    "-u --unrestricted",
    "-U --skip-vcs-ignores",
    "-v --invert-match",
    "-w --word-regexp",
    "-W --width =",
    "-z --search-zip",
    "-r -R --recurse",
    "-n --norecurse",
    ("--pager =", RUN_SHELL),
    "--nopager",
    "--workers =",
    "--list-file-types",
    "-h --help",
    "-V --version",
    "-g =",
    "-G --file-search-regex =",
)
_AG: Final = row(
    *_AG_OPTIONS,
    operands=_SEARCHES,
    modes=(
        Mode(when=frozenset({"--version"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"--help"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"--list-file-types"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"-g"}), operands=_SEARCHES_WITHOUT_PATTERN),
    ),
)

SEARCH_TABLES: Final[Mapping[str, ProgramRow]] = {"rg": _RG, "ag": _AG}
"""Basename → row, for the recursive searchers."""
