"""The classroom edition in a real browser: every deck on a 1280x720 projector, the website's
links and pictures, and notebooks that open in JupyterLab with their pictures shown.

The decks and the site are built for this test from the repository's notebooks (`make slides`
and `make site` as they are: the decks run every notebook again with the projector theme,
cached in build/slides-cache/), then served by a local http.server on 127.0.0.1 and opened in
Debian's headless Chromium (the `chromium_browser` fixture of conftest.py). Every request the
pages make must stay on that server: the slides and the site are meant to work offline.
Screenshots go to build/screenshots/classroom_*.png; the measurements of every slide to
build/screenshots/classroom_decks.json.

Environment:
  CLASSROOM_DECK  the deck of the step-through and print tests (default 02_detach)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from classroom_decks import (
    PROBE_JS,
    PROJECTOR,
    crawl,
    decks_in,
    measure_deck,
    serve,
)
from conftest import LabServer

REPO = Path(__file__).resolve().parent.parent.parent
DECK = os.environ.get("CLASSROOM_DECK", "02_detach")
VENDOR = REPO / "vendor" / "node_modules"
BUILD_TIMEOUT = 900
SMALLEST_SITE_LABEL_PX = 11.5  # graph labels on a lesson page, at the picture's own size


@pytest.fixture(scope="module")
def classroom_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Build every deck and the site, serve the site (decks under slides/); yields the base
    URL and the folder."""
    if not (VENDOR / "reveal.js").exists():
        pytest.fail(
            "vendor/node_modules is missing: run `bash scripts/setup_classroom.sh`", pytrace=False
        )
    base = tmp_path_factory.mktemp("classroom_browser")
    steps = [
        ["-m", "scripts.build_slides", "--out", str(base / "slides")],
        ["-m", "scripts.build_site", "--out", str(base / "www"), "--slides", str(base / "slides")],
    ]
    env = {**os.environ, "COURSE_REPOSITORY": "example-org/cutting-the-graph"}
    for step in steps:
        done = subprocess.run(
            [sys.executable, *step],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
            env=env,
        )
        assert done.returncode == 0, f"{step[1]} failed:\n{done.stdout}\n{done.stderr}"
    with serve(base / "www") as url:
        yield url, base / "www"


@pytest.fixture
def page(chromium_browser: Any, classroom_site: tuple[str, Path]) -> Iterator[Any]:
    """A fresh 1280x720 page that records every request leaving the local server."""
    url, _ = classroom_site
    context = chromium_browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.remote_requests = []
    allowed = (url, "data:", "blob:", "about:")

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
                    return {width: box.width, height: box.height, alt: img.alt,
                            natural: img.naturalWidth};
                }
            }
            return null;
        }""",
        selector,
    )


# ---- the decks ---------------------------------------------------------------------------------


def test_every_deck_fits_a_720p_projector(
    chromium_browser: Any, classroom_site: tuple[str, Path], screenshot_dir: Path
) -> None:
    """Every deck of both languages at 1280x720, every slide with all its fragments: no slide taller
    than the screen, no picture cut off, no code line clipped, no text under 24 px, no request off
    the server; every picture whole on some slide with labels >= 18 px (a stepper's frame whole
    under its step; none needs the builder's fallback for a picture no layout fits,
    data-course-unfit, whole and then part by part); no blank, sliver or repeated slide, none ending
    "in the notes"; every slide whose notes ask the room to predict shows no output before a key
    press; the Chinese pictures drawn in the bundled CJK font with a glyph for every character;
    notes on every slide."""
    url, www = classroom_site
    folder = www / "slides"
    decks = decks_in(folder)
    assert len(decks) >= 20, decks
    context = chromium_browser.new_context(viewport=PROJECTOR, device_scale_factor=1)
    try:
        reports = [measure_deck(context, f"{url}/slides", deck) for deck in decks]
    finally:
        context.close()
    (screenshot_dir / "classroom_decks.json").write_text(
        json.dumps([r.__dict__ for r in reports], indent=1, ensure_ascii=False), encoding="utf-8"
    )
    for report in reports:
        print(report.line())
    problems = [p for r in reports for p in r.problems()]
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:60])
    for report in reports:
        want = "zh-CN" if report.deck.startswith("zh/") else "en"
        assert report.lang == want, report.deck
    slides = sum(len(r.slides) for r in reports)
    noted = sum(r.with_notes for r in reports)
    assert noted == slides, f"notes on {noted} of {slides} slides"
    pictures = sum(len(r.pictures()) for r in reports)
    unfit = [line for r in reports for line in r.unfit()]
    print(f"{pictures} pictures, {len(unfit)} whole only with labels under 18 px, each because:")
    print("\n".join(unfit))
    # none: a long graph is drawn in columns for a slide (minigrad/viz/slide_fit.py, fold)
    assert unfit == [], f"{len(unfit)} pictures under 18 px labels:\n" + "\n".join(unfit)
    for report in reports:
        if report.deck.startswith("zh/") and report.pictures():
            assert report.glyphs["chars"] > 0, report.deck


def test_the_chinese_pictures_characters_are_in_the_bundled_font(
    classroom_site: tuple[str, Path],
) -> None:
    """Every Chinese character drawn in a zh deck's pictures lies in a unicode-range of the
    bundled Noto Sans SC (the slices the deck's font style sheet names and _static holds); the
    browser check above draws each one. This machine has no system CJK font (fc-list), so a
    missing glyph would show there as an empty box."""
    _, www = classroom_site
    static = www / "slides" / "_static" / "fonts" / "noto-sans-sc"
    css = (static / "400.css").read_text(encoding="utf-8")
    ranges = []
    for face in re.findall(r"@font-face\s*{(.*?)}", css, re.DOTALL):
        name = re.search(r"url\(\./files/([^)]+\.woff2)\)", face)
        assert name and (static / "files" / name.group(1)).exists(), face[:80]
        spans = re.search(r"unicode-range:([^;]+);", face)
        for span in spans.group(1).split(",") if spans else []:
            low, _, high = span.strip().removeprefix("U+").partition("-")
            ranges.append((int(low, 16), int(high or low, 16)))
    used = set()
    for deck in (www / "slides" / "zh").glob("*.slides.html"):
        page = deck.read_text(encoding="utf-8")
        for svg in re.findall(r"<svg\b.*?</svg>", page, re.DOTALL):
            for text in re.findall(r"<text\b[^>]*>([^<]*)</text>", svg):
                used |= {c for c in text if "\u2e80" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef"}
    assert len(used) > 50, sorted(used)
    missing = sorted(c for c in used if not any(lo <= ord(c) <= hi for lo, hi in ranges))
    assert missing == [], f"not in the bundled font: {''.join(missing)}"
    system = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    print(f"{len(used)} characters; system CJK fonts: {system.strip() or 'none'}")


def test_the_guides_slide_counts_and_minutes_are_the_decks(
    classroom_site: tuple[str, Path],
) -> None:
    """The slide counts in the guides' slide maps are those of the decks as built (fix:
    `python -m scripts.build_slides --guide --out <the decks>`), and every title slide gives
    the guide's minutes for its deck."""
    from scripts import build_slides

    _, www = classroom_site
    maps = build_slides.built_maps(www / "slides")
    for guide in build_slides.GUIDES.values():
        text = guide.read_text(encoding="utf-8")
        assert build_slides.guide_with_maps(text, maps) == text, f"{guide}: stale slide counts"
    for deck in (www / "slides").rglob("*.slides.html"):
        language = build_slides.deck_language(deck.relative_to(www / "slides"))
        minutes = build_slides.planned_minutes(deck.name.removesuffix(".slides.html"), language)
        first = re.search(r"<section\b.*?</section>", deck.read_text(encoding="utf-8"), re.DOTALL)
        said = re.search(r"(?:Time: about|用时：约) (\d+)", first.group(0))
        if minutes and said:
            assert int(said.group(1)) == minutes, deck.name


def test_a_deck_steps_through_and_shows_a_graph(
    page: Any, classroom_site: tuple[str, Path], screenshot_dir: Path
) -> None:
    url, _ = classroom_site
    page.goto(f"{url}/slides/{DECK}.slides.html")
    page.wait_for_function("() => window.courseReveal && window.courseReveal.isReady()")
    start = page.evaluate("() => courseReveal.getIndices()")
    picture = None
    positions = []
    for _ in range(30):  # space walks fragments, sub-slides and slides in reading order
        page.keyboard.press("Space")
        page.wait_for_timeout(400)  # the slide transition
        positions.append(page.evaluate("() => courseReveal.getIndices()"))
        picture = visible_picture(page, ".reveal .slides section.present img")
        if picture is not None and len(positions) >= 3:
            break
    page.screenshot(path=str(screenshot_dir / "classroom_slides.png"))
    assert positions[-1] != start, "the deck did not advance"
    assert picture is not None, f"no graph picture visible after {len(positions)} key presses"
    # the picture's own text alternative (viz writes it from the graph), not a label list
    assert picture["alt"] and not picture["alt"].startswith("Autograd graph"), picture["alt"]
    assert page.evaluate("() => typeof MathJax === 'object'"), "MathJax did not load"
    assert page.remote_requests == []


@pytest.mark.parametrize("deck", [DECK, f"zh/{DECK}"])
def test_a_deck_prints_one_page_per_slide(
    page: Any, classroom_site: tuple[str, Path], deck: str, tmp_path: Path
) -> None:
    """?print-pdf, printed at the slide's size, gives exactly one page per slide."""
    pypdf = pytest.importorskip("pypdf")
    url, _ = classroom_site
    page.goto(f"{url}/slides/{deck}.slides.html?print-pdf")
    page.wait_for_function("() => window.courseReveal && window.courseReveal.isReady()")
    page.wait_for_timeout(1000)  # fonts and MathJax
    total = page.evaluate("() => courseReveal.getTotalSlides()")
    target = tmp_path / "deck.pdf"
    page.pdf(path=str(target), width="1280px", height="720px", print_background=True)
    assert len(pypdf.PdfReader(str(target)).pages) == total
    assert page.remote_requests == []


def test_chinese_decks_and_pages_draw_chinese_with_the_bundled_font(
    page: Any, classroom_site: tuple[str, Path]
) -> None:
    """The Chinese deck and lesson page load Noto Sans SC from the server and use it: no
    empty boxes on a machine without a CJK font (this one has none)."""
    url, _ = classroom_site
    for address in (f"{url}/slides/zh/{DECK}.slides.html", f"{url}/notebooks/zh/{DECK}.html"):
        page.goto(address)
        page.wait_for_load_state("load")
        page.evaluate("() => document.fonts.ready")
        assert page.evaluate("() => document.documentElement.lang") == "zh-CN", address
        used = page.evaluate(
            """async () => {
                await document.fonts.load('26px "Noto Sans SC"', '计算图');
                return document.fonts.check('26px "Noto Sans SC"', '计算图');
            }"""
        )
        assert used, f"{address}: Noto Sans SC did not load"
    assert page.remote_requests == []


# ---- the site --------------------------------------------------------------------------------


def test_the_site_has_no_broken_links(classroom_site: tuple[str, Path]) -> None:
    """Every local link, picture, script and download of every page reachable from the index
    answers (a folder only with an index.html, as on GitHub Pages)."""
    url, _ = classroom_site
    missing = crawl(url)
    assert missing == {}, "\n".join(f"{k} (from {v[:3]})" for k, v in sorted(missing.items()))


def test_site_index_lists_the_lessons(
    page: Any, classroom_site: tuple[str, Path], screenshot_dir: Path
) -> None:
    url, _ = classroom_site
    page.goto(f"{url}/index.html")
    page.wait_for_load_state("load")
    lessons = page.locator("article a[href^='notebooks/']")
    lesson_files = [
        p for p in (REPO / "notebooks").glob("*.ipynb") if not p.stem.endswith("_solutions")
    ]
    assert lessons.count() >= len(lesson_files)
    assert page.locator("a[href*='_solutions']").count() == 0
    assert page.locator("a[href*='mybinder.org/v2/gh/example-org/'] img[alt]").count() >= 1
    page.screenshot(path=str(screenshot_dir / "classroom_site_index.png"))
    assert page.remote_requests == []


def test_site_lesson_shows_readable_pictures_math_and_its_deck(
    page: Any, classroom_site: tuple[str, Path], screenshot_dir: Path
) -> None:
    url, _ = classroom_site
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{url}/notebooks/{DECK}.html")
    page.wait_for_load_state("load")
    first = page.locator("article img[src*='_images/']").first
    first.scroll_into_view_if_needed()
    picture = visible_picture(page, "article img[src*='_images/']")
    assert picture is not None, "no graph picture visible on the lesson page"
    assert picture["alt"] and not picture["alt"].startswith("Autograd graph"), picture["alt"]
    assert abs(picture["width"] - picture["natural"]) < 2, "the picture is shrunk"
    page.add_script_tag(content=PROBE_JS.read_text(encoding="utf-8"))
    smallest = page.evaluate(
        """async () => {
            let smallest = Infinity;
            for (const img of document.querySelectorAll("article img[src$='.svg']")) {
                const facts = deckProbe.svgFacts(await (await fetch(img.src)).text());
                const width = img.getBoundingClientRect().width;
                smallest = Math.min(smallest, facts.smallest * width / facts.width);
            }
            return smallest;
        }"""
    )
    assert SMALLEST_SITE_LABEL_PX <= smallest < 1000, f"labels of {smallest:.1f} px"
    assert page.locator("a.course-zoom").count() >= 3, "pictures do not open full size"
    deck = page.locator(f"a[href='../slides/{DECK}.slides.html']")
    assert deck.count() == 1, "the lesson does not link its deck"
    page.wait_for_function("() => document.querySelectorAll('mjx-container').length > 0")
    page.screenshot(path=str(screenshot_dir / "classroom_site_lesson.png"))
    assert page.remote_requests == []


def test_site_search_finds_a_lesson(page: Any, classroom_site: tuple[str, Path]) -> None:
    url, _ = classroom_site
    page.goto(f"{url}/search.html?q=AccumulateGrad")
    page.wait_for_function(
        "() => document.querySelectorAll('#search-results li').length > 0", timeout=30_000
    )
    assert page.locator("#search-results li a[href*='notebooks/']").count() >= 1
    assert page.remote_requests == []


# ---- JupyterLab: pictures before any cell runs ------------------------------------------------


@pytest.mark.parametrize("notebook", [f"{DECK}.ipynb", f"zh/{DECK}.ipynb"])
def test_notebooks_open_with_their_pictures_shown(
    lab_context: Any, lab_server: LabServer, notebook: str, screenshot_dir: Path
) -> None:
    """Opened in JupyterLab, and before any cell runs, every stored picture is drawn: the
    set-up trusts the course's notebooks (`make lab` runs `make trust`; the test server's
    copies are trusted the same way, see conftest.py)."""
    stored = json.loads((lab_server.root / notebook).read_text(encoding="utf-8"))["cells"]
    wanted = [
        i
        for i, cell in enumerate(stored)
        if any("image/svg+xml" in o.get("data", {}) for o in cell.get("outputs", []))
    ]
    assert wanted, f"{notebook} stores no picture"
    page = lab_context.new_page()
    try:
        page.goto(lab_server.page_url(notebook), wait_until="domcontentloaded")
        page.wait_for_function(
            "path => { const p = labTest.panel(path); return p && p.context.isReady; }",
            arg=notebook,
            timeout=60_000,
        )
        shown: list[int] = []
        for _ in range(100):  # up to ~20 s for the pictures to be decoded
            cells = page.evaluate("path => labTest.cells(path)", notebook)
            shown = [i for i in wanted if cells[i]["svgRendered"]]
            if len(shown) == len(wanted):
                break
            page.wait_for_timeout(200)
        ran = [c["executionCount"] for c in page.evaluate("p => labTest.cells(p)", notebook)]
        page.screenshot(path=str(screenshot_dir / f"classroom_trusted_{Path(notebook).stem}.png"))
        missing = sorted(set(wanted) - set(shown))
        assert missing == [], f"{notebook}: pictures not shown before running, cells {missing}"
        assert ran == [c.get("execution_count") for c in stored], "a cell ran"
    finally:
        page.close()
        lab_server.delete_sessions(notebook)
