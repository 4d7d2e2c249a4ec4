"""A stepper without a widget front end: every frame in order, as text and as HTML.

This is what nbval compares, what a static page (nbconvert, the course site) shows, and what
JupyterLab shows when ipywidgets is missing.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .frames import Frame

__all__ = ["inline_svg", "stepper_html", "stepper_text"]


def inline_svg(svg: str) -> str:
    """The <svg> element alone (no XML prolog or doctype), for embedding in HTML.

    It is allowed to shrink to the width of the page: a wide before / after picture would
    otherwise be cut off at the right edge of a notebook's output area.
    """
    start = svg.find("<svg")
    if start < 0:
        return svg
    return '<svg style="max-width:100%;height:auto"' + svg[start + len("<svg") :]


def stepper_text(frames: Sequence[Frame], title: str) -> str:
    """Every frame's summary, in order (the text/plain form)."""
    parts = [f"{title}: {len(frames)} steps"]
    parts += [frame.summary for frame in frames]
    return "\n\n".join(parts)


def stepper_html(frames: Sequence[Frame], title: str) -> str:
    """Every frame in order: code, picture, summary."""
    parts = [
        '<div class="mg-stepper-static">',
        f"<p><b>{html.escape(title)}</b>: {len(frames)} steps</p>",
    ]
    for frame in frames:
        heading = f"step {frame.index + 1} of {len(frames)}: {frame.label}"
        parts += [
            '<div class="mg-stepper-frame">',
            f'<pre class="mg-stepper-code">{html.escape(heading)}</pre>',
            f'<div class="mg-stepper-picture">{inline_svg(frame.svg)}</div>',
            '<pre class="mg-stepper-summary" style="white-space:pre-wrap">'
            f"{html.escape(frame.summary)}</pre>",
            "</div>",
        ]
    parts.append("</div>")
    return "\n".join(parts)
