"""Give every notebook the slideshow metadata RISE and `make slides` start from.

Run it after notebooks change (it is idempotent: a second run changes nothing):

    python -m scripts.slides_metadata            # write metadata into notebooks/**/*.ipynb
    python -m scripts.slides_metadata --check    # exit 1 if any notebook is not up to date
    python -m scripts.slides_metadata notebooks/02_detach.ipynb   # only these files

Each cell's `metadata.slideshow.slide_type` follows from the cell alone and the cells before it
in the same slide, by these rules (in order):

1. an empty cell, one tagged `slides-skip`, the set-up cell (the notebook's first code cell:
   imports, seeds, `%xmode`), and every cell of a section (`##`) that holds a `torch-parity`
   cell (the comparison with real torch is for the test suite, not for a room), and a folded
   answer (markdown opening with `<details>`: a learner opens it after trying; on a slide it
   would give the answer away, and the teacher's guide has every answer) -> "skip";
2. markdown whose first line is a `#` or `##` heading -> "slide" (a new column in reveal.js);
3. markdown whose first line is a `###` heading -> "subslide" (a new slide below);
4. any other cell that would push the current slide past LINE_BUDGET lines (source plus
   outputs; a picture counts as PICTURE_LINES, a long output as at most OUTPUT_LINES) starts a
   "subslide", so a long output or a second picture gets a slide of its own;
5. otherwise a code cell is a "fragment" (it appears on the next key press, after the learner
   has had a moment to predict it) and a markdown cell continues the slide ("-").

Teachers' speaker notes are not notebook cells: a learner's notebook holds nothing for the
teacher. They live in docs/speaker_notes/ and scripts/build_slides.py puts them into the decks.
This script removes any notes cell an older version wrote into a notebook (tag `speaker-notes`).

The Chinese notebooks (notebooks/zh/, metadata "language": "zh-CN") are skipped: they get the
English cells' metadata from scripts/translations.py, which `make notebooks` runs afterwards.

Notebooks are read and written as plain JSON with the layout Jupyter itself writes (indent 1,
sorted keys), so a run that changes nothing leaves the files byte-identical.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from scripts import course

REPO = Path(__file__).resolve().parent.parent
NOTES_TAG = "speaker-notes"  # notes cells of older versions: removed
SKIP_TAG = "slides-skip"
TORCH_TAG = "torch-parity"  # the cell that replays a notebook with torch (for the tests)

LINE_BUDGET = 30  # lines that fit one slide at reveal.js's default size, roughly
PICTURE_LINES = 16  # a graph picture takes about this much height
OUTPUT_LINES = 14  # longer text outputs scroll inside their box (counted as this many)


def source_text(cell: dict) -> str:
    """A cell's source as one string (notebooks store it as a list of lines or a string)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def heading(cell: dict) -> tuple[int, str] | None:
    """(level, text) of a markdown cell whose first line is a heading, else None."""
    if cell.get("cell_type") != "markdown":
        return None
    first = source_text(cell).lstrip("\n").split("\n", 1)[0]
    hashes = len(first) - len(first.lstrip("#"))
    if hashes == 0 or not first[hashes:].startswith(" "):
        return None
    return hashes, first[hashes:].strip()


def output_lines(output: dict) -> int:
    """How many lines of slide one output takes."""
    kind = output.get("output_type")
    if kind == "stream":
        text = output.get("text", "")
        text = "".join(text) if isinstance(text, list) else text
        return min(text.count("\n") + 1, OUTPUT_LINES)
    if kind == "error":
        return 3  # the slides show the error's name and message, not the whole traceback
    data = output.get("data", {})
    if any(key.startswith("image/") for key in data):
        return PICTURE_LINES
    plain = data.get("text/plain", "")
    plain = "".join(plain) if isinstance(plain, list) else plain
    return min(plain.count("\n") + 1, OUTPUT_LINES)


def cell_lines(cell: dict) -> int:
    """Source lines plus output lines: the height the cell needs on a slide."""
    lines = source_text(cell).strip("\n").count("\n") + 1
    return lines + sum(output_lines(o) for o in cell.get("outputs", []))


_HEADING_LINE = re.compile(r"^(#{1,6}) \S")


def heading_lines(cell: dict) -> list[int]:
    """Levels of the `#`/`##` heading lines of a markdown cell, in order (outside code fences;
    a heading may start any line of a cell, not only the first)."""
    if cell.get("cell_type") != "markdown":
        return []
    levels = []
    fenced = False
    for line in source_text(cell).split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
        match = None if fenced else _HEADING_LINE.match(line)
        if match and len(match.group(1)) <= 2:
            levels.append(len(match.group(1)))
    return levels


def skipped_cells(cells: list[dict]) -> set[int]:
    """Indexes of the cells rule 1 keeps off the slides (set-up, torch comparison, empty).

    A torch section runs from its `##` heading to the next one; a cell is in it when both its
    first and its last line are (a cell that only ends with the torch heading stays).
    """
    skipped = set()
    # the imports cell: the first code cell after the Colab set-up cell (scripts/colab.py),
    # which is tagged slides-skip itself
    codes = [
        i
        for i, c in enumerate(cells)
        if c.get("cell_type") == "code"
        and "colab-setup" not in c.get("metadata", {}).get("tags", [])
    ]
    if codes:
        skipped.add(codes[0])
    section = 0
    spans = []  # (section at the cell's first line, section at its last line)
    for cell in cells:
        starts_with_heading = heading(cell) is not None and heading(cell)[0] <= 2
        count = len(heading_lines(cell))
        first = section + 1 if starts_with_heading else section
        section += count
        spans.append((first, section))
    torch_sections = {
        spans[i][1]
        for i, cell in enumerate(cells)
        if TORCH_TAG in cell.get("metadata", {}).get("tags", [])
    }
    for index, cell in enumerate(cells):
        first, last = spans[index]
        if first in torch_sections and last in torch_sections:
            skipped.add(index)
        tags = cell.get("metadata", {}).get("tags", [])
        if SKIP_TAG in tags or not source_text(cell).strip():
            skipped.add(index)
        if cell.get("cell_type") == "markdown" and source_text(cell).lstrip().startswith(
            "<details>"
        ):
            skipped.add(index)
    return skipped


def slide_types(cells: list[dict]) -> list[str]:
    """The slide type of every cell, by the rules in the module docstring."""
    types = []
    used = 0  # lines used on the current (sub)slide
    skipped = skipped_cells(cells)
    for index, cell in enumerate(cells):
        level = heading(cell)
        if index in skipped:
            types.append("skip")
            continue
        lines = cell_lines(cell)
        if level is not None and level[0] <= 2:
            kind, used = "slide", lines
        elif level is not None:
            kind, used = "subslide", lines
        elif used and used + lines > LINE_BUDGET:
            kind, used = "subslide", lines
        else:
            kind = "fragment" if cell.get("cell_type") == "code" else "-"
            used += lines
        types.append(kind)
    first = next((i for i, kind in enumerate(types) if kind != "skip"), None)
    if first is not None and types[first] != "slide":
        types[first] = "slide"  # a deck starts with a slide whatever the first cell is
    return types


def read_notes(path: Path) -> dict[str, str]:
    """Heading text -> notes text, from a speaker-notes file (empty when there is none).

    A file holds one `## heading text` section per heading of the notebook it is named after
    (docs/speaker_notes/README.md); scripts/build_slides.py reads them.
    """
    if not path.exists():
        return {}
    notes: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = notes.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {key: "\n".join(lines).strip() for key, lines in notes.items() if "".join(lines)}


def is_notes_cell(cell: dict) -> bool:
    """A speaker-notes cell an older version of this script wrote into a notebook."""
    return NOTES_TAG in cell.get("metadata", {}).get("tags", [])


def updated(nb: dict) -> dict:
    """The notebook without notes cells, with fresh slide types."""
    cells = [c for c in nb["cells"] if not is_notes_cell(c)]
    for cell, kind in zip(cells, slide_types(cells), strict=True):
        cell.setdefault("metadata", {})["slideshow"] = {"slide_type": kind}
    return {**nb, "cells": cells}


def dump(nb: dict) -> str:
    """JSON in the layout Jupyter writes, so unchanged notebooks stay byte-identical."""
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def is_generated(nb: dict) -> bool:
    """Whether ``nb`` is a Chinese notebook, which scripts/translations.py generates (it marks
    them with metadata "language": "zh-CN").

    Its slide metadata is the English cells' (copied with the cells), so this script leaves it
    alone: slide types computed from the Chinese text could drift apart from the English.
    """
    return nb.get("metadata", {}).get("language") == "zh-CN"


def find_notebooks(paths: list[str]) -> list[Path]:
    """Notebooks named on the command line, or every notebook under notebooks/ (recursively)."""
    return course.find_notebooks([Path(p) for p in paths] or [course.NOTEBOOKS])


def main(argv: list[str] | None = None) -> int:
    """Apply (or with --check, verify) the metadata; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="*", help="notebooks or folders (default: notebooks/)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = []
    for path in find_notebooks(args.paths):
        text = path.read_text(encoding="utf-8")
        nb = json.loads(text)
        if is_generated(nb):
            continue
        new = updated(nb)
        if dump(new) == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(dump(new), encoding="utf-8")
            print(f"updated {path}")
    if args.check and stale:
        names = ", ".join(p.name for p in stale)
        print(f"slideshow metadata missing or stale in: {names}")
        print("fix: run `python -m scripts.slides_metadata` and commit the notebooks")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
