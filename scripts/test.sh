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
echo "== pytest" && exec .venv/bin/python -m pytest "$@"
