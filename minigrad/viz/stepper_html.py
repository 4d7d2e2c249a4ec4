"""A stepper without a widget front end: every frame in order, as text and as HTML.

This is what nbval compares, what a static page (nbconvert, the course site) shows, and what
JupyterLab shows until the widget runs (or when ipywidgets is missing).

The HTML fits a laptop screen: each step is a `<details>` element, the first one open, and
(where the browser supports `<details name=...>`) opening one step closes the others, with no
script. A picture is drawn at one fixed height (PICTURE_HEIGHT), scaled down to fit, never
up, so stepping does not move the page; the text under it scrolls in a box of its own.
Each part says its language (`lang`, WCAG 3.1.2): a Chinese stepper is read in a Chinese voice
also in JupyterLab's English page.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Sequence

from .alt_text import text_language
from .frames import Frame
from .words import say

__all__ = [
    "PICTURE_HEIGHT",
    "fitted_svg",
    "picture_html",
    "stepper_html",
    "stepper_text",
    "text_html",
]

PICTURE_HEIGHT = 340  # CSS px: with the controls and the text box, a stepper stays under 600 px
TEXT_HEIGHT = "8em"  # the frame's text box; it scrolls beyond that
_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


def fitted_svg(svg: str) -> str:
    """The <svg> element alone (no XML prolog or doctype), scaled to fit the box it is in.

    It takes the box's width and height but no more than its own size: a wide before/after
    shrinks to the notebook's width, a small picture keeps its size.
    """
    start = svg.find("<svg")
    if start < 0:
        return svg
    element = svg[start:]
    size = _SIZE.match(element)
    limits = f"max-width:{size.group(1)}pt;max-height:{size.group(2)}pt;" if size else ""
    style = f"display:block;margin:0 auto;width:100%;height:100%;{limits}"
    return f'<svg style="{style}"' + element[len("<svg") :]


def picture_html(content: str) -> str:
    """A box of the fixed picture height holding `content` (a fitted SVG, or a prompt)."""
    lang = text_language(content)  # a prompt's words, or the picture's (its own lang too)
    return (
        f'<div class="mg-stepper-picture" lang="{lang}" '
        f'style="height:{PICTURE_HEIGHT}px;overflow:hidden">{content}</div>'
    )


def text_html(summary: str) -> str:
    """A frame's text, in a box that scrolls when it is long (and so takes keyboard focus, to be
    scrolled with the arrow keys: WCAG 2.1.1)."""
    style = f"white-space:pre-wrap;max-height:{TEXT_HEIGHT};overflow:auto;margin:4px 0"
    lang = text_language(summary)
    return (
        f'<pre class="mg-stepper-summary" lang="{lang}" tabindex="0" style="{style}">'
        f"{html.escape(summary)}</pre>"
    )


def stepper_text(frames: Sequence[Frame], title: str) -> str:
    """Every frame's summary, in order (the text/plain form)."""
    parts = [say("{title}: {count} steps", title=title, count=len(frames))]
    parts += [frame.summary for frame in frames]
    return "\n\n".join(parts)


def stepper_html(frames: Sequence[Frame], title: str) -> str:
    """Every frame in order, one open at a time: its code, its picture, its text."""
    # one `name` for the steps of this stepper (from its content: the same on every run)
    text = "\n".join([title, *(frame.label for frame in frames)])
    group = "mg-stepper-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    title_line = say("{title}: {count} steps", title=html.escape(title), count=len(frames))
    parts = [
        f'<div class="mg-stepper-static" lang="{text_language(title_line)}">',
        # the templates hold no HTML-special characters: only the title needs escaping
        # a heading, so a screen reader can jump to it; words for mouse and keyboard alike
        '<h3 class="mg-stepper-title" style="font-size:1em;margin:0.5em 0">'
        + title_line
        + say(" (select a step to open it)")
        + "</h3>",
    ]
    for frame in frames:
        heading = say(
            "step {number} of {count}: {code}",
            number=frame.index + 1,
            count=len(frames),
            code=frame.label,
        )
        opened = " open" if frame.index == 0 else ""
        parts += [
            f'<details class="mg-stepper-frame" name="{group}"{opened}>',
            '<summary class="mg-stepper-code" style="cursor:pointer">'
            f"<code>{html.escape(heading)}</code></summary>",
            picture_html(fitted_svg(frame.svg)),
            text_html(frame.summary),
            "</details>",
        ]
    parts.append("</div>")
    return "\n".join(parts)
