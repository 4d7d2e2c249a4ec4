"""scripts/page_language.py: the other language's text on a built page is marked (WCAG 3.1.2).

The rule: on a Chinese page every run of English words in the prose gets <span lang="en">, on
an English page every run of Chinese <span lang="zh-CN">; code and mathematics are exempt, and
nothing outside <body> or inside an element with its own lang changes.
"""

from __future__ import annotations

import re

from scripts.page_language import mark_languages, page_language

ZH_PAGE = """<!DOCTYPE html>
<html lang="zh-CN"><head><title>02 · detach()</title>
<script>var text = "Search the docs";</script></head>
<body><a class="skip-link" href="#main">Skip to main content</a>
<p>调用 <code class="docutils literal"><span class="pre">out.detach()</span></code> 之后，
MulBackward0 仍然保存着 out；requires_grad 为 True。minigrad 的行为与
PyTorch 一致 &amp; 02 · x。</p>
<span class="math notranslate nohighlight">\\(\\frac{\\partial y}{\\partial x}\\)</span>
<pre>tensor([1., 2.], requires_grad=True)</pre>
<p lang="en">Already <em>marked</em> by its author</p>
<img alt="after out.detach(): 图未变" src="a.svg">
<svg role="img"><title>计算图</title><text>leaf tensor</text></svg>
</body></html>"""

EN_PAGE = """<html lang="en"><body>
<nav><a href="zh/02_detach.html">02 · detach()：切断计算图</a></nav>
<p><strong>English</strong> · <a href="zh/x.html">中文</a></p>
<code>print("中文")</code>
</body></html>"""


def english_spans(page: str) -> list[str]:
    return re.findall(r'<span lang="en">(.*?)</span>', page)


def test_on_a_chinese_page_english_words_in_the_prose_are_marked():
    marked = mark_languages(ZH_PAGE)
    spans = english_spans(marked)
    for words in ("Skip to main content", "MulBackward0", "requires_grad", "True", "PyTorch"):
        assert words in spans
    assert "out" in spans and "minigrad" in spans
    # numbers and single letters are read alike in either voice; entities stay entities
    assert "02" not in " ".join(spans) and "&amp; 02 · x" in marked


def test_code_mathematics_and_what_cannot_hold_a_span_are_left_alone():
    marked = mark_languages(ZH_PAGE)
    head = marked[: marked.index("<body>")]
    assert head == ZH_PAGE[: ZH_PAGE.index("<body>")]  # title and scripts: byte for byte
    for exempt in (
        '<span class="pre">out.detach()</span>',
        "\\(\\frac{\\partial y}{\\partial x}\\)",
        "<pre>tensor([1., 2.], requires_grad=True)</pre>",
        '<p lang="en">Already <em>marked</em> by its author</p>',
        '<img alt="after out.detach(): 图未变" src="a.svg">',
        "<text>leaf tensor</text>",
    ):
        assert exempt in marked


def test_on_an_english_page_chinese_runs_are_marked():
    marked = mark_languages(EN_PAGE)
    assert '02 · detach()<span lang="zh-CN">：切断计算图</span></a>' in marked
    assert '<a href="zh/x.html"><span lang="zh-CN">中文</span></a>' in marked
    assert '<code>print("中文")</code>' in marked
    assert english_spans(marked) == []  # English on an English page is not marked


def test_a_page_without_the_other_language_is_unchanged_and_marking_twice_changes_nothing():
    plain = '<html lang="en"><body><p>Only English here &amp; code.</p></body></html>'
    assert mark_languages(plain) == plain
    once = mark_languages(ZH_PAGE)
    assert mark_languages(once) == once
    assert page_language(ZH_PAGE) == "zh-CN" and page_language("<html><body>") == "en"


def test_tex_that_mathjax_typesets_in_the_page_is_left_as_written():
    """The decks keep a markdown cell's maths as TeX text for MathJax: a span inside it would
    break the formula (and show it as a long line of raw TeX)."""
    page = (
        '<html lang="zh-CN"><body><p>梯度是 $2\\,\\sigma\\,\\sigma\'$，一半是 \\(\\sigma x\\)，'
        "$$\\frac{a}{b}$$ 会被 free 掉</p></body></html>"
    )
    marked = mark_languages(page)
    assert english_spans(marked) == ["free"]
    assert marked == page.replace("free", '<span lang="en">free</span>')


def test_inside_an_element_with_its_own_lang_text_is_marked_against_that_language():
    # a Chinese stepper on an English page: its English code words get lang="en"
    page = (
        '<html lang="en"><body><div lang="zh-CN"><h3>viz.stepper：共 3 步</h3>'
        "<div>再来 again</div></div><p>English 中文</p></body></html>"
    )
    marked = mark_languages(page)
    assert '<h3><span lang="en">viz.stepper</span>：共 3 步</h3>' in marked
    assert '<div>再来 <span lang="en">again</span></div></div>' in marked
    assert '<p>English <span lang="zh-CN">中文</span></p>' in marked
    assert mark_languages(marked) == marked  # marking twice changes nothing
