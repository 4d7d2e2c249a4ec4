"""Re-execute notebooks in place so their stored outputs are fresh (``make notebooks``).

Each notebook runs top to bottom with ``jupyter nbconvert --execute --inplace`` on the kernel
``python3`` of this virtualenv, in the notebook's own folder, with the environment nbval gets in
``make test`` (PYTHONHASHSEED=0, the same per-cell timeout). Cells tagged ``raises-exception``
may raise; any other error stops that notebook and leaves its file unchanged.

Afterwards the metadata that changes on every run or every machine is normalised (per-cell
execution timings, the Python patch version, the kernel's display name), so that a refresh only
shows up in ``git diff`` when an output really changed.

Usage: python scripts/run_notebooks.py [NOTEBOOK_OR_DIR ...]    (default: notebooks/)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_notebooks import notebooks_from_args  # noqa: E402  (a sibling script, not a package)

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
REPO = Path(__file__).resolve().parent.parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def execution_env() -> dict[str, str]:
    """The environment notebooks run in: this venv first on PATH, deterministic hashing."""
    env = dict(os.environ)
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = venv_bin + os.pathsep + env.get("PATH", "")
    env["PYTHONHASHSEED"] = "0"
    env["JUPYTER_PREFER_ENV_PATH"] = "1"
    env.setdefault("NB_CELL_TIMEOUT", "120")
    return env


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
        "--ExecutePreprocessor.kernel_name=python3",
        f"--ExecutePreprocessor.timeout={env['NB_CELL_TIMEOUT']}",
        str(path),
    ]
    return subprocess.run(cmd, env=env, check=False).returncode == 0


def normalise(path: Path) -> None:
    """Strip run- and machine-specific metadata from the notebook at ``path``, in place."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata.get("language_info", {}).pop("version", None)
    # Widgets (viz.stepper) live only while their kernel runs: a stored widget view names a
    # random model id, and its saved state would show a stale copy. Keep the HTML/text
    # fallback stored beside it, which every viewer shows and nbval compares.
    nb.metadata.pop("widgets", None)
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


def main(argv: list[str]) -> int:
    """Execute and normalise the notebooks named in ``argv``; return 0 when all ran."""
    notebooks = notebooks_from_args(argv, "run_notebooks")
    if not notebooks:
        return 1 if notebooks is None else 0

    env = execution_env()
    failed = []
    for nb in notebooks:
        started = time.perf_counter()
        ok = execute(nb, env)
        if ok:
            normalise(nb)
        else:
            failed.append(nb)
        verdict = "ok" if ok else "FAILED (file left unchanged)"
        print(f"run_notebooks: {nb} {verdict} ({time.perf_counter() - started:.1f} s)")

    if failed:
        names = ", ".join(map(str, failed))
        print(f"run_notebooks: {len(failed)} of {len(notebooks)} failed: {names}")
        return 1
    print(f"run_notebooks: {len(notebooks)} notebook(s) executed and saved")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
