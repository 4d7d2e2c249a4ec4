"""minigrad.viz for a slide (slide_fit.py): in the decks' "projector" theme a picture that a
1280x720 slide would shrink below 18 px labels is laid out again by real `dot` (tighter, left
to right) when that shows it larger, or, when no such layout is readable, folded into columns
(a snake); every label and edge stays; the notebooks' default theme is drawn as before."""

from __future__ import annotations

import re
import shutil

import pytest

import minigrad as mg
from minigrad import viz
from minigrad.viz.dot_program import run_dot
from minigrad.viz.slide_fit import (
    READABLE_PX,
    crossings,
    fold,
    fold_cuts,
    graph_alone,
    slide_scale,
    variants,
)

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is needed")
BOX = (1264 * 3 / 4, 590 * 3 / 4)  # the decks' picture area under a title, in points
_TEXT = re.compile(r"<text\b[^>]*>([^<]*)</text>")


@pytest.fixture(autouse=True)
def default_theme_after_each_test():
    yield
    viz.set_theme("default")


def _chain(steps: int) -> mg.Tensor:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x
    for _ in range(steps):
        y = (y * 2).sigmoid()
    return y


def test_variants_override_the_layout_at_the_end_of_the_root_graph() -> None:
    source = "digraph {\n\trankdir=TB\n\ta -> b\n}\n"
    tight, wide, both, tightest, wide_tightest = variants(source)
    assert tight.rstrip().endswith('graph [nodesep="0.18" ranksep="0.28"]\n}')
    assert "graph [rankdir=LR]" in wide and "rankdir=LR nodesep" in both
    assert "rankdir=LR" not in tightest and "rankdir=LR" in wide_tightest
    assert all(v.count("{") == 1 and v.rstrip().endswith("}") for v in variants(source))


@needs_dot
def test_a_short_chain_is_laid_out_left_to_right_for_a_slide_and_keeps_every_label() -> None:
    viz.set_theme("projector")
    graph = viz.draw(_chain(3), legend=False)
    first = graph.pipe(format="svg", encoding="utf-8")
    chosen = graph.slide_source()
    assert chosen != graph.source  # laid out again ...
    as_before = run_dot(graph.source, ["-Tsvg"], 30.0, 20).decode("utf-8")  # top to bottom
    # ... larger on the slide than top to bottom, with the same labels
    assert slide_scale(first, BOX) > slide_scale(as_before, BOX)
    assert sorted(_TEXT.findall(first)) == sorted(_TEXT.findall(as_before))
    assert first.startswith("<?xml") and "<title>" in first  # its name is kept


@needs_dot
def test_a_picture_that_fits_and_the_default_theme_are_left_as_dot_drew_them() -> None:
    viz.set_theme("projector")
    small = viz.draw(_chain(1), legend=False)
    svg = small.pipe(format="svg", encoding="utf-8")
    assert slide_scale(svg, BOX) * 14 * 4 / 3 >= READABLE_PX
    assert small.slide_source() == small.source
    viz.set_theme("default")
    notebook = viz.draw(_chain(3))
    assert notebook.slide_source() == notebook.source


@needs_dot
def test_a_single_graph_is_measured_without_its_legend_which_the_decks_show_apart() -> None:
    viz.set_theme("projector")
    alone = viz.draw(_chain(3), legend=False).slide_source()
    with_legend = viz.draw(_chain(3), legend=True).slide_source()
    assert ("rankdir=LR" in alone) == ("rankdir=LR" in with_legend)
    assert "<TABLE" in with_legend  # the legend is still drawn
    source = viz.draw(_chain(3), legend=True).source
    alone = graph_alone(source)
    assert "leaf tensor that requires grad" in source and "leaf tensor" not in alone
    assert alone.count(" -> ") == source.count(" -> ") and alone.count("[") == source.count("[")


def _detach_then_mul() -> viz.Comparison:
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    return viz.cut(lambda: c.mul_(10), out, names=dict(a=a, out=out, c=c))


@needs_dot
def test_a_before_after_too_wide_for_a_slide_lists_its_saved_values_inside_on_slides_only() -> None:
    viz.set_theme("projector")
    graph = _detach_then_mul().draw(legend=False)
    # beside their functions ("auto" with one saved value), no layout of it reaches 18 px ...
    assert graph.saved_layout == "beside" and len(graph.slide_alternatives) == 1
    chosen = graph.slide_source()
    assert "saved result = out" in chosen and chosen.startswith(graph.slide_alternatives[0][:-3])
    svg = graph.pipe(format="svg", encoding="utf-8")
    assert slide_scale(svg, BOX) * 14 * 4 / 3 >= READABLE_PX  # ... inside, it does
    assert "backward will raise" in svg and "<title>after c.mul_(10)" in svg
    # asked for explicitly, or in the notebooks' theme, the picture is drawn as asked
    assert _detach_then_mul().draw(legend=False, saved_layout="beside").slide_alternatives == ()
    viz.set_theme("default")
    assert _detach_then_mul().draw().slide_alternatives == ()


# ---- a long graph folded into columns (slide_fit.fold) --------------------------------------

ROOM = (1264 * 3 / 4, 660 * 3 / 4)  # a slide with a picture alone on it (slide_layout.py)
_EDGE_TITLE = re.compile(r'class="edge">\s*<title>([^<]*)</title>')


def _task_loss(w: mg.Tensor, x: float, y: float) -> mg.Tensor:
    return (w * x - y) ** 2


def _one_inner_step() -> mg.Tensor:
    """10's MAML graph: one inner step with create_graph=True, a chain of 12 functions."""
    w = mg.tensor(0.5, requires_grad=True)
    (g,) = mg.autograd.grad(_task_loss(w, 2.0, 4.0), w, create_graph=True)
    return _task_loss(w - 0.1 * g, 1.5, 3.0)


def _svg(source: str) -> str:
    return run_dot(graph_alone(source), ["-Tsvg"], 30.0, 40).decode("utf-8")


@needs_dot
def test_a_chain_of_twelve_functions_is_folded_into_columns_with_labels_of_18_px() -> None:
    viz.set_theme("projector")
    graph = viz.draw(_one_inner_step(), legend=False, show_saved=False)
    functions = re.findall(r"<B>(\w+Backward\d|AccumulateGrad)</B>", graph.source)
    assert len(functions) == 12  # a chain of 12 functions (w's AccumulateGrad is one)
    drawn = _svg(graph.source)
    assert slide_scale(drawn, ROOM) * 14 * 4 / 3 < READABLE_PX  # top to bottom: too tall
    chosen = graph.slide_source()
    assert "subgraph cluster_fold1" in chosen and "cluster_fold2" not in chosen  # two columns
    folded = _svg(chosen)
    assert slide_scale(folded, ROOM) * 14 * 4 / 3 >= READABLE_PX
    assert slide_scale(folded, BOX) * 14 * 4 / 3 >= READABLE_PX  # also under a title
    # the same picture: every label and every edge, none crossing another edge or a node
    assert sorted(_TEXT.findall(folded)) == sorted(_TEXT.findall(drawn))
    assert sorted(_EDGE_TITLE.findall(folded)) == sorted(_EDGE_TITLE.findall(drawn))
    assert crossings(folded) == 0
    assert "backward will raise" not in chosen and chosen.count(" -> ") == graph.source.count(
        " -> "
    )


def _chain_source(steps: int) -> str:
    nodes = "".join(f'\tn{i} [label="step {i}" shape=box]\n' for i in range(steps))
    edges = "".join(f"\tn{i} -> n{i + 1}\n" for i in range(steps - 1))
    return f"digraph {{\n\trankdir=TB\n{nodes}{edges}}}\n"


@needs_dot
def test_a_fold_is_a_snake_down_the_first_column_and_up_the_second() -> None:
    source = _chain_source(10)
    folded = fold(source, _svg(source), (5,))
    svg = _svg(folded)
    centres = {}
    for name, body in re.findall(r'class="node">\s*<title>([^<]*)</title>(.*?)</g>', svg, re.S):
        numbers = [float(v) for v in re.findall(r"-?\d+\.?\d*", body.split("points=")[1])]
        xs, ys = numbers[0::2], numbers[1::2]
        centres[name] = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    left, right = [centres[f"n{i}"] for i in range(5)], [centres[f"n{i}"] for i in range(5, 10)]
    assert max(x for x, _ in left) < min(x for x, _ in right)  # two columns, in order
    assert [y for _, y in left] == sorted(y for _, y in left)  # the first goes down (SVG y)
    assert [y for _, y in right] == sorted((y for _, y in right), reverse=True)  # this one up
    assert abs(centres["n4"][1] - centres["n5"][1]) < 1  # the turn: along the bottom
    assert "n4 -> n5 [constraint=false]" in folded and "n6 -> n7 [constraint=false]" in folded
    assert "n1 -> n2\n" in folded  # the first column's edges still hold its ranks
    assert crossings(svg) == 0


def test_the_first_column_of_every_fold_is_the_longest_and_none_is_empty() -> None:
    assert fold_cuts(4) == [(2,), (2, 3), (3,)]
    for ranks in range(2, 16):
        for cuts in fold_cuts(ranks):
            sizes = [b - a for a, b in zip((0, *cuts), (*cuts, ranks), strict=True)]
            assert min(sizes) >= 1 and sizes[0] == max(sizes) and len(sizes) in (2, 3)


@needs_dot
def test_crossings_counts_edges_that_cross_and_none_in_a_plain_chain() -> None:
    chain = _chain_source(4)
    assert crossings(_svg(chain)) == 0
    # every one of three nodes to every one of three: some edges must cross
    complete = "digraph {\n" + "".join(f"\t{a} -> {b}\n" for a in "abc" for b in "xyz") + "}\n"
    assert crossings(_svg(complete)) > 0
