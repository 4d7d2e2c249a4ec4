"""Give every notebook the slideshow metadata `make slides` needs, and its speaker notes.

Run it after notebooks change (it is idempotent: a second run changes nothing):

    python -m scripts.slides_metadata            # write metadata into notebooks/**/*.ipynb
    python -m scripts.slides_metadata --check    # exit 1 if any notebook is not up to date
    python -m scripts.slides_metadata notebooks/02_detach.ipynb   # only these files

Each cell's `metadata.slideshow.slide_type` follows from the cell alone and the cells before it
in the same slide, by these rules (in order):

1. a speaker-notes cell (tag `speaker-notes`, written by this script) -> "notes";
2. an empty cell, or one tagged `slides-skip` -> "skip";
3. markdown whose first line is a `#` or `##` heading -> "slide" (a new column in reveal.js);
4. markdown whose first line is a `###` heading -> "subslide" (a new slide below);
5. any other cell that would push the current slide past LINE_BUDGET lines (source plus
   outputs; a picture counts as PICTURE_LINES, a long output as at most OUTPUT_LINES) starts a
   "subslide", so a long output or a second picture gets a slide of its own;
6. otherwise a code cell is a "fragment" (it appears on the next key press, after the learner
   has had a moment to predict it) and a markdown cell continues the slide ("-").

Speaker notes come from docs/speaker_notes/<notebook stem>.md: each `## heading text` line
there names a heading of the notebook (its text without the leading #s), and the paragraphs
below it become one markdown cell of type "notes" placed right after that heading's cell.
Notes cells are rewritten on every run; notes whose heading is not in the notebook are reported
as warnings (the notebook was probably edited: update the notes file).

The Chinese notebooks (notebooks/zh/, metadata "language": "zh-CN") are skipped: they get the
English cells' metadata and translated notes cells from scripts/translations.py, which
`make notebooks` runs afterwards.

Notebooks are read and written as plain JSON with the layout Jupyter itself writes (indent 1,
sorted keys), so a run that changes nothing leaves the files byte-identical.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from scripts import course

REPO = Path(__file__).resolve().parent.parent
NOTES_DIR = REPO / "docs" / "speaker_notes"
NOTES_TAG = "speaker-notes"
SKIP_TAG = "slides-skip"

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


def slide_types(cells: list[dict]) -> list[str]:
    """The slide type of every cell, by the rules in the module docstring."""
    types = []
    used = 0  # lines used on the current (sub)slide
    for cell in cells:
        tags = cell.get("metadata", {}).get("tags", [])
        level = heading(cell)
        if NOTES_TAG in tags:
            types.append("notes")
            continue
        if SKIP_TAG in tags or not source_text(cell).strip():
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
    if types and types[0] not in ("slide", "skip"):
        types[0] = "slide"  # a deck starts with a slide whatever the first cell is
    return types


def read_notes(path: Path) -> dict[str, str]:
    """Heading text -> notes text, from a speaker-notes file (empty when there is none)."""
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


def notes_cell(key: str, text: str) -> dict:
    """A markdown cell holding one heading's speaker notes, with a stable id."""
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:10]
    lines = text.split("\n")
    return {
        "cell_type": "markdown",
        "id": f"notes-{digest}",
        "metadata": {"slideshow": {"slide_type": "notes"}, "tags": [NOTES_TAG]},
        "source": [line + "\n" for line in lines[:-1]] + [lines[-1]],
    }


def updated(nb: dict, notes: dict[str, str]) -> tuple[dict, list[str]]:
    """The notebook with fresh notes cells and slide types, and the notes keys not used."""
    cells = [c for c in nb["cells"] if NOTES_TAG not in c.get("metadata", {}).get("tags", [])]
    with_notes: list[dict] = []
    unused = dict(notes)
    for cell in cells:
        with_notes.append(cell)
        level = heading(cell)
        if level is not None and level[1] in unused:
            with_notes.append(notes_cell(level[1], unused.pop(level[1])))
    for cell, kind in zip(with_notes, slide_types(with_notes), strict=True):
        cell.setdefault("metadata", {})["slideshow"] = {"slide_type": kind}
        if kind == "notes":
            cell["metadata"]["tags"] = [NOTES_TAG]
    return {**nb, "cells": with_notes}, sorted(unused)


def dump(nb: dict) -> str:
    """JSON in the layout Jupyter writes, so unchanged notebooks stay byte-identical."""
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def is_generated(nb: dict) -> bool:
    """Whether ``nb`` is a Chinese notebook, which scripts/translations.py generates (it marks
    them with metadata "language": "zh-CN").

    Its slide metadata is the English cells' (copied with the cells) and its notes cells are
    the translated English ones, so this script leaves it alone: here the notes would be looked
    up by Chinese headings in the English notes files, and slide types could drift apart.
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
        new, unused = updated(nb, read_notes(NOTES_DIR / f"{path.stem}.md"))
        for key in unused:
            print(f"warning: {path.name}: speaker notes for a heading it lacks: {key!r}")
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
