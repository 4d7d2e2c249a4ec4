"""scripts/translations.py: the zh notebooks are the English ones with translated markdown, and
`check` fails, naming the notebook, the cell and the fix, whenever the two editions drift apart.

The failure modes are tried on copies in a temporary folder (English notebook, translation file,
zh notebook); the last tests look at the course's own files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from scripts import translations

REPO = Path(__file__).resolve().parents[2]

STEM = "02_detach"


@pytest.fixture
def paths(tmp_path: Path) -> translations.Paths:
    """A course of one notebook, 02_detach, with its translation file as committed."""
    layout = translations.Paths.of(tmp_path)
    layout.translations.mkdir(parents=True)
    layout.zh.mkdir(parents=True)
    shutil.copy(REPO / "notebooks" / f"{STEM}.ipynb", layout.english_notebook(STEM))
    shutil.copy(REPO / "translations" / "zh" / f"{STEM}.md", layout.translation(STEM))
    return layout


def run(capsys: pytest.CaptureFixture[str], paths: translations.Paths, *argv: str):
    status = translations.main(list(argv), paths=paths)
    return status, capsys.readouterr().out


def translate_everything(paths: translations.Paths, prefix: str = "中文：") -> None:
    """Stand in for the translators: every block gets Chinese text and the current hash (with
    prefix="", the English text: the placeholders the translators started from)."""
    english = translations.read_notebook(paths.english_notebook(STEM))
    blocks = [
        translations.Block(cell.id, translations.english_hash(cell.source), prefix + cell.source)
        for cell in translations.markdown_cells(english)
    ]
    old = translations.read_translation(paths.translation(STEM))
    text = translations.render(translations.Translation(old.header, blocks))
    paths.translation(STEM).write_text(text, encoding="utf-8")


@pytest.fixture
def translated(paths: translations.Paths, capsys) -> translations.Paths:
    """The fixture course fully translated and built: `check` passes."""
    translate_everything(paths)
    assert run(capsys, paths, "build")[0] == 0
    return paths


def edit_english_markdown(paths: translations.Paths, index: int = 1) -> str:
    """Change the prose of the English notebook's index-th markdown cell; return its id."""
    path = paths.english_notebook(STEM)
    nb = nbformat.read(path, as_version=4)
    cell = translations.markdown_cells(nb)[index]
    cell.source += "\n\nA sentence added to the English."
    nbformat.write(nb, path)
    return cell.id


def test_build_copies_code_cells_and_translates_markdown(translated) -> None:
    """Code as in English (a cell importing viz switches it to Chinese), markdown translated."""
    english = nbformat.read(translated.english_notebook(STEM), as_version=4)
    zh = nbformat.read(translated.zh_notebook(STEM), as_version=4)
    assert zh.metadata["language"] == "zh-CN"
    assert [c.id for c in zh.cells] == [c.id for c in english.cells]
    for en_cell, zh_cell in zip(english.cells, zh.cells, strict=True):
        assert zh_cell.metadata == en_cell.metadata  # tags and slide types too
        if en_cell.cell_type == "code":
            assert zh_cell.source == translations.code_in_chinese(en_cell.source)
            assert zh_cell.outputs == en_cell.outputs
        else:
            assert zh_cell.source == "中文：" + en_cell.source


def test_check_passes_when_in_step_and_build_is_idempotent(translated, capsys) -> None:
    before = translated.zh_notebook(STEM).read_bytes()
    status, out = run(capsys, translated, "check")
    assert (status, out.strip()) == (
        0,
        "translations: 1 zh notebook(s) in step with the English ones",
    )
    run(capsys, translated, "build")
    assert translated.zh_notebook(STEM).read_bytes() == before


def test_build_keeps_the_zh_outputs_of_unchanged_code(translated, capsys) -> None:
    path = translated.zh_notebook(STEM)
    nb = nbformat.read(path, as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code" and c.outputs)
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="中文输出\n")]
    nbformat.write(nb, path)
    run(capsys, translated, "build")
    rebuilt = nbformat.read(path, as_version=4)
    kept = next(c for c in rebuilt.cells if c.id == code.id)
    assert kept.outputs[0]["text"] == "中文输出\n"


def test_changed_english_prose_fails_and_todo_then_accept_fix_it(translated, capsys) -> None:
    cell_id = edit_english_markdown(translated)
    status, out = run(capsys, translated, "check")
    assert status == 1
    assert (
        f"English cell {cell_id} of notebooks/{STEM}.ipynb changed since it was translated" in out
    )
    assert f"scripts.translations accept {STEM} {cell_id}" in out

    status, out = run(capsys, translated, "todo")
    assert f"notebooks/{STEM}.ipynb  cell {cell_id}: the English text changed" in out
    assert "A sentence added to the English." in out  # the text to translate is shown
    assert "translations: 1 block(s) to translate" in out

    assert run(capsys, translated, "accept", STEM, cell_id)[0] == 0
    run(capsys, translated, "build")
    assert run(capsys, translated, "check")[0] == 0


def test_a_code_cell_that_differs_fails(translated, capsys) -> None:
    path = translated.zh_notebook(STEM)
    nb = nbformat.read(path, as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.source += "\nx = 1  # 中文注释"
    nbformat.write(nb, path)
    status, out = run(capsys, translated, "check")
    assert status == 1
    assert f"notebooks/zh/{STEM}.ipynb: code cell {code.id} differs from notebooks/{STEM}" in out
    assert "Code cells must be identical apart from comments" in out and "make notebooks NB=" in out


def test_a_hand_edited_zh_comment_fails_and_names_the_comments_file(translated, capsys) -> None:
    path = translated.zh_notebook(STEM)
    nb = nbformat.read(path, as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.source += "\n# 中文注释"
    nbformat.write(nb, path)
    status, out = run(capsys, translated, "check")
    assert status == 1
    assert f"the comments of code cell {code.id} are not what translations/zh/code_comments" in out


def commented_cell(paths: translations.Paths) -> tuple[str, str]:
    """The id and the first comment of the English notebook's first code cell with one."""
    english = nbformat.read(paths.english_notebook(STEM), as_version=4)
    for cell in english.cells:
        tokens = translations.comment_tokens(cell.source) if cell.cell_type == "code" else None
        if tokens:
            return cell.id, tokens[0].string
    raise AssertionError("no comment in the fixture's notebook")


def test_comments_are_translated_from_the_comments_file_and_only_they_change(
    translated, capsys
) -> None:
    cell_id, comment = commented_cell(translated)
    status, out = run(capsys, translated, "todo")
    assert f"en: {comment}\nzh: " in out and "code comment(s)" in out  # listed as missing
    translated.comments.write_text(f"## {STEM}\n\nen: {comment}\nzh: # 中文的注释\n")
    assert run(capsys, translated, "build")[0] == 0
    english = nbformat.read(translated.english_notebook(STEM), as_version=4)
    zh = nbformat.read(translated.zh_notebook(STEM), as_version=4)
    for en_cell, zh_cell in zip(english.cells, zh.cells, strict=True):
        if en_cell.cell_type != "code":
            continue
        expected = translations.code_in_chinese(en_cell.source)
        assert translations.without_comments(zh_cell.source) == (
            translations.without_comments(expected)
        )
        if en_cell.id == cell_id:
            assert "# 中文的注释" in zh_cell.source and comment not in zh_cell.source
    assert run(capsys, translated, "check")[0] == 0
    assert f"en: {comment}\n" not in run(capsys, translated, "todo")[1]


def test_a_comment_entry_no_english_comment_uses_is_a_warning(translated, capsys) -> None:
    translated.comments.write_text(f"## {STEM}\n\nen: # gone from the code\nzh: # 已删掉\n")
    status, out = run(capsys, translated, "check")
    assert status == 0  # an unused line changes no notebook
    assert f"warning: translations/zh/code_comments.md: under ## {STEM}, 'en: # gone" in out
    translated.comments.write_text(f"## {STEM}\n\nen: # x\nzh: # no Chinese\n")
    status, out = run(capsys, translated, "check")
    assert status == 1 and "the 'zh:' line has no Chinese" in out


def test_removing_comments_uses_python_tokens_not_text() -> None:
    source = 's = "# not a comment"  # a comment\n# a whole line\n\nt = 1'
    assert translations.without_comments(source) == 's = "# not a comment"\n\nt = 1'
    table = {"# a comment": "# 注释", "# a whole line": "# 整行注释"}
    assert translations.translate_comments(source, table) == (
        's = "# not a comment"  # 注释\n# 整行注释\n\nt = 1'
    )
    assert translations.translate_comments("%time x = 1  # c", {"# c": "# 中"}) is not None


def test_a_hand_edited_zh_markdown_cell_fails(translated, capsys) -> None:
    path = translated.zh_notebook(STEM)
    nb = nbformat.read(path, as_version=4)
    cell = translations.markdown_cells(nb)[0]
    cell.source += "\n在 JupyterLab 里改的。"
    nbformat.write(nb, path)
    status, out = run(capsys, translated, "check")
    assert status == 1
    assert f"1 markdown cell(s) ({cell.id}) are not what translations/zh/{STEM}.md says" in out


def test_an_orphan_block_fails_and_update_drops_it(translated, capsys) -> None:
    path = translated.translation(STEM)
    path.write_text(
        path.read_text(encoding="utf-8") + "\n<!-- cell: cell-99 en: 12345678 -->\n多余的段落\n",
        encoding="utf-8",
    )
    status, out = run(capsys, translated, "check")
    assert status == 1
    assert "block cell-99 belongs to no English markdown cell (orphan)" in out

    status, out = run(capsys, translated, "update", STEM)
    assert "dropped orphan block cell-99" in out and "多余的段落" in out
    run(capsys, translated, "build")
    assert run(capsys, translated, "check")[0] == 0


def test_a_new_english_cell_gets_a_placeholder_block(translated, capsys) -> None:
    path = translated.english_notebook(STEM)
    nb = nbformat.read(path, as_version=4)
    new = nbformat.v4.new_markdown_cell("A brand-new paragraph.", id="cell-new")
    nb.cells.insert(3, new)
    nbformat.write(nb, path)
    status, out = run(capsys, translated, "check")
    assert status == 1 and "English markdown cell cell-new" in out and "has no block" in out

    run(capsys, translated, "update")
    text = path.parent.joinpath("..", "translations", "zh", f"{STEM}.md").resolve()
    blocks = translations.read_translation(text).blocks
    placed = [b for b in blocks if b.cell_id == "cell-new"]
    assert placed == [translations.Block("cell-new", "00000000", "A brand-new paragraph.")]
    ids = [b.cell_id for b in blocks]
    assert ids == [c.id for c in nb.cells if c.cell_type == "markdown"]  # in notebook order
    status, out = run(capsys, translated, "check")
    assert "block cell-new is not translated yet" in out

    lines = text.read_text(encoding="utf-8").replace("A brand-new paragraph.", "全新的一段。")
    text.write_text(lines, encoding="utf-8")
    run(capsys, translated, "accept", STEM, "cell-new")
    run(capsys, translated, "build")
    assert run(capsys, translated, "check")[0] == 0


def test_fewer_than_90_percent_chinese_fails(translated, capsys) -> None:
    translation = translations.read_translation(translated.translation(STEM))
    english = translations.read_notebook(translated.english_notebook(STEM))
    by_id = {c.id: c.source for c in translations.markdown_cells(english)}
    cut = len(translation.blocks) // 5  # a fifth back in English: 80 % Chinese
    blocks = [
        translations.Block(b.cell_id, b.en_hash, by_id[b.cell_id]) if i < cut else b
        for i, b in enumerate(translation.blocks)
    ]
    text = translations.render(translations.Translation(translation.header, blocks))
    translated.translation(STEM).write_text(text, encoding="utf-8")
    run(capsys, translated, "build")
    status, out = run(capsys, translated, "check")
    assert status == 1
    assert f"notebooks/zh/{STEM}.ipynb: only 8" in out and "at least 90% must be" in out


def test_untranslated_placeholders_are_only_a_warning_while_allowed(paths, capsys, monkeypatch):
    translate_everything(paths, prefix="")  # English placeholders, no Chinese
    run(capsys, paths, "build")
    monkeypatch.setattr(translations, "ALLOW_UNTRANSLATED_PLACEHOLDERS", True)
    status, out = run(capsys, paths, "check")
    assert status == 0 and "1 zh notebook(s) have no Chinese yet" in out
    monkeypatch.setattr(translations, "ALLOW_UNTRANSLATED_PLACEHOLDERS", False)
    status, out = run(capsys, paths, "check")
    assert status == 1 and "only 0% of its markdown cells are in Chinese" in out


def test_a_missing_zh_notebook_or_a_stray_one_fails(translated, capsys) -> None:
    shutil.copy(translated.zh_notebook(STEM), translated.zh / "99_gone.ipynb")
    translated.zh_notebook(STEM).unlink()
    status, out = run(capsys, translated, "check")
    assert status == 1
    assert f"notebooks/zh/{STEM}.ipynb: missing" in out
    assert "notebooks/zh/99_gone.ipynb: no English notebook" in out


def test_names_may_be_stems_or_any_of_the_notebooks_files(translated, capsys) -> None:
    for name in (STEM, f"notebooks/{STEM}.ipynb", f"notebooks/zh/{STEM}.ipynb", f"md/{STEM}.md"):
        assert translations.stem_of(name, translated) == STEM
    status, out = run(capsys, translated, "check", "11_nonexistent")
    assert status == 2 and "no English notebook for 11_nonexistent" in out
    assert translations.stems_of([str(translated.english)], translated) == [STEM]  # a folder


def test_make_notebooks_builds_and_runs_the_zh_notebooks_last() -> None:
    """After the English run, the slide metadata and the md/ twins: what the zh copies take."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nnotebooks: setup", 1)[1].split("\n\n", 1)[0]
    steps = [line.strip() for line in recipe.splitlines() if line.strip().startswith("@$(PY)")]
    assert [step.split()[2] for step in steps] == [
        "scripts.run_notebooks",
        "scripts.slides_metadata",
        "scripts.notebook_pairs",
        "scripts.translations",
    ]
    assert steps[-1] == "@$(PY) -m scripts.translations build --execute $(NB)"


TRANSLATION_FILES = sorted(
    path
    for path in (REPO / "translations" / "zh").glob("*.md")
    if path.stem != translations.COMMENTS  # (not blocks: a table of comments)
)


@pytest.mark.parametrize("path", TRANSLATION_FILES, ids=str)
def test_translation_files_round_trip_and_update_keeps_them(path: Path, tmp_path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert translations.render(translations.parse(text)) == text
    layout = translations.Paths.of(tmp_path)
    layout.translations.mkdir(parents=True)
    layout.english.mkdir(parents=True)
    if path.stem == translations.CHECKS:  # the exercise checks' messages: their package
        shutil.copytree(REPO / "notebooks" / translations.CHECKS, layout.checks)
    else:
        shutil.copy(REPO / "notebooks" / f"{path.stem}.ipynb", layout.english_notebook(path.stem))
    shutil.copy(path, layout.translation(path.stem))
    assert translations.update(path.stem, layout) is False  # in step: nothing to rewrite


def test_the_course_is_in_step(capsys) -> None:
    status, out = translations.main(["check"]), capsys.readouterr().out
    assert status == 0, out
    stems = {p.stem for p in (REPO / "notebooks").glob("*.ipynb")}
    assert {p.stem for p in (REPO / "notebooks" / "zh").glob("*.ipynb")} == stems
    translated = {p.stem for p in (REPO / "translations" / "zh").glob("*.md")}
    assert translated == stems | {translations.CHECKS, translations.COMMENTS}


def test_the_temporary_placeholder_allowance_goes_once_the_translations_are_in() -> None:
    """ALLOW_UNTRANSLATED_PLACEHOLDERS lets English placeholders pass the 90 % rule only until
    translations/zh/ is translated; then it must be switched off, so the rule holds for good."""
    layout = translations.Paths.of(REPO)
    english = [
        stem
        for stem in layout.stems()
        if not any(
            translations.is_chinese(b.text)
            for b in translations.read_translation(layout.translation(stem)).blocks
        )
    ]
    if translations.ALLOW_UNTRANSLATED_PLACEHOLDERS:
        assert english, (
            "every translation file is in Chinese now: set ALLOW_UNTRANSLATED_PLACEHOLDERS = "
            "False in scripts/translations.py (and delete this reminder's first branch)"
        )


def test_only_a_cell_importing_viz_gets_the_language_line() -> None:
    line = translations.VIZ_IN_CHINESE
    imports = "import minigrad as mg\nfrom minigrad import data, nn, optim, viz\nx = 1"
    assert translations.code_in_chinese(imports) == imports.replace("viz\n", f"viz\n\n{line}\n")
    assert translations.code_in_chinese("from minigrad import nn, optim") == (
        "from minigrad import nn, optim"
    )
    once = translations.code_in_chinese(imports)
    assert translations.code_in_chinese(once) == once  # built twice: still one line
