"""
Option tables of the interpreters and shells: python, node, ruby, perl, php, bash, sh, java…

An interpreter runs code: the value of its code option (``python -c``,
``perl -e``, ``node -e``: action ``code``), a module it finds (``python -m``:
``module``), a script operand (``script``; the words after it are the
script's own arguments, never options or operands of the interpreter), or
its standard input when there is none. Options that load more code
(``node -r``, ``ruby -r``, ``perl -M``, ``php -d``) are stated as code too.
The variables an interpreter reads as code or options are listed
(``PYTHONPATH``, ``NODE_OPTIONS``, ``PERL5OPT``, ``BASH_ENV``…).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    LISTEN,
    READ,
    RUN_CODE,
    RUN_SHELL,
    WRITE,
    Effect,
    Implicit,
    Mode,
    Operands,
    OptionSpec,
    ProgramRow,
    Role,
    allows,
    refuses,
)
from gateway._programs._tables._common import NO_OPERANDS, row

__all__ = ["INTERPRETER_TABLES", "SHELL_PROGRAMS"]

_SCRIPT: Final = Effect(kind="execute", action="script")
_MODULE: Final = Effect(kind="execute", action="module")
_STDIN_CODE: Final = Effect(kind="execute", action="code", value=None)
_CHDIR: Final = Effect(kind="cwd")
_RUNS_SCRIPT: Final = Role(effects=(_SCRIPT,), arguments=True)
_RUNS_SHELL_TEXT: Final = Role(effects=(RUN_SHELL,), arguments=True)
_INTERPRETER: Final = Operands(head=(_RUNS_SCRIPT,), empty=(_STDIN_CODE,))
"""``INTERPRETER [SCRIPT [ARGS…]]``: the script runs, or standard input does."""


def _prints_only(*names: str) -> tuple[Mode, ...]:
    """Modes in which the interpreter prints its version or help and runs nothing."""
    return tuple(Mode(when=frozenset({name}), operands=NO_OPERANDS) for name in names)


_PYTHON: Final = row(
    "-b",
    "-B",
    ("-c =", RUN_CODE),
    "-d",
    "-E",
    "-h -? --help",
    "--help-env",
    "--help-xoptions",
    "--help-all",
    "-i",
    "-I",
    ("-m =", _MODULE),
    "-O",
    "-P",
    "-q",
    "-s",
    "-S",
    "-u",
    "-v",
    "-V --version",
    "-W =",
    "-x",
    "-X =",
    "--check-hash-based-pycs =",
    ends=("-c", "-m"),
    abbreviations=False,
    options_end_after=1,
    operands=_INTERPRETER,
    dash_stdin=True,
    modes=_prints_only("--help", "--help-env", "--help-xoptions", "--help-all", "--version"),
    environment=frozenset(
        {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONUSERBASE"}
    ),
    examples=(
        *allows("python -V", "python3 --version"),
        *refuses("python reproduce.py", "python3 -c 'print(1)'", profile="workspace-write"),
    ),
)

# node [options] [script.js | -e CODE | -p CODE | -] [arguments]
_NODE: Final = row(
    ("-e --eval =", RUN_CODE),
    ("-p --print =", RUN_CODE),
    "-c --check",
    "-i --interactive",
    ("-r --require =", _MODULE),
    ("--import =", _MODULE),
    ("--loader --experimental-loader =", _MODULE),
    ("--inspect --inspect-brk --inspect-wait [=]", LISTEN),
    ("--env-file =", READ),
    "--input-type =",
    "-v --version",
    "-h --help",
    "--test",
    ("--watch", Effect(kind="lifetime", action="unbounded")),
    "--no-warnings",
    "--no-deprecation",
    "--trace-warnings",
    "--enable-source-maps",
    "--experimental-vm-modules",
    "--experimental-specifier-resolution =",
    "--max-old-space-size =",
    "--stack-size =",
    "--unhandled-rejections =",
    "--preserve-symlinks",
    "--title =",
    ends=("-e", "-p", "--eval", "--print"),
    abbreviations=False,
    options_end_after=1,
    operands=_INTERPRETER,
    dash_stdin=True,
    modes=(
        *_prints_only("--version", "--help"),
        Mode(when=frozenset({"--check"}), operands=Operands(head=(Role(effects=(READ,)),))),
    ),
    environment=frozenset({"NODE_OPTIONS", "NODE_PATH"}),
)

_RUBY: Final = row(
    ("-e =", RUN_CODE),
    ("-r =", _MODULE),
    ("-I =", READ),
    ("-C =", _CHDIR),
    "-n",
    "-p",
    "-a",
    "-l",
    "-c",
    "-w",
    "-W [=]",
    "-v",
    "--version",
    "-h --help",
    "-s",
    "-S",
    "-d --debug",
    "-E --encoding =",
    "-F =",
    "-0 [=]",
    "-i [=]",
    "-x [=]",
    "--disable --disable-gems --disable-did_you_mean",
    "--enable =",
    "--jit",
    "--yjit",
    "--verbose",
    abbreviations=False,
    options_end_after=1,
    operands=_INTERPRETER,
    dash_stdin=True,
    modes=(
        *_prints_only("--version", "--help"),
        Mode(when=frozenset({"-i", "-e"}), operands=Operands(rest=Role(effects=(READ, WRITE)))),
        Mode(when=frozenset({"-e"}), operands=Operands(rest=Role(effects=(READ,)))),
    ),
    environment=frozenset({"RUBYOPT", "RUBYLIB"}),
)

# perl: -l and -0 take the digits that follow them (`-0777ne`, `-l012`); -i
# takes the rest of its cluster (`-pie` is -i with the suffix `e`), as perl does.
_PERL: Final = row(
    ("-e =", RUN_CODE),
    ("-E =", RUN_CODE),
    ("-M (=)", _MODULE),
    ("-m (=)", _MODULE),
    ("-I =", READ),
    "-n",
    "-p",
    "-a",
    "-F (=)",
    "-l [0]",
    "-0 [0]",
    "-i [=]",
    "-c",
    "-w",
    "-W",
    "-X",
    "-t",
    "-T",
    "-U",
    "-u",
    "-v",
    "-V [=]",
    "-x [=]",
    "-d [=]",
    "-D [=]",
    "-s",
    "-S",
    "-h",
    "--version",
    "--help",
    abbreviations=False,
    options_end_after=1,
    operands=_INTERPRETER,
    dash_stdin=True,
    modes=(
        *_prints_only("-v", "--version", "-h", "--help"),
        Mode(when=frozenset({"-i", "-e"}), operands=Operands(rest=Role(effects=(READ, WRITE)))),
        Mode(when=frozenset({"-i", "-E"}), operands=Operands(rest=Role(effects=(READ, WRITE)))),
        Mode(when=frozenset({"-e"}), operands=Operands(rest=Role(effects=(READ,)))),
        Mode(when=frozenset({"-E"}), operands=Operands(rest=Role(effects=(READ,)))),
    ),
    environment=frozenset({"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB"}),
    examples=(
        *allows("perl -v"),
        *refuses("perl -e 'unlink \"x\"'", profile="workspace-write"),
    ),
)

# php: -d KEY=VALUE may set auto_prepend_file or load an extension, -c an ini
# file, -z a Zend extension: all load code. -S serves the network. A lone `-`
# is no standard input to php: it opens the file `./-` as its script (php_cli.c
# fopen()s the operand), so the row has no dash_stdin. `--` ends the script
# operand too: `php -- x.php` runs standard input with x.php as an argument.
_PHP: Final = row(
    ("-r =", RUN_CODE),
    ("-f =", _SCRIPT),
    ("-B =", RUN_CODE),
    ("-R =", RUN_CODE),
    ("-F =", _SCRIPT),
    ("-E =", RUN_CODE),
    ("-d =", RUN_CODE),
    ("-c =", RUN_CODE),
    ("-z =", RUN_CODE),
    ("-S =", LISTEN),
    ("-t =", READ),
    "-a",
    "-n",
    "-e",
    "-H",
    "-i",
    "-l",
    "-m",
    "-s",
    "-v --version",
    "-w",
    "-h -? --help",
    "--ini",
    "--rf =",
    "--rc =",
    "--re =",
    "--rz =",
    "--ri =",
    ends=("-r", "-f"),
    abbreviations=False,
    options_end_after=1,
    double_dash_arguments=True,
    operands=_INTERPRETER,
    modes=(
        *_prints_only("--version", "--help", "-i", "-m", "--ini"),
        Mode(when=frozenset({"-l"}), operands=Operands(rest=Role(effects=(READ,)))),
    ),
    environment=frozenset({"PHPRC", "PHP_INI_SCAN_DIR"}),
)

# Shells. -c makes the first operand shell text; -s reads standard input; a
# login (-l) or interactive (-i) shell runs its start-up files; a bash that is
# not interactive runs $BASH_ENV.
_LOGIN: Final = Effect(kind="execute", action="script", value="~/.profile", fixed=True)
_INTERACTIVE: Final = Effect(kind="execute", action="script", value="~/.bashrc", fixed=True)
_SHELL_MODES: Final = (
    Mode(when=frozenset({"-c"}), operands=Operands(head=(_RUNS_SHELL_TEXT,))),
    Mode(
        when=frozenset({"-s"}),
        operands=Operands(rest=Role()),
        facts=(Implicit(effect=_STDIN_CODE, via="standard input"),),
    ),
)
_SHELL_ENVIRONMENT: Final = frozenset(
    {"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND"}
)
_SET_LETTERS: Final[tuple[OptionSpec, ...]] = tuple(f"-{letter}" for letter in "abefhkmnptuvxC")


def _shell(*extra: OptionSpec) -> ProgramRow:
    return row(
        *_SET_LETTERS,
        "-c",
        ("-i", _INTERACTIVE),
        ("-l --login", _LOGIN),
        "-s",
        "-o [_]",
        *extra,
        abbreviations=False,
        options_end_after=1,
        dash_ends_options=True,
        plus_clusters=True,
        operands=_INTERPRETER,
        modes=_SHELL_MODES,
        environment=_SHELL_ENVIRONMENT,
    )


_BASH: Final = _shell(
    *(f"-{letter}" for letter in "BEHPT"),
    "-r --restricted",
    "-D",
    "-O [_]",
    "--debugger",
    "--dump-po-strings",
    "--dump-strings",
    "--help",
    ("--init-file --rcfile =", _SCRIPT),
    "--noediting",
    "--noprofile",
    "--norc",
    "--posix",
    "--pretty-print",
    "--verbose",
    "--version",
    "--debug",
)
_SH: Final = _shell()

_RSCRIPT: Final = row(
    ("-e =", RUN_CODE),
    "--version",
    "--help",
    "--verbose",
    "--vanilla",
    "--no-environ",
    "--no-site-file",
    "--no-init-file",
    "--restore",
    "--no-restore",
    "--save",
    "--no-save",
    "--default-packages =",
    abbreviations=False,
    options_end_after=1,
    fused_equals=True,
    operands=_INTERPRETER,
    modes=(*_prints_only("--version", "--help"), Mode(when=frozenset({"-e"}), operands=Operands())),
)

_LUA: Final = row(
    ("-e =", RUN_CODE),
    ("-l =", _MODULE),
    "-i",
    "-v",
    "-E",
    "-W",
    abbreviations=False,
    options_end_after=1,
    operands=_INTERPRETER,
    modes=_prints_only("-v"),
    environment=frozenset({"LUA_INIT", "LUA_PATH", "LUA_CPATH"}),
)

# java [options] MAINCLASS [args] | -jar FILE [args]: options are whole words;
# -javaagent:, -agentlib: and -agentpath: load code into the virtual machine.
_JAVA: Final = row(
    "-version --version -showversion --show-version",
    "-help --help -h -?",
    "-cp -classpath --class-path =",
    ("-jar =", _SCRIPT),
    "--source =",
    "-ea -enableassertions -da -disableassertions -esa -dsa",
    "-server -client",
    "-verbose:class -verbose:gc -verbose:jni",
    "-D (=)",
    "-X (=)",
    ("-javaagent: (=)", RUN_CODE),
    ("-agentlib: (=)", RUN_CODE),
    ("-agentpath: (=)", RUN_CODE),
    "--add-opens --add-exports --add-modules --enable-preview =",
    "-p --module-path =",
    ("-m --module =", _MODULE),
    style="words",
    fused_prefix=True,
    ends=("-jar", "-m", "--module"),
    options_end_after=1,
    operands=Operands(head=(Role(effects=(_MODULE,), arguments=True),)),
    modes=_prints_only("-version", "-help"),
    environment=frozenset({"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "CLASSPATH"}),
)

SHELL_PROGRAMS: Final = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"})
"""The shells with a table; their words are read as `gateway._plan._launchers.SHELLS` run them."""

INTERPRETER_TABLES: Final[Mapping[str, ProgramRow]] = {
    **dict.fromkeys(
        (
            "python",
            "python2",
            "python3",
            *(f"python3.{minor}" for minor in range(8, 15)),
            "pypy",
            "pypy3",
        ),
        _PYTHON,
    ),
    "node": _NODE,
    "nodejs": _NODE,
    "ruby": _RUBY,
    "perl": _PERL,
    "php": _PHP,
    "bash": _BASH,
    **dict.fromkeys(("sh", "dash", "zsh", "ksh", "mksh", "ash"), _SH),
    "Rscript": _RSCRIPT,
    "lua": _LUA,
    "java": _JAVA,
}
"""Basename → row, for the interpreters and shells."""
