"""The course row: wall time of every notebook through nbval, once."""

from __future__ import annotations

import subprocess
import sys

from . import paths
from .harness import Context, Result
from .timing import wall_clock

NBVAL_COMMAND = [
    "-m",
    "pytest",
    "--nbval",
    "--nbval-current-env",
    "--nbval-sanitize-with",
    "tests/nbval_sanitize.cfg",
    "-n",
    "2",
    "--dist",
    "loadfile",
    "notebooks",
    "-q",
    "-p",
    "no:cacheprovider",
]


def row_course(ctx: Context) -> list[Result]:
    """Wall time of the whole course through nbval (one run: it takes tens of seconds)."""
    notebooks = sorted((paths.REPO / "notebooks").glob("*.ipynb"))
    case = f"{len(notebooks)} notebooks"
    if not ctx.settings.run_course:
        return [Result("course", case, "nbval", note="skipped in this mode")]
    if not notebooks:
        return [Result("course", case, "nbval", note="skipped: there are no notebooks yet")]
    start = wall_clock()
    command = [sys.executable, *NBVAL_COMMAND]
    completed = subprocess.run(command, cwd=paths.REPO, capture_output=True, text=True)
    elapsed = wall_clock() - start
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else "(no output)"
    note = f"pytest -n 2 --nbval, one run: {summary}"
    if completed.returncode != 0:
        note = f"FAILED (exit {completed.returncode}): {summary}"
    result = Result("course", case, "nbval", [elapsed], note=note)
    result.extra.update(exit_code=completed.returncode, summary=summary)
    return [result]
