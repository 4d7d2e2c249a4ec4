"""Ready-made stepper stories over one running example: `viz.cut_stepper(route)`.

Each story builds `out = a.sigmoid()`, cuts or aliases it one way (a route), changes it in
place, and runs backward. The last frame puts the gradient this run got (or the error it
raised) beside the correct gradient, both computed by running the programs, never claimed.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import numpy as np

from ..creation import tensor
from ..grad_mode import no_grad
from .frames import Frame, run
from .steps import Step, check_steps, store
from .words import say

__all__ = ["ROUTES", "story_frames"]

ROUTES = ("detach", "detach_", "data", "numpy", "clone_detach", "no_grad")


def story(route: str, lib: Any, mod: str) -> tuple[list[Step], list[Step]]:
    """(the route's steps, the same program with nothing cut or changed) for `lib`."""

    def zero_array(n: Any) -> None:
        n[:] = 0

    def zero_without_recording(out: Any) -> None:
        with lib.no_grad():
            out.zero_()

    build: list[Step] = [
        (
            f"a = {mod}.tensor([1.0, 2.0, 3.0], requires_grad=True)",
            lambda: lib.tensor([1.0, 2.0, 3.0], requires_grad=True),
        ),
        ("out = a.sigmoid()", lambda a: a.sigmoid()),
    ]
    backward: Step = ("out.sum().backward()", lambda out: out.sum().backward())
    middle: dict[str, list[Step]] = {
        "detach": [
            ("c = out.detach()", lambda out: out.detach()),
            ("c.zero_()", lambda c: c.zero_()),
        ],
        "detach_": [
            ("loss = out.sum()", lambda out: out.sum()),
            ("out.detach_()", lambda out: out.detach_()),
            ("out.zero_()", lambda out: out.zero_()),
        ],
        "data": [("d = out.data", lambda out: out.data), ("d.zero_()", lambda d: d.zero_())],
        "numpy": [
            ("n = out.detach().numpy()", lambda out: out.detach().numpy()),
            ("n[:] = 0", zero_array),
        ],
        "clone_detach": [
            ("c = out.detach().clone()", lambda out: out.detach().clone()),
            ("c.zero_()", lambda c: c.zero_()),
        ],
        "no_grad": [
            ("loss = out.sum()", lambda out: out.sum()),
            (f"with {mod}.no_grad(): out.zero_()", zero_without_recording),
        ],
    }
    # detach_ and no_grad call backward on a loss recorded before the cut
    last: Step = (
        ("loss.backward()", lambda loss: loss.backward())
        if route in ("detach_", "no_grad")
        else backward
    )
    return build + middle[route] + [last], build + [backward]


def verdict(frame: Frame, correct: Any, this_grad: Any) -> list[str]:
    """Lines that put this run's a.grad beside the correct one (both computed, not claimed)."""
    lines = [
        say("beside the correct gradient (the same backward with nothing cut or changed):"),
        say("  correct:   a.grad = {grad}", grad=repr(correct)),
    ]
    if frame.error is not None:
        lines.append(
            say("  this run:  backward raised, so no gradient reached a (the change was caught)")
        )
    elif this_grad is None:
        lines.append(say("  this run:  a.grad = None"))
    elif np.allclose(this_grad.detach().numpy(), correct.detach().numpy()):
        lines.append(say("  this run:  a.grad = {grad}   <- correct", grad=repr(this_grad)))
    else:
        wrong = say(
            "  this run:  a.grad = {grad}   <- silently wrong: no error raised",
            grad=repr(this_grad),
        )
        lines.append(wrong)
    return lines


def correct_grad(steps: list[Step]) -> Any:
    """Run the uncut program plainly (no pictures) and return a.grad."""
    namespace: dict[str, Any] = {}
    for number, step in enumerate(check_steps(steps), start=1):
        arguments = {n: namespace[n] for n in (*step.needs, *step.may_use) if n in namespace}
        store(step, number, step.action(**arguments), namespace)
    return namespace["a"].grad


def story_frames(route: str, lib: Any = None) -> list[Frame]:
    """The frames of the story `route` (one of ROUTES) on `lib` (default minigrad).

    The last frame's summary ends with the verdict: this run's a.grad beside the correct one.
    """
    if route not in ROUTES:
        valid = ", ".join(repr(r) for r in ROUTES)
        raise ValueError(f"viz.cut_stepper: unknown route {route!r}; the routes are {valid}")
    if lib is None:
        # The two names a story needs, taken from their own layers (viz may not import the
        # package that imports viz).
        lib = types.SimpleNamespace(__name__="minigrad", tensor=tensor, no_grad=no_grad)
    mod = "mg" if lib.__name__ == "minigrad" else lib.__name__
    steps, plain = story(route, lib, mod)
    frames, namespace = run(check_steps(steps), ("out",), None)
    last = frames[-1]
    lines = verdict(last, correct_grad(plain), namespace["a"].grad)
    frames[-1] = dataclasses.replace(last, summary="\n".join([last.summary, *lines]))
    return frames
