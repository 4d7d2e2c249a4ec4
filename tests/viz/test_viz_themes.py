"""minigrad.viz themes: "default" (the course's look) and "projector" (large type for a room).

Also the fit to a notebook: a picture wider than the notebook is scaled down by the browser,
so a before/after too wide side by side is stacked. The widest pictures of the course (two
from notebook 07, rebuilt here from its code) are rendered with real dot and every label's
size at 900 px is computed from the SVG's width and font sizes.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import minigrad as mg
from minigrad import nn, viz

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz `dot` is not installed"
)


@pytest.fixture(autouse=True)
def default_theme_after_each_test():
    yield
    viz.set_theme("default")


def font_sizes(source: str) -> list[float]:
    """Every type size a DOT source asks for: fontsize= attributes and POINT-SIZE= in labels."""
    sizes = re.findall(r'fontsize="?([\d.]+)', source)
    sizes += re.findall(r'POINT-SIZE="([\d.]+)"', source)
    return [float(size) for size in sizes]


def every_kind_of_picture(theme: str | None = None) -> list[viz.Graph]:
    """Leaves, views, None slots, storage boxes, stale, freed, gone nodes, cut edges, legend."""
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    d = out.data
    v = out[1:]
    y = out.detach() * a
    names = dict(a=a, out=out, c=c, d=d, v=v, y=y)
    pictures = [
        viz.draw(y, out, names=names, theme=theme, legend=True),
        viz.draw(y, out, names=names, theme=theme, saved_layout="inside"),
        viz.cut(lambda: c.zero_(), out, names=names, theme=theme).draw(legend=True),
        viz.cut(lambda: out.detach_(), y, out, names=names, theme=theme).graph,
        viz.cut(lambda: d.zero_(), out, names=names).draw(theme=theme, saved_layout="inside"),
    ]
    b = mg.tensor([1.0, 2.0], requires_grad=True)
    loss = (b * b).sum()
    loss.backward()
    pictures.append(viz.draw(loss, names=dict(b=b), theme=theme))
    return pictures


def test_projector_theme_has_no_type_under_14_pt():
    viz.set_theme("projector")
    for graph in every_kind_of_picture():
        sizes = font_sizes(graph.source)
        assert sizes and min(sizes) >= 14, graph.source
        assert graph.theme == "projector"


def test_projector_theme_per_call_and_its_thicker_lines():
    for graph in every_kind_of_picture(theme="projector"):
        assert min(font_sizes(graph.source)) >= 14
        assert "penwidth=2" in graph.source and "arrowsize=1.1" in graph.source
    # the theme set for the process is still the default one
    assert viz.current_theme().name == "default"


def test_default_theme_is_the_course_look():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    plain = viz.draw(out, names=dict(a=a, out=out)).source
    assert plain == viz.draw(out, names=dict(a=a, out=out), theme="default").source
    assert "fontsize=11" in plain and 'POINT-SIZE="9"' in plain and "penwidth" not in plain
    viz.set_theme("projector")
    viz.set_theme("default")
    assert viz.draw(out, names=dict(a=a, out=out)).source == plain


def test_an_unknown_theme_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="unknown theme 'dark'; choose one of: default, projector"):
        viz.set_theme("dark")


def test_projector_shows_the_legend_on_the_first_picture_only():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    viz.set_theme("projector")
    first = viz.draw(out, names=dict(a=a, out=out))
    second = viz.draw(out, names=dict(a=a, out=out))
    assert "leaf tensor that requires grad" in first.source
    assert "leaf tensor that requires grad" not in second.source
    assert "leaf tensor" in viz.draw(out, legend=True).source  # asked for: always
    viz.set_theme("projector")  # a new notebook (or a re-run first cell): once more
    assert "leaf tensor" not in viz.draw(out, legend=False).source  # refused: not shown...
    assert "leaf tensor" in viz.draw(out).source  # ... and still due on the next one
    # the default theme never adds a legend by itself
    viz.set_theme("default")
    assert "leaf tensor" not in viz.draw(out).source


def test_projector_stacks_a_before_after_that_would_be_wider_than_a_notebook():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    names = dict(a=a, out=out, c=c)
    assert not viz.cut(lambda: c.zero_(), out, names=names).graph.stacked
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    names = dict(a=a, out=out, c=c)
    graph = viz.cut(lambda: c.zero_(), out, names=names, theme="projector").graph
    assert graph.stacked and "stack -> after_T0 [style=invis]" in graph.source


# ---- the course's widest pictures, at notebook width -------------------------------------------


@pytest.fixture
def truncated_rnn():
    """Notebook 07, truncated backprop through time: two RNN steps, then h.detach()."""
    mg.manual_seed(0)
    tiny = nn.RNNCell(1, 2)
    h = tiny(mg.tensor([[0.5]]))
    h = tiny(mg.tensor([[-0.2]]), h)
    names = dict(
        W_ih=tiny.weight_ih, W_hh=tiny.weight_hh, b_ih=tiny.bias_ih, b_hh=tiny.bias_hh, h=h
    )
    return viz.cut(lambda: h.detach(), h, names=names)


def smallest_label_px(svg: str, notebook_px: float = 900) -> float:
    """How tall the smallest text of an SVG is drawn when it is shown `notebook_px` wide at most.

    SVG sizes are points (1 pt = 4/3 px); a browser scales a wider picture down to the
    notebook's width.
    """
    width_pt = float(re.search(r'<svg width="([\d.]+)pt"', svg).group(1))
    assert 'transform="scale(1 1)' in svg  # dot did not shrink the drawing itself
    sizes = [float(size) for size in re.findall(r'font-size="([\d.]+)"', svg)]
    scale = min(1.0, notebook_px / (width_pt * 4 / 3))
    return min(sizes) * 4 / 3 * scale


def render(graph: viz.Graph) -> str:
    done = subprocess.run(
        ["dot", "-Tsvg"], input=graph.source, capture_output=True, text=True, check=True
    )
    assert done.stderr == ""
    return done.stdout


@needs_dot
@pytest.mark.parametrize("theme", ["default", "projector"])
@pytest.mark.parametrize("picture", ["frozen_body", "truncated_rnn"])
def test_the_widest_course_pictures_keep_every_label_at_8_px_in_a_notebook(picture, theme, request):
    # these were 1,440 and 2,572 pt wide: labels of 3 to 5 px at notebook width
    graph = request.getfixturevalue(picture).draw(theme=theme)
    assert graph.stacked and graph.saved_layout == "inside"
    assert smallest_label_px(render(graph)) >= 8


@needs_dot
def test_small_pictures_stay_side_by_side_and_legible():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = 2 * a
    s = b.sum()
    graph = viz.cut(lambda: b.detach_(), s, names=dict(a=a, b=b, s=s)).draw(legend=True)
    assert not graph.stacked
    assert smallest_label_px(render(graph)) >= 8


def test_summary_text_is_the_same_in_every_theme():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    text = viz.summary(out, names=dict(a=a, out=out))
    viz.set_theme("projector")
    assert viz.summary(out, names=dict(a=a, out=out)) == text
