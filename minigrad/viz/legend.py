"""The legend: one HTML table under the picture that explains every colour and line style.

Every mark it explains also has a shape, a line style or a word, and the legend names those as
well as the colour (WCAG 1.4.1: meaning never by colour alone).
"""

from __future__ import annotations

from typing import Any

from .style import (
    FUNCTION_FILL,
    LEAF_FILL,
    NOGRAD_FILL,
    NONLEAF_FILL,
    OUTPUT_FILL,
    SAVED_FILL,
    STALE_FILL,
    esc,
    red,
)
from .themes import DEFAULT, Theme
from .words import say

__all__ = ["add_legend", "legend_label"]


def legend_label(before_after: bool = False, theme: Theme = DEFAULT) -> str:
    """One HTML table that explains every colour and line style."""
    rows = [
        (LEAF_FILL, "solid", say("leaf tensor that requires grad")),
        (NOGRAD_FILL, "dashed", say("tensor that does not require grad (dashed)")),
        (OUTPUT_FILL, "solid", say('non-leaf tensor the picture was drawn from: says "output"')),
        (NONLEAF_FILL, "solid", say("non-leaf tensor in between")),
        (FUNCTION_FILL, "rounded", say("grad_fn node (torch's name) / AccumulateGrad")),
        (SAVED_FILL, "solid", say("value saved for backward: saved vN / now vN")),
        (STALE_FILL, "solid", say('saved value changed since: says "backward will raise"')),
        ("#ffffff", "dashed", say("None: an input slot with no graph behind it")),
    ]
    swatch = "22" if theme.legend_font <= DEFAULT.legend_font else "32"

    def cell(fill: str, style: str, text: str) -> str:
        return (
            f'<TD BGCOLOR="{fill}" STYLE="{style}" WIDTH="{swatch}"> </TD>'
            f'<TD ALIGN="LEFT" BORDER="0">{esc(text)}</TD>'
        )

    height = -(-len(rows) // theme.legend_columns)  # rows per column; two keep it short
    cells = "".join(
        "<TR>" + "".join(cell(*row) for row in rows[i::height]) + "</TR>" for i in range(height)
    )
    notes = [
        esc(say("arrows: the forward flow (backward walks them in reverse)")),
        esc(say("dashed box: tensors that share memory")),
    ]
    if before_after:
        notes += [
            red(esc(say("thick red outline and a note")))
            + esc(say(" = changed by the call (the note says how)")),
            esc(say("thick black outline = new")),
            red(esc(say("dashed edge ending in a bar ⊣"))) + esc(say(" = an edge the call cut")),
        ]
    if theme.legend_columns == 1:  # one note a row keeps a narrow legend narrow
        lines = notes
    else:
        rest = [say(", ").join(notes[2:])] if before_after else []
        lines = [say("; ").join(notes[:2]), *rest]
    span = 2 * theme.legend_columns
    note = "".join(
        f'<TR><TD COLSPAN="{span}" ALIGN="LEFT" BORDER="0">{line}</TD></TR>' for line in lines
    )
    return f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="3">{cells}{note}</TABLE>>'


def add_legend(graph: Any, before_after: bool = False, theme: Theme = DEFAULT) -> None:
    """The legend as the graph's own label, under the picture (it takes no rank of the layout)."""
    graph.attr(
        label=legend_label(before_after, theme),
        labelloc="b",
        labeljust="l",
        fontsize=str(theme.legend_font),
    )
