"""The browser-only site's parts that run without a browser (issue 27).

tests/browser/test_lite_site.py opens the built site in Chromium with the network closed; here:
the kernel start-up's message in a real IPython shell, the pieces of scripts/build_lite.py that
decide what the site serves, and minigrad's wasm renderer outside a browser.
"""

from __future__ import annotations

import hashlib
import json
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "lite" / "kernel"))
import course_lite  # noqa: E402  (the kernel start-up package, as the wheel holds it)

from scripts import build_lite  # noqa: E402


@pytest.fixture
def shell():
    """A real IPython shell with the start-up's handler installed (as the kernel has it)."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    course_lite.install(shell)
    yield shell
    shell.set_custom_exc((), None)
    InteractiveShell.clear_instance()


RAISE_NUMPY = "raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')"


@pytest.fixture
def loader_errors(monkeypatch):
    """The errors Pyodide's loader reported (set by each test)."""
    errors: list[str] = []
    monkeypatch.setattr(course_lite._Load, "errors", errors)
    return errors


def test_numpy_that_cannot_be_fetched_gives_a_message_not_a_traceback(
    shell, capsys, loader_errors
) -> None:
    # what Pyodide's loader reports in Chromium when the CDN cannot be reached
    loader_errors.append("Failed to load numpy-2.4.6-...whl: TypeError: Failed to fetch")
    result = shell.run_cell(RAISE_NUMPY)
    assert isinstance(result.error_in_exec, ModuleNotFoundError)  # the cell still fails
    shown = capsys.readouterr().out
    assert shown.strip().splitlines() == course_lite.message("numpy", loader_errors)
    assert shown.startswith("numpy could not be loaded: this browser could not download it")
    assert "Traceback" not in shown


def test_a_failure_that_is_not_the_network_says_so(shell, capsys, loader_errors) -> None:
    loader_errors.append("Integrity check failed: numpy-2.4.6-...whl")
    shell.run_cell(RAISE_NUMPY)
    shown = capsys.readouterr().out
    assert shown.startswith("numpy could not be loaded, and not for want of a network")
    assert "Integrity check failed" in shown and "Connect to the internet" not in shown
    assert "Traceback" not in shown


def test_without_a_loader_error_a_missing_module_keeps_its_traceback(
    shell, capsys, loader_errors
) -> None:
    shell.run_cell(RAISE_NUMPY)
    assert "could not be loaded" not in capsys.readouterr().out


def test_other_missing_modules_keep_their_traceback(shell, capsys) -> None:
    shell.run_cell("import a_module_nobody_has")
    shown = capsys.readouterr().out
    assert "ModuleNotFoundError" in shown and "could not be loaded" not in shown


def test_the_lock_closure_follows_dependencies() -> None:
    packages = {
        "a": {"depends": ["B_c"]},
        "b-c": {"depends": ["d"]},
        "d": {"depends": []},
        "e": {"depends": []},
    }
    assert build_lite.closure(packages, ["a"]) == ["a", "b-c", "d"]
    with pytest.raises(SystemExit, match="not in Pyodide's lock"):
        build_lite.closure(packages, ["missing"])


def test_pure_wheels_are_told_from_compiled_ones() -> None:
    assert build_lite.is_pure("six-1.17.0-py2.py3-none-any.whl")
    assert not build_lite.is_pure("numpy-2.4.6-cp314-cp314-pyemscripten_2026_0_wasm32.whl")


def test_a_pinned_wheel_with_another_sha256_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "numpy-2.4.6-cp314-cp314-pyemscripten_2026_0_wasm32.whl"
    source.write_bytes(b"not the wheel Pyodide's lock names")
    target = tmp_path / "out.whl"
    with pytest.raises(SystemExit, match="not using it"):
        build_lite.fetch_pinned(source.as_uri(), "0" * 64, target)
    assert not target.exists()
    build_lite.fetch_pinned(source.as_uri(), build_lite.sha256(source), target)
    assert target.read_bytes() == source.read_bytes()


def test_the_start_up_wheel_is_reproducible_and_holds_the_start_up_file(tmp_path: Path) -> None:
    first = build_lite.build_course_lite(tmp_path)
    digest = hashlib.sha256(first.read_bytes()).hexdigest()
    assert hashlib.sha256(build_lite.build_course_lite(tmp_path).read_bytes()).hexdigest() == digest
    with zipfile.ZipFile(first) as wheel:
        names = wheel.namelist()
        record = wheel.read("course_lite-1.0.dist-info/RECORD").decode()
    assert "course_lite-1.0.data/data/etc/ipython/startup/50-course-lite.py" in names
    assert "course_lite/__init__.py" in names
    assert all(name in record for name in names)


def test_the_kernel_never_falls_back_to_pypi(tmp_path: Path) -> None:
    (tmp_path / "jupyter-lite.json").write_text(json.dumps({"jupyter-config-data": {}}))
    build_lite.patch_config(tmp_path)
    config = json.loads((tmp_path / "jupyter-lite.json").read_text())
    kernel = config["jupyter-config-data"]["litePluginSettings"][build_lite.KERNEL_PLUGIN]
    assert kernel["disablePyPIFallback"] is True
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    # the kernel's own packages load with Pyodide (not one by one through piplite)
    assert kernel["loadPyodideOptions"]["packages"] == [*build_lite.KERNEL_START, "course-lite"]


def test_the_sites_notebooks_hold_their_lines_as_one_string() -> None:
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "source": ["a\n", "b"],
                "outputs": [
                    {"output_type": "stream", "text": ["False\n", "True\n"]},
                    {"data": {"text/plain": ["x\n", "y"], "application/json": ["a", "b"]}},
                ],
            }
        ]
    }
    cell = build_lite.joined_lines(notebook)["cells"][0]
    assert cell["source"] == "a\nb"
    assert cell["outputs"][0]["text"] == "False\nTrue\n"
    assert cell["outputs"][1]["data"]["text/plain"] == "x\ny"
    assert cell["outputs"][1]["data"]["application/json"] == ["a", "b"]  # data, not lines


def test_the_site_says_what_the_browser_fetches() -> None:
    lock = {"packages": {"numpy": {"version": "2.4.6", "sha256": "ab" * 32}}}
    about = build_lite.about_site(lock, ["numpy"])
    assert f"| numpy | 2.4.6 | `{'ab' * 32}` |" in about and "cdn.jsdelivr.net" in about
    assert "fetches nothing elsewhere" in build_lite.about_site(lock, [])


def test_an_unreachable_cdn_ends_the_build_with_a_sentence(tmp_path: Path, capsys) -> None:
    # a port nothing listens on: refused at once, as an unreachable CDN is
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SystemExit) as stop:
        build_lite.fetch_pinned(f"http://127.0.0.1:{port}/numpy.whl", "0" * 64, tmp_path / "n")
    assert str(stop.value).startswith("build_lite: could not download http://127.0.0.1:")
    assert "--with-pyodide-wheels needs Pyodide's CDN" in str(stop.value)


def test_the_wasm_renderer_is_not_used_outside_a_browser() -> None:
    from minigrad.viz import wasm_render

    assert not wasm_render.available()  # CPython here: dot_program.run_dot runs `dot`
    with pytest.raises(wasm_render.WasmGraphvizError, match="one -T<format>"):
        wasm_render.render("digraph {}", ["-Tsvg", "-Gdpi=300"])


def test_a_built_site_serves_everything_but_the_pinned_wheels() -> None:
    site = REPO / "build" / "lite"
    if not (site / "jupyter-lite.json").exists():
        pytest.skip("build/lite/ not built (make lite)")
    lock = json.loads((site / "static" / "pyodide" / "pyodide-lock.json").read_text("utf-8"))
    remote = sorted(n for n, e in lock["packages"].items() if "://" in e["file_name"])
    assert set(remote) <= {"numpy", "matplotlib", "contourpy", "kiwisolver", "pillow"}
    assert build_lite.check(site, remote) == []


def test_the_pages_workflow_publishes_the_lite_site_with_the_pinned_wheels() -> None:
    import yaml

    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text("utf-8"))
    runs = [step.get("run", "") for step in workflow["jobs"]["build"]["steps"]]
    lite = [run for run in runs if run.startswith("make lite")]
    assert lite and "--with-pyodide-wheels" in lite[0] and "--out build/site/lite" in lite[0]
    assert runs.index(lite[0]) > runs.index("make site")  # make site rebuilds build/site/


def test_lite_urls_for_the_website() -> None:
    assert build_lite.lite_url("02_detach") == "lite/lab/index.html?path=02_detach.ipynb"
    assert build_lite.lite_url("notebooks/zh/02_detach.ipynb", "") == (
        "lab/index.html?path=zh/02_detach.ipynb"
    )
