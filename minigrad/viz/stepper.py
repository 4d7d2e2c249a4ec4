"""The cut stepper: run a short program one step at a time and keep a picture of every step.

    from minigrad import viz
    viz.cut_stepper("detach")          # build, cut, change in place, backward: one frame each

    steps = [
        ("a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)",
         lambda: mg.tensor([1.0, 2.0, 3.0], requires_grad=True)),
        ("out = a.sigmoid()", lambda a: a.sigmoid()),
        ("c = out.detach()", lambda out: out.detach()),
        ("c.zero_()", lambda c: c.zero_()),
        ("out.sum().backward()", lambda out: out.sum().backward()),
    ]
    viz.stepper(steps, "out")

A step is a pair `(code_text, action)`. The code text is what the learner reads; the action is
what runs. An action asks for the values of earlier steps by naming them as its parameters
(`lambda out: out.detach()` gets the `out` an earlier step made). When the code text is an
assignment (`c = out.detach()`), the action's return value gets that name.

Every call to `viz.stepper` starts from an empty namespace, so the steps build fresh tensors
each time: running the same cell twice gives the same frames (frames.py runs them; steps.py
checks them first, stories.py holds the ready-made `cut_stepper` programs).

In JupyterLab a Stepper shows as a widget (slider, back / next, a "predict first" toggle) when
ipywidgets is installed; everywhere else (nbconvert, nbval, a static page) as HTML with every
frame in order. The widget only displays `Stepper.frames`, which is where everything is computed
and tested.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from .frames import Frame, run
from .stepper_html import stepper_html, stepper_text
from .stepper_widget import stepper_widget
from .steps import Step, check_names, check_steps
from .stories import ROUTES, story_frames
from .words import say

__all__ = ["ROUTES", "Frame", "Stepper", "cut_stepper", "stepper"]


class Stepper:
    """The frames of a stepped program; shows as a widget in JupyterLab, else as HTML."""

    def __init__(self, frames: Sequence[Frame], title: str = "viz.stepper") -> None:
        self.frames: tuple[Frame, ...] = tuple(frames)
        self.title = title

    def __len__(self) -> int:
        return len(self.frames)

    def __getitem__(self, index: int) -> Frame:
        return self.frames[index]

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def text(self) -> str:
        """Every frame's summary, in order (the text/plain form)."""
        return stepper_text(self.frames, self.title)

    def html(self) -> str:
        """Every frame in order: code, picture, summary (the form without a widget front end)."""
        return stepper_html(self.frames, self.title)

    def widget(self) -> Any:
        """An ipywidgets view of the frames (ImportError without ipywidgets)."""
        return stepper_widget(self.frames, self.title)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": self.text(), "text/html": self.html()}
        try:
            widget = self.widget()
        except ImportError:  # no ipywidgets: the HTML is all there is
            widget = None
        if widget is not None:
            key = "application/vnd.jupyter.widget-view+json"
            bundle[key] = widget_view(widget)
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include}
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude}
        return bundle

    def __repr__(self) -> str:
        last = self.frames[-1]
        return say(
            "<minigrad.viz stepper: {count} steps; the last, {label}, raised {error}>"
            if last.error
            else "<minigrad.viz stepper: {count} steps; the last, {label}, ran>",
            count=len(self.frames),
            label=last.label,
            error=last.error.split(":")[0] if last.error else "",
        )


def widget_view(widget: Any) -> dict[str, Any]:
    """The widget-view part of a widget's bundle: what JupyterLab and Colab draw a widget from.

    ipywidgets 8 makes it in `_repr_mimebundle_`; ipywidgets 7 (the one Colab long shipped)
    has no such method and displays itself instead, sending this same reference to its model.
    """
    bundle_of = getattr(widget, "_repr_mimebundle_", None)
    if bundle_of is not None:
        view = (bundle_of() or {}).get("application/vnd.jupyter.widget-view+json")
        if view is not None:
            return view
    return {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}


def stepper(steps: Sequence[Step], *roots: str, names: Sequence[str] | None = None) -> Stepper:
    """Run `(code_text, action)` steps in order on fresh objects, one frame after each.

    `roots` and `names` are names the steps make (strings): `names` chooses which tensors are
    drawn (default: every tensor a step named), `roots` which are drawn as outputs. See the
    module docstring for how actions get their arguments and name their results.
    """
    checked = check_steps(steps)
    root_names = check_names("roots", roots, checked)
    if names is not None and (isinstance(names, (str, bytes)) or not isinstance(names, Sequence)):
        raise TypeError(
            "viz.stepper: names must be a list of names the steps make, e.g. names=['a', 'out'] "
            f"(got {type(names).__name__}); each run makes fresh tensors, so no tensor objects"
        )
    drawn = check_names("names", names, checked) if names is not None else None
    frames, _ = run(checked, root_names, drawn)
    return Stepper(frames)


def cut_stepper(route: str, lib: Any = None) -> Stepper:
    """A ready-made story: build `out = a.sigmoid()`, cut it one way, change it, backward.

    `route` is one of ROUTES: "detach", "detach_", "data", "numpy" (`.detach().numpy()` and a
    change through numpy), "clone_detach" or "no_grad". The last frame puts the gradient (or
    the error) beside the correct gradient. `lib` runs the same story on another library with
    minigrad's names (`lib=torch` shows what PyTorch does); default minigrad.
    """
    return Stepper(story_frames(route, lib), title=f"viz.cut_stepper({route!r})")
