"""Check that every notebook cell can be run again, the way learners re-run cells (issue 16).

Three scenarios, each in fresh kernels (the kernel and settings of ``make notebooks``):

- ``twice``: run the notebook top to bottom, each code cell twice in a row;
- ``rerun``: for every code cell K, run all cells, then re-run cell K and every cell after it;
- ``sections``: for every ``##`` heading, restart, run the imports cell (the first code cell
  that is not the Colab set-up cell, tagged ``colab-setup``), then only that section's cells.

A cell **fails** when it raises and is not tagged ``raises-exception``. A cell whose text
output differs from the stored one is listed as **changed** (informational): a cell that changes
on purpose when re-run (an in-place demo) says so in its source with the word "re-run"; such
cells are not listed. Sections may also differ from the stored outputs where they draw random
numbers, which is why the changed list never fails the check.

Usage: python -m scripts.check_rerun [--scenario twice|rerun|sections|all] [NOTEBOOK ...]
Exit status 1 when any cell failed. ``make check-rerun`` runs all scenarios on every notebook
(several minutes); tests/course/test_rerun.py runs a fast subset.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from scripts import course

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
ON_PURPOSE = "re-run"  # a cell whose source contains this may change when it is re-run


@dataclass
class Report:
    """What one scenario found in one notebook: failing and changed cells (0-based indexes)."""

    notebook: str
    scenario: str
    runs: int = 0
    failures: list[str] = field(default_factory=list)
    changed: dict[int, str] = field(default_factory=dict)  # cell -> first run that changed it


def text_of(outputs: list) -> str:
    """The comparable text of a cell's outputs: streams, text/plain and error names."""
    parts = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(out.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            parts.append(out.get("data", {}).get("text/plain", ""))
        elif kind == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
    return ADDRESS.sub("0xADDRESS", "".join(parts))


def code_cells(nb: nbformat.NotebookNode) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]


def sections(nb: nbformat.NotebookNode) -> list[tuple[str, list[int]]]:
    """(heading, code cell indexes) for each `##` section that has code cells."""
    found: list[tuple[str, list[int]]] = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("## "):
                    found.append((line[3:].strip(), []))
        elif found and cell.cell_type == "code" and cell.source.strip():
            found[-1][1].append(i)
    return [(title, cells) for title, cells in found if cells]


class Runner:
    """Run cells of one notebook in one fresh kernel, recording failures and changed outputs."""

    def __init__(self, path: Path, nb: nbformat.NotebookNode, report: Report, timeout: int):
        self.path, self.stored, self.report = path, nb, report
        self.nb = copy.deepcopy(nb)
        self.client = NotebookClient(
            self.nb,
            kernel_name=course.KERNEL,
            timeout=timeout,
            resources={"metadata": {"path": str(path.parent)}},
        )

    def run(self, order: list[int], label: str) -> None:
        self.report.runs += 1
        with self.client.setup_kernel():
            for index in order:
                cell = self.nb.cells[index]
                cell.outputs = []
                try:
                    self.client.execute_cell(cell, index)
                except CellExecutionError as error:
                    name = ANSI.sub("", str(error).strip().splitlines()[-1])[:160]
                    self.report.failures.append(f"{label}: cell {index + 1} raised {name}")
                    continue  # go on, as a learner would; later failures may follow from it
                stored = text_of(self.stored.cells[index].get("outputs", []))
                if text_of(cell.outputs) != stored and ON_PURPOSE not in cell.source:
                    self.report.changed.setdefault(index, label)


def check(path: Path, scenario: str, timeout: int, sample: int | None = None) -> Report:
    """Run one scenario on one notebook. `sample`: for "rerun", only that many cells K, spread
    evenly (the fast test subset); None means every K."""
    nb = nbformat.read(path, as_version=4)
    report = Report(str(path), scenario)
    cells = code_cells(nb)
    if scenario == "twice":
        Runner(path, nb, report, timeout).run([i for i in cells for _ in (0, 1)], "twice")
    elif scenario == "rerun":
        starts = range(len(cells))
        if sample is not None and sample < len(cells):
            starts = sorted(
                {round(i * (len(cells) - 1) / max(sample - 1, 1)) for i in range(sample)}
            )
        for k in starts:
            index = cells[k]
            order = cells + cells[k:]
            Runner(path, nb, report, timeout).run(order, f"re-run from cell {index + 1}")
    elif scenario == "sections":
        # the imports cell: the first code cell, after the Colab set-up cell (scripts/colab.py)
        imports = [i for i in cells if "colab-setup" not in nb.cells[i].metadata.get("tags", [])]
        imports = imports[:1]
        for title, members in sections(nb):
            order = imports + [i for i in members if i not in imports]
            Runner(path, nb, report, timeout).run(order, f"section '{title}'")
    return report


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=["twice", "rerun", "sections", "all"], default="all")
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args(argv)
    notebooks = course.notebooks_from_args(args.paths, "check_rerun")
    if not notebooks:
        return 1 if notebooks is None else 0
    os.environ.update(course.run_env())  # the kernels nbclient starts inherit it
    timeout = course.cell_timeout()
    scenarios = ["twice", "rerun", "sections"] if args.scenario == "all" else [args.scenario]
    failed = 0
    for path in notebooks:
        for scenario in scenarios:
            started = time.perf_counter()
            report = check(path, scenario, timeout)
            seconds = time.perf_counter() - started
            changed = "; ".join(f"{i + 1} ({report.changed[i]})" for i in sorted(report.changed))
            verdict = "ok" if not report.failures else f"{len(report.failures)} FAILED"
            print(
                f"check_rerun: {path} [{scenario}] {verdict}; {report.runs} kernel run(s), "
                f"{seconds:.1f} s; cells with changed output: {changed or 'none'}"
            )
            for line in report.failures:
                print(f"    {line}")
            failed += len(report.failures)
    print(f"check_rerun: {failed} failure(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
