#!/usr/bin/env bash
# Make the course runnable: a virtualenv in .venv with requirements.txt (at the exact versions in
# requirements.lock) and minigrad (editable), the venv's own Jupyter kernel, Graphviz's `dot` on
# PATH, and the git pre-commit hook.
#
# Idempotent. A stamp file inside .venv records a hash of the files that decide what gets
# installed; when nothing changed and `dot` is present, the script returns at once.
#
# Environment:
#   PYTHON   interpreter to build .venv with (default: first python >= 3.11 found on PATH)
#   VENV     virtualenv directory (default: .venv)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

VENV="${VENV:-.venv}"
STAMP="$VENV/.setup-stamp"
# Whatever changes these files may change what must be installed.
KEY_FILES=(requirements.txt requirements.lock pyproject.toml scripts/setup.sh)

say() { echo "setup: $*"; }
die() {
    echo "setup: ERROR: $*" >&2
    exit 1
}

# requirements.lock pins the exact versions the stored outputs were made with (make lock).
[[ -f requirements.lock ]] || die "requirements.lock is missing; 'make lock' writes it"

current_key() { cat "${KEY_FILES[@]}" | sha256sum | cut -d' ' -f1; }

# Fast path: this is what every `make` target pays, so keep it to a hash and two file tests.
key="$(current_key)"
if [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(<"$STAMP")" == "$key" ]] \
    && command -v dot >/dev/null 2>&1; then
    say "up to date ($VENV)"
    exit 0
fi

find_python() {
    local candidates=()
    if [[ -n "${PYTHON:-}" ]]; then
        candidates+=("$PYTHON")
    fi
    candidates+=(python3 python3.14 python3.13 python3.12 python3.11 python)
    local c
    for c in "${candidates[@]}"; do
        # Run it rather than trust the name: version managers install shims that exist on PATH
        # but refuse to start when that version is not selected.
        if command -v "$c" >/dev/null 2>&1 \
            && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
            echo "$c"
            return 0
        fi
    done
    return 1
}

create_venv() {
    local py
    py="$(find_python)" || die "no Python >= 3.11 found on PATH (tried \$PYTHON, python3, \
python3.14 ... python3.11, python). Install Python 3.11 or newer, or point PYTHON at one: \
make setup PYTHON=/path/to/python3.12"
    say "creating $VENV with $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"
    if ! "$py" -m venv "$VENV"; then
        # A half-made venv would fool the next run into skipping this step.
        rm -rf "$VENV"
        die "'$py -m venv' failed. On Debian/Ubuntu install the venv module first, e.g. \
'apt-get install python3-venv' (or python3.X-venv for your version)."
    fi
}

# Graphviz first: without it there is no point spending minutes on pip.
if ! command -v dot >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "Graphviz 'dot' not found; installing Debian's graphviz with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        apt-get install -y -q graphviz
        command -v dot >/dev/null 2>&1 || die "apt-get installed graphviz but 'dot' is still \
not on PATH"
    else
        die "Graphviz's 'dot' program is not on PATH; the notebooks draw graphs with it.
Install it with one of:
    sudo apt-get install graphviz          # Debian / Ubuntu
    brew install graphviz                  # macOS (Homebrew)
    conda install -c conda-forge graphviz  # conda (inside the active environment)
then run 'make setup' again."
    fi
fi
say "$(dot -V 2>&1)"

if [[ ! -x "$VENV/bin/python" ]]; then
    create_venv
elif ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    die "$VENV exists but its Python is older than 3.11 or broken; remove it (make distclean) \
and run make setup again"
fi

PIP=("$VENV/bin/python" -m pip)
LOCKED=(-c requirements.lock)
say "installing requirements.txt with the versions pinned in requirements.lock into $VENV \
(the first time takes a few minutes)"
"${PIP[@]}" install --quiet -r requirements.txt "${LOCKED[@]}"
say "installing minigrad in editable mode"
"${PIP[@]}" install --quiet -e . "${LOCKED[@]}"
"$VENV/bin/python" -m scripts.lock check || die "the installed packages do not match \
requirements.lock (see above)"
# Register the venv's interpreter as the kernel "python3" inside the venv itself, so nbval,
# nbconvert and JupyterLab started from .venv/bin all run notebooks with this interpreter.
"$VENV/bin/python" -m ipykernel install --sys-prefix --name python3 \
    --display-name "Python 3 (ipykernel)" >/dev/null
say "kernel 'python3' -> $VENV/bin/python"

# jupytext is a contributor tool (make notebooks keeps the md/ pairs in sync): keep its
# JupyterLab extension out of the learners' launcher and menus.
"$VENV/bin/jupyter" labextension disable --level=sys_prefix jupyterlab-jupytext >/dev/null 2>&1 \
    || say "note: could not disable jupytext's JupyterLab extension (harmless)"

# The git pre-commit hook (.pre-commit-config.yaml), only in a git checkout of this project
# (not an unpacked archive inside some other repository) that has no linked worktrees: hooks
# are shared by every worktree of a repository, and one without the config would fail to commit.
if command -v git >/dev/null 2>&1 \
    && [[ "$(git rev-parse --show-toplevel 2>/dev/null)" -ef . ]]; then
    if (($(git worktree list --porcelain | grep -c '^worktree ') == 1)); then
        "$VENV/bin/pre-commit" install >/dev/null \
            && say "git pre-commit hook installed (pre-commit run --all-files runs it by hand)" \
            || say "note: 'pre-commit install' failed; run it yourself to get the hook"
    else
        say "this repository has several git worktrees, which share hooks: not installing the \
pre-commit hook; run '.venv/bin/pre-commit run' by hand before committing"
    fi
fi

echo "$key" >"$STAMP"
say "done"
