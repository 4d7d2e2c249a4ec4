"""Every picture can be used without sight and without colour (WCAG 2.1 AA, issue 34).

Contrast is computed from the SVG Graphviz really writes, for every theme, layout and mark a
picture can have (the stories' before/afters, the figures, the legend): each label against
every fill of the node it is in, and against the white page.
"""

from __future__ import annotations

import base64
import re
import shutil

import pytest

import minigrad as mg
from minigrad import viz
from minigrad.viz.alt_text import svg_alt, svg_text_alternative
from minigrad.viz.stories import ROUTES, story_frames

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")

_GROUP = re.compile(r'<g id="[^"]*" class="(?:node|edge|cluster|graph)"')
_FILL = re.compile(r'<(?:polygon|path|ellipse)\b[^>]*\bfill="([^"]+)"')
_TEXT = re.compile(r"<text\b([^>]*)>")
_NAMED = {"white": "#ffffff", "black": "#000000"}


def luminance(colour: str) -> float:
    """WCAG's relative luminance of '#rrggbb' (or 'white' / 'black')."""
    colour = _NAMED.get(colour, colour)
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    """WCAG's contrast ratio of two colours, 1 to 21."""
    high, low = sorted([luminance(one), luminance(other)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def low_contrast(svg: str) -> list[str]:
    """'text colour on fill: ratio' for every label under 4.5:1 (3:1 from 18 pt)."""
    problems = []
    starts = [m.start() for m in _GROUP.finditer(svg)] + [len(svg)]
    for start, end in zip(starts, starts[1:], strict=False):
        group = svg[start:end]
        fills = {f for f in _FILL.findall(group) if f not in ("none", "transparent")}
        if 'class="edge"' in group[:80]:
            fills = set()  # an edge's filled shapes are its arrowheads: its label is on the page
        fills.add("white")
        for attrs in _TEXT.findall(group):
            colour = re.search(r'\bfill="([^"]+)"', attrs)
            text_colour = colour.group(1) if colour else "black"
            size = float(re.search(r'font-size="([\d.]+)"', attrs).group(1))
            needed = 3.0 if size >= 18 else 4.5
            for fill in fills:
                ratio = contrast(text_colour, fill)
                if ratio < needed:
                    problems.append(f"{text_colour} on {fill}: {ratio:.2f}:1")
    return problems


def pictures(theme: str) -> list[str]:
    """SVGs of every story's frames and a few drawings with every kind of mark, in `theme`."""
    viz.set_theme(theme)
    try:
        svgs = [frame.svg for route in ROUTES for frame in story_frames(route)]
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        out = a.sigmoid()
        y = out * a
        names = dict(a=a, out=out, y=y)
        cut = viz.cut(lambda: out.detach_(), y, names=names)
        svgs.append(cut.draw(legend=True).pipe(format="svg", encoding="utf-8"))
        svgs.append(viz.draw(y, names=names, legend=True).pipe(format="svg", encoding="utf-8"))
        return svgs
    finally:
        viz.set_theme("default")


def test_contrast_is_computed_as_wcag_says():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast("#c0392b", "#ffb3b3") < 4.5  # the old red on the stale fill


@needs_dot
@pytest.mark.parametrize("theme", list(viz.THEMES))
def test_every_label_of_every_picture_has_contrast(theme):
    svgs = pictures(theme)
    assert len(svgs) > 20
    problems = sorted({p for svg in svgs for p in low_contrast(svg)})
    assert problems == []


@needs_dot
@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_picture_has_a_name_and_a_description(language):
    viz.set_language(language)
    try:
        svgs = pictures("default")
    finally:
        viz.set_language("en")
    for svg in svgs:
        assert re.search(r'<svg\b[^>]*role="img"', svg)
        name, description = svg_text_alternative(svg)
        assert name and description, svg[:400]
        assert "%3" not in name
        # no node or edge id ("after_T0") left to be announced or shown as a tooltip
        assert not re.search(r'class="(?:node|edge)">\s*<title>', svg)
    if language == "zh":
        assert all(re.search(r"[\u4e00-\u9fff]", svg_alt(svg)) for svg in svgs)


@needs_dot
def test_a_before_after_is_named_by_what_changed():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = a.sigmoid()
    svg = viz.cut(lambda: out.detach(), out, names=dict(a=a, out=out), label="out.detach()")
    name, description = svg_text_alternative(svg.graph.pipe(format="svg", encoding="utf-8"))
    assert name.startswith("after out.detach(): out.detach(): new tensor, leaf, no grad")
    assert name.endswith("the graph's edges are unchanged")
    # the description holds the text summary's facts: functions, their inputs, saved values
    assert "SigmoidBackward0 <- [AccumulateGrad(a)]" in description
    assert "saved: result=out (saved v0, now v0)" in description


def test_an_output_is_told_apart_from_an_in_between_tensor_without_colour():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = a.sigmoid()
    y = out * a
    source = viz.draw(y, names=dict(a=a, out=out, y=y)).source
    assert re.search(r"<B>y</B>.*non-leaf, output", source)
    assert not re.search(r"<B>out</B>[^\n]*output", source)


@needs_dot
def test_a_png_beside_the_svg_carries_the_svg_text_alternative_as_its_alt():
    """The PNG (for front ends that show no untrusted SVG) gets the SVG's name and description
    as the alt metadata of its output, where front ends look for an image's alt."""
    from IPython.core.formatters import DisplayFormatter

    a = mg.tensor([1.0, 2.0], requires_grad=True)
    out = a.sigmoid()
    names = dict(a=a, out=out)
    shown = [viz.draw(out, names=names), viz.cut(lambda: out.detach(), out, names=names)]
    for picture in shown:
        # what IPython stores in the notebook: the bundle and its metadata
        data, metadata = DisplayFormatter().format(picture)
        assert "image/png" in data
        alt = metadata["image/png"]["alt"]
        assert alt == svg_alt(data["image/svg+xml"])
        name, description = svg_text_alternative(data["image/svg+xml"])
        assert alt == f"{name}. {description}" and name and description
    # no PNG asked for: no alt metadata for it either
    data, metadata = shown[0]._repr_mimebundle_(exclude=["image/png"])
    assert "image/png" not in data and metadata == {}


def loss_plot():
    """A figure as a learner makes one: a title, labelled axes, a log scale, two curves."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0.8, 0.3, 0.1], label="train")
    ax.plot([0.9, 0.5, 0.4], label="test")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_yscale("log")
    ax.set_title("Two losses")
    ax.legend()
    return fig


def test_show_plot_gives_a_matplotlib_figure_a_name_and_a_description_in_words():
    import matplotlib.pyplot as plt
    from IPython.core.formatters import DisplayFormatter

    fig = loss_plot()
    shown = viz.show_plot(fig, alt="the train loss ends lower than the test loss")
    assert not plt.fignum_exists(fig.number)  # closed: the inline backend shows it no second time
    assert shown.name == "plot: Two losses"
    assert shown.description == (
        "x axis: step; y axis: loss (log scale); 2 curves: train, test. "
        "the train loss ends lower than the test loss"
    )
    # what IPython stores in the notebook: the PNG, its alt in the metadata, the words as text
    data, metadata = DisplayFormatter().format(shown)
    assert base64.b64decode(data["image/png"]).startswith(b"\x89PNG")
    assert metadata["image/png"]["alt"] == shown.alt == f"{shown.name}. {shown.description}"
    assert data["text/plain"] == shown.alt


def test_show_plot_speaks_the_language_of_viz_and_says_what_is_missing():
    viz.set_language("zh")
    try:
        shown = viz.show_plot(loss_plot(), alt={"en": "lower", "zh": "训练损失更低"})
        assert shown.name == "图表：Two losses"
        assert shown.description == (
            "横轴：step；纵轴：loss（对数刻度）；2 条曲线：train、test。训练损失更低"
        )
        with pytest.raises(ValueError, match=r"alt has no text for the language 'zh'"):
            viz.show_plot(loss_plot(), alt={"en": "lower"})
    finally:
        viz.set_language("en")
    with pytest.raises(ValueError, match=r"alt is empty; say in words what the plot shows"):
        viz.show_plot(loss_plot(), alt="  ")
    with pytest.raises(TypeError, match=r"got Axes \(an Axes: pass ax.figure\)"):
        viz.show_plot(loss_plot().axes[0], alt="lower")


def stored_png_pictures() -> list[tuple[str, dict, dict]]:
    """(where, data, metadata) of every stored output of the course's notebooks with a PNG."""
    import json
    from pathlib import Path

    found = []
    root = Path(__file__).resolve().parents[2] / "notebooks"
    for path in sorted(root.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for number, cell in enumerate(cells):
            for output in cell.get("outputs", []):
                if "image/png" in output.get("data", {}):
                    where = f"{path.relative_to(root)} cell {number}"
                    found.append((where, output["data"], output.get("metadata", {})))
    return found


def test_every_stored_png_picture_has_the_alt_of_its_svg():
    pictures = stored_png_pictures()
    assert pictures
    missing = []
    for where, data, metadata in pictures:
        alt = metadata.get("image/png", {}).get("alt", "")
        svg = data.get("image/svg+xml", "")
        svg = "".join(svg) if isinstance(svg, list) else svg
        if not alt.strip() or (svg and alt != svg_alt(svg)):
            missing.append(where)
    assert missing == [], f"{len(missing)} of {len(pictures)} PNGs without alt"


@needs_dot
@pytest.mark.parametrize(("language", "tag"), [("en", "en"), ("zh", "zh-CN")])
def test_a_picture_and_a_stepper_say_their_language(language, tag):
    """WCAG 3.1.2: a Chinese picture or stepper inside an English page (JupyterLab's) is read
    in a Chinese voice: its <svg>, the stepper, its pictures and texts carry lang."""
    viz.set_language(language)
    try:
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        svg = viz.draw(a.sigmoid(), names=dict(a=a)).pipe(format="svg", encoding="utf-8")
        page = viz.cut_stepper("detach").html()
    finally:
        viz.set_language("en")
    assert re.search(rf'<svg\b[^>]*role="img"[^>]*\blang="{tag}"', svg)
    assert page.startswith(f'<div class="mg-stepper-static" lang="{tag}">')
    assert page.count(f'class="mg-stepper-picture" lang="{tag}"') == page.count("<details")
    assert page.count(f'class="mg-stepper-summary" lang="{tag}"') == page.count("<details")


@needs_dot
def test_nbconvert_classic_html_shows_the_png_with_the_svg_text_alternative():
    """A viewer that reads an image output's alt metadata (nbconvert's classic HTML template)
    gives the PNG the picture's own name and description. (Its default lab template, like
    JupyterLab's image renderer, reads no alt: it shows the text/html <img> of the SVG, which
    has the same words as alt: alt_text.html_picture.)"""
    import html

    import nbformat
    from IPython.core.formatters import DisplayFormatter
    from nbconvert import HTMLExporter

    a = mg.tensor([1.0, 2.0], requires_grad=True)
    data, metadata = DisplayFormatter().format(viz.draw(a.sigmoid(), names=dict(a=a)))
    svg = data["image/svg+xml"]
    png_only = {m: v for m, v in data.items() if m not in ("image/svg+xml", "text/html")}
    shows = {"classic": 'src="data:image/png', "lab": 'src="data:image/svg+xml,'}
    for template, shown in [("classic", png_only), ("lab", data)]:
        output = nbformat.v4.new_output("display_data", data=shown, metadata=metadata)
        cell = nbformat.v4.new_code_cell("viz.draw(out)", outputs=[output])
        page, _ = HTMLExporter(template_name=template).from_notebook_node(
            nbformat.v4.new_notebook(cells=[cell])
        )
        images = re.findall(r"<img\b[^>]*>", page)
        assert len(images) == 1 and shows[template] in images[0], template
        alt = re.search(r'alt="([^"]*)"', images[0])
        assert alt and html.unescape(alt.group(1)) == svg_alt(svg)
