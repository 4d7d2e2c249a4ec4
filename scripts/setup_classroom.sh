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
source scripts/npm_present.sh

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

ensure_npm "make slides / make site do"

say "installing reveal.js, MathJax, require.js, jQuery and axe-core (the browser test) into vendor/node_modules (npm ci)"
(cd vendor && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci in vendor/ failed"
echo "$key" >"$STAMP"
say "done"
