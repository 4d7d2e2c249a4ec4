"""The closing "same code in PyTorch" cells, run with torch, print what the notebooks show.

Each lesson notebook ends with a `torch-parity` cell that defines `experiment(lib)` and prints
`experiment(mg)`; its stored output is what the minigrad run printed (nbval checks that a fresh
minigrad run still prints it). Here the same cell runs with `mg` bound to torch: its printout
must be the stored one, character for character, seeded numbers included (weights, losses,
dropout results: minigrad draws torch's random numbers, see minigrad/random.py).
test_notebook_parity.py compares the two experiments' return values; this test compares what
a learner reads.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PARITY_TAG = "torch-parity"


def parity_cells() -> list[tuple[str, str, str]]:
    """(notebook, source, stored stdout) of every torch-parity cell."""
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


@pytest.mark.parity
@pytest.mark.skipif(not CELLS, reason="no notebook has a torch-parity cell yet")
@pytest.mark.parametrize("name,source,stored", CELLS, ids=[name for name, _, _ in CELLS] or None)
def test_torch_prints_the_stored_minigrad_output(name: str, source: str, stored: str) -> None:
    torch = pytest.importorskip("torch")
    assert stored, f"{name}: the torch-parity cell has no stored output (run `make notebooks`)"
    # the cell prints experiment(mg): with mg bound to torch it prints torch's experiment
    namespace: dict = {"mg": torch, "__name__": "parity"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, f"<{name} torch-parity cell>", "exec"), namespace)
    assert printed.getvalue() == stored, f"{name}: torch prints other numbers than the notebook"
