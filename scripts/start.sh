#!/bin/sh
# Sets everything up on a fresh machine and starts the gateway's main job with
# the embedded default config.
set -eu
cd "$(dirname "$0")/.."
. scripts/setup.sh
exec .venv/bin/gateway demo "$@"
