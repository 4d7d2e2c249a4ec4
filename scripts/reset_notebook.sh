#!/usr/bin/env bash
# Restore one notebook to the version committed in git: `make reset NB=02_detach`.
# NB may be a stem (02_detach), a file name (02_detach.ipynb) or a path (notebooks/02_detach.ipynb).
# Only that file changes; a copy of the edited version is kept in build/reset/ first, under a
# name no other reset uses: the notebook's path (zh/02_detach -> zh-02_detach), the time, and a
# number when that name is taken (two resets in the same second keep both copies).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() {
    echo "reset: ERROR: $*" >&2
    exit 1
}

name="${1:-}"
[[ -n "$name" ]] || die "say which notebook: make reset NB=02_detach (or NB=notebooks/02_detach.ipynb)"
path="$name"
if [[ ! -f "$path" ]]; then
    path="notebooks/${name%.ipynb}.ipynb"
    if [[ ! -f "$path" ]]; then
        # A notebook in a subfolder (notebooks/zh/...) given by its stem alone.
        path="$(find notebooks -name "${name%.ipynb}.ipynb" -not -path '*/.ipynb_checkpoints/*' | head -n 1)"
    fi
fi
[[ -n "$path" && -f "$path" ]] || die "no notebook called '$name' under notebooks/"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 \
    || die "this folder is not a git clone, so there is no committed version to go back to; \
download the notebook again from the course repository"
git cat-file -e "HEAD:$path" 2>/dev/null || die "$path is not committed, so it cannot be reset"

if git diff --quiet HEAD -- "$path"; then
    echo "reset: $path is already the committed version"
    exit 0
fi
mkdir -p build/reset
rel="${path#notebooks/}"
stem="build/reset/$(echo "${rel%.ipynb}" | tr '/' '-').$(date +%Y%m%d-%H%M%S)"
backup="$stem.ipynb"
n=1
# set -o noclobber makes the copy fail if the name appeared meanwhile: then try the next one.
while ! (set -o noclobber; cat "$path" >"$backup") 2>/dev/null; do
    n=$((n + 1))
    backup="$stem.$n.ipynb"
    [[ $n -lt 1000 ]] || die "could not find a free name for the backup in build/reset/"
done
git checkout HEAD -- "$path"
echo "reset: restored $path (your edited copy is in $backup)"
