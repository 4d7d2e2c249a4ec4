"""A picture for a 16:9 slide: of a few Graphviz layouts, the one that shows it largest.

A deck shows each picture on a 1280x720 slide, and the room must read its labels (at least
18 px on screen). Graphviz draws our graphs top to bottom with the theme's spacing; a long
chain is then tall and narrow, and on a wide slide it has to be shrunk until its labels are
too small. A theme with a `slide_box` (the "projector" theme the decks are built with) lets
`dot` try again, only when the first layout would be shrunk below the readable scale:

- the same graph with tighter spacing between nodes and ranks,
- left to right instead of top to bottom (a chain becomes a wide row),
- left to right with tighter spacing,
- both ways again with the tightest spacing that still leaves a clear gap,

and keeps the layout that fits the slide box at the largest scale (the first one on a tie).
A picture may bring other drawings of itself (`others`: the same graph with its saved values
listed inside their functions' nodes instead of beside them, which is narrower); they and
their variants are tried in the same way, only when no layout of the first is readable.
A picture is measured without its legend: the decks show that on a slide of its own.
Only where boxes go changes: every node, edge, label and colour is the same (in another
drawing, a saved value is a row of its function's node rather than a node of its own).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = ["READABLE_PX", "best_layout", "graph_alone", "slide_scale", "variants"]

READABLE_PX = 18.0  # the smallest label the back row reads on a 1280x720 slide
PX_PER_PT = 4 / 3
TIGHT = 'nodesep="0.18" ranksep="0.28"'  # inches; the projector theme's are 0.35 and 0.45
TIGHTEST = 'nodesep="0.1" ranksep="0.18"'  # still a clear gap between two boxes
GAP = 18.0  # points between the halves on a slide (slide_pictures.PANEL_GAP)
PAD = 6.0  # points of margin around the halves laid out again (slide_pictures.PAD)
_HALF = re.compile(
    r'<title>cluster_(?:before|after)</title>\s*<(?:polygon|path)[^>]*?(?:points|d)="([^"]+)"'
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# the legend: the graph's own label, a root attribute statement (legend.py); a node's label
# is an HTML table too, but its statement starts with the node's name
_LEGEND = re.compile(r"\n\t(?:\w+=\S+ )*label=<<TABLE\b[^\n]*\blabelloc=b\b[^\n]*")
_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)pt"[^>]*?\bheight="([\d.]+)pt"', re.DOTALL)


def variants(source: str) -> list[str]:
    """The DOT source with other layouts: tighter, left to right, both, then the tightest
    top to bottom and left to right (in that order).

    A graph attribute statement at the end of the root graph overrides the earlier ones."""
    end = source.rstrip().rfind("}")
    head, tail = source[:end], source[end:]
    return [
        f"{head}\tgraph [{TIGHT}]\n{tail}",
        f"{head}\tgraph [rankdir=LR]\n{tail}",
        f"{head}\tgraph [rankdir=LR {TIGHT}]\n{tail}",
        f"{head}\tgraph [{TIGHTEST}]\n{tail}",
        f"{head}\tgraph [rankdir=LR {TIGHTEST}]\n{tail}",
    ]


def _halves(svg: str) -> list[tuple[float, float, float, float]]:
    """(x0, y0, x1, y1) of the 'before' and 'after' frames of a before/after, else []."""
    found = []
    for points in _HALF.findall(svg):
        numbers = [float(v) for v in _NUMBER.findall(points)]
        xs, ys = numbers[0::2], numbers[1::2]
        found.append((min(xs), min(ys), max(xs), max(ys)))
    return found if len(found) == 2 else []


def graph_alone(source: str) -> str:
    """The DOT source without the legend (the root graph's label); nodes keep theirs."""
    return _LEGEND.sub("", source)


def slide_scale(svg: str, box: tuple[float, float]) -> float:
    """The scale at which the SVG (sizes in points) fits `box` (points); 0 without a size.

    A before/after is laid out again for the slide (its halves side by side or stacked, the
    rest, the legend, under them: scripts/slide_pictures.py), so the best of those counts."""
    size = _SIZE.search(svg)
    if size is None:
        return 0.0
    width, height = float(size.group(1)), float(size.group(2))
    shapes = [(width, height)]
    halves = _halves(svg)
    if halves:
        (a0, b0, a1, b1), (c0, d0, c1, d1) = halves
        rest = max(height - (max(b1, d1) - min(b0, d0)) - 8, 0.0)  # the legend under them
        w1, h1, w2, h2 = a1 - a0, b1 - b0, c1 - c0, d1 - d0
        row = (max(w1 + w2 + GAP, width * (rest > 0)), max(h1, h2) + rest + GAP)
        column = (max(w1, w2), h1 + h2 + rest + 2 * GAP)
        shapes += [(w + 2 * PAD, h + 2 * PAD) for w, h in (row, column)]
    return max(min(box[0] / max(w, 1.0), box[1] / max(h, 1.0)) for w, h in shapes)


def best_layout(
    source: str,
    render: Callable[[str], str],
    box: tuple[float, float],
    smallest_pt: float,
    others: Sequence[str] = (),
) -> str:
    """The DOT source (this one, another drawing of the same picture from `others`, or a
    variant of either) whose SVG shows largest in `box`.

    `render` turns DOT into SVG text; `smallest_pt` is the smallest label of the theme. When
    the first layout already shows every label at READABLE_PX, it is kept as it is."""
    readable = READABLE_PX / (smallest_pt * PX_PER_PT)
    best, best_scale = source, slide_scale(render(_scored(source)), box)
    if best_scale >= readable:
        return source
    for drawing in [source, *others]:
        if drawing is not source and best_scale >= readable:
            break  # the picture as the notebook draws it, only laid out again, is readable
        candidates = variants(drawing) if drawing is source else [drawing, *variants(drawing)]
        for other in candidates:
            scale = slide_scale(render(_scored(other)), box)
            if scale > best_scale * 1.02:  # clearly larger: worth a different look
                best, best_scale = other, scale
    return best


def _scored(source: str) -> str:
    """What has to fit the slide: the graph or the before/after without its legend (a deck
    shows the legend on a slide of its own when all of it does not fit, see
    scripts/slide_layout.py)."""
    return graph_alone(source)
