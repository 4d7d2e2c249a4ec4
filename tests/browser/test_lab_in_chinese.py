"""`make lab-zh`: the Chinese edition in JupyterLab's Chinese interface, page language zh-CN.

Under `make lab` JupyterLab's page says `lang="en"` (the language of its interface), so a screen
reader reads a Chinese notebook there in an English voice (WCAG 3.1.1 / 3.1.2). `make lab-zh`
starts JupyterLab with its Chinese language pack chosen; JupyterLab then gives its page the
interface's language. This test runs `make lab-zh` itself, as a learner does (its own settings,
config, data and runtime folders in a temporary directory, a free port), opens a Chinese
notebook in headless Chromium, and checks what a screen reader is told: the page's language,
the interface in Chinese, and axe-core's language rules; and runs `make lab` the same way, to
see its page say English (what README.md says of it).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, VIEWPORT

AXE = REPO / "vendor" / "node_modules" / "axe-core" / "axe.min.js"
START_TIMEOUT = 120.0
NOTEBOOK = "zh/02_detach.ipynb"
URL = re.compile(r"(http://127\.0\.0\.1:\d+)/lab(?:/tree/zh)?\?token=([0-9a-f]+)")
LANGUAGE_RULES = ["html-has-lang", "html-lang-valid", "valid-lang", "html-xml-lang-mismatch"]
RUN_RULES = """async (rules) => {
  const result = await axe.run(document, {runOnly: {type: "rule", values: rules}});
  return result.violations.map(v => v.id + ": " + v.nodes.length);
}"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running(target: str, base: Path, *settings: str) -> Iterator[tuple[str, str]]:
    """`make <target>` running, as a learner starts it, with its config, data and runtime
    folders under `base`: (its address, its token)."""
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(base / "lab-settings")}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        env[name] = str(base / name.lower())
    log = base / f"make-{target}.log"
    command = ["make", target, f"PORT={_free_port()}", *settings]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        found = None
        while found is None and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.5)
            found = URL.search(log.read_text(errors="replace"))
        printed = log.read_text(errors="replace")[-3000:]
        assert found, f"make {target} printed no address:\n{printed}"
        yield found.group(1), found.group(2)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)  # make and JupyterLab, which stops its kernels
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def lab_zh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`make lab-zh` running: (its address, its token)."""
    base = tmp_path_factory.mktemp("lab_zh")
    with running("lab-zh", base, f"ZH_SETTINGS={base / 'settings'}") as found:
        yield found


def opened_language(address: str, token: str, browser: Any) -> tuple[str, str, Any]:
    """Open the Chinese notebook: (the page's lang, the first menu's label, the page)."""
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{address}/lab/tree/{NOTEBOOK}?reset&token={token}")
    page.wait_for_selector(".jp-NotebookPanel .jp-MarkdownCell h1")
    menu = page.locator(".lm-MenuBar-itemLabel").first.text_content() or ""
    return page.evaluate("document.documentElement.lang"), menu, page


def test_make_lab_gives_the_page_the_english_language(
    tmp_path: Path, chromium_browser: Any
) -> None:
    # what README.md says of `make lab`: its page is English, whatever the notebook's language
    with running("lab", tmp_path) as (address, token):
        language, menu, page = opened_language(address, token, chromium_browser)
        page.context.close()
    assert (language, menu) == ("en", "File")


def test_lab_zh_gives_the_page_the_chinese_language(
    lab_zh: tuple[str, str], chromium_browser: Any
) -> None:
    language, menu, page = opened_language(*lab_zh, chromium_browser)
    try:
        assert language == "zh-CN"
        # the interface is Chinese: the menu bar's first menu is 文件 (File)
        assert menu == "文件"
        heading = page.locator(".jp-NotebookPanel .jp-MarkdownCell h1").first.text_content()
        assert re.search(r"[\u4e00-\u9fff]", heading or ""), heading
        if not Path(AXE).exists():
            pytest.fail("axe-core is missing: run `bash scripts/setup_classroom.sh`", pytrace=False)
        page.add_script_tag(path=str(AXE))
        assert page.evaluate(RUN_RULES, LANGUAGE_RULES) == []
    finally:
        page.context.close()
