"""The committed figures in figures/ match the code that draws them, and render cleanly."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

FIGURES_DIR = Path(__file__).resolve().parents[2] / "figures"


def load_build():
    """Import figures/build.py (figures/ is not a package)."""
    spec = importlib.util.spec_from_file_location("figures_build", FIGURES_DIR / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = load_build()


@pytest.mark.parametrize("name", list(build.FIGURES))
def test_committed_dot_is_up_to_date(name):
    path = FIGURES_DIR / f"{build.file_stem(name)}.dot"
    assert path.exists(), f"{path.name} is missing: run `make figures`"
    assert path.read_text() == build.dot_source(name), (
        f"{path.name} is out of date with figures/build.py or minigrad.viz: run `make figures` "
        "and commit the result"
    )
    for suffix in (".svg", ".png"):
        assert path.with_suffix(suffix).exists(), f"{path.stem}{suffix} missing: make figures"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("name", list(build.FIGURES))
def test_figure_renders_without_warnings(name):
    done = subprocess.run(
        ["dot", "-Tsvg"], input=build.dot_source(name), capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stderr == "", done.stderr
    assert "<svg" in done.stdout


def test_readme_figure_exists():
    assert (FIGURES_DIR / "detach_compare.png").exists()
