"""The house style of every picture: colours, the font, and how labels and edges are written.

Colours: leaves light blue, outputs green, other non-leaf tensors pale green, functions grey,
saved values orange (red when changed since they were saved), tensors that do not require grad
dashed, empty `(None, 0)` slots small white circles, shared memory a dashed box (as torchviz,
plus what this course adds). Labels are Graphviz's HTML-like labels, so every text that goes
into one is escaped with `esc` first.
"""

from __future__ import annotations

import html

from .themes import DEFAULT

__all__ = ["GREY", "edge_attrs", "esc", "html_label", "red"]

FONT = "Helvetica"
LEAF_FILL = "#cfe8fc"  # light blue, as torchviz
OUTPUT_FILL = "#c5e8a0"  # green for the tensors the graph was drawn from
NONLEAF_FILL = "#e8f5dc"
NOGRAD_FILL = "#f4f4f4"
FUNCTION_FILL = "#dcdcdc"
SAVED_FILL = "#ffd8a8"  # orange
STALE_FILL = "#ffb3b3"
FREED_FILL = "#ffffff"
RED = "#922b21"  # dark red: >= 4.5:1 on every fill here (WCAG 1.4.3), as labels need
STORAGE_COLOR = "#6f6f6f"
SAVED_EDGE = "#e67e22"
GREY = "#767676"  # the lightest grey that is 4.54:1 on white: faint, still legible


def esc(text: object) -> str:
    """Escape text for an HTML-like label (`<b>&"x"` stays text)."""
    return html.escape(str(text), quote=True)


def html_label(*lines: str, small: int = DEFAULT.small) -> str:
    """An HTML-like label from already escaped lines (first line bold, the others `small` pt)."""
    head, *rest = lines
    body = "".join(f'<BR/><FONT POINT-SIZE="{small}">{line}</FONT>' for line in rest)
    return f"<<B>{head}</B>{body}>"


def red(text: str) -> str:
    return f'<FONT COLOR="{RED}">{text}</FONT>'


def edge_attrs(kind: str) -> dict[str, str]:
    """How an edge of this kind looks (see model.Edge for the kinds)."""
    if kind == "saved":
        return {"style": "dashed", "color": SAVED_EDGE, "arrowhead": "none", "weight": "0"}
    if kind == "none":
        return {"style": "dashed", "color": GREY}
    return {}
