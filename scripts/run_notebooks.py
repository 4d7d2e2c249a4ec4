"""Re-execute notebooks in place so their stored outputs are fresh (``make notebooks``).

Each notebook runs top to bottom with ``jupyter nbconvert --execute --inplace`` on the kernel
``python3`` of this virtualenv, in the notebook's own folder, with the environment nbval gets in
``make test`` (scripts/course.py: PYTHONHASHSEED=0, the same per-cell timeout). Cells tagged
``raises-exception`` may raise; any other error stops that notebook and leaves its file unchanged.

Afterwards the metadata that changes on every run or every machine is normalised (per-cell
execution timings, the Python patch version, the kernel's display name), so that a refresh only
shows up in ``git diff`` when an output really changed, and nbstripout runs with the options of
the pre-commit hook, so a freshly run notebook never fails that hook.

Each notebook's MyST markdown pair under md/ is synced before the run (so edits made in the .md
reach the notebook; see scripts/notebook_pairs.py for which side wins) and rewritten after it.
Naming a .md (``make notebooks NB=md/02_detach.md``) takes the cells from it, and creates the
notebook when it does not exist yet.

Usage: python -m scripts.run_notebooks [NOTEBOOK_OR_MD_OR_DIR ...]    (default: notebooks/,
without the generated notebooks/zh/, which `python -m scripts.translations build --execute` runs)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

from scripts import course, notebook_pairs

REPO = course.REPO
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# The options of the nbstripout hook in .pre-commit-config.yaml (a test keeps the two equal):
# keep outputs, execution counts and cell ids; leave notebook-level widget state alone (normalise
# drops it here; a notebook saved from JupyterLab keeps it); drop the Python patch version and
# jupytext's notes, which say nothing about the course.
NBSTRIPOUT_ARGS = (
    "--keep-output",
    "--keep-count",
    "--keep-id",
    "--keep-metadata-keys",
    "metadata.widgets",
    "--extra-keys",
    "metadata.jupytext metadata.language_info.version",
)


def execute(path: Path, env: dict[str, str]) -> bool:
    """Run one notebook in place with nbconvert; return True when it ran to the end."""
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        "--inplace",
        f"--ExecutePreprocessor.kernel_name={course.KERNEL}",
        f"--ExecutePreprocessor.timeout={env['NB_CELL_TIMEOUT']}",
        str(path),
    ]
    return subprocess.run(cmd, env=env, check=False).returncode == 0


def normalise(path: Path) -> None:
    """Strip run- and machine-specific metadata from the notebook at ``path``, in place."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = dict(course.KERNELSPEC)
    nb.metadata.get("language_info", {}).pop("version", None)
    # Widgets (viz.stepper) live only while their kernel runs: a stored widget view names a
    # random model id, and its saved state would show a stale copy. Keep the HTML/text
    # fallback stored beside it, which every viewer shows and nbval compares.
    nb.metadata.pop("widgets", None)
    # How a cell's printing is cut into stream outputs depends on when the kernel flushed, so on
    # the machine's load: one output per stream keeps that out of `git diff` (nbval merges them
    # the same way before comparing).
    CoalesceStreamsPreprocessor().preprocess(nb, {})
    for cell in nb.cells:
        # nbclient records start/end timestamps of every cell here.
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
            if output.get("output_type") == "error":
                output["traceback"] = [relative_paths(line) for line in output["traceback"]]
    nbformat.write(nb, path)


def relative_paths(line: str) -> str:
    """Show files in tracebacks relative to the repository: no author's folder in the course."""
    return line.replace(f"{REPO}/", "")


def strip(paths: list[Path]) -> None:
    """Run nbstripout on ``paths`` exactly as the pre-commit hook does (one process for all)."""
    if paths:
        nbstripout = Path(sys.executable).parent / "nbstripout"
        subprocess.run([str(nbstripout), *NBSTRIPOUT_ARGS, *map(str, paths)], check=True)


def targets(argv: list[str]) -> list[tuple[Path, bool]] | None:
    """(notebook, whether its .md was named) for ``argv``; None after an error."""
    mds = [Path(a) for a in argv if a.endswith(".md")]
    others = [a for a in argv if not a.endswith(".md")]
    found = []
    if others or not mds:
        notebooks = course.notebooks_from_args(others, "run_notebooks")
        if notebooks is None:
            return None
        found += [(nb.resolve(), False) for nb in notebooks]
    for md in mds:
        if not md.is_file():
            print(f"run_notebooks: no such file: {md}")
            return None
        found.append((notebook_pairs.notebook_for(md), True))
    return found


# viz stores a PNG beside each SVG (shown without trust: JupyterLite, GitHub, Colab); dot draws
# Chinese text into a PNG only with a Chinese font, so without one the zh pictures keep the SVG
# alone and tests/browser/test_lite_site.py finds them missing on open.
NO_CHINESE_FONT = (
    "run_notebooks: note: no Chinese font here (fc-list :lang=zh finds none), so the Chinese "
    "pictures are stored without their PNG; install one first, e.g. "
    "'apt-get install fonts-wqy-microhei', and run again"
)


def chinese_font_here() -> bool:
    """Whether fontconfig knows a font for Chinese text (what viz's PNG needs)."""
    if shutil.which("fc-list") is None:
        return False
    found = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True)
    return bool(found.stdout.strip())


def main(argv: list[str]) -> int:
    """Execute and normalise the notebooks named in ``argv``; return 0 when all ran."""
    found = targets(argv)
    if not argv and found:
        # The Chinese notebooks are generated from the English ones once those have run:
        # `python -m scripts.translations build --execute` (the last step of `make notebooks`).
        found = [(nb, md_named) for nb, md_named in found if notebook_pairs.is_paired(nb)]
    if not found:
        return 1 if found is None else 0
    # Pairs first: an edit made in a .md reaches its notebook before the notebook runs.
    notebooks = list(dict.fromkeys(notebook_pairs.sync(nb, md_named) for nb, md_named in found))

    env = course.run_env()
    if any(nb.parent.name == "zh" for nb in notebooks) and not chinese_font_here():
        print(NO_CHINESE_FONT)
    failed = []
    for nb in notebooks:
        started = time.perf_counter()
        ok = execute(nb, env)
        if ok:
            normalise(nb)
        else:
            failed.append(nb)
        verdict = "ok" if ok else "FAILED (file left unchanged)"
        shown = notebook_pairs.shown(nb)
        print(f"run_notebooks: {shown} {verdict} ({time.perf_counter() - started:.1f} s)")
    ran = [nb for nb in notebooks if nb not in failed]
    strip(ran)
    for nb in ran:
        notebook_pairs.write_md(nb)
    if not argv:
        for md in notebook_pairs.find_pairs([notebook_pairs.MARKDOWN])[1]:
            print(f"run_notebooks: note: {notebook_pairs.orphan_problem(md)}")

    if failed:
        names = ", ".join(notebook_pairs.shown(nb) for nb in failed)
        print(f"run_notebooks: {len(failed)} of {len(notebooks)} failed: {names}")
        return 1
    print(f"run_notebooks: {len(notebooks)} notebook(s) executed and saved")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
