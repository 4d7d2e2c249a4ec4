"""The classroom edition: slide metadata, slides, website, cheat sheet, teacher's guide, copies.

The slides and the site are built for real (nbconvert, Sphinx) from a temporary copy of the
notebooks given fresh slide metadata, so these tests hold both before and after the lead applies
scripts/slides_metadata.py to the committed notebooks. They need the browser files in
vendor/node_modules (scripts/setup_classroom.sh): without them they skip, except in CI (CI=true),
where a missing install is a failure.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path
from types import ModuleType

import pytest

import minigrad
import minigrad as mg
from scripts import build_site, build_slides, course
from scripts import slides_metadata as meta
from scripts import student_copies as students

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
SCRIPTS = REPO / "scripts"


def load(path: Path) -> ModuleType:
    """Import a file that is not in a package by its path (docs/conf.py, figures/)."""
    spec = importlib.util.spec_from_file_location(f"classroom_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
        code("x = 1"),  # the set-up cell: not on the slides
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
        "skip",
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
    cells = [code("import x"), md("## Section"), md("text\n" * 16), code("print()", [stream])]
    assert meta.slide_types(cells)[3] == "subslide"


def test_setup_and_torch_cells_stay_off_the_slides() -> None:
    torch_cell = code("print(experiment(mg))") | {"metadata": {"tags": ["torch-parity"]}}
    cells = [
        md("# Title"),
        code("import minigrad as mg\n%xmode Minimal"),
        md("## A section"),
        code("x = 1"),
        md("## The same code in PyTorch"),
        md("The cell below replays ..."),
        torch_cell,
        md("## Summary"),
    ]
    kinds = meta.slide_types(cells)
    assert kinds[1] == "skip"  # the set-up cell
    assert kinds[4:7] == ["skip", "skip", "skip"]  # the torch section, heading included
    assert kinds[7] == "slide"


def test_old_notes_cells_are_removed_and_rerun_is_a_no_op() -> None:
    notes = md("**Speaker notes.** Say this.") | {"metadata": {"tags": ["speaker-notes"]}}
    nb = {"cells": [md("# Title"), md("## First"), notes, code("1"), md("## Second")]}
    new = meta.updated(json.loads(json.dumps(nb | {"metadata": {}})))
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in new["cells"]]
    assert kinds == ["slide", "slide", "skip", "slide"]  # "1" is the set-up cell
    again = meta.updated(json.loads(meta.dump(new)))
    assert meta.dump(again) == meta.dump(new)


TEACHER_WORDS = re.compile(r"speaker notes|讲者备注|演讲者备注|讲师备注|teacher'?s? notes", re.I)


def test_no_teacher_notes_in_the_learners_notebooks() -> None:
    """Notes for the teacher live in docs/speaker_notes/ and reach the slides only (issue 24)."""
    found = []
    for path in course_notebooks():
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            tags = cell.get("metadata", {}).get("tags", [])
            kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
            text = meta.source_text(cell)
            if "speaker-notes" in tags or kind == "notes" or TEACHER_WORDS.search(text[:80]):
                found.append(f"{path.relative_to(NOTEBOOKS)} cell {index}: {text[:60]!r}")
    assert found == [], "teacher notes in a learner's notebook:\n" + "\n".join(found)


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


def run_script(name: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", f"scripts.{name}", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )


REPOSITORY = "example-org/cutting-the-graph"  # the one setting the site's links come from


@pytest.fixture(scope="module")
def slides(notebook_copy: Path) -> Path:
    out = notebook_copy.parent / "slides"
    # --stored: the stored outputs, no second run (the browser test builds the real decks).
    args = ["--stored", "--out", str(out), "--notebooks", str(notebook_copy)]
    done = run_script("build_slides", *args)
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
    english, chinese = index.split('<section lang="zh-CN">')  # the index lists both languages
    assert '<section lang="en">\n<h2>English</h2>' in english and "中文" in chinese
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
        env={"COURSE_REPOSITORY": REPOSITORY},
    )
    assert done.returncode == 0, done.stdout + done.stderr  # the build fails on a broken link
    return out


def check_site_has_an_index_and_a_page_per_notebook(site: Path, notebook_copy: Path) -> None:
    index = (site / "index.html").read_text(encoding="utf-8")
    for nb in notebook_copy.rglob("*.ipynb"):
        rel = nb.relative_to(notebook_copy).with_suffix(".html")
        if nb.stem.endswith("_solutions"):  # not published unless --with-solutions
            assert not (site / "notebooks" / rel).exists(), rel
            assert not (site / "_sources" / "notebooks" / nb.relative_to(notebook_copy)).exists()
            continue
        assert (site / "notebooks" / rel).exists(), rel
        assert f"notebooks/{rel.as_posix()}" in index, rel
        page = (site / "notebooks" / rel).read_text(encoding="utf-8")
        deck = "../" * len(rel.parts) + f"slides/{rel.with_suffix('').as_posix()}.slides.html"
        assert f'href="{deck}"' in page, f"{rel}: no link to its deck"
        download = site / "_sources" / "notebooks" / nb.relative_to(notebook_copy)
        assert download.read_bytes() == nb.read_bytes(), f"{rel}: download is not the notebook"
    assert "teaching.html" in index and "cheatsheet.html" in index
    assert f"mybinder.org/v2/gh/{REPOSITORY}/" in index
    assert (
        f"github.com/{REPOSITORY}" in index and "cutting-the-graph/cutting-the-graph" not in index
    )
    assert (site / "slides" / "index.html").exists()
    assert 'href="zh/index.html"' in index
    assert '<html lang="zh-CN"' in (site / "notebooks" / "zh" / "02_detach.html").read_text()


def check_the_chinese_edition_has_its_index_and_a_language_switch(site: Path, root: Path) -> None:
    """docs/zh/index.md lists every zh lesson and the glossary; every lesson page links to its
    twin in the other language."""
    zh_index = (site / "zh" / "index.html").read_text(encoding="utf-8")
    assert "切断计算图：中文版" in zh_index and 'href="../glossary.html"' in zh_index
    lessons = sorted(p for p in root.glob("[0-9]*.ipynb") if not p.stem.endswith("_solutions"))
    assert lessons and all((root / "zh" / nb.name).exists() for nb in lessons)
    for nb in lessons:
        assert f'href="../notebooks/zh/{nb.stem}.html"' in zh_index, nb.stem
        english = (site / "notebooks" / f"{nb.stem}.html").read_text(encoding="utf-8")
        chinese = (site / "notebooks" / "zh" / f"{nb.stem}.html").read_text(encoding="utf-8")
        switch = re.compile(r'<div class="course-lesson-links[^"]*">(.*?)</div>', re.DOTALL)
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
    # each picture's alt is the text alternative viz wrote into it (what it shows, drawn from
    # the graph), not the label list made for a picture without one
    images = [tag for tag in re.findall(r"<img\b[^>]*>", page) if "_images/" in tag]
    alts = [html.unescape(m.group(1)) for tag in images if (m := re.search(r'alt="([^"]*)"', tag))]
    assert len(alts) == len(images) >= 3
    assert not [alt for alt in alts if alt.startswith("Autograd graph drawn by minigrad.viz")]
    assert any("out.detach()" in alt for alt in alts), alts
    assert "speaker-notes" not in page
    assert (
        "_static/mathjax/tex-chtml.js" in (site / "notebooks" / "11_myth_busting.html").read_text()
    )
    for html_page in site.rglob("*.html"):
        text = html_page.read_text(encoding="utf-8")
        assert build_site.remote_sources(text) == [], html_page
        assert build_site.images_without_alt(text) == [], html_page


SLIDE_REF = re.compile(r"`(zh/)?(\d\d_\w+) #/(\d+)(?:–(\d+))?`")


def check_the_guides_slide_maps_name_real_columns(slides: Path) -> None:
    """Every `deck #/a–b` of the guides names columns the deck has, and each lesson row of a
    session covers its deck's columns from #/0 to the last (no section left out)."""
    for guide in (REPO / "docs" / "teaching.md", REPO / "docs" / "zh" / "teaching.md"):
        text = guide.read_text(encoding="utf-8")
        refs = SLIDE_REF.findall(text)
        assert len(refs) >= 11, guide
        for zh, stem, first, last in refs:
            deck = slides / (zh or "") / f"{stem}.slides.html"
            columns = build_slides.deck_map(deck.read_text(encoding="utf-8"))
            end = int(last or first)
            assert end < len(columns), f"{guide.name}: {stem} has no column {end}"
        covered: dict[str, set[int]] = {}
        for _, stem, first, last in refs:
            covered.setdefault(stem, set()).update(range(int(first), int(last or first) + 1))
        for nb in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")):
            if nb.stem.endswith("_solutions") or nb.stem == "12_exercises":  # homework
                continue
            deck = slides / f"{nb.stem}.slides.html"
            columns = build_slides.deck_map(deck.read_text(encoding="utf-8"))
            missing = set(range(len(columns))) - covered.get(nb.stem, set())
            assert not missing, f"{guide.name}: {nb.stem} columns {sorted(missing)} in no session"


def test_slides_and_site_build_offline(slides: Path, site: Path, notebook_copy: Path) -> None:
    """One test for all checks of the built decks and site, so that pytest-xdist does not
    build them once per worker."""
    check_the_guides_slide_maps_name_real_columns(slides)
    check_every_notebook_but_the_solutions_has_a_deck(slides, notebook_copy)
    check_site_has_an_index_and_a_page_per_notebook(site, notebook_copy)
    check_site_pages_show_pictures_with_alt_text_and_load_nothing_remote(site)
    check_the_chinese_edition_has_its_index_and_a_language_switch(site, notebook_copy)


# ---- cheat sheet, guide, copies -----------------------------------------------------------------


def test_cheatsheets_print_on_one_sheet_with_legible_pictures(tmp_path: Path) -> None:
    """English and Chinese, filled in (table on the front, pictures on the back) and blank
    (front only); A4 and Letter without scaling; every picture label at least 6 pt printed."""
    pypdf = pytest.importorskip("pypdf")
    cheatsheet = load(REPO / "figures" / "cheatsheet.py")
    for name, pages in [
        ("cheatsheet", 2),
        ("cheatsheet_blank", 1),
        ("cheatsheet_zh", 2),
        ("cheatsheet_zh_blank", 1),
    ]:
        reader = pypdf.PdfReader(str(REPO / "figures" / f"{name}.pdf"))
        assert len(reader.pages) == pages, name
        width, height = (float(v) for v in reader.pages[0].mediabox[2:])
        # Fits A4 (595 x 842 pt) and Letter (612 x 792 pt) without scaling.
        assert width <= 595.5 and height <= 792.5
        text = reader.pages[0].extract_text()
        for code in ("detach()", "detach_()", "x.data", "clone()", "no_grad"):
            assert code in text, (name, code)
        if "blank" in name:
            assert "shared with x" not in text and "与 x 共享" not in text
        if "_zh" in name:
            assert "计" in text and "版本" in text
    for language in ("en", "zh"):
        for _, width, _, _ in cheatsheet.picture_files(language, tmp_path):
            assert width < 540  # fits the page's 190 mm without being scaled down
        for _part, stem, _ in cheatsheet.TEXT[language]["pictures"]:
            svg = (REPO / "figures" / f"{stem}.svg").read_text(encoding="utf-8")
            smallest = min(float(v) for v in re.findall(r'font-size="([\d.]+)"', svg))
            assert smallest * cheatsheet.PICTURE_SCALE >= cheatsheet.SMALLEST_PRINTED_PT
    for png in ("cheatsheet.png", "cheatsheet_zh.png"):
        assert (REPO / "figures" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


NEW_NAMES = {  # today's notebook -> its name(s) after edition2 (NOTEBOOKS.md)
    "07_patterns": ["07_training_patterns", "08_gradient_surgery"],
    "08_myth_busting": ["11_myth_busting"],
    "09_exercises": ["12_exercises"],
    "09_exercises_solutions": ["12_exercises_solutions"],
}


def test_teaching_guide_names_every_notebook_and_sessions_add_up() -> None:
    guide = (REPO / "docs" / "teaching.md").read_text(encoding="utf-8")
    for nb in course_notebooks():
        for name in NEW_NAMES.get(nb.stem, [nb.stem]):
            assert name in guide, f"docs/teaching.md does not name {name}"
    sessions = re.split(r"\n## Session ", guide)[1:]
    # Four sessions are the course; a fifth (notebooks 09 and 10, hooks and higher-order
    # gradients) is for groups that go on: 145 minutes of careful reading do not fit into
    # session 4, which already ends the course with the myths, the exercises and the cheat sheet.
    assert len(sessions) == 5
    for session in sessions:
        minutes = [int(m) for m in re.findall(r"^\| *(\d+) *\|", session, re.MULTILINE)]
        assert sum(minutes) == 90, session.splitlines()[0]
    assert "make reset NB=" in guide and "make student" in guide


def check_yourself_questions(path: Path) -> int:
    """How many numbered "check yourself" questions a notebook asks (the folded answers a
    learner can open after trying, `<details>`, are not questions)."""
    text = "".join(
        meta.source_text(c) + "\n"
        for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
    )
    match = re.search(r"#+ (?:Check yourself|自测)\n(.*?)(?=\n#|\n<details>|\Z)", text, re.DOTALL)
    return len(re.findall(r"^\d+\. ", match.group(1), re.MULTILINE)) if match else 0


@pytest.mark.parametrize("guide", ["teaching.md", "zh/teaching.md"])
def test_the_guides_answer_every_question_and_time_every_prompt(guide: str) -> None:
    text = (REPO / "docs" / guide).read_text(encoding="utf-8")
    answers = text.split("\n## ", 1)[1].split("\n### ")
    by_notebook = {part.split("\n", 1)[0].strip(): part for part in answers[1:]}
    for path in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")):
        asked = check_yourself_questions(path)
        if path.stem.endswith("_solutions") or not asked:
            continue
        given = re.findall(r"^\d+\. ", by_notebook.get(path.stem, ""), re.MULTILINE)
        assert len(given) == asked, f"{guide}: {path.stem} asks {asked}, answers {len(given)}"
    prompts = re.findall(r"^- \*[\"“]|^- [(（]\d+ (?:min|分钟)[)）]", text, re.MULTILINE)
    assert prompts and all(p[2] in "(（" for p in prompts), "a prompt without minutes"
    assert len(re.findall(r"^(?:## Session|## 第 . 次课)", text, re.MULTILINE)) == 5  # see above
    for marker in ("make reset NB=", "make student", "print-pdf", "SOLUTIONS=1"):
        assert marker in text, (guide, marker)


def test_the_handout_has_no_outputs_no_solutions_and_runs_alone(tmp_path: Path) -> None:
    out = tmp_path / "student"
    assert students.main(["--out", str(out)]) == 0
    copies = sorted(out.rglob("*.ipynb"))
    expected = [p for p in course_notebooks() if not p.stem.endswith("_solutions")]
    assert len(copies) == len(expected) and not list(out.rglob("*_solutions*"))
    assert (out / "course_checks" / "__init__.py").exists()
    assert (out / "course_checks" / "zh.json").exists()
    for copy in copies:
        for cell in json.loads(copy.read_text(encoding="utf-8"))["cells"]:
            assert "speaker-notes" not in cell["metadata"].get("tags", [])
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None
    assert (tmp_path / "student.zip").exists()
    # It runs alone: minigrad comes with it (importable from the handout, installable with
    # pip), and README.md says how.
    for source in (REPO / "minigrad").rglob("*.py"):
        assert (out / source.relative_to(REPO)).read_bytes() == source.read_bytes()
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "pip install -r requirements.txt" in readme and "pip install ." in readme
    assert "graphviz" in readme.lower() and "安装" in readme
    assert "numpy" in (out / "requirements.txt").read_text()
    found = subprocess.run(
        [sys.executable, "-c", "import minigrad; print(minigrad.__file__)"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(out)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(found.stdout.strip()).is_relative_to(out)
    project = tomllib.loads((out / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "minigrad"
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == [
        "minigrad",
        "minigrad.*",
    ]


def test_the_handout_has_the_solutions_when_asked(tmp_path: Path) -> None:
    assert students.main(["--out", str(tmp_path / "s"), "--with-solutions"]) == 0
    assert (tmp_path / "s" / "12_exercises_solutions.ipynb").exists()
    assert (tmp_path / "s" / "zh" / "12_exercises_solutions.ipynb").exists()


def cheatsheet_facts(lib: ModuleType) -> dict[str, object]:
    """Every statement of the cheat sheet (figures/cheatsheet.py), row by row and rule by
    rule, run with minigrad or torch (the same code)."""
    import numpy as np

    def shares(t: object, u: object) -> bool:
        return bool(np.shares_memory(t.detach().numpy(), u.detach().numpy()))  # type: ignore[attr-defined]

    def flags(t: object) -> tuple[object, ...]:
        return (t.requires_grad, t.is_leaf, t.grad_fn is None)  # type: ignore[attr-defined]

    def raises(action: object) -> str:
        try:
            action()  # type: ignore[operator]
        except RuntimeError as err:
            return str(err).split(".")[0][:40]
        return ""

    facts: dict[str, object] = {}
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = a.sigmoid()
    c = x.detach()
    c.add_(0)
    facts["detach"] = (c is x, shares(c, x), x._version == c._version == 1, flags(c))
    b = a * 2
    before = b._version
    same = b
    b.detach_()
    facts["detach_"] = (same is b, b._version - before, flags(b))
    s = (a * 2).sum()
    facts["detach_ view"] = raises(lambda: (a * 2)[1:].detach_())
    b = a * 2
    s = b.sum()
    b.detach_()
    s.backward()
    facts["detach_ keeps earlier edges"] = a.grad.tolist()
    b = a * 2
    q = (b**2).sum()
    b.detach_()
    facts["detach_ of a saved tensor"] = raises(q.backward)
    d = x.data
    facts["data"] = (shares(d, x), x._version, d._version, flags(d), x.requires_grad)
    d.add_(0)
    facts["data counter"] = (x._version, d._version)
    y = x.clone()
    facts["clone"] = (shares(y, x), y.requires_grad, y.is_leaf, type(y.grad_fn).__name__)
    z = x.detach().clone()
    w = x.clone().detach()
    facts["detach().clone()"] = (shares(z, x), flags(z), shares(w, x), flags(w))
    with lib.no_grad():
        n = x * 2
        v = x[1:]
    facts["no_grad"] = (flags(n), x.requires_grad, flags(v), v._version == x._version)
    with lib.no_grad():
        x.mul_(1)
    facts["no_grad in-place counts"] = (x._version, v._version)
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.detach().zero_()
    facts["rule: through detach()"] = raises(lambda: out.sum().backward())
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.data.zero_()
    out.sum().backward()
    facts["rule: through .data"] = a.grad.tolist()
    return facts


CHEATSHEET_TRUTH = {  # what torch 2.13 does: the sheet states exactly this
    "detach": (False, True, True, (False, True, True)),
    "detach_": (True, 0, (False, True, True)),
    "detach_ view": "Can't detach views in-place",
    "detach_ keeps earlier edges": [2.0, 2.0, 2.0],
    "detach_ of a saved tensor": "Trying to use a saved tensor that has be",
    "data": (True, 1, 0, (False, True, True), True),
    "data counter": (1, 1),
    "clone": (False, True, False, "CloneBackward0"),
    "detach().clone()": (False, (False, True, True), False, (False, True, True)),
    "no_grad": ((False, True, True), True, (True, True, True), True),
    "no_grad in-place counts": (2, 2),
    "rule: through detach()": "one of the variables needed for gradient",
    "rule: through .data": [0.0, 0.0, 0.0],
}


def test_cheatsheet_statements_are_what_torch_does() -> None:
    torch = pytest.importorskip("torch")  # CI installs torch 2.13.0
    assert cheatsheet_facts(torch) == CHEATSHEET_TRUTH


def test_cheatsheet_statements_hold_in_minigrad() -> None:
    facts = cheatsheet_facts(minigrad)
    assert facts == CHEATSHEET_TRUTH


# ---- the site's settings and checks ---------------------------------------------------------


def test_the_repository_comes_from_one_setting_or_the_git_remote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.delenv("COURSE_REPOSITORY", raising=False)
    clone = tmp_path / "clone"
    clone.mkdir()
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    monkeypatch.setenv("COURSE_REPO_DIR", str(clone))
    assert load(REPO / "docs" / "conf.py").repository is None  # no remote: no links at all
    remote = "git@github.com:someone/cutting-the-graph.git"
    subprocess.run(["git", "-C", str(clone), "remote", "add", "origin", remote], check=True)
    assert load(REPO / "docs" / "conf.py").repository == "someone/cutting-the-graph"
    monkeypatch.setenv("COURSE_REPOSITORY", "teacher/fork")
    conf = load(REPO / "docs" / "conf.py")
    assert conf.repository == "teacher/fork"
    assert "mybinder.org/v2/gh/teacher/fork/main" in conf.LAUNCH_LINKS


def test_broken_local_links_are_found(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "_sources").mkdir()
    (tmp_path / "ok.png").write_bytes(b"")
    (tmp_path / "index.html").write_text(
        '<a href="sub/page.html#x">fine</a> <img src="ok.png" alt="a">'
        ' <a href="_sources/">an empty folder</a> <a href="https://example.org/">outside</a>'
        ' <script src="missing.js"></script>'
    )
    (tmp_path / "sub" / "page.html").write_text('<a href="../index.html">up</a>')
    assert build_site.broken_links(tmp_path) == [
        "index.html: _sources/",
        "index.html: missing.js",
    ]


def test_reset_never_loses_an_edited_copy(tmp_path: Path) -> None:
    """Two resets in the same second (02_detach, zh/02_detach, then 02_detach again) keep
    three backups, each with the text it had."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(SCRIPTS / "reset_notebook.sh", tmp_path / "scripts")
    (tmp_path / "notebooks" / "zh").mkdir(parents=True)
    for rel in ("02_detach.ipynb", "zh/02_detach.ipynb"):
        (tmp_path / "notebooks" / rel).write_text("committed\n")

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "x")
    edits = [("02_detach", "edit 1"), ("zh/02_detach.ipynb", "edit 2"), ("02_detach", "edit 3")]
    for name, text in edits:
        path = tmp_path / "notebooks" / (name if name.endswith(".ipynb") else f"{name}.ipynb")
        path.write_text(text + "\n")
        done = subprocess.run(
            ["bash", "scripts/reset_notebook.sh", name],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert path.read_text() == "committed\n"
    backups = sorted((tmp_path / "build" / "reset").iterdir())
    assert sorted(b.read_text() for b in backups) == ["edit 1\n", "edit 2\n", "edit 3\n"]
    assert any(b.name.startswith("zh-02_detach.") for b in backups)


# ---- no machine paths in what learners and teachers see (issue 24) ---------------------------

MACHINE_PATH = re.compile(
    r"(?<![\w.])(?:/(?:home|root|Users|tmp|work|usr|opt|var|private|mnt|srv)/[^\s\"'<>)]+"
    r"|[A-Za-z]:\\\\[^\s\"'<>]+|site-packages|\.pyenv|ipykernel_launcher)"
)


def machine_paths(text: str) -> list[str]:
    """Absolute paths of a machine (and the usual signs of a kernel's own stack) in a text."""
    return MACHINE_PATH.findall(re.sub(r"data:[^\"']+", "", text))


def test_the_anomaly_trace_is_path_free() -> None:
    """minigrad's anomaly-mode warning names files without their folders (04 shows it)."""
    with warnings.catch_warnings(record=True) as caught, mg.autograd.set_detect_anomaly(True):
        warnings.simplefilter("always")
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        out = a.sigmoid()
        out.detach().zero_()
        with pytest.raises(RuntimeError):
            out.sum().backward()
    assert caught and not any(machine_paths(str(w.message)) for w in caught)


def stored_output_texts(path: Path) -> list[tuple[int, str]]:
    """(cell index, text) of every stored output of a notebook, tracebacks included."""
    found = []
    for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        for output in cell.get("outputs", []):
            found.append((index, json.dumps(output, ensure_ascii=False)))
    return found


def test_no_stored_output_names_a_machine_path(slides: Path, site: Path) -> None:
    """Every deliberate error and warning prints short and path-free: in the notebooks' stored
    outputs, and so in the slides and on the site."""
    found = []
    for path in course_notebooks():
        for index, text in stored_output_texts(path):
            if machine_paths(text):
                found.append(
                    f"{path.relative_to(NOTEBOOKS)} cell {index}: {machine_paths(text)[:2]}"
                )
    for page in [*slides.rglob("*.html"), *site.rglob("*.html")]:
        if "_static" not in page.parts and machine_paths(page.read_text(encoding="utf-8")):
            found.append(f"{page.name}: {machine_paths(page.read_text(encoding='utf-8'))[:2]}")
    assert found == [], "machine paths in stored outputs:\n" + "\n".join(found)


def test_a_plot_on_a_site_page_has_its_own_alt(tmp_path: Path) -> None:
    """A matplotlib plot shown with viz.show_plot: the site's <img> (myst-nb writes its PNG
    to a file) gets the alt stored with the output, not the page's generic one."""
    import matplotlib.pyplot as plt
    import nbformat
    from IPython.core.formatters import DisplayFormatter
    from sphinx.cmd.build import build_main

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([3.0, 2.0, 1.0])
    ax.set_title("Falling")
    shown = minigrad.viz.show_plot(fig, alt="the value falls from 3 to 1")
    data, metadata = DisplayFormatter().format(shown)
    output = nbformat.v4.new_output("execute_result", data=data, metadata=metadata)
    output.execution_count = 1
    cells = [
        nbformat.v4.new_markdown_cell("# A plot"),
        nbformat.v4.new_code_cell("plot()", outputs=[output], execution_count=1),
    ]
    src = tmp_path / "src"
    src.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=cells), src / "index.ipynb")
    ext = REPO / "docs" / "_ext"
    # the site's own choice of what to draw (the PNG, not the text/html <img> for JupyterLab)
    site_conf = (REPO / "docs" / "conf.py").read_text(encoding="utf-8")
    priority = re.search(r"^nb_mime_priority_overrides = .*$", site_conf, re.M)
    assert priority is not None
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ext)!r})\n"
        'extensions = ["myst_nb", "course_alt_text"]\nnb_execution_mode = "off"\n'
        f"{priority.group(0)}\n",
        encoding="utf-8",
    )
    assert build_main(["-q", "-b", "html", str(src), str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    images = re.findall(r"<img\b[^>]*>", page)
    assert len(images) == 1 and ".png" in images[0]
    assert html.unescape(re.search(r'alt="([^"]*)"', images[0]).group(1)) == shown.alt
