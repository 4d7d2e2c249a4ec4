"""The drawing options of `viz.draw`, `viz.compare` and `Comparison.draw`, declared once.

    viz.draw(out, show_saved=False)               # any of DrawOptions' fields, by keyword
    viz.cut(lambda: out.detach_(), out).draw(theme="projector")

`DrawOptions` is what the caller asked for ("auto", a theme's name, None); `settle` turns it
into the `DrawSettings` one picture is drawn with (layout.py decides "auto", themes.py the
theme).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .layout import choose_saved_layout
from .model import GraphSnapshot
from .themes import Theme, resolve_theme

__all__ = ["COLLAPSE_ABOVE", "DrawOptions", "DrawSettings", "draw_options"]

# A tensor used by more than this many functions (an RNN's weight, reused at every step) is
# drawn in a form Graphviz lays out fast (see DrawSettings). Drawn plainly, a hundred long
# edges from one node, and a storage box stretched along the whole chain, take dot minutes;
# every graph of the course stays far below this, so the notebooks' pictures do not change.
COLLAPSE_ABOVE = 8


@dataclass(frozen=True)
class DrawOptions:
    """How to draw a graph or a before/after; every picture function takes these by keyword.

    `show_saved`, `show_versions`, `show_storage`: draw saved values, version numbers, and the
    dashed boxes around tensors that share memory. Raises GraphTooLargeError above `max_nodes`
    nodes. `legend`: True or False; None shows it on the first projector picture only.

    `saved_layout`: "beside" draws each saved value as its own node next to its function (in
    the memory box of the tensor it was saved from); "inside" lists them in rows of the
    function's node, which Graphviz lays out two to four times faster; "auto" is "beside" up to
    BESIDE_UP_TO saved values and "inside" above.

    `theme`: "default" or "projector" (None: the one chosen with `set_theme`).

    `stack` (a before/after only): True draws 'after' under 'before', False beside it; None
    stacks when side by side would be wider than the theme's `fit_width`.

    `notes` (`viz.draw` only): a red line of text, and a red border, on chosen nodes, to point
    at something the graph itself does not show, such as where a hook sits:
    `notes={"b": "hook: grad * 0"}`. A key is a tensor's name (from `names`) or a function's
    label ("MulBackward0", "AccumulateGrad(w)").

    A tensor used by more than `collapse_above` functions (a weight reused at every step of
    an unrolled RNN) is drawn so that Graphviz stays fast: its unchanged saved copies become
    one "saved by N functions" node, and its edges to those functions leave along one trunk
    line. Saved values that changed since they were saved, or were freed, stay one node each.
    `collapse_above=None` draws every saved value and edge on its own (slow for such graphs).
    """

    show_saved: bool = True
    show_versions: bool = True
    show_storage: bool = True
    max_nodes: int = 300
    legend: bool | None = None
    collapse_above: int | None = COLLAPSE_ABOVE
    saved_layout: str = "auto"
    theme: str | Theme | None = None
    stack: bool | None = None
    notes: Mapping[str, str] | None = None

    def settle(self, snaps: Iterable[GraphSnapshot]) -> DrawSettings:
        """The settings for drawing `snaps`: "auto" and the theme decided."""
        return DrawSettings(
            show_saved=self.show_saved,
            show_versions=self.show_versions,
            show_storage=self.show_storage,
            collapse_above=self.collapse_above,
            saved_layout=choose_saved_layout(self.saved_layout, snaps),
            theme=resolve_theme(self.theme),
        )


def draw_options(options: Mapping[str, Any], caller: str) -> DrawOptions:
    """DrawOptions from keyword arguments, or a TypeError naming the unknown ones."""
    known = [field.name for field in dataclasses.fields(DrawOptions)]
    unknown = [name for name in options if name not in known]
    if unknown:
        raise TypeError(
            f"{caller}() got an unexpected keyword argument {unknown[0]!r}; its drawing "
            f"options are: {', '.join(known)}"
        )
    return DrawOptions(**options)


@dataclass(frozen=True)
class DrawSettings:
    """The switches one picture is drawn with (DrawOptions.settle makes them).

    `saved_layout` is "beside" or "inside" (already decided from "auto", see layout.py).

    `collapse_above` (None: never) is the threshold for crowded graphs. Above it:
    - more saved values than that which are plain copies of one drawn tensor (same memory and
      version counter, unchanged since saved, not freed) are drawn as one "saved = w, by N
      functions" node, with a dashed edge to each function;
    - a node with more forward (or saved) edges than that sends them along one trunk line of
      small relay points, one branch per function, instead of one long edge each;
    - a storage box still holding more saved values than that draws them beside their
      functions instead, and says how many in its label.
    Saved values changed since they were saved (red) or freed always keep their own node.
    (Drawn inside their functions, saved values need none of this; trunks still apply.)
    """

    show_saved: bool
    show_versions: bool
    show_storage: bool
    collapse_above: int | None
    saved_layout: str
    theme: Theme

    @property
    def beside(self) -> bool:
        """Saved values are nodes of their own."""
        return self.show_saved and self.saved_layout == "beside"

    @property
    def inside(self) -> bool:
        """Saved values are rows of their function's node."""
        return self.show_saved and self.saved_layout == "inside"
