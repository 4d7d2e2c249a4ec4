"""Write clean copies of the notebooks for students to build/student/: `make student`.

Each notebook under notebooks/ (subfolders too) is copied with every output and execution count
cleared and the teacher's speaker-notes cells removed, so students predict before they run. The
helper files next to the notebooks (course_checks/, ...) are copied as they are. Solutions
are copied too unless --no-solutions is given (hand them out after the exercises).
The result is also zipped to build/student.zip for uploading to a learning platform.

Usage: python -m scripts.student_copies [--out DIR] [--no-solutions]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from scripts import course

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
NOTES_TAG = "speaker-notes"  # see scripts/slides_metadata.py
SKIP_PARTS = {course.CHECKPOINTS, "__pycache__"}


def clean(nb: dict) -> dict:
    """The notebook without outputs, execution counts or speaker notes."""
    cells = []
    for cell in nb["cells"]:
        if NOTES_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        cell = dict(cell)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cells.append(cell)
    return {**nb, "cells": cells}


def main(argv: list[str] | None = None) -> int:
    """Write the copies; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default=str(REPO / "build" / "student"), help="output folder")
    parser.add_argument("--no-solutions", action="store_true", help="leave *_solutions out")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    if out.exists():
        shutil.rmtree(out)
    count = 0
    for path in sorted(NOTEBOOKS.rglob("*")):
        rel = path.relative_to(NOTEBOOKS)
        if path.is_dir() or SKIP_PARTS & set(rel.parts):
            continue
        if args.no_solutions and path.stem.endswith("_solutions"):
            continue
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".ipynb":
            nb = clean(json.loads(path.read_text(encoding="utf-8")))
            text = json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            target.write_text(text, encoding="utf-8")
            count += 1
        else:
            shutil.copy2(path, target)
    archive = shutil.make_archive(str(out), "zip", root_dir=out.parent, base_dir=out.name)
    print(f"wrote {count} notebooks without outputs to {out} (and {Path(archive).name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
