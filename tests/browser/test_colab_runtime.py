"""Open in Colab, simulated as a learner meets it: the notebooks' set-up cell in a fresh runtime
made like Colab's, from the cell to a drawn picture and a stepper (minutes of pip: in the slow
suite that `make test-browser` runs, not in `make test`).

Colab's runtime, as far as this machine can make it: a fresh virtualenv with Python 3.12 (the
pyenv one here; the running Python, said in the output, when there is none), ipywidgets 7.7.1
(the major version Colab long shipped, with its own front end) and an older numpy (1.26.4),
imported before the cell runs, as Colab's kernel has numpy loaded already. The module
google.colab is put into sys.modules: that is what the cell looks for.

What is replaced, and why: the cell clones GitHub's copy of the course; here its address is a
local clone of this repository (file://..., at this branch's last commit), since this machine
reaches no GitHub. Everything else is the cell as every notebook has it (scripts/colab.py).

- first run (numpy 1.26 loaded): the set-up installs minigrad with the course's pins and says
  to restart the runtime (a running Python keeps its numpy);
- second run (after the restart: a new process): "ready", a picture drawn by Graphviz, and
  viz.cut_stepper shown as a widget with ipywidgets 7 (or as its HTML, with a note);
- a failed clone (an address that does not exist) prints one sentence, no traceback.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from scripts import colab  # noqa: E402

COLAB_PACKAGES = ["ipywidgets==7.7.1", "numpy==1.26.4"]
# Colab's Python has the module google.colab loaded; the cell looks for exactly that.
PRETEND_COLAB = """
import sys, types
sys.modules["google.colab"] = types.ModuleType("google.colab")
"""
# Colab's kernel has numpy loaded before the first cell.
NUMPY_FIRST = "import numpy\nprint('numpy loaded first:', numpy.__version__)\n"
# After the cell: what a notebook's imports cell needs, a picture, and the stepper.
AFTER_THE_CELL = """
import course_checks
import ipywidgets
import minigrad
from minigrad import viz

a = minigrad.tensor([1.0, 2.0], requires_grad=True)
svg = viz.draw((a * 2).sum())._repr_image_svg_xml()
print("minigrad from", minigrad.__file__)
print("course_checks from", course_checks.__file__)
print("picture", "<svg" in svg)
bundle = viz.cut_stepper("detach")._repr_mimebundle_()
view = bundle.get("application/vnd.jupyter.widget-view+json")
print("ipywidgets", ipywidgets.__version__)
print("stepper widget", bool(view and view.get("model_id")), "html", "<svg" in bundle["text/html"])
"""


def colab_python() -> tuple[str, str]:
    """Python 3.12 for the runtime (Colab's version), else the running one; and what it is."""
    candidates = sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"))
    candidates.append(shutil.which("python3.12"))
    for candidate in filter(None, candidates):
        works = subprocess.run([candidate, "-c", "import venv"], capture_output=True)
        if works.returncode == 0:  # (a pyenv shim without that version set fails here)
            return candidate, "Python 3.12, as Colab's"
    return sys.executable, f"Python {sys.version.split()[0]} (no Python 3.12 on this machine)"


def this_branch() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=REPO, capture_output=True, text=True
    )
    return done.stdout.strip()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None or shutil.which("dot") is None, reason="git, dot")
def test_the_setup_cell_in_a_runtime_like_colabs(tmp_path: Path, capsys) -> None:
    base, which = colab_python()
    env_dir = tmp_path / "venv"
    if base == sys.executable:
        venv.create(env_dir, with_pip=True)
    else:
        subprocess.run([base, "-m", "venv", str(env_dir)], check=True)
    python = str(env_dir / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, *COLAB_PACKAGES], check=True, capture_output=True)
    cell = colab.setup_cell(REPO.as_uri(), this_branch())  # a local clone in place of GitHub's
    work = tmp_path / "content"  # Colab's working folder
    work.mkdir()

    started = time.monotonic()
    first = subprocess.run(
        [python, "-c", NUMPY_FIRST + PRETEND_COLAB + cell],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert first.returncode == 0 and "Traceback" not in first.stderr, first.stdout + first.stderr
    assert "numpy loaded first: 1.26.4" in first.stdout
    assert "set-up: numpy 1.26.4 was already loaded" in first.stdout, first.stdout
    assert "restart the runtime" in first.stdout

    # after Runtime > Restart session: a new Python, the notebook again from the top
    second = subprocess.run(
        [python, "-c", NUMPY_FIRST + PRETEND_COLAB + cell + AFTER_THE_CELL],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.monotonic() - started
    assert second.returncode == 0, second.stdout + second.stderr
    lines = second.stdout.splitlines()
    assert any(line.startswith("set-up: ready: minigrad") for line in lines), second.stdout
    assert str(env_dir) in second.stdout.split("minigrad from", 1)[1].splitlines()[0]
    checks = work / colab.CLONE_DIR / "notebooks" / "course_checks" / "__init__.py"
    assert f"course_checks from {checks}" in second.stdout
    assert "picture True" in second.stdout
    assert "ipywidgets 7.7.1" in second.stdout  # Colab's own, kept by the set-up
    assert "stepper widget True html True" in second.stdout
    with capsys.disabled():
        print(f"\ncolab runtime ({which}): set-up, restart, set-up, picture: {seconds:.0f} s")


def test_a_failed_clone_in_colab_says_one_sentence(tmp_path: Path) -> None:
    missing = "https://github.invalid/nobody/no-such-course"
    done = subprocess.run(
        [sys.executable, "-c", PRETEND_COLAB + colab.setup_cell(missing, "main")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines() == [
        f"set-up: could not get the course from {missing} (branch main): check the address "
        "and branch in this cell and that the runtime is online, then run it again."
    ]
