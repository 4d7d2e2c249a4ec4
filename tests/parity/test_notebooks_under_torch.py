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

The course's data helpers (`minigrad.data`) make numpy arrays with a seeded generator; the torch
run gets the same numbers as torch tensors. The Chinese notebooks have the same code cells
apart from their comments (tests/tooling/test_translations.py), so the English run covers them.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
import pytest
import torch  # noqa: F401 (this module is collected only where torch imports: conftest.py)
from nbclient import NotebookClient
from nbval.plugin import get_sanitize_patterns

from scripts import course

REPO = Path(__file__).resolve().parents[2]
SANITIZE = REPO / course.NBVAL_SANITIZE
NOT_COMPARED = ("viz.", "viz\n", "check.")
SETUP_TAG = "colab-setup"

# The run's first cell: the course's data helpers, handing their tensors to torch.
TORCH_DATA = """\
import torch as _torch
from minigrad import data as _minigrad_data


class _DataForTorch:
    def __getattr__(self, name):
        make = getattr(_minigrad_data, name)

        def made_for_torch(*args, **kwargs):
            return tuple(_torch.from_numpy(t.numpy()) for t in make(*args, **kwargs))

        return made_for_torch


data = _DataForTorch()
"""
TORCH_MODULES = ("nn", "optim")


def from_minigrad_import(match: re.Match[str]) -> str:
    """`from minigrad import data, nn, optim, viz` -> torch's nn and optim, minigrad's viz
    (data comes from the first cell)."""
    names = [name.strip() for name in match.group(1).split(",")]
    lines = []
    if [n for n in names if n in TORCH_MODULES]:
        lines.append("from torch import " + ", ".join(n for n in names if n in TORCH_MODULES))
    ours = [n for n in names if n not in TORCH_MODULES and n != "data"]
    if ours:
        lines.append("from minigrad import " + ", ".join(ours))
    return "\n".join(lines) or "pass"


def for_torch(source: str) -> str:
    """A code cell's source with minigrad's imports replaced by torch's."""
    source = re.sub(r"^import minigrad as mg\b", "import torch as mg", source, flags=re.M)
    source = re.sub(
        r"^import minigrad\.nn\.functional as F\b",
        "import torch.nn.functional as F",
        source,
        flags=re.M,
    )
    return re.sub(r"^from minigrad import ([\w, ]+)$", from_minigrad_import, source, flags=re.M)


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
    client = NotebookClient(
        run,
        timeout=course.cell_timeout(),
        kernel_name=course.KERNEL,
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute(env=course.run_env())
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
