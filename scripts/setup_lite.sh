#!/usr/bin/env bash
# Get what `make lite` needs besides the course's .venv:
#   - lite/node_modules: the Pyodide core (npm package `pyodide`) and Graphviz compiled to
#     WebAssembly (`@viz-js/viz`), at the versions pinned in lite/package-lock.json;
#   - .venv-lite: a virtualenv with the JupyterLite build tools pinned in lite/requirements.txt
#     (apart from .venv: see that file for why).
#
# Idempotent: when both match their pins it only checks (well under a second). Needs node and
# npm; as root on Debian/Ubuntu it installs Debian's `nodejs` and `npm` when they are missing
# (as scripts/setup_classroom.sh does), elsewhere it says how to get them.
#
# Environment:
#   LITE_VENV   the build tools' virtualenv (default: .venv-lite)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/npm_present.sh

LITE_VENV="${LITE_VENV:-.venv-lite}"
REQS=lite/requirements.txt

say() { echo "setup_lite: $*"; }
die() {
    echo "setup_lite: ERROR: $*" >&2
    exit 1
}

# --- npm: lite/node_modules -----------------------------------------------------------------
NPM_STAMP=lite/node_modules/.setup-stamp
npm_key="$(cat lite/package.json lite/package-lock.json | sha256sum | cut -d' ' -f1)"
if [[ -f "$NPM_STAMP" && "$(<"$NPM_STAMP")" == "$npm_key" ]]; then
    say "up to date (lite/node_modules)"
else
    ensure_npm "make lite does"
    say "installing pyodide and @viz-js/viz into lite/node_modules (npm ci)"
    (cd lite && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci in lite/ failed"
    echo "$npm_key" >"$NPM_STAMP"
fi

# --- the build tools: .venv-lite ------------------------------------------------------------
VENV_STAMP="$LITE_VENV/.setup-stamp"
venv_key="$(sha256sum "$REQS" | cut -d' ' -f1)"
if [[ -f "$VENV_STAMP" && "$(<"$VENV_STAMP")" == "$venv_key" ]]; then
    say "up to date ($LITE_VENV)"
    exit 0
fi
# The same interpreter as the course's .venv (make setup checked its version).
base_python=python3
[[ -x .venv/bin/python ]] && base_python="$(.venv/bin/python -c 'import sys; print(sys._base_executable)')"
if [[ ! -x "$LITE_VENV/bin/python" ]]; then
    say "creating $LITE_VENV"
    "$base_python" -m venv "$LITE_VENV" || die "could not create $LITE_VENV"
fi
say "installing $REQS into $LITE_VENV"
"$LITE_VENV/bin/python" -m pip install -q -r "$REQS" || die "pip install -r $REQS failed (see above)"
echo "$venv_key" >"$VENV_STAMP"
say "done"
