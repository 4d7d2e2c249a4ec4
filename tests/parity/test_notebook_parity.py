"""Each notebook's closing `torch-parity` cell gives the same answers with torch as with minigrad.

The cell defines `experiment(lib)`, which replays the notebook's key facts with `lib` and returns
plain Python values, and prints `experiment(mg)`; its stored output is what the minigrad run
printed (nbval checks that a fresh minigrad run still prints it). Two checks with real torch:
the two experiments return the same values, and the cell run with `mg` bound to torch prints
the stored output character for character, seeded numbers included (weights, losses, dropout
results: minigrad draws torch's random numbers, see minigrad/random.py) - what a learner reads.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

import minigrad

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PARITY_TAG = "torch-parity"


def parity_cells() -> list[tuple[str, str, str]]:
    """(notebook, source, stored stdout) of every torch-parity cell, in a stable order."""
    cells = []
    for path in sorted(NOTEBOOKS.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            if cell["cell_type"] != "code" or PARITY_TAG not in cell["metadata"].get("tags", []):
                continue
            stored = "".join(
                "".join(output.get("text", ""))
                for output in cell.get("outputs", [])
                if output.get("output_type") == "stream" and output.get("name") == "stdout"
            )
            cells.append((str(path.relative_to(NOTEBOOKS)), "".join(cell["source"]), stored))
    return cells


CELLS = parity_cells()
IDS = [name for name, _, _ in CELLS] or None


@pytest.mark.parity
@pytest.mark.skipif(not CELLS, reason="no notebook has a torch-parity cell yet")
@pytest.mark.parametrize("name,source,stored", CELLS, ids=IDS)
def test_notebook_experiment_matches_torch(name: str, source: str, stored: str) -> None:
    torch = pytest.importorskip("torch")
    namespace: dict = {"mg": minigrad, "minigrad": minigrad, "__name__": "parity"}
    # the cell ends by printing experiment(mg); keep the definitions, skip the print
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, f"<{name} torch-parity cell>", "exec"), namespace)
    experiment = namespace["experiment"]
    assert experiment(torch) == experiment(minigrad), f"{name}: torch and minigrad disagree"


@pytest.mark.parity
@pytest.mark.skipif(not CELLS, reason="no notebook has a torch-parity cell yet")
@pytest.mark.parametrize("name,source,stored", CELLS, ids=IDS)
def test_torch_prints_the_stored_minigrad_output(name: str, source: str, stored: str) -> None:
    torch = pytest.importorskip("torch")
    assert stored, f"{name}: the torch-parity cell has no stored output (run `make notebooks`)"
    # with mg bound to torch, the cell prints torch's experiment
    namespace: dict = {"mg": torch, "__name__": "parity"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, f"<{name} torch-parity cell>", "exec"), namespace)
    assert printed.getvalue() == stored, f"{name}: torch prints other numbers than the notebook"


def test_every_notebook_has_a_parity_cell() -> None:
    """The course promises that each lesson notebook is checked against torch."""
    lessons = [
        p
        for p in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
        if "exercise" not in p.name and not p.name.startswith("00_")
    ]
    tagged = {name for name, _, _ in CELLS}
    missing = [p.name for p in lessons if p.name not in tagged]
    assert not missing, f"notebooks without a torch-parity cell: {missing}"
