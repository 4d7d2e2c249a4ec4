"""viz.set_language: every fixed word of a picture, a summary and a stepper, in English or Chinese.

The Chinese edition's notebooks switch it on (`viz.set_language("zh")`); code, names, tensors
and error messages stay as Python and torch print them.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

import minigrad as mg
from minigrad import viz
from minigrad.viz import words

VIZ = Path(viz.__file__).resolve().parent
# English words that must not be left in a Chinese picture or text (names and code aside)
ENGLISH = re.compile(
    r"\b(saved|shared memory|version|before|after|leaf|requires grad|freed|backward will|"
    r"what changed|step \d|steps|values:|graph:|changed|memory|counter|storage|tensors:)\b"
)


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    viz.set_language("en")


def templates_in_the_code() -> set[str]:
    """The English template of every `say("...")` call in minigrad/viz."""
    found = set()
    for path in VIZ.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "say":
                first = node.args[0]
                # a literal, or `say("a" if ... else "b")`
                choices = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
                for choice in choices:
                    assert isinstance(choice, ast.Constant), f"{path.name}:{node.lineno}"
                    found.add(choice.value)
    return found


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_template_has_its_chinese_and_no_chinese_is_left_over():
    used = templates_in_the_code()
    assert sorted(used - set(words.ZH)) == []
    assert sorted(set(words.ZH) - used) == []


def test_the_chinese_fills_the_same_fields():
    for english, chinese in words.ZH.items():
        assert fields(english) == fields(chinese), english


def test_english_by_default_and_a_clear_error_for_another_language():
    assert viz.current_language() == "en"
    with pytest.raises(ValueError, match=r"unknown language 'fr'; choose one of: en, zh"):
        viz.set_language("fr")
    assert viz.current_language() == "en"


def data_cut() -> viz.Comparison:
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    d = out.data
    return viz.cut(lambda: d.zero_(), out, names=dict(a=a, out=out, d=d), label="d.zero_()")


def visible_text(source: str) -> str:
    """The words of a DOT source's labels, without tags, ids and attribute names."""
    # an HTML-like label ends at the '>' that a space and the next attribute, or ']', follow
    labels = re.findall(r'label=(<.*?>(?= \w+=|\]|$)|"[^"]*")', source, re.M)
    assert labels, "no labels found"
    return " ".join(re.sub(r"<[^>]+>", " ", label) for label in labels)


def test_a_chinese_picture_has_no_english_words_left():
    english = data_cut().draw(legend=True).source
    assert len(ENGLISH.findall(visible_text(english))) > 20  # the check finds them
    viz.set_language("zh")
    source = data_cut().draw(legend=True).source
    for chinese in (
        "之前",
        "执行 d.zero_() 之后",
        "共享内存 S1",
        "保存时 v0 / 现在 v0",
        "内存经由 d",
    ):
        assert chinese in source
    assert "叶子，需要梯度，v0" in source and "需要梯度的叶子张量" in source  # a node, the legend
    assert ENGLISH.findall(visible_text(source)) == []


def test_a_chinese_summary_keeps_code_and_names():
    viz.set_language("zh")
    comparison = data_cut()
    assert comparison.summary().splitlines()[:2] == ["执行 d.zero_() 之后：", "  d：版本 v0 -> v1"]
    text = viz.summary(comparison.after)
    assert "  out  非叶子    grad_fn=SigmoidBackward0  float32 (3,)  v0  存储 S1" in text
    assert "保存：result=out（保存时 v0，现在 v0）" in text
    assert ENGLISH.findall(text) == []


def test_a_chinese_stepper_text_html_and_widget():
    viz.set_language("zh")
    stepped = viz.cut_stepper("data")
    text, page = stepped.text(), stepped.html()
    assert text.startswith("viz.cut_stepper('data')：共 5 步")
    assert "第 4 步（共 5 步）：d.zero_()" in text and "变化：" in text and "计算图：" in text
    assert "<- 悄无声息地错了：没有报错" in text
    assert "（选择某一步展开）" in page and "第 1 步（共 5 步）" in page
    prose = re.sub(r"<svg.*?</svg>|<[^>]+>|tensor\(.*?\)", " ", page, flags=re.S)
    assert ENGLISH.findall(prose) == []
    pytest.importorskip("ipywidgets")
    box = stepped.widget()
    controls = box.children[1].children
    assert [c.description for c in controls] == ["步骤", "◀ 上一步", "下一步 ▶", "先预测", "显示"]


def test_pictures_follow_the_language_when_they_are_drawn():
    comparison = data_cut()
    english = comparison.draw().source
    viz.set_language("zh")
    assert comparison.draw().source != english and "之前" in comparison.draw().source
    viz.set_language("en")
    assert comparison.draw().source == english


def test_the_text_shown_instead_of_a_picture_follows_the_language():
    """What an untrusted notebook or a plain-text viewer shows in place of a picture."""
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = (a * 2).sum()

    def reprs() -> list[str]:
        one_change = viz.cut(lambda: out.detach(), out)
        stepped = viz.cut_stepper("data")
        return [repr(x) for x in (viz.draw(out), data_cut(), one_change, stepped)]

    english = reprs()
    assert english[:3] == [
        "<minigrad.viz graph: 7 nodes, 6 edges>",
        "<minigrad.viz comparison after d.zero_(): 2 changes>",
        "<minigrad.viz comparison after out.detach(): 1 change>",
    ]
    assert english[3].startswith("<minigrad.viz stepper: 5 steps; the last, ")
    viz.set_language("zh")
    chinese = reprs()
    assert chinese[:3] == [
        "<minigrad.viz 计算图：7 个节点，6 条边>",
        "<minigrad.viz 前后对比：执行 d.zero_() 之后，2 处变化>",
        "<minigrad.viz 前后对比：执行 out.detach() 之后，1 处变化>",
    ]
    assert chinese[3].startswith("<minigrad.viz 步进器：共 5 步；最后一步 ")
    assert re.search(r"<minigrad.viz 快照（.+）：\d+ 个张量，", repr(viz.snapshot(out)))
    for text in chinese:
        assert ENGLISH.findall(text) == [] and not re.search(r"\b(nodes|edges|change)\b", text)


def test_names_in_a_chinese_text_are_joined_with_the_enumeration_comma():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = a.sigmoid()
    assert words.listing(["a", "out"]) == "a, out"
    viz.set_language("zh")
    assert words.listing(["a", "out"]) == "a、out"
    text = viz.cut(lambda: out.detach_(), out, names=dict(a=a, out=out)).summary()
    assert "不再可达：AccumulateGrad(a)、SigmoidBackward0" in text
