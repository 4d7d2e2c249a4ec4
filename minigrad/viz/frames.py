"""Running the steps of a stepper: one Frame per step, with its picture and its text.

Every run starts from an empty namespace, so the steps build fresh tensors each time: running
the same cell twice gives the same frames. (A tensor made outside the steps and captured by a
lambda would not be fresh; make every tensor inside a step.) A step that raises is recorded,
with the error as Python prints it, and the steps after it still run, as the cells of a
notebook would.
"""

from __future__ import annotations

import dataclasses
import functools
import traceback
import warnings
from typing import Any

import numpy as np

from .changes import Unseen, carry_unseen
from .compare import Comparison
from .dot_graph import Graph
from .model import GraphSnapshot
from .readers import is_torch_tensor
from .steps import Checked, store
from .text import summary_text
from .themes import resolve_theme
from .walk import snapshot
from .words import say

__all__ = ["Frame", "run"]


@dataclasses.dataclass(frozen=True, eq=False)
class Frame:
    """What one step did: its code, the graph before and after it, and what changed.

    `svg` is the before / after picture of the step (changes marked as in `viz.compare`);
    `summary` says the same in text, with the error the step raised (`error`) or the gradients
    its backward produced (`gradients`).
    """

    index: int  # 0, 1, ... in the order the steps ran
    label: str  # the step's code text
    summary: str
    error: str | None  # e.g. "RuntimeError: one of the variables needed ...", or None
    gradients: tuple[str, ...]  # "a.grad = tensor([...])" lines when the step ran backward
    warnings: tuple[str, ...]  # "UserWarning: ..." lines, when the step warned
    comparison: Comparison = dataclasses.field(repr=False)
    stacked: bool = False  # drawn 'after' under 'before' (the same for every frame of a run)

    @property
    def before(self) -> GraphSnapshot:
        """The graph before this step."""
        return self.comparison.before

    @property
    def after(self) -> GraphSnapshot:
        """The graph after this step (keys matched to those of `before`)."""
        return self.comparison.after

    @functools.cached_property
    def graph(self) -> Graph:
        """The picture as a graphviz graph (stacked or side by side, as every frame of its run)."""
        return self.comparison.draw(stack=self.stacked)

    @functools.cached_property
    def svg(self) -> str:
        """The picture as an SVG document (rendered once, by Graphviz's `dot`)."""
        return self.graph.pipe(format="svg", encoding="utf-8")


def is_tensor(value: Any) -> bool:
    return hasattr(value, "grad_fn") and hasattr(value, "requires_grad")


def error_text(error: BaseException) -> str:
    """The error as Python prints it under a traceback: 'RuntimeError: message'."""
    return "".join(traceback.format_exception_only(error)).strip()


def value_text(value: Any) -> str | None:
    """The value as the learner would see it printed, or None for values not worth showing."""
    if is_tensor(value):
        return say("{value}  (version {version})", value=repr(value), version=value._version)
    if isinstance(value, np.ndarray):
        return repr(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    return None


def indented(name: str, text: str) -> list[str]:
    """'name = text', with continuation lines of a multi-line text under its start."""
    first, *rest = text.splitlines() or [""]
    pad = " " * (len(name) + 3)
    return [f"  {name} = {first}"] + [f"  {pad}{line}" for line in rest]


def leaf_grads(namespace: dict[str, Any]) -> dict[str, Any]:
    """name -> .grad for the leaves in the namespace (non-leaf .grad is not read: torch warns)."""
    grads = {}
    for name, value in namespace.items():
        if is_tensor(value) and value.is_leaf and (value.requires_grad or value.grad is not None):
            grads[name] = value.grad
    return grads


def grad_state(grad: Any) -> tuple[int, bytes] | None:
    return None if grad is None else (id(grad), grad.detach().numpy().tobytes())


def draw_state(
    namespace: dict[str, Any], roots: tuple[str, ...], names: tuple[str, ...] | None
) -> GraphSnapshot:
    """A snapshot of the named tensors that exist now."""
    shown = names if names is not None else tuple(namespace)
    named = {n: namespace[n] for n in shown if n in namespace and is_tensor(namespace[n])}
    root_values = [namespace[r] for r in roots if r in namespace and is_tensor(namespace[r])]
    return snapshot(*root_values, names=named)


def keep_alive(namespace: dict[str, Any], kept: list[Any]) -> None:
    """Hold on to torch tensors and nodes seen so far: torch graphs are matched by id(), which
    Python may hand to a new object once the old one is gone (minigrad uses serial numbers)."""
    for value in namespace.values():
        if is_tensor(value) and is_torch_tensor(value):
            kept.append(value)
            if value.grad_fn is not None:
                kept.append(value.grad_fn)


def frame_summary(
    heading: str,
    error: str | None,
    warned: tuple[str, ...],
    gradients: tuple[str, ...],
    comparison: Comparison,
    namespace: dict[str, Any],
    current: GraphSnapshot,
) -> str:
    """A frame's text: the outcome first (error, warnings, gradients), then what changed, the
    values of the names the steps made, and the graph as `viz.summary` writes it."""
    lines = [heading]
    if error is not None:
        lines += [say("raised:"), *(f"  {line}" for line in error.splitlines())]
    if warned:
        lines += [say("warned:"), *(f"  {line}" for line in warned)]
    if gradients:
        lines += [say("gradients:"), *(f"  {line}" for line in gradients)]
    lines += [say("what changed:"), *(f"  {line}" for line in comparison.changes.lines)]
    if not comparison.changes.lines:
        lines.append("  " + say("nothing in the graph"))
    values = [(name, value_text(value)) for name, value in namespace.items()]
    shown = [(name, text) for name, text in values if text is not None]
    if shown:
        lines.append(say("values:"))
        for name, text in shown:
            lines += indented(name, text)
    if current.tensors:
        lines += [say("graph:"), *(f"  {line}" for line in summary_text(current).splitlines())]
    return "\n".join(lines)


def run(
    checked: list[Checked], roots: tuple[str, ...], names: tuple[str, ...] | None
) -> tuple[list[Frame], dict[str, Any]]:
    """Run the steps in a fresh namespace; the frames, and the namespace as the steps left it."""
    namespace: dict[str, Any] = {}  # fresh for every run: every step makes its own tensors
    kept: list[Any] = []
    previous = draw_state(namespace, roots, names)  # the empty graph before step 1
    unseen: Unseen = {}  # saved values changed behind their version check, so far
    frames = []
    for index, step in enumerate(checked):
        grads_before = {n: grad_state(g) for n, g in leaf_grads(namespace).items()}
        result, error, warned = run_step(step, namespace)
        if error is None:
            store(step, index + 1, result, namespace)
        keep_alive(namespace, kept)
        current = draw_state(namespace, roots, names)
        comparison = Comparison(previous, current, step.code, result, unseen=unseen)
        unseen = carry_unseen(comparison.after, comparison.changes.facts, unseen)
        gradients = gradient_lines(step, error, grads_before, namespace)
        heading = say(
            "step {number} of {count}: {code}", number=index + 1, count=len(checked), code=step.code
        )
        summary = frame_summary(heading, error, warned, gradients, comparison, namespace, current)
        frames.append(
            Frame(
                index=index,
                label=step.code,
                summary=summary,
                error=error,
                gradients=gradients,
                warnings=warned,
                comparison=comparison,
            )
        )
        previous = current
    return one_layout(frames), namespace


# A stepper shows its pictures at one fixed height (stepper_html.py), where wide beats tall:
# its frames are side by side unless one of them would then be wider than this many times the
# width a notebook shows unscaled (the theme's fit_width); then all are stacked.
STACK_ABOVE = 2.0


def one_layout(frames: list[Frame]) -> list[Frame]:
    """The frames, each drawn the same way: all side by side or all stacked."""
    if not frames:
        return frames
    fit = resolve_theme(frames[0].comparison.theme).fit_width
    widest = max(frame.comparison.draw(stack=False).estimated_width for frame in frames)
    stacked = widest > STACK_ABOVE * fit
    return [dataclasses.replace(frame, stacked=stacked) for frame in frames]


def run_step(step: Checked, namespace: dict[str, Any]) -> tuple[Any, str | None, tuple[str, ...]]:
    """Call one step's action with the values it names: (result, error text, warnings)."""
    arguments = {n: namespace[n] for n in (*step.needs, *step.may_use) if n in namespace}
    error = None
    result = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = step.action(**arguments)
        except Exception as raised:  # the step's outcome, shown in its frame
            error = error_text(raised)
    return result, error, tuple(f"{w.category.__name__}: {w.message}" for w in caught)


def gradient_lines(
    step: Checked,
    error: str | None,
    grads_before: dict[str, tuple[int, bytes] | None],
    namespace: dict[str, Any],
) -> tuple[str, ...]:
    """'a.grad = tensor(...)' for every leaf, when the step ran backward (or changed a .grad)."""
    grads_after = leaf_grads(namespace)
    ran_backward = "backward(" in step.code or any(
        grad_state(g) != grads_before.get(n) for n, g in grads_after.items()
    )
    if error is None and ran_backward:
        return tuple(f"{n}.grad = {g!r}" for n, g in grads_after.items())
    return ()
