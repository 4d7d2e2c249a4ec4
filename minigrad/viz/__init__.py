"""minigrad.viz: draw an autograd graph, and what detach(), detach_() and .data change in it.

    from minigrad import viz
    viz.draw(out, names=dict(a=a, out=out))        # the picture (SVG in Jupyter)
    print(viz.summary(out, names=dict(a=a, out=out)))  # the same graph as stable text
    viz.cut(lambda: out.detach_(), out, names=...)  # before / after one call
    viz.cut_stepper("detach")                       # a program step by step (a widget in Lab)
    viz.set_theme("projector")                      # large type for a room

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
from .dot_program import GraphvizFailedError, GraphvizNotFoundError
from .layout import BESIDE_UP_TO
from .model import (
    Edge,
    FunctionNode,
    GraphSnapshot,
    SavedNode,
    StorageGroup,
    TensorNode,
    snapshot,
)
from .render import (
    COLLAPSE_ABOVE,
    Graph,
    GraphRenderTimeoutError,
    GraphTooLargeError,
)
from .stepper import Frame, Stepper, cut_stepper, stepper
from .themes import THEMES, Theme, current_theme, set_theme

__all__ = [
    "BESIDE_UP_TO",
    "COLLAPSE_ABOVE",
    "THEMES",
    "Comparison",
    "Edge",
    "Frame",
    "FunctionNode",
    "Graph",
    "GraphRenderTimeoutError",
    "GraphSnapshot",
    "GraphTooLargeError",
    "GraphvizFailedError",
    "GraphvizNotFoundError",
    "SavedNode",
    "Stepper",
    "StorageGroup",
    "TensorNode",
    "Theme",
    "compare",
    "current_theme",
    "cut",
    "cut_stepper",
    "draw",
    "set_theme",
    "snapshot",
    "stepper",
    "summary",
]


def draw(
    *roots: Any,
    names: Mapping[str, Any] | None = None,
    show_saved: bool = True,
    show_versions: bool = True,
    show_storage: bool = True,
    max_nodes: int = 300,
    legend: bool | None = None,
    collapse_above: int | None = COLLAPSE_ABOVE,
    saved_layout: str = "auto",
    theme: str | Theme | None = None,
) -> Graph:
    """Draw the graph behind `roots` (and the tensors in `names`) as a graphviz.Digraph.

    `names` maps a name to a tensor (`names=dict(a=a, out=out)`); other tensors are called
    t0, t1, ... in creation order. Raises GraphTooLargeError above `max_nodes` nodes.

    `saved_layout`: "beside" draws each saved value as its own node next to its function (in
    the memory box of the tensor it was saved from); "inside" lists them in rows of the
    function's node, which Graphviz lays out two to four times faster; "auto" is "beside" up to
    BESIDE_UP_TO saved values and "inside" above.

    `theme`: "default" or "projector" (None: the one chosen with `set_theme`). `legend`: True
    or False; None shows it on the first projector picture only.

    A tensor used by more than `collapse_above` functions (a weight reused at every step of
    an unrolled RNN) is drawn so that Graphviz stays fast: its unchanged saved copies become
    one "saved by N functions" node, and its edges to those functions leave along one trunk
    line. Saved values that changed since they were saved, or were freed, stay one node each.
    `collapse_above=None` draws every saved value and edge on its own (slow for such graphs).
    """
    return snapshot(*roots, names=names).draw(
        show_saved=show_saved,
        show_versions=show_versions,
        show_storage=show_storage,
        max_nodes=max_nodes,
        legend=legend,
        collapse_above=collapse_above,
        saved_layout=saved_layout,
        theme=theme,
    )


def summary(*roots: Any, names: Mapping[str, Any] | None = None) -> str:
    """The graph as text, one line per tensor and per function, in a stable order."""
    return snapshot(*roots, names=names).summary()
