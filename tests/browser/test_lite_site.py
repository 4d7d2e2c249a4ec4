"""The browser-only site (`make lite`, issue 27) in headless Chromium with the network closed.

The site in build/lite/ is served from 127.0.0.1. Chromium resolves no other host name
(--host-resolver-rules), and every request to another host is aborted and recorded, so the test
sees what the site would fetch from outside. Then, in one JupyterLite page showing 02_detach:

- the Pyodide kernel starts from the site's own files (its time is reported);
- the notebook's Colab set-up cell does nothing there, and its imports cell shows the clear
  message of lite/kernel/course_lite (numpy comes from Pyodide's CDN, closed here), not a
  traceback;
- a graph drawn by `viz.draw` renders through Graphviz compiled to WebAssembly: the DOT text
  written here by the course's viz goes through minigrad's own `dot_program.run_dot` inside
  Pyodide, whose hook hands it to `viz/wasm_render.py`. minigrad's __init__ files import numpy,
  which cannot come offline, so the cell loads those two real modules of the minigrad wheel
  alone (stand-ins for the two parent packages); the picture must have the nodes and edges
  that `dot` draws from the same DOT here;
- the only requests for other hosts are the pinned wheels of Pyodide's lock on its CDN.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from conftest import CHROMIUM_FLAGS, HELPERS_JS, SCREENSHOT_DIR, VIEWPORT

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "build" / "lite"
NOTEBOOK = "02_detach.ipynb"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
KERNEL_TIMEOUT_MS = 90_000
CELL_TIMEOUT_MS = 60_000

# Run one cell of the open notebook (adding it at `index` first when `code` is given) and
# wait until it has run and the kernel is idle again; resolves to that cell's labTest record.
RUN_CELL_JS = """
async ({path, index, code, timeoutMs}) => {
  const app = window.jupyterapp;
  const panel = labTest.panel(path);
  const notebook = panel.content;
  if (code !== null) {
    notebook.model.sharedModel.insertCell(index, {cell_type: "code", source: code});
  }
  const cell = notebook.widgets[index];
  notebook.activeCellIndex = index;
  app.commands.execute("notebook:run-cell");
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const kernel = panel.sessionContext.session?.kernel;
    if (cell.model.executionCount !== null && cell.model.executionState !== "running"
        && kernel && kernel.status === "idle") {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const record = labTest.cells(path)[index];
  record.outputs = cell.model.toJSON().outputs || [];
  return record;
}
"""

CELLS_JS = """
path => labTest.panel(path).content.widgets.map(
  (cell) => [cell.model.id, cell.model.type, cell.model.sharedModel.getSource()])
"""


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves build/lite with the types browsers insist on for modules and wasm."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".whl": "application/octet-stream",
    }

    def log_message(self, *args: Any) -> None:  # quiet
        pass


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    if not (SITE / "index.html").exists():
        pytest.skip("build/lite/ not built: run `make lite` (make test-browser does)")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(SiteHandler, directory=str(SITE))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def outside_requests() -> list[str]:
    """Every URL of another host the page, its workers or Pyodide asked for (all refused)."""
    return []


@pytest.fixture(scope="module")
def lite_page(
    chromium_browser: Any, site_url: str, outside_requests: list[str]
) -> Iterator[tuple[Any, float]]:
    """A JupyterLite page with the notebook open and its kernel ready, and the kernel's start
    time in seconds. In a Chromium of its own (the closed network is a launch option), started
    through the session's Playwright."""
    closed = CHROMIUM_FLAGS + ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
    browser = chromium_browser.browser_type.launch(
        executable_path=shutil.which("chromium"), headless=True, args=closed, timeout=60_000
    )
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(path=str(HELPERS_JS))

    def route(request_route: Any) -> None:
        url = request_route.request.url
        parsed = urlparse(url)
        if parsed.hostname not in LOCAL_HOSTS:
            outside_requests.append(url)
            request_route.abort()
        elif parsed.path == "/jupyter-lite.json":
            # the test's only change to the site: give the page window.jupyterapp
            response = request_route.fetch()
            config = response.json()
            config["jupyter-config-data"]["exposeAppInBrowser"] = "true"
            request_route.fulfill(response=response, body=json.dumps(config))
        else:
            request_route.continue_()

    context.route("**/*", route)
    page = context.new_page()
    page.on("requestfailed", lambda request: _note_outside(request.url, outside_requests))
    try:
        page.goto(f"{site_url}lab/index.html?path={NOTEBOOK}", wait_until="domcontentloaded")
        started = time.monotonic()
        page.wait_for_function("() => window.labTest && window.jupyterapp", timeout=60_000)
        stage = page.evaluate(
            "([path, ms]) => labTest.waitFor('kernelStage', path, 'ready', ms)",
            [NOTEBOOK, KERNEL_TIMEOUT_MS],
        )
        seconds = time.monotonic() - started
        assert stage == "ready", f"the kernel did not start within 90 s: {stage}"
        yield page, seconds
    finally:
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT_DIR / "lite_02_detach.png"))
        context.close()
        browser.close()


def _note_outside(url: str, seen: list[str]) -> None:
    if urlparse(url).hostname not in LOCAL_HOSTS and url not in seen:
        seen.append(url)


def run_cell(page: Any, index: int, code: str | None = None) -> dict:
    args = {"path": NOTEBOOK, "index": index, "code": code, "timeoutMs": CELL_TIMEOUT_MS}
    return page.evaluate(RUN_CELL_JS, args)


def test_the_kernel_starts_from_the_site_alone(lite_page: tuple[Any, float], capsys: Any) -> None:
    page, seconds = lite_page
    with capsys.disabled():
        print(f"\nlite: the Pyodide kernel started offline in {seconds:.1f} s")
    ids = [cell_id for cell_id, _, _ in page.evaluate(CELLS_JS, NOTEBOOK)]
    assert ids[:2] == ["colab-link", "colab-setup"]  # the notebook as the repository has it


def test_numpy_offline_gives_a_clear_message(lite_page: tuple[Any, float]) -> None:
    page, _ = lite_page
    kinds = page.evaluate(CELLS_JS, NOTEBOOK)  # [id, type, source] of each cell
    setup_index = [cell_id for cell_id, _, _ in kinds].index("colab-setup")
    setup = run_cell(page, setup_index)  # the Colab set-up cell: nothing happens outside Colab
    assert setup["executionCount"] is not None and setup["outputs"] == []
    # the imports cell: the next code cell (import numpy as np, import minigrad, ...)
    index = next(i for i in range(setup_index + 1, len(kinds)) if kinds[i][1] == "code")
    assert "import numpy" in kinds[index][2]
    imports = run_cell(page, index)
    errors = [out for out in imports["outputs"] if out["output_type"] == "error"]
    assert len(errors) == 1, imports["outputs"]
    shown = "\n".join(errors[0]["traceback"])
    assert shown.startswith("numpy could not be loaded"), shown
    assert "Traceback" not in shown and 'File "' not in shown and len(shown.splitlines()) <= 8
    assert "Connect to the internet" in shown


def test_a_graph_renders_through_wasm_graphviz(lite_page: tuple[Any, float]) -> None:
    import minigrad as mg
    from minigrad import viz

    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    dot_source = viz.draw(out.sum(), names={"a": a, "out": out, "c": c}).source
    page, _ = lite_page
    code = WASM_CELL.replace("DOT_SOURCE", repr(dot_source))
    index = page.evaluate("path => labTest.panel(path).content.widgets.length", NOTEBOOK)
    cell = run_cell(page, index, code)
    assert not [o for o in cell["outputs"] if o["output_type"] == "error"], cell["outputs"]
    assert "emscripten" in cell["streamText"] and "viz-js.mjs" in cell["streamText"]
    assert cell["svgRendered"], "the picture was not shown"
    svg = next(o["data"]["image/svg+xml"] for o in cell["outputs"] if "data" in o)
    svg = "".join(svg) if isinstance(svg, list) else svg
    assert "SigmoidBackward0" in svg and "AccumulateGrad" in svg
    local = subprocess.run(
        ["dot", "-Tsvg"], input=dot_source, capture_output=True, text=True, check=True
    ).stdout
    # the same DOT: the same nodes and edges as dot draws (layout numbers differ by version)
    assert titles(svg) == titles(local)
    page.evaluate(
        "([path, index]) => labTest.panel(path).content.widgets[index].node.scrollIntoView()",
        [NOTEBOOK, index],
    )


def test_widgets_work_for_the_stepper(lite_page: tuple[Any, float]) -> None:
    """viz.cut_stepper is an ipywidgets widget where ipywidgets imports (minigrad's `widgets`
    extra, in the lock as a dependency of minigrad); its browser half comes with the site."""
    page, _ = lite_page
    index = page.evaluate("path => labTest.panel(path).content.widgets.length", NOTEBOOK)
    cell = run_cell(page, index, "import ipywidgets\n\nipywidgets.IntSlider(value=3)")
    assert not [o for o in cell["outputs"] if o["output_type"] == "error"], cell["outputs"]
    page.wait_for_selector(".jp-OutputArea-output .widget-slider", timeout=CELL_TIMEOUT_MS)


def test_nothing_comes_from_outside_but_the_pinned_wheels(lite_page: Any, outside_requests: list):
    lock = json.loads((SITE / "static" / "pyodide" / "pyodide-lock.json").read_text("utf-8"))
    pinned = {entry["file_name"] for entry in lock["packages"].values()}
    unexpected = [url for url in outside_requests if url not in pinned]
    assert unexpected == [], f"the site asked other hosts for: {unexpected}"
    assert any("numpy" in url for url in outside_requests)  # the wheel that was refused


def titles(svg: str) -> list[str]:
    """The names of the nodes, edges and clusters of an SVG drawn by Graphviz, sorted.

    Each is drawn as <g class="node|edge|cluster"><title>name</title>; the graph's own group is
    left out (an unnamed graph is titled "%3" by Graphviz 2.43 and not at all by newer ones).
    """
    found = re.findall(r'class="(?:node|edge|cluster)">\s*<title>(.*?)</title>', svg)
    return sorted(html.unescape(title) for title in found)  # 2.43 writes - as &#45;


# The cell run in Pyodide: minigrad's wheel is installed from the site (numpy, its dependency,
# fails offline), then its real viz/dot_program.py and viz/wasm_render.py are imported without
# the package __init__ files (they import numpy), and run_dot draws the DOT.
WASM_CELL = """\
import importlib, site, sys, types
import pyodide_js
from IPython.display import SVG, display

await pyodide_js.loadPackage(["minigrad"])
root = site.getsitepackages()[0] + "/minigrad"
for name, folder in (("minigrad", root), ("minigrad.viz", root + "/viz")):
    stand_in = types.ModuleType(name)
    stand_in.__path__ = [folder]
    sys.modules[name] = stand_in
dot_program = importlib.import_module("minigrad.viz.dot_program")
svg = dot_program.run_dot(DOT_SOURCE, ["-Tsvg"], timeout=30, nodes=0).decode()
display(SVG(svg))
print(sys.platform, dot_program.wasm_render.module_url())
"""
