"""minigrad as it was at another commit, importable beside today's: the "before" of an A/B run.

`python -m benchmarks --ab REF` times today's minigrad, minigrad at REF and torch in the same
rounds of one process (see README.md, "Before and after in one run"). Figures of two separate
runs differ by more than most changes are worth on a machine whose speed drifts; the same
rounds do not. A second copy of REF is timed in those rounds too: REF / its copy is the same
code against itself, so it shows how far a ratio moves by chance in this run (on a busy
machine, or with another program on the other half of the core, by more than 5 %).

The package at REF is copied out of git (`git archive`) under another name, `minigrad_at_<sha>`,
into a temporary folder and imported from there. That works because minigrad imports its own
modules relatively (`from .tensor import ...`); a REF whose code imported `minigrad.` by its
absolute name would load today's modules instead, so the copy is checked for that first.
"""

from __future__ import annotations

import ast
import atexit
import importlib.machinery
import importlib.util
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType

from . import paths


def imports_minigrad_by_name(source: str) -> bool:
    """Whether Python source has an `import minigrad...` or `from minigrad... import` statement."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        if any(name == "minigrad" or name.startswith("minigrad.") for name in names):
            return True
    return False


def resolve(ref: str) -> str:
    """The full commit hash that `ref` (a branch, tag or hash) names; a clear error if none."""
    found = subprocess.run(
        ["git", "-C", str(paths.REPO), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        raise SystemExit(f"bench: --ab {ref!r} names no commit of this repository (git rev-parse)")
    return found.stdout.strip()


def load_minigrad_at(ref: str, copy: int = 0) -> tuple[ModuleType, str]:
    """Import minigrad as it was at `ref`; return (the module, a short label such as 'abc1234').

    `copy` > 0 imports it once more, as a package of its own (`minigrad_at_<sha>_copy1`): the
    same code timed twice in one run shows how much that run's figures move by chance.
    """
    commit = resolve(ref)
    name = f"minigrad_at_{commit[:7]}" + (f"_copy{copy}" if copy else "")
    archive = subprocess.run(
        ["git", "-C", str(paths.REPO), "archive", "--format=tar", commit, "minigrad"],
        capture_output=True,
        check=True,
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="bench-ab-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = (folder / "minigrad").rename(folder / name)
    for source in package.rglob("*.py"):
        if imports_minigrad_by_name(source.read_text(encoding="utf-8")):
            raise SystemExit(
                f"bench: --ab {ref}: {source.relative_to(folder)} imports minigrad by its absolute "
                "name, so its copy would run today's code; A/B needs relative imports"
            )
    # found in that one folder only (sys.path is left alone: nothing else can be picked up there)
    spec = importlib.machinery.PathFinder.find_spec(name, [str(folder)])
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench: --ab {ref}: the copy of minigrad in {folder} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its relative imports look the package up here
    spec.loader.exec_module(module)
    return module, commit[:7]
