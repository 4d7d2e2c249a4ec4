"""WCAG 2.1 AA in a real browser: axe-core on every site page, every slide of every deck (both
languages) and the stepper inside JupyterLab (issue 34).

axe-core comes from npm (vendor/node_modules/axe-core, installed with reveal.js by
scripts/setup_classroom.sh) and is injected from disk: nothing is fetched. It runs with the
tags wcag2a, wcag2aa, wcag21a and wcag21aa; a serious or critical finding fails. Besides axe:
every graph picture has its own text alternative (made by minigrad.viz: an alt that is not the
fallback list of labels, an inline SVG with role="img" and a <title> and <desc>), and no
element outside the current slide can take keyboard focus.

The site and the decks are slow to build, so the test uses a build made before: the folder in
$COURSE_SITE_DIR, else build/site (`make site`, which puts the decks under slides/). Without
one it builds both once into a temporary folder, as test_classroom_in_browser.py does.

Environment:
  COURSE_SITE_DIR   the built site to check (default build/site)
  A11Y_ONLY         only pages and decks whose path contains this (e.g. 02_detach)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from classroom_decks import PROJECTOR, serve
from conftest import HERE, LabServer, NotebookPages

REPO = HERE.parent.parent
AXE = REPO / "vendor" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")
ONLY = os.environ.get("A11Y_ONLY", "")
BUILD_TIMEOUT = 1800
# the alt text course_alt_text.py falls back to when a picture carries no text of its own
FALLBACK_ALTS = ("Autograd graph drawn by minigrad.viz", "minigrad.viz 画出的计算图")

RUN_AXE = """async ([tags, context]) => {
  const result = await axe.run(context || document, {runOnly: {type: "tag", values: tags}});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
  }));
}"""

# focusable elements outside the current slide (and not made inert)
HIDDEN_FOCUSABLE = """() => {
  const current = Reveal.getCurrentSlide();
  const kinds = ["a[href]", "button", "input", "select", "textarea", "summary", "[tabindex]"];
  return [...document.querySelectorAll(kinds.map(k => ".reveal .slides " + k).join(", "))]
    .filter(e => e.getAttribute("tabindex") !== "-1")
    .filter(e => !current.contains(e) && !e.closest("[inert]"))
    .map(e => e.outerHTML.slice(0, 80));
}"""

# pictures on the page (or slide) without their own text alternative
UNNAMED_PICTURES = """([root, fallbacks]) => {
  const scope = root === "slide" ? Reveal.getCurrentSlide() : document;
  const bad = [];
  for (const img of scope.querySelectorAll("img")) {
    const alt = (img.getAttribute("alt") || "").trim();
    if (!alt || fallbacks.some(f => alt.startsWith(f))) bad.push(img.src.slice(0, 60));
  }
  for (const svg of scope.querySelectorAll("svg")) {
    if (!svg.querySelector("g.graph")) continue;  // only Graphviz's pictures
    const title = svg.querySelector(":scope > title");
    const desc = svg.querySelector(":scope > desc");
    if (svg.getAttribute("role") !== "img" || !title || !desc || title.textContent === "%3") {
      bad.push("inline svg: " + (title ? title.textContent : "no title").slice(0, 60));
    }
  }
  return bad;
}"""


def blocking(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in violations if v["impact"] in BLOCKING]


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site (decks under slides/): reused when there, else built once here."""
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `bash scripts/setup_classroom.sh`", pytrace=False)
    folder = Path(os.environ.get("COURSE_SITE_DIR", REPO / "build" / "site"))
    if (folder / "index.html").exists() and (folder / "slides" / "index.html").exists():
        return folder
    base = tmp_path_factory.mktemp("a11y_site")
    steps = [
        ["-m", "scripts.build_slides", "--out", str(base / "slides")],
        ["-m", "scripts.build_site", "--out", str(base / "www"), "--slides", str(base / "slides")],
    ]
    env = {**os.environ, "COURSE_REPOSITORY": "example-org/cutting-the-graph"}
    for step in steps:
        done = subprocess.run(
            [sys.executable, *step], cwd=REPO, capture_output=True, text=True,
            timeout=BUILD_TIMEOUT, env=env,
        )  # fmt: skip
        assert done.returncode == 0, f"{step[1]} failed:\n{done.stdout}\n{done.stderr}"
    return base / "www"


@pytest.fixture(scope="module")
def site_url(built_site: Path) -> Iterator[str]:
    with serve(built_site) as url:
        yield url


@pytest.fixture
def page(chromium_browser: Any) -> Iterator[Any]:
    context = chromium_browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        yield page
    finally:
        context.close()


def site_pages(folder: Path) -> list[str]:
    """Every HTML page of the site (the decks aside: they are checked slide by slide)."""
    skip = ("slides/", "_static/", "_sources/", "_images/", "genindex", "search.html")
    pages = [
        p.relative_to(folder).as_posix()
        for p in sorted(folder.rglob("*.html"))
        if not p.relative_to(folder).as_posix().startswith(skip)
    ]
    return [p for p in pages if ONLY in p and not any(s in p for s in skip)]


def decks(folder: Path) -> list[str]:
    """Every deck of both languages, as paths under the site."""
    slides = folder / "slides"
    found = [p.relative_to(folder).as_posix() for p in sorted(slides.rglob("*.slides.html"))]
    return [p for p in found if ONLY in p and "/_static/" not in p]


def test_every_site_page_passes_axe(page: Any, site_url: str, built_site: Path) -> None:
    pages = site_pages(built_site)
    assert pages, f"no pages in {built_site}"
    problems: dict[str, Any] = {}
    for rel in pages:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        page.add_script_tag(path=str(AXE))
        found = blocking(page.evaluate(RUN_AXE, [TAGS, None]))
        unnamed = page.evaluate(UNNAMED_PICTURES, ["page", list(FALLBACK_ALTS)])
        if found or unnamed:
            problems[rel] = {"axe": found, "pictures without their own text": unnamed}
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)[:6000]


# text in the other language that no element around it marks with its lang (WCAG 3.1.2): on a
# Chinese page English words (two letters or more), on an English page Chinese; code, maths and
# what is not shown are exempt (the rule of scripts/page_language.py)
UNMARKED_LANGUAGE = """(everySlide) => {
  const chinesePage = document.documentElement.lang.startsWith("zh");
  const other = chinesePage ? /[A-Za-z]{2}/ : /[\u3400-\u9fff\uff00-\uffef]/;
  // a deck's slides other than the current one are hidden: every slide is checked at once
  // (reveal's .aria-status repeats the current slide's text for its live region as plain
  // text, code and all: it is read in the deck's language, as the slide's code is)
  const exempt = "code, pre, kbd, samp, var, script, style, svg, math, .math, mjx-container, "
    + "noscript, template, .aria-status" + (everySlide ? "" : ", [hidden], [aria-hidden=true]");
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const parent = node.parentElement;
    if (!text || !other.test(text) || !parent || parent.closest(exempt)) continue;
    if (!everySlide && !parent.checkVisibility()) continue;
    const lang = (parent.closest("[lang]") || document.documentElement).lang;
    if (lang.startsWith("zh") === chinesePage) found.push(text.slice(0, 60));
  }
  return found;
}"""


def test_every_page_and_deck_marks_the_other_language(page: Any, site_url: str, built_site: Path):
    """WCAG 3.1.2 as a screen reader meets it: every shown text in the other language sits in
    an element whose lang says so (the pages as the browser shows them, scripts' text too; a
    deck's slides all at once, with MathJax's formulas typeset)."""
    pages = site_pages(built_site)
    chinese = [rel for rel in pages if rel.startswith(("zh/", "notebooks/zh/"))]
    assert pages and (chinese or ONLY)
    problems = {}
    for rel in pages:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        found = page.evaluate(UNMARKED_LANGUAGE, False)
        if found:
            problems[rel] = found[:8]
    for rel in decks(built_site):
        page.goto(f"{site_url}/{rel}", wait_until="load")
        page.wait_for_function("() => window.courseReveal && courseReveal.isReady()")
        page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
        found = page.evaluate(UNMARKED_LANGUAGE, True)
        if found:
            problems[rel] = found[:8]
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)[:6000]


def test_the_site_reflows_at_320_px(chromium_browser: Any, site_url: str, built_site: Path):
    context = chromium_browser.new_context(viewport={"width": 320, "height": 640})
    page = context.new_page()
    wide = {}
    try:
        for rel in site_pages(built_site):
            page.goto(f"{site_url}/{rel}", wait_until="load")
            # WCAG 1.4.10: no sideways scrolling for text (a wide picture or table may scroll
            # in its own box, which is allowed)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            if width > 320 + 1:
                wide[rel] = width
    finally:
        context.close()
    assert wide == {}


def test_every_slide_of_every_deck_passes_axe(page: Any, site_url: str, built_site: Path):
    found_decks = decks(built_site)
    assert found_decks, f"no decks under {built_site / 'slides'}"
    problems: dict[str, Any] = {}
    for rel in found_decks:
        page.goto(f"{site_url}/{rel}", wait_until="load")
        try:
            page.wait_for_function(
                "() => window.courseReveal && courseReveal.isReady()", timeout=90_000
            )
        except Exception as error:  # noqa: BLE001 (one deck that does not start is a finding)
            problems[rel] = {"did not start": str(error).splitlines()[0]}
            continue
        page.add_script_tag(path=str(AXE))
        # no fading between slides: axe would measure the colours of text half faded in
        page.evaluate("() => courseReveal.configure({transition: 'none'})")
        total = page.evaluate("() => courseReveal.getTotalSlides()")
        for number in range(total):
            page.evaluate(
                "n => { const s = courseReveal.getSlides()[n]; "
                "const i = courseReveal.getIndices(s); courseReveal.slide(i.h, i.v); }",
                number,
            )
            page.wait_for_timeout(100)
            where = f"{rel}#{number + 1}"
            # axe on the current slide (a hidden slide is not shown to anyone), and the
            # page's own parts (controls, slide number) once per deck
            context = {"include": [[".reveal .slides section.present:not(.stack)"]]}
            found = blocking(page.evaluate(RUN_AXE, [TAGS, context if number else None]))
            hidden = page.evaluate(HIDDEN_FOCUSABLE.replace("Reveal", "courseReveal"))
            unnamed = page.evaluate(
                UNNAMED_PICTURES.replace("Reveal", "courseReveal"), ["slide", list(FALLBACK_ALTS)]
            )
            if found or hidden or unnamed:
                problems[where] = {"axe": found, "focusable when hidden": hidden[:3]}
                problems[where]["pictures without their own text"] = unnamed
        if ONLY == "" and len(problems) > 20:
            break  # enough to act on
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)[:6000]


FIXTURE = HERE / "fixtures" / "stepper_in_lab.ipynb"
NOTEBOOK = "stepper_in_lab.ipynb"


def test_the_stepper_in_jupyterlab_passes_axe(
    notebook_pages: NotebookPages, lab_server: LabServer
) -> None:
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `bash scripts/setup_classroom.sh`", pytrace=False)
    shutil.copy(FIXTURE, lab_server.root / NOTEBOOK)
    page, _ = notebook_pages.open(NOTEBOOK)
    failed = True
    try:
        stage = page.evaluate(
            "([p, ms]) => labTest.waitFor('kernelStage', p, 'ready', ms)", [NOTEBOOK, 60_000]
        )
        assert stage == "ready", f"kernel not ready: {stage}"
        run = page.evaluate("([p, ms]) => labTest.runAll(p, ms)", [NOTEBOOK, 90_000])
        assert run["outcome"] == "done", f"Run All did not finish: {run}"
        widgets = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .mg-stepper")
        deadline = time.monotonic() + 30
        while widgets.count() < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        assert widgets.count() == 2
        page.add_script_tag(path=str(AXE))
        found = blocking(page.evaluate(RUN_AXE, [TAGS, {"include": [[".mg-stepper"]]}]))
        assert found == []
        # the live region that announces the step, and the step list's label
        assert widgets.first.locator("[role=status]").count() == 1
        label = widgets.first.locator("select").evaluate("s => s.labels[0].textContent")
        assert label == "step"
        # the frame's picture is named by its own text
        svg = widgets.first.locator(".mg-stepper-picture svg").first
        assert svg.get_attribute("role") == "img"
        title = svg.locator(":scope > title").text_content()
        assert title and title != "%3" and svg.locator(":scope > desc").count() == 1
        failed = False
    finally:
        notebook_pages.release(NOTEBOOK, failed=failed)
        lab_server.delete_sessions_soon(NOTEBOOK)
