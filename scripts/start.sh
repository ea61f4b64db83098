#!/bin/sh
# The README's first command: sets up what the approval service needs (a
# virtual environment .venv with the project and its `web` extra, nothing
# more) and starts it with the embedded default config. It prints the page's
# URL and the bearer token, and runs until Ctrl-C. Extra arguments go to
# `gateway serve` (--port N, --host H, --config FILE, --audit FILE).
# Everything the tests need (browser, agent CLIs, the `dev` extra) is
# scripts/test.sh's to install.
set -eu
cd "$(dirname "$0")/.."
EXTRAS=web
. scripts/venv.sh
echo "== starting the approval service (gateway serve)"
exec .venv/bin/gateway serve "$@"
