"""The classroom edition in a real browser: one slide deck and the course website.

Both are built for this test from a temporary copy of the notebooks with fresh slide metadata
(scripts.slides_metadata), then served by a local http.server on 127.0.0.1 and opened in
Debian's headless Chromium (the `chromium_browser` fixture of conftest.py). Every request the
pages make must stay on that server: the slides and the site are meant to work offline.
Screenshots go to build/screenshots/classroom_*.png.

Environment:
  CLASSROOM_DECK  the notebook whose deck is opened (default 02_detach)
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
DECK = os.environ.get("CLASSROOM_DECK", "02_detach")
VENDOR = REPO / "vendor" / "node_modules"
BUILD_TIMEOUT = 300


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass


@pytest.fixture(scope="module")
def classroom_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Build the deck and the site, serve them on 127.0.0.1; yields the base URL."""
    if not (VENDOR / "reveal.js").exists():
        pytest.fail(
            "vendor/node_modules is missing: run `bash scripts/setup_classroom.sh`", pytrace=False
        )
    base = tmp_path_factory.mktemp("classroom_browser")
    notebooks = base / "notebooks"
    shutil.copytree(REPO / "notebooks", notebooks, ignore=shutil.ignore_patterns(".ipynb_*"))
    steps = [
        ["-m", "scripts.slides_metadata", str(notebooks)],
        [
            "-m",
            "scripts.build_slides",
            "--out",
            str(base / "slides"),
            "--notebooks",
            str(notebooks),
            str(notebooks / f"{DECK}.ipynb"),
        ],
        [
            "-m",
            "scripts.build_site",
            "--out",
            str(base / "www"),
            "--notebooks",
            str(notebooks),
            "--slides",
            str(base / "slides"),
        ],
    ]
    for step in steps:
        done = subprocess.run(
            [sys.executable, *step], cwd=REPO, capture_output=True, text=True, timeout=BUILD_TIMEOUT
        )
        assert done.returncode == 0, f"{step[1]} failed:\n{done.stdout}\n{done.stderr}"
    handler = functools.partial(_QuietHandler, directory=str(base / "www"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def page(chromium_browser: Any, classroom_site: str) -> Iterator[Any]:
    """A fresh page that records every request leaving the local server."""
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.remote_requests = []
    allowed = (classroom_site, "data:", "blob:", "about:")

    def record(request: Any) -> None:
        if not request.url.startswith(allowed):
            page.remote_requests.append(request.url)

    page.on("request", record)
    try:
        yield page
    finally:
        context.close()


def visible_picture(page: Any, selector: str) -> dict[str, Any] | None:
    """Size and alt text of the first loaded, on-screen picture matching selector."""
    return page.evaluate(
        """selector => {
            for (const img of document.querySelectorAll(selector)) {
                const box = img.getBoundingClientRect();
                const onScreen = box.width > 50 && box.height > 50 && box.bottom > 0
                    && box.top < window.innerHeight
                    && getComputedStyle(img).visibility !== "hidden";
                if (img.complete && img.naturalWidth > 0 && onScreen) {
                    return {width: box.width, height: box.height, alt: img.alt};
                }
            }
            return null;
        }""",
        selector,
    )


def test_slides_advance_and_show_a_graph(
    page: Any, classroom_site: str, screenshot_dir: Path
) -> None:
    page.goto(f"{classroom_site}/slides/{DECK}.slides.html")
    page.wait_for_function("() => window.courseReveal && window.courseReveal.isReady()")
    total = page.evaluate("() => courseReveal.getTotalSlides()")
    assert total >= 8
    start = page.evaluate("() => courseReveal.getIndices()")
    picture = None
    positions = []
    for _ in range(12):  # space walks fragments, sub-slides and slides in reading order
        page.keyboard.press("Space")
        page.wait_for_timeout(700)  # the slide transition
        positions.append(page.evaluate("() => courseReveal.getIndices()"))
        picture = visible_picture(page, ".reveal .slides section.present img")
        if picture is not None and len(positions) >= 3:
            break
    page.screenshot(path=str(screenshot_dir / "classroom_slides.png"))
    assert positions[-1] != start, "the deck did not advance"
    assert picture is not None, f"no graph picture visible after {len(positions)} key presses"
    assert picture["alt"].startswith("Autograd graph"), picture["alt"]
    assert page.evaluate("() => typeof MathJax === 'object'"), "MathJax did not load"
    assert page.remote_requests == []


def test_site_index_lists_the_lessons(page: Any, classroom_site: str, screenshot_dir: Path) -> None:
    page.goto(f"{classroom_site}/index.html")
    page.wait_for_load_state("load")
    lessons = page.locator("article a[href^='notebooks/']")
    assert lessons.count() >= len(list((REPO / "notebooks").glob("*.ipynb")))
    assert page.locator("a[href*='mybinder.org'] img[alt]").count() >= 1
    page.screenshot(path=str(screenshot_dir / "classroom_site_index.png"))
    assert page.remote_requests == []


def test_site_lesson_shows_its_pictures_and_math(
    page: Any, classroom_site: str, screenshot_dir: Path
) -> None:
    page.goto(f"{classroom_site}/notebooks/{DECK}.html")
    page.wait_for_load_state("load")
    first = page.locator("article img[src*='_images/']").first
    first.scroll_into_view_if_needed()
    picture = visible_picture(page, "article img[src*='_images/']")
    assert picture is not None, "no graph picture visible on the lesson page"
    assert picture["alt"].startswith("Autograd graph")
    page.wait_for_function("() => document.querySelectorAll('mjx-container').length > 0")
    page.screenshot(path=str(screenshot_dir / "classroom_site_lesson.png"))
    assert page.remote_requests == []
