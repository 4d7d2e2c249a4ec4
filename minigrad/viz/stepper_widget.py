"""The stepper as an ipywidgets widget: a thin view over `Stepper.frames`, which hold everything.

    step [slider]  [back] [next]  [predict first]
    step 3 of 5: c.zero_()                           <- the code of the current step
    (the picture)                                    <- hidden in "predict first" until [show]
    (the summary)

"Predict first" is for class polls: with it on, each step shows only its code until someone
clicks "show". The CSS classes (mg-stepper, mg-stepper-next, ...) are what the browser test
looks for.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from .stepper import Stepper, inline_svg

HIDDEN_TEXT = (
    "<p><i>Predict first: what will the graph, the versions and the gradients look like after "
    "this step? Then click <b>show</b>.</i></p>"
)


def stepper_widget(stepper: Stepper) -> widgets.VBox:
    """A VBox that shows one frame of `stepper` at a time."""
    frames = stepper.frames
    count = len(frames)
    slider = widgets.IntSlider(value=1, min=1, max=count, description="step", readout=True)
    back = widgets.Button(description="◀ back", tooltip="previous step")
    forward = widgets.Button(description="next ▶", tooltip="next step")
    predict = widgets.ToggleButton(value=False, description="predict first")
    show = widgets.Button(description="show", button_style="info")
    code = widgets.HTML()
    picture = widgets.HTML()
    summary = widgets.HTML()
    for widget, name in [
        (slider, "slider"),
        (back, "back"),
        (forward, "next"),
        (predict, "predict"),
        (show, "show"),
        (code, "code"),
        (picture, "picture"),
        (summary, "summary"),
    ]:
        widget.add_class(f"mg-stepper-{name}")
    # rendered once each (dot runs once per frame), then only swapped in and out
    pictures = [inline_svg(frame.svg) for frame in frames]
    revealed = {"now": True}

    def update(*_: Any) -> None:
        frame = frames[slider.value - 1]
        heading = f"step {slider.value} of {count}: {frame.label}"
        code.value = f"<pre>{html.escape(heading)}</pre>"
        visible = revealed["now"] or not predict.value
        picture.value = pictures[slider.value - 1] if visible else HIDDEN_TEXT
        text = html.escape(frame.summary)
        summary.value = f'<pre style="white-space:pre-wrap">{text}</pre>' if visible else ""
        show.layout.display = "none" if visible else None
        back.disabled = slider.value == 1
        forward.disabled = slider.value == count

    def moved(_: Any) -> None:
        revealed["now"] = False  # a new step: in predict mode, hide its answer again
        update()

    def step_by(delta: int) -> None:
        slider.value = min(count, max(1, slider.value + delta))

    def reveal(_: Any) -> None:
        revealed["now"] = True
        update()

    slider.observe(moved, names="value")
    predict.observe(moved, names="value")
    back.on_click(lambda _: step_by(-1))
    forward.on_click(lambda _: step_by(1))
    show.on_click(reveal)
    update()

    controls = widgets.HBox([slider, back, forward, predict, show])
    box = widgets.VBox([widgets.HTML(f"<b>{html.escape(stepper.title)}</b>"), controls, code])
    box.children = (*box.children, picture, summary)
    box.add_class("mg-stepper")
    return box
