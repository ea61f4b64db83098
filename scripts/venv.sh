# Sourced by start.sh and setup.sh, with EXTRAS set to the extras to install
# ("web" for the approval service alone, "dev" for everything the tests use):
# makes .venv and installs the project into it, editable, with those extras.
# When .venv already holds that install and pyproject.toml has not changed
# since, pip is not run at all: a second start begins at once. One line per
# step, and pip's own progress while it works. A .venv that has no pip (a
# failed python3 -m venv) is made again. UPGRADE_PIP=1 brings pip itself
# up to date first (scripts/setup.sh, for the `dev` extra's many packages).
set -eu
: "${EXTRAS:?EXTRAS names the extras to install}"
# python3 -m venv ARGS…, or one sentence when it cannot work: Debian and
# Ubuntu ship venv's ensurepip apart (python3-venv), and without it venv
# fails half-way, leaving a .venv without pip.
make_venv() {
    if ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
        echo "python3 cannot make a virtual environment (it has no ensurepip): on Debian or Ubuntu run 'apt-get install python3-venv' as root, then this again." >&2
        exit 1
    fi
    python3 -m venv "$@"
}
if [ ! -x .venv/bin/python ]; then
    echo "== making the virtual environment .venv (python3 -m venv)"
    make_venv .venv
fi
stamp=.venv/.agent-gateway-installed
# What an install is of: the extras, and the pyproject.toml it was made from.
project="$(.venv/bin/python -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')"
if ! grep -qxF "$EXTRAS $project" "$stamp" 2>/dev/null; then
    # What a python3 -m venv that failed half-way leaves (an interrupted
    # start, or an earlier version of this script) is made again, rather than
    # failing on every start with "No module named pip".
    if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
        echo "== .venv has no pip; making it again (python3 -m venv --clear)"
        rm -f "$stamp"
        make_venv --clear .venv
    fi
    if [ "${UPGRADE_PIP:-0}" = 1 ]; then
        echo "== upgrading pip in .venv"
        .venv/bin/python -m pip install --disable-pip-version-check --no-input --upgrade pip
    fi
    echo "== installing agent-gateway[$EXTRAS] into .venv (pip)"
    .venv/bin/python -m pip install --disable-pip-version-check --no-input -e ".[$EXTRAS]"
    # Keep what is still true (other extras installed from this pyproject.toml), add this.
    { grep -F " $project" "$stamp" 2>/dev/null || true; echo "$EXTRAS $project"; } > "$stamp.new"
    mv "$stamp.new" "$stamp"
fi
