"""Training scripts with one planted gradient bug each (bug_*.py), and correct ones (ok_*.py).

Each defines `run(torch, nn, viz)`, written once against the names minigrad shares with torch,
and returns `viz.explain(...)`'s report. A bug script says which `CAUSE` the doctor must name
and for which parameters (`NAMES`); the line the doctor must point at ends in `# <- here`.
They are real files so that the file:line in a report is a real place.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).parent
BUGS = sorted(path.stem for path in HERE.glob("bug_*.py"))
CORRECT = sorted(path.stem for path in HERE.glob("ok_*.py"))


def load(stem: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{stem}")


def marked_place(stem: str) -> str | None:
    """`file.py:N` of the line that ends in `# <- here` (None: the cause has no line)."""
    lines = (HERE / f"{stem}.py").read_text().splitlines()
    marked = [number for number, line in enumerate(lines, 1) if line.endswith("# <- here")]
    return f"{stem}.py:{marked[0]}" if marked else None


def check_bug(stem: str, torch: Any, nn: Any, viz: Any) -> Any:
    """Run a planted-bug script: the doctor names its cause, its parameters and its line,
    and nothing else."""
    case = load(stem)
    report = case.run(torch, nn, viz)
    problems = report.problems
    assert len(problems) == 1, report
    (finding,) = problems
    assert finding.cause == case.CAUSE, report
    assert finding.names == case.NAMES, report
    place = marked_place(stem)
    if place is not None:
        assert str(finding.where) == place, report
        assert place in repr(report)
    return report


def check_correct(stem: str, torch: Any, nn: Any, viz: Any) -> Any:
    """Run a correct script: no problem, and its intended cuts said to be on purpose."""
    case = load(stem)
    report = case.run(torch, nn, viz)
    assert report.ok, report
    assert report.problems == []
    assert sorted({f.cause for f in report.findings if f.intended}) == sorted(case.PURPOSE)
    if case.PURPOSE:
        assert "on purpose" in repr(report)
    return report
