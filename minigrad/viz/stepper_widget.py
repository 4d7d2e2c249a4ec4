"""The stepper as an ipywidgets widget: a thin view over the frames, which hold everything.

    step [1: a = ... v]  [back] [next]  [x] predict first
    step 3 of 5: c.zero_()                           <- the code of the current step, announced
    (the picture)                                    <- hidden in "predict first" until [show]
    (the summary)                                    <- a box that scrolls

One frame at a time, its picture at one fixed height (stepper_html.PICTURE_HEIGHT) and its
text in a box that scrolls, so the widget fits a laptop screen and does not change height
from step to step.

"Predict first" is for class polls: with it on, each step shows only its code until someone
presses "show". The CSS classes (mg-stepper, mg-stepper-next, ...) are what the browser test
looks for.

Accessible (WCAG 2.1 AA) with ipywidgets' own controls: the step is chosen in a drop-down list,
a <select> whose "step" label is tied to it (ipywidgets' slider handle cannot be given a name),
"predict first" is a checkbox (a ToggleButton exposes no pressed state), the line that says
the step is a polite live region, so a screen reader announces each step, and every button
keeps ipywidgets' default colours (the "info" style is white on #0097a7, 3.51:1).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from .frames import Frame
from .stepper_html import fitted_svg, picture_html, text_html
from .words import say

__all__ = ["stepper_widget"]


def stepper_widget(frames: Sequence[Frame], title: str) -> Any:
    """A VBox that shows one frame at a time (ImportError without ipywidgets)."""
    # ipywidgets is optional (a Stepper shows as HTML without it) and slow to import, so it
    # is imported only when a widget is asked for.
    import ipywidgets

    return StepperView(ipywidgets, frames, title).box


class StepperView:
    """The widgets of one stepper and the callbacks that keep them showing one frame."""

    def __init__(self, widgets: Any, frames: Sequence[Frame], title: str) -> None:
        self.frames = frames
        # the value is the step's number, as a slider's would be ("slider" in names and tests)
        choices = [(f"{frame.index + 1}: {frame.label}", frame.index + 1) for frame in frames]
        self.slider = widgets.Dropdown(options=choices, value=1, description=say("step"))
        self.back = widgets.Button(description=say("◀ back"), tooltip=say("previous step"))
        self.forward = widgets.Button(description=say("next ▶"), tooltip=say("next step"))
        self.predict = widgets.Checkbox(value=False, description=say("predict first"), indent=False)
        self.show = widgets.Button(description=say("show"))
        self.hidden = picture_html(  # what the picture's place shows in "predict first"
            "<p><i>"
            + say(
                "Predict first: what will the graph, the versions and the gradients look like "
                "after this step? Then press <b>show</b>."
            )
            + "</i></p>"
        )
        self.code = widgets.HTML()
        self.picture = widgets.HTML()
        self.summary = widgets.HTML()
        for widget, name in [
            (self.slider, "slider"),
            (self.back, "back"),
            (self.forward, "next"),
            (self.predict, "predict"),
            (self.show, "show"),
            (self.code, "code"),
            (self.picture, "picture"),
            (self.summary, "summary"),
        ]:
            widget.add_class(f"mg-stepper-{name}")
        # rendered once each (dot runs once per frame), then only swapped in and out
        self.pictures = [picture_html(fitted_svg(frame.svg)) for frame in frames]
        self.revealed = True
        self.slider.observe(self.moved, names="value")
        self.predict.observe(self.moved, names="value")
        self.back.on_click(lambda _: self.step_by(-1))
        self.forward.on_click(lambda _: self.step_by(1))
        self.show.on_click(self.reveal)
        self.update()
        controls = widgets.HBox([self.slider, self.back, self.forward, self.predict, self.show])
        heading = widgets.HTML(f'<h3 style="margin:0;font-size:1em">{html.escape(title)}</h3>')
        box = widgets.VBox([heading, controls, self.code])
        box.children = (*box.children, self.picture, self.summary)
        box.add_class("mg-stepper")
        self.box = box

    def update(self, *_: Any) -> None:
        """Show the frame the slider points at (its answer hidden in predict mode)."""
        count = len(self.frames)
        number = self.slider.value
        frame = self.frames[number - 1]
        heading = say(
            "step {number} of {count}: {code}", number=number, count=count, code=frame.label
        )
        # a live region: a screen reader says the new step when it changes (WCAG 4.1.3)
        self.code.value = (
            f'<pre role="status" aria-live="polite" style="margin:0">{html.escape(heading)}</pre>'
        )
        visible = self.revealed or not self.predict.value
        self.picture.value = self.pictures[number - 1] if visible else self.hidden
        self.summary.value = text_html(frame.summary) if visible else ""
        self.show.layout.display = "none" if visible else None
        self.back.disabled = number == 1
        self.forward.disabled = number == count

    def moved(self, _: Any) -> None:
        self.revealed = False  # a new step: in predict mode, hide its answer again
        self.update()

    def step_by(self, delta: int) -> None:
        self.slider.value = min(len(self.frames), max(1, self.slider.value + delta))

    def reveal(self, _: Any) -> None:
        self.revealed = True
        self.update()
