"""Fixtures for the browser tests: one JupyterLab server and one headless Chromium per session.

The server runs on 127.0.0.1 with a random token and private config, data, runtime, settings and
workspace folders, serving a temporary COPY of the notebooks so that running them never touches
the repository. Chromium is Debian's binary on PATH, driven through Python Playwright; browsers
cannot be downloaded here, so `playwright install` is never used.

Environment:
  COURSE_NOTEBOOKS  test this folder of notebooks instead of notebooks/
  LAB_RUN_TIMEOUT   seconds allowed for Run All of one notebook (default 60)
  LAB_FRESH_PAGE=1  load a fresh JupyterLab page for every notebook (slower; see NotebookPages)
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SETTINGS_SOURCE = HERE / "jupyter_settings"
HELPERS_JS = HERE / "lab_helpers.js"
VIEWPORT = {"width": 1280, "height": 900}
SCREENSHOT_DIR = REPO / "build" / "screenshots"

SERVER_START_TIMEOUT = 60.0
SERVER_STOP_TIMEOUT = 15.0
API_TIMEOUT = 10.0

# Flags that keep Chromium quiet on a closed network (no updates, sync or background requests).
# Playwright adds --headless itself when launched with headless=True.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]

SETUP_HINT = "run `bash scripts/setup_browser.sh` (or `make test-browser`) first"


def notebook_root() -> Path:
    """The folder whose notebooks are tested: $COURSE_NOTEBOOKS, else the repo's notebooks/."""
    override = os.environ.get("COURSE_NOTEBOOKS")
    return Path(override).resolve() if override else REPO / "notebooks"


def discover_notebooks(root: Path) -> list[str]:
    """Every .ipynb under root (recursively, checkpoints excluded), as sorted POSIX paths."""
    if not root.is_dir():
        return []
    found = [
        p.relative_to(root).as_posix()
        for p in root.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.relative_to(root).parts
    ]
    return sorted(found)


def _free_port() -> int:
    # The port could be taken between here and the server's bind; the caller retries then.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(pid: int) -> list[int]:
    """Process ids below pid (children, grandchildren, ...), read from /proc on Linux."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        # The command name sits in parentheses and may itself contain spaces or parentheses.
        fields = text[text.rfind(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@dataclass
class LabServer:
    """A running JupyterLab server, and how to reach its REST API."""

    url: str
    token: str
    root: Path
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    # Shutting a kernel down takes a second or more; tests hand that to a background thread.
    _deleter: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1), repr=False)
    _pending: list[Future[None]] = field(default_factory=list, repr=False)

    def api(self, method: str, path: str) -> Any:
        """Call the server's REST API; returns the decoded JSON body (None when empty)."""
        request = urllib.request.Request(
            f"{self.url}{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=API_TIMEOUT) as response:
            body = response.read()
        return json.loads(body) if body else None

    def page_url(self, notebook: str) -> str:
        """URL that opens one notebook in a fresh workspace (`?reset`) with the token."""
        quoted = urllib.request.pathname2url(notebook)
        return f"{self.url}/lab/tree/{quoted}?reset&token={self.token}"

    def delete_sessions(self, notebook: str | None = None) -> None:
        """Shut down the kernel sessions of one notebook (or of all notebooks)."""
        for session in self.api("GET", "/api/sessions"):
            if notebook is None or session.get("path") == notebook:
                try:
                    self.api("DELETE", f"/api/sessions/{session['id']}")
                except urllib.error.HTTPError as err:
                    if err.code != 404:  # already gone is fine
                        raise

    def start_session(self, notebook: str) -> None:
        """Start a kernel session for a notebook, with the kernel its metadata names."""
        metadata = json.loads((self.root / notebook).read_text(encoding="utf-8"))["metadata"]
        kernel = metadata.get("kernelspec", {}).get("name", "python3")
        body = {"path": notebook, "name": notebook, "type": "notebook", "kernel": {"name": kernel}}
        request = urllib.request.Request(
            f"{self.url}/api/sessions",
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        # Returns once the kernel process is launched, not when it is ready.
        with urllib.request.urlopen(request, timeout=API_TIMEOUT):
            pass

    def delete_sessions_soon(self, notebook: str) -> None:
        """Shut one notebook's sessions down in the background (see finish_deletions)."""
        self._pending.append(self._deleter.submit(self.delete_sessions, notebook))

    def finish_deletions(self) -> list[str]:
        """Wait for the background deletions; returns the errors they met."""
        errors = []
        for future in self._pending:
            try:
                future.result(timeout=API_TIMEOUT * 2)
            except Exception as err:  # reported by the caller; the server stops anyway
                errors.append(repr(err))
        self._pending.clear()
        self._deleter.shutdown(wait=False, cancel_futures=True)
        return errors

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the server's log, for failure messages."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no server log)"
        return "\n".join(text.splitlines()[-lines:])


def _start_server(base: Path, root: Path) -> LabServer:
    """Start `jupyter lab` on a free port and wait until its API answers."""
    dirs = {
        "JUPYTER_CONFIG_DIR": base / "config",
        "JUPYTER_DATA_DIR": base / "data",
        "JUPYTER_RUNTIME_DIR": base / "runtime",
        "JUPYTERLAB_WORKSPACES_DIR": base / "workspaces",
        "JUPYTERLAB_SETTINGS_DIR": base / "settings",
        "IPYTHONDIR": base / "ipython",
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    shutil.copytree(SETTINGS_SOURCE, dirs["JUPYTERLAB_SETTINGS_DIR"], dirs_exist_ok=True)
    # No news feed at all (null cannot be given on the command line); the settings also say so.
    server_config = {"LabApp": {"news_url": None}}
    config_file = dirs["JUPYTER_CONFIG_DIR"] / "jupyter_server_config.json"
    config_file.write_text(json.dumps(server_config))
    env = {**os.environ, **{name: str(path) for name, path in dirs.items()}}
    # Kernels come from the virtualenv that runs the tests, not from ~/.local.
    env["JUPYTER_PREFER_ENV_PATH"] = "1"
    env["PYTHONHASHSEED"] = "0"
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    # What `make lab` does first (`make trust`): sign the notebooks, in this server's own data
    # folder, so that JupyterLab shows their stored pictures before any cell runs.
    notebooks = [str(root / nb) for nb in discover_notebooks(root)]
    if notebooks:
        subprocess.run(
            [sys.executable, "-m", "jupyter", "trust", *notebooks],
            env=env,
            check=True,
            capture_output=True,
            timeout=SERVER_START_TIMEOUT,
        )

    token = secrets.token_hex(24)
    last_error = ""
    for attempt in range(3):
        port = _free_port()
        log_path = base / f"server-{attempt}.log"
        command = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.terminals_enabled=False",
            "--LabApp.expose_app_in_browser=True",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")
        with open(log_path, "wb") as log:
            # A session of its own, so stopping it can reach every process it started.
            process = subprocess.Popen(
                command,
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        server = LabServer(f"http://127.0.0.1:{port}", token, root, log_path, process)
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline and process.poll() is None:
            try:
                server.api("GET", "/api/status")
                return server
            except (OSError, ValueError):
                time.sleep(0.25)
        last_error = server.log_tail()
        _stop_server(server)
    raise RuntimeError(f"JupyterLab did not start in {SERVER_START_TIMEOUT:.0f} s:\n{last_error}")


def _stop_server(server: LabServer) -> None:
    """Stop kernels and server: ask politely, then kill whatever is left."""
    process = server.process
    server.finish_deletions()
    if process.poll() is None:
        try:
            server.delete_sessions()
        except (OSError, ValueError):
            pass  # the server is unwell; the signals below still stop it
    left_behind = _descendants(process.pid)
    if process.poll() is None:
        process.terminate()  # Jupyter shuts its kernels down on SIGTERM
        try:
            process.wait(timeout=SERVER_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=SERVER_STOP_TIMEOUT)
    # Kernels run in sessions of their own, so the server's process group does not cover them.
    for pid in left_behind:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """One JupyterLab server for the whole session, serving a copy of the notebooks."""
    base = tmp_path_factory.mktemp("jupyterlab")
    root = base / "notebooks"
    shutil.copytree(
        notebook_root(), root, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    )
    server = _start_server(base, root)
    try:
        yield server
    finally:
        _stop_server(server)


@pytest.fixture(scope="session")
def chromium_browser() -> Iterator[Any]:
    """Debian's headless Chromium, launched through Playwright (a playwright Browser)."""
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail(f"Debian's `chromium` is not on PATH; {SETUP_HINT}", pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as err:
        missing = f"the Python package playwright cannot be imported ({err}); {SETUP_HINT}"
    else:
        missing = None
    if missing:
        pytest.fail(missing, pytrace=False)

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS, timeout=60_000
        )
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


@pytest.fixture(scope="session")
def lab_context(chromium_browser: Any) -> Iterator[Any]:
    """One browser context for all notebooks, with the `labTest` helpers in every page.

    Shared so that JupyterLab's scripts are fetched and compiled once, not once per notebook;
    each notebook still gets a page of its own and a fresh workspace (`?reset`).
    """
    context = chromium_browser.new_context(viewport=VIEWPORT)
    context.add_init_script(path=str(HELPERS_JS))
    try:
        yield context
    finally:
        context.close()


class NotebookPages:
    """Gives each test a JupyterLab page showing its notebook, and starts the next kernel early.

    The first notebook is opened by loading /lab/tree/<path>?reset&token=... in a new page.
    Later notebooks open in that same JupyterLab, the way a learner opens them from the file
    browser: starting JupyterLab costs 5-10 s of CPU per page load on this 2-core machine
    (measured), which alone would break the time budget. A notebook's panel is closed when its
    test ends; after a failure the whole page is dropped, so the next notebook gets a fresh
    JupyterLab. Set LAB_FRESH_PAGE=1 to load a fresh page for every notebook.
    """

    def __init__(self, context: Any, server: LabServer, order: list[str]) -> None:
        self._context = context
        self._server = server
        self._order = order
        self._page: Any = None
        self.fresh_each_time = os.environ.get("LAB_FRESH_PAGE", "0") == "1"

    def open(self, notebook: str) -> tuple[Any, str]:
        """A page showing the notebook, and how it was opened ("page load" or "in lab")."""
        if self._page is not None and not self._page.is_closed():
            self._page.set_viewport_size(VIEWPORT)  # the last screenshot made it tall
            self._page.evaluate("path => labTest.openNotebook(path)", notebook)
            return self._page, "in lab"
        self._page = self._context.new_page()
        self._page.set_default_timeout(30_000)
        self._page.goto(self._server.page_url(notebook), wait_until="domcontentloaded")
        return self._page, "page load"

    def release(self, notebook: str, failed: bool) -> None:
        """Close the notebook's panel, or the whole page after a failure (or if asked to)."""
        page = self._page
        if page is None or page.is_closed():
            return
        if failed or self.fresh_each_time:
            self.close_all()
            return
        try:
            page.evaluate("path => labTest.closeNotebook(path)", notebook)
        except Exception:  # a page that cannot even close a panel is not worth keeping
            self.close_all()

    def start_next_kernel(self, notebook: str) -> None:
        """Start the kernel of the notebook tested after `notebook`, so it is up on arrival.

        JupyterLab connects to an existing session for a notebook's path instead of starting a
        kernel, so this only moves the kernel start off the critical path.
        """
        position = self._order.index(notebook) if notebook in self._order else -1
        if 0 <= position < len(self._order) - 1:
            try:
                self._server.start_session(self._order[position + 1])
            except (OSError, ValueError):
                pass  # JupyterLab will try again, and that notebook's test reports what fails

    def close_all(self) -> None:
        """Close the page (kernel sessions are deleted separately)."""
        if self._page is not None and not self._page.is_closed():
            self._page.close()
        self._page = None


_ORDER_KEY = pytest.StashKey[list[str]]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Remember which notebooks this session runs, in order, for NotebookPages.start_next_kernel."""
    order = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and isinstance(callspec.params.get("notebook"), str):
            order.append(callspec.params["notebook"])
    config.stash[_ORDER_KEY] = order


@pytest.fixture(scope="session")
def notebook_pages(
    request: pytest.FixtureRequest, lab_context: Any, lab_server: LabServer
) -> Iterator[NotebookPages]:
    """The session's NotebookPages (the browser comes first: without it, fail before the server)."""
    pages = NotebookPages(lab_context, lab_server, request.config.stash.get(_ORDER_KEY, []))
    try:
        yield pages
    finally:
        pages.close_all()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """build/screenshots/, emptied once per session so stale pictures do not linger."""
    if SCREENSHOT_DIR.exists():
        for old in SCREENSHOT_DIR.glob("*.png"):
            old.unlink()
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    return SCREENSHOT_DIR


_TIMINGS_KEY = pytest.StashKey[dict[str, dict[str, float]]]()


@pytest.fixture(scope="session")
def notebook_timings(request: pytest.FixtureRequest) -> dict[str, dict[str, float]]:
    """Seconds each notebook spent in each phase (load, kernel, run, ...), reported at the end."""
    return request.config.stash.setdefault(_TIMINGS_KEY, {})


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Print the per-notebook times collected by the `notebook_timings` fixture."""
    timings = config.stash.get(_TIMINGS_KEY, {})
    if not timings:
        return
    terminalreporter.section("time per notebook in JupyterLab")
    for notebook, phases in timings.items():
        detail = ", ".join(f"{name} {seconds:.1f}" for name, seconds in phases.items())
        terminalreporter.write_line(f"{sum(phases.values()):6.1f} s  {notebook}  ({detail})")
    total = sum(sum(phases.values()) for phases in timings.values())
    terminalreporter.write_line(f"{total:6.1f} s  total for {len(timings)} notebook(s)")
