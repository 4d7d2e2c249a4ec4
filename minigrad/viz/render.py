"""Draw one snapshot: `viz.draw` ends here.

The picture is a Graph (dot_graph.py) in the house style (style.py), with its nodes and edges
added by a Builder (builder.py) and, when wanted, the legend underneath (legend.py). A
before/after of two snapshots is drawn by pairs.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from .alt_text import graph_description, graph_name
from .builder import Builder
from .changes import Marks
from .dot_graph import Graph, check_size, new_graph
from .legend import add_legend
from .model import GraphSnapshot
from .options import DrawOptions, DrawSettings
from .themes import wants_legend

__all__ = ["draw_snapshot", "narrower_for_slides"]


def draw_snapshot(snap: GraphSnapshot, options: DrawOptions) -> Graph:
    """Draw one snapshot (see `viz.draw` and options.DrawOptions)."""
    check_size(snap.node_count, options.max_nodes)
    settings = options.settle((snap,))
    graph = new_graph(f"minigrad.viz: {snap.source} graph", settings.theme)
    graph.saved_layout = settings.saved_layout
    builder = Builder(graph, snap, settings)
    marks = noted(snap, options.notes or {})
    builder.build(graph, marks)
    graph.drawn_from = ((snap, marks),)
    graph.estimated_width = builder.width()
    graph.alt_name = graph_name(snap)
    graph.alt_description = graph_description(snap)
    legend = wants_legend(options.legend, settings.theme)
    if legend:
        add_legend(graph, theme=settings.theme)
    if narrower_for_slides(options, settings, len(snap.saved)):
        inside = dataclasses.replace(options, saved_layout="inside", legend=legend)
        graph.slide_alternatives = (draw_snapshot(snap, inside).source,)
    return graph


def narrower_for_slides(options: DrawOptions, settings: DrawSettings, saved: int) -> bool:
    """Whether a picture drawn for slides (a theme with a slide box) should bring a second
    drawing with its saved values inside their functions' nodes: only when the layout was
    left to "auto", it chose "beside", and there are saved values. That drawing is narrower;
    the deck shows it when the first one would have labels too small (slide_fit.py)."""
    return (
        settings.theme.slide_box is not None
        and options.saved_layout == "auto"
        and settings.saved_layout == "beside"
        and saved > 0
    )


def noted(snap: GraphSnapshot, notes: Mapping[str, str]) -> Marks:
    """The marks for `draw(..., notes=...)`: a red note and border on each node named, by a
    tensor's name or a function's label; a ValueError names a key the graph does not have."""
    marks = Marks()
    for name, text in notes.items():
        found = [t.key for t in snap.tensors if t.name == name]
        found += [f.key for f in snap.functions if f.label == name]
        if not found:
            known = [t.name for t in snap.tensors] + [f.label for f in snap.functions]
            raise ValueError(
                f"notes: the graph has no tensor or function called {name!r}; name a tensor "
                f"with names=dict(...) or use one of: {', '.join(known)}"
            )
        marks.notes.setdefault(found[0], []).append(str(text))
        marks.changed.add(found[0])
    return marks
