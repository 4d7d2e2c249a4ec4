"""Write the handout for students to build/student/ (and build/student.zip): `make student`.

The handout runs on its own, without this repository:

- every notebook under notebooks/ (subfolders too) with every output and execution count
  cleared, so students predict before they run; teachers' notes are never in a notebook, and
  any notes cell an older notebook still has is dropped;
- the helper files next to the notebooks (the course_checks package, ...), as they are;
- minigrad itself (the package, with a pyproject.toml so `pip install .` installs it), the
  Python packages a learner needs (requirements.txt) and README.md with the install steps
  (Graphviz included), in English and Chinese.

The *_solutions notebooks are left out unless --with-solutions is given (`make student
SOLUTIONS=1`): hand the answers out after the exercises.

Usage: python -m scripts.student_copies [--out DIR] [--with-solutions]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tomllib
from pathlib import Path

from scripts import course

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
NOTES_TAG = "speaker-notes"  # notes cells of older notebooks (scripts/slides_metadata.py)
SKIP_PARTS = {course.CHECKPOINTS, "__pycache__"}
# What a learner's machine needs to run the notebooks (the repository's requirements.txt also
# holds the contributors' tools). Versions as in requirements.txt.
LEARNER_PACKAGES = ("jupyterlab", "ipykernel", "ipywidgets", "numpy", "matplotlib", "graphviz")

PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "minigrad"
version = "{version}"
description = "A small numpy autograd engine that behaves like PyTorch (course: Cutting the Graph)"
requires-python = ">=3.11"
dependencies = {dependencies}

[tool.setuptools.packages.find]
include = ["minigrad", "minigrad.*"]
"""

README = """\
# Cutting the Graph: the notebooks

The course's notebooks without their outputs: run each cell yourself, after predicting what it
will print or draw. `zh/` holds the Chinese edition.

## Install (once)

You need Python 3.11 or newer and Graphviz's `dot` program (the pictures):

    sudo apt-get install graphviz       # Debian / Ubuntu
    brew install graphviz               # macOS (Homebrew)
    conda install -c conda-forge graphviz   # conda; on Windows: the installer from graphviz.org

Then, in this folder:

    python -m venv .venv
    .venv/bin/python -m pip install -r requirements.txt    # Windows: .venv\\Scripts\\python
    .venv/bin/python -m pip install .                      # minigrad, the course's engine
    .venv/bin/jupyter lab

JupyterLab prints a http://127.0.0.1:8888/lab?token=... address: open it and start with
`00_start_here.ipynb`.

# 切断计算图：课程 notebook

这里是课程的全部 notebook，已清空输出：先预测每个单元格会打印或画出什么，再自己运行。
`zh/` 文件夹里是中文版。

## 安装（只需一次）

需要 Python 3.11 或更高版本，以及 Graphviz 的 `dot` 程序（用来画图），安装命令见上面的英文部分。
然后在这个文件夹里运行上面的四条命令：创建虚拟环境、安装 requirements.txt、安装 minigrad
（`pip install .`）、启动 JupyterLab。打开它打印出的 http://127.0.0.1:8888/lab?token=... 地址，
从 `zh/00_start_here.ipynb` 开始。
"""


def clean(nb: dict) -> dict:
    """The notebook without outputs, execution counts or notes cells."""
    cells = []
    for cell in nb["cells"]:
        if NOTES_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        cell = dict(cell)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cells.append(cell)
    return {**nb, "cells": cells}


def learner_requirements() -> str:
    """requirements.txt for the handout: the learner's packages, pinned as the repository's."""
    lines = ["# What the notebooks need (minigrad itself: `pip install .` in this folder)."]
    for line in (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines():
        name = re.split(r"[<>=!~\[ ]", line.strip(), maxsplit=1)[0].lower()
        if name in LEARNER_PACKAGES:
            lines.append(line.strip())
    return "\n".join(lines) + "\n"


def add_minigrad(out: Path) -> None:
    """minigrad's source and a pyproject.toml that installs it (`pip install .`)."""
    shutil.copytree(
        REPO / "minigrad", out / "minigrad", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    init = (REPO / "minigrad" / "__init__.py").read_text(encoding="utf-8")
    version = re.search(r'__version__\s*=\s*"([^"]+)"', init)
    # minigrad's run-time dependencies, as the repository's pyproject.toml declares them
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dependencies = "[" + ", ".join(f'"{d}"' for d in project["dependencies"]) + "]"
    text = PYPROJECT.format(version=version.group(1) if version else "0", dependencies=dependencies)
    (out / "pyproject.toml").write_text(text, encoding="utf-8")
    (out / "requirements.txt").write_text(learner_requirements(), encoding="utf-8")
    (out / "README.md").write_text(README, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Write the handout; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default=str(REPO / "build" / "student"), help="output folder")
    parser.add_argument("--with-solutions", action="store_true", help="add the *_solutions")
    parser.add_argument("--no-solutions", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    if out.exists():
        shutil.rmtree(out)
    count = 0
    for path in sorted(NOTEBOOKS.rglob("*")):
        rel = path.relative_to(NOTEBOOKS)
        if path.is_dir() or SKIP_PARTS & set(rel.parts) or path.name == "jupytext.toml":
            continue
        if path.stem.endswith("_solutions") and not args.with_solutions:
            continue
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".ipynb":
            nb = clean(json.loads(path.read_text(encoding="utf-8")))
            text = json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            target.write_text(text, encoding="utf-8")
            count += 1
        else:
            shutil.copy2(path, target)
    add_minigrad(out)
    archive = shutil.make_archive(str(out), "zip", root_dir=out.parent, base_dir=out.name)
    solutions = "with" if args.with_solutions else "without"
    print(
        f"wrote {count} notebooks without outputs ({solutions} the solutions), minigrad and"
        f" README.md to {out} (and {Path(archive).name})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
