"""Build offline reveal.js decks from the notebooks, for a 1280x720 projector: `make slides`.

For every notebook under notebooks/ (recursively; the *_solutions notebooks are left out) this
writes build/slides/<same relative path>.slides.html (the Chinese edition: build/slides/zh/...)
and build/slides/index.html listing the decks of both languages. Steps per deck:

1. run the notebook again with the pictures in the projector theme (`viz.set_theme("projector")`
   in a set-up cell of its own; the stepper gives its frames one by one), in a kernel started
   from the notebook's folder; the result is cached in build/slides-cache/ until the notebook
   or minigrad changes (`--stored` uses the stored outputs instead: quick, default theme);
2. lay it out slide by slide for 1280x720 (scripts/slide_layout.py: every picture whole on a
   slide, closer looks after it where its labels would be small, outputs on a key press, no
   set-up or torch cells), with the speaker notes of docs/speaker_notes/<stem>.md (zh:
   zh/<stem>.md);
3. export with nbconvert's SlidesExporter and the course template (docs/slides_template/):
   html lang="zh-CN" and the bundled Noto Sans SC font for the Chinese decks.

Everything a deck loads comes from build/slides/_static/, copied from vendor/node_modules
(scripts/setup_classroom.sh installs it): reveal.js, MathJax 3, require.js, jQuery and the CJK
font. After writing, every deck is checked: at least MIN_SLIDES slides, no script, style sheet
or font from http(s)://. Open a deck with `?print-pdf` and print to PDF for one page per slide.

Usage: python -m scripts.build_slides [--out DIR] [--notebooks DIR] [--stored] [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import copy
import functools
import hashlib
import html
import json
import os
import re
import shutil
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

from docs._ext.course_alt_text import alt_for_svg  # the site's alt text, for the slides too
from scripts import course
from scripts.page_language import mark_languages
from scripts.slide_layout import lay_out
from scripts.slides_metadata import read_notes

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
VENDOR = REPO / "vendor" / "node_modules"
TEMPLATES = REPO / "docs" / "slides_template"
NOTES = REPO / "docs" / "speaker_notes"
CACHE = REPO / "build" / "slides-cache"
STYLE = TEMPLATES / "course_slides" / "static" / "course_slides.css"
MIN_SLIDES = 8

# What _static/ holds: (source inside vendor/node_modules, target inside _static).
ASSETS = [
    ("reveal.js/dist", "reveal.js/dist"),
    ("reveal.js/plugin/notes", "reveal.js/plugin/notes"),
    ("mathjax/es5/tex-chtml.js", "mathjax/tex-chtml.js"),
    ("mathjax/es5/input/tex/extensions", "mathjax/input/tex/extensions"),
    ("mathjax/es5/output/chtml/fonts/woff-v2", "mathjax/output/chtml/fonts/woff-v2"),
    ("requirejs/require.js", "require.js"),
    ("jquery/dist/jquery.min.js", "jquery.min.js"),
]
FONT_PACKAGE = "@fontsource/noto-sans-sc"  # Noto Sans SC (SIL OFL), regular weight only
FONT_DIR = "fonts/noto-sans-sc"  # inside _static
SETUP_HINT = "run `bash scripts/setup_classroom.sh` (make slides does) to install them"

# Run first in the kernel that makes a deck's outputs: the projector theme, and the stepper as
# its frames (one slide each) instead of a widget.
SLIDES_SETUP = """\
from minigrad import viz as _course_viz

_course_viz.set_theme("projector")


def _course_frames(stepper, *args, **kwargs):
    frames = [{"label": f.label, "svg": f.svg, "summary": f.summary} for f in stepper]
    return {"application/vnd.course.frames+json": {"frames": frames}, "text/plain": repr(stepper)}


get_ipython().display_formatter.mimebundle_formatter.for_type(_course_viz.Stepper, _course_frames)
"""
SETUP_ID = "course-slides-setup"


def find_decks(paths: list[str], root: Path = NOTEBOOKS) -> list[Path]:
    """The notebooks to turn into slides: the named ones, or all under root but the solutions."""
    if paths:
        return [Path(p).resolve() for p in paths]
    return [nb for nb in course.find_notebooks([root]) if not nb.stem.endswith("_solutions")]


def copy_assets(static: Path) -> None:
    """Copy the browser files the decks load into `static` (fresh each build)."""
    missing = [src for src, _ in ASSETS if not (VENDOR / src).exists()]
    if not (VENDOR / FONT_PACKAGE / "400.css").exists():
        missing.append(FONT_PACKAGE)
    if missing:
        raise SystemExit(f"build_slides: missing in vendor/node_modules: {missing}; {SETUP_HINT}")
    if static.exists():
        shutil.rmtree(static)
    for src, dst in ASSETS:
        target = static / dst
        target.parent.mkdir(parents=True, exist_ok=True)
        if (VENDOR / src).is_dir():
            shutil.copytree(VENDOR / src, target, ignore=shutil.ignore_patterns("*.map"))
        else:
            shutil.copy2(VENDOR / src, target)
    copy_font(static / FONT_DIR)


def copy_font(target: Path) -> None:
    """The CJK web font: its regular weight as woff2 slices, with the style sheet naming them.

    Each slice covers a range of characters (unicode-range), so a browser loads only the slices
    a page uses; all of them come from this folder.
    """
    package = VENDOR / FONT_PACKAGE
    css = (package / "400.css").read_text(encoding="utf-8")
    css = re.sub(r",\s*url\([^)]*\.woff\) format\('woff'\)", "", css)  # woff2 is enough
    (target / "files").mkdir(parents=True, exist_ok=True)
    for name in re.findall(r"url\(\./files/([^)]+\.woff2)\)", css):
        shutil.copy2(package / "files" / name, target / "files" / name)
    (target / "400.css").write_text(css, encoding="utf-8")
    shutil.copy2(package / "LICENSE", target / "LICENSE")


class _SlideCounter(HTMLParser):
    """Counts reveal.js slides: <section> elements with no <section> inside them."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []  # per open <section>: has it a child section?
        self.slides = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section":
            if self.stack:
                self.stack[-1] = True
            self.stack.append(False)

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self.stack:
            if not self.stack.pop():
                self.slides += 1


def count_slides(page: str) -> int:
    """How many slides a reveal.js page shows (sub-slides counted one by one)."""
    counter = _SlideCounter()
    counter.feed(page)
    return counter.slides


class _Columns(HTMLParser):
    """A deck's columns (top-level <section>s): the first heading and the slides of each."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.aside = 0
        self.in_heading = False
        self.columns: list[list] = []  # [heading text, slide count]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section":
            self.depth += 1
            if self.depth == 1:
                self.columns.append(["", 0])
            elif self.depth == 2:
                self.columns[-1][1] += 1
        elif tag == "aside":
            self.aside += 1
        elif tag in ("h1", "h2", "h3") and not self.aside and self.columns:
            self.in_heading = not self.columns[-1][0]

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self.depth -= 1
        elif tag == "aside":
            self.aside -= 1
        elif tag in ("h1", "h2", "h3"):
            self.in_heading = False

    def handle_data(self, data: str) -> None:
        if self.in_heading:
            self.columns[-1][0] += data


def deck_map(page: str) -> list[tuple[int, str, int]]:
    """(column, heading, slides) of every column of a deck: the slide map of the teacher's
    guide. Column n is at <deck>.slides.html#/n; one `##` section of the notebook each."""
    parser = _Columns()
    parser.feed(page)
    return [
        (n, text.replace("¶", "").strip(), count) for n, (text, count) in enumerate(parser.columns)
    ]


# The slide maps of the teacher's guide: `02_detach #/0–7` (40), `02_detach #/4` (15 slides,
# `03_detach_inplace #/5` ("...", 23 slides); in Chinese `zh/02_detach #/0–7`（40）and
# `zh/03_detach_inplace #/5`（...，23 张）.
_GUIDE_RANGE = re.compile(r"`((?:zh/)?\d\d_\w+) #/(\d+)(?:–(\d+))?`( ?[(（])(\d+)([)）])")
_GUIDE_COUNT = re.compile(
    r"`((?:zh/)?\d\d_\w+) #/(\d+)`( ?[(（](?:[^()（）\n]*?[,，] ?)?)(\d+)( slides| 张)"
)


def guide_with_maps(text: str, maps: dict[str, list[tuple[int, str, int]]]) -> str:
    """The teacher's guide with every slide count of its slide maps taken from the decks:
    `maps` is deck (zh/02_detach, ...) -> deck_map of the built deck. Counts of decks not in
    `maps` stay as they are."""

    def slides(deck: str, first: int, last: int) -> int | None:
        columns = maps.get(deck)
        if columns is None:
            return None
        return sum(count for n, _, count in columns if first <= n <= last)

    def fill_range(m: re.Match[str]) -> str:
        first = int(m.group(2))
        count = slides(m.group(1), first, int(m.group(3) or first))
        return (
            m.group(0)
            if count is None
            else m.group(0)[: m.start(5) - m.start(0)] + (f"{count}{m.group(6)}")
        )

    def fill_count(m: re.Match[str]) -> str:
        count = slides(m.group(1), int(m.group(2)), int(m.group(2)))
        return (
            m.group(0)
            if count is None
            else m.group(0)[: m.start(4) - m.start(0)] + (f"{count}{m.group(5)}")
        )

    return _GUIDE_COUNT.sub(fill_count, _GUIDE_RANGE.sub(fill_range, text))


def built_maps(out: Path) -> dict[str, list[tuple[int, str, int]]]:
    """deck -> deck_map for every deck built under `out`."""
    return {
        p.relative_to(out).as_posix().removesuffix(".slides.html"): deck_map(
            p.read_text(encoding="utf-8")
        )
        for p in out.rglob("*.slides.html")
    }


def update_guides(out: Path, check: bool = False) -> list[Path]:
    """Write the decks' slide counts into docs/teaching.md and docs/zh/teaching.md; returns
    the guides that were (with check: would be) changed."""
    maps = built_maps(out)
    changed = []
    for guide in GUIDES.values():
        text = guide.read_text(encoding="utf-8")
        new = guide_with_maps(text, maps)
        if new != text:
            changed.append(guide)
            if not check:
                guide.write_text(new, encoding="utf-8")
    return changed


def count_notes(page: str) -> int:
    """How many slides carry speaker notes (an <aside class="notes"> with text)."""
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', page, re.DOTALL)
    return sum(1 for n in notes if re.sub(r"<[^>]+>|\s", "", n))


_REMOTE = re.compile(
    r"""<script[^>]*\bsrc\s*=\s*["']?(?:https?:)?//"""
    r"""|<link[^>]*\bhref\s*=\s*["']?(?:https?:)?//"""
    r"""|@import\s+(?:url\()?\s*["']?(?:https?:)?//"""
    r"""|@font-face[^}]*url\(\s*["']?(?:https?:)?//"""
    r"""|\bimport\b[^;'"]*\bfrom\s*["'](?:https?:)?//""",
    re.IGNORECASE,
)


def remote_sources(page: str) -> list[str]:
    """Script, style sheet, font or module imports that would load from the network."""
    return [m.group(0) for m in _REMOTE.finditer(page)]


# nbconvert writes this placeholder as the alt text of every output picture.
_PLACEHOLDER_ALT = 'alt="No description has been provided for this image" '
_IMG_NO_ALT = re.compile(r"<img (?![^>]*\balt=)([^>]*)>")
_SVG_DATA = re.compile(r'src="data:image/svg\+xml;base64,([^"]+)"')


def add_alt_text(page: str, title: str, language: str = "en") -> str:
    """Give every <img> without alt text one (a graph picture lists its labels)."""

    def fill(match: re.Match[str]) -> str:
        data = _SVG_DATA.search(match.group(1))
        svg = base64.b64decode(data.group(1)).decode("utf-8", "replace") if data else ""
        alt = html.escape(alt_for_svg(svg, title, language), quote=True)
        return f'<img alt="{alt}" {match.group(1)}>'

    return _IMG_NO_ALT.sub(fill, page.replace(_PLACEHOLDER_ALT, ""))


_IMG_SVG = re.compile(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([^"]+)"[^>]*>')
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def inline_cjk_pictures(page: str) -> str:
    """Pictures whose labels hold Chinese drawn inline, not as <img>: a picture loaded as an
    image cannot use the page's fonts, so on a machine without a CJK font its Chinese would be
    empty boxes; inline, it uses the deck's bundled Noto Sans SC (see course_slides.css)."""

    def inline(match: re.Match[str]) -> str:
        svg = base64.b64decode(match.group(2)).decode("utf-8", "replace")
        if not _CJK.search(svg):
            return match.group(0)
        svg = cjk_font_first(svg[svg.index("<svg") :])
        label = f'<svg role="img" aria-label="{match.group(1)}"'
        return svg.replace("<svg", label, 1)

    return _IMG_SVG.sub(inline, page)


CJK_FAMILY = "Noto Sans SC"  # the deck's bundled font (FONT_PACKAGE)
_TEXT_FONT = re.compile(r'(<text\b[^>]*?) font-family="([^"]*)"')


def cjk_font_first(svg: str) -> str:
    """Every <text> of an inline SVG set in the bundled CJK font first (an inline style, which
    the deck's style sheet does not override): a browser picks the first family of the list
    whose font is loaded, and without a system CJK font any other first choice draws the
    Chinese as empty boxes even when the bundled font is loaded."""

    def first(match: re.Match[str]) -> str:
        rest = match.group(2).replace('"', "")
        return f"{match.group(1)} style=\"font-family:'{CJK_FAMILY}',{rest}\""

    return _TEXT_FONT.sub(first, svg)


@functools.cache  # one exporter per folder depth: templates load once
def exporter(prefix: str):  # noqa: ANN201 (nbconvert is imported lazily)
    """A SlidesExporter whose every script and style points at `prefix` (the _static folder)."""
    from nbconvert import SlidesExporter
    from nbconvert.utils.base import NbConvertBase
    from traitlets.config import Config

    config = Config()
    config.SlidesExporter.reveal_url_prefix = f"{prefix}/reveal.js"
    config.SlidesExporter.reveal_theme = "white"
    config.SlidesExporter.reveal_scroll = False
    config.SlidesExporter.jquery_url = f"{prefix}/jquery.min.js"
    config.SlidesExporter.require_js_url = f"{prefix}/require.js"
    config.SlidesExporter.mathjax_url = f"{prefix}/mathjax/tex-chtml.js"
    config.SlidesExporter.mermaid_js_url = ""
    config.SlidesExporter.extra_template_basedirs = [str(TEMPLATES)]
    config.SlidesExporter.template_name = "course_slides"
    config.SlidesExporter.exclude_input_prompt = True
    config.SlidesExporter.exclude_output_prompt = True
    # A viz picture's output also holds a text/html <img> of it, for JupyterLab (its SVG and
    # PNG renderers give no alt: minigrad/viz/alt_text.py html_picture); nbconvert ranks
    # text/html first. A deck draws the SVG (a plot: the PNG, scaled by slide_layout) itself.
    pictures_first = ["image/svg+xml", "image/png"]
    config.NbConvertBase.display_data_priority = pictures_first + [
        mime for mime in NbConvertBase().display_data_priority if mime not in pictures_first
    ]
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_input_tags = {"course-output-only"}
    return SlidesExporter(config=config)


# The decks' languages, by the folder they are in (the Chinese edition lives in zh/).
LANGUAGE_SECTIONS = [("en", "English", ""), ("zh-CN", "中文（Chinese）", "zh")]


def deck_language(rel: Path) -> str:
    """The language code of the deck at ``rel`` (relative to the slides or notebooks folder)."""
    for code, _, folder in LANGUAGE_SECTIONS:
        if folder and rel.parts[:1] == (folder,):
            return code
    return "en"


def notes_file(rel: Path) -> Path:
    """docs/speaker_notes/<stem>.md, or zh/<stem>.md for a Chinese deck."""
    folder = NOTES / "zh" if deck_language(rel) == "zh-CN" else NOTES
    return folder / f"{rel.stem}.md"


GUIDES = {"en": REPO / "docs" / "teaching.md", "zh-CN": REPO / "docs" / "zh" / "teaching.md"}


def planned_minutes(stem: str, language: str) -> int:
    """The minutes the teacher's guide gives a notebook's deck (its session table), or 0."""
    guide = GUIDES.get(language, GUIDES["en"])
    if not guide.exists():
        return 0
    rows = re.findall(r"^\| *(\d+) *\| *`(\d\d_\w+)`", guide.read_text(encoding="utf-8"), re.M)
    return sum(int(minutes) for minutes, name in rows if name == stem)


def cache_key(nb: Path) -> str:
    """What a deck's outputs depend on: the notebook, minigrad, the checks (the course_checks
    package and its Chinese messages), the set-up cell."""
    digest = hashlib.sha256(nb.read_bytes())
    digest.update(SLIDES_SETUP.encode())
    checks = [*(NOTEBOOKS / "course_checks").glob("*.py"), NOTEBOOKS / "course_checks" / "zh.json"]
    for path in sorted([*(REPO / "minigrad").rglob("*.py"), *checks]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def execute(nb_path: str, key: str, cache: str) -> str:
    """Run a notebook with the projector theme; returns the path of the executed copy.

    Runs in a worker process (see `executed`); the copy lands in the cache folder.
    """
    import nbformat
    from nbclient import NotebookClient

    path = Path(nb_path)
    target = Path(cache) / f"{path.parent.name}_{path.stem}.{key}.ipynb"
    if target.exists():
        return str(target)
    nb = nbformat.read(path, as_version=4)
    setup = nbformat.v4.new_code_cell(SLIDES_SETUP)
    setup.id = SETUP_ID
    nb.cells.insert(0, setup)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    client = NotebookClient(
        nb,
        timeout=int(os.environ.get("NB_CELL_TIMEOUT", "120")),
        kernel_name="python3",
        allow_errors=True,  # cells tagged raises-exception; a real failure shows in the deck
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    nb.cells = [c for c in nb.cells if c.get("id") != SETUP_ID]
    target.parent.mkdir(parents=True, exist_ok=True)
    for old in target.parent.glob(f"{path.parent.name}_{path.stem}.*.ipynb"):
        old.unlink()
    nbformat.write(nb, target)
    return str(target)


def executed(decks: list[Path]) -> dict[Path, Path]:
    """Every deck's notebook run with the projector theme (two kernels at a time, cached)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    jobs = {nb: cache_key(nb) for nb in decks}
    results: dict[Path, Path] = {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        futures = {pool.submit(execute, str(nb), key, str(CACHE)): nb for nb, key in jobs.items()}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = Path(future.result())
    return results


def english_twin(nb: Path, root: Path) -> Path | None:
    """The English notebook of a Chinese one (same file name, one folder up)."""
    twin = root / nb.name
    return twin if nb.parent.name == "zh" and twin.exists() else None


def deck_title(nb: dict) -> str:
    """The notebook's first heading, without markup (the deck's <title>)."""
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        match = re.match(r"\s*# (.+)", source) if cell["cell_type"] == "markdown" else None
        if match:
            return re.sub(r"[`*]", "", match.group(1)).strip()
    return ""


def build_deck(
    nb_path: Path, run_path: Path, rel: Path, target: Path, static: Path, root: Path
) -> tuple[str, list[str]]:
    """Write one deck; returns its HTML and the problems found while laying it out."""
    import nbformat

    language = deck_language(rel)
    stored = json.loads(nb_path.read_text(encoding="utf-8"))
    ran = json.loads(run_path.read_text(encoding="utf-8"))
    # Slide types and tags as committed (the run copy has them too; be sure).
    kinds = {c.get("id"): c.get("metadata", {}) for c in stored["cells"]}
    for cell in ran["cells"]:
        if cell.get("id") in kinds:
            cell["metadata"] = copy.deepcopy(kinds[cell["id"]])
    twin = english_twin(nb_path, root)
    english = json.loads(twin.read_text(encoding="utf-8")) if twin else None
    notes = read_notes(notes_file(rel))
    minutes = planned_minutes(nb_path.stem, language)
    cells, unused, problems = lay_out(ran, english, notes, language, minutes)
    problems = [f"{rel}: {p}" for p in problems]
    for key in unused:
        print(f"build_slides: warning: {notes_file(rel).relative_to(REPO)}: no heading {key!r}")
    title = deck_title(stored)
    deck = {
        "cells": cells,
        "metadata": {**stored.get("metadata", {}), "title": title},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    for index, cell in enumerate(deck["cells"]):
        cell["id"] = f"deck-{index}"
        if cell["cell_type"] == "code":
            cell.setdefault("execution_count", None)
            cell.setdefault("outputs", [])
    node = nbformat.reads(json.dumps(deck), as_version=4)  # joins lists of lines
    prefix = Path(os.path.relpath(static, target.parent)).as_posix()
    resources = {
        "course_static": prefix,
        "course_css": STYLE.read_text(encoding="utf-8"),
        "course_font": f"{prefix}/{FONT_DIR}/400.css" if language == "zh-CN" else "",
        "metadata": {"name": title or nb_path.stem},
    }
    page, _ = exporter(prefix).from_notebook_node(node, resources=resources)
    # nbconvert accepts only two-letter codes (ISO 639-1); the deck says zh-CN itself.
    page = page.replace('<html lang="en">', f'<html lang="{language}">', 1)
    page = add_alt_text(page, title or nb_path.stem, language)
    page = inline_cjk_pictures(page)
    page = mark_languages(page, language)  # the other language's words say so (WCAG 3.1.2)
    target.write_text(page, encoding="utf-8")
    return page, problems


INDEX_WORDS = {
    "en": (
        "Cutting the Graph: slides",
        "Keys: space or arrows to advance, <kbd>s</kbd> for the speaker notes, <kbd>Esc</kbd>"
        " for the overview; add <code>?print-pdf</code> to a deck's address and print to PDF"
        " for one page per slide.",
        "slides",
    ),
    "zh-CN": (
        "切断计算图：幻灯片",
        "按空格键或方向键翻页，按 <kbd>s</kbd> 打开演讲者视图（演讲者备注），"
        "按 <kbd>Esc</kbd> 查看全部幻灯片；在地址后加上 <code>?print-pdf</code>"
        " 再打印成 PDF，每张幻灯片一页。",
        "张幻灯片",
    ),
}


def write_index(out: Path, decks: list[tuple[Path, int, str]]) -> None:
    """build/slides/index.html: one link per deck (its title and slide count), by language,
    with its map: a link to every column (one `##` section each) and its slides."""
    sections = []
    for code, title, _ in LANGUAGE_SECTIONS:
        mine = [(p, n, t) for p, n, t in decks if deck_language(p.relative_to(out)) == code]
        if not mine:
            continue
        heading, keys, unit = INDEX_WORDS[code]
        items = "\n".join(
            f'<li><a href="{html.escape(path.relative_to(out).as_posix())}">'
            f"{html.escape(name or path.name.removesuffix('.slides.html'))}</a>"
            f" ({count} {unit})\n<details><summary>#/n</summary><ol start='0'>"
            + "".join(
                f'<li><a href="{html.escape(path.relative_to(out).as_posix())}#/{n}">'
                f"{html.escape(heading)}</a> ({slides})</li>"
                for n, heading, slides in deck_map(path.read_text(encoding="utf-8"))
            )
            + "</ol></details></li>"
            for path, count, name in mine
        )
        sections.append(
            f'<section lang="{code}">\n<h2>{html.escape(title)}</h2>\n<p>{keys}</p>\n'
            f"<ul>\n{items}\n</ul>\n</section>"
        )
    font = f'<link rel="stylesheet" href="_static/{FONT_DIR}/400.css">'
    style = (
        "<style>body{font-family:'DejaVu Sans',Helvetica,Arial,'Noto Sans SC',sans-serif;"
        "max-width:60em;margin:2em auto;padding:0 1em;font-size:18px;line-height:1.5}"
        "[lang|=zh]{font-family:'Noto Sans SC',sans-serif}</style>"
    )
    out.joinpath("index.html").write_text(
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>Cutting the Graph: slides · 切断计算图：幻灯片</title>{font}{style}</head>\n"
        "<body><h1>Cutting the Graph: slides</h1>\n<p lang='zh-CN'>切断计算图：幻灯片</p>\n"
        + "\n".join(sections)
        + "\n</body></html>\n",
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    """Build every deck, check each one; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="*", help="notebooks (default: all but solutions)")
    parser.add_argument("--out", default=str(REPO / "build" / "slides"), help="output folder")
    parser.add_argument("--notebooks", default=str(NOTEBOOKS), help="folder of notebooks")
    parser.add_argument(
        "--stored", action="store_true", help="use the stored outputs (no run, default theme)"
    )
    parser.add_argument(
        "--guide",
        action="store_true",
        help="build nothing: write the slide counts of the decks in --out into the guides",
    )
    args = parser.parse_args(argv)
    root = Path(args.notebooks).resolve()
    out = Path(args.out).resolve()
    if args.guide:
        for guide in update_guides(out):
            print(f"updated {guide.relative_to(REPO)}")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    static = out / "_static"
    copy_assets(static)
    decks = find_decks(args.paths, root)
    runs = {nb: nb for nb in decks} if args.stored else executed(decks)
    problems: list[str] = []
    built = []
    for nb in decks:
        rel = nb.relative_to(root) if nb.is_relative_to(root) else Path(nb.name)
        target = out / rel.parent / f"{nb.stem}.slides.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        page, layout_problems = build_deck(nb, runs[nb], rel, target, static, root)
        for problem in layout_problems:
            print(f"build_slides: warning: {problem}", file=sys.stderr)
        count = count_slides(page)
        built.append((target, count, deck_title(json.loads(nb.read_text(encoding="utf-8")))))
        print(
            f"wrote {target.relative_to(out.parent)} ({count} slides,"
            f" {count_notes(page)} with notes)"
        )
        if count < MIN_SLIDES:
            problems.append(f"{rel}: {count} slides (< {MIN_SLIDES})")
        for source in remote_sources(page):
            problems.append(f"{rel}: loads from the network: {source[:80]}")
    write_index(out, built)
    print(f"{len(built)} decks in {time.monotonic() - started:.1f} s -> {out}/index.html")
    for problem in problems:
        print(f"build_slides: ERROR: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
