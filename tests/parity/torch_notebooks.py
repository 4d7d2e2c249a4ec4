"""Running a course notebook with torch in place of minigrad: the shared rewrite and kernel.

Used by test_notebooks_under_torch.py (the printed outputs) and test_pictures_under_torch.py
(the pictures). The rewrite changes only the imports: `import torch as mg`, `from torch import
nn, optim`, `import torch.nn.functional as F`; `viz` stays minigrad's (it reads torch's graphs
too). The course's data helpers (`minigrad.data`) make numpy arrays with a seeded generator;
the torch run's first cell (TORCH_DATA) hands the same numbers to torch as torch tensors.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from scripts import course

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


def client(notebook: nbformat.NotebookNode, path: Path) -> NotebookClient:
    """A client that runs `notebook` (a copy of the one at `path`) in one fresh kernel, in
    path's folder, as `make notebooks` does; a cell's error is kept in its outputs and the next
    cells still run. Start it with `.execute(env=course.run_env())` (or `async_execute`)."""
    return NotebookClient(
        notebook,
        timeout=course.cell_timeout(),
        kernel_name=course.KERNEL,
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )


def execute(notebook: nbformat.NotebookNode, path: Path) -> None:
    """Run `notebook` (see `client`)."""
    client(notebook, path).execute(env=course.run_env())
