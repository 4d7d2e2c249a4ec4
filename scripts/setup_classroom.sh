#!/usr/bin/env bash
# Get what `make slides` and `make site` need besides the Python packages in requirements.txt:
# the browser files they serve from disk (reveal.js, MathJax, require.js, jQuery), installed
# from the npm registry into vendor/node_modules at the versions pinned in vendor/package-lock.json.
#
# Idempotent: when vendor/node_modules matches the lock file it only checks (well under a second).
# Needs node and npm. As root on Debian/Ubuntu it installs Debian's `nodejs` and `npm` packages
# when they are missing; elsewhere it says how to get them (any Node.js >= 18 with its npm).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "setup_classroom: $*"; }
die() {
    echo "setup_classroom: ERROR: $*" >&2
    exit 1
}

STAMP=vendor/node_modules/.setup-stamp
key="$(cat vendor/package.json vendor/package-lock.json | sha256sum | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(<"$STAMP")" == "$key" ]]; then
    say "up to date (vendor/node_modules)"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "npm not found; installing Debian's nodejs and npm with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt_opts=(-q -o DPkg::Lock::Timeout=300)
        apt-get "${apt_opts[@]}" update
        apt-get "${apt_opts[@]}" install -y --no-install-recommends nodejs npm \
            || die "apt-get install nodejs npm failed (see above)"
    else
        die "npm is not on PATH. Install Node.js (>= 18) with npm, for example
    sudo apt-get install nodejs npm     # Debian / Ubuntu
    brew install node                   # macOS (Homebrew)
    conda install -c conda-forge nodejs # conda
then run this again (make slides / make site do)."
    fi
fi

say "installing reveal.js, MathJax, require.js and jQuery into vendor/node_modules (npm ci)"
(cd vendor && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci in vendor/ failed"
echo "$key" >"$STAMP"
say "done"
