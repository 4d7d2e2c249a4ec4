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
When still none is, a single graph is folded (`fold`): its ranks cut into two or three
columns side by side, a snake (down the first, up the next, ...), and of those folds the
readable one whose edges cross no other edge and no node wins, with the fewest columns (a
chain of 12 functions, 08's SimSiam and 10's MAML graphs, fit a slide only this way).
A picture is measured without its legend: the decks show that on a slide of its own.
Only where boxes go changes: every node, edge, label and colour is the same (in another
drawing, a saved value is a row of its function's node rather than a node of its own).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence

__all__ = [
    "READABLE_PX",
    "best_layout",
    "crossings",
    "fold",
    "fold_cuts",
    "graph_alone",
    "shape_points",
    "slide_scale",
    "variants",
]

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
    if best_scale < readable:  # none is readable: a fold that is, if there is one
        best = _best_fold(source, render, box, readable) or best
    return best


def _best_fold(
    source: str, render: Callable[[str], str], box: tuple[float, float], readable: float
) -> str:
    """The best drawing of `source` in two or three columns (see `fold`) whose labels are
    readable in `box`: the one with the fewest edges crossing edges or nodes, then the fewest
    columns, then the largest; "" when none is, and for a drawing that is not one graph top
    to bottom (a before/after, a box of shared memory: clusters of their own). A fold that
    is not readable either is never kept: it would look stranger and still be too small."""
    if "subgraph cluster" in source or "rankdir=LR" in source:
        return ""
    end = source.rstrip().rfind("}")
    best, best_key = "", (0, 0, 0.0)
    for spacing in (TIGHTEST, TIGHT, ""):  # the tightest first: it folds smallest
        spaced = f"{source[:end]}\tgraph [{spacing}]\n{source[end:]}" if spacing else source
        drawn = render(_scored(spaced))
        for cuts in fold_cuts(len(_rows(drawn))):
            folded = fold(spaced, drawn, cuts)
            svg = render(_scored(folded))
            scale = slide_scale(svg, box)
            if scale < readable:
                continue
            key = (-crossings(svg), -len(cuts), scale)
            if not best or key > best_key:
                best, best_key = folded, key
    return best


def _scored(source: str) -> str:
    """What has to fit the slide: the graph or the before/after without its legend (a deck
    shows the legend on a slide of its own when all of it does not fit, see
    scripts/slide_layout.py)."""
    return graph_alone(source)


# ---- folding a long graph into columns ---------------------------------------------------

_NODE = re.compile(r'<g id="[^"]*" class="node">\s*<title>([^<]*)</title>(.*?)</g>', re.DOTALL)
_EDGE = re.compile(r'<g id="[^"]*" class="edge">\s*<title>([^<]*)</title>(.*?)</g>', re.DOTALL)
_PATH = re.compile(r'<path\b[^>]*?\bd="([^"]+)"')
_ARROWHEAD = re.compile(r'<polygon\b[^>]*?\bpoints="([^"]+)"')
_SHAPE = re.compile(r'\b(?:points|d)="([^"]+)"')
_ELLIPSE = re.compile(
    r'<ellipse\b[^>]*?\bcx="([-\d.]+)" cy="([-\d.]+)" rx="([-\d.]+)" ry="([-\d.]+)"'
)
_EDGE_LINE = re.compile(r"^\t(\S+) -> (\S+)(?: \[(.*)\])?$")
Box = tuple[float, float, float, float]


def shape_points(element: str) -> tuple[list[float], list[float]]:
    """The x and the y of every point of an SVG element's shapes as `dot` draws them: the
    corners of polygons and paths, and each ellipse's extremes (text not included)."""
    xs: list[float] = []
    ys: list[float] = []
    for points in _SHAPE.findall(element):
        numbers = [float(v) for v in _NUMBER.findall(points)]
        xs += numbers[0::2]
        ys += numbers[1::2]
    for cx, cy, rx, ry in _ELLIPSE.findall(element):
        xs += [float(cx) - float(rx), float(cx) + float(rx)]
        ys += [float(cy) - float(ry), float(cy) + float(ry)]
    return xs, ys


def _node_boxes(svg: str) -> dict[str, Box]:
    """Each node's (x0, y0, x1, y1) in the SVG drawn by `dot`, by the node's DOT name."""
    boxes = {}
    for name, body in _NODE.findall(svg):
        xs, ys = shape_points(body)
        if xs:
            boxes[name] = (min(xs), min(ys), max(xs), max(ys))
    return boxes


def _rows(svg: str) -> list[list[str]]:
    """The nodes of a top-to-bottom drawing rank by rank, top first (dot centres a rank's
    nodes on one line)."""
    rows: dict[int, list[str]] = {}
    for name, (_, y0, _, y1) in _node_boxes(svg).items():
        rows.setdefault(round((y0 + y1) / 2), []).append(name)
    return [rows[y] for y in sorted(rows)]


def fold(source: str, svg: str, cuts: Sequence[int]) -> str:
    """The DOT source drawn in columns side by side: `svg` is `source` drawn by dot, top to
    bottom; its ranks are cut before each rank number in `cuts` into bands.

    The first band is the first column, top to bottom; the next one stands to its right and
    goes bottom to top, the one after that top to bottom again, ...: a snake, so the edge from
    one column to the next is a short one along the bottom or the top, and every arrow still
    points the way the data flows. A node with no inputs (a None slot, a leaf) goes into the
    column of what it feeds; in a column going up it stands beside it. Each column is a
    cluster without a frame, so the columns do not mix; the first column must be the longest
    (it holds the ranks in place)."""
    rows = _rows(svg)
    lines = source.rstrip().splitlines()
    edges = [m.group(1, 2) for m in map(_EDGE_LINE.match, lines) if m]
    inputs: dict[str, list[str]] = {}
    outputs: dict[str, list[str]] = {}
    for tail, head in edges:
        inputs.setdefault(head, []).append(tail)
        outputs.setdefault(tail, []).append(head)
    starts, ends = [0, *cuts], [*cuts, len(rows)]
    longest = max(e - s for s, e in zip(starts, ends, strict=True))
    band = {
        name: i
        for i, (s, e) in enumerate(zip(starts, ends, strict=True))
        for r in range(s, e)
        for name in rows[r]
    }
    first = {name: r for r, row in enumerate(rows) for name in row}
    for name in list(band):
        homes = {band[h] for h in outputs.get(name, []) if h in band}
        if name not in inputs and len(homes) == 1:
            band[name] = homes.pop()
    rank = {}
    for name, i in band.items():
        step = min(max(first[name] - starts[i], 0), ends[i] - starts[i] - 1)
        rank[name] = step if i % 2 == 0 else longest - 1 - step
    for name, i in band.items():
        fed = outputs.get(name, [])
        if i % 2 and name not in inputs and len(fed) == 1 and band.get(fed[0]) == i:
            rank[name] = rank[fed[0]]  # beside what it feeds
    out = []
    for line in lines[:-1]:
        match = _EDGE_LINE.match(line)
        if match and match.group(1) in band and match.group(2) in band:
            tail, head, attrs = match.groups()
            if band[tail] != band[head] or band[tail] % 2:  # it does not point down: no rank
                line = f"\t{tail} -> {head} [{attrs + ' ' if attrs else ''}constraint=false]"
        out.append(line)
    for r in range(longest):
        out.append("\t{rank=same; " + " ".join(n for n in band if rank[n] == r) + "}")
    for i in range(len(starts)):
        members = " ".join(n for n in band if band[n] == i)
        out.append(f'\tsubgraph cluster_fold{i} {{ label="" peripheries=0 {members} }}')
    out.append("\tgraph [newrank=true]")
    return "\n".join([*out, "}"]) + "\n"


def fold_cuts(ranks: int) -> list[tuple[int, ...]]:
    """Where a drawing of `ranks` ranks may be cut into two or three columns: every way in
    which the first column is the longest and no column is empty."""
    found: list[tuple[int, ...]] = []
    for a in range(1, ranks):
        if a >= ranks - a:
            found.append((a,))
        for b in range(a + 1, ranks):
            if a >= b - a and a >= ranks - b:
                found.append((a, b))
    return found


def _polyline(path: str) -> list[tuple[float, float]]:
    """Points along an SVG edge path (M, then cubic Béziers: dot's splines)."""
    numbers = [float(v) for v in _NUMBER.findall(path)]
    points = list(zip(numbers[0::2], numbers[1::2], strict=False))
    line = points[:1]
    for i in range(1, len(points) - 2, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points[i - 1 : i + 3]
        for step in range(1, 9):
            t = step / 8
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3
            line.append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
    return line


def _cross(
    p: tuple[float, float], q: tuple[float, float], r: tuple[float, float], s: tuple[float, float]
) -> bool:
    """Whether segment pq crosses segment rs (touching ends do not count)."""

    def side(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    return side(p, q, r) * side(p, q, s) < 0 and side(r, s, p) * side(r, s, q) < 0


def crossings(svg: str) -> int:
    """How often an edge of the drawing crosses another edge or runs over a node (its
    text) other than its own two ends: 0 for a clean drawing."""
    boxes = _node_boxes(svg)
    lines = []
    for title, body in _EDGE.findall(svg):
        ends = set(html.unescape(title).split("->"))
        line = [point for path in _PATH.findall(body) for point in _polyline(path)]
        for points in _ARROWHEAD.findall(body):  # the arrowhead's outline goes on from there
            numbers = [float(v) for v in _NUMBER.findall(points)]
            line += list(zip(numbers[0::2], numbers[1::2], strict=False))
        lines.append((ends, line))
    count = 0
    for ends, line in lines:
        for name, (x0, y0, x1, y1) in boxes.items():
            inside = [x0 + 2 < x < x1 - 2 and y0 + 2 < y < y1 - 2 for x, y in line]
            count += name not in ends and any(inside)
    for i, (ends, line) in enumerate(lines):
        for other_ends, other in lines[i + 1 :]:
            if ends & other_ends:
                continue  # two edges of one node meet there
            count += any(
                _cross(p, q, r, s)
                for p, q in zip(line, line[1:], strict=False)
                for r, s in zip(other, other[1:], strict=False)
            )
    return count
