"""Build the course website into build/site/: `make site`.

Sphinx + myst-nb + sphinx-book-theme, from the notebooks' stored outputs (nothing executed),
warnings as errors (-W), offline. Steps:

1. stage docs/ (conf.py, pages, _ext, _static) and every notebook under notebooks/ (found by
   glob, subfolders too: the Chinese edition in notebooks/zh/ is listed by docs/zh/index.md, and
   every lesson page gets a language switch linking to its twin) into build/site-src/, with
   MathJax 3 copied from vendor/node_modules into _static/mathjax (scripts/setup_classroom.sh
   installs it), and the cheat sheet pictures;
2. sphinx-build -W -b html build/site-src build/site, plus build/slides/ as build/site/slides/
   when `make slides` ran before;
3. check the result: one page per notebook, no script or style sheet from http(s)://, and
   every <img> has a real alt text (not empty, not a file name).

Usage: python -m scripts.build_site [--out DIR] [--notebooks DIR] [--slides DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from scripts import course

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
NOTEBOOKS = REPO / "notebooks"
FIGURES = REPO / "figures"
MATHJAX = REPO / "vendor" / "node_modules" / "mathjax" / "es5"
# Copied from figures/ for the cheat sheet page.
FIGURE_FILES = [
    "cheatsheet.png",
    "cheatsheet.pdf",
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


def notebooks(root: Path = NOTEBOOKS) -> list[Path]:
    """Every notebook under root, subfolders included (checkpoints excluded)."""
    return course.find_notebooks([root])


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


def language_switch(rel: Path, other: Path) -> dict:
    """A markdown cell at the top of a lesson page linking to its other-language twin (class
    course-languages: docutils reads a class language-* as the text's language)."""
    target = f"/notebooks/{other.with_suffix('').as_posix()}"
    if rel.parts[:1] == (ZH_FOLDER,):
        links = f"{{doc}}`English <{target}>` · **中文**"
    else:
        links = f"**English** · {{doc}}`中文 <{target}>`"
    return {
        "cell_type": "markdown",
        "id": "course-languages",
        "metadata": {},
        "source": f":::{{container}} course-languages\n{links}\n:::",
    }


def for_the_site(text: str, rel: Path, root: Path) -> str:
    """A notebook's JSON as the site shows it: without speaker notes, with a language switch
    when the lesson exists in both languages."""
    nb = json.loads(without_speaker_notes(text))
    other = counterpart(rel, root)
    if other is not None:
        nb["cells"].insert(0, language_switch(rel, other))
    return json.dumps(nb, indent=1, ensure_ascii=False)


def stage(src: Path, root: Path = NOTEBOOKS) -> None:
    """Lay out the Sphinx source folder: docs/, the notebooks, MathJax and the figures."""
    if not (MATHJAX / "tex-chtml.js").exists():
        raise SystemExit(f"build_site: MathJax not found in vendor/node_modules; {SETUP_HINT}")
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(
        DOCS, src, ignore=shutil.ignore_patterns("slides_template", "speaker_notes", "__pycache__")
    )
    for nb in notebooks(root):
        target = src / "notebooks" / nb.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = for_the_site(nb.read_text(encoding="utf-8"), nb.relative_to(root), root)
        target.write_text(text, encoding="utf-8")
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


def check(out: Path, root: Path = NOTEBOOKS) -> list[str]:
    """Problems in the built site (empty when fine)."""
    problems = []
    if not (out / "index.html").exists():
        problems.append("no index.html")
    for nb in notebooks(root):
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
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    root = Path(args.notebooks).resolve()
    src = out.parent / "site-src"
    started = time.monotonic()
    stage(src, root)
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    done = subprocess.run([*command, str(src), str(out)], cwd=REPO)
    if done.returncode != 0:
        print("build_site: sphinx-build failed (warnings count as errors)", file=sys.stderr)
        return done.returncode
    slides = Path(args.slides)
    if (slides / "index.html").exists():  # make slides ran first: publish the decks too
        shutil.copytree(slides, out / "slides", dirs_exist_ok=True)
    problems = check(out, root)
    pages = len(list(out.rglob("*.html")))
    print(f"site: {pages} pages in {time.monotonic() - started:.1f} s -> {out}/index.html")
    for problem in problems:
        print(f"build_site: ERROR: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
