"""Graph pictures for a 1280x720 slide: how big to show them, how to lay them out, their parts.

A picture drawn by minigrad.viz is Graphviz SVG whose sizes are in points (1 pt = 4/3 px). On a
slide its labels should be at least MIN_TEXT_PX screen pixels. A before/after comparison is laid
out again for a 16:9 slide (for_slide: its "before", "after" and legend panels side by side or
stacked, whichever shows largest); each panel keeps exactly what Graphviz drew, only moved.
When even that leaves labels too small, the layout (slide_layout.py) follows the whole picture
with its parts (parts: before, after, legend) or, for a single graph, bands cut between its
ranks (tiles), each on a slide of its own. A single graph with the legend the projector theme
put under it is drawn as two pictures (without_legend). A part carries its own accessible name
and description (own_text, with_own_text, half_text, labels_in_view), not the whole picture's.
Panels are told apart by the frames of the clusters "before" and "after" (viz writes no
<title> for nodes and edges: they go with the frame they lie in).
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, replace

from minigrad.viz.slide_fit import shape_points

PX_PER_PT = 4 / 3
MIN_TEXT_PX = 18.0
MAX_SCALE = 2.0  # a small picture is not blown up past twice its size
PAD = 6.0  # points kept around a part that is cut out
MIN_OVERLAP = 160.0  # points two side-by-side windows of a wide picture share

_SVG_TAG = re.compile(r"<svg\b[^>]*>", re.DOTALL)
_OWN_TEXT = re.compile(r"\s*<title>[^<]*</title>(\s*<desc>[^<]*</desc>)?", re.DOTALL)
_VIEWBOX = re.compile(r'viewBox="([-\d.\s]+)"')
_TRANSLATE = re.compile(
    r'class="graph" transform="scale\(([\d.]+)[^)]*\)[^"]*translate\(([-\d.]+) ([-\d.]+)\)"'
)
_FONT = re.compile(r'font-size="([\d.]+)"')
_CLUSTER = re.compile(
    r'<g id="[^"]*" class="cluster">\s*<title>(cluster_(?:before|after))</title>\s*'
    r'<(?:polygon|path)[^>]*?(?:points|d)="([^"]+)"',
    re.DOTALL,
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Picture:
    """One SVG picture (or a part of one): its text and its size in points."""

    svg: str
    width: float  # points
    height: float  # points
    smallest_font: float  # points, the smallest label
    label: str = ""  # "before", "after", "legend" for a part; "" for a whole picture

    def scale_for_text(self) -> float:
        """The smallest scale at which every label is at least MIN_TEXT_PX on screen."""
        return MIN_TEXT_PX / (self.smallest_font * PX_PER_PT)

    def size_at(self, scale: float) -> tuple[float, float]:
        """Width and height in screen pixels at `scale`."""
        return self.width * PX_PER_PT * scale, self.height * PX_PER_PT * scale

    def fits(self, width_px: float, height_px: float) -> bool:
        """Whether it fits a box of that size with its labels large enough."""
        w, h = self.size_at(self.scale_for_text())
        return w <= width_px and h <= height_px

    def sized(self, width_px: float, height_px: float) -> tuple[str, float, float]:
        """The SVG with width/height set for the box, and that size in px.

        As large as fits the box, up to MAX_SCALE times its own size, but never smaller than
        the scale its labels need (a picture too large for the box then stays too large, and
        the deck check reports it).
        """
        fit = min(width_px / (self.width * PX_PER_PT), height_px / (self.height * PX_PER_PT))
        scale = max(min(fit, MAX_SCALE), self.scale_for_text())
        w, h = self.size_at(scale)
        return with_size(self.svg, w, h), w, h


def parse(svg: str) -> Picture | None:
    """A Picture from Graphviz SVG text, or None when it has no size in points."""
    tag = _SVG_TAG.search(svg)
    box = _VIEWBOX.search(tag.group(0)) if tag else None
    if box is None:
        return None
    _, _, width, height = (float(v) for v in box.group(1).split())
    fonts = [float(v) for v in _FONT.findall(svg)]
    inner = _TRANSLATE.search(svg)
    scale = float(inner.group(1)) if inner else 1.0
    smallest = (min(fonts) if fonts else 14.0) * scale
    return Picture(svg, width, height, smallest)


def with_size(svg: str, width_px: float, height_px: float) -> str:
    """The SVG with its root width and height set in px (the viewBox keeps the drawing).

    Whole pixels, rounded up: rounded down, a picture sized for 24 px labels shows 23.9 px."""
    tag = _SVG_TAG.search(svg)
    assert tag is not None
    new = re.sub(r'\swidth="[^"]*"', "", tag.group(0))
    new = re.sub(r'\sheight="[^"]*"', "", new)
    width, height = math.ceil(width_px - 1e-6), math.ceil(height_px - 1e-6)
    new = new.replace("<svg", f'<svg width="{width}px" height="{height}px"', 1)
    return svg[: tag.start()] + new + svg[tag.end() :]


def _with_viewbox(svg: str, x: float, y: float, width: float, height: float) -> str:
    tag = _SVG_TAG.search(svg)
    assert tag is not None
    new = _VIEWBOX.sub(f'viewBox="{x:.2f} {y:.2f} {width:.2f} {height:.2f}"', tag.group(0))
    new = re.sub(r'\swidth="[^"]*"', f' width="{width:.2f}pt"', new, count=1)
    new = re.sub(r'\sheight="[^"]*"', f' height="{height:.2f}pt"', new, count=1)
    return svg[: tag.start()] + new + svg[tag.end() :]


def parts(picture: Picture) -> list[Picture]:
    """A comparison cut into before, after and legend (in that order); [] when it is not one.

    The boxes come from the two top-level clusters Graphviz writes for a viz.compare picture
    (cluster_before and cluster_after); the legend is whatever lies below (or right of) both.
    """
    inner = _TRANSLATE.search(picture.svg)
    if inner is None:
        return []
    scale, dx, dy = (float(v) for v in inner.groups())
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for name, points in _CLUSTER.findall(picture.svg):
        numbers = [float(v) for v in _NUMBER.findall(points)]
        xs, ys = numbers[0::2], numbers[1::2]
        # Graph coordinates -> SVG user units: scale, then translate.
        boxes[name.removeprefix("cluster_")] = (
            (min(xs) + dx) * scale,
            (min(ys) + dy) * scale,
            (max(xs) + dx) * scale,
            (max(ys) + dy) * scale,
        )
    if set(boxes) != {"before", "after"}:
        return []
    out = []
    for label in ("before", "after"):
        x0, y0, x1, y1 = boxes[label]
        x0, y0 = max(x0 - PAD, 0.0), max(y0 - PAD, 0.0)
        x1, y1 = min(x1 + PAD, picture.width), min(y1 + PAD, picture.height)
        svg = _with_viewbox(picture.svg, x0, y0, x1 - x0, y1 - y0)
        out.append(Picture(svg, x1 - x0, y1 - y0, picture.smallest_font, label))
    bottom = max(boxes["before"][3], boxes["after"][3]) + PAD
    right = max(boxes["before"][2], boxes["after"][2]) + PAD
    if picture.height - bottom > 30:  # a legend under the two boxes
        height = picture.height - bottom
        svg = _with_viewbox(picture.svg, 0.0, bottom, picture.width, height)
        out.append(Picture(svg, picture.width, height, picture.smallest_font, "legend"))
    elif picture.width - right > 60:  # a legend beside them
        width = picture.width - right
        svg = _with_viewbox(picture.svg, right, 0.0, width, picture.height)
        out.append(Picture(svg, width, picture.height, picture.smallest_font, "legend"))
    return out


_NODE = re.compile(r'<g id="[^"]*" class="node">(.*?)</g>', re.DOTALL)
_TEXT_AT = re.compile(r'<text[^>]*\bx="([-\d.]+)" y="([-\d.]+)"')


def node_boxes(picture: Picture) -> list[tuple[float, float, float, float]]:
    """(x0, y0, x1, y1) of every node of the picture, in the SVG's user units."""
    inner = _TRANSLATE.search(picture.svg)
    if inner is None:
        return []
    scale, dx, dy = (float(v) for v in inner.groups())
    boxes = []
    for body in _NODE.findall(picture.svg):
        xs, ys = shape_points(body)
        for x, y in _TEXT_AT.findall(body):
            xs.append(float(x))
            ys += [float(y) - picture.smallest_font, float(y) + 4]
        if xs and ys:
            boxes.append(
                (
                    (min(xs) + dx) * scale,
                    (min(ys) + dy) * scale,
                    (max(xs) + dx) * scale,
                    (max(ys) + dy) * scale,
                )
            )
    return boxes


Band = tuple[float, float]


def _cuts(extent: float, budget: float, busy: list[Band]) -> list[Band]:
    """Bands [start, end) of at most `budget` covering [0, extent), cut where no node is."""
    bands = []
    start = 0.0
    while extent - start > budget:
        limit = start + budget
        # as many bands as the rest needs, of even height: no thin leftover band
        target = start + (extent - start) / math.ceil((extent - start) / budget)
        free = [
            hi
            for hi in sorted({b for _, b in busy} | {start})
            if start + budget / 3 < hi <= limit and not any(a < hi < b for a, b in busy)
        ]
        cut = min(free, key=lambda hi: abs(hi - target)) if free else limit
        bands.append((start, cut))
        start = cut
    bands.append((start, extent))
    return bands


def _windows(extent: float, budget: float) -> list[tuple[float, float]]:
    """Overlapping windows of `budget` that pan across [0, extent) from left to right.

    A graph's ranks are wide, so there is rarely a free line to cut it top to bottom; windows
    that overlap by at least MIN_OVERLAP show every box whole in one of them.
    """
    if extent <= budget:
        return [(0.0, extent)]
    count = math.ceil(extent / budget)
    while count > 1 and (count * budget - extent) / (count - 1) < MIN_OVERLAP:
        count += 1
    step = (extent - budget) / (count - 1)
    return [(i * step, i * step + budget) for i in range(count)]


def tiles(picture: Picture, width_px: float, height_px: float) -> list[Picture]:
    """A picture too large for one slide cut into slide-sized tiles, row by row.

    Each tile is shown at the scale its labels need (MIN_TEXT_PX). Rows are cut between the
    graph's ranks (never through a box) where the drawing allows; a picture wider than the
    slide is shown in windows that pan from left to right and overlap (see _windows).
    """
    scale = picture.scale_for_text() * PX_PER_PT
    max_w, max_h = width_px / scale, height_px / scale  # in points
    if picture.width <= max_w and picture.height <= max_h:
        return [picture]
    boxes = node_boxes(picture)
    rows = _cuts(picture.height, max_h, [(y0 + 0.5, y1 + PAD) for _, y0, _, y1 in boxes])
    columns = _windows(picture.width, max_w)
    out = []
    for r, (top, bottom) in enumerate(rows):
        for c, (left, right) in enumerate(columns):
            svg = _with_viewbox(picture.svg, left, top, right - left, bottom - top)
            label = (
                f"{picture.label} {r + 1}/{len(rows)}"
                if len(columns) == 1
                else (f"{picture.label} {r + 1}.{c + 1}/{len(rows)}.{len(columns)}")
            )
            size = (right - left, bottom - top)
            out.append(Picture(svg, *size, picture.smallest_font, label.strip()))
    return out


# ---- a comparison laid out again for a 16:9 slide -----------------------------------------------

_GRAPH_OPEN = re.compile(
    r'<g id="graph0" class="graph" transform="[^"]*">\s*(?:<title>[^<]*</title>)?'
)
_TAG = re.compile(r"<(/?)(\w+)\b[^>]*?(/?)>")
_ITEM_TITLE = re.compile(r"<title>([^<]*)</title>")
_CJK_CHAR = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
PANEL_GAP = 18.0  # points between two panels of a comparison laid out again


def _elements(body: str) -> list[str]:
    """The top-level elements of an SVG fragment, each with everything inside it."""
    out = []
    depth = 0
    start = 0
    for tag in _TAG.finditer(body):
        closing, self_closing = tag.group(1) == "/", tag.group(3) == "/"
        if depth == 0 and not closing:
            start = tag.start()
        if closing:
            depth -= 1
        elif not self_closing:
            depth += 1
        if depth == 0:
            out.append(body[start : tag.end()] + "\n")
    return out


def _element_box(element: str) -> tuple[float, float, float, float] | None:
    """(x0, y0, x1, y1) of one Graphviz element in graph coordinates (text widths estimated)."""
    xs, ys = shape_points(element)
    for text in re.finditer(r"<text\b([^>]*)>([^<]*)</text>", element):
        attrs, body = text.groups()
        at = _TEXT_AT.search("<text" + attrs)
        size = _FONT.search(attrs)
        if at is None:
            continue
        x, y = float(at.group(1)), float(at.group(2))
        px = float(size.group(1)) if size else 14.0
        body = body.replace("&#45;", "-").replace("&#39;", "'").replace("&amp;", "&")
        width = (len(_CJK_CHAR.findall(body)) + 0.6 * len(_CJK_CHAR.sub("", body))) * px
        anchor = re.search(r'text-anchor="(\w+)"', attrs)
        left = {"middle": x - width / 2, "end": x - width}.get(anchor.group(1) if anchor else "", x)
        xs += [left, left + width]
        ys += [y - px, y + px * 0.3]
    if not xs:
        return None
    return min(xs), min(ys), max(xs), max(ys)


def _union(boxes: list[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def panels(picture: Picture) -> dict[str, tuple[list[str], tuple[float, float, float, float]]]:
    """The elements of a viz comparison by panel ("before", "after", "legend") with each
    panel's box in graph coordinates; {} when the picture is not a comparison."""
    opening = _GRAPH_OPEN.search(picture.svg)
    end = picture.svg.rfind("</g>")
    if opening is None or end < opening.end():
        return {}
    body = picture.svg[opening.end() : end]
    found: dict[str, list[str]] = {"before": [], "after": [], "legend": []}
    boxes: dict[str, list[tuple[float, float, float, float]]] = {k: [] for k in found}
    elements = _elements(body)
    if elements and elements[0].startswith("<polygon") and 'fill="white"' in elements[0]:
        elements = elements[1:]  # the background: drawn again for the new size
    frames: dict[str, tuple[float, float, float, float]] = {}  # cluster_before / _after
    for element in elements:
        name = _cluster_name(element)
        box = _element_box(element)
        if name in ("before", "after") and box is not None:
            frames[name] = box
    for element in elements:
        box = _element_box(element)
        # clusters keep their <title>; nodes and edges lost theirs (minigrad.viz takes them
        # out: screen readers announced them), so they go with the frame they lie in
        name = _cluster_name(element)
        panel = next((p for p in ("before", "after") if name.startswith(p)), "")
        if not panel and box is not None and element.startswith("<g"):
            panel = next((p for p, f in frames.items() if _inside(box, f)), "")
        panel = panel or "legend"
        found[panel].append(element)
        if box is not None:
            boxes[panel].append(box)
    if not found["before"] or not found["after"]:
        return {}
    return {k: (found[k], _union(boxes[k])) for k in found if found[k] and boxes[k]}


def _cluster_name(element: str) -> str:
    """The panel name of a cluster group ("before", "after", "before_S1"), else ""."""
    title = _ITEM_TITLE.search(element)
    if title is None or not element.startswith("<g") or 'class="cluster"' not in element[:80]:
        return ""
    return html_unescape(title.group(1)).removeprefix("cluster_")


def _inside(box: tuple[float, float, float, float], frame: tuple[float, ...]) -> bool:
    """Whether the centre of `box` lies within `frame` (both x0, y0, x1, y1)."""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return frame[0] <= x <= frame[2] and frame[1] <= y <= frame[3]


def html_unescape(text: str) -> str:
    """Graphviz's escapes in a <title> (&#45; for -, &gt; ...) undone."""
    return html.unescape(text)


def _arrangements(sizes: dict[str, tuple[float, float]]) -> list[dict[str, tuple[float, float]]]:
    """Candidate positions (top-left, points) of the panels: side by side, stacked, with the
    legend beside or under them."""
    bw, bh = sizes["before"]
    aw, ah = sizes["after"]
    g = PANEL_GAP
    pairs = {
        "row": ({"before": (0.0, 0.0), "after": (bw + g, 0.0)}, bw + g + aw, max(bh, ah)),
        "column": ({"before": (0.0, 0.0), "after": (0.0, bh + g)}, max(bw, aw), bh + g + ah),
    }
    out = []
    for places, width, height in pairs.values():
        if "legend" not in sizes:
            out.append(places)
            continue
        lw, lh = sizes["legend"]
        out.append({**places, "legend": (width + g, 0.0)})
        out.append({**places, "legend": (0.0, height + g)})
    return out


def for_slide(picture: Picture, width_px: float, height_px: float, legend: bool = True) -> Picture:
    """A comparison laid out again (before/after side by side or stacked, the legend beside or
    under them) so that it shows largest in a width_px x height_px slide; any other picture
    as it is. Only where panels go changes: each panel is drawn exactly as Graphviz drew it.
    With legend=False the legend is left out (the before/after pair alone)."""
    found = panels(picture)
    if not found:
        return picture
    if not legend and "legend" in found:
        found.pop("legend")
        picture = replace(picture, width=float("inf"))  # never kept as it was
    sizes = {k: (b[2] - b[0], b[3] - b[1]) for k, (_, b) in found.items()}
    best: tuple[float, dict[str, tuple[float, float]], float, float] | None = None
    for places in _arrangements(sizes):
        width = max(places[k][0] + sizes[k][0] for k in places)
        height = max(places[k][1] + sizes[k][1] for k in places)
        scale = min(width_px / (width + 2 * PAD), height_px / (height + 2 * PAD))
        if best is None or scale > best[0] + 1e-9:
            best = (scale, places, width, height)
    own = min(width_px / picture.width, height_px / picture.height)
    assert best is not None
    if best[0] <= own + 1e-9:
        return picture  # as Graphviz laid it out is as good
    _, places, width, height = best
    return _composed(picture, found, places, width, height)


def _composed(
    picture: Picture,
    found: dict[str, tuple[list[str], tuple[float, float, float, float]]],
    places: dict[str, tuple[float, float]],
    width: float,
    height: float,
    own_text: str | None = None,
) -> Picture:
    """A new picture of the panels `found`, each moved to its place (top-left, points) in a
    drawing `width` x `height`; it keeps the picture's name and description (or `own_text`:
    a <title>, maybe a <desc>)."""
    parts_svg = []
    for key, (elements, box) in found.items():
        dx, dy = places[key][0] - box[0], places[key][1] - box[1]
        parts_svg.append(
            f'<g class="course-panel" transform="translate({dx:.2f} {dy:.2f})">\n'
            + "".join(elements)
            + "</g>\n"
        )
    total_w, total_h = width + 2 * PAD, height + 2 * PAD
    inner = _TRANSLATE.search(picture.svg)
    scale = float(inner.group(1)) if inner else 1.0
    graph = (
        f'<g id="graph0" class="graph" transform="scale({scale} {scale}) rotate(0)'
        f' translate({PAD:.2f} {PAD:.2f})">\n'
        f'<polygon fill="white" stroke="transparent" points="{-PAD},{-PAD} {-PAD},{height + PAD}'
        f' {width + PAD},{height + PAD} {width + PAD},{-PAD}"/>\n' + "".join(parts_svg) + "</g>\n"
    )
    head = picture.svg[: _SVG_TAG.search(picture.svg).end()]
    # the picture's accessible name and description (minigrad.viz writes them right after the
    # <svg> tag) go with it: the slide's alt text and a screen reader read them
    if own_text is None:
        found_text = _OWN_TEXT.match(picture.svg, len(head))
        own_text = found_text.group(0) if found_text else ""
    svg = head + own_text + "\n" + graph + "</svg>\n"
    svg = _with_viewbox(svg, 0.0, 0.0, total_w * scale, total_h * scale)
    return Picture(svg, total_w * scale, total_h * scale, picture.smallest_font, picture.label)


def without_legend(picture: Picture, legend_name: str) -> tuple[Picture, Picture] | None:
    """A single graph with a legend under it, as two pictures: the graph, and the legend
    (named `legend_name`); None for a comparison or a graph without a legend.

    The decks' theme puts the legend under the first picture of a notebook; the notebook's
    own picture has none. Drawn apart, each can be shown whole on a slide of its own at a size
    the room reads (together they are often too tall)."""
    opening = _GRAPH_OPEN.search(picture.svg)
    end = picture.svg.rfind("</g>")
    if opening is None or end < opening.end() or panels(picture):
        return None
    elements = _elements(picture.svg[opening.end() : end])
    if elements and elements[0].startswith("<polygon") and 'fill="white"' in elements[0]:
        elements = elements[1:]  # the background: drawn again for the new size
    graph = [e for e in elements if e.startswith("<g")]
    legend = [e for e in elements if not e.startswith("<g")]
    graph_boxes = [b for b in map(_element_box, graph) if b is not None]
    legend_boxes = [b for b in map(_element_box, legend) if b is not None]
    if not graph_boxes or len(legend_boxes) < 4:
        return None
    out = []
    for elements, boxes, text in (
        (graph, graph_boxes, None),
        (legend, legend_boxes, _legend_text(legend_name, legend)),
    ):
        box = _union(boxes)
        found = {"part": (elements, box)}
        size = (box[2] - box[0], box[3] - box[1])
        out.append(_composed(picture, found, {"part": (0.0, 0.0)}, *size, own_text=text))
    return out[0], out[1]


_TEXT_CONTENT = re.compile(r"<text\b[^>]*>([^<]*)</text>")


def _legend_text(legend_name: str, elements: list[str]) -> str:
    """A legend's own accessible name and description: its name, and the words it shows."""
    words = [html.unescape(w).strip() for e in elements for w in _TEXT_CONTENT.findall(e)]
    desc = "; ".join(w for w in words if w) or legend_name
    return (
        f"\n<title>{html.escape(legend_name, quote=False)}</title>"
        f"\n<desc>{html.escape(desc, quote=False)}</desc>"
    )


def legend_apart(
    picture: Picture, width_pt: float, height_pt: float, legend_name: str
) -> tuple[Picture, Picture] | None:
    """A comparison that carries its legend, as two pictures: before and after laid out for a
    width_pt x height_pt slide (for_slide, without the legend; the comparison's own name and
    description), and the legend (named `legend_name`); None when it has no legend.

    A slide too small for all three at a readable size can then show the pair whole, and the
    legend whole on the next slide: each keeps exactly what Graphviz drew."""
    found = panels(picture)
    if "legend" not in found:
        return None
    pair = for_slide(picture, width_pt, height_pt, legend=False)
    elements, box = found["legend"]
    size = (box[2] - box[0], box[3] - box[1])
    text = _legend_text(legend_name, elements)
    legend = _composed(
        picture, {"legend": (elements, box)}, {"legend": (0.0, 0.0)}, *size, own_text=text
    )
    return pair, legend


# ---- a part's own text alternative (a cut-out half names what it shows, not the whole) ------

_DESC_MARKS = {
    "before": (". before: ", "。之前："),
    "after": (". after: ", "。之后："),
}


def own_text(svg: str) -> tuple[str, str]:
    """The picture's accessible name and description (its first <title> and <desc>)."""
    tag = _SVG_TAG.search(svg)
    found = _OWN_TEXT.match(svg, tag.end()) if tag else None
    if found is None:
        return "", ""
    name = re.search(r"<title>([^<]*)</title>", found.group(0))
    desc = re.search(r"<desc>([^<]*)</desc>", found.group(0))
    return (
        html.unescape(name.group(1)) if name else "",
        html.unescape(desc.group(1)) if desc else "",
    )


def with_own_text(svg: str, name: str, desc: str = "") -> str:
    """The SVG with its accessible name and description replaced (or added)."""
    tag = _SVG_TAG.search(svg)
    assert tag is not None
    text = f"\n<title>{html.escape(name, quote=False)}</title>"
    if desc:
        text += f"\n<desc>{html.escape(desc, quote=False)}</desc>"
    found = _OWN_TEXT.match(svg, tag.end())
    rest = svg[found.end() :] if found else svg[tag.end() :]
    return svg[: tag.end()] + text + rest


def half_text(desc: str, half: str) -> str:
    """The part of a comparison's description about one half: "before: ..." for the
    "before" half; what changed and "after: ..." for the "after" half; '' when not found."""
    starts = {
        k: next((desc.find(m) for m in marks if m in desc), -1) for k, marks in _DESC_MARKS.items()
    }
    before, after = starts["before"], starts["after"]
    if before < 0 or after < before:
        return ""
    if half == "before":
        return desc[before + 2 : after]
    return desc[:before] + desc[after:]


def labels_in_view(picture: Picture) -> list[str]:
    """The distinct labels of the nodes a cut-out part shows (inside its viewBox)."""
    tag = _SVG_TAG.search(picture.svg)
    box = _VIEWBOX.search(tag.group(0)) if tag else None
    inner = _TRANSLATE.search(picture.svg)
    if box is None or inner is None:
        return []
    x0, y0, width, height = (float(v) for v in box.group(1).split())
    scale, dx, dy = (float(v) for v in inner.groups())
    seen: list[str] = []
    for body in _NODE.findall(picture.svg):
        for text in re.finditer(r"<text\b([^>]*)>([^<]*)</text>", body):
            at = _TEXT_AT.search("<text" + text.group(1))
            label = html.unescape(text.group(2)).strip()
            if at is None or not label or label in seen:
                continue
            x, y = (float(at.group(1)) + dx) * scale, (float(at.group(2)) + dy) * scale
            if x0 <= x <= x0 + width and y0 <= y <= y0 + height:
                seen.append(label)
    return seen
