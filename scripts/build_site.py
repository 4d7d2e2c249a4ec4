"""Build the course website into build/site/: `make site`.

Sphinx + myst-nb + sphinx-book-theme, from the notebooks' stored outputs (nothing executed),
warnings as errors (-W), offline. Steps:

1. stage docs/ (conf.py, pages, _ext, _static) and every notebook under notebooks/ (found by
   glob, subfolders too: the Chinese edition in notebooks/zh/ is listed by docs/zh/index.md)
   into build/site-src/, with MathJax 3 and the CJK font (Noto Sans SC) copied from
   vendor/node_modules (scripts/setup_classroom.sh installs them), and the cheat sheets. The
   *_solutions notebooks are left out unless --with-solutions is given (make site
   SOLUTIONS=1): the answers are for after the exercises. Every lesson page starts with its
   links (see `lesson_links`): the other language, and the lesson's slide deck when
   build/slides/ has it;
2. sphinx-build -W -b html build/site-src build/site, plus build/slides/ as build/site/slides/
   when `make slides` ran before; each lesson's download button gets the notebook as it is in
   the repository, the Chinese pages say lang="zh-CN", and on every page the words in the
   other language say theirs (scripts/page_language.py: WCAG 3.1.2);
3. check the result: one page per notebook, no script or style sheet from http(s)://, every
   <img> has a real alt text (not empty, not a file name), and every local link resolves to a
   file (a folder only when it has an index.html).

Usage: python -m scripts.build_site [--out DIR] [--notebooks DIR] [--slides DIR]
                                    [--with-solutions]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

from scripts import course
from scripts.build_slides import copy_font  # the decks' CJK font, for the site too
from scripts.page_language import mark_languages

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
NOTEBOOKS = REPO / "notebooks"
FIGURES = REPO / "figures"
MATHJAX = REPO / "vendor" / "node_modules" / "mathjax" / "es5"

# Copied from figures/ for the cheat sheet page.
FIGURE_FILES = [
    "cheatsheet.png",
    "cheatsheet.pdf",
    "cheatsheet_blank.pdf",
    "cheatsheet_zh.pdf",
    "cheatsheet_zh.png",
    "cheatsheet_zh_blank.pdf",
    "detach_compare.svg",
    "detach__compare.svg",
    "data_compare.svg",
]
NOTES_TAG = "speaker-notes"  # see scripts/slides_metadata.py
SETUP_HINT = "run `bash scripts/setup_classroom.sh` (make site does) to install it"

_REMOTE = re.compile(
    r"""<script[^>]*\bsrc\s*=\s*["']?(?:https?:)?//"""
    r"""|<link[^>]*\brel\s*=\s*["']?stylesheet[^>]*\bhref\s*=\s*["']?(?:https?:)?//"""
    r"""|<link[^>]*\bhref\s*=\s*["']?(?:https?:)?//[^>]*\brel\s*=\s*["']?stylesheet"""
    r"""|@import\s+(?:url\()?\s*["']?(?:https?:)?//""",
    re.IGNORECASE,
)
_IMG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_ALT = re.compile(r"""\balt\s*=\s*("([^"]*)"|'([^']*)')""", re.IGNORECASE)


def notebooks(root: Path = NOTEBOOKS, solutions: bool = False) -> list[Path]:
    """Every notebook under root, subfolders included (checkpoints excluded), and the
    *_solutions notebooks only when asked."""
    found = course.find_notebooks([root])
    return [p for p in found if solutions or not p.stem.endswith("_solutions")]


def without_speaker_notes(text: str) -> str:
    """A notebook's JSON without the speaker-notes cells (they belong to the slides only)."""
    nb = json.loads(text)
    nb["cells"] = [c for c in nb["cells"] if NOTES_TAG not in c.get("metadata", {}).get("tags", [])]
    return json.dumps(nb, indent=1, ensure_ascii=False)


# The Chinese edition lives in notebooks/zh/ under the same file names (scripts/translations.py).
ZH_FOLDER = "zh"


def counterpart(rel: Path, root: Path) -> Path | None:
    """The same lesson in the other language (relative to root), or None if there is none."""
    if rel.parts[:1] == (ZH_FOLDER,):
        other = rel.relative_to(ZH_FOLDER)
    elif len(rel.parts) == 1:
        other = Path(ZH_FOLDER) / rel
    else:
        return None
    return other if (root / other).exists() else None


def lesson_links(rel: Path, other: Path | None, deck: bool) -> dict | None:
    """The markdown cell at the top of a lesson page: its twin in the other language and its
    slide deck (class course-lesson-links; docutils would read a class language-* as the
    text's language). Launch links (Colab, JupyterLite) belong here too."""
    chinese = rel.parts[:1] == (ZH_FOLDER,)
    links = []
    if other is not None:
        target = f"/notebooks/{other.with_suffix('').as_posix()}"
        if chinese:
            links.append(f"{{doc}}`English <{target}>` · **中文**")
        else:
            links.append(f"**English** · {{doc}}`中文 <{target}>`")
    if deck:
        up = "../" * len(rel.parts)  # from notebooks/<rel>.html to the site's root
        href = f"{up}slides/{rel.with_suffix('').as_posix()}.slides.html"
        word = "幻灯片（投影用，1280x720）" if chinese else "Slides for a projector (1280x720)"
        links.append(f'<a href="{href}">{word}</a>')
    if not links:
        return None
    return {
        "cell_type": "markdown",
        "id": "course-lesson-links",
        "metadata": {},
        "source": ":::{container} course-lesson-links\n" + " · ".join(links) + "\n:::",
    }


def for_the_site(text: str, rel: Path, root: Path, slides: Path | None = None) -> str:
    """A notebook's JSON as the site shows it: without speaker notes, with its links on top."""
    nb = json.loads(without_speaker_notes(text))
    deck = slides is not None and (slides / rel.parent / f"{rel.stem}.slides.html").exists()
    links = lesson_links(rel, counterpart(rel, root), deck)
    if links is not None:
        nb["cells"].insert(0, links)
    return json.dumps(nb, indent=1, ensure_ascii=False)


def stage(
    src: Path, root: Path = NOTEBOOKS, slides: Path | None = None, solutions: bool = False
) -> None:
    """Lay out the Sphinx source folder: docs/, the notebooks, MathJax, font and figures."""
    if not (MATHJAX / "tex-chtml.js").exists():
        raise SystemExit(f"build_site: MathJax not found in vendor/node_modules; {SETUP_HINT}")
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(
        DOCS, src, ignore=shutil.ignore_patterns("slides_template", "speaker_notes", "__pycache__")
    )
    for nb in notebooks(root, solutions):
        target = src / "notebooks" / nb.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = for_the_site(nb.read_text(encoding="utf-8"), nb.relative_to(root), root, slides)
        target.write_text(text, encoding="utf-8")
    copy_font(src / "_static" / "fonts" / "noto-sans-sc")
    mathjax = src / "_static" / "mathjax"
    mathjax.mkdir(parents=True, exist_ok=True)
    shutil.copy2(MATHJAX / "tex-chtml.js", mathjax / "tex-chtml.js")
    for part in ("input/tex/extensions", "output/chtml/fonts/woff-v2"):
        shutil.copytree(MATHJAX / part, mathjax / part)
    figures = src / "figures"
    figures.mkdir(exist_ok=True)
    for name in FIGURE_FILES:
        if (FIGURES / name).exists():
            shutil.copy2(FIGURES / name, figures / name)


def remote_sources(page: str) -> list[str]:
    """Scripts and style sheets a page would load from the network."""
    return [m.group(0) for m in _REMOTE.finditer(page)]


def images_without_alt(page: str) -> list[str]:
    """<img> tags whose alt text is missing, empty, or just a file name."""
    bad = []
    for tag in _IMG.findall(page):
        match = _ALT.search(tag)
        alt = (match.group(2) or match.group(3) or "") if match else ""
        placeholder = alt.startswith("No description has been provided")  # nbconvert's
        if not alt.strip() or placeholder or re.fullmatch(r"[\w./-]+\.(svg|png|jpe?g|gif)", alt):
            bad.append(tag[:120])
    return bad


class _Links(HTMLParser):
    """The local href/src of every link, picture, script and style sheet on a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value and tag in ("a", "img", "script", "link"):
                if not re.match(r"^(?:[a-z][a-z0-9+.-]*:|//|#)", value, re.IGNORECASE):
                    self.links.append(value)


def broken_links(out: Path) -> list[str]:
    """The "page: link" of every local link of the site that names no file (a folder counts only
    when it has an index.html: a web server shows no listing of it)."""
    broken = []
    for page in sorted(out.rglob("*.html")):
        if page.relative_to(out).parts[0] in ("_static", "_sources"):
            continue  # the theme's template fragments and the pages' sources, not pages
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            path = urllib.parse.unquote(link.split("#", 1)[0].split("?", 1)[0])
            if not path:
                continue
            target = (page.parent / path).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or not target.is_relative_to(out.resolve()):
                broken.append(f"{page.relative_to(out)}: {link}")
    return broken


def finish(out: Path, root: Path, solutions: bool) -> None:
    """After Sphinx: each lesson's download button gets the notebook as it is in the
    repository, the Chinese pages say they are Chinese (html lang), and every page marks the
    words of the other language (lang on a span; page_language.py)."""
    for nb in notebooks(root, solutions):
        target = out / "_sources" / "notebooks" / nb.relative_to(root)
        if target.exists():
            shutil.copy2(nb, target)
    for page in [*(out / "notebooks" / ZH_FOLDER).glob("*.html"), *(out / "zh").glob("*.html")]:
        text = page.read_text(encoding="utf-8")
        page.write_text(text.replace('<html lang="en"', '<html lang="zh-CN"', 1), encoding="utf-8")
    for page in out.rglob("*.html"):  # the other language's words marked (decks: build_slides)
        if page.relative_to(out).parts[0] in ("_static", "_sources", "slides"):
            continue
        text = page.read_text(encoding="utf-8")
        marked = mark_languages(text)
        if marked != text:
            page.write_text(marked, encoding="utf-8")


def check(out: Path, root: Path = NOTEBOOKS, solutions: bool = False) -> list[str]:
    """Problems in the built site (empty when fine)."""
    problems = []
    if not (out / "index.html").exists():
        problems.append("no index.html")
    problems += [f"broken link: {link}" for link in broken_links(out)]
    for nb in notebooks(root, solutions):
        page = out / "notebooks" / nb.relative_to(root).with_suffix(".html")
        if not page.exists():
            problems.append(f"no page for {nb.relative_to(root)}")
    for page in sorted(out.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        rel = page.relative_to(out)
        problems += [f"{rel}: loads from the network: {s[:90]}" for s in remote_sources(text)]
        problems += [f"{rel}: picture without alt text: {t}" for t in images_without_alt(text)]
    return problems


def main(argv: list[str] | None = None) -> int:
    """Stage, build and check the site; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default=str(REPO / "build" / "site"), help="output folder")
    parser.add_argument("--notebooks", default=str(NOTEBOOKS), help="folder of notebooks")
    parser.add_argument("--slides", default=str(REPO / "build" / "slides"), help="built decks")
    parser.add_argument(
        "--with-solutions", action="store_true", help="publish the *_solutions notebooks too"
    )
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    root = Path(args.notebooks).resolve()
    src = out.parent / "site-src"
    started = time.monotonic()
    slides = Path(args.slides).resolve()
    has_slides = (slides / "index.html").exists()
    if not has_slides:
        print(f"build_site: no decks in {slides} (run `make slides`): pages will not link any")
    stage(src, root, slides if has_slides else None, args.with_solutions)
    if out.exists():
        shutil.rmtree(out)  # a full build: no page left over from an earlier one
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    env = {**os.environ, "COURSE_SLIDES": "1" if has_slides else "", "COURSE_REPO_DIR": str(REPO)}
    done = subprocess.run([*command, str(src), str(out)], cwd=REPO, env=env)
    if done.returncode != 0:
        print("build_site: sphinx-build failed (warnings count as errors)", file=sys.stderr)
        return done.returncode
    if has_slides:  # publish the decks too
        shutil.copytree(slides, out / "slides", dirs_exist_ok=True)
    finish(out, root, args.with_solutions)
    problems = check(out, root, args.with_solutions)
    pages = len(list(out.rglob("*.html")))
    print(f"site: {pages} pages in {time.monotonic() - started:.1f} s -> {out}/index.html")
    for problem in problems:
        print(f"build_site: ERROR: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
