"""The text/html of viz's pictures: an <img> of the same picture with its words as alt.

JupyterLab shows image/svg+xml and image/png outputs as <img> elements without alt; it ranks
text/html above both, so this <img> is what a learner there meets (alt_text.html_picture).
tests/browser/test_notebooks_in_lab.py checks it in a real JupyterLab.
"""

from __future__ import annotations

import base64
import re
import shutil
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

import minigrad as mg
from minigrad import viz
from minigrad.viz.alt_text import html_picture, svg_alt, svg_data_url

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
SANITIZE = Path(__file__).parents[1] / "nbval_sanitize.cfg"


class _Images(HTMLParser):
    """The attributes of every <img> of an HTML text, as a browser's parser reads them."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.images: list[dict[str, str | None]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs))


def only_image(page: str) -> dict[str, str | None]:
    images = _Images(page).images
    assert len(images) == 1 and page.startswith("<img ") and page.endswith(">"), page[:200]
    return images[0]


def drawing(svg: str) -> list[tuple[str, dict[str, str], str]]:
    """What an SVG draws: each element's tag, attributes and text, without the top <title> and
    <desc> (the words an <img> takes from its alt) and without whitespace between elements."""
    root = ET.fromstring(svg.encode("utf-8"))
    top = [child for child in root if child.tag.endswith(("}title", "}desc"))]
    for child in top:
        root.remove(child)
    return [
        (element.tag, dict(element.attrib), " ".join((element.text or "").split()))
        for element in root.iter()
    ]


def pictures() -> list[object]:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = a.sigmoid()
    names = dict(a=a, out=out)
    return [viz.draw(out, names=names), viz.cut(lambda: out.detach(), out, names=names)]


@needs_dot
def test_a_picture_s_html_is_an_img_of_its_svg_named_by_its_words():
    from IPython.core.formatters import DisplayFormatter

    for picture in pictures():
        data, metadata = DisplayFormatter().format(picture)  # what the notebook stores
        image = only_image(data["text/html"])
        svg = data["image/svg+xml"]
        # the alt: name and description, the same words as the SVG's and the PNG's
        assert image["alt"] == svg_alt(svg) == metadata["image/png"]["alt"]
        assert image["alt"].startswith(("autograd graph of out: ", "after out.detach(): "))
        # the same picture: the SVG the img shows draws exactly what the stored SVG draws
        src = image["src"] or ""
        assert src.startswith("data:image/svg+xml,<svg ")
        assert "\n" not in src and "#" not in src  # a URL drops line breaks; # starts a fragment
        assert drawing(unquote(src.removeprefix("data:image/svg+xml,"))) == drawing(svg)
        # the same size: width and height of the SVG (JupyterLab shows it at its natural size)
        size = re.search(r'<svg width="(\d+pt)" height="(\d+pt)"', svg)
        assert size and f"<svg width='{size[1]}' height='{size[2]}'" in src


@needs_dot
def test_the_html_is_deterministic_small_and_compares_in_nbval_without_layout_numbers():
    first = [picture._repr_mimebundle_()[0] for picture in pictures()]
    again = [picture._repr_mimebundle_()[0] for picture in pictures()]
    assert [b["text/html"] for b in first] == [b["text/html"] for b in again]
    for bundle in first:
        # no XML prolog, comments, title or description twice: about the SVG's own size
        assert len(bundle["text/html"]) < len(bundle["image/svg+xml"]) + len(
            svg_alt(bundle["image/svg+xml"])
        )
        # nbval's sanitizer (make test) turns the drawing into <svg/>, as it does the SVG's
        rules = SANITIZE.read_text(encoding="utf-8")
        regex = re.search(r"\[graphviz svg\].*?\nregex: (.*?)\nreplace: (.*?)\n", rules, re.S)
        assert regex is not None
        compared = re.sub(regex[1], regex[2], bundle["text/html"])
        alt = svg_alt(bundle["image/svg+xml"])
        assert only_image(compared) == {
            "class": "jp-mod-unconfined",  # JupyterLab: the natural size, as its SVG renderer
            "src": "data:image/svg+xml,<svg/>",
            "alt": alt,
        }


def test_the_alt_is_escaped_and_keeps_chinese_as_it_is():
    alt = 'after "a" <b> & c\'s 叶子张量'
    page = html_picture("data:image/svg+xml,<svg/>", alt)
    assert only_image(page)["alt"] == alt
    assert "叶子张量" in page and "&quot;a&quot; &lt;b&gt; &amp; c&#x27;s" in page
    # a URL's and an attribute's own signs in the SVG are escaped; Chinese text stays as it is
    url = svg_data_url('<svg a="1" b="it\'s"><text>50% #1 &amp; 节点</text></svg>')
    assert url == (
        "data:image/svg+xml,<svg a='1' b='it%26%2339;s'><text>50%25 %231 %26amp; 节点</text></svg>"
    )
    assert drawing(unquote(url.removeprefix("data:image/svg+xml,"))) == [
        ("svg", {"a": "1", "b": "it's"}, ""),
        ("text", {}, "50% #1 & 节点"),
    ]


@needs_dot
def test_a_chinese_picture_s_img_has_the_chinese_words():
    viz.set_language("zh")
    try:
        data = pictures()[1]._repr_mimebundle_()[0]
    finally:
        viz.set_language("en")
    alt = only_image(data["text/html"])["alt"] or ""
    assert alt == svg_alt(data["image/svg+xml"]) and re.search(r"[\u4e00-\u9fff]", alt)


@needs_dot
def test_no_html_unless_asked_for():
    graph = pictures()[0]
    assert "text/html" not in graph._repr_mimebundle_(exclude=["text/html"])[0]
    assert "text/html" not in graph._repr_mimebundle_(include=["image/svg+xml"])[0]


def test_a_plot_s_html_is_an_img_of_its_png_with_its_alt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0.8, 0.3, 0.1])
    ax.set_title('Loss "train" <1>')
    shown = viz.show_plot(fig, alt="the loss falls & stays low")
    data, metadata = shown._repr_mimebundle_()
    image = only_image(data["text/html"])
    assert image["alt"] == shown.alt == metadata["image/png"]["alt"]
    assert image["src"] == "data:image/png;base64," + data["image/png"]
    assert "class" not in image  # capped at the cell's width, as JupyterLab's PNG renderer
    assert base64.b64decode(data["image/png"]) == shown.png
    assert "text/html" not in shown._repr_mimebundle_(exclude=["text/html"])[0]


def test_nbval_compares_a_plot_s_html_by_its_alt_not_its_pixels():
    # nbval never compares image/png; the PNG's copy inside the <img> must not be compared
    # either (06's memory plot draws measured bytes, which differ between runs), its alt is
    rules = SANITIZE.read_text(encoding="utf-8")
    found = re.search(r"\[png inside html\].*?\nregex: (.*?)\nreplace: (.*?)\n", rules, re.S)
    assert found is not None

    def compared(png: bytes, alt: str) -> str:
        url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        return re.sub(found[1], found[2], html_picture(url, alt, capped=True))

    assert compared(b"\x89PNG one", "plot: loss") == compared(b"\x89PNG two", "plot: loss")
    assert compared(b"\x89PNG one", "plot: loss") != compared(b"\x89PNG one", "plot: accuracy")
