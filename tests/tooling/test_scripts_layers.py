"""scripts/ and benchmarks/ are packages run as `python -m`: no sys.path entries, no cycles.

Imports are read with `ast`, so nothing is executed. The rules:

- no module changes `sys.path` (or loads a sibling by file path): siblings are imported as
  `from scripts import x` (benchmarks: relative imports), which works from any working
  directory with the repository on the path and never picks up a same-named module elsewhere;
- no import cycle between the modules of either package, counting imports inside functions
  (they run too, just later);
- `scripts.course` is the bottom: it imports no other script. benchmarks may use scripts;
  scripts never use benchmarks;
- every command that runs a Python tool names it as `python -m scripts.<name>` or
  `python -m benchmarks`, never as a file (`python scripts/x.py` no longer works);
- the Makefile exports the run environment that scripts/course.py gives notebooks.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts import course

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("scripts", "benchmarks")
# Files that name commands a person or CI runs.
COMMAND_FILES = [
    "Makefile",
    ".pre-commit-config.yaml",
    ".ci/run",
    ".github/workflows/ci.yml",
    ".github/workflows/pages.yml",
    "README.md",
    "README.zh-CN.md",
    "benchmarks/README.md",
    "tests/parity/README.md",
    "docs/speaker_notes/README.md",
    "scripts/test.sh",
    "scripts/setup.sh",
]


def modules() -> dict[str, Path]:
    """Every module of the two packages by dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            found[name] = path
    return found


def imports_of(name: str, path: Path) -> set[str]:
    """The modules of the two packages that `name` imports, anywhere in its file."""
    package = name.split(".")[0]
    known = modules()
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] in PACKAGES}
        elif isinstance(node, ast.ImportFrom):
            base = package if node.level else node.module or ""
            if node.level and node.module:
                base = f"{package}.{node.module}"
            if base.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in known else base)
    return found - {name}


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_changes_sys_path_or_loads_files_as_modules(name: str) -> None:
    tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "path":
            assert getattr(node.value, "id", None) != "sys", f"{name}:{node.lineno}: sys.path"
        if isinstance(node, ast.Attribute) and node.attr == "spec_from_file_location":
            raise AssertionError(f"{name}:{node.lineno}: a module loaded by its file path")


@pytest.mark.parametrize("name", sorted(modules()))
def test_siblings_are_imported_through_the_package(name: str) -> None:
    siblings = {path.stem for path in modules()[name].parent.glob("*.py")}
    for node in ast.walk(ast.parse(modules()[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            bare = [alias.name for alias in node.names if alias.name in siblings]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            bare = [node.module] if node.module in siblings else []
        else:
            continue
        assert not bare, f"{name}:{node.lineno} imports {bare} as a top-level module"


def test_no_import_cycle() -> None:
    graph = {name: imports_of(name, path) for name, path in modules().items()}
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph.get(name, ())):
            if target in PACKAGES:
                continue  # a package's __init__ (documentation and settings only)
            if state.get(target) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*path, name, target]))
            if state.get(target) is None and target in graph:
                visit(target, [*path, name])
        state[name] = 2

    for name in sorted(graph):
        if state.get(name) is None:
            visit(name, [])


def test_course_is_the_bottom_and_scripts_never_use_benchmarks() -> None:
    assert imports_of("scripts.course", modules()["scripts.course"]) == set()
    for name, path in modules().items():
        if name.startswith("scripts"):
            used = imports_of(name, path)
            assert not any(t.startswith("benchmarks") for t in used), f"{name} uses benchmarks"


def test_every_module_imports_cleanly() -> None:
    names = sorted(name for name in modules() if name not in PACKAGES)
    done = subprocess.run(
        [sys.executable, "-c", "; ".join(f"import {name}" for name in names)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_commands_name_modules_not_files() -> None:
    old_style = re.compile(r"python3?\S*\s+(?:scripts|benchmarks)/\w+\.py")
    for name in COMMAND_FILES:
        text = (REPO / name).read_text(encoding="utf-8")
        found = old_style.findall(text)
        assert not found, f"{name} runs a tool as a file: {found}; use python -m scripts.<name>"
    for path in sorted((REPO / "scripts").glob("*.py")):
        found = old_style.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.name} tells people to run {found}"


def test_the_makefile_exports_the_run_environment_of_scripts_course() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    exported = dict(re.findall(r"^export (\w+) [?:]?= (\S+)$", makefile, re.MULTILINE))
    for name, value in course.FIXED_ENV.items():
        assert exported.get(name) == value, f"Makefile: export {name} := {value}"
    assert exported.get("NB_CELL_TIMEOUT") == str(course.DEFAULT_CELL_TIMEOUT)


def test_notebooks_are_found_without_checkpoints(tmp_path: Path) -> None:
    (tmp_path / "zh" / ".ipynb_checkpoints").mkdir(parents=True)
    for rel in ("a.ipynb", "zh/a.ipynb", "zh/.ipynb_checkpoints/a-checkpoint.ipynb", "b.md"):
        (tmp_path / rel).write_text("{}", encoding="utf-8")
    assert course.find_notebooks([tmp_path]) == [tmp_path / "a.ipynb", tmp_path / "zh/a.ipynb"]
    assert course.find_notebooks([tmp_path / "a.ipynb"]) == [tmp_path / "a.ipynb"]
    english = course.find_notebooks([course.NOTEBOOKS], english_only=True)
    assert english and not any(course.ZH in nb.parents for nb in english)
    assert len(course.find_notebooks()) == 2 * len(english)  # every notebook has a zh twin
