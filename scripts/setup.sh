# Sourced by the other scripts: creates .venv and installs the project with
# every extra the tests need. Idempotent; safe to run again.
set -eu
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
# The browser tests drive Debian's chromium through Playwright (Playwright's own
# browser download does not work here). scripts/test.sh asks for it with
# WITH_BROWSER=1; it is installed only when missing, and only as root.
if [ "${WITH_BROWSER:-0}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing chromium (apt-get) for the browser tests"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "The browser tests need chromium: run 'apt-get install chromium' as root." >&2
    fi
fi
# The end-to-end tests drive the real agent CLIs offline: Claude Code comes
# with claude-agent-sdk; Codex CLI and Gemini CLI come from npm, pinned to the
# versions whose hook contracts the gateway was checked against, into .hosts/
# (installed once; set HOSTS_REINSTALL=1 to install again).
CODEX_VERSION=0.171.0
GEMINI_VERSION=0.61.0
if [ ! -x .hosts/node_modules/.bin/codex ] || [ ! -x .hosts/node_modules/.bin/gemini ] || [ "${HOSTS_REINSTALL:-0}" = 1 ]; then
    if command -v npm >/dev/null 2>&1; then
        echo "== installing the agent CLIs for the end-to-end tests (npm)"
        mkdir -p .hosts
        npm install --prefix .hosts --no-audit --no-fund --no-save --loglevel=error \
            "@openai/codex@$CODEX_VERSION" "@google/gemini-cli@$GEMINI_VERSION"
    else
        echo "The end-to-end tests need npm to install Codex CLI and Gemini CLI: run 'apt-get install npm' as root." >&2
    fi
fi
