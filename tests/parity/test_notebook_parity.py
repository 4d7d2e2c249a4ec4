"""Each notebook's closing `torch-parity` cell gives the same answers with torch as with minigrad.

The cell defines `experiment(lib)`, which replays the notebook's key facts with `lib` and returns
plain Python values. The notebook prints the minigrad result (checked by nbval); here we run the
same function with real torch and compare.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import minigrad

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PARITY_TAG = "torch-parity"


def parity_cells() -> list[tuple[str, str]]:
    """(notebook name, source) of every cell tagged torch-parity, in a stable order."""
    cells = []
    for path in sorted(NOTEBOOKS.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code" and PARITY_TAG in cell["metadata"].get("tags", []):
                source = "".join(cell["source"])
                cells.append((str(path.relative_to(NOTEBOOKS)), source))
    return cells


CELLS = parity_cells()


@pytest.mark.parity
@pytest.mark.skipif(not CELLS, reason="no notebook has a torch-parity cell yet")
@pytest.mark.parametrize("name,source", CELLS, ids=[name for name, _ in CELLS] or None)
def test_notebook_experiment_matches_torch(name: str, source: str) -> None:
    torch = pytest.importorskip("torch")
    namespace: dict = {"mg": minigrad, "minigrad": minigrad, "__name__": "parity"}
    # the cell ends by printing experiment(mg); keep the definitions, skip the print
    exec(compile(source, f"<{name} torch-parity cell>", "exec"), namespace)
    experiment = namespace["experiment"]
    assert experiment(torch) == experiment(minigrad), f"{name}: torch and minigrad disagree"


def test_every_notebook_has_a_parity_cell() -> None:
    """The course promises that each lesson notebook is checked against torch."""
    lessons = [
        p
        for p in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
        if "exercise" not in p.name and not p.name.startswith("00_")
    ]
    tagged = {name for name, _ in CELLS}
    missing = [p.name for p in lessons if p.name not in tagged]
    assert not missing, f"notebooks without a torch-parity cell: {missing}"
