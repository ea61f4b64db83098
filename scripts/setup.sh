# Sourced by the other scripts: creates .venv and installs the project with
# every extra the tests need. Idempotent; safe to run again.
set -eu
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
