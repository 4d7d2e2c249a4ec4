"""scripts/notebook_pairs.py: each notebook has a MyST markdown pair under md/, and a pair that
disagrees is reported with the notebook's name and the fix.

The tests work on copies in a temporary "repository" (the module's paths pointed there), so the
course's own files are never touched; the last test checks the real ones.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest

from scripts import notebook_pairs

REPO = Path(__file__).resolve().parents[2]

SAMPLE = REPO / "notebooks" / "02_detach.ipynb"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary repository with jupytext.toml and one notebook in notebooks/ and in a
    subfolder notebooks/extra/.

    Outside git, so an out-of-sync pair is settled by modification times.
    """
    shutil.copy(REPO / "jupytext.toml", tmp_path)
    (tmp_path / "notebooks" / "extra").mkdir(parents=True)
    shutil.copy(SAMPLE, tmp_path / "notebooks" / "02_detach.ipynb")
    shutil.copy(SAMPLE, tmp_path / "notebooks" / "extra" / "02_detach.ipynb")
    monkeypatch.setattr(notebook_pairs, "REPO", tmp_path)
    monkeypatch.setattr(notebook_pairs, "NOTEBOOKS", tmp_path / "notebooks")
    monkeypatch.setattr(notebook_pairs, "MARKDOWN", tmp_path / "md")
    monkeypatch.setattr(notebook_pairs, "git_state", lambda path: None)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = notebook_pairs.main(list(argv))
    return status, capsys.readouterr().out


def first_code_cell(nb: nbformat.NotebookNode) -> int:
    return next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code")


def test_md_lives_in_the_mirror_folder_and_jupytext_agrees(repo: Path) -> None:
    from jupytext.config import load_jupytext_config
    from jupytext.formats import long_form_multiple_formats
    from jupytext.paired_paths import find_base_path_and_format, paired_paths

    notebook = repo / "notebooks" / "extra" / "02_detach.ipynb"
    md = notebook_pairs.md_for(notebook)
    assert md == repo / "md" / "extra" / "02_detach.md"
    assert notebook_pairs.notebook_for(md) == notebook
    config = load_jupytext_config(str(notebook))
    formats = long_form_multiple_formats(config.default_formats(str(notebook)))
    _, fmt = find_base_path_and_format(str(notebook), formats)
    paths = [path for path, _ in paired_paths(str(notebook), fmt, formats)]
    assert sorted(paths) == sorted([str(notebook), str(md)])


def test_sync_writes_every_pair_and_leaves_notebooks_byte_identical(repo, capsys) -> None:
    before = SAMPLE.read_bytes()
    status, out = run(capsys, "check")
    assert status == 1
    assert "notebooks/extra/02_detach.ipynb: no paired markdown file md/extra/02_detach.md" in out
    assert "make notebooks NB=notebooks/extra/02_detach.ipynb" in out

    assert run(capsys, "sync")[0] == 0
    for notebook in (repo / "notebooks").rglob("*.ipynb"):
        assert notebook.read_bytes() == before
    status, out = run(capsys, "check")
    assert (status, out.strip()) == (
        0,
        "notebook_pairs: 2 notebook(s) in sync with their md/ pairs",
    )
    text = (repo / "md" / "extra" / "02_detach.md").read_text(encoding="utf-8")
    assert text.startswith("---\njupytext:\n")
    assert "jupytext_version" not in text  # upgrading jupytext must not touch every .md
    assert "```{code-cell} ipython3" in text


@pytest.mark.parametrize("cell_type", ["code", "markdown"])
def test_an_edit_on_either_side_is_reported(repo, capsys, cell_type) -> None:
    run(capsys, "sync")
    notebook = repo / "notebooks" / "02_detach.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    index = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == cell_type)
    nb.cells[index].source += "\n# edited in JupyterLab"
    nbformat.write(nb, notebook)

    status, out = run(capsys, "check", str(notebook))
    assert status == 1
    assert (
        f"notebooks/02_detach.ipynb and md/02_detach.md are out of sync: "
        f"cell {index + 1} ({cell_type}) differs"
    ) in out
    assert "`make notebooks NB=notebooks/02_detach.ipynb`" in out
    assert "jupytext --sync notebooks/02_detach.ipynb" in out
    assert "+++ md/02_detach.md" in out and "-# edited in JupyterLab" in out


def test_an_edit_in_the_md_reaches_the_notebook_and_keeps_other_outputs(repo, capsys) -> None:
    run(capsys, "sync")
    notebook = repo / "notebooks" / "02_detach.ipynb"
    md = repo / "md" / "02_detach.md"
    old = nbformat.read(notebook, as_version=4)
    code = first_code_cell(old)
    text = md.read_text(encoding="utf-8").replace(old.cells[code].source, "x = 1  # from the md", 1)
    md.write_text(text, encoding="utf-8")
    later = notebook.stat().st_mtime + 5
    os.utime(md, (later, later))

    assert run(capsys, "sync")[0] == 0
    new = nbformat.read(notebook, as_version=4)
    assert new.cells[code].source == "x = 1  # from the md"
    assert new.cells[code].outputs == []  # changed: its old outputs no longer apply
    last = len(old.cells) - 1
    assert new.cells[last].outputs == old.cells[last].outputs
    assert "jupytext" not in new.metadata  # the pairing lives in jupytext.toml
    assert run(capsys, "check")[0] == 0


@pytest.mark.parametrize(
    ("nb_state", "md_state", "winner"),
    [
        ("clean", "clean", "notebook"),  # after a merge git may write an old .md last
        ("clean", "changed", "md"),  # edited in an editor
        ("changed", "clean", "notebook"),  # edited in JupyterLab
        ("changed", "changed", "md"),  # both: the one saved last (here the .md)
        ("clean", "new", "notebook"),  # a new .md beside a notebook git has: an old copy
        ("new", "new", "md"),  # a notebook just begun: the one saved last
    ],
)
def test_which_side_gives_the_cells(repo, capsys, monkeypatch, nb_state, md_state, winner):
    run(capsys, "sync")
    notebook, md = repo / "notebooks" / "02_detach.ipynb", repo / "md" / "02_detach.md"
    later = notebook.stat().st_mtime + 5
    os.utime(md, (later, later))
    states = {notebook: nb_state, md: md_state}
    monkeypatch.setattr(notebook_pairs, "git_state", lambda path: states[path])
    assert notebook_pairs.cells_come_from(notebook, md, md_named=False) == winner
    assert notebook_pairs.cells_come_from(notebook, md, md_named=True) == "md"


def test_a_md_without_its_notebook_is_reported_and_can_create_it(repo, capsys) -> None:
    run(capsys, "sync")
    md_dir = repo / "md" / "extra"
    shutil.copy(md_dir / "02_detach.md", md_dir / "11_new.md")
    status, out = run(capsys, "check")
    assert status == 1
    assert "md/extra/11_new.md: no notebook notebooks/extra/11_new.ipynb to pair with" in out
    assert "git rm md/extra/11_new.md" in out

    run(capsys, "sync")  # found by a folder walk: reported, not turned into a notebook
    assert not (repo / "notebooks" / "extra" / "11_new.ipynb").exists()
    assert run(capsys, "sync", str(md_dir / "11_new.md"))[0] == 0  # named: created
    assert (repo / "notebooks" / "extra" / "11_new.ipynb").exists()
    assert run(capsys, "check")[0] == 0


def test_the_course_notebooks_are_in_sync_with_their_pairs(capsys) -> None:
    status, out = run(capsys, "check")
    assert status == 0, out


def test_from_notebooks_rewrites_every_md_whatever_git_says(repo, capsys) -> None:
    run(capsys, "sync")
    md = repo / "md" / "extra" / "02_detach.md"
    good = md.read_text(encoding="utf-8")
    md.write_text(good.replace("detach", "DETACH"), encoding="utf-8")
    later = md.stat().st_mtime + 5
    os.utime(md, (later, later))
    assert run(capsys, "sync", "--from-notebooks")[0] == 0
    assert md.read_text(encoding="utf-8") == good


def test_zh_notebooks_have_no_twin_and_jupytext_agrees(repo, capsys) -> None:
    """notebooks/zh/ is generated from translations/zh/ (scripts/translations.py): no md/zh/."""
    zh = repo / "notebooks" / "zh"
    zh.mkdir()
    shutil.copy(SAMPLE, zh / "02_detach.ipynb")
    shutil.copy(REPO / "notebooks" / "zh" / "jupytext.toml", zh / "jupytext.toml")
    run(capsys, "sync")
    assert not (repo / "md" / "zh").exists()
    assert not notebook_pairs.is_paired(zh / "02_detach.ipynb")
    status, out = run(capsys, "check")
    assert status == 0
    assert out.strip() == "notebook_pairs: 2 notebook(s) in sync with their md/ pairs"

    from jupytext.config import load_jupytext_config

    config = load_jupytext_config(str(zh / "02_detach.ipynb"))
    assert config.default_formats(str(zh / "02_detach.ipynb")) == "ipynb"  # JupyterLab: no twin
