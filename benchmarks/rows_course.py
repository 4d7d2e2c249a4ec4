"""The course row: wall time of every notebook through nbval, once, as `make test` runs it."""

from __future__ import annotations

import subprocess
import sys

from scripts import course

from . import paths
from .harness import Context, Result
from .timing import wall_clock


def row_course(ctx: Context) -> list[Result]:
    """Wall time of the whole course through nbval (one run: it takes tens of seconds)."""
    notebooks = course.find_notebooks([paths.REPO / "notebooks"])
    case = f"{len(notebooks)} notebooks"
    if not ctx.settings.run_course:
        return [Result("course", case, "nbval", note="skipped in this mode")]
    if not notebooks:
        return [Result("course", case, "nbval", note="skipped: there are no notebooks yet")]
    command = [sys.executable, "-m", "pytest", *course.nbval_args(course.cell_timeout())]
    command += ["notebooks", "-q", "-p", "no:cacheprovider"]
    start = wall_clock()
    completed = subprocess.run(
        command, cwd=paths.REPO, env=course.run_env(), capture_output=True, text=True
    )
    elapsed = wall_clock() - start
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else "(no output)"
    note = f"pytest -n 2 --nbval, one run: {summary}"
    if completed.returncode != 0:
        note = f"FAILED (exit {completed.returncode}): {summary}"
    result = Result("course", case, "nbval", [elapsed], note=note)
    result.extra.update(exit_code=completed.returncode, summary=summary)
    return [result]
