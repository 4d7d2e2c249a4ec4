"""Mark the parts of a built page that are in the other language (WCAG 3.1.2, issue 34).

A screen reader reads a page in the voice of its `<html lang>`; text in another language
inside it must say so (`lang` on an element around it), or a Chinese voice spells out English
words letter by letter and an English voice skips Chinese. The course's rule:

- On a Chinese page (lang="zh-CN"), every run of English words in the prose gets
  `<span lang="en">`: phrases ("Skip to main content", "Slides for a projector"), names
  (minigrad, PyTorch) and technical terms that stand in the text (MulBackward0, requires_grad).
  On an English page, every run of Chinese gets `<span lang="zh-CN">` (the other edition's
  titles in the navigation, the "中文" link).
- Code is exempt: `<code>`, `<pre>`, `<kbd>`, `<samp>` and `<var>` hold Python as Python prints
  it, read the same in any voice (screen readers read code by character or word anyway), and
  so does mathematics (MathJax reads it itself; its TeX, $...$ or \\(...\\), stays as written).
- Only element text can carry `lang`: `alt`, `title` and `aria-label` values stay as they are.
  A picture's text alternative is written whole in the page's language (minigrad.viz writes
  it in the language set with viz.set_language), so its name and description need none.

`mark_languages` rewrites only the text between tags inside `<body>`, outside the elements
above and outside `<script>`, `<style>`, `<svg>`, `<template>` and form fields; everything else
stays byte for byte.
"""

from __future__ import annotations

import html
import re

__all__ = ["mark_languages", "page_language"]

# elements whose text is never marked: code, mathematics, and what cannot hold a <span>
EXEMPT = frozenset(
    {
        "code",
        "pre",
        "kbd",
        "samp",
        "var",
        "script",
        "style",
        "svg",
        "math",
        "template",
        "textarea",
        "option",
        "select",
        "title",
        "head",
    }
)
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
_TOKEN = re.compile(r"(<!--.*?-->|<[^>]*>)", re.DOTALL)
_TAG = re.compile(r"<\s*(/?)\s*([a-zA-Z][\w:-]*)([^>]*?)(/?)\s*>", re.DOTALL)
_MATH_CLASS = re.compile(r"""\bclass\s*=\s*["'][^"']*\bmath\b""")
_HTML_LANG = re.compile(r"<html\b[^>]*\blang\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
# Chinese: from a Chinese character to the last one of the run (Latin words between them are
# read in the Chinese voice, as a Chinese sentence holds them)
_CHINESE_RUN = re.compile(rf"[{_CJK}](?:[^{_CJK}<>]*[{_CJK}])*")
# English: words of Latin letters (with digits, '_', '.', '()' and the like inside a word), one
# or more, joined by spaces and light punctuation; a word of at least two letters starts it
_WORD = r"[A-Za-z0-9_][A-Za-z0-9_.()\[\]'’/+#-]*"
_ENGLISH_RUN = re.compile(rf"(?<![A-Za-z0-9_]){_WORD}(?:[ \t\n,:;!?&\"“”‘]+{_WORD})*")
_LETTERS = re.compile(r"[A-Za-z]{2}")
# TeX that MathJax typesets in the page (nbconvert's decks keep it as text): left alone
_TEX = re.compile(r"(\$\$.+?\$\$|\$[^$\n]+?\$|\\\(.+?\\\)|\\\[.+?\\\])", re.DOTALL)
_OWN_LANG = re.compile(r"(?:^|\s)(?:xml:)?lang\s*=")


def page_language(page: str) -> str:
    """The page's own language, from its `<html lang>` ("en" when it says none)."""
    found = _HTML_LANG.search(page)
    return found.group(1) if found else "en"


def _english_spans(text: str) -> str:
    """`text` (decoded) with each run of English words in <span lang="en">, escaped."""
    parts, last = [], 0
    for run in _ENGLISH_RUN.finditer(text):
        words = run.group(0).rstrip(' \t\n,:;!?&"“”‘')  # end on a word, not on punctuation
        if not _LETTERS.search(words):
            continue  # numbers and single letters are read alike in either voice
        start, end = run.start(), run.start() + len(words)
        parts.append(html.escape(text[last:start], quote=False))
        parts.append(f'<span lang="en">{html.escape(words, quote=False)}</span>')
        last = end
    parts.append(html.escape(text[last:], quote=False))
    return "".join(parts)


def _chinese_spans(text: str) -> str:
    """`text` (decoded) with each run of Chinese in <span lang="zh-CN">, escaped."""
    parts, last = [], 0
    for run in _CHINESE_RUN.finditer(text):
        parts.append(html.escape(text[last : run.start()], quote=False))
        parts.append(f'<span lang="zh-CN">{html.escape(run.group(0), quote=False)}</span>')
        last = run.end()
    parts.append(html.escape(text[last:], quote=False))
    return "".join(parts)


def _marked(raw: str, chinese_page: bool) -> str:
    """One text node of the page, with its other-language runs marked (unchanged if none);
    TeX in it ($...$, \\(...\\): MathJax typesets it in the browser, as in the decks) is kept."""
    if _TEX.search(raw):
        parts = _TEX.split(raw)  # text, TeX, text, ...: only the text is marked
        return "".join(p if i % 2 else _marked(p, chinese_page) for i, p in enumerate(parts))
    text = html.unescape(raw)
    if chinese_page:
        if not any(_LETTERS.search(m.group(0)) for m in _ENGLISH_RUN.finditer(text)):
            return raw
        return _english_spans(text)
    if not re.search(f"[{_CJK}]", text):
        return raw
    return _chinese_spans(text)


def mark_languages(page: str, language: str | None = None) -> str:
    """The page with every run of text in the other language marked with `lang` (see above).

    `language` is the page's own ("zh-CN" or "en"; default: its `<html lang>`). Inside an
    element with a `lang` of its own (a Chinese stepper on an English page), text is marked
    against that element's language instead.
    """
    chinese_page = (language or page_language(page)).lower().startswith("zh")
    pieces = _TOKEN.split(page)
    in_body = False
    exempt: list[str] = []  # open elements whose text is left alone (innermost last)
    # open elements with a lang of their own, innermost last: [name, chinese?, same-name depth]
    own_language: list[list] = []
    out = []
    for index, piece in enumerate(pieces):
        if index % 2:  # a tag or a comment
            out.append(piece)
            tag = _TAG.match(piece)
            if tag is None:
                continue
            closing, name, attrs, self_closing = tag.groups()
            name = name.lower()
            if name == "body":
                in_body = not closing
            if name in VOID or self_closing:
                continue
            if closing:
                if exempt and exempt[-1] == name:
                    exempt.pop()
                elif not exempt and own_language and own_language[-1][0] == name:
                    own_language[-1][2] -= 1
                    if own_language[-1][2] == 0:
                        own_language.pop()
            elif exempt:
                if name == exempt[0]:
                    exempt.append(name)  # the same element nested: count it to find its end
            elif name in EXEMPT or _MATH_CLASS.search(attrs):
                exempt.append(name)
            elif name != "html" and _OWN_LANG.search(attrs):
                own_language.append([name, _element_language(attrs).startswith("zh"), 1])
            elif own_language and own_language[-1][0] == name:
                own_language[-1][2] += 1  # the same element nested: count it to find its end
            continue
        if not in_body or exempt or not piece.strip():
            out.append(piece)
            continue
        out.append(_marked(piece, own_language[-1][1] if own_language else chinese_page))
    return "".join(out)


def _element_language(attrs: str) -> str:
    """The value of an element's own `lang` (lower case)."""
    found = re.search(r"(?:^|\s)(?:xml:)?lang\s*=\s*[\"']?([^\"'\s>]+)", attrs)
    return found.group(1).lower() if found else ""
