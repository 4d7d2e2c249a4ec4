"""Speaker notes reach the slides only through their headings: every `## heading` of
docs/speaker_notes/<stem>.md (and zh/<stem>.md) must be a heading of its notebook, or that
section's notes are dropped without a word (scripts/slide_layout.py matches them by text).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.slide_layout import heading_of, split_at_headings

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "docs" / "speaker_notes"


def notebook_headings(path: Path) -> set[str]:
    """Every heading text of a notebook's markdown, as the slides see them (a heading inside a
    cell counts, as build_slides cuts cells there)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = set()
    for cell in cells:
        for part in split_at_headings(cell):
            heading = heading_of(part)
            if heading is not None:
                found.add(heading[1])
    return found


def note_headings(path: Path) -> list[str]:
    """The `## ` headings of a speaker-notes file, empty sections too."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line[3:].strip() for line in lines if line.startswith("## ")]


def notes_files() -> list[tuple[Path, Path]]:
    """(notes file, its notebook) for both languages."""
    pairs = []
    for notes in sorted(NOTES.glob("[0-9]*.md")):
        pairs.append((notes, REPO / "notebooks" / f"{notes.stem}.ipynb"))
    for notes in sorted((NOTES / "zh").glob("[0-9]*.md")):
        pairs.append((notes, REPO / "notebooks" / "zh" / f"{notes.stem}.ipynb"))
    return pairs


@pytest.mark.parametrize(
    ("notes", "notebook"), notes_files(), ids=lambda p: str(p.relative_to(REPO))
)
def test_every_speaker_note_heading_is_a_heading_of_its_notebook(
    notes: Path, notebook: Path
) -> None:
    assert notebook.exists(), f"{notes.relative_to(REPO)}: no notebook {notebook.name}"
    headings = notebook_headings(notebook)
    lost = [heading for heading in note_headings(notes) if heading not in headings]
    assert not lost, (
        f"{notes.relative_to(REPO)}: no heading of {notebook.relative_to(REPO)} reads "
        f"{lost}; these notes would never reach a slide. Fix: copy the notebook's heading."
    )


def test_there_are_notes_in_both_languages() -> None:
    pairs = notes_files()
    assert sum("/zh/" in str(notes) for notes, _ in pairs) >= 13
    assert sum("/zh/" not in str(notes) for notes, _ in pairs) >= 13
