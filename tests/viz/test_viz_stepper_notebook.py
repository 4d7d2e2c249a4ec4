"""A notebook that shows steppers stores stable outputs, and nbval passes on it run after run.

A stepper's display carries a widget view whose model id is new on every run. nbval does not
compare that MIME type, and `make notebooks` (scripts.run_notebooks) does not store it: the
stored output is the HTML with every frame plus the text form, which nbval compares (SVG bodies
sanitized). This runs the browser test's fixture notebook the way `make notebooks` and
`make test` do: execute and store, check the file, then nbval twice.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "browser" / "fixtures" / "stepper_in_lab.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

pytestmark = pytest.mark.slow


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONHASHSEED="0", JUPYTER_PREFER_ENV_PATH="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=240, cwd=REPO
    )


def test_nbval_itself_skips_the_widget_view():
    plugin = pytest.importorskip("nbval.plugin")
    assert WIDGET_VIEW in inspect.getsource(plugin.IPyNbFile.__init__)


def test_stored_outputs_are_stable_and_nbval_passes_twice(tmp_path: Path):
    pytest.importorskip("ipywidgets")
    notebook = tmp_path / FIXTURE.name
    shutil.copy(FIXTURE, notebook)
    done = run("-m", "scripts.run_notebooks", str(notebook))
    assert done.returncode == 0, done.stdout + done.stderr

    stored = json.loads(notebook.read_text(encoding="utf-8"))
    assert "widgets" not in stored["metadata"]
    outputs = [o for cell in stored["cells"] for o in cell.get("outputs", [])]
    assert [sorted(o["data"]) for o in outputs] == [["text/html", "text/plain"]] * 2
    page = "".join(outputs[0]["data"]["text/html"])
    assert page.count('<div class="mg-stepper-frame">') == 5
    assert "modified by an inplace operation" in page

    for attempt in (1, 2):
        checked = run(
            "-m",
            "pytest",
            str(notebook),
            "--nbval",
            "--nbval-current-env",
            "--nbval-sanitize-with",
            str(REPO / "tests" / "nbval_sanitize.cfg"),
            "-q",
            "-p",
            "no:cacheprovider",
        )
        assert checked.returncode == 0, f"nbval run {attempt}:\n{checked.stdout[-3000:]}"
