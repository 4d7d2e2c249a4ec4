"""Give every picture on the course website a text alternative.

myst-nb turns an SVG output into an image node without `alt`, and Sphinx then writes the file
name as the alt text. A picture drawn by minigrad.viz carries its own text alternative (its
top <title> and <desc>, made from the graph by minigrad/viz/alt_text.py: what it shows, every
tensor, function, edge and saved value, what changed and what was cut), and that is its alt
text, each picture its own. An older Graphviz SVG without one gets its box labels listed
(for example "Autograd graph: a; AccumulateGrad; SigmoidBackward0; out"); any other image
"Picture from <page title>". A PNG output with an alt in its metadata (a matplotlib plot shown
with viz.show_plot: its title, axes, curves and key fact in words) gets that alt: myst-nb names
the image file by the sha256 of its bytes, which finds the output. Authors' own alt text is
left alone.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes

from minigrad.viz.alt_text import svg_alt

MAX_LABELS = 14
ZH_DOCS = ("zh/", "notebooks/zh/")  # the Chinese pages of the site
_TEXT = re.compile(r"<text\b[^>]*>(.*?)</text>", re.DOTALL)


def svg_labels(svg: str) -> list[str]:
    """The distinct text labels of an SVG picture, in drawing order."""
    seen: list[str] = []
    for raw in _TEXT.findall(svg):
        label = html.unescape(re.sub(r"<[^>]+>", "", raw)).strip()
        if label and label not in seen:
            seen.append(label)
    return seen


# The words of an alt text, per language of the page ("zh": Chinese pages and decks).
ALT_WORDS = {
    "en": (
        "Autograd graph drawn by minigrad.viz: ",
        "; ",
        "; and {n} more labels",
        "Picture from ",
    ),
    "zh": ("minigrad.viz 画出的计算图：", "；", "；另有 {n} 个标签", "图片，出自："),
}


def alt_for_svg(svg: str, page_title: str, language: str = "en") -> str:
    """Alt text for a picture given as SVG text (a Graphviz SVG gets its labels listed)."""
    own = svg_alt(svg)  # the text alternative viz wrote into the picture, in its language
    if own:
        return own
    lead, sep, more_text, picture = ALT_WORDS["zh" if language.startswith("zh") else "en"]
    labels = svg_labels(svg)
    if labels:
        shown = sep.join(labels[:MAX_LABELS])
        extra = len(labels) - MAX_LABELS
        more = more_text.format(n=extra) if extra > 0 else ""
        return f"{lead}{shown}{more}"
    return f"{picture}{page_title}"


def alt_for(path: Path | None, page_title: str, language: str = "en") -> str:
    """Alt text for one image file."""
    if path is not None and path.suffix == ".svg" and path.is_file():
        svg = path.read_text(encoding="utf-8", errors="replace")
        return alt_for_svg(svg, page_title, language)
    return alt_for_svg("", page_title, language)


def png_alts(notebook: Path) -> dict[str, str]:
    """The alt of each PNG output of `notebook` that has one, by the sha256 of the PNG's bytes
    (the file name myst-nb gives it); {} for a page that is no notebook."""
    if notebook.suffix != ".ipynb" or not notebook.is_file():
        return {}
    found = {}
    for cell in json.loads(notebook.read_text(encoding="utf-8")).get("cells", []):
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            alt = output.get("metadata", {}).get("image/png", {}).get("alt")
            if png and alt:
                png = "".join(png) if isinstance(png, list) else png
                found[hashlib.sha256(base64.b64decode(png)).hexdigest()] = alt
    return found


def add_alt_text(app: Any, doctree: nodes.document) -> None:
    """doctree-read handler: fill in `alt` on every image node that has none."""
    env = app.builder.env
    title_node = next(iter(doctree.findall(nodes.title)), None)
    page_title = title_node.astext() if title_node is not None else env.docname
    own_alts = png_alts(Path(env.doc2path(env.docname)))
    for image in doctree.findall(nodes.image):
        if image.get("alt"):
            continue
        uri = image.get("uri", "")
        if Path(uri).stem in own_alts:
            image["alt"] = own_alts[Path(uri).stem]
            continue
        path = None
        if uri and "://" not in uri and not uri.startswith("data:"):
            candidate = Path(uri)
            path = candidate if candidate.is_absolute() else Path(env.srcdir) / candidate
            if not path.exists():
                path = Path(env.doc2path(env.docname)).parent / uri
        language = "zh" if env.docname.startswith(ZH_DOCS) else "en"
        image["alt"] = alt_for(path, page_title, language)


def setup(app: Any) -> dict[str, Any]:
    """Register the handler (Sphinx extension entry point)."""
    app.connect("doctree-read", add_alt_text)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
