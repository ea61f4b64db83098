# Sourced by scripts/test.sh: creates .venv and installs the project with
# every extra the tests need (the `dev` extra, through scripts/venv.sh), the
# Debian packages the browser and program tests use, and the agent CLIs.
# Idempotent; safe to run again. (scripts/start.sh installs only the `web`
# extra, for the service alone.)
set -eu
# python3 -m venv needs Debian's python3-venv (venv.sh says so when it is
# missing); installed here first, when it can be.
if ! python3 -c 'import ensurepip' >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing python3-venv (apt-get) for the virtual environment"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi
EXTRAS=dev
UPGRADE_PIP=1
. scripts/venv.sh
# Debian packages the tests use are gathered first and installed in one
# apt-get run (only when missing, and only as root):
# * the browser tests drive Debian's chromium through Playwright (Playwright's
#   own browser download does not work here); scripts/test.sh asks for it with
#   WITH_BROWSER=1;
# * the language readers' proofs (tests/programs/) run the programs they read,
#   and the option tables are checked against the --help of the programs
#   installed (tests/programs/test_installed.py), and the persistence points'
#   loaders run (direnv: tests/rules/test_persistence_points.py); WITH_PROGRAMS=1
#   asks for them;
# * `gateway run` confines what it runs with bubblewrap, and its tests run the
#   real one (tests/gateway/test_gateway_run.py): always.
missing=""
if ! command -v bwrap >/dev/null 2>&1; then
    missing="$missing bubblewrap"
fi
if [ "${WITH_BROWSER:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
    missing="$missing chromium"
fi
if [ "${WITH_PROGRAMS:-0}" = 1 ]; then
    for pair in gawk:gawk mawk:mawk original-awk:original-awk busybox:busybox jq:jq git:git \
        sed:sed find:findutils tree:tree rg:ripgrep ag:silversearcher-ag diffstat:diffstat \
        rsync:rsync zstd:zstd xz:xz-utils bzip2:bzip2 file:file less:less man:man-db wget:wget \
        curl:curl telnet:inetutils-telnet traceroute:traceroute whois:whois lsof:lsof \
        top:procps patch:patch make:make nm:binutils direnv:direnv; do
        if ! command -v "${pair%%:*}" >/dev/null 2>&1; then
            missing="$missing ${pair#*:}"
        fi
    done
fi
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing$missing (apt-get) for the confinement, browser and program tests"
        apt-get update -qq
        # shellcheck disable=SC2086  # one word per package
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "The confinement, browser and program tests need:$missing; run 'apt-get install$missing' as root." >&2
    fi
fi
# The end-to-end tests drive the real agent CLIs offline: Claude Code comes
# with claude-agent-sdk; Codex CLI and Gemini CLI come from npm, pinned to the
# versions whose hook contracts the gateway was checked against, into .hosts/
# (installed once; set HOSTS_REINSTALL=1 to install again).
CODEX_VERSION=0.171.0
GEMINI_VERSION=0.61.0
if [ ! -x .hosts/node_modules/.bin/codex ] || [ ! -x .hosts/node_modules/.bin/gemini ] || [ "${HOSTS_REINSTALL:-0}" = 1 ]; then
    if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing npm (apt-get) for the agent CLIs"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
    fi
    if command -v npm >/dev/null 2>&1; then
        echo "== installing the agent CLIs for the end-to-end tests (npm)"
        mkdir -p .hosts
        npm install --prefix .hosts --no-audit --no-fund --no-save --loglevel=error \
            "@openai/codex@$CODEX_VERSION" "@google/gemini-cli@$GEMINI_VERSION"
    else
        echo "The end-to-end tests need npm to install Codex CLI and Gemini CLI: run 'apt-get install npm' as root." >&2
    fi
fi
