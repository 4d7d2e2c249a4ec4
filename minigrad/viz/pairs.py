"""Draw a before/after: two snapshots side by side (one above the other when that would be too
wide for a notebook), with what changed marked in the 'after' half.

The 'after' snapshot is aligned (matching.py), so a node has the same key in both halves; the
changes (changes.py, change_text.py) say which nodes to mark, which edges the call cut (drawn
red and dashed) and which nodes are gone (drawn faintly where they used to be).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .alt_text import pair_description, pair_name
from .builder import Builder
from .changes import Changes, Marks, edge_name
from .dot_graph import Graph, check_size, new_graph
from .legend import add_legend
from .model import GraphSnapshot
from .options import DrawOptions
from .render import narrower_for_slides
from .style import GREY, RED, esc
from .themes import wants_legend
from .words import say

__all__ = ["FRAME", "draw_pair"]

FRAME = 16.0  # points a cluster frame adds on each side, about


def draw_pair(
    before: GraphSnapshot,
    after: GraphSnapshot,
    label: str,
    found: Changes,
    options: DrawOptions,
    marks: tuple[Marks, Marks] | None = None,
) -> Graph:
    """The before/after picture of an aligned `after` (see compare.compare).

    `marks`: what each half highlights (default: nothing before, the call's changes after).
    """
    if options.notes:
        raise ValueError(
            "notes= is an option of viz.draw (one graph); a before/after marks its own changes"
        )
    before_marks, after_marks = marks or (Marks(), found.marks)
    settings = options.settle((before, after))
    check_size(before.node_count + after.node_count + len(found.gone), options.max_nodes)
    theme = settings.theme
    graph = new_graph(f"minigrad.viz: before / after {label}", theme)
    graph.saved_layout = settings.saved_layout
    graph.drawn_from = ((before, before_marks), (after, after_marks))
    graph.drawn_changes = found
    graph.attr(compound="true")
    left = Builder(graph, before, settings, prefix="before_")
    right = Builder(graph, after, settings, prefix="after_")
    title = {"fontsize": str(theme.title_font), "style": "rounded", "color": "#bbbbbb"}
    with graph.subgraph(name="cluster_before") as box:
        box.attr(label=say("before"), labeljust="c", **title)
        left.build(box, before_marks)
    with graph.subgraph(name="cluster_after") as box:
        heading = say("after") if label == "after" else say("after {label}", label=label)
        box.attr(label=heading, labeljust="c", **title)
        right.build(box, after_marks)
        add_gone(box, right, before, found.gone)
    add_cut_edges(right, after, label, found)
    graph.alt_name = pair_name(label, found)
    graph.alt_description = pair_description(before, after, found)
    # side by side: the two halves and the frames around them
    graph.estimated_width = left.width() + right.width() + 3 * FRAME
    stacked = options.stack
    if stacked is None:
        stacked = graph.estimated_width > theme.fit_width
    if stacked:
        stack(graph, left, right)
        graph.estimated_width = max(left.width(), right.width()) + 2 * FRAME
    legend = wants_legend(options.legend, theme)
    if legend:
        add_legend(graph, before_after=True, theme=theme)
    saved = max(len(before.saved), len(after.saved))
    if narrower_for_slides(options, settings, saved):
        inside = dataclasses.replace(options, saved_layout="inside", legend=legend)
        other = draw_pair(before, after, label, found, inside, marks)
        graph.slide_alternatives = (other.source,)
    return graph


def add_gone(box: Any, right: Builder, before: GraphSnapshot, gone: tuple[str, ...]) -> None:
    """The nodes no longer in the graph, drawn faintly in the 'after' half."""
    for key in gone:
        old = before.by_key(key) if "_none" not in key else None
        text = edge_name(before, key)
        gone_function = old is not None and key.startswith("F")
        kind = say("no longer in this graph") if gone_function else say("gone")
        right.add_node(
            box,
            key,
            label=right.labels.html(esc(text), esc(kind)),
            shape="box",
            style="dashed,rounded",
            color=GREY,
            fontcolor=GREY,
        )


def add_cut_edges(right: Builder, after: GraphSnapshot, label: str, found: Changes) -> None:
    """Every edge the 'after' graph lost, red and dashed; 'cut by ...' on those the call cut."""
    after_keys = after.keys()
    for edge in found.removed_edges:
        # the label goes on the edges the call cut, not on every edge that became unreachable
        text = say(" cut by {label} ", label=label) if edge.dst in after_keys else ""
        right.add_edge(
            edge.src,
            edge.dst,
            style="dashed",
            color=RED,
            fontcolor=RED,
            penwidth=right.theme.cut_pen,
            label=text,
            arrowhead="tee",
        )


def stack(graph: Graph, top: Builder, bottom: Builder) -> None:
    """Put the 'after' half under the 'before' half (it would be too wide beside it).

    Invisible edges lead from every node of `top` that has no edge out to one hidden point,
    and from there to every node of `bottom` that has no edge in: dot ranks them all below.
    """
    graph.stacked = True
    graph.node("stack", label="", shape="point", style="invis", width="0")
    # weight 0 above leaves the point free to sit centred over the lower half; weight 0 below
    # as well would let dot keep the halves side by side
    has_out = {src for src, _ in top.links}
    for node in top.widths:
        if node not in has_out:
            graph.edge(node, "stack", style="invis", weight="0")
    has_in = {dst for _, dst in bottom.links}
    for node in bottom.widths:
        if node not in has_in:
            graph.edge("stack", node, style="invis")
