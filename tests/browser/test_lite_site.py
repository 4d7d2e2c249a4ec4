"""The browser-only site (`make lite`) on the learner's path: every notebook of both languages,
opened in headless Chromium from build/lite/, with nothing of the site stood in.

The site is served from 127.0.0.1. Chromium resolves no other host name (--host-resolver-rules)
and every request to another host is aborted and recorded: the test sees what the site fetches
from outside, and this machine has no network to fetch it with. For each notebook, as a learner
opens it:

- its stored outputs show as JupyterLab shows them: no multi-line text with a comma at the start
  of its lines (the lines of a stored output are a list in the file), and every stored picture
  visible on open, in a notebook the site does not trust (a PNG beside each SVG);
- its kernel starts from the site's own files (the time is reported);
- running its Colab set-up cell does nothing, and running its imports cell asks for minigrad
  (a file of the site) and numpy (Pyodide's CDN, pinned by sha256, refused here), whatever the
  cell holds (magics included); the learner reads the course's own message, that numpy could
  not be downloaded, not a traceback;
- the only requests for other hosts are the pinned wheels of Pyodide's lock.

What this machine cannot run: Pyodide's numpy is on no registry it reaches (GUIDE §11), so no
notebook gets past its imports cell here, and no picture is drawn live. The Pages workflow
(.github/workflows/pages.yml), which has the network, builds the site with the real numpy
(--with-pyodide-wheels) and runs every notebook's Run All in it before publishing
(LITE_RUN_ALL=1: test_run_all_with_the_real_numpy below).

Environment:
  LITE_NOTEBOOKS   a few notebooks to test ("02_detach.ipynb zh/02_detach.ipynb"); default all
  LITE_KERNEL_START=piplite   start the kernel as the site did before the course listed the
                   kernel's packages for Pyodide (for benchmarks/README.md's before/after)
  LITE_RUN_ALL=1   also Run All of every notebook (needs numpy: the Pages workflow)
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from conftest import CHROMIUM_FLAGS, HELPERS_JS, SCREENSHOT_DIR, VIEWPORT

REPO = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("LITE_SITE", REPO / "build" / "lite"))
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
KERNEL_TIMEOUT_MS = 120_000
CELL_TIMEOUT_MS = 90_000
RUN_ALL_TIMEOUT_MS = 600_000
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
PICTURES = ("image/svg+xml", "image/png")


def site_notebooks() -> list[str]:
    """The notebooks the site holds (paths inside its contents), or those in LITE_NOTEBOOKS."""
    chosen = os.environ.get("LITE_NOTEBOOKS", "").split()
    if chosen:
        return chosen
    root = REPO / "notebooks"
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )


NOTEBOOKS = site_notebooks()

# Run one cell of the open notebook and wait until it has run and the kernel is idle again;
# resolves to that cell's labTest record with its outputs.
RUN_CELL_JS = """
async ({path, index, timeoutMs}) => {
  const app = window.jupyterapp;
  const panel = labTest.panel(path);
  app.shell.activateById(panel.id);
  const notebook = panel.content;
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

# What the open notebook shows of its stored outputs: per code cell, the text of each text
# output as rendered, and whether a picture is visible (an <img> that loaded, or an inline svg).
SHOWN_JS = """
async (path) => {
  const notebook = labTest.panel(path).content;
  const shown = [];
  for (let index = 0; index < notebook.widgets.length; index++) {
    const cell = notebook.widgets[index];
    if (cell.model.type !== "code") { shown.push(null); continue; }
    // JupyterLab renders the cells near the view only: bring each one into view first
    await notebook.scrollToItem(index, "start");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const outputs = Array.from(cell.node.querySelectorAll(".jp-OutputArea-output"));
    for (const img of cell.node.querySelectorAll("img")) {
      if (!img.complete) {
        await new Promise((resolve) => { img.onload = img.onerror = resolve; });
      }
    }
    const texts = outputs
      .filter((node) => ["text/plain", "application/vnd.jupyter.stdout",
                         "application/vnd.jupyter.stderr"].includes(node.dataset.mimeType))
      .map((node) => node.textContent);  // (innerText is empty in a collapsed output)
    const pictures = outputs.filter((node) =>
      Array.from(node.querySelectorAll("img")).some((img) => img.naturalWidth > 0)
      || node.querySelector(".jp-RenderedSVG svg, .jp-RenderedImage svg") !== null).length;
    // the accessible name of each drawn picture: an img's alt (an inline svg's title, role=img)
    const names = outputs.flatMap((node) => [
      ...Array.from(node.querySelectorAll("img"))
        .filter((img) => img.naturalWidth > 0)
        .map((img) => ({mime: node.dataset.mimeType,
                        name: (img.getAttribute("alt") || "").trim()})),
      ...Array.from(node.querySelectorAll(":scope svg:not(svg svg)")).map((svg) => ({
        mime: node.dataset.mimeType,
        name: ((svg.getAttribute("role") === "img" && svg.querySelector(":scope > title")
                ?.textContent) || svg.getAttribute("aria-label") || "").trim(),
      })),
    ]);
    shown.push({texts, pictures, names, mimes: outputs.map((node) => node.dataset.mimeType)});
  }
  return shown;
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


class Requests:
    """Every URL the page, its workers and Pyodide asked for: the site's own and the others
    (all refused)."""

    def __init__(self) -> None:
        self.local: list[str] = []
        self.outside: list[str] = []

    def mark(self) -> tuple[int, int]:
        return len(self.local), len(self.outside)

    def since(self, mark: tuple[int, int]) -> list[str]:
        return self.local[mark[0] :] + self.outside[mark[1] :]


@pytest.fixture(scope="module")
def requests() -> Requests:
    return Requests()


@pytest.fixture(scope="module")
def lite_page(chromium_browser: Any, site_url: str, requests: Requests) -> Iterator[Any]:
    """A JupyterLite page of the site (no notebook open yet), in a Chromium of its own (the
    closed network is a launch option), started through the session's Playwright."""
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
            requests.outside.append(url)
            request_route.abort()
            return
        if parsed.path == "/jupyter-lite.json":
            # the test's change to the site: give the page window.jupyterapp (and, when asked,
            # the kernel's start as it was before, to measure it)
            response = request_route.fetch()
            config = response.json()
            data = config["jupyter-config-data"]
            data["exposeAppInBrowser"] = "true"
            if os.environ.get("LITE_KERNEL_START") == "piplite":
                kernel = data["litePluginSettings"][KERNEL_PLUGIN]
                kernel["loadPyodideOptions"] = {"packages": ["course-lite"]}
            request_route.fulfill(response=response, body=json.dumps(config))
        else:
            request_route.continue_()

    context.route("**/*", route)
    page = context.new_page()
    # the site's own requests, the workers' (Pyodide's) included
    page.on("request", lambda request: note_local(request.url, requests))
    page.on("requestfailed", lambda request: note_outside(request.url, requests))
    try:
        page.goto(f"{site_url}lab/index.html", wait_until="domcontentloaded")
        page.wait_for_function("() => window.labTest && window.jupyterapp", timeout=60_000)
        page.wait_for_function(
            "() => window.jupyterapp.commands.hasCommand('docmanager:open')", timeout=60_000
        )
        page.evaluate("() => window.jupyterapp.restored")
        yield page
    finally:
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT_DIR / "lite_last_notebook.png"))
        context.close()
        browser.close()


def note_local(url: str, requests: Requests) -> None:
    if urlparse(url).hostname in LOCAL_HOSTS:
        requests.local.append(url)


def note_outside(url: str, requests: Requests) -> None:
    # every time (each notebook's kernel asks again), also when the route saw it already
    if urlparse(url).hostname not in LOCAL_HOSTS:
        requests.outside.append(url)


def stored_notebook(path: str) -> dict:
    """The notebook as the site serves it (build/lite/files/...)."""
    return json.loads((SITE / "files" / path).read_text(encoding="utf-8"))


def one_string(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else value


@pytest.fixture(scope="module")
def opened(lite_page: Any) -> dict[str, dict]:
    """Every notebook opened in turn (no kernel asked for yet: what shows on open), then closed:
    what each showed of its stored outputs."""
    shown = {}
    for path in NOTEBOOKS:
        lite_page.evaluate("path => labTest.openNotebook(path)", path)
        lite_page.wait_for_function(
            "path => labTest.panel(path) && labTest.panel(path).context.isReady",
            arg=path,
            timeout=60_000,
        )
        shown[path] = lite_page.evaluate(SHOWN_JS, path)
        shut_down(lite_page, path)
    return shown


def shut_down(page: Any, path: str) -> None:
    """Close a notebook and shut its kernel down (each notebook starts its own)."""
    page.evaluate(
        """async path => {
             const panel = labTest.panel(path);
             if (panel) {
               await panel.sessionContext.shutdown().catch(() => {});
               panel.dispose();
             }
           }""",
        path,
    )


def shown_as_text(outputs: list[dict]) -> list[str]:
    """The texts JupyterLab shows for stored outputs: streams, and results that are text only
    (not those with a picture or HTML); consecutive parts of one stream are shown as one."""
    texts: list[str] = []
    previous = None
    for output in outputs:
        if output["output_type"] == "stream":
            if previous == output["name"]:
                texts[-1] += one_string(output["text"])
            else:
                texts.append(one_string(output["text"]))
            previous = output["name"]
            continue
        previous = None
        if set(output.get("data", {})) == {"text/plain"}:
            texts.append(one_string(output["data"]["text/plain"]))
    return texts


def comma_artifacts(texts: list[str]) -> list[str]:
    """The rendered texts with a line that starts with the comma of a list join."""
    return [text for text in texts if any(line.startswith(",") for line in text.splitlines()[1:])]


def test_stored_text_shows_without_comma_artifacts(opened: dict[str, dict]) -> None:
    found = {}
    unseen = {}  # stored multi-line texts not shown as text, per cell
    shown_total = stored_total = 0
    for path, cells in opened.items():
        stored_cells = stored_notebook(path)["cells"]
        for index, cell in enumerate(cells):
            if cell is None:
                continue
            shown = sum("\n" in text.strip() for text in cell["texts"])
            outputs = stored_cells[index].get("outputs", [])
            stored = sum("\n" in text.strip() for text in shown_as_text(outputs))
            shown_total, stored_total = shown_total + shown, stored_total + stored
            if shown < stored:
                unseen.setdefault(path, []).append(index)
            bad = comma_artifacts(cell["texts"])
            if bad:
                found.setdefault(path, []).extend(text[:80] for text in bad)
            # a line of the stored text itself never starts with a comma (the check is fair)
            assert not comma_artifacts(shown_as_text(outputs)), (path, index)
    print(
        f"\nlite: {shown_total} multi-line stored text outputs shown ({stored_total} stored), "
        f"{sum(map(len, found.values()))} with commas; not shown as text: {unseen}"
    )
    assert found == {}, found
    assert unseen == {}  # every one was rendered and checked


def test_every_stored_picture_is_visible_on_open(opened: dict[str, dict]) -> None:
    missing = {}
    total = 0
    for path, shown_cells in opened.items():
        stored = stored_notebook(path)["cells"]
        for index, cell in enumerate(stored):
            pictures = [
                o for o in cell.get("outputs", []) if set(PICTURES) & set(o.get("data", {}))
            ]
            total += len(pictures)
            if pictures and len(pictures) > shown_cells[index]["pictures"]:
                missing.setdefault(path, []).append(index)
    shown = total - sum(len(cells) for cells in missing.values())
    print(f"\nlite: {shown} of {total} stored pictures visible on open")
    assert missing == {}, f"stored pictures not visible (notebook: cell indexes): {missing}"


def test_every_stored_picture_shown_on_open_has_its_words(opened: dict[str, dict]) -> None:
    """WCAG 1.1.1 in the untrusted notebook: each picture drawn on open has an accessible name;
    a viz picture or plot shows as the <img> of its text/html (JupyterLite's SVG and PNG
    renderers give no alt; its sanitizer keeps the img's data: URL and alt)."""
    unnamed, total = {}, 0
    for path, shown_cells in opened.items():
        for index, cell in enumerate(shown_cells):
            names = cell["names"] if cell else []
            total += len(names)
            if [n for n in names if not n["name"]]:
                unnamed.setdefault(path, []).append((index, names))
    print(f"\nlite: {total} pictures shown on open, {len(unnamed)} notebooks with unnamed ones")
    assert total > 0 and unnamed == {}, f"pictures without a name: {unnamed}"


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_the_imports_cell_asks_for_numpy_and_minigrad(
    lite_page: Any, requests: Requests, path: str, capsys: Any
) -> None:
    mark = requests.mark()
    lite_page.evaluate("path => labTest.openNotebook(path)", path)
    started = time.monotonic()
    stage = lite_page.evaluate(
        "([path, ms]) => labTest.waitFor('kernelStage', path, 'ready', ms)",
        [path, KERNEL_TIMEOUT_MS],
    )
    seconds = time.monotonic() - started
    assert stage == "ready", f"the kernel did not start: {stage}"
    with capsys.disabled():
        print(f"\nlite: {path}: the kernel started in {seconds:.1f} s", end="")
    try:
        cells = lite_page.evaluate(CELLS_JS, path)
        ids = [cell_id for cell_id, _, _ in cells]
        setup_index = ids.index("colab-setup")
        setup = run_cell(lite_page, path, setup_index)  # does nothing outside Colab
        assert setup["executionCount"] is not None and setup["outputs"] == []
        # the imports cell: the next code cell (import numpy as np, import minigrad, ...)
        index = next(i for i in range(setup_index + 1, len(cells)) if cells[i][1] == "code")
        source = cells[index][2]
        assert "import minigrad" in source or "from minigrad" in source, source
        imports = run_cell(lite_page, path, index)
        asked = requests.since(mark)  # from the notebook's opening (the kernel starts loading)
        assert any(urlparse(u).hostname in LOCAL_HOSTS and "/minigrad-" in u for u in asked)
        assert any("/numpy-" in u and urlparse(u).hostname not in LOCAL_HOSTS for u in asked)
        errors = [out for out in imports["outputs"] if out["output_type"] == "error"]
        assert len(errors) == 1, imports["outputs"]
        shown = "\n".join(errors[0]["traceback"])
        # numpy's message, or matplotlib's where the cell imports it first (06)
        first = shown.split(" could not be loaded: this browser could not download", 1)
        assert len(first) == 2 and first[0] in ("numpy", "matplotlib"), shown
        assert "Traceback" not in shown and 'File "' not in shown and len(shown.splitlines()) <= 8
    finally:
        shut_down(lite_page, path)


def test_nothing_comes_from_outside_but_the_pinned_wheels(lite_page: Any, requests: Requests):
    lock = json.loads((SITE / "static" / "pyodide" / "pyodide-lock.json").read_text("utf-8"))
    pinned = {entry["file_name"] for entry in lock["packages"].values()}
    unexpected = [url for url in requests.outside if url not in pinned]
    assert unexpected == [], f"the site asked other hosts for: {unexpected}"


def test_the_site_says_what_it_fetches_at_run_time() -> None:
    lock = json.loads((SITE / "static" / "pyodide" / "pyodide-lock.json").read_text("utf-8"))
    about = (SITE / "files" / "about_this_site.md").read_text(encoding="utf-8")
    for name, entry in lock["packages"].items():
        if "://" in entry["file_name"]:
            assert f"| {name} | {entry['version']} | `{entry['sha256']}` |" in about


@pytest.mark.skipif(
    os.environ.get("LITE_RUN_ALL") != "1",
    reason="Run All needs Pyodide's numpy, which this machine cannot fetch (the Pages "
    "workflow runs it: LITE_RUN_ALL=1 with a site built --with-pyodide-wheels)",
)
@pytest.mark.parametrize("path", NOTEBOOKS)
def test_run_all_with_the_real_numpy(lite_page: Any, path: str) -> None:
    lite_page.evaluate("path => labTest.openNotebook(path)", path)
    stage = lite_page.evaluate(
        "([path, ms]) => labTest.waitFor('kernelStage', path, 'ready', ms)",
        [path, KERNEL_TIMEOUT_MS],
    )
    assert stage == "ready", stage
    try:
        result = lite_page.evaluate(
            "([path, ms]) => labTest.runAll(path, ms)", [path, RUN_ALL_TIMEOUT_MS]
        )
        assert result["outcome"] == "done" and result["notRun"] == [], result
        stored = stored_notebook(path)["cells"]
        for index, cell in enumerate(lite_page.evaluate("path => labTest.cells(path)", path)):
            tags = stored[index].get("metadata", {}).get("tags", [])
            if cell["errors"] and "raises-exception" not in tags:
                pytest.fail(f"{path}, cell {index}: {cell['errors']}")
            outputs = stored[index].get("outputs", [])
            if any("image/svg+xml" in output.get("data", {}) for output in outputs):
                assert cell["svgRendered"], f"{path}, cell {index}: no picture drawn"
    finally:
        shut_down(lite_page, path)


def run_cell(page: Any, path: str, index: int) -> dict:
    return page.evaluate(RUN_CELL_JS, {"path": path, "index": index, "timeoutMs": CELL_TIMEOUT_MS})
