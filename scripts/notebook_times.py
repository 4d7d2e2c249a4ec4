"""How long a careful first pass through each notebook takes, estimated from what it contains.

The course states a time for every notebook (README, 00's map, the top of each notebook). This
script computes it from the stored notebook, so the stated times can be checked, not guessed:

    python -m scripts.notebook_times            # the table, one row per English notebook
    python -m scripts.notebook_times --check    # exit 1 when a stated time is off by > 5 min

A careful first pass is reading every markdown cell, reading and running every code cell, and
looking at every output, picture and stepper frame, then answering the exercises. Each part
costs (the README's "How long a notebook takes" gives the same list):

- prose: 200 words a minute (technical prose read carefully; inline code counts as words);
- code: 10 s per non-empty line (read it and guess what it prints), plus 5 s to run the cell;
- text output: 3 s per printed line (at most 40 lines a cell: longer text is skimmed);
- an error shown on purpose: 30 s; a picture: 60 s, a before/after picture 2 min;
- a stepper: 1 min per step;
- an exercise: 3 min to predict (a check that takes a prediction), 8 min to write or repair
  code (a check that takes a function or class);
- a "check yourself" question: 1.5 min.

Speaker notes are not in the notebooks (they live in docs/speaker_notes/), so everything a
notebook holds is counted. The estimate is rounded to 5 minutes. It is a model, calibrated on
timed passes through notebooks 04, 05 and 12 (issue 24, when 12 was numbered 10: 60-75, 55-70
and 60-90 minutes); a learner new to autograd may take longer.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from scripts import course

WORDS_PER_MINUTE = 200
SECONDS_PER_CODE_LINE = 10
SECONDS_TO_RUN = 5
SECONDS_PER_OUTPUT_LINE = 3
MAX_OUTPUT_LINES = 40
SECONDS_PER_ERROR = 30
SECONDS_PER_PICTURE = 60
SECONDS_PER_COMPARISON = 120
SECONDS_PER_STEP = 60
SECONDS_TO_PREDICT = 180
SECONDS_TO_REPAIR = 480
SECONDS_PER_QUESTION = 90
TOLERANCE_MINUTES = 5

STATED = re.compile(r"\*Time: about (\d+) minutes")
QUESTIONS = re.compile(r"^\s*\d+\.\s", re.MULTILINE)
PREDICTION_CHECK = re.compile(r"^check\.\w+\(prediction_\w+\)", re.MULTILINE)
CODE_CHECK = re.compile(r"^check\.\w+\((?!prediction_)\w+\)", re.MULTILINE)


@dataclass
class Pass:
    """What one notebook asks of a learner, and the minutes it takes."""

    name: str
    words: int = 0
    code_lines: int = 0
    cells: int = 0
    output_lines: int = 0
    errors: int = 0
    pictures: int = 0
    comparisons: int = 0
    steps: int = 0
    predictions: int = 0
    repairs: int = 0
    questions: int = 0

    def seconds(self) -> float:
        """The pass in seconds, before rounding."""
        return (
            60 * self.words / WORDS_PER_MINUTE
            + SECONDS_PER_CODE_LINE * self.code_lines
            + SECONDS_TO_RUN * self.cells
            + SECONDS_PER_OUTPUT_LINE * self.output_lines
            + SECONDS_PER_ERROR * self.errors
            + SECONDS_PER_PICTURE * self.pictures
            + SECONDS_PER_COMPARISON * self.comparisons
            + SECONDS_PER_STEP * self.steps
            + SECONDS_TO_PREDICT * self.predictions
            + SECONDS_TO_REPAIR * self.repairs
            + SECONDS_PER_QUESTION * self.questions
        )

    def minutes(self) -> int:
        """The estimate, rounded to 5 minutes."""
        return max(5, 5 * round(self.seconds() / 300))


def text(value: str | list[str]) -> str:
    """A notebook field's text, stored as one string or as a list of lines."""
    return "".join(value) if isinstance(value, list) else value


def measure(path: Path) -> Pass:
    """Count what the notebook at `path` contains."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = Pass(path.stem)
    for cell in cells:
        source = text(cell.get("source", ""))
        if cell["cell_type"] == "markdown":
            found.words += len(source.split())
            if "check yourself" in source.lower():
                body = source.lower().split("check yourself", 1)[1]
                found.questions += len(QUESTIONS.findall(body))
            continue
        if cell["cell_type"] != "code" or not source.strip():
            continue
        found.cells += 1
        found.code_lines += sum(1 for line in source.splitlines() if line.strip())
        found.predictions += len(PREDICTION_CHECK.findall(source))
        found.repairs += len(CODE_CHECK.findall(source))
        for output in cell.get("outputs", []):
            count_output(output, found)
    return found


def count_output(output: dict, found: Pass) -> None:
    """Add one stored output's reading time to `found`."""
    kind = output.get("output_type")
    if kind == "error":
        found.errors += 1
        return
    if kind == "stream":
        found.output_lines += min(text(output.get("text", "")).count("\n"), MAX_OUTPUT_LINES)
        return
    data = output.get("data", {})
    plain = text(data.get("text/plain", ""))
    stepper = re.match(r"viz\.(?:cut_)?stepper[^:]*: (\d+) steps", plain)
    if stepper:
        found.steps += int(stepper.group(1))
    elif "comparison" in plain or ">before<" in text(data.get("image/svg+xml", "")):
        found.comparisons += 1
    elif "image/svg+xml" in data or "image/png" in data:
        found.pictures += 1
    else:
        found.output_lines += min(plain.count("\n") + 1, MAX_OUTPUT_LINES)


def stated_minutes(path: Path) -> int | None:
    """The time the notebook states at its top (`*Time: about N minutes.*`), if any."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        match = STATED.search(text(cell.get("source", "")))
        if match:
            return int(match.group(1))
    return None


def english_notebooks() -> list[Path]:
    """The English notebooks (the Chinese edition has the same cells, so the same times)."""
    return course.find_notebooks(english_only=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the stated times")
    args = parser.parse_args(argv)
    rows = [(path, measure(path)) for path in english_notebooks()]
    print(
        f"{'notebook':34} {'words':>6} {'code':>5} {'out':>5} {'pics':>4} {'steps':>5} "
        f"{'ex':>3} {'min':>4} {'stated':>6}"
    )
    wrong = []
    for path, found in rows:
        stated = stated_minutes(path)
        print(
            f"{found.name:34} {found.words:6} {found.code_lines:5} {found.output_lines:5} "
            f"{found.pictures + found.comparisons:4} {found.steps:5} "
            f"{found.predictions + found.repairs:3} {found.minutes():4} {stated or '-':>6}"
        )
        if stated is not None and abs(stated - found.minutes()) > TOLERANCE_MINUTES:
            wrong.append(f"{path.name}: states {stated} min, measures {found.minutes()} min")
    total = sum(found.minutes() for _, found in rows)
    print(f"{'all':34} {'':>6} {'':>5} {'':>5} {'':>4} {'':>5} {'':>3} {total:4}")
    if args.check and wrong:
        print(
            "notebook_times: stated times off by more than 5 minutes (update the notebook's "
            "first cell, README.md and 00's map):"
        )
        print("\n".join(f"  {line}" for line in wrong))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
