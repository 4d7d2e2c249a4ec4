"""Fail when a notebook is committed without the outputs that nbval needs to compare.

nbval executes every code cell but only compares cells that have stored outputs, so a notebook
saved unexecuted would pass while proving nothing beyond "it runs". This script checks each
notebook under the given paths (default: notebooks/, found as scripts/course.py says):

- every code cell with source has an execution count (empty cells are fine);
- execution counts increase from top to bottom (the stored outputs come from one clean run);
- a cell tagged ``raises-exception`` stores the error it is meant to show;
- no cell uses the ``# NBVAL_RAISES_EXCEPTION`` comment: nbconvert ignores it and stops there,
  so ``make notebooks`` could not refresh the notebook; use the cell tag instead.

Usage: python -m scripts.check_notebooks [PATH ...]    (exit 1 when any problem is found)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scripts import course

FIX_HINT = "run `make notebooks` (or `make notebooks NB=<path>`) and commit the result"


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def check_notebook(path: Path) -> list[str]:
    """Return one message per problem found in the notebook at ``path`` (empty when fine)."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{path}: cannot read notebook: {exc}"]

    problems = []
    last_count = 0
    # Cells are numbered from 1 in messages, as JupyterLab and nbval do.
    for number, cell in enumerate(nb.get("cells", []), start=1):
        if cell.get("cell_type") != "code" or not _source(cell).strip():
            continue
        where = f"{path}: cell {number}"
        count = cell.get("execution_count")
        outputs = cell.get("outputs", [])
        tags = cell.get("metadata", {}).get("tags", [])

        if count is None:
            problems.append(f"{where}: not executed (no execution count, no stored outputs)")
        elif count <= last_count:
            problems.append(
                f"{where}: execution count {count} after {last_count}; cells were run out of "
                "order, so the stored outputs may not come from a clean top-to-bottom run"
            )
        last_count = count if count is not None else last_count

        if "raises-exception" in tags and count is not None:
            if not any(out.get("output_type") == "error" for out in outputs):
                problems.append(f"{where}: tagged raises-exception but stores no error output")
        if "NBVAL_RAISES_EXCEPTION" in _source(cell):
            problems.append(
                f"{where}: uses the # NBVAL_RAISES_EXCEPTION comment, which nbconvert does not "
                "honour; give the cell the tag raises-exception instead"
            )
    return problems


def main(argv: list[str]) -> int:
    """Check the notebooks under ``argv`` (default notebooks/); print problems; return 0 or 1."""
    notebooks = course.notebooks_from_args(argv, "check_notebooks")
    if not notebooks:
        return 1 if notebooks is None else 0

    problems = [msg for nb in notebooks for msg in check_notebook(nb)]
    for msg in problems:
        print(msg)
    if problems:
        print(f"check_notebooks: {len(problems)} problem(s) in {len(notebooks)} notebook(s)")
        print(f"check_notebooks: {FIX_HINT}")
        return 1
    print(f"check_notebooks: {len(notebooks)} notebook(s) have stored outputs from a clean run")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
