"""A matplotlib plot with a text alternative: `viz.show_plot(fig, alt="what it shows")`.

plt.show() puts a bare PNG into the notebook: a screen reader announces "image" and nothing
else (WCAG 1.1.1). `show_plot` shows the same picture with words beside it, the way viz's own
pictures carry them (alt_text.py): a short name (the plot's title) and a description. The
description reads the axes and curves off the figure itself, in the language of
`viz.set_language`, and ends with the key fact in your own words (`alt`): what a sighted reader
sees at a glance, such as "the loss falls from 0.81 to 0.012".

    fig, ax = plt.subplots()
    ax.plot(losses)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    viz.show_plot(fig, alt="the loss falls from 0.81 to 0.012, fastest in the first steps")

A notebook shown in two languages passes `alt` as a dict, `{"en": "...", "zh": "..."}`: the code
stays the same and the language chosen with `viz.set_language` picks the text.
"""

from __future__ import annotations

import base64
import io
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .alt_text import asked_for, html_picture
from .words import current_language, listing, say

__all__ = ["Plot", "plot_description", "show_plot"]


@dataclass(frozen=True)
class Plot:
    """A plot as a notebook shows it: the PNG, and its name and description in words."""

    png: bytes  # the figure as matplotlib's inline backend draws it
    name: str  # short: "plot: Training curve from loss.item()"
    description: str  # the axes, the curves, then the key fact

    @property
    def alt(self) -> str:
        """The name and the description as one alt text, as viz's graph pictures have it."""
        return f"{self.name}. {self.description}"

    def __repr__(self) -> str:
        return f"<minigrad.viz {self.alt}>"

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **_: Any
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The PNG with its alt in the output's metadata (where front ends look for an image's
        alt: IPython's Image puts it there too), an <img> of the same PNG with that alt for
        JupyterLab, which reads no such metadata (alt_text.html_picture), and the same words
        as the text form, which a viewer without pictures shows instead."""
        data: dict[str, Any] = {"text/plain": self.alt}
        png = base64.b64encode(self.png).decode("ascii")  # base64 text, as a notebook stores it
        if asked_for("text/html", include, exclude):
            picture = f"data:image/png;base64,{png}"
            data["text/html"] = html_picture(picture, self.alt, capped=True)
        if asked_for("image/png", include, exclude):
            data["image/png"] = png
            return data, {"image/png": {"alt": self.alt}}
        return data, {}


def show_plot(figure: Any, alt: str | Mapping[str, str]) -> Plot:
    """Show a matplotlib figure with a name and a description in words, instead of plt.show().

    `alt` is the key fact the plot shows, in words ("the loss falls from 0.81 to 0.012"), or a
    dict of such texts by language ({"en": ..., "zh": ...}) for a notebook in two languages. The
    name is the figure's title; the description says each axis and curve (plot_description),
    then `alt`. The figure is closed, so Jupyter shows it once: as the Plot this returns.
    """
    if not hasattr(figure, "savefig"):
        hint = " (an Axes: pass ax.figure)" if hasattr(figure, "figure") else ""
        raise TypeError(
            f"show_plot: expected a matplotlib Figure, got {type(figure).__name__}{hint}; "
            "pass the fig of `fig, ax = plt.subplots()`."
        )
    fact = _in_language(alt)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    if "matplotlib.pyplot" in sys.modules:  # a figure made with pyplot: inline would show it
        sys.modules["matplotlib.pyplot"].close(figure)
    titles = [ax.get_title() for ax in figure.axes if ax.get_title()]
    name = say("{head}: {what}", head=say("plot"), what=listing(titles)) if titles else say("plot")
    description = say(". ").join([plot_description(figure), fact])
    return Plot(png=buffer.getvalue(), name=name, description=description)


def plot_description(figure: Any) -> str:
    """What each Axes of `figure` shows, read off the figure: its axis labels (and log scales),
    and how many curves it has with their legend labels. In the language of viz.set_language."""
    parts = []
    for ax in figure.axes:
        facts = [
            _axis(say("x axis"), ax.get_xlabel(), ax.get_xscale()),
            _axis(say("y axis"), ax.get_ylabel(), ax.get_yscale()),
        ]
        lines = ax.get_lines()
        labels = [line.get_label() for line in lines if not line.get_label().startswith("_")]
        if len(lines) == 1:
            facts.append(say("1 curve"))
        elif lines:
            facts.append(say("{count} curves", count=len(lines)))
        if labels:
            facts[-1] = say("{head}: {what}", head=facts[-1], what=listing(labels))
        text = say("; ").join(facts)
        if len(figure.axes) > 1 and ax.get_title():
            text = say("{head}: {what}", head=ax.get_title(), what=text)
        parts.append(text)
    return say(". ").join(parts)


def _axis(which: str, label: str, scale: str) -> str:
    """'x axis: step' or 'y axis: loss (log scale)'."""
    if scale == "log":
        label = say("{label} (log scale)", label=label or say("no label"))
    return say("{head}: {what}", head=which, what=label or say("no label"))


def _in_language(alt: str | Mapping[str, str]) -> str:
    """`alt` itself, or its text for the language chosen with viz.set_language."""
    if isinstance(alt, Mapping):
        language = current_language()
        if language not in alt:
            raise ValueError(
                f"show_plot: alt has no text for the language {language!r} (viz.set_language); "
                f"give it one: alt={{{language!r}: '...', ...}}"
            )
        alt = alt[language]
    if not isinstance(alt, str) or not alt.strip():
        raise ValueError(
            "show_plot: alt is empty; say in words what the plot shows, "
            'e.g. alt="the loss falls from 0.81 to 0.012"'
        )
    return alt.strip()
