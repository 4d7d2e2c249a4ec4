"""Draw one snapshot: `viz.draw` ends here.

The picture is a Graph (dot_graph.py) in the house style (style.py), with its nodes and edges
added by a Builder (builder.py) and, when wanted, the legend underneath (legend.py). A
before/after of two snapshots is drawn by pairs.py.
"""

from __future__ import annotations

from .alt_text import graph_description, graph_name
from .builder import Builder
from .dot_graph import Graph, check_size, new_graph
from .legend import add_legend
from .model import GraphSnapshot
from .options import DrawOptions
from .themes import wants_legend

__all__ = ["draw_snapshot"]


def draw_snapshot(snap: GraphSnapshot, options: DrawOptions) -> Graph:
    """Draw one snapshot (see `viz.draw` and options.DrawOptions)."""
    check_size(snap.node_count, options.max_nodes)
    settings = options.settle((snap,))
    graph = new_graph(f"minigrad.viz: {snap.source} graph", settings.theme)
    graph.saved_layout = settings.saved_layout
    builder = Builder(graph, snap, settings)
    builder.build(graph)
    graph.estimated_width = builder.width()
    graph.alt_name = graph_name(snap)
    graph.alt_description = graph_description(snap)
    if wants_legend(options.legend, settings.theme):
        add_legend(graph, theme=settings.theme)
    return graph
