"""The deck layout (scripts/slide_layout.py, slide_pictures.py) on small notebooks and real
viz pictures: whole pictures, predict-first fragments, nothing moved into the notes, the
guide's slide maps. The browser test (tests/browser/test_classroom_in_browser.py) measures
the built decks."""

from __future__ import annotations

import re

import minigrad as mg
from minigrad import viz
from scripts.build_slides import cjk_font_first, guide_with_maps
from scripts.slide_layout import PICTURE_PX, for_room, lay_out, without_titles
from scripts.slide_pictures import (
    PX_PER_PT,
    for_slide,
    half_text,
    labels_in_view,
    legend_apart,
    own_text,
    panels,
    parse,
    parts,
    with_own_text,
    without_legend,
)


def _notebook(*cells: dict) -> dict:
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _md(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text, "id": f"m{hash(text)}"}


def _code(source: str, *outputs: dict) -> dict:
    return {
        "cell_type": "code",
        "metadata": {},
        "source": source,
        "outputs": list(outputs),
        "execution_count": 1,
        "id": f"c{hash(source)}",
    }


def _stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _slides(cells: list[dict]) -> list[list[dict]]:
    """The laid-out cells grouped by slide (notes cells kept with their slide)."""
    slides: list[list[dict]] = []
    for cell in cells:
        kind = cell["metadata"]["slideshow"]["slide_type"]
        if kind in ("slide", "subslide") or not slides:
            slides.append([])
        slides[-1].append(cell)
    return slides


def _comparison_svg() -> str:
    viz.set_theme("projector")
    try:
        a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = (a * 2).sigmoid()
        return viz.cut(lambda: out.detach(), out).graph.pipe(format="svg").decode()
    finally:
        viz.set_theme("default")


def test_an_output_appears_on_a_key_press_after_its_code() -> None:
    nb = _notebook(
        _md("# Deck"), _md("## One"), _code("import minigrad"), _code("print(1)", _stream("1\n"))
    )
    cells, _, _ = lay_out(nb, None, {}, "en")
    code = next(c for c in cells if c.get("source") == "print(1)")
    assert code["outputs"] == []
    output = cells[cells.index(code) + 1]
    assert output["metadata"]["slideshow"]["slide_type"] == "fragment"
    assert output["outputs"][0]["text"] == "1\n"


def test_a_long_output_goes_on_over_slides_and_nothing_is_moved_into_the_notes() -> None:
    text = "".join(f"line {n}\n" for n in range(60))
    nb = _notebook(
        _md("# Deck"), _md("## One"), _code("import minigrad"), _code("show()", _stream(text))
    )
    cells, _, _ = lay_out(nb, None, {}, "en")
    shown = "".join(
        c["outputs"][0]["text"] for c in cells if c.get("outputs") and "text" in c["outputs"][0]
    )
    assert shown == text
    assert not any("in the notes" in str(c.get("source", "")) for c in cells)
    for slide in _slides(cells):
        notes = [c for c in slide if c["metadata"]["slideshow"]["slide_type"] == "notes"]
        assert notes and notes[0]["source"].strip(), slide


def test_notebook_only_sentences_leave_the_slides_and_the_time_is_the_guides() -> None:
    text = "*Time: about 45 minutes.*\n\nStep through it. Switch on *predict first* to guess."
    assert for_room(text, 35) == "*Time: about 35 minutes.*\n\nStep through it."
    assert "运行那个单元格" not in for_room("把上面单元格里的 None 换掉，运行那个单元格。好。")


def test_a_comparison_is_laid_out_again_for_a_wide_slide_and_keeps_every_label() -> None:
    svg = _comparison_svg()
    picture = parse(svg)
    assert picture is not None and set(panels(picture)) >= {"before", "after"}
    wide = for_slide(picture, 1200 / PX_PER_PT, PICTURE_PX / PX_PER_PT)
    fit = lambda p: min(1200 / p.width, PICTURE_PX / p.height)  # noqa: E731
    assert fit(wide) >= fit(picture)
    labels = lambda s: sorted(re.findall(r"<text\b[^>]*>([^<]*)</text>", s))  # noqa: E731
    assert labels(wide.svg) == labels(svg)


def test_pictures_lose_their_graphviz_ids_and_chinese_comes_first_in_the_cjk_font() -> None:
    svg = (
        '<svg role="img"><title>after out.detach()</title><desc>the long text</desc>'
        '<g><title>cluster_before</title><text font-family="Helvetica,sans-Serif">之前</text>'
        "</g></svg>"
    )
    clean = without_titles(svg)
    assert "cluster_before" not in clean
    assert clean.startswith('<svg role="img"><title>after out.detach()</title>')  # its name
    assert "style=\"font-family:'Noto Sans SC',Helvetica,sans-Serif\"" in cjk_font_first(clean)


def test_the_guides_slide_counts_come_from_the_decks() -> None:
    maps = {"02_detach": [(0, "a", 3), (1, "b", 4), (4, "c", 7)], "zh/03_x": [(5, "d", 9)]}
    text = "`02_detach #/0–4` (40) and `02_detach #/4` (15 slides: x); `zh/03_x #/5`（边，23 张）"
    assert guide_with_maps(text, maps) == (
        "`02_detach #/0–4` (14) and `02_detach #/4` (7 slides: x); `zh/03_x #/5`（边，9 张）"
    )


def projector_cut_svg() -> str:
    """The SVG of a before/after of `out.detach()` in the projector theme, with its legend."""
    viz.set_theme("projector")
    try:
        a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = (a * 2).sigmoid()
        return viz.cut(lambda: out.detach(), out).draw(legend=True).pipe(format="svg").decode()
    finally:
        viz.set_theme("default")


def test_a_comparison_without_its_legend_keeps_before_and_after() -> None:
    svg = projector_cut_svg()
    picture = parse(svg)
    assert picture is not None and "legend" in panels(picture)
    pair = for_slide(picture, 1200 / PX_PER_PT, PICTURE_PX / PX_PER_PT, legend=False)
    assert "before" in pair.svg and "after out.detach()" in pair.svg
    assert "leaf tensor that requires grad" not in pair.svg
    # nodes and edges carry no <title> (viz takes them out): they go with the frame they are in
    found = panels(picture)
    legend = "".join(found["legend"][0])
    assert 'class="node"' not in legend and 'class="edge"' not in legend
    assert all('class="node"' in "".join(found[k][0]) for k in ("before", "after"))


def test_a_cut_out_part_carries_its_own_name_and_description() -> None:
    svg = projector_cut_svg()
    picture = parse(svg)
    assert picture is not None
    _, desc = own_text(svg)
    before, after = half_text(desc, "before"), half_text(desc, "after")
    assert before.startswith("before: ") and "after: " not in before
    assert "after: " in after and "before: " not in after
    named = with_own_text(svg, "before out.detach(): the graph as it was", before)
    assert own_text(named) == ("before out.detach(): the graph as it was", before)
    assert named.count("<title>") == svg.count("<title>")  # replaced, not added
    # a part's labels are the ones inside its box
    halves = {p.label: p for p in parts(picture)}
    assert "out.detach()" not in " ".join(labels_in_view(halves["before"]))


def test_a_single_graph_and_the_legend_the_theme_added_become_two_pictures() -> None:
    viz.set_theme("projector")
    try:
        a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        svg = viz.draw((a * 2).sigmoid(), legend=True).pipe(format="svg").decode()
    finally:
        viz.set_theme("default")
    picture = parse(svg)
    assert picture is not None
    split = without_legend(picture, "What the marks mean")
    assert split is not None
    graph, legend = split
    assert "SigmoidBackward0" in graph.svg and "leaf tensor that requires grad" not in graph.svg
    assert "leaf tensor that requires grad" in legend.svg and "SigmoidBackward0" not in legend.svg
    assert own_text(graph.svg) == own_text(svg)  # the graph keeps its name and description
    name, desc = own_text(legend.svg)
    assert name == "What the marks mean" and "leaf tensor that requires grad" in desc
    assert graph.height < picture.height and legend.height < picture.height


def test_a_comparison_with_its_own_legend_becomes_the_pair_and_the_legend() -> None:
    viz.set_theme("projector")
    try:
        a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = (a * 2).sigmoid()
        svg = viz.cut(lambda: out.detach(), out).draw(legend=True).pipe(format="svg").decode()
        plain = viz.cut(lambda: out.detach(), out).draw(legend=False).pipe(format="svg")
    finally:
        viz.set_theme("default")
    picture = parse(svg)
    assert picture is not None
    apart = legend_apart(picture, 1200 / PX_PER_PT, PICTURE_PX / PX_PER_PT, "What the marks mean")
    assert apart is not None
    pair, legend = apart
    assert "before" in pair.svg and "after out.detach()" in pair.svg
    assert "leaf tensor that requires grad" not in pair.svg and "SigmoidBackward0" in pair.svg
    assert "leaf tensor that requires grad" in legend.svg and "SigmoidBackward0" not in legend.svg
    assert own_text(pair.svg) == own_text(svg)  # the pair keeps the picture's name and text
    name, desc = own_text(legend.svg)
    assert name == "What the marks mean" and "leaf tensor that requires grad" in desc
    # a comparison without a legend has nothing to put apart
    bare = parse(plain.decode())
    assert bare is not None and legend_apart(bare, 1200, 500, "legend") is None


def test_a_plot_keeps_its_alt_on_the_slide() -> None:
    """A matplotlib plot shown with viz.show_plot: the deck's <img> says what the plot shows
    (the output's alt metadata, carried through the layout and written by the course template)."""
    import html

    import matplotlib.pyplot as plt
    import nbformat
    from IPython.core.formatters import DisplayFormatter

    from scripts.build_slides import exporter

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([3.0, 2.0, 1.0])
    ax.set_title("Falling")
    shown = viz.show_plot(fig, alt="the value falls from 3 to 1")
    data, metadata = DisplayFormatter().format(shown)
    output = {"output_type": "display_data", "data": data, "metadata": metadata}
    nb = _notebook(_md("# Deck"), _md("## One"), _code("import minigrad"), _code("plot()", output))
    cells, _, _ = lay_out(nb, None, {}, "en")
    png = next(o for c in cells for o in c.get("outputs", []) if "image/png" in o["data"])
    assert png["metadata"]["image/png"]["alt"] == shown.alt
    assert set(png["metadata"]["image/png"]) == {"alt", "width", "height"}
    assert "text/html" in data and "text/html" not in png["data"]  # (its <img> is for JupyterLab)
    page, _ = exporter("_static").from_notebook_node(nbformat.from_dict(nb | {"cells": cells}))
    images = re.findall(r"<img\b[^>]*>", page)
    assert len(images) == 1 and "data:image/png" in images[0]
    assert 'width="' in images[0]  # the PNG at the slide's size, not the text/html <img>
    assert html.unescape(re.search(r'alt="([^"]*)"', images[0]).group(1)) == shown.alt
