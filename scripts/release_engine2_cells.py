"""Turn on the notebook cells that wait for minigrad 2 (issue 12: inference mode, anomaly mode).

Cells written against torch's semantics before minigrad had those names carry one of two tags,
plus ``nbval-skip`` (so nbval does not compare them) and ``raises-exception`` (so `make
notebooks` can run past them):

- ``after-engine2-ok``: the cell must run cleanly: all three tags are removed;
- ``after-engine2-raises``: the cell shows an error on purpose: ``raises-exception`` stays.

Run it once after merging the engine, then `make notebooks` and `make test`. It only edits tags;
it is idempotent, and prints the cells it changed.

Usage: python scripts/release_engine2_cells.py [NOTEBOOK_OR_DIR ...]    (default: notebooks/)
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_notebooks import notebooks_from_args  # noqa: E402  (a sibling script)

DROP = {
    "after-engine2-ok": {"after-engine2-ok", "nbval-skip", "raises-exception"},
    "after-engine2-raises": {"after-engine2-raises", "nbval-skip"},
}


def release(path: Path) -> int:
    """Remove the waiting tags in one notebook; return how many cells changed."""
    nb = nbformat.read(path, as_version=4)
    changed = 0
    for number, cell in enumerate(nb.cells, start=1):
        tags = cell.metadata.get("tags", [])
        for marker, drop in DROP.items():
            if marker in tags:
                cell.metadata["tags"] = [t for t in tags if t not in drop]
                if not cell.metadata["tags"]:
                    del cell.metadata["tags"]
                print(f"release_engine2_cells: {path}: cell {number} ({marker})")
                changed += 1
    if changed:
        nbformat.write(nb, path)
    return changed


def main(argv: list[str]) -> int:
    notebooks = notebooks_from_args(argv, "release_engine2_cells")
    if notebooks is None:
        return 1
    total = sum(release(path) for path in notebooks)
    print(f"release_engine2_cells: {total} cell(s) released; now run `make notebooks`")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
