"""The classroom edition: slide metadata, slides, website, cheat sheet, teacher's guide, copies.

The slides and the site are built for real (nbconvert, Sphinx) from a temporary copy of the
notebooks given fresh slide metadata, so these tests hold both before and after the lead applies
scripts/slides_metadata.py to the committed notebooks. They need the browser files in
vendor/node_modules (scripts/setup_classroom.sh): without them they skip, except in CI (CI=true),
where a missing install is a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from scripts import build_site, build_slides, course
from scripts import slides_metadata as meta
from scripts import student_copies as students

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
VENDOR = REPO / "vendor" / "node_modules"


def course_notebooks() -> list[Path]:
    return course.find_notebooks([NOTEBOOKS])


def md(text: str) -> dict:
    return {"cell_type": "markdown", "id": "m", "metadata": {}, "source": text}


def code(text: str, outputs: list[dict] | None = None) -> dict:
    return {
        "cell_type": "code",
        "id": "c",
        "metadata": {},
        "source": text,
        "outputs": outputs or [],
        "execution_count": 1,
    }


SVG_OUTPUT = {"output_type": "display_data", "data": {"image/svg+xml": "<svg/>"}, "metadata": {}}


# ---- slide metadata ----------------------------------------------------------------------------


def test_slide_types_follow_the_rules() -> None:
    cells = [
        md("# Title"),
        code("x = 1"),
        md("## A section"),
        md("plain prose"),
        code("draw()", [SVG_OUTPUT]),
        code("draw()", [SVG_OUTPUT]),  # a second picture does not fit: a sub-slide
        md("### A sub-section"),
        code(""),
        md("tagged") | {"metadata": {"tags": ["slides-skip"]}},
    ]
    assert meta.slide_types(cells) == [
        "slide",
        "fragment",
        "slide",
        "-",
        "fragment",
        "subslide",
        "subslide",
        "skip",
        "skip",
    ]


def test_a_deck_starts_with_a_slide() -> None:
    assert meta.slide_types([md("no heading"), code("1")])[0] == "slide"


def test_long_output_gets_a_subslide() -> None:
    stream = {"output_type": "stream", "name": "stdout", "text": "line\n" * 40}
    cells = [md("## Section"), md("text\n" * 16), code("print()", [stream])]
    assert meta.slide_types(cells)[2] == "subslide"


def test_notes_are_inserted_after_their_heading_and_rerun_is_a_no_op(tmp_path: Path) -> None:
    nb = {"cells": [md("# Title"), md("## First"), code("1"), md("## Second")], "metadata": {}}
    notes = {"First": "Say this.\nThen that.", "Missing heading": "lost"}
    new, unused = meta.updated(json.loads(json.dumps(nb)), notes)
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in new["cells"]]
    assert kinds == ["slide", "slide", "notes", "fragment", "slide"]
    assert meta.source_text(new["cells"][2]) == "Say this.\nThen that."
    assert unused == ["Missing heading"]
    again, _ = meta.updated(json.loads(meta.dump(new)), notes)
    assert meta.dump(again) == meta.dump(new)


def test_check_mode_fails_on_a_notebook_without_metadata(tmp_path: Path) -> None:
    path = tmp_path / "x.ipynb"
    path.write_text(meta.dump({"cells": [md("# T"), md("## S")], "metadata": {}}))
    assert meta.main(["--check", str(path)]) == 1
    assert meta.main([str(path)]) == 0
    assert meta.main(["--check", str(path)]) == 0


def test_the_course_notebooks_have_slide_metadata() -> None:
    """Fails once any notebook lacks or has stale metadata, after it was first applied."""
    applied = any(
        "slideshow" in cell.get("metadata", {})
        for nb in course_notebooks()
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]
    )
    if not applied:
        pytest.skip("slide metadata not applied yet: run `python -m scripts.slides_metadata`")
    assert meta.main(["--check"]) == 0


def test_speaker_notes_files_belong_to_notebooks() -> None:
    """Each docs/speaker_notes/<stem>.md is for a notebook (today's names or edition2's)."""
    stems = {p.stem for p in course_notebooks()}
    stems |= {name for names in NEW_NAMES.values() for name in names}
    for notes in (REPO / "docs" / "speaker_notes").glob("[0-9]*.md"):
        assert notes.stem in stems, f"{notes.name} names no notebook"
        assert meta.read_notes(notes), f"{notes.name} has no '## heading' sections"


# ---- slides and site, built for real ------------------------------------------------------------


@pytest.fixture(scope="module")
def notebook_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course notebooks with fresh slide metadata, the Chinese ones in zh/ included."""
    if not (VENDOR / "reveal.js").exists():
        message = "vendor/node_modules missing: run `bash scripts/setup_classroom.sh`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    root = tmp_path_factory.mktemp("classroom") / "notebooks"
    shutil.copytree(NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    assert meta.main([str(root)]) == 0
    return root


def run_script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", f"scripts.{name}", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


@pytest.fixture(scope="module")
def slides(notebook_copy: Path) -> Path:
    out = notebook_copy.parent / "slides"
    done = run_script("build_slides", "--out", str(out), "--notebooks", str(notebook_copy))
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def check_every_notebook_but_the_solutions_has_a_deck(slides: Path, notebook_copy: Path) -> None:
    for nb in notebook_copy.rglob("*.ipynb"):
        deck = slides / nb.relative_to(notebook_copy).parent / f"{nb.stem}.slides.html"
        if nb.stem.endswith("_solutions"):
            assert not deck.exists()
            continue
        page = deck.read_text(encoding="utf-8")
        assert build_slides.count_slides(page) >= 8, deck.name
        assert build_slides.remote_sources(page) == [], deck.name
        assert "No description has been provided" not in page
        # Every script and style sheet named by the deck exists on disk.
        for ref in re.findall(r'(?:<script[^>]*src|<link[^>]*href)="([^"#?]+)"', page):
            assert (deck.parent / ref).exists(), f"{deck.name}: {ref}"
        assert (deck.parent / "_static" / "reveal.js" / "dist" / "reveal.js").exists() or (
            deck.parent.parent / "_static" / "reveal.js" / "dist" / "reveal.js"
        ).exists()
    assert 'src="../_static/require.js"' in (slides / "zh" / "02_detach.slides.html").read_text()
    index = (slides / "index.html").read_text()
    english, chinese = index.split('<h2 lang="zh-CN">')  # the index lists both languages
    assert '<h2 lang="en">English</h2>' in english and "中文" in chinese
    for nb in notebook_copy.glob("[0-9]*.ipynb"):
        if not nb.stem.endswith("_solutions"):
            assert f'href="{nb.stem}.slides.html"' in english
            assert f'href="zh/{nb.stem}.slides.html"' in chinese


def test_remote_sources_are_detected() -> None:
    page = (
        '<script src="https://cdn.example/x.js"></script><link rel="stylesheet" href="//x/y.css">'
    )
    assert len(build_slides.remote_sources(page)) == 2
    assert build_slides.remote_sources('<a href="https://example.org">a link is fine</a>') == []


@pytest.fixture(scope="module")
def site(notebook_copy: Path, slides: Path) -> Path:
    out = notebook_copy.parent / "site"
    done = run_script(
        "build_site",
        "--out",
        str(out),
        "--notebooks",
        str(notebook_copy),
        "--slides",
        str(slides),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def check_site_has_an_index_and_a_page_per_notebook(site: Path, notebook_copy: Path) -> None:
    index = (site / "index.html").read_text(encoding="utf-8")
    for nb in notebook_copy.rglob("*.ipynb"):
        rel = nb.relative_to(notebook_copy).with_suffix(".html")
        assert (site / "notebooks" / rel).exists(), rel
        assert f"notebooks/{rel.as_posix()}" in index, rel
    assert "teaching.html" in index and "cheatsheet.html" in index
    assert "mybinder.org/v2/gh/" in index
    assert (site / "slides" / "index.html").exists()
    assert 'href="zh/index.html"' in index


def check_the_chinese_edition_has_its_index_and_a_language_switch(site: Path, root: Path) -> None:
    """docs/zh/index.md lists every zh lesson and the glossary; every lesson page links to its
    twin in the other language."""
    zh_index = (site / "zh" / "index.html").read_text(encoding="utf-8")
    assert "切断计算图：中文版" in zh_index and 'href="../glossary.html"' in zh_index
    lessons = sorted(root.glob("[0-9]*.ipynb"))
    assert lessons and all((root / "zh" / nb.name).exists() for nb in lessons)
    for nb in lessons:
        assert f'href="../notebooks/zh/{nb.stem}.html"' in zh_index, nb.stem
        english = (site / "notebooks" / f"{nb.stem}.html").read_text(encoding="utf-8")
        chinese = (site / "notebooks" / "zh" / f"{nb.stem}.html").read_text(encoding="utf-8")
        switch = re.compile(r'<div class="course-languages[^"]*">(.*?)</div>', re.DOTALL)
        assert f'href="zh/{nb.stem}.html"' in switch.search(english).group(1), nb.stem
        assert f'href="../{nb.stem}.html"' in switch.search(chinese).group(1), nb.stem
        assert "speaker-notes" not in chinese
    picture = (site / "notebooks" / "zh" / "02_detach.html").read_text(encoding="utf-8")
    assert len(re.findall(r'<img[^>]*src="(\.\./\.\./_images/[^"]+\.svg)"', picture)) >= 3


def check_site_pages_show_pictures_with_alt_text_and_load_nothing_remote(site: Path) -> None:
    page = (site / "notebooks" / "02_detach.html").read_text(encoding="utf-8")
    pictures = re.findall(r'<img[^>]*src="(\.\./_images/[^"]+\.svg)"', page)
    assert len(pictures) >= 3
    for src in pictures:
        assert (site / "notebooks" / src).exists()
    assert "Autograd graph drawn by minigrad.viz: " in page
    assert "speaker-notes" not in page
    assert (
        "_static/mathjax/tex-chtml.js" in (site / "notebooks" / "09_myth_busting.html").read_text()
    )
    for html_page in site.rglob("*.html"):
        text = html_page.read_text(encoding="utf-8")
        assert build_site.remote_sources(text) == [], html_page
        assert build_site.images_without_alt(text) == [], html_page


def test_slides_and_site_build_offline(slides: Path, site: Path, notebook_copy: Path) -> None:
    """One test for all checks of the built decks and site, so that pytest-xdist does not
    build them once per worker."""
    check_every_notebook_but_the_solutions_has_a_deck(slides, notebook_copy)
    check_site_has_an_index_and_a_page_per_notebook(site, notebook_copy)
    check_site_pages_show_pictures_with_alt_text_and_load_nothing_remote(site)
    check_the_chinese_edition_has_its_index_and_a_language_switch(site, notebook_copy)


# ---- cheat sheet, guide, copies -----------------------------------------------------------------


def test_cheatsheet_is_one_page_and_has_a_png() -> None:
    pypdf = pytest.importorskip("pypdf")
    pdf = REPO / "figures" / "cheatsheet.pdf"
    reader = pypdf.PdfReader(str(pdf))
    assert len(reader.pages) == 1
    width, height = (float(v) for v in reader.pages[0].mediabox[2:])
    # Fits A4 (595 x 842 pt) and Letter (612 x 792 pt) without scaling.
    assert width <= 595.5 and height <= 792.5
    text = reader.pages[0].extract_text()
    for name in ("detach()", "detach_()", "x.data", "clone()", "no_grad"):
        assert name in text
    png = REPO / "figures" / "cheatsheet.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


NEW_NAMES = {  # today's notebook -> its name(s) after edition2 (NOTEBOOKS.md)
    "07_patterns": ["07_training_patterns", "08_gradient_surgery"],
    "08_myth_busting": ["09_myth_busting"],
    "09_exercises": ["10_exercises"],
    "09_exercises_solutions": ["10_exercises_solutions"],
}


def test_teaching_guide_names_every_notebook_and_sessions_add_up() -> None:
    guide = (REPO / "docs" / "teaching.md").read_text(encoding="utf-8")
    for nb in course_notebooks():
        for name in NEW_NAMES.get(nb.stem, [nb.stem]):
            assert name in guide, f"docs/teaching.md does not name {name}"
    sessions = re.split(r"\n## Session ", guide)[1:]
    assert len(sessions) == 4
    for session in sessions:
        minutes = [int(m) for m in re.findall(r"^\| *(\d+) *\|", session, re.MULTILINE)]
        assert sum(minutes) == 90, session.splitlines()[0]
    assert "make reset NB=" in guide and "make student" in guide


def test_student_copies_have_no_outputs_or_notes(tmp_path: Path) -> None:
    assert students.main(["--out", str(tmp_path / "student")]) == 0
    copies = sorted((tmp_path / "student").rglob("*.ipynb"))
    assert len(copies) == len(course_notebooks())
    assert (tmp_path / "student" / "course_checks" / "__init__.py").exists()
    assert (tmp_path / "student" / "course_checks" / "zh.json").exists()
    for copy in copies:
        for cell in json.loads(copy.read_text(encoding="utf-8"))["cells"]:
            assert "speaker-notes" not in cell["metadata"].get("tags", [])
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None
    assert (tmp_path / "student.zip").exists()


def cheatsheet_facts(lib: ModuleType) -> dict[str, object]:
    """The cheat sheet's table, row by row, run with minigrad or torch (same code)."""
    import numpy as np

    def shares(t: object, u: object) -> bool:
        return bool(np.shares_memory(t.detach().numpy(), u.detach().numpy()))  # type: ignore[attr-defined]

    def flags(t: object) -> tuple[object, ...]:
        return (t.requires_grad, t.is_leaf, t.grad_fn is None)  # type: ignore[attr-defined]

    facts: dict[str, object] = {}
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = a.sigmoid()
    c = x.detach()
    c.add_(0)
    facts["detach"] = (shares(c, x), x._version == c._version == 1, flags(c))
    d = x.data
    d.add_(0)
    facts["data"] = (shares(d, x), x._version, d._version, flags(d))
    y = x.clone()
    facts["clone"] = (shares(y, x), y.requires_grad, y.is_leaf, type(y.grad_fn).__name__)
    z = x.detach().clone()
    facts["detach().clone()"] = (shares(z, x), flags(z))
    with lib.no_grad():
        n = x * 2
    facts["no_grad"] = (flags(n), x.requires_grad)
    b = a * 2
    b.detach_()
    facts["detach_"] = flags(b)
    return facts


def test_cheatsheet_facts_hold_in_minigrad_and_torch() -> None:
    import minigrad

    expected = {
        "detach": (True, True, (False, True, True)),
        "data": (True, 1, 1, (False, True, True)),
        "clone": (False, True, False, "CloneBackward0"),
        "detach().clone()": (False, (False, True, True)),
        "no_grad": ((False, True, True), True),
        "detach_": (False, True, True),
    }
    assert cheatsheet_facts(minigrad) == expected
    try:
        import torch
    except ImportError:
        return  # parity runs where torch imports (CI installs torch 2.13.0)
    assert cheatsheet_facts(torch) == expected
