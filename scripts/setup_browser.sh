#!/usr/bin/env bash
# Get what the browser tests (tests/browser) need: Debian's `chromium` on PATH and the Python
# package `playwright` (pinned in tests/browser/requirements.txt) inside the virtualenv.
#
# Idempotent: when both are already there it only checks and returns (well under a second).
# Never runs `playwright install`: that downloads browsers, and the tests use Debian's chromium.
#
# Environment:
#   VENV   virtualenv directory (default: .venv)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

VENV="${VENV:-.venv}"
PY="$VENV/bin/python"
REQS=tests/browser/requirements.txt

say() { echo "setup_browser: $*"; }
die() {
    echo "setup_browser: ERROR: $*" >&2
    exit 1
}

[[ -x "$PY" ]] || die "$PY not found; run 'make setup' first"

# --- chromium -------------------------------------------------------------------------------
if ! command -v chromium >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "chromium not found; installing Debian's chromium with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        # Another apt-get (for example make setup installing graphviz) may hold the lock:
        # wait for it for a while instead of failing at once.
        apt_opts=(-q -o DPkg::Lock::Timeout=300)
        # Fresh containers have empty package lists, so refresh them when apt does not know
        # chromium, and also when an install from stale lists fails (old versions get removed
        # from the mirror). Captured first: `grep -q` on a pipe could kill apt-cache early.
        policy="$(apt-cache policy chromium 2>/dev/null || true)"
        if ! grep -q 'Candidate: [0-9]' <<<"$policy"; then
            apt-get "${apt_opts[@]}" update
        fi
        if ! apt-get "${apt_opts[@]}" install -y --no-install-recommends chromium; then
            say "install failed; refreshing the package lists and trying once more"
            apt-get "${apt_opts[@]}" update
            apt-get "${apt_opts[@]}" install -y --no-install-recommends chromium \
                || die "apt-get install chromium failed (see above)"
        fi
        command -v chromium >/dev/null 2>&1 \
            || die "apt-get installed chromium but 'chromium' is still not on PATH"
    else
        die "Debian's 'chromium' is not on PATH and this script cannot install it (needs root
and apt-get). Install it yourself, e.g. 'sudo apt-get install chromium', then run again."
    fi
fi
# Starting the binary once catches a package that is installed but cannot run.
chromium_version="$(chromium --headless --no-sandbox --version 2>/dev/null)" \
    || die "'chromium --version' failed; the chromium on PATH does not start"
say "$chromium_version ($(command -v chromium))"

# --- playwright -----------------------------------------------------------------------------
# True when every requirement line in $REQS is satisfied by what is installed in the venv.
reqs_satisfied() {
    "$PY" - "$REQS" <<'PYEOF'
import sys
from importlib.metadata import PackageNotFoundError, version

from packaging.requirements import Requirement

for line in open(sys.argv[1], encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    req = Requirement(line)
    try:
        installed = version(req.name)
    except PackageNotFoundError:
        sys.exit(1)
    if not req.specifier.contains(installed, prereleases=True):
        sys.exit(1)
PYEOF
}

if ! reqs_satisfied; then
    say "installing $REQS into $VENV"
    "$PY" -m pip install -q -r "$REQS" || die "pip install -r $REQS failed (see above)"
    reqs_satisfied || die "installed $REQS but the pins are still not satisfied"
fi
say "playwright $("$PY" -c 'from importlib.metadata import version; print(version("playwright"))')"
