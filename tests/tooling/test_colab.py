"""Open in Colab (issue 27): the links, the notebooks' first two cells, and the set-up cell run
for real in a fresh virtualenv without minigrad, cloning this repository as Colab would clone
GitHub's copy (the cell's URL pointed at the local clone: file://...).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
from scripts import colab  # noqa: E402

# What the test program does after the cell: what a notebook's imports cell needs, then a picture.
AFTER_THE_CELL = """
import course_checks
import minigrad
from minigrad import viz

a = minigrad.tensor([1.0, 2.0], requires_grad=True)
svg = viz.draw((a * 2).sum())._repr_image_svg_xml()
print("minigrad from", minigrad.__file__)
print("course_checks from", course_checks.__file__)
print("picture", "<svg" in svg)
"""
# Colab's Python has the module google.colab loaded; the cell looks for exactly that.
PRETEND_COLAB = """
import sys, types
sys.modules["google.colab"] = types.ModuleType("google.colab")
"""


def test_colab_urls() -> None:
    repository = "https://github.com/owner/course"
    want = "https://colab.research.google.com/github/owner/course/blob/main/notebooks/"
    assert colab.colab_url("02_detach", repository) == want + "02_detach.ipynb"
    assert (
        colab.colab_url("notebooks/zh/02_detach.ipynb", repository) == want + "zh/02_detach.ipynb"
    )
    assert colab.repository_url().startswith("https://github.com/")


def test_every_notebook_readme_and_translation_is_up_to_date() -> None:
    assert colab.problems() == []


def test_every_notebook_page_has_its_own_colab_link() -> None:
    for path in sorted((REPO / "notebooks").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        first = nbformat.read(path, as_version=4).cells[0]
        rel = path.relative_to(REPO).as_posix()
        assert first.id == colab.LINK_ID, rel
        assert f"/blob/main/{rel})" in first.source, rel


def test_the_setup_cell_does_nothing_outside_colab(tmp_path: Path) -> None:
    cell = colab.setup_cell(colab.repository_url())
    done = subprocess.run(
        [sys.executable, "-c", cell], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert list(tmp_path.iterdir()) == []  # nothing cloned


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None or shutil.which("dot") is None, reason="git, dot")
def test_the_setup_cell_installs_the_course_in_a_fresh_virtualenv(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    missing = subprocess.run([python, "-c", "import minigrad"], capture_output=True)
    assert missing.returncode != 0  # a fresh environment: no minigrad
    # the cell as every notebook has it, cloning this repository instead of GitHub's copy
    cell = colab.setup_cell(REPO.as_uri())
    program = PRETEND_COLAB + cell + "\n" + cell + "\n" + AFTER_THE_CELL  # run twice, as learners
    work = tmp_path / "content"  # Colab's working folder
    work.mkdir()
    started = time.monotonic()
    done = subprocess.run(
        [python, "-c", program], cwd=work, capture_output=True, text=True, timeout=600
    )
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    ready = [line for line in lines if line.startswith("set-up: ready: minigrad")]
    assert len(ready) == 2, done.stdout  # once per run of the cell
    assert sum("installing minigrad" in line for line in lines) == 1  # the second run: no pip
    assert str(env_dir) in done.stdout.split("minigrad from", 1)[1].splitlines()[0]
    clone = work / colab.CLONE_DIR
    checks = clone / "notebooks" / "course_checks" / "__init__.py"
    assert f"course_checks from {checks}" in done.stdout
    assert "picture True" in done.stdout
    print(f"set-up cell, twice, in a fresh virtualenv: {seconds:.1f} s")
