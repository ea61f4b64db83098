"""
Option tables of the build tools and package managers: make, pytest, pip, npm, cargo, go…

These run code the command does not show: a makefile's recipes, the tests a
test runner collects, the build and install scripts of packages, the
package.json scripts ``npm run`` names. Each is stated as an ``execute``
fact whose value is unknown; installing is also ``network`` (the index) and
a ``write`` of unknown paths (the environment it installs into). A
subcommand that only reads or prints has no such fact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    DATA,
    ENVIRONMENT,
    NETWORK,
    READ,
    RUN_CODE,
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
    Role,
    allows,
    refuses,
    role,
)
from gateway._programs._tables._common import NO_OPERANDS, row

__all__ = ["BUILD_TABLES"]

_CHDIR: Final = Effect(kind="cwd")
_WRITE_TREE: Final = Effect(kind="write", action="write", recursive=True)
_DELETE_TREE: Final = Effect(kind="write", action="delete", recursive=True)
_READ_TREE: Final = Effect(kind="read", recursive=True)
_MODULE: Final = Effect(kind="execute", action="module")
_SCRIPT: Final = Effect(kind="execute", action="script")


def _runs(via: str) -> Implicit:
    """Code the command does not show runs (recipes, tests, package scripts)."""
    return Implicit(effect=Effect(kind="execute", action="code"), via=via)


def _fetches(via: str) -> Implicit:
    return Implicit(effect=Effect(kind="network", action="connect"), via=via)


def _writes(via: str, value: str | None = None) -> Implicit:
    return Implicit(
        effect=Effect(kind="write", action="write", recursive=True, value=value), via=via
    )


_RUNS_FETCHED: Final = Operands(head=(Role(effects=(_MODULE,), arguments=True),))
"""``npx PACKAGE ARGS…``: the package's program runs, fetched when missing; the rest are its arguments."""
_INSTALLS: Final = (
    _fetches("the package index"),
    _writes("the packages it installs"),
    _runs("the packages' build and install scripts"),
)
_HELP_VERSION: Final[tuple[OptionSpec, ...]] = ("-h --help", "-V --version")

# ───────────────────────── make ─────────────────────────

# GNU make and BSD make. Left out: -d, -m, -v, -W (a switch in one, a value
# in the other). Even -n runs `$(shell …)` while reading the makefile.
_MAKE: Final = row(
    "-b",
    "-B --always-make",
    ("-C --directory =", _CHDIR),
    "--debug [=]",
    "-e --environment-overrides",
    ("-E --eval =", RUN_CODE),
    ("-f --file --makefile =", _SCRIPT),
    "-h --help",
    ("-I --include-dir =", READ),
    "-i --ignore-errors",
    "-j --jobs [_]",
    "-k --keep-going",
    "-l --load-average --max-load [=]",
    "-L --check-symlink-times",
    "-n --just-print --dry-run --recon",
    "-o --old-file --assume-old =",
    "-O --output-sync [=]",
    "-p --print-data-base",
    "-q --question",
    "-r --no-builtin-rules",
    "-R --no-builtin-variables",
    "-s --silent --quiet",
    "--no-silent",
    "-S --no-keep-going --stop",
    ("-t --touch", _WRITE_TREE),
    "--trace",
    "--version",
    "-w --print-directory",
    "--no-print-directory",
    "--what-if --new-file --assume-new =",
    "--warn-undefined-variables",
    "-D =",  # BSD: define a variable
    "-V =",  # BSD: print a variable
    "-N",
    "-X",
    "-T =",
    abbreviations=True,
    cwd_first=True,
    operands=NO_OPERANDS,
    modes=(Mode(when=frozenset({"--version"}), operands=NO_OPERANDS),),
    facts=(
        Implicit(
            effect=Effect(kind="execute", action="code"),
            via="the makefile's recipes",
            unless=frozenset({"--version", "--help"}),
        ),
    ),
    environment=frozenset({"MAKEFLAGS", "MAKEFILES", "MFLAGS", "GNUMAKEFLAGS", "SHELL"}),
    examples=(
        *allows("make --version"),
        *refuses("make -n", "make install", profile="workspace-write"),
    ),
)

# ───────────────────────── pytest ─────────────────────────

_PYTEST: Final = row(
    "-k =",
    "-m =",
    "--markers",
    "-x --exitfirst",
    "--maxfail =",
    "--strict-config",
    "--strict-markers",
    "--strict",
    "--fixtures --funcargs",
    "--fixtures-per-test",
    "--pdb",
    "--pdbcls =",
    "--trace",
    "--capture =",
    "-s",
    "--runxfail",
    "--lf --last-failed",
    "--ff --failed-first",
    "--nf --new-first",
    "--cache-show [=]",
    ("--cache-clear", Effect(kind="write", action="delete", recursive=True, value=".pytest_cache")),
    "--lfnf --last-failed-no-failures =",
    "--sw --stepwise",
    "--sw-skip --stepwise-skip",
    "--sw-reset --stepwise-reset",
    "--durations =",
    "--durations-min =",
    "-v --verbose",
    "--no-header",
    "--no-summary",
    "--no-fold-skipped",
    "--force-short-summary",
    "-q --quiet",
    "--verbosity =",
    "-r =",
    "--disable-warnings --disable-pytest-warnings",
    "-l --showlocals",
    "--no-showlocals",
    "--tb =",
    "--xfail-tb",
    "--show-capture =",
    "--full-trace",
    "--color =",
    "--code-highlight =",
    ("--pastebin =", NETWORK),
    ("--junit-xml --junitxml =", WRITE),
    "--junit-prefix --junitprefix =",
    "-W --pythonwarnings =",
    "--collect-only --co",
    "--pyargs",
    "--ignore =",
    "--ignore-glob =",
    "--deselect =",
    "--confcutdir =",
    "--noconftest",
    "--keep-duplicates",
    "--collect-in-virtualenv",
    "--continue-on-collection-errors",
    "--import-mode =",
    "--doctest-modules",
    "--doctest-report =",
    "--doctest-glob =",
    "--doctest-ignore-import-errors",
    "--doctest-continue-on-failure",
    ("-c --config-file =", READ),
    "--rootdir =",
    ("--basetemp =", _DELETE_TREE),
    "-V",  # pytest 9.0 loads conftest.py for it, as for `--version` among other words
    "--version",
    "-h --help",
    ("-p =", _MODULE),
    "--disable-plugin-autoload",
    "--trace-config",
    ("--debug [=]", WRITE),
    "-o --override-ini =",
    "--assert =",
    "--setup-only",
    "--setup-show",
    "--setup-plan",
    "--log-level =",
    "--log-format =",
    "--log-date-format =",
    "--log-cli-level =",
    "--log-cli-format =",
    "--log-cli-date-format =",
    ("--log-file =", WRITE),
    "--log-file-mode =",
    "--log-file-level =",
    "--log-file-format =",
    "--log-file-date-format =",
    "--log-auto-indent =",
    "--log-disable =",
    # pytest-cov, pytest-xdist, pytest-timeout, pytest-rerunfailures
    "--cov [_]",
    ("--cov-report =", WRITE),
    "--cov-config =",
    "--no-cov",
    "--no-cov-on-fail",
    "--cov-append",
    "--cov-branch",
    "--cov-fail-under =",
    "--cov-context =",
    "-n --numprocesses =",
    "--dist =",
    "--maxprocesses =",
    "--timeout =",
    "--timeout-method =",
    "--reruns =",
    "--reruns-delay =",
    abbreviations=False,
    operands=Operands(rest=role(_SCRIPT)),
    modes=(
        Mode(when=frozenset({"--version"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"--help"}), operands=NO_OPERANDS),
    ),
    facts=(
        # `--help` imports every conftest.py it finds, to list the options they
        # add; so does `--version` but when it is the only word (`pytest
        # --version --version`, `pytest --version -p x`).
        Implicit(
            effect=Effect(kind="execute", action="code"),
            via="the tests it collects and their conftest.py",
            unless_alone=frozenset({"--version"}),
        ),
        Implicit(
            effect=Effect(kind="write", action="write", recursive=True, value=".pytest_cache"),
            via="its cache",
            unless=frozenset({"--version", "--help"}),
        ),
    ),
    environment=frozenset({"PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH"}),
    examples=(
        *allows("pytest --version"),
        *refuses(
            "pytest tests",
            "pytest -V",
            "pytest --version --version",
            "py.test -V",
            "pytest --version -p no:cacheprovider",
            profile="workspace-write",
        ),
    ),
)

# ───────────────────────── pip ─────────────────────────

# General options: accepted before and after the command (optparse: unique
# prefixes of long options are accepted).
_PIP_GENERAL: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "--debug",
    "--isolated",
    "--require-virtualenv",
    ("--python =", RUN_PROGRAM),
    "-v --verbose",
    "-V --version",
    "-q --quiet",
    ("--log =", WRITE),
    "--no-input",
    "--keyring-provider =",
    ("--proxy =", NETWORK),
    "--retries =",
    "--timeout =",
    "--exists-action =",
    "--trusted-host =",
    ("--cert =", READ),
    ("--client-cert =", READ),
    ("--cache-dir =", _WRITE_TREE),
    "--no-cache-dir",
    "--disable-pip-version-check",
    "--no-color",
    "--no-python-version-warning",
    "--use-feature =",
    "--use-deprecated =",
    "--root-user-action =",
)
_INDEX: Final[tuple[OptionSpec, ...]] = (
    ("-i --index-url =", NETWORK),
    ("--extra-index-url =", NETWORK),
    "--no-index",
    ("-f --find-links =", NETWORK),
)
_PIP_INSTALL_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    *_INDEX,
    ("-r --requirement =", READ),
    ("-c --constraint =", READ),
    "--no-deps",
    "--pre",
    ("-e --editable =", RUN_CODE),
    "--dry-run",
    ("-t --target =", _WRITE_TREE),
    "--platform =",
    "--python-version =",
    "--implementation =",
    "--abi =",
    "--user",
    ("--root =", _WRITE_TREE),
    ("--prefix =", _WRITE_TREE),
    ("--src =", _WRITE_TREE),
    "-U --upgrade",
    "--upgrade-strategy =",
    "--force-reinstall",
    "-I --ignore-installed",
    "--ignore-requires-python",
    "--no-build-isolation",
    "--use-pep517",
    "--no-use-pep517",
    "--check-build-dependencies",
    "--break-system-packages",
    "-C --config-settings =",
    "--global-option =",
    "--compile",
    "--no-compile",
    "--no-warn-script-location",
    "--no-warn-conflicts",
    "--no-binary =",
    "--only-binary =",
    "--prefer-binary",
    "--require-hashes",
    "--progress-bar =",
    ("--report =", WRITE),
    "--no-clean",
)


def _pip(
    *options: OptionSpec, facts: tuple[Implicit, ...] = (), operands: Operands = NO_OPERANDS
) -> ProgramRow:
    return row(*_PIP_GENERAL, *options, inherit=True, operands=operands, facts=facts)


_PIP_READS: Final = _pip(
    "-l --local",
    "--user",
    "--path =",
    "--all",
    "--exclude-editable",
    "--include-editable",
    "--exclude =",
    "-e --editable",
    "--not-required",
    "--format =",
    "--pre",
    ("-r --requirement =", READ),
    "-f --files",
)
_PIP_LIST: Final = _pip(
    *_INDEX,
    ("-o --outdated", NETWORK),
    ("-u --uptodate", NETWORK),
    "-e --editable",
    "-l --local",
    "--user",
    "--path =",
    "--pre",
    "--format =",
    "--not-required",
    "--exclude-editable",
    "--include-editable",
    "--exclude =",
)
_PIP_CONFIG_SCOPE: Final[tuple[OptionSpec, ...]] = ("--editor =", "--global", "--user", "--site")
_PIP_CONFIG_SHOWN: Final = (
    # An index URL with a password in it, from pip.conf or `PIP_INDEX_URL`.
    Implicit(effect=ENVIRONMENT, via="its configuration and PIP_* variables"),
)
_PIP: Final = row(
    *_PIP_GENERAL,
    subcommands={
        "install": _pip(*_PIP_INSTALL_OPTIONS, facts=_INSTALLS),
        "download": _pip(
            *_PIP_INSTALL_OPTIONS,
            ("-d --dest =", _WRITE_TREE),
            facts=(_fetches("the package index"), _runs("the packages' build scripts")),
        ),
        "wheel": _pip(
            *_PIP_INSTALL_OPTIONS,
            ("-w --wheel-dir =", _WRITE_TREE),
            facts=(_fetches("the package index"), _runs("the packages' build scripts")),
        ),
        "uninstall": _pip(
            ("-r --requirement =", READ),
            "-y --yes",
            "--break-system-packages",
            facts=(_writes("the packages it removes"),),
        ),
        "freeze": _PIP_READS,
        "show": _PIP_READS,
        "check": _PIP_READS,
        "inspect": _PIP_READS,
        "list": _PIP_LIST,
        "hash": _pip("-a --algorithm =", operands=Operands(rest=role(READ))),
        "help": _pip(),
        "completion": _pip("-b --bash", "-z --zsh", "-f --fish", "-p --powershell"),
        "debug": _pip("--platform =", "--python-version =", "--implementation =", "--abi ="),
        "index": _pip(*_INDEX, "--pre", facts=(_fetches("the package index"),)),
        "config": row(
            *_PIP_GENERAL,
            *_PIP_CONFIG_SCOPE,
            inherit=True,
            subcommands={
                "list": _pip(*_PIP_CONFIG_SCOPE, facts=_PIP_CONFIG_SHOWN),
                "get": _pip(*_PIP_CONFIG_SCOPE, facts=_PIP_CONFIG_SHOWN),
                "debug": _pip(*_PIP_CONFIG_SCOPE, facts=_PIP_CONFIG_SHOWN),
                "set": _pip(*_PIP_CONFIG_SCOPE, facts=(_writes("pip's configuration file"),)),
                "unset": _pip(*_PIP_CONFIG_SCOPE, facts=(_writes("pip's configuration file"),)),
                "edit": _pip(
                    *_PIP_CONFIG_SCOPE,
                    facts=(
                        _writes("pip's configuration file"),
                        Implicit(effect=RUN_PROGRAM, via="the editor"),
                    ),
                ),
            },
        ),
        "cache": row(
            *_PIP_GENERAL,
            inherit=True,
            subcommands={
                "dir": _pip(),
                "info": _pip(),
                "list": _pip("--format ="),
                "remove": _pip(facts=(_writes("pip's cache"),)),
                "purge": _pip(facts=(_writes("pip's cache"),)),
            },
        ),
    },
    environment=frozenset({"PIP_CONFIG_FILE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"}),
    examples=(
        *allows("pip list"),
        *refuses("pip install requests", profile="workspace-write"),
    ),
)

# ───────────────────────── npm, npx, yarn, pnpm ─────────────────────────

# npm reads its configuration from every option (nopt: anywhere on the line,
# unique prefixes accepted); those that run programs or read configuration
# that can (`--script-shell`, `--userconfig`, `--node-options`) are code.
_NPM_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "-v --version",
    "-g --global",
    "-D --save-dev",
    "-S --save",
    "-E --save-exact",
    "-O --save-optional",
    "-P --save-prod",
    "-B --save-bundle",
    "--save-peer",
    "--no-save",
    "-f --force",
    "-y --yes",
    "--no",
    "-s --silent",
    "-q --quiet",
    "-d",
    "--verbose",
    "--loglevel =",
    "--json",
    "-l --long",
    "-p --parseable",
    "-a --all",
    "--depth =",
    "--dry-run",
    "--ignore-scripts",
    "--foreground-scripts",
    "--legacy-peer-deps",
    "--strict-peer-deps",
    "--omit =",
    "--include =",
    "--production",
    "--no-audit",
    "--no-fund",
    "--audit",
    "--fund",
    "--prefer-offline",
    "--prefer-online",
    "--offline",
    "--no-package-lock",
    "--package-lock-only",
    "--install-strategy =",
    "--install-links",
    "--global-style",
    "--legacy-bundling",
    "--lockfile-version =",
    ("-C --prefix =", _CHDIR),
    "-w --workspace =",
    "-ws --workspaces",
    "--include-workspace-root",
    ("--registry =", NETWORK),
    "--tag =",
    "--access =",
    "--otp =",
    "--color =",
    "--no-color",
    "--progress",
    "--no-progress",
    "--no-update-notifier",
    "--unsafe-perm",
    ("--cache =", _WRITE_TREE),
    ("--userconfig =", RUN_CODE, (READ,)),
    ("--globalconfig =", RUN_CODE, (READ,)),
    ("--script-shell =", RUN_PROGRAM),
    ("--node-options =", RUN_CODE),
    "--if-present",
    "--workspaces-update",
    "--before =",
    "--fetch-retries =",
    "--fetch-timeout =",
    "--maxsockets =",
    ("--proxy --https-proxy =", NETWORK),
    "--noproxy =",
    "--strict-ssl",
    ("--cafile =", READ),
    "--engine-strict",
    "--audit-level =",
)
_NPM_RUNS: Final = (_runs("the package's scripts"),)


def _npm(*facts: Implicit, operands: Operands = NO_OPERANDS) -> ProgramRow:
    return row(
        *_NPM_OPTIONS,
        multichar_short=True,
        inherit=True,
        operands=operands,
        facts=facts,
    )


_NPM_INSTALL: Final = _npm(*_INSTALLS)
_NPM_RUN: Final = _npm(*_NPM_RUNS)
_NPM_READ: Final = _npm()
# `npm config get //registry…/:_authToken` prints the token; `list` prints
# the configuration from every file and `npm_config_*` variable.
_NPM_CONFIG_SHOWN: Final = _npm(
    Implicit(effect=ENVIRONMENT, via="its configuration and npm_config_* variables")
)
_NPM_REGISTRY: Final = _npm(_fetches("the registry"))
_NPM_WRITES: Final = _npm(_writes("the package's files"))
_NPM_EXEC: Final = row(
    *_NPM_OPTIONS,
    ("-c --call =", RUN_SHELL),
    "--package =",
    multichar_short=True,
    inherit=True,
    options_end_after=1,
    operands=_RUNS_FETCHED,
    facts=(_fetches("the registry"),),
)
_NPM_COMMANDS: Final[Mapping[str, tuple[tuple[str, ...], ProgramRow]]] = {
    "install": (
        ("i", "add", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall"),
        _NPM_INSTALL,
    ),
    "ci": (("clean-install", "ic", "install-clean", "isntall-clean"), _NPM_INSTALL),
    "install-test": (("it", "install-ci-test", "cit"), _NPM_INSTALL),
    "update": (("up", "upgrade", "udpate"), _NPM_INSTALL),
    "uninstall": (("un", "unlink", "remove", "rm", "r"), _npm(_writes("node_modules"), *_NPM_RUNS)),
    "rebuild": (("rb",), _npm(*_NPM_RUNS, _writes("node_modules"))),
    "dedupe": (("ddp",), _npm(*_INSTALLS)),
    "prune": ((), _npm(_writes("node_modules"), *_NPM_RUNS)),
    "run": (("run-script", "rum", "urn"), _NPM_RUN),
    "test": (("tst", "t"), _NPM_RUN),
    "start": ((), _NPM_RUN),
    "stop": ((), _NPM_RUN),
    "restart": ((), _NPM_RUN),
    "exec": (("x",), _NPM_EXEC),
    "init": (("create", "innit"), _npm(_writes("package.json"), *_INSTALLS)),
    "pack": ((), _npm(_writes("the package tarball"), *_NPM_RUNS)),
    "publish": ((), _npm(_fetches("the registry"), *_NPM_RUNS)),
    "link": (("ln",), _npm(*_INSTALLS)),
    "version": (("verison",), _npm(_writes("package.json"), *_NPM_RUNS)),
    "list": (("ls", "la", "ll"), _NPM_READ),
    "explain": (("why",), _NPM_READ),
    "fund": ((), _NPM_READ),
    "query": ((), _NPM_READ),
    "prefix": ((), _NPM_READ),
    "root": ((), _NPM_READ),
    "help": (("hlep",), _NPM_READ),
    "view": (("info", "show", "v"), _NPM_REGISTRY),
    "search": (("find", "s", "se"), _NPM_REGISTRY),
    "outdated": ((), _NPM_REGISTRY),
    "audit": ((), _NPM_REGISTRY),
    "whoami": ((), _NPM_REGISTRY),
    "ping": ((), _NPM_REGISTRY),
    "doctor": ((), _NPM_REGISTRY),
    "diff": ((), _NPM_REGISTRY),
    "shrinkwrap": ((), _NPM_WRITES),
    "cache": ((), _npm(_writes("npm's cache"), _fetches("the registry"))),
}
_NPM_CONFIG: Final = row(
    *_NPM_OPTIONS,
    multichar_short=True,
    inherit=True,
    subcommands={
        "get": _NPM_CONFIG_SHOWN,
        "list": _NPM_CONFIG_SHOWN,
        "ls": _NPM_CONFIG_SHOWN,
        "set": _npm(_writes("npm's configuration file")),
        "delete": _npm(_writes("npm's configuration file")),
        "edit": _npm(
            _writes("npm's configuration file"), Implicit(effect=RUN_PROGRAM, via="the editor")
        ),
        "fix": _npm(_writes("npm's configuration file")),
    },
    subcommand_names={"ls": "list"},
)
_NPM: Final = row(
    *_NPM_OPTIONS,
    multichar_short=True,
    subcommands={
        **{
            spelling: sub
            for name, (aliases, sub) in _NPM_COMMANDS.items()
            for spelling in (name, *aliases)
        },
        "config": _NPM_CONFIG,
        "c": _NPM_CONFIG,
    },
    subcommand_names={
        **{alias: name for name, (aliases, _) in _NPM_COMMANDS.items() for alias in aliases},
        "c": "config",
    },
    environment=frozenset({"NPM_CONFIG_USERCONFIG", "NPM_CONFIG_SCRIPT_SHELL", "NODE_OPTIONS"}),
    examples=(
        *allows("npm --version"),
        *refuses("npm install", profile="workspace-write"),
    ),
)

# npx [options] COMMAND [ARGS…]: runs a package's program, fetching it when missing.
_NPX: Final = row(
    "-y --yes",
    "--no",
    "-p --package =",
    ("-c --call =", RUN_SHELL),
    "-q --quiet",
    "--ignore-existing",
    "--prefer-offline",
    "--prefer-online",
    ("--registry =", NETWORK),
    "-h --help",
    "-v --version",
    options_end_after=1,
    operands=_RUNS_FETCHED,
    modes=(Mode(when=frozenset({"--version"}), operands=NO_OPERANDS),),
    facts=(
        Implicit(effect=NETWORK, via="the registry", unless=frozenset({"--version", "--help"})),
    ),
)

_YARN_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "-v -V --version",
    "-D --dev",
    "-P --peer",
    "-O --optional",
    "-E --exact",
    "-T --tilde",
    "-W --ignore-workspace-root-check",
    "--frozen-lockfile",
    "--immutable",
    "--pure-lockfile",
    "--production --prod",
    "--ignore-scripts",
    "--ignore-engines",
    "--offline",
    "--prefer-offline",
    "--silent",
    "--verbose",
    "--non-interactive",
    "--json",
    ("--cwd =", _CHDIR),
    ("--registry =", NETWORK),
    ("--modules-folder =", _WRITE_TREE),
    ("--cache-folder =", _WRITE_TREE),
    "--network-timeout =",
    "-s",
)


def _yarn(*facts: Implicit, options: tuple[OptionSpec, ...] = _YARN_OPTIONS) -> ProgramRow:
    return row(*options, inherit=True, operands=NO_OPERANDS, facts=facts)


_YARN_INSTALL: Final = _yarn(*_INSTALLS)
_YARN_RUN: Final = _yarn(*_NPM_RUNS)


def _fetches_and_runs(*options: OptionSpec) -> ProgramRow:
    """``yarn dlx PACKAGE ARGS…``, ``pnpm dlx``: a fetched package's program runs."""
    return row(
        *options,
        inherit=True,
        options_end_after=1,
        operands=_RUNS_FETCHED,
        facts=(_fetches("the registry"),),
    )


_YARN_FETCH_RUN: Final = _fetches_and_runs(*_YARN_OPTIONS, "-p --package =")
# yarn with no command installs; `yarn SCRIPT` runs a script (undeclared here).
_YARN: Final = row(
    *_YARN_OPTIONS,
    subcommands={
        "install": _YARN_INSTALL,
        "add": _YARN_INSTALL,
        "remove": _YARN_INSTALL,
        "upgrade": _YARN_INSTALL,
        "up": _YARN_INSTALL,
        "run": _YARN_RUN,
        "test": _YARN_RUN,
        "start": _YARN_RUN,
        "exec": _YARN_RUN,
        "dlx": _YARN_FETCH_RUN,
        "create": _YARN_FETCH_RUN,
        "init": _yarn(_writes("package.json")),
        "list": _yarn(),
        "why": _yarn(),
        "info": _yarn(_fetches("the registry")),
        "outdated": _yarn(_fetches("the registry")),
        "audit": _yarn(_fetches("the registry")),
        "npm": _yarn(_fetches("the registry")),
    },
    operands=Operands(
        empty=(
            Effect(kind="network", action="connect"),
            Effect(kind="write", action="write", recursive=True),
            Effect(kind="execute", action="code"),
        )
    ),
    modes=(
        Mode(when=frozenset({"--version"}), operands=NO_OPERANDS),
        Mode(when=frozenset({"--help"}), operands=NO_OPERANDS),
    ),
)

_PNPM_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "-v --version",
    "-D --save-dev",
    "-P --save-prod",
    "-O --save-optional",
    "-E --save-exact",
    "-g --global",
    "-r --recursive",
    "-w --workspace-root",
    "--filter -F =",
    "--frozen-lockfile",
    "--prefer-frozen-lockfile",
    "--no-frozen-lockfile",
    "--lockfile-only",
    "--offline",
    "--prefer-offline",
    "--ignore-scripts",
    "--prod",
    "--dev",
    "--no-optional",
    "--silent -s",
    "--reporter =",
    "--loglevel =",
    ("-C --dir =", _CHDIR),
    ("--registry =", NETWORK),
    "--shamefully-hoist",
    "--parallel",
    "--stream",
    "--if-present",
)


def _pnpm(*facts: Implicit) -> ProgramRow:
    return row(*_PNPM_OPTIONS, inherit=True, operands=NO_OPERANDS, facts=facts)


_PNPM_INSTALL: Final = _pnpm(*_INSTALLS)
_PNPM_RUN: Final = _pnpm(*_NPM_RUNS)
_PNPM_FETCH_RUN: Final = _fetches_and_runs(*_PNPM_OPTIONS, "--package =")
_PNPM: Final = row(
    *_PNPM_OPTIONS,
    subcommands={
        "install": _PNPM_INSTALL,
        "i": _PNPM_INSTALL,
        "add": _PNPM_INSTALL,
        "remove": _PNPM_INSTALL,
        "rm": _PNPM_INSTALL,
        "update": _PNPM_INSTALL,
        "up": _PNPM_INSTALL,
        "run": _PNPM_RUN,
        "test": _PNPM_RUN,
        "t": _PNPM_RUN,
        "start": _PNPM_RUN,
        "exec": _PNPM_RUN,
        "dlx": _PNPM_FETCH_RUN,
        "create": _PNPM_FETCH_RUN,
        "init": _pnpm(_writes("package.json")),
        "list": _pnpm(),
        "ls": _pnpm(),
        "why": _pnpm(),
        "outdated": _pnpm(_fetches("the registry")),
        "audit": _pnpm(_fetches("the registry")),
    },
    subcommand_names={"i": "install", "rm": "remove", "up": "update", "t": "test", "ls": "list"},
)

# ───────────────────────── cargo ─────────────────────────

# Building runs build scripts and procedural macros, and fetches what the
# lock file names; --config KEY=VALUE may name programs (a rustc wrapper).
_CARGO_GLOBAL: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "-V --version",
    "-v --verbose",
    "-q --quiet",
    "--color =",
    "--frozen",
    "--locked",
    "--offline",
    ("--config =", RUN_CODE),
    "-Z =",
    ("-C =", _CHDIR),
    "--list",
    "--explain =",
)
_CARGO_TARGETS: Final[tuple[OptionSpec, ...]] = (
    ("--manifest-path =", READ),
    "-p --package =",
    "--workspace --all",
    "--exclude =",
    "--lib",
    "--bin =",
    "--bins",
    "--example =",
    "--examples",
    "--test =",
    "--tests",
    "--bench =",
    "--benches",
    "--all-targets",
    "-F --features =",
    "--all-features",
    "--no-default-features",
    "-r --release",
    "--profile =",
    "-j --jobs =",
    "--keep-going",
    "--target =",
    ("--target-dir =", _WRITE_TREE),
    "--message-format =",
    "--timings [=]",
    "--future-incompat-report",
    "--ignore-rust-version",
    "--unit-graph",
    "--no-run",
    "--no-fail-fast",
    "--doc",
    "--open",
    "--no-deps",
)
_BUILDS: Final = (
    _fetches("the crates the lock file names"),
    _runs("build scripts and procedural macros"),
    _writes("the target directory", "target"),
)


def _cargo(
    *facts: Implicit,
    options: tuple[OptionSpec, ...] = _CARGO_TARGETS,
    global_options: tuple[OptionSpec, ...] = _CARGO_GLOBAL,
) -> ProgramRow:
    return row(
        *global_options,
        *options,
        abbreviations=False,
        inherit=True,
        operands=NO_OPERANDS,
        facts=facts,
    )


_CARGO_BUILD: Final = _cargo(*_BUILDS)
_CARGO_RUNS: Final = _cargo(*_BUILDS, _runs("the program it builds"))
_CARGO_READS: Final = _cargo(
    options=(
        *_CARGO_TARGETS,
        "--format-version =",
        "-e --edges =",
        "-i --invert =",
        "--depth =",
        "--prefix =",
    )
)
_CARGO_FETCHES: Final = _cargo(
    _fetches("the registry"), _writes("Cargo.lock and the registry cache")
)
_CARGO: Final = row(
    *_CARGO_GLOBAL,
    abbreviations=False,
    plus=Option(name="+TOOLCHAIN"),
    subcommands={
        "build": _CARGO_BUILD,
        "b": _CARGO_BUILD,
        "check": _CARGO_BUILD,
        "c": _CARGO_BUILD,
        "doc": _CARGO_BUILD,
        "d": _CARGO_BUILD,
        "clippy": _CARGO_BUILD,
        "rustc": _CARGO_BUILD,
        "rustdoc": _CARGO_BUILD,
        "run": _CARGO_RUNS,
        "r": _CARGO_RUNS,
        "test": _CARGO_RUNS,
        "t": _CARGO_RUNS,
        "bench": _CARGO_RUNS,
        "fix": _cargo(*_BUILDS, _writes("the sources")),
        "fmt": _cargo(
            _writes("the sources"),
            options=(*_CARGO_TARGETS, "--check"),
        ),
        "install": _cargo(
            *_INSTALLS,
            options=(
                *_CARGO_TARGETS,
                "--git =",
                "--path =",
                "--root =",
                "--force",
                "--vers --version =",
            ),
            global_options=tuple(spec for spec in _CARGO_GLOBAL if spec != "-V --version"),
        ),
        "uninstall": _cargo(_writes("the installed programs")),
        "add": _cargo(_fetches("the registry"), _writes("Cargo.toml")),
        "remove": _cargo(_writes("Cargo.toml")),
        "rm": _cargo(_writes("Cargo.toml")),
        "update": _CARGO_FETCHES,
        "fetch": _CARGO_FETCHES,
        "generate-lockfile": _CARGO_FETCHES,
        "vendor": _CARGO_FETCHES,
        "new": _cargo(_writes("the new package")),
        "init": _cargo(_writes("the new package")),
        "clean": _cargo(Implicit(effect=_DELETE_TREE, via="the target directory")),
        "search": _cargo(_fetches("the registry")),
        "publish": _cargo(*_BUILDS, _fetches("the registry")),
        "login": _cargo(_fetches("the registry"), _writes("the credentials file")),
        "tree": _CARGO_READS,
        "metadata": _CARGO_READS,
        "locate-project": _CARGO_READS,
        "pkgid": _CARGO_READS,
        "version": _CARGO_READS,
        "help": _CARGO_READS,
    },
    subcommand_names={
        "b": "build",
        "c": "check",
        "d": "doc",
        "r": "run",
        "t": "test",
        "rm": "remove",
    },
)

# ───────────────────────── go ─────────────────────────

# go's flags are whole words (`-o FILE`, `-o=FILE`); -C DIR must come first.
_GO_BUILD_FLAGS: Final[tuple[OptionSpec, ...]] = (
    ("-C =", _CHDIR),
    "-a",
    "-n",
    "-p =",
    "-race",
    "-msan",
    "-asan",
    "-cover",
    "-covermode =",
    "-coverpkg =",
    "-v",
    "-work",
    "-x",
    "-asmflags =",
    "-buildmode =",
    "-buildvcs (=)",
    "-compiler =",
    "-gccgoflags =",
    "-gcflags =",
    "-installsuffix =",
    "-ldflags =",
    "-linkshared",
    "-mod =",
    ("-modfile =", READ),
    "-modcacherw",
    ("-overlay =", READ),
    ("-pgo =", READ),
    ("-pkgdir =", _WRITE_TREE),
    "-tags =",
    "-trimpath",
    ("-toolexec =", RUN_SHELL),
    ("-o =", WRITE),
    "-json",
)
_GO_TEST_FLAGS: Final[tuple[OptionSpec, ...]] = (
    "-run =",
    "-skip =",
    "-bench =",
    "-benchtime =",
    "-benchmem",
    "-count =",
    "-cpu =",
    "-failfast",
    "-fullpath",
    "-list =",
    "-parallel =",
    "-short",
    "-shuffle =",
    "-timeout =",
    "-fuzz =",
    "-fuzztime =",
    "-fuzzminimizetime =",
    "-vet =",
    "-c",
    ("-coverprofile =", WRITE),
    ("-cpuprofile =", WRITE),
    ("-memprofile =", WRITE),
    ("-blockprofile =", WRITE),
    ("-mutexprofile =", WRITE),
    ("-trace =", WRITE),
    ("-outputdir =", _WRITE_TREE),
    ("-exec =", RUN_PROGRAM),
    ("-args", None),
)
_GO_FETCH: Final = _fetches("the module proxy")
_GO_COMPILES: Final = _runs("cgo and the tools the build runs")


def _go(
    *flags: OptionSpec,
    facts: tuple[Implicit, ...] = (),
    ends: tuple[str, ...] = (),
    options_end_after: int | None = None,
    operands: Operands = NO_OPERANDS,
) -> ProgramRow:
    return row(
        "-h -help --help",
        *flags,
        style="words",
        fused_equals=True,
        ends=ends,
        options_end_after=options_end_after,
        operands=operands,
        facts=facts,
    )


_GO: Final = row(
    "-h -help --help",
    style="words",
    subcommands={
        "build": _go(
            *_GO_BUILD_FLAGS, facts=(_GO_FETCH, _GO_COMPILES, _writes("the program it builds"))
        ),
        "install": _go(
            *_GO_BUILD_FLAGS, facts=(_GO_FETCH, _GO_COMPILES, _writes("the installed programs"))
        ),
        "get": _go(
            *_GO_BUILD_FLAGS,
            "-d",
            "-t",
            "-u",
            facts=(_GO_FETCH, _GO_COMPILES, _writes("go.mod and the module cache")),
        ),
        "run": _go(
            *_GO_BUILD_FLAGS,
            ("-exec =", RUN_PROGRAM),
            facts=(_GO_FETCH, _GO_COMPILES, _runs("the program it builds")),
            options_end_after=1,
        ),
        "test": _go(
            *_GO_BUILD_FLAGS,
            *_GO_TEST_FLAGS,
            facts=(_GO_FETCH, _GO_COMPILES, _runs("the tests")),
            ends=("-args",),
        ),
        "vet": _go(*_GO_BUILD_FLAGS, facts=(_GO_FETCH,)),
        "generate": _go(
            *_GO_BUILD_FLAGS, "-run =", "-skip =", facts=(_runs("the //go:generate commands"),)
        ),
        "fmt": _go("-n", "-x", "-mod =", facts=(_writes("the sources"),)),
        "clean": _go(
            "-cache",
            "-modcache",
            "-testcache",
            "-fuzzcache",
            "-i",
            "-r",
            "-n",
            "-x",
            facts=(Implicit(effect=_DELETE_TREE, via="the build and module caches"),),
        ),
        "list": _go(
            *_GO_BUILD_FLAGS,
            "-m",
            "-f =",
            "-u",
            "-versions",
            "-deps",
            "-test",
            "-e",
            "-find",
            "-export",
            "-compiled",
            "-retracted",
            "-reuse =",
            facts=(_GO_FETCH,),
        ),
        # `go env -w` and `-u` change the go environment file (`$GOENV`, by
        # default ~/.config/go/env), which every later go command reads
        # (`GOFLAGS=-toolexec=…` runs a program at each build).
        "env": _go(
            "-json",
            "-changed",
            *(
                (
                    spelling,
                    Effect(kind="write", action="write", value="~/.config/go/env", fixed=True),
                )
                for spelling in ("-w", "-u")
            ),
        ),
        "version": _go("-m", "-v"),
        "doc": _go("-all", "-c", "-cmd", "-short", "-src", "-u"),
        "help": _go(),
        "mod": row(
            "-h -help --help",
            style="words",
            subcommands={
                "download": _go(
                    "-json", "-x", "-reuse =", facts=(_GO_FETCH, _writes("the module cache"))
                ),
                "tidy": _go(
                    "-e",
                    "-v",
                    "-x",
                    "-go =",
                    "-compat =",
                    facts=(_GO_FETCH, _writes("go.mod and go.sum")),
                ),
                "vendor": _go(
                    "-e",
                    "-v",
                    ("-o =", _WRITE_TREE),
                    facts=(_GO_FETCH, _writes("the vendor directory", "vendor")),
                ),
                "init": _go(facts=(_writes("go.mod", "go.mod"),)),
                "edit": _go(
                    "-fmt",
                    "-module =",
                    "-go =",
                    "-toolchain =",
                    "-require =",
                    "-droprequire =",
                    "-exclude =",
                    "-dropexclude =",
                    "-replace =",
                    "-dropreplace =",
                    "-retract =",
                    "-dropretract =",
                    "-print",
                    "-json",
                    facts=(_writes("go.mod", "go.mod"),),
                ),
                "graph": _go("-go =", "-x", facts=(_GO_FETCH,)),
                "verify": _go(facts=(_GO_FETCH,)),
                "why": _go("-m", "-vendor", facts=(_GO_FETCH,)),
            },
        ),
    },
    environment=frozenset(
        {"GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "CGO_CFLAGS", "CGO_LDFLAGS", "CC", "CXX"}
    ),
    examples=(
        *allows("go version"),
        *refuses("go run main.go", profile="workspace-write"),
    ),
)


# ───────────────────────── apt, apt-get, dpkg ─────────────────────────

# -o KEY=VALUE and -c FILE set APT's configuration, whose hooks
# (DPkg::Pre-Invoke, APT::Update::Post-Invoke…) are shell text.
_APT_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "-h --help",
    "-v --version",
    "-y --yes --assume-yes",
    "--assume-no",
    "-q --quiet",
    "-s --simulate --just-print --dry-run --recon --no-act",
    "-d --download-only",
    "-f --fix-broken",
    "-m --ignore-missing --fix-missing",
    "--no-download",
    "-u --show-upgraded",
    "-V --verbose-versions",
    "-a --host-architecture =",
    "-P --build-profiles =",
    "-b --compile --build",
    "--no-install-recommends",
    "--install-recommends",
    "--no-install-suggests",
    "--install-suggests",
    "--ignore-hold",
    "--no-upgrade",
    "--only-upgrade",
    "--allow-downgrades",
    "--allow-remove-essential",
    "--allow-change-held-packages",
    "--force-yes",
    "--print-uris",
    "--purge",
    "--reinstall",
    "--list-cleanup",
    "-t --target-release --default-release =",
    "--trivial-only",
    "--no-remove",
    "--auto-remove --autoremove",
    "--only-source",
    "--allow-unauthenticated",
    "--allow-insecure-repositories",
    "--allow-releaseinfo-change",
    "--show-progress",
    ("--with-source =", READ),
    ("-c --config-file =", RUN_SHELL, (READ,)),
    ("-o --option =", RUN_SHELL),
    "--installed",
    "--upgradable",
    "--all-versions",
    "--manual-installed",
    "--full",
    "--names-only",
)
_SYSTEM_PACKAGES: Final = (
    _fetches("the package archives"),
    _writes("the system's packages", "/"),
    _runs("the packages' maintainer scripts"),
)


def _apt(*facts: Implicit) -> ProgramRow:
    return row(
        *_APT_OPTIONS, abbreviations=False, inherit=True, operands=Operands(rest=DATA), facts=facts
    )


_APT_INSTALLS: Final = _apt(*_SYSTEM_PACKAGES)
_APT_REMOVES: Final = _apt(
    _writes("the system's packages", "/"), _runs("the packages' maintainer scripts")
)
_APT_READS: Final = _apt()
_APT_COMMANDS: Final[Mapping[str, ProgramRow]] = {
    **dict.fromkeys(
        (
            "install",
            "reinstall",
            "upgrade",
            "full-upgrade",
            "dist-upgrade",
            "dselect-upgrade",
            "build-dep",
            "satisfy",
        ),
        _APT_INSTALLS,
    ),
    **dict.fromkeys(("remove", "purge", "autoremove", "autopurge"), _APT_REMOVES),
    "update": _apt(
        _fetches("the package archives"), _writes("the package lists", "/var/lib/apt/lists")
    ),
    "clean": _apt(_writes("the package cache", "/var/cache/apt")),
    "autoclean": _apt(_writes("the package cache", "/var/cache/apt")),
    "download": _apt(_fetches("the package archives"), _writes("the downloaded packages", ".")),
    "source": _apt(
        _fetches("the package archives"),
        _writes("the source packages", "."),
        _runs("the build, with --compile"),
    ),
    "changelog": _apt(_fetches("the package archives")),
    "edit-sources": _apt(
        _writes("the package sources", "/etc/apt/sources.list"),
        Implicit(effect=RUN_PROGRAM, via="the editor"),
    ),
    **dict.fromkeys(
        (
            "list",
            "search",
            "show",
            "showsrc",
            "policy",
            "depends",
            "rdepends",
            "check",
            "help",
            "indextargets",
            "moo",
        ),
        _APT_READS,
    ),
}
_APT: Final = row(*_APT_OPTIONS, abbreviations=False, subcommands=_APT_COMMANDS)

_DPKG_READS: Final = frozenset(
    {
        "--list",
        "--status",
        "--print-avail",
        "--listfiles",
        "--search",
        "--contents",
        "--info",
        "--field",
    }
    | {"--print-architecture", "--print-foreign-architectures", "--get-selections", "--verify"}
    | {"--audit", "--compare-versions", "--help", "--version", "--ctrl-tarfile", "--fsys-tarfile"}
    | {"--no-act"}
)
_DPKG: Final = row(
    "-i --install",
    "--unpack",
    "--configure",
    "-r --remove",
    "-P --purge",
    "--triggers-only",
    "-V --verify",
    "-C --audit",
    "--get-selections",
    "--set-selections",
    "--clear-selections",
    "--add-architecture",
    "--remove-architecture",
    "--print-architecture",
    "--print-foreign-architectures",
    "--compare-versions",
    "-l --list",
    "-s --status",
    "-p --print-avail",
    "-L --listfiles",
    "-S --search",
    "-b --build",
    "-c --contents",
    "-e --control",
    "-x --extract",
    "-X --vextract",
    "-f --field",
    "--ctrl-tarfile",
    "--fsys-tarfile",
    "-I --info",
    "-? --help",
    "--version",
    "-R --recursive",
    "-G",
    "-E",
    "-O --selected-only",
    "--no-act --dry-run --simulate",
    "-B --auto-deconfigure",
    "--no-triggers",
    "--no-pager",
    ("--root =", _CHDIR),
    ("--admindir =", _WRITE_TREE),
    ("--instdir =", _WRITE_TREE),
    ("--log =", WRITE),
    "--path-include =",
    "--path-exclude =",
    ("--pre-invoke =", RUN_SHELL),
    ("--post-invoke =", RUN_SHELL),
    "--abort-after =",
    "--status-fd =",
    "--verify-format =",
    *(
        f"--force-{name}"
        for name in [
            "all",
            "depends",
            "overwrite",
            "confold",
            "confnew",
            "confdef",
            "confmiss",
            "confask",
            "architecture",
            "downgrade",
            "remove-reinstreq",
            "not-root",
            "bad-path",
            "bad-verify",
            "depends-version",
            "breaks",
            "conflicts",
        ]
    ),
    abbreviations=False,
    operands=Operands(rest=DATA),
    modes=(
        *(
            Mode(when=frozenset({name}), operands=Operands(rest=DATA))
            for name in sorted(_DPKG_READS)
        ),
        Mode(
            when=frozenset({"--extract"}), operands=Operands(head=(role(READ), role(_WRITE_TREE)))
        ),
        Mode(
            when=frozenset({"--vextract"}), operands=Operands(head=(role(READ), role(_WRITE_TREE)))
        ),
        Mode(when=frozenset({"--build"}), operands=Operands(head=(role(_READ_TREE), role(WRITE)))),
        Mode(
            when=frozenset({"--install"}),
            operands=Operands(rest=role(READ)),
            facts=(
                _writes("the system's packages", "/"),
                _runs("the packages' maintainer scripts"),
            ),
        ),
        *(
            Mode(
                when=frozenset({name}),
                operands=Operands(rest=DATA),
                facts=(
                    _writes("the system's packages", "/"),
                    _runs("the packages' maintainer scripts"),
                ),
            )
            for name in (
                "--unpack",
                "--configure",
                "--remove",
                "--purge",
                "--triggers-only",
                "--set-selections",
            )
        ),
    ),
)

BUILD_TABLES: Final[Mapping[str, ProgramRow]] = {
    "make": _MAKE,
    "gmake": _MAKE,
    "pytest": _PYTEST,
    "py.test": _PYTEST,
    "pip": _PIP,
    "pip3": _PIP,
    "npm": _NPM,
    "npx": _NPX,
    "yarn": _YARN,
    "pnpm": _PNPM,
    "cargo": _CARGO,
    "go": _GO,
    "apt": _APT,
    "apt-get": _APT,
    "dpkg": _DPKG,
}
"""Basename → row, for the build tools and package managers."""
