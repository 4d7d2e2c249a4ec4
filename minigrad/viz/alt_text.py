"""The text alternative of every picture: a short name and a long description, from the graph.

A screen reader cannot read a graph's boxes and arrows, so each picture carries the same facts
as words (WCAG 1.1.1): a short name that says what it shows ("after out.detach(): c: new
tensor, leaf, no grad ...; the graph's edges are unchanged") and a description made from the
text form the notebooks print (text.py: every tensor, function, edge and saved value; for a
before/after also change_text.py: what changed and what was cut). Both are written when the
picture is drawn, in the language of that moment (words.py), and `accessible_svg` puts them
into the SVG Graphviz writes: `role="img"`, a top `<title>` (the name, instead of Graphviz's
"%3") and a `<desc>`. The `<title>` of every node and edge ("after_T0") is taken out, so it is
neither announced nor shown as a tooltip. JupyterLab shows an SVG or PNG output without any of
that, so a picture's output also has `html_picture`: an <img> of it whose alt is the words.
"""

from __future__ import annotations

import html
import re
from typing import Any

from .changes import Changes, NewFunction
from .model import GraphSnapshot
from .text import summary_text
from .words import say

__all__ = [
    "accessible_svg",
    "asked_for",
    "graph_description",
    "graph_name",
    "html_picture",
    "pair_description",
    "pair_name",
    "svg_alt",
    "svg_data_url",
    "svg_text_alternative",
    "text_language",
]

MAX_NAME_CHANGES = 2  # a name says at most this many changes, then "and N more"
# the title of the graph ("%3"), of each node and of each edge; a cluster keeps its own (the
# slide builder finds the halves of a before/after by it; inside role="img" it is not announced)
_INNER_TITLE = re.compile(
    r'(<g id="[^"]*" class="(?:graph|node|edge)"[^>]*>)\s*<title>[^<]*</title>'
)
_SVG_OPEN = re.compile(r"<svg\b[^>]*>")
_CHINESE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_SVG_EXTRAS = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.DOTALL)
# in a data URL: the URL's own escape sign, a fragment's start, and the ampersand, which would
# start a character reference in the HTML attribute the URL sits in
_URL_UNSAFE = {"%": "%25", "#": "%23", "&": "%26"}
# the <svg> opening tag, then the picture's name and description (accessible_svg writes them)
_TOP_TITLE = re.compile(r"(<svg\b[^>]*>)\s*<title>([^<]*)</title>\s*(?:<desc>([^<]*)</desc>)?")


def one_line(text: str) -> str:
    """The text form (several padded lines) as sentences: headers start them, ';' joins rows."""
    sentences: list[str] = []
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        if line.endswith((":", "：")) or not sentences:
            sentences.append(line)
        elif sentences[-1].endswith((":", "：")):
            sentences[-1] += " " + line
        else:
            sentences[-1] += say("; ") + line
    return say(". ").join(sentences)


def text_language(text: str) -> str:
    """The language tag of a text viz wrote: "zh-CN" when it holds Chinese, else "en"."""
    return "zh-CN" if _CHINESE.search(text) else "en"


def graph_name(snap: GraphSnapshot) -> str:
    """'autograd graph of out: 2 tensors, 2 functions, 1 saved value'."""
    roots = [t.name for t in snap.tensors if t.is_root] or [t.name for t in snap.tensors]
    tensors, functions, saved = len(snap.tensors), len(snap.functions), len(snap.saved)
    counts = [
        say("1 tensor") if tensors == 1 else say("{count} tensors", count=tensors),
        say("1 function") if functions == 1 else say("{count} functions", count=functions),
        say("1 saved value") if saved == 1 else say("{count} saved values", count=saved),
    ]
    return say(
        "autograd graph of {roots}: {counts}",
        roots=", ".join(roots) or "-",
        counts=say(", ").join(counts),
    )


def graph_description(snap: GraphSnapshot) -> str:
    """Every tensor and function of the picture, with edges ('<- [...]') and saved values."""
    return one_line(summary_text(snap))


def pair_name(label: str, found: Changes) -> str:
    """'after out.detach(): c: new tensor, ...; the graph's edges are unchanged'."""
    head = say("after") if label == "after" else say("after {label}", label=label)
    lines = list(found.lines[:MAX_NAME_CHANGES]) or [say("nothing changed")]
    more = len(found.lines) - MAX_NAME_CHANGES
    if more > 0:
        one = say("and 1 more change")
        lines.append(one if more == 1 else say("and {count} more changes", count=more))
    new_nodes = any(isinstance(fact, NewFunction) for fact in found.facts)
    if found.removed_edges:
        cut = len(found.removed_edges)
        lines.append(say("1 edge cut") if cut == 1 else say("{count} edges cut", count=cut))
    elif not found.gone and not new_nodes:
        lines.append(say("the graph's edges are unchanged"))
    return say("{head}: {what}", head=head, what=say("; ").join(lines))


def pair_description(before: GraphSnapshot, after: GraphSnapshot, found: Changes) -> str:
    """What changed, then the 'before' and 'after' graphs in full (as graph_description)."""
    changed = [say("what changed:"), *found.lines] if found.lines else [say("nothing changed")]
    parts = [
        one_line("\n".join(changed)),
        say("before: {graph}", graph=graph_description(before)),
        say("after: {graph}", graph=graph_description(after)),
    ]
    return say(". ").join(parts)


def accessible_svg(svg: str, name: str, description: str) -> str:
    """Graphviz's SVG as one image with a name and a description, and no inner titles or ids."""
    svg = _INNER_TITLE.sub(r"\1", svg)
    opening = _SVG_OPEN.search(svg)
    if opening is None or not name:
        return svg
    tag = opening.group(0)
    if "role=" not in tag:
        tag = tag[:-1] + ' role="img">'
    if " lang=" not in tag:  # the language of the name and description (and of the labels)
        tag = tag[:-1] + f' lang="{text_language(name + description)}">'
    text = f"\n<title>{html.escape(name, quote=False)}</title>"
    if description:
        text += f"\n<desc>{html.escape(description, quote=False)}</desc>"
    return svg[: opening.start()] + tag + text + svg[opening.end() :]


def svg_text_alternative(svg: str) -> tuple[str, str]:
    """The (name, description) an SVG made by viz carries ('' for what it does not have)."""
    found = _TOP_TITLE.search(svg)
    if found is None:
        return "", ""
    name = html.unescape(found.group(2)).strip()
    return ("" if name == "%3" else name), html.unescape(found.group(3) or "").strip()


def svg_alt(svg: str) -> str:
    """One alt text for an SVG made by viz: its name, then its description ('' if none)."""
    name, description = svg_text_alternative(svg)
    if not name:
        return ""
    return f"{name}. {description}" if description else name


def svg_data_url(svg: str) -> str:
    """The SVG as a compact `data:` URL for an <img>: the same drawing, without what an <img>
    never shows (XML prolog, comments, the top <title> and <desc>: the img's alt says them) and
    without line breaks (a URL drops them). Its attributes are quoted with ' (XML allows either
    quote), which needs no escape inside the HTML attribute src="..."; the rest is escaped only
    where a URL or that attribute needs it, so `<svg ...>...</svg>` stays readable (nbval's
    sanitizer finds it). About half as long as the encodeURIComponent form JupyterLab uses."""
    svg = _SVG_EXTRAS.sub("", svg)
    svg = _TOP_TITLE.sub(r"\1", svg, count=1)
    svg = re.sub(r">\s+<", "><", " ".join(svg.split()))
    svg = svg.replace("'", "&#39;").replace('"', "'")  # (a ' in a value becomes a reference)
    return "data:image/svg+xml," + "".join(_URL_UNSAFE.get(char, char) for char in svg)


def asked_for(mime: str, include: Any, exclude: Any) -> bool:
    """Whether a display that passed `include` / `exclude` (IPython's lists of MIME types, or
    None) wants `mime` in its bundle."""
    return (not include or mime in include) and not (exclude and mime in exclude)


def html_picture(url: str, alt: str, *, capped: bool = False) -> str:
    """A picture as the text/html of its notebook output: `<img src=url alt=alt>`.

    Why: JupyterLab (and JupyterLite, with the same renderers) shows an image/svg+xml output
    as an <img> of it with no alt, and an image/png output as an <img> that ignores the alt in
    the output's metadata, so a screen reader meets an unnamed image there (WCAG 1.1.1).
    JupyterLab ranks text/html above both, so this <img>, the same picture with its text
    alternative as `alt`, is what it shows; its sanitizer, for a notebook not yet trusted,
    keeps an <img>'s `src` (data: URLs too), `alt` and `class`. Lab's SVG renderer shows the
    picture at its natural size, also when wider than the cell (which then scrolls), while
    HTML images are capped at the cell's width: JupyterLab's class "jp-mod-unconfined" keeps
    the natural size, as before; `capped=True` leaves it out, as Lab's PNG renderer caps (a
    plot). The site and the decks still draw the SVG itself (docs/conf.py, slide_layout.py).
    """
    unconfined = "" if capped else 'class="jp-mod-unconfined" '
    return f'<img {unconfined}src="{url}" alt="{html.escape(alt, quote=True)}">'
