#!/bin/sh
# Sets everything up on a fresh machine and starts the gateway's main job, the
# approval service, with the embedded default config: it prints the page's URL
# and the bearer token, and runs until Ctrl-C. Extra arguments go to
# `gateway serve` (--port N, --host H, --config FILE, --audit FILE).
set -eu
cd "$(dirname "$0")/.."
. scripts/setup.sh
exec .venv/bin/gateway serve "$@"
