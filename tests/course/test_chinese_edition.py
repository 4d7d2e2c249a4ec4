"""The Chinese edition's documents: README.zh-CN.md says what README.md says where it matters,
and every Chinese text uses the renderings of docs/glossary.md, not known variants.

The notebooks themselves are checked by scripts/translations.py
(tests/tooling/test_translations.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
README_ZH = REPO / "README.zh-CN.md"
GLOSSARY = REPO / "docs" / "glossary.md"
CHINESE = re.compile(r"[\u4e00-\u9fff]")

# Renderings a translator may reach for that the glossary settles otherwise: variant -> the
# glossary's term. Each must never appear in a Chinese text of the course.
VARIANTS = {
    "叶节点": "叶子节点",
    "叶张量": "叶子张量",
    "就地操作": "原地操作",
    "就地修改": "原地修改",
    "原位操作": "原地操作",
    "原位修改": "原地修改",
    "梯度累积": "梯度累加",
    "梯度积累": "梯度累加",
    "版本号计数器": "版本计数器",
    "版本控制计数器": "版本计数器",
    "前向传递": "前向传播",
    "反向传递": "反向传播",
    "直通估计量": "直通估计器",
    "要求梯度": "需要梯度",
}


def first_bash_block(text: str) -> list[str]:
    """The commands of the first ```bash block, each without its # comment."""
    block = re.search(r"```bash\n(.*?)```", text, re.DOTALL)
    assert block, "no ```bash block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_readme_zh_gives_the_same_two_commands_as_readme() -> None:
    english = first_bash_block(README.read_text(encoding="utf-8"))
    chinese = first_bash_block(README_ZH.read_text(encoding="utf-8"))
    assert english == ["make lab", "make test"]
    assert chinese == english


def test_readme_and_readme_zh_link_each_other() -> None:
    top = README.read_text(encoding="utf-8").split("\n## ", 1)[0]
    assert "(README.zh-CN.md)" in top  # linked from the top of README.md
    assert "### The Chinese edition" in README.read_text(encoding="utf-8")
    assert "(README.md)" in README_ZH.read_text(encoding="utf-8")


def test_readme_zh_is_chinese_lists_every_zh_notebook_and_shows_the_pictures() -> None:
    text = README_ZH.read_text(encoding="utf-8")
    prose = re.sub(r"`[^`]*`|\([^)]*\)|```.*?```", "", text, flags=re.DOTALL)
    assert len(CHINESE.findall(prose)) > 0.5 * len(re.findall(r"[A-Za-z]", prose))
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        assert f"(notebooks/zh/{nb.name})" in text, nb.name
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(pictures) >= 4
    for picture in pictures:
        assert (REPO / picture).exists(), picture
    assert "(docs/glossary.md)" in text


def glossary_rows() -> list[list[str]]:
    lines = GLOSSARY.read_text(encoding="utf-8").splitlines()
    rows = [line.strip("|").split("|") for line in lines if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows[1:]]  # without the header row


def test_glossary_has_english_chinese_and_meaning_for_every_term() -> None:
    rows = glossary_rows()
    assert len(rows) >= 30
    for english, chinese, meaning in rows:
        assert english and chinese and meaning, english
        assert CHINESE.search(chinese) or chinese.startswith("`"), english
        assert CHINESE.search(meaning), english
    terms = " ".join(chinese for _, chinese, _ in rows)
    for variant, right in VARIANTS.items():
        assert variant not in terms, f"the glossary itself uses {variant}"
        assert any(part in terms for part in (right, right[:-2])), right


def chinese_texts() -> list[tuple[str, str]]:
    """(name, text) of every Chinese text of the course: translation files, the markdown of the
    zh notebooks (translations/zh/course_checks.md: the exercise checks' messages), the Chinese
    README and the site's Chinese index."""
    texts = []
    for path in sorted((REPO / "translations" / "zh").glob("*.md")):
        texts.append((f"translations/zh/{path.name}", path.read_text(encoding="utf-8")))
    for path in sorted((REPO / "notebooks" / "zh").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        texts.append((f"notebooks/zh/{path.name}", "\n".join(markdown)))
    for path in (README_ZH, REPO / "docs" / "zh" / "index.md"):
        texts.append((str(path.relative_to(REPO)), path.read_text(encoding="utf-8")))
    return texts


@pytest.mark.parametrize(("name", "text"), chinese_texts(), ids=lambda v: v if "/" in v else "")
def test_chinese_texts_use_the_glossary_renderings(name: str, text: str) -> None:
    found = {variant: right for variant, right in VARIANTS.items() if variant in text}
    assert not found, f"{name}: " + "; ".join(
        f"{variant} -> {right} (docs/glossary.md)" for variant, right in found.items()
    )


# Key ideas whose glossary term a translated notebook must use wherever its English original
# names them: an English pattern -> the Chinese term (docs/glossary.md).
KEY_TERMS = {
    r"\bversion counters?\b": "版本计数器",
    r"\bin-place\b": "原地",
    r"\bleaf\b": "叶子",  # not "leaves", which is also a verb
    r"\bgraphs?\b": "计算图",
    r"\bview\b": "视图",  # not "views": SimSiam's two views of an input are no tensor views
}


def markdown_of(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb")), ids=str
)
def test_translated_notebooks_use_the_glossary_terms_for_key_ideas(name: str) -> None:
    english = markdown_of(REPO / "notebooks" / name)
    chinese = markdown_of(REPO / "notebooks" / "zh" / name)
    if len(CHINESE.findall(chinese)) < len(re.findall(r"[A-Za-z]", chinese)) / 4:
        pytest.skip("not translated yet (English placeholders)")
    missing = [
        term
        for pattern, term in KEY_TERMS.items()
        if re.search(pattern, english, re.IGNORECASE) and term not in chinese
    ]
    assert not missing, f"notebooks/zh/{name} never says {missing} (docs/glossary.md)"
