# Sourced by scripts/setup_classroom.sh and scripts/setup_lite.sh (not run on its own).
#
# ensure_npm TARGETS: return when npm is on PATH; as root on Debian/Ubuntu, install Debian's
# `nodejs` and `npm` first; elsewhere stop with the commands that get Node.js (>= 18) with npm.
# TARGETS names the make targets that run the caller again ("make lite does"). Uses the
# caller's `say` and `die`.
ensure_npm() {
    command -v npm >/dev/null 2>&1 && return 0
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "npm not found; installing Debian's nodejs and npm with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        local apt_opts=(-q -o DPkg::Lock::Timeout=300)
        apt-get "${apt_opts[@]}" update
        apt-get "${apt_opts[@]}" install -y --no-install-recommends nodejs npm \
            || die "apt-get install nodejs npm failed (see above)"
        return 0
    fi
    die "npm is not on PATH. Install Node.js (>= 18) with npm, for example
    sudo apt-get install nodejs npm     # Debian / Ubuntu
    brew install node                   # macOS (Homebrew)
    conda install -c conda-forge nodejs # conda
then run this again ($1)."
}
