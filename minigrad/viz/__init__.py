"""minigrad.viz: draw an autograd graph, and what detach(), detach_() and .data change in it.

    from minigrad import viz
    viz.draw(out, names=dict(a=a, out=out))        # the picture (SVG in Jupyter)
    print(viz.summary(out, names=dict(a=a, out=out)))  # the same graph as stable text
    viz.cut(lambda: out.detach_(), out, names=...)  # before / after one call
    viz.cut_stepper("detach")                       # a program step by step (a widget in Lab)
    viz.set_theme("projector")                      # large type for a room
    viz.set_language("zh")                          # pictures and texts in Chinese
    with viz.trace(): loss = step(batch)            # then: why would a .grad stay None?
    viz.explain(loss, model, optimizer)             # the gradient doctor's report
    viz.show_plot(fig, alt="the loss falls ...")    # a matplotlib plot, with words

Pictures need Graphviz's `dot` program; without it, displaying one raises
GraphvizNotFoundError (whose last line says how to install it) and `viz.summary` still works.

Works on minigrad tensors and, when torch is installed, on torch tensors (read through
`grad_fn.next_functions`, `variable` and the `_saved_*` attributes); torch is never imported
unless you pass a torch tensor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .compare import Comparison, compare, cut
from .doctor_report import Report, explain
from .doctor_trace import trace
from .dot_graph import Graph, GraphTooLargeError
from .dot_program import GraphRenderTimeoutError, GraphvizFailedError, GraphvizNotFoundError
from .layout import BESIDE_UP_TO
from .model import (
    Edge,
    FunctionNode,
    GraphSnapshot,
    SavedNode,
    StorageGroup,
    TensorNode,
)
from .options import COLLAPSE_ABOVE, draw_options
from .plots import Plot, show_plot
from .render import draw_snapshot
from .stepper import Frame, Stepper, cut_stepper, stepper
from .text import summary_text
from .themes import THEMES, Theme, current_theme, set_theme
from .walk import snapshot
from .words import LANGUAGES, current_language, set_language

__all__ = [
    "BESIDE_UP_TO",
    "COLLAPSE_ABOVE",
    "LANGUAGES",
    "THEMES",
    "Comparison",
    "Edge",
    "Frame",
    "FunctionNode",
    "Graph",
    "Report",
    "GraphRenderTimeoutError",
    "GraphSnapshot",
    "GraphTooLargeError",
    "GraphvizFailedError",
    "GraphvizNotFoundError",
    "Plot",
    "SavedNode",
    "Stepper",
    "StorageGroup",
    "TensorNode",
    "Theme",
    "compare",
    "current_language",
    "current_theme",
    "cut",
    "cut_stepper",
    "draw",
    "explain",
    "set_language",
    "set_theme",
    "show_plot",
    "snapshot",
    "stepper",
    "summary",
    "trace",
]


def draw(*roots: Any, names: Mapping[str, Any] | None = None, **options: Any) -> Graph:
    """Draw the graph behind `roots` (and the tensors in `names`) as a graphviz.Digraph.

    `names` maps a name to a tensor (`names=dict(a=a, out=out)`); other tensors are called
    t0, t1, ... in creation order. A GraphSnapshot (from `viz.snapshot`) can be drawn instead
    of tensors: `viz.draw(snap)`.

    Options, by keyword (options.DrawOptions says each in full): `show_saved`,
    `show_versions`, `show_storage` (True); `max_nodes` (300: GraphTooLargeError above it);
    `legend` (None: on the first projector picture only); `collapse_above` (COLLAPSE_ABOVE:
    a tensor used by more functions is drawn in a form Graphviz lays out fast; None: never);
    `saved_layout` ("auto", "beside" or "inside": saved values as nodes of their own beside
    their function, or as rows inside it; "auto" is "beside" up to BESIDE_UP_TO of them);
    `theme` ("default" or "projector"; None: the one chosen with `set_theme`); `notes` (a red
    line on nodes named by tensor name or function label: `notes={"b": "hook: grad * 0"}`).
    """
    chosen = draw_options(options, "draw")
    return draw_snapshot(_snapshot_of(roots, names), chosen)


def summary(*roots: Any, names: Mapping[str, Any] | None = None, counters: bool = True) -> str:
    """The graph as text, one line per tensor and per function, in a stable order.

    Like `draw`, it takes tensors or one GraphSnapshot. `counters=False` leaves out which
    version counter each tensor uses (torch does not say), so that minigrad's and torch's
    summaries of one program can be compared line for line.
    """
    return summary_text(_snapshot_of(roots, names), counters=counters)


def _snapshot_of(roots: tuple[Any, ...], names: Mapping[str, Any] | None) -> GraphSnapshot:
    """The snapshot to draw or summarise: the one given, or one taken of the tensors given."""
    if len(roots) == 1 and isinstance(roots[0], GraphSnapshot) and names is None:
        return roots[0]
    return snapshot(*roots, names=names)
