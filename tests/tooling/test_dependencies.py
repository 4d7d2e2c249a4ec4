"""pyproject.toml declares every package minigrad imports at run time (issue 27).

`pip install minigrad` (Colab, the browser-only site's wheel, a user's own environment) must
bring everything it needs: each third-party module that minigrad's code imports is a required
dependency or an optional extra, and nothing declared goes unused.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
# Import name -> distribution name, where they differ.
DISTRIBUTION = {}
# Modules that exist only inside Pyodide (Python in a browser), provided by Pyodide itself:
# viz/wasm_render.py imports them, and only there.
PYODIDE_ONLY = {"js", "pyodide", "pyodide_js"}


def imported_roots() -> set[str]:
    """Top-level names of every absolute import in minigrad/ (at module level or not)."""
    roots = set()
    for path in (REPO / "minigrad").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                roots.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots.add(node.module.split(".")[0])
    return roots


def declared() -> tuple[set[str], set[str]]:
    """(required, optional) distribution names from pyproject.toml."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = {Requirement(r).name for r in project["dependencies"]}
    extras = project.get("optional-dependencies", {}).values()
    optional = {Requirement(r).name for group in extras for r in group}
    return required, optional


def test_every_third_party_import_is_declared() -> None:
    third_party = imported_roots() - set(sys.stdlib_module_names) - {"minigrad", "__future__"}
    needed = {DISTRIBUTION.get(name, name) for name in third_party - PYODIDE_ONLY}
    required, optional = declared()
    assert needed - (required | optional) == set(), "imported but not in pyproject.toml"
    assert (required | optional) - needed == set(), "declared but never imported"
    assert {"numpy", "graphviz"} <= required  # what `import minigrad` and pictures need


def test_pyodide_modules_are_imported_only_by_the_wasm_renderer() -> None:
    for path in (REPO / "minigrad").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            alias.name.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.Import)
            for alias in n.names
        }
        names |= {
            n.module.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module
        }
        if names & PYODIDE_ONLY:
            assert path.name == "wasm_render.py", path
