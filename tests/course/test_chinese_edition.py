"""The Chinese edition's documents: README.zh-CN.md says what README.md says where it matters,
and every Chinese text uses the renderings of docs/glossary.md, not known variants.

The notebooks themselves are checked by scripts/translations.py
(tests/tooling/test_translations.py).
"""

from __future__ import annotations

import html
import json
import re
import string
from pathlib import Path

import pytest

import minigrad as mg

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


# ---- no English UI words of viz in the zh notebooks' stored outputs --------------------------


def viz_english_phrases() -> list[str]:
    """The English words viz writes in pictures, legends, summaries, steppers and the text shown
    in place of a picture: the literal parts of every template `say` translates (its keys), cut
    at punctuation, without code names (`requires_grad`, `grad_fn`, `AccumulateGrad`, `None`)."""
    from minigrad.viz import words

    phrases = set()
    for template in words.ZH:
        for literal, _, _, _ in string.Formatter().parse(template):
            literal = literal.replace("minigrad.viz", ":")
            for part in re.split(r"[:;,()<>=/+#\[\]?]|\s-\s|\s{2,}|<-|->", literal):
                part = part.strip(" .")
                code = re.search(r"[_.]|[a-z][A-Z]|\bNone\b|\bminigrad\b", part)
                if re.search(r"[a-z]{3}", part) and not code:
                    phrases.add(part)
    return sorted(phrases, key=len, reverse=True)


def english_pattern() -> re.Pattern[str]:
    """Any of viz's English phrases as a whole word (not part of a name like `out.view(`)."""
    phrases = "|".join(map(re.escape, viz_english_phrases()))
    return re.compile(r"(?<![\w.])(" + phrases + r")(?![\w(])")


def viz_texts(output: dict) -> list[str]:
    """The words a viz output shows: the SVG's <text> elements, the HTML's text outside code,
    and its text/plain; lines that quote an error message or show a tensor keep only what comes
    before them."""
    data = output.get("data", {})
    if "image/svg+xml" not in data and "text/html" not in data:
        return []  # not a viz display (prints are code: they stay English)
    texts = []
    svg = "".join(data.get("image/svg+xml", ""))
    texts += re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    page = "".join(data.get("text/html", ""))
    page = re.sub(r"<svg.*?</svg>|<code>.*?</code>|<pre.*?</pre>", " ", page, flags=re.S)
    texts += re.findall(r">([^<>]+)<", page)
    texts += "".join(data.get("text/plain", "")).splitlines()
    cut = re.compile(r"\w*(Error|Warning)\b.*|tensor\(.*|step \d+ of \d+: .*|第 \d+ 步.*")
    return [html.unescape(cut.sub("", text)) for text in texts]


def zh_outputs() -> list[tuple[str, dict]]:
    found = []
    for path in sorted((REPO / "notebooks" / "zh").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                found.append((f"{path.name} cell {cell.get('id')}", output))
    return found


def test_the_phrase_list_finds_english_viz_output() -> None:
    """The check below would see English: an English picture and its text are full of it."""
    from minigrad import viz

    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = a.sigmoid()
    comparison = viz.cut(lambda: out.detach(), out, names=dict(a=a, out=out))
    output = {"data": comparison._repr_mimebundle_()[0]}
    phrases = viz_english_phrases()
    found = {p for text in viz_texts(output) for p in phrases if re.search(rf"\b{p}\b", text)}
    assert {"before", "after", "shared memory", "saved", "comparison after"} <= found


@pytest.mark.parametrize("where", ["svg", "html", "plain"])
def test_no_stored_zh_output_shows_viz_english_words(where: str) -> None:
    pattern = english_pattern()
    kinds = {"svg": "image/svg+xml", "html": "text/html", "plain": "text/plain"}
    problems = []
    for name, output in zh_outputs():
        data = output.get("data", {})
        if kinds[where] not in data:
            continue
        only = {"data": {k: v for k, v in data.items() if k == kinds[where]}}
        if where == "plain":
            only["data"]["text/html"] = ""  # (a viz display: its text/plain is viz's)
            if "image/svg+xml" not in data and "text/html" not in data:
                continue
            if "image/svg+xml" not in data and "image/png" in data:
                continue  # a plot (viz.show_plot): its title and labels are its code's words
        for text in viz_texts(only):
            if match := pattern.search(text):
                problems.append(f"{name}: {match.group(0)!r} in {text.strip()[:80]!r}")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize(
    "figure", sorted((REPO / "figures").glob("*_zh.svg")), ids=lambda p: p.name
)
def test_no_chinese_figure_shows_viz_english_words(figure: Path) -> None:
    pattern = english_pattern()
    output = {"data": {"image/svg+xml": figure.read_text(encoding="utf-8")}}
    found = [m.group(0) for text in viz_texts(output) if (m := pattern.search(text))]
    assert not found, f"figures/{figure.name}: {found}"


# ---- code cells: the English code, comments in Chinese -----------------------------------------


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb")), ids=str
)
def test_zh_code_is_the_english_code_with_chinese_comments(name: str) -> None:
    from scripts import translations

    english = json.loads((REPO / "notebooks" / name).read_text(encoding="utf-8"))["cells"]
    chinese = json.loads((REPO / "notebooks" / "zh" / name).read_text(encoding="utf-8"))["cells"]
    english_comments = []
    for en, zh in zip(english, chinese, strict=True):
        if en["cell_type"] != "code":
            continue
        en_source = translations.code_in_chinese("".join(en["source"]))
        zh_source = "".join(zh["source"])
        assert translations.without_comments(zh_source) == (
            translations.without_comments(en_source)
        ), f"notebooks/zh/{name} cell {en.get('id')}: the code differs from the English"
        english_comments += [
            token.string
            for token in translations.comment_tokens(zh_source) or []
            if not CHINESE.search(token.string) and not translations.DIRECTIVE.match(token.string)
        ]
    assert not english_comments, f"notebooks/zh/{name}: English comments {english_comments}"
