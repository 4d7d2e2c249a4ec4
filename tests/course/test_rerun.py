"""A fast subset of `make check-rerun`: cells a learner re-runs must not break (issue 16).

The full check (`python -m scripts.check_rerun`: every notebook, every cell K, every section) takes
minutes; here one notebook per scenario, chosen for the patterns that used to break: backward in
a cell after the graph was built (02), in-place demos and expected errors (04), sections that
need the names of earlier sections (01), and "run all, re-run from cell K" for three cells K of
00 (the first, the middle and the last).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scripts import check_rerun, course

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")

CASES = [
    ("02_detach.ipynb", "twice"),
    ("04_data_and_versions.ipynb", "twice"),
    ("01_graphs_and_leaves.ipynb", "sections"),
    ("00_start_here.ipynb", "rerun"),  # three cells K only: first, middle, last
]


@pytest.fixture(autouse=True)
def notebook_environment(monkeypatch):
    """The environment `make notebooks` gives kernels (venv first on PATH, fixed hash seed)."""
    for key, value in course.run_env().items():
        monkeypatch.setenv(key, value)


@pytest.mark.parametrize("name,scenario", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_cells_can_be_run_again(name: str, scenario: str) -> None:
    report = check_rerun.check(REPO / "notebooks" / name, scenario, timeout=120, sample=3)
    assert report.runs >= 1
    assert report.failures == [], "\n".join(report.failures)


def test_sections_are_found() -> None:
    import nbformat

    nb = nbformat.read(REPO / "notebooks" / "01_graphs_and_leaves.ipynb", as_version=4)
    titles = [title for title, _ in check_rerun.sections(nb)]
    assert "Gradients accumulate" in titles and "Summary" not in titles  # no code, no section
