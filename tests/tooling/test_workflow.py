"""The contributor workflow: requirements.lock matches requirements.txt and .venv, and the
pre-commit hooks are offline and keep the notebooks as `make notebooks` writes them.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml
from packaging.requirements import Requirement

from scripts import lock, run_notebooks

REPO = Path(__file__).resolve().parents[2]

NBSTRIPOUT = Path(sys.executable).parent / "nbstripout"


def hooks() -> dict[str, dict]:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    return {
        hook["id"]: {**hook, "repo": repo["repo"]}
        for repo in config["repos"]
        for hook in repo["hooks"]
    }


def test_every_requirement_is_pinned_inside_its_range() -> None:
    pins = lock.read_lock()
    for line in lock.requirement_lines():
        req = Requirement(line)
        name = lock.canonical(req.name)
        assert name in pins, f"{name} is not in requirements.lock; run `make lock`"
        assert req.specifier.contains(pins[name], prereleases=True), (name, pins[name], line)


def test_the_venv_has_exactly_the_locked_versions(capsys) -> None:
    assert lock.cmd_check() == 0, capsys.readouterr().out


def test_lock_changes_are_listed_one_per_package() -> None:
    old = {"numpy": "2.4.6", "ruff": "0.17.6", "six": "1.17.0"}
    new = {"numpy": "2.4.7", "ruff": "0.17.6", "wcwidth": "0.9.4"}
    assert lock.changes(old, new) == [
        "  ~ numpy 2.4.6 -> 2.4.7",
        "  - six 1.17.0",
        "  + wcwidth 0.9.4",
    ]
    assert lock.canonical("Pre_Commit") == lock.canonical("pre.commit") == "pre-commit"


def test_hooks_are_local_and_run_tools_from_the_venv() -> None:
    # Cloning hook repositories needs the network; local hooks use what requirements.lock pins.
    for hook_id, hook in hooks().items():
        assert hook["repo"] == "local", hook_id
        assert hook["language"] == "system", hook_id
        assert hook["entry"].startswith(".venv/bin/"), hook_id
    assert {"ruff-check", "ruff-format", "nbstripout", "notebook-pairs", "check-notebooks"} <= set(
        hooks()
    )


def test_the_nbstripout_hook_uses_the_options_make_notebooks_uses() -> None:
    entry = shlex.split(hooks()["nbstripout"]["entry"])
    assert entry[0] == ".venv/bin/nbstripout"
    assert tuple(entry[1:]) == run_notebooks.NBSTRIPOUT_ARGS


def test_nbstripout_leaves_the_course_notebooks_byte_identical(tmp_path: Path) -> None:
    notebooks = sorted((REPO / "notebooks").rglob("*.ipynb"))
    copies = []
    for i, nb in enumerate(notebooks):
        copies.append(tmp_path / f"{i}.ipynb")
        shutil.copy(nb, copies[-1])
    subprocess.run([NBSTRIPOUT, *run_notebooks.NBSTRIPOUT_ARGS, *copies], check=True)
    for nb, copy in zip(notebooks, copies, strict=True):
        assert copy.read_bytes() == nb.read_bytes(), f"nbstripout would change {nb.name}"


def test_nbstripout_keeps_outputs_tags_and_slides_and_drops_stray_metadata(tmp_path) -> None:
    path = tmp_path / "nb.ipynb"
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 / 0", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="x")]
    cell.metadata = {
        "tags": ["raises-exception"],
        "slideshow": {"slide_type": "fragment"},
        "scrolled": True,
        "collapsed": False,
        "execution": {"iopub.execute_input": "2026-12-02T18:00:00Z"},
    }
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title", metadata={"slideshow": {"slide_type": "slide"}}),
        cell,
    ]
    nb.metadata = {
        "kernelspec": {
            "name": "python3",
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        },
        "language_info": {"name": "python", "version": "3.11.7"},
        "jupytext": {"default_lexer": "ipython3"},
        "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}},
    }
    nbformat.write(nb, path)
    subprocess.run([NBSTRIPOUT, *run_notebooks.NBSTRIPOUT_ARGS, path], check=True)
    out = nbformat.read(path, as_version=4)
    assert out.cells[0].metadata == {"slideshow": {"slide_type": "slide"}}
    assert out.cells[1].metadata == {
        "tags": ["raises-exception"],
        "slideshow": {"slide_type": "fragment"},
    }
    assert out.cells[1].outputs == cell.outputs and out.cells[1].execution_count == 1
    assert out.cells[1].id == cell.id
    assert out.metadata["language_info"] == {"name": "python"}
    assert "jupytext" not in out.metadata
    assert "widgets" in out.metadata  # the widget state nbclient saves is part of the run


def test_the_pre_commit_config_is_valid() -> None:
    # .ci/run runs the hooks on every file; here only the file's schema, which takes no git.
    pre_commit = Path(sys.executable).parent / "pre-commit"
    done = subprocess.run(
        [pre_commit, "validate-config", ".pre-commit-config.yaml"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_make_notebooks_stores_one_output_per_stream(tmp_path: Path) -> None:
    # Where a kernel flushes depends on the machine's load; it must not show up in `git diff`.
    path = tmp_path / "nb.ipynb"
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(1); print(2)", execution_count=1)
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("stream", name="stdout", text="2\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warning\n"),
    ]
    nb.cells = [cell]
    nbformat.write(nb, path)
    run_notebooks.normalise(path)
    outputs = nbformat.read(path, as_version=4).cells[0].outputs
    assert [(out.name, out.text) for out in outputs] == [
        ("stdout", "1\n2\n"),
        ("stderr", "warning\n"),
    ]
