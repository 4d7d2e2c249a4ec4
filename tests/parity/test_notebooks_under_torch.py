"""Every code cell of every notebook prints under torch 2.13 what the notebook stores.

Each English notebook runs again in a fresh kernel with its imports rewritten to torch's
(`import torch as mg`, `from torch import nn, optim`, `import torch.nn.functional as F`), and
each code cell's printed output (stdout, the cell's value, the error's type and message) is
compared with the stored minigrad output, after nbval's sanitizing rules, with "minigrad" read
as "torch": the library's name is the only difference a learner may see.

What is not compared, and why:

- cells that call `viz` (pictures, their summaries and steppers: drawn by minigrad's viz from
  either library, and torch does not expose version counters, so the summaries say so) or the
  exercise checks (`check.`, which check minigrad answers);
- stderr (warnings): torch's name its own C++ and Python files; minigrad's are checked for
  length and paths by tests/tooling/test_classroom.py;
- the Colab set-up cell, which does nothing outside Colab.

The rewrite, the data helpers' torch form and the kernel are in torch_notebooks.py (shared with
test_pictures_under_torch.py, which compares the pictures these cells draw). The Chinese
notebooks have the same code cells apart from their comments (tests/tooling/test_translations.py),
so the English run covers them.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
import pytest
import torch  # noqa: F401 (this module is collected only where torch imports: conftest.py)
from nbval.plugin import get_sanitize_patterns

from scripts import course

from .torch_notebooks import TORCH_DATA, execute, for_torch

REPO = Path(__file__).resolve().parents[2]
SANITIZE = REPO / course.NBVAL_SANITIZE
NOT_COMPARED = ("viz.", "viz\n", "check.")
SETUP_TAG = "colab-setup"

# nbval's own reading of tests/nbval_sanitize.cfg: the rules `make test` compares outputs with
RULES = [
    (re.compile(regex), replace)
    for regex, replace in get_sanitize_patterns(SANITIZE.read_text(encoding="utf-8"))
]


def printed(cell: dict) -> list[str]:
    """What a code cell shows as text: stdout (one piece), its value, its error's first line."""
    stdout = ""
    shown = []
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream" and output["name"] == "stdout":
            stdout += "".join(output["text"])
        elif kind in ("execute_result", "display_data"):
            shown.append("".join(output["data"].get("text/plain", "")))
        elif kind == "error":
            shown.append(f"{output['ename']}: {output['evalue']}")
    texts = [stdout, *shown] if stdout else shown
    for pattern, replacement in RULES:
        texts = [pattern.sub(replacement, text) for text in texts]
    return texts


def compared(cell: dict) -> bool:
    tags = cell.get("metadata", {}).get("tags", [])
    source = cell["source"] + "\n"
    return SETUP_TAG not in tags and not any(word in source for word in NOT_COMPARED)


NOTEBOOKS = course.find_notebooks(english_only=True)


@pytest.mark.parity
@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_cell_prints_under_torch_what_the_notebook_stores(path: Path) -> None:
    stored = nbformat.read(path, as_version=4)
    run = copy.deepcopy(stored)
    for cell in run.cells:
        if cell.cell_type == "code":
            cell.source = for_torch(cell.source)
    run.cells.insert(0, nbformat.v4.new_code_cell(TORCH_DATA))
    execute(run, path)
    differences = []
    for index, (mine, torchs) in enumerate(zip(stored.cells, run.cells[1:], strict=True)):
        if mine.cell_type != "code" or not compared(mine):
            continue
        expected = [text.replace("minigrad", "torch") for text in printed(mine)]
        if printed(torchs) != expected:
            differences.append(
                f"cell {index}:\n{mine.source[:200]}\n  stored: {expected!r:.500}\n"
                f"  torch:  {printed(torchs)!r:.500}"
            )
    assert not differences, f"{path.name}: torch prints otherwise\n" + "\n".join(differences)
