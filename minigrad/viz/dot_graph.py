"""The picture object: a graphviz.Digraph with a stable repr and bounded, clear rendering.

`new_graph` starts an empty picture in the house style (style.py) at a theme's sizes;
`check_size` refuses graphs Graphviz would take too long to lay out.
"""

from __future__ import annotations

import base64
import functools
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import graphviz

from . import wasm_render
from .alt_text import accessible_svg, asked_for, html_picture, svg_alt, svg_data_url
from .dot_program import GraphvizFailedError, GraphvizNotFoundError, run_dot
from .slide_fit import best_layout
from .style import FONT, FUNCTION_FILL
from .themes import DEFAULT, Theme, resolve_theme
from .words import say

__all__ = [
    "Graph",
    "GraphTooLargeError",
    "check_size",
    "new_graph",
    "png_metadata",
    "with_html",
    "with_png",
]


class GraphTooLargeError(ValueError):
    """The graph has more nodes than `max_nodes`; Graphviz would be slow to lay it out."""


class Graph(graphviz.Digraph):
    """A graphviz.Digraph with a stable text form, and clear errors when `dot` cannot run.

    Jupyter shows the SVG (graphviz's own `_repr_mimebundle_`, which calls `pipe`; JupyterLab
    shows it as the text/html <img> of it that carries its words, see with_html); the
    text/plain part is this repr, which holds no memory address, so notebook outputs compare
    equal between runs. `pipe` (and so displaying) gives up after `render_timeout` seconds;
    `pipe` and `render` raise GraphvizNotFoundError without `dot` on PATH and
    GraphvizFailedError, with dot's stderr, when it fails.
    """

    node_total = 0
    edge_total = 0
    saved_layout = "beside"  # how saved values were drawn: "beside" or "inside"
    stacked = False  # a before/after drawn one above the other
    estimated_width = 0.0  # points, before dot lays it out (layout.estimate_width)
    # other DOT sources of the same picture (its saved values inside their functions' nodes)
    # that a theme with a slide box may draw instead when they show larger (slide_fit.py)
    slide_alternatives: tuple[str, ...] = ()
    theme = "default"
    # seconds `dot` may take before displaying fails with a clear message (some shapes take
    # minutes); set it on one picture, or on viz.Graph for every picture
    render_timeout = 30.0
    # the text alternative (alt_text.py), written into every SVG this picture gives
    alt_name = ""
    alt_description = ""
    # what the picture shows, as data: (snapshot, marks) per graph drawn, and a before/after's
    # Changes (cut edges, gone nodes); set by render.py and pairs.py, read by tests/parity to
    # compare the pictures torch's and minigrad's graphs give
    drawn_from: tuple[tuple[Any, Any], ...] = ()
    drawn_changes: Any = None

    def __repr__(self) -> str:
        # In the language of viz.set_language, like the picture: it is what a notebook shows
        # when the picture is not drawn (an untrusted notebook, a plain-text viewer).
        return say(
            "<minigrad.viz graph: {nodes} nodes, {edges} edges>",
            nodes=self.node_total,
            edges=self.edge_total,
        )

    def pipe(  # type: ignore[override]
        self,
        format: str | None = None,
        renderer: str | None = None,
        formatter: str | None = None,
        neato_no_op: bool | int | None = None,
        quiet: bool = False,
        *,
        engine: str | None = None,
        encoding: str | None = None,
    ) -> bytes | str:
        """The picture in `format` from `dot`, bounded by `render_timeout` (graphviz's pipe)."""
        if renderer is not None or formatter is not None or neato_no_op is not None:
            with clear_errors(engine or self.engine):
                return super().pipe(
                    format,
                    renderer,
                    formatter,
                    neato_no_op,
                    quiet,
                    engine=engine,
                    encoding=encoding,
                )
        # graphviz's own pipe() waits for `dot` forever; a notebook cell must not hang on it
        chosen = format or self.format
        output = run_dot(
            self.slide_source(engine or self.engine),
            [f"-T{chosen}"],
            timeout=self.render_timeout,
            nodes=self.node_total,
            program=engine or self.engine,
        )
        if chosen == "svg":  # one image with a name and a description (alt_text.py)
            text = accessible_svg(output.decode("utf-8"), self.alt_name, self.alt_description)
            output = text.encode("utf-8")
        return output.decode(encoding) if encoding is not None else output

    def slide_source(self, program: str = "dot") -> str:
        """The DOT source to draw: for a theme with a slide box (the decks' "projector"),
        the layout that shows largest on a slide (slide_fit.py); else `source` as it is."""
        theme = resolve_theme(self.theme)
        if theme.slide_box is None or program != "dot":
            return self.source
        cached = self.__dict__.get("_slide_layout")
        key = (self.source, *self.slide_alternatives)
        if cached is not None and cached[0] == key:
            return cached[1]

        def svg(source: str) -> str:
            found = run_dot(source, ["-Tsvg"], self.render_timeout, self.node_total, program)
            return found.decode("utf-8")

        small = float(theme.small)
        chosen = best_layout(self.source, svg, theme.slide_box, small, self.slide_alternatives)
        self.__dict__["_slide_layout"] = (key, chosen)
        return chosen

    def render(self, *args: Any, **kwargs: Any) -> str:
        """graphviz's render (writes files), with the clear errors of `pipe`."""
        with clear_errors(kwargs.get("engine") or self.engine):
            return super().render(*args, **kwargs)

    def _repr_image_svg_xml(self) -> str:
        return self.pipe(format="svg", encoding="utf-8")

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **_: Any
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """graphviz's bundle (the SVG), plus a PNG of the same picture (see with_png), an
        <img> of the SVG with its text alternative as alt, for JupyterLab (see with_html), and
        the output metadata that gives the PNG the SVG's text alternative (see png_metadata)."""
        bundle = with_png(
            self, super()._repr_mimebundle_(include=include, exclude=exclude), include, exclude
        )
        return with_html(bundle, include, exclude), png_metadata(bundle)


def with_png(graph: Graph, bundle: dict[str, Any], include: Any, exclude: Any) -> dict[str, Any]:
    """`bundle` with an image/png beside its image/svg+xml, drawn by `dot` from the same DOT.

    A notebook's stored SVG is shown only where the notebook is trusted: JupyterLab before
    `make lab` trusts it and the browser-only site show text in its place. A PNG is shown
    everywhere without trust (also by GitHub's viewer, nbviewer and Colab), and trusted front
    ends still prefer the SVG. In the browser (Graphviz as wasm writes no PNG) the SVG alone is
    the picture, as before: a picture drawn there is trusted by the page that drew it.
    """
    wanted = "image/svg+xml" in bundle and "image/png" not in bundle
    if not wanted or not asked_for("image/png", include, exclude) or wasm_render.available():
        return bundle
    ascii_only = graph.source.isascii()
    if not ascii_only and not chinese_font_installed():
        return bundle  # a PNG would show boxes for the Chinese text: the SVG alone, as before
    # Graphviz's gd renderer writes a palette PNG about a sixth the size of the default
    # (cairo) one, so a stored picture grows the notebook by a few kB; but it garbles text
    # that is not ASCII (the Chinese edition), and not every Graphviz has it.
    try:
        png = graph.pipe(format="png:gd" if ascii_only else "png")
    except GraphvizFailedError:
        png = graph.pipe(format="png")
    # base64 text, as a notebook stores it (some front ends do not encode bytes themselves)
    bundle["image/png"] = base64.b64encode(png).decode("ascii")
    return bundle


def with_html(bundle: dict[str, Any], include: Any, exclude: Any) -> dict[str, Any]:
    """`bundle` with a text/html beside its image/svg+xml: an <img> of that SVG whose alt is
    the SVG's text alternative (alt_text.html_picture says why: JupyterLab names neither the
    SVG nor the PNG). Unchanged without an SVG that has a text alternative."""
    svg = bundle.get("image/svg+xml")
    if not isinstance(svg, str) or "text/html" in bundle:
        return bundle
    if not asked_for("text/html", include, exclude):
        return bundle
    alt = svg_alt(svg)
    if alt:
        bundle["text/html"] = html_picture(svg_data_url(svg), alt)
    return bundle


def png_metadata(bundle: dict[str, Any]) -> dict[str, Any]:
    """The output metadata that gives a bundle's PNG the text alternative of its SVG.

    A PNG has no room for a name and a description the way an SVG has (role, title, desc), so
    they go, as one alt text ("name. description", alt_text.svg_alt), where notebook front ends
    look for the alt of an image output: `metadata["image/png"]["alt"]` (IPython's own Image
    writes it there; nbconvert's classic HTML template reads it). Empty without a PNG.
    """
    svg = bundle.get("image/svg+xml")
    if "image/png" not in bundle or not isinstance(svg, str):
        return {}
    alt = svg_alt(svg)
    return {"image/png": {"alt": alt}} if alt else {}


@functools.cache
def chinese_font_installed() -> bool:
    """Whether `dot` can draw Chinese text into a PNG: fontconfig knows a font for it (an SVG
    leaves the fonts to the browser, a PNG is drawn with this machine's)."""
    if shutil.which("fc-list") is None:
        return False
    found = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True)
    return bool(found.stdout.strip())


@contextmanager
def clear_errors(program: str) -> Iterator[None]:
    """Turn graphviz's own errors for a missing or failing `dot` into ours."""
    try:
        yield
    except GraphvizNotFoundError:
        raise
    except graphviz.ExecutableNotFound:
        raise GraphvizNotFoundError(program) from None
    except graphviz.CalledProcessError as error:
        stderr = error.stderr or b""
        text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
        raise GraphvizFailedError(program, error.returncode, text) from None


def new_graph(comment: str, theme: Theme = DEFAULT) -> Graph:
    """An empty Graph with the house style, in `theme`'s sizes."""
    graph = Graph(comment=comment)
    graph.theme = theme.name
    graph.attr(rankdir="TB", fontname=FONT, nodesep=theme.nodesep, ranksep=theme.ranksep)
    pen = {} if theme.penwidth == "1" else {"penwidth": theme.penwidth}
    # defaults = a function node and a forward edge, the most common kinds in big graphs
    graph.attr(
        "node",
        fontname=FONT,
        fontsize=str(theme.font),
        margin="0.12,0.05",
        height="0.3",
        shape="box",
        style="filled,rounded",
        fillcolor=FUNCTION_FILL,
        **pen,
    )
    # a high weight keeps the forward flow straight
    graph.attr(
        "edge",
        fontname=FONT,
        fontsize=str(theme.edge_font),
        arrowsize=theme.arrowsize,
        weight="4",
        **pen,
    )
    return graph


def check_size(node_count: int, max_nodes: int) -> None:
    """Refuse graphs Graphviz would take too long to lay out."""
    if node_count > max_nodes:
        raise GraphTooLargeError(
            f"this graph has {node_count} nodes, more than max_nodes={max_nodes}; draw a "
            f"smaller part of it, or pass max_nodes={node_count} (or larger) to draw it anyway "
            "(layout time grows quickly with size)"
        )
