"""Layout decisions made before Graphviz runs: where saved values go, and how wide a picture is.

Saved values, two ways (`saved_layout=`):

- "beside": each saved value is its own orange node next to its function, joined by a dashed
  edge, and sits in the shared-memory box of the tensor it was saved from. This shows best
  what the course is about (the saved `result` *is* `out`'s memory), and small pictures read
  well, but every such node is one more thing `dot` has to place: measured here, a 125-step
  tanh chain took 0.13 s of wall time on a quiet machine, 1,000-node graphs 0.4 to 1.7 s.
- "inside": a function lists what it saved in rows of its own node ("saved result = out,
  v0 / now v0"; red when changed since, dashed when freed). No extra nodes or edges: the same
  graphs take `dot` a half to a quarter of that time (0.06 s; 0.1 to 0.7 s).
- "auto" (the default): "beside" while no snapshot of the picture has more than BESIDE_UP_TO
  saved values (every picture of notebooks 00-05, the five small figures), "inside" above. In the
  larger pictures of notebooks 06-07 the side nodes' long dashed edges cross the graph and
  make it wide; inside rows read better there.

Width: a picture wider than the notebook is scaled down by the browser, type and all. To stack
a before/after vertically in time, its width is estimated from the labels: nodes are ranked as
dot ranks them (longest path from a source), and the widest rank is the picture's width.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Mapping

from .model import GraphSnapshot

__all__ = [
    "BESIDE_UP_TO",
    "SAVED_LAYOUTS",
    "choose_saved_layout",
    "estimate_width",
    "label_width",
    "ranks",
]

SAVED_LAYOUTS = ("auto", "inside", "beside")
BESIDE_UP_TO = 4  # "auto" draws saved values beside their functions up to this many

# Average advance of a Helvetica character, as a fraction of the type size (bold is wider).
_CHAR = 0.55
_BOLD_CHAR = 0.62
_NODE_MARGIN = 2 * 0.12 * 72  # points: the node margin="0.12,..." on both sides
# dot spreads a rank wider than its nodes (crossings, clusters, long edges): on the course's
# pictures the drawn width was 0.9 to 1.6 times the widest rank, 1.25 on average
SPREAD = 1.3
BOX_MARGIN = 8.0  # points between a storage box's frame and its nodes
_LINE_BREAK = re.compile(r"<BR[^>]*>|</TR>")
_TAG = re.compile(r"<[^>]+>")


def choose_saved_layout(requested: str, snaps: Iterable[GraphSnapshot]) -> str:
    """'inside' or 'beside' for `requested` ('auto' decides by the number of saved values)."""
    if requested not in SAVED_LAYOUTS:
        raise ValueError(
            f"saved_layout must be one of {', '.join(map(repr, SAVED_LAYOUTS))}, not {requested!r}"
        )
    if requested != "auto":
        return requested
    most = max((len(snap.saved) for snap in snaps), default=0)
    return "beside" if most <= BESIDE_UP_TO else "inside"


def label_width(label: str, font: float, small: float) -> float:
    """About how wide (points) a node with this label is drawn.

    The first line of our HTML-like labels is bold at `font`, the others at `small`; a plain
    label is one line at `font`.
    """
    if label.startswith("<") and label.endswith(">"):
        lines = _LINE_BREAK.split(label[1:-1])
        texts = [html.unescape(_TAG.sub("", line)) for line in lines]
        texts = [text for text in texts if text.strip()] or [""]
        head, *rest = texts
        widest = max([ems(head, _BOLD_CHAR) * font, *(ems(t, _CHAR) * small for t in rest)])
    else:
        widest = ems(label, _CHAR) * font
    return widest + _NODE_MARGIN


def ems(text: str, latin: float) -> float:
    """How wide `text` is in units of its type size: `latin` per character, 1 for a Chinese
    (East Asian wide) one."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else latin for c in text)


def estimate_width(
    widths: Mapping[str, float],
    links: Iterable[tuple[str, str]],
    nodesep: float,
    boxes: Iterable[tuple[list[str], float]] = (),
) -> float:
    """About how wide dot draws a graph (points): SPREAD times its widest rank.

    `widths` maps each node to its width, `links` are the edges that constrain ranks, and
    `nodesep` is the gap between neighbours (points). `boxes` are the storage boxes: their
    nodes and the width of their label, which is drawn in a rank of its own under them. A node
    of a box with no edges (`c = out.detach()`) is drawn beside a linked one of its box, and
    a rank holding a box is at least as wide as the box's label.
    """
    inputs: dict[str, list[str]] = {node: [] for node in widths}
    outputs: dict[str, list[str]] = {node: [] for node in widths}
    for src, dst in links:
        if src in widths and dst in widths:
            outputs[src].append(dst)
            inputs[dst].append(src)
    rank = ranks(inputs, outputs)
    rows: dict[int, float] = {}  # rank -> width so far

    def place(row: int, width: float) -> None:
        rows[row] = rows.get(row, -nodesep) + nodesep + width

    boxed: set[str] = set()
    for members, label in boxes:
        linked = [rank[node] for node in members if inputs[node] or outputs[node]]
        for node in members:
            if linked and not inputs[node] and not outputs[node]:
                rank[node] = max(linked)
        inside: dict[int, list[float]] = {}
        for node in members:
            inside.setdefault(rank[node], []).append(widths[node])
        for row, sizes in inside.items():
            content = sum(sizes) + nodesep * (len(sizes) - 1)
            place(row, max(content, label) + 2 * BOX_MARGIN)
        place(max(inside, default=0) + 1, label + 2 * BOX_MARGIN)  # the label, under them
        boxed.update(members)
    for node, width in widths.items():
        if node not in boxed:
            place(rank[node], width)
    return SPREAD * max(rows.values(), default=0.0)


def ranks(inputs: Mapping[str, list[str]], outputs: Mapping[str, list[str]]) -> dict[str, int]:
    """Each node's rank (0 = top) as dot would give it, from its inputs and outputs.

    First the longest path from a source; then, as dot keeps edges short, each node moves
    down to just above its nearest user (a leaf right above the function that uses it, not
    at the top of the picture).
    """
    rank = dict.fromkeys(inputs, 0)
    waiting = {node: len(inputs[node]) for node in inputs}
    ready = [node for node, count in waiting.items() if count == 0]
    order = []
    while ready:  # Kahn's order: a node is ranked once all its inputs are
        node = ready.pop()
        order.append(node)
        for user in outputs[node]:
            rank[user] = max(rank[user], rank[node] + 1)
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    for node in reversed(order):
        if outputs[node]:
            rank[node] = max(rank[node], min(rank[user] for user in outputs[node]) - 1)
    return rank
