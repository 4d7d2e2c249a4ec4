"""Two things a reader cannot see break: an exercise whose answer is already printed above it,
and speaker notes that silently fall off their slide.

- No learner notebook shows an exercise's answer in an output above the exercise: the values the
  solutions notebook's checks print when they praise an answer (its tensors and its numbers with
  several decimals) appear in no output of a cell above that exercise's check. A learner who
  scrolls up must not find the answer printed.
- Every `## heading` of a speaker-notes file (docs/speaker_notes/, both languages) is a heading
  of its notebook: build_slides only warns about the others, and their notes reach no slide.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts import course
from scripts.slides_metadata import read_notes

NOTEBOOKS = course.NOTEBOOKS
NOTES = course.REPO / "docs" / "speaker_notes"
SOLUTIONS = NOTEBOOKS / "12_exercises_solutions.ipynb"
WITH_EXERCISES = ("09_hooks_and_custom_functions", "10_higher_order_gradients", "12_exercises")

# An answer's values: a printed tensor, a list of numbers, or a number with 3+ decimals.
VALUE = re.compile(r"tensor\([^()]*\)|\[[-0-9., ]*\d\.\d[-0-9., ]*\]|-?\d+\.\d{3,}")


def cells(path: Path) -> list[dict]:
    import json

    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def printed(cell: dict) -> str:
    """Everything a code cell's stored outputs show as text (stdout, values, errors)."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
        parts.append(output.get("evalue", ""))
    return "\n".join(parts)


def check_called(cell: dict) -> str | None:
    """The check a code cell calls (`check.check_version(...)`), or None."""
    found = re.fullmatch(r"check\.(check_\w+)\(.*\)", "".join(cell["source"]).strip(), re.S)
    return found.group(1) if found else None


def praised_values() -> dict[str, set[str]]:
    """Check name -> the values its praise prints in the solutions notebook."""
    values = {}
    for cell in cells(SOLUTIONS):
        if cell["cell_type"] == "code" and check_called(cell):
            text = printed(cell)
            assert "Well done!" in text, f"{check_called(cell)} is not praised in the solutions"
            values[check_called(cell)] = {" ".join(v.split()) for v in VALUE.findall(text)}
    return values


def test_every_exercise_has_a_worked_solution() -> None:
    solved = praised_values()
    for stem in WITH_EXERCISES:
        for cell in cells(NOTEBOOKS / f"{stem}.ipynb"):
            name = cell["cell_type"] == "code" and check_called(cell)
            if name:
                assert name in solved, f"{stem}: {name} has no solution in {SOLUTIONS.name}"


@pytest.mark.parametrize("stem", WITH_EXERCISES)
def test_no_answer_is_printed_above_its_exercise(stem) -> None:
    solved = praised_values()
    above = []  # (cell number, its printed text, in one line) of the cells seen so far
    for number, cell in enumerate(cells(NOTEBOOKS / f"{stem}.ipynb")):
        if cell["cell_type"] != "code":
            continue
        name = check_called(cell)
        if name:
            for value in solved.get(name, ()):
                shown = [n for n, text in above if value in text]
                assert not shown, (
                    f"{stem}: the answer of {name} ({value}) is printed above it, in cell "
                    f"{shown[0]}"
                )
        above.append((number, " ".join(printed(cell).split())))


def headings(path: Path) -> set[str]:
    """Every markdown heading of a notebook, without its #s."""
    found = set()
    for cell in cells(path):
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            found.update(m.strip() for m in re.findall(r"^#+ +(.+)$", source, re.M))
    return found


NOTE_FILES = sorted(
    p for p in [*NOTES.glob("*.md"), *NOTES.glob("zh/*.md")] if p.stem[:2].isdigit()
)


@pytest.mark.parametrize("notes", NOTE_FILES, ids=lambda p: str(p.relative_to(NOTES)))
def test_every_speaker_note_heading_is_a_notebook_heading(notes) -> None:
    folder = NOTEBOOKS / "zh" if notes.parent.name == "zh" else NOTEBOOKS
    notebook = folder / f"{notes.stem}.ipynb"
    assert notebook.exists(), f"{notes.relative_to(course.REPO)} names no notebook"
    missing = sorted(set(read_notes(notes)) - headings(notebook))
    assert not missing, (
        f"{notes.relative_to(course.REPO)}: no heading {missing} in "
        f"{notebook.relative_to(course.REPO)}; these notes would reach no slide"
    )
