"""Themes: how big the type and how thick the lines are, for a screen or for a projector.

    viz.set_theme("projector")   # every later picture of this process (kernel)
    viz.draw(out, theme="projector")   # one picture

"default" is the look the course's pictures were made with. "projector" is for a room: no type
under 14 pt, thicker lines and arrows, a before/after stacked vertically as soon as side by
side would be wider than a notebook, and the legend under the first picture drawn after
`set_theme("projector")`, or the first projector picture of the process (so a notebook
explains its colours once).

Every theme also keeps pictures legible in a notebook: a picture wider than `fit_width` points
is scaled down by the browser to the notebook's width, so a before/after estimated wider than
that is stacked (see layout.py).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["THEMES", "Theme", "current_theme", "resolve_theme", "set_theme"]

# A notebook's output area, in CSS pixels, and the smallest label size we accept in it.
NOTEBOOK_PX = 900
SMALLEST_PX = 8.0
PX_PER_PT = 4 / 3  # SVG sizes are in points; a browser draws 1 pt as 4/3 px


@dataclass(frozen=True)
class Theme:
    """Type sizes (points), line widths and spacing of one look. Strings go straight to DOT."""

    name: str
    font: int  # the bold first line of every node
    small: int  # the other lines of a node label
    edge_font: int  # edge labels ("cut by ...")
    storage_font: int  # the label of a shared-memory box
    none_font: int  # "None" in an empty-slot circle
    none_width: str  # that circle's diameter, inches
    legend_font: int
    title_font: int  # "before" / "after ..." over the two halves
    penwidth: str  # every node border and edge
    marked_pen: str  # a node the call changed (red)
    new_pen: str  # a node the call created
    cut_pen: str  # an edge the call cut
    arrowsize: str
    nodesep: str
    ranksep: str
    legend_first: bool  # the first picture after set_theme gets the legend
    legend_columns: int  # 2: short and wide, 1: narrow and tall
    fit_width: float  # points: a before/after estimated wider than this is stacked
    # points: a 1280x720 slide's picture area; dot tries other layouts to show it larger
    # (slide_fit.py). None: the picture is drawn as laid out first
    slide_box: tuple[float, float] | None = None


DEFAULT = Theme(
    name="default",
    font=11,
    small=9,
    edge_font=10,
    storage_font=10,
    none_font=9,  # was 8; at 9 pt every label stays >= 8 px in a 900 px notebook
    none_width="0.36",
    legend_font=9,
    title_font=14,
    penwidth="1",
    marked_pen="2.5",
    new_pen="2",
    cut_pen="2",
    arrowsize="0.7",
    nodesep="0.3",
    ranksep="0.35",
    legend_first=False,
    legend_columns=2,
    # 1012 pt: scaled down to 900 px from any wider, its 9 pt labels would be under 8 px
    fit_width=9 * NOTEBOOK_PX / SMALLEST_PX,
)

PROJECTOR = Theme(
    name="projector",
    font=16,
    small=14,
    edge_font=14,
    storage_font=14,
    none_font=14,
    none_width="0.55",
    legend_font=14,
    title_font=20,
    penwidth="2",
    marked_pen="4",
    new_pen="3.5",
    cut_pen="3.5",
    arrowsize="1.1",
    nodesep="0.35",
    ranksep="0.45",
    legend_first=True,
    legend_columns=1,
    fit_width=NOTEBOOK_PX / PX_PER_PT,  # as wide as the notebook, not scaled down at all
    slide_box=(1264 / PX_PER_PT, 590 / PX_PER_PT),  # a deck slide under a one-line title
)

THEMES: dict[str, Theme] = {"default": DEFAULT, "projector": PROJECTOR}

_current = DEFAULT
_legend_due = True  # the next picture drawn with a legend_first theme gets the legend


def set_theme(name: str) -> None:
    """Use theme `name` ("default" or "projector") for every later picture of this process."""
    global _current, _legend_due
    _current = resolve_theme(name)
    if _current.legend_first:  # a new notebook (or its first cell run again): legend once more
        _legend_due = True


def current_theme() -> Theme:
    """The theme set with `set_theme` ("default" until then)."""
    return _current


def resolve_theme(theme: str | Theme | None) -> Theme:
    """A Theme from its name; None means the current theme."""
    if theme is None:
        return _current
    if isinstance(theme, Theme):
        return theme
    if theme not in THEMES:
        raise ValueError(f"unknown theme {theme!r}; choose one of: {', '.join(THEMES)}")
    return THEMES[theme]


def wants_legend(legend: bool | None, theme: Theme) -> bool:
    """Whether this picture gets the legend: as asked, else once per set_theme for a room."""
    global _legend_due
    if legend is not None:
        if legend and theme.legend_first:
            _legend_due = False  # shown already: not again on the next picture
        return legend
    if theme.legend_first and _legend_due:
        _legend_due = False
        return True
    return False
