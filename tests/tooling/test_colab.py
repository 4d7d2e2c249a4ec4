"""Open in Colab (issue 27): the links, the notebooks' first two cells, the set-up cell outside
Colab and with a clone that fails, and the one setting (repository, branch) applied everywhere.
The set-up cell's whole run in a runtime made like Colab's is tests/browser/test_colab_runtime.py
(minutes: in the slow suite that `make test-browser` runs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
from scripts import colab  # noqa: E402

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


def test_a_failed_clone_says_one_sentence(tmp_path: Path) -> None:
    """Colab without the network, or a wrong address or branch: git's exit status is checked,
    and the learner reads one sentence naming what was tried and what to do, no traceback."""
    missing = (tmp_path / "no-such-repository").as_uri()
    cell = colab.setup_cell(missing, "no-such-branch")
    done = subprocess.run(
        [sys.executable, "-c", PRETEND_COLAB + cell],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.count("\n") == 1, done.stdout
    assert done.stdout.startswith(f"set-up: could not get the course from {missing} (branch ")
    assert "no-such-branch" in done.stdout and "run it again" in done.stdout
    assert not (tmp_path / colab.CLONE_DIR).exists()


def test_the_setting_comes_from_pyproject_or_the_workflow(monkeypatch) -> None:
    monkeypatch.delenv("COURSE_REPOSITORY", raising=False)
    monkeypatch.delenv("COURSE_BRANCH", raising=False)
    assert colab.branch_name() == "main"
    # the Pages workflow's values: the repository and branch it builds
    monkeypatch.setenv("COURSE_REPOSITORY", "someone/fork-of-the-course")
    monkeypatch.setenv("COURSE_BRANCH", "try-this")
    assert colab.repository_url() == "https://github.com/someone/fork-of-the-course"
    url = colab.colab_url("zh/02_detach")
    assert url.endswith(
        "/github/someone/fork-of-the-course/blob/try-this/notebooks/zh/02_detach.ipynb"
    )
    cell = colab.setup_cell(colab.repository_url())
    assert 'repository = "https://github.com/someone/fork-of-the-course"' in cell
    assert 'branch, folder = "try-this", ' in cell
    monkeypatch.setenv("COURSE_BRANCH", "--upload-pack=evil")
    with pytest.raises(SystemExit, match="not a branch name"):
        colab.branch_name()


# What `colab apply` reads and writes, copied for test_applying_a_new_setting_...
APPLY_FILES = [
    "scripts",
    "notebooks",
    "md",
    "translations",
    "README.md",
    "README.zh-CN.md",
    "pyproject.toml",
    "jupytext.toml",
]


@pytest.mark.slow
def test_applying_a_new_setting_updates_everything_without_executing(tmp_path: Path) -> None:
    """`colab apply` with another repository and branch (in a copy of the repository): the
    notebooks, the Chinese edition and the md/ twins all follow, every check passes, and no
    stored output changes (nothing is executed)."""
    copy = tmp_path / "repo"
    for name in APPLY_FILES:
        source = REPO / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
            shutil.copytree(source, copy / name, ignore=ignore)
        else:
            shutil.copy2(source, copy / name)
    env = {**os.environ, "COURSE_REPOSITORY": "someone/fork", "COURSE_BRANCH": "dev"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", *args], cwd=copy, env=env, capture_output=True, text=True
        )

    applied = run("scripts.colab", "apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    for check in (
        ["scripts.colab", "check"],
        ["scripts.translations", "check"],
        ["scripts.notebook_pairs", "check"],
    ):
        done = run(*check)
        assert done.returncode == 0, check + [done.stdout + done.stderr]
    for path in sorted((copy / "notebooks").rglob("*.ipynb")):
        rel = path.relative_to(copy)
        new = nbformat.read(path, as_version=4)
        old = nbformat.read(REPO / rel, as_version=4)
        assert "/someone/fork/blob/dev/" in new.cells[0].source, rel
        assert [c.get("outputs") for c in new.cells] == [c.get("outputs") for c in old.cells]
        assert [c.get("execution_count") for c in new.cells] == [
            c.get("execution_count") for c in old.cells
        ]
    twin = (copy / "md" / "02_detach.md").read_text(encoding="utf-8")
    assert 'repository = "https://github.com/someone/fork"' in twin
    assert 'branch, folder = "dev", ' in twin
