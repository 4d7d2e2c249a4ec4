"""Build offline reveal.js slides from the notebooks: `make slides`.

For every notebook under notebooks/ (recursively; the *_solutions notebooks are left out) this
writes build/slides/<same relative path>.slides.html with nbconvert's SlidesExporter and the
course template in docs/slides_template/ (the Chinese edition: build/slides/zh/...), and
build/slides/index.html listing the decks of both languages.

Everything a deck loads comes from build/slides/_static/, copied from vendor/node_modules
(scripts/setup_classroom.sh installs it): reveal.js, MathJax 3, require.js and jQuery. After
writing, every deck is checked: at least MIN_SLIDES slides and no script or style sheet from
http(s)://. Slide types come from cell metadata written by scripts/slides_metadata.py.

Usage: python -m scripts.build_slides [--out DIR] [--notebooks DIR] [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import base64
import functools
import html
import os
import re
import shutil
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

from docs._ext.course_alt_text import alt_for_svg  # the site's alt text, for the slides too
from scripts import course

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
VENDOR = REPO / "vendor" / "node_modules"
TEMPLATES = REPO / "docs" / "slides_template"
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
SETUP_HINT = "run `bash scripts/setup_classroom.sh` (make slides does) to install them"


def find_decks(paths: list[str], root: Path = NOTEBOOKS) -> list[Path]:
    """The notebooks to turn into slides: the named ones, or all under root but the solutions."""
    if paths:
        return [Path(p).resolve() for p in paths]
    return [nb for nb in course.find_notebooks([root]) if not nb.stem.endswith("_solutions")]


def copy_assets(static: Path) -> None:
    """Copy the browser files the decks load into `static` (fresh each build)."""
    missing = [src for src, _ in ASSETS if not (VENDOR / src).exists()]
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


_REMOTE = re.compile(
    r"""<script[^>]*\bsrc\s*=\s*["']?(?:https?:)?//"""
    r"""|<link[^>]*\bhref\s*=\s*["']?(?:https?:)?//"""
    r"""|@import\s+(?:url\()?\s*["']?(?:https?:)?//"""
    r"""|\bimport\b[^;'"]*\bfrom\s*["'](?:https?:)?//""",
    re.IGNORECASE,
)


def remote_sources(page: str) -> list[str]:
    """Script, style sheet or module imports that would load from the network."""
    return [m.group(0) for m in _REMOTE.finditer(page)]


# nbconvert writes this placeholder as the alt text of every output picture.
_PLACEHOLDER_ALT = 'alt="No description has been provided for this image" '
_IMG_NO_ALT = re.compile(r"<img (?![^>]*\balt=)([^>]*)>")
_SVG_DATA = re.compile(r'src="data:image/svg\+xml;base64,([^"]+)"')


def add_alt_text(page: str, title: str) -> str:
    """Give every <img> without alt text one (a graph picture lists its labels)."""

    def fill(match: re.Match[str]) -> str:
        data = _SVG_DATA.search(match.group(1))
        svg = base64.b64decode(data.group(1)).decode("utf-8", "replace") if data else ""
        alt = html.escape(alt_for_svg(svg, title), quote=True)
        return f'<img alt="{alt}" {match.group(1)}>'

    return _IMG_NO_ALT.sub(fill, page.replace(_PLACEHOLDER_ALT, ""))


@functools.cache  # one exporter per folder depth: templates load once
def exporter(prefix: str):  # noqa: ANN201 (nbconvert is imported lazily: it is slow to import)
    """A SlidesExporter whose every script and style points at `prefix` (the _static folder)."""
    from nbconvert import SlidesExporter
    from traitlets.config import Config

    config = Config()
    config.SlidesExporter.reveal_url_prefix = f"{prefix}/reveal.js"
    config.SlidesExporter.reveal_theme = "white"
    config.SlidesExporter.reveal_scroll = True
    config.SlidesExporter.jquery_url = f"{prefix}/jquery.min.js"
    config.SlidesExporter.require_js_url = f"{prefix}/require.js"
    config.SlidesExporter.mathjax_url = f"{prefix}/mathjax/tex-chtml.js"
    config.SlidesExporter.mermaid_js_url = ""
    config.SlidesExporter.extra_template_basedirs = [str(TEMPLATES)]
    config.SlidesExporter.template_name = "course_slides"
    config.SlidesExporter.exclude_input_prompt = True
    config.SlidesExporter.exclude_output_prompt = True
    return SlidesExporter(config=config)


# The decks' languages, by the folder they are in (the Chinese edition lives in zh/).
LANGUAGE_SECTIONS = [("en", "English", ""), ("zh-CN", "中文（Chinese）", "zh")]


def deck_language(rel: Path) -> str:
    """The language code of the deck at ``rel`` (relative to the slides folder)."""
    for code, _, folder in LANGUAGE_SECTIONS:
        if folder and rel.parts[:1] == (folder,):
            return code
    return "en"


def write_index(out: Path, decks: list[tuple[Path, int]]) -> None:
    """build/slides/index.html: one link per deck, with its slide count, by language."""
    sections = []
    for code, title, _ in LANGUAGE_SECTIONS:
        mine = [(p, n) for p, n in decks if deck_language(p.relative_to(out)) == code]
        if not mine:
            continue
        items = "\n".join(
            f'<li><a href="{html.escape(path.relative_to(out).as_posix())}">'
            f"{html.escape(path.relative_to(out).as_posix().removesuffix('.slides.html'))}</a>"
            f" ({count} slides)</li>"
            for path, count in mine
        )
        sections.append(f'<h2 lang="{code}">{html.escape(title)}</h2>\n<ul>\n{items}\n</ul>')
    out.joinpath("index.html").write_text(
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<title>Cutting the Graph: slides</title></head>\n<body><h1>Cutting the Graph: slides</h1>"
        "\n<p>Keys: space or arrows to advance, <kbd>s</kbd> for speaker notes, <kbd>Esc</kbd>"
        " for the overview.</p>\n" + "\n".join(sections) + "\n</body></html>\n",
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    """Build every deck, check each one; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="*", help="notebooks (default: all but solutions)")
    parser.add_argument("--out", default=str(REPO / "build" / "slides"), help="output folder")
    parser.add_argument("--notebooks", default=str(NOTEBOOKS), help="folder of notebooks")
    args = parser.parse_args(argv)
    root = Path(args.notebooks).resolve()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    static = out / "_static"
    copy_assets(static)
    problems = []
    built = []
    for nb in find_decks(args.paths, root):
        rel = nb.relative_to(root) if nb.is_relative_to(root) else Path(nb.name)
        target = out / rel.parent / f"{nb.stem}.slides.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        prefix = Path(os.path.relpath(static, target.parent)).as_posix()
        page, _ = exporter(prefix).from_filename(str(nb), resources={"course_static": prefix})
        page = add_alt_text(page, nb.stem)
        target.write_text(page, encoding="utf-8")
        count = count_slides(page)
        built.append((target, count))
        print(f"wrote {target.relative_to(out.parent)} ({count} slides)")
        if count < MIN_SLIDES:
            problems.append(f"{rel}: {count} slides (< {MIN_SLIDES}); run slides_metadata.py?")
        for source in remote_sources(page):
            problems.append(f"{rel}: loads from the network: {source[:80]}")
    write_index(out, built)
    print(f"{len(built)} decks in {time.monotonic() - started:.1f} s -> {out}/index.html")
    for problem in problems:
        print(f"build_slides: ERROR: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
