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
each time: running the same cell twice gives the same frames. (A tensor made outside the steps
and captured by a lambda would not be fresh; make every tensor inside a step.) A step that
raises is recorded, with the error as Python prints it, and the steps after it still run, as
the cells of a notebook would.

In JupyterLab a Stepper shows as a widget (slider, back / next, a "predict first" toggle) when
ipywidgets is installed; everywhere else (nbconvert, nbval, a static page) as HTML with every
frame in order. The widget only displays `Stepper.frames`, which is where everything is computed
and tested.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import html
import inspect
import re
import traceback
import types
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..creation import tensor
from ..grad_mode import no_grad
from .compare import Comparison
from .model import GraphSnapshot, snapshot
from .render import Graph

__all__ = ["ROUTES", "Frame", "Stepper", "cut_stepper", "stepper"]

Step = tuple[str, Callable[..., Any]]


# --------------------------------------------------------------------------------------------
# Frames
# --------------------------------------------------------------------------------------------


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

    @property
    def before(self) -> GraphSnapshot:
        """The graph before this step."""
        return self.comparison.before

    @property
    def after(self) -> GraphSnapshot:
        """The graph after this step (keys matched to those of `before`)."""
        return self.comparison.after

    @property
    def graph(self) -> Graph:
        """The picture as a graphviz graph."""
        return self.comparison.graph

    @functools.cached_property
    def svg(self) -> str:
        """The picture as an SVG document (rendered once, by Graphviz's `dot`)."""
        return self.graph._repr_image_svg_xml()


# --------------------------------------------------------------------------------------------
# Checking the steps before anything runs
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Checked:
    code: str
    action: Callable[..., Any]
    needs: tuple[str, ...]  # parameters that must come from earlier steps
    may_use: tuple[str, ...]  # parameters with a default: passed when an earlier step made them
    names: tuple[str, ...]  # the names the code text assigns (its return value gets them)


def _assigned_names(code: str) -> tuple[str, ...]:
    """`c = out.detach()` -> ('c',); `x, y = f()` -> ('x', 'y'); anything else -> ()."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return ()
    if len(tree.body) != 1:
        return ()
    statement = tree.body[0]
    while isinstance(statement, ast.With) and len(statement.body) == 1:
        statement = statement.body[0]  # `with mg.no_grad(): c = out * 2` names c
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return ()
    target = statement.targets[0]
    if isinstance(target, ast.Name):
        return (target.id,)
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return tuple(e.id for e in target.elts)
    return ()


def _short(value: Any) -> str:
    text = repr(value)
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", text)  # no addresses in messages either
    return text if len(text) <= 60 else text[:57] + "..."


def _check_steps(steps: Any) -> list[_Checked]:
    """Turn `steps` into checked steps, or raise a TypeError / ValueError saying what to fix."""
    example = "[('out = a.sigmoid()', lambda a: a.sigmoid()), ...]"
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise TypeError(
            f"viz.stepper expects a list of (code_text, action) pairs, got "
            f"{type(steps).__name__}; for example {example}"
        )
    if len(steps) == 0:
        raise ValueError(f"viz.stepper needs at least one (code_text, action) step: {example}")
    checked: list[_Checked] = []
    made: list[str] = []
    for number, step in enumerate(steps, start=1):
        if not isinstance(step, (tuple, list)) or len(step) != 2:
            raise TypeError(
                f"step {number} must be a (code_text, action) pair, got {_short(step)}; "
                f"for example {example}"
            )
        code, action = step
        if not isinstance(code, str):
            raise TypeError(
                f"step {number}: the first item must be the code text (a str), got "
                f"{type(code).__name__} {_short(code)}"
            )
        if not callable(action):
            raise TypeError(
                f"step {number} ({code!r}): the action must be callable, a lambda or a "
                f"function, got {type(action).__name__} {_short(action)}; write "
                f"({code!r}, lambda ...: ...)"
            )
        needs, may_use = _parameters(number, code, action)
        missing = [name for name in needs if name not in made]
        if missing:
            earlier = ", ".join(made) if made else "nothing yet"
            raise ValueError(
                f"step {number} ({code!r}): its action asks for {', '.join(missing)}, which no "
                f"earlier step makes (earlier steps made: {earlier}). A step makes a name when "
                "its code text assigns it, e.g. 'c = out.detach()'."
            )
        names = _assigned_names(code)
        made += [name for name in names if name not in made]
        checked.append(_Checked(code, action, needs, may_use, names))
    return checked


def _parameters(number: int, code: str, action: Callable[..., Any]) -> tuple[tuple[str, ...], ...]:
    """(required names, names with defaults) of an action, which are passed by name."""
    try:
        signature = inspect.signature(action)
    except (TypeError, ValueError):
        raise TypeError(
            f"step {number} ({code!r}): cannot read the parameters of {_short(action)}; wrap "
            "it in a lambda, e.g. lambda out: out.detach()"
        ) from None
    needs, may_use = [], []
    for parameter in signature.parameters.values():
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            raise TypeError(
                f"step {number} ({code!r}): the action's parameter {parameter} cannot be passed "
                "by name; name each value the step uses, e.g. lambda a, out: ..."
            )
        if parameter.default is parameter.empty:
            needs.append(parameter.name)
        else:
            may_use.append(parameter.name)
    return tuple(needs), tuple(may_use)


def _check_names(kind: str, values: Any, checked: list[_Checked]) -> tuple[str, ...]:
    made = {name for step in checked for name in step.names}
    values = tuple(values)
    for value in values:
        if not isinstance(value, str):
            raise TypeError(
                f"viz.stepper: {kind} are names of values the steps make (strings such as "
                f"'out'), got {type(value).__name__}; each run makes fresh tensors, so the "
                "stepper cannot be given tensor objects"
            )
        if value not in made:
            known = ", ".join(sorted(made)) or "none"
            raise ValueError(
                f"viz.stepper: {kind} name {value!r}, which no step makes (steps make: {known})"
            )
    return values


# --------------------------------------------------------------------------------------------
# Running the steps
# --------------------------------------------------------------------------------------------


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "grad_fn") and hasattr(value, "requires_grad")


def _is_torch(value: Any) -> bool:
    return any(cls.__module__.startswith("torch") for cls in type(value).__mro__)


def _error_text(error: BaseException) -> str:
    """The error as Python prints it under a traceback: 'RuntimeError: message'."""
    return "".join(traceback.format_exception_only(error)).strip()


def _value_text(value: Any) -> str | None:
    """The value as the learner would see it printed, or None for values not worth showing."""
    if _is_tensor(value):
        return f"{value!r}  (version {value._version})"
    if isinstance(value, np.ndarray):
        return repr(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    return None


def _indented(name: str, text: str) -> list[str]:
    """'name = text', with continuation lines of a multi-line text under its start."""
    first, *rest = text.splitlines() or [""]
    pad = " " * (len(name) + 3)
    return [f"  {name} = {first}"] + [f"  {pad}{line}" for line in rest]


def _leaf_grads(namespace: dict[str, Any]) -> dict[str, Any]:
    """name -> .grad for the leaves in the namespace (non-leaf .grad is not read: torch warns)."""
    grads = {}
    for name, value in namespace.items():
        if _is_tensor(value) and value.is_leaf and (value.requires_grad or value.grad is not None):
            grads[name] = value.grad
    return grads


def _grad_state(grad: Any) -> tuple[int, bytes] | None:
    return None if grad is None else (id(grad), grad.detach().numpy().tobytes())


def _store(step: _Checked, number: int, result: Any, namespace: dict[str, Any]) -> None:
    if len(step.names) == 1:
        namespace[step.names[0]] = result
    elif step.names:
        values = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(values) != len(step.names):
            raise ValueError(
                f"step {number} ({step.code!r}) names {len(step.names)} values, but its action "
                f"returned {len(values)}; return a tuple of {len(step.names)}"
            )
        namespace.update(zip(step.names, values, strict=True))


def _draw_state(namespace: dict[str, Any], roots: tuple[str, ...], names: tuple[str, ...] | None):
    """A snapshot of the named tensors that exist now."""
    shown = names if names is not None else tuple(namespace)
    named = {n: namespace[n] for n in shown if n in namespace and _is_tensor(namespace[n])}
    root_values = [namespace[r] for r in roots if r in namespace and _is_tensor(namespace[r])]
    return snapshot(*root_values, names=named)


def _keep_alive(namespace: dict[str, Any], kept: list[Any]) -> None:
    """Hold on to torch tensors and nodes seen so far: torch graphs are matched by id(), which
    Python may hand to a new object once the old one is gone (minigrad uses serial numbers)."""
    for value in namespace.values():
        if _is_tensor(value) and _is_torch(value):
            kept.append(value)
            if value.grad_fn is not None:
                kept.append(value.grad_fn)


def _summary(
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
        lines += ["raised:", *(f"  {line}" for line in error.splitlines())]
    if warned:
        lines += ["warned:", *(f"  {line}" for line in warned)]
    if gradients:
        lines += ["gradients:", *(f"  {line}" for line in gradients)]
    lines += ["what changed:", *(f"  {line}" for line in comparison.changes.lines)]
    if not comparison.changes.lines:
        lines.append("  nothing in the graph")
    values = [(name, _value_text(value)) for name, value in namespace.items()]
    shown = [(name, text) for name, text in values if text is not None]
    if shown:
        lines.append("values:")
        for name, text in shown:
            lines += _indented(name, text)
    if current.tensors:
        lines += ["graph:", *(f"  {line}" for line in current.summary().splitlines())]
    return "\n".join(lines)


def _run(
    checked: list[_Checked], roots: tuple[str, ...], names: tuple[str, ...] | None
) -> tuple[list[Frame], dict[str, Any]]:
    """Run the steps in a fresh namespace; the frames, and the namespace as the steps left it."""
    namespace: dict[str, Any] = {}  # fresh for every run: every step makes its own tensors
    kept: list[Any] = []
    previous = _draw_state(namespace, roots, names)  # the empty graph before step 1
    frames = []
    count = len(checked)
    for index, step in enumerate(checked):
        grads_before = {n: _grad_state(g) for n, g in _leaf_grads(namespace).items()}
        arguments = {n: namespace[n] for n in (*step.needs, *step.may_use) if n in namespace}
        error = None
        result = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = step.action(**arguments)
            except Exception as raised:  # the step's outcome, shown in its frame
                error = _error_text(raised)
        if error is None:
            _store(step, index + 1, result, namespace)
        warned = tuple(f"{w.category.__name__}: {w.message}" for w in caught)
        _keep_alive(namespace, kept)
        current = _draw_state(namespace, roots, names)
        comparison = Comparison(previous, current, step.code, result)

        gradients: tuple[str, ...] = ()
        grads_after = _leaf_grads(namespace)
        ran_backward = "backward(" in step.code or any(
            _grad_state(g) != grads_before.get(n) for n, g in grads_after.items()
        )
        if error is None and ran_backward:
            gradients = tuple(f"{n}.grad = {g!r}" for n, g in grads_after.items())

        heading = f"step {index + 1} of {count}: {step.code}"
        summary = _summary(heading, error, warned, gradients, comparison, namespace, current)
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
    return frames, namespace


# --------------------------------------------------------------------------------------------
# The stepper
# --------------------------------------------------------------------------------------------


def inline_svg(svg: str) -> str:
    """The <svg> element alone (no XML prolog or doctype), for embedding in HTML.

    It is allowed to shrink to the width of the page: a wide before / after picture would
    otherwise be cut off at the right edge of a notebook's output area.
    """
    start = svg.find("<svg")
    if start < 0:
        return svg
    return '<svg style="max-width:100%;height:auto"' + svg[start + len("<svg") :]


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
        parts = [f"{self.title}: {len(self.frames)} steps"]
        parts += [frame.summary for frame in self.frames]
        return "\n\n".join(parts)

    def html(self) -> str:
        """Every frame in order: code, picture, summary (the form without a widget front end)."""
        parts = [
            '<div class="mg-stepper-static">',
            f"<p><b>{html.escape(self.title)}</b>: {len(self.frames)} steps</p>",
        ]
        for frame in self.frames:
            heading = f"step {frame.index + 1} of {len(self.frames)}: {frame.label}"
            parts += [
                '<div class="mg-stepper-frame">',
                f'<pre class="mg-stepper-code">{html.escape(heading)}</pre>',
                f'<div class="mg-stepper-picture">{inline_svg(frame.svg)}</div>',
                '<pre class="mg-stepper-summary" style="white-space:pre-wrap">'
                f"{html.escape(frame.summary)}</pre>",
                "</div>",
            ]
        parts.append("</div>")
        return "\n".join(parts)

    def widget(self) -> Any:
        """An ipywidgets view of the frames (ImportError without ipywidgets)."""
        from .stepper_widget import stepper_widget

        return stepper_widget(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": self.text(), "text/html": self.html()}
        try:
            widget = self.widget()
        except ImportError:  # no ipywidgets: the HTML is all there is
            widget = None
        if widget is not None:
            view = widget._repr_mimebundle_() or {}
            key = "application/vnd.jupyter.widget-view+json"
            if key in view:
                bundle[key] = view[key]
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include}
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude}
        return bundle

    def __repr__(self) -> str:
        last = self.frames[-1]
        outcome = f"raised {last.error.split(':')[0]}" if last.error else "ran"
        return (
            f"<minigrad.viz stepper: {len(self.frames)} steps; the last, {last.label}, {outcome}>"
        )


def stepper(steps: Sequence[Step], *roots: str, names: Sequence[str] | None = None) -> Stepper:
    """Run `(code_text, action)` steps in order on fresh objects, one frame after each.

    `roots` and `names` are names the steps make (strings): `names` chooses which tensors are
    drawn (default: every tensor a step named), `roots` which are drawn as outputs. See the
    module docstring for how actions get their arguments and name their results.
    """
    checked = _check_steps(steps)
    root_names = _check_names("roots", roots, checked)
    if names is not None and (isinstance(names, (str, bytes)) or not isinstance(names, Sequence)):
        raise TypeError(
            "viz.stepper: names must be a list of names the steps make, e.g. names=['a', 'out'] "
            f"(got {type(names).__name__}); each run makes fresh tensors, so no tensor objects"
        )
    drawn = _check_names("names", names, checked) if names is not None else None
    frames, _ = _run(checked, root_names, drawn)
    return Stepper(frames)


# --------------------------------------------------------------------------------------------
# Ready-made stories over one running example
# --------------------------------------------------------------------------------------------

ROUTES = ("detach", "detach_", "data", "numpy", "clone_detach", "no_grad")


def _story(route: str, lib: Any, mod: str) -> tuple[list[Step], list[Step]]:
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


def _verdict(frame: Frame, correct: Any, this_grad: Any) -> list[str]:
    """Lines that put this run's a.grad beside the correct one (both computed, not claimed)."""
    lines = [
        "beside the correct gradient (the same backward with nothing cut or changed):",
        f"  correct:   a.grad = {correct!r}",
    ]
    if frame.error is not None:
        lines.append(
            "  this run:  backward raised, so no gradient reached a (the change was caught)"
        )
    elif this_grad is None:
        lines.append("  this run:  a.grad = None")
    elif np.allclose(this_grad.detach().numpy(), correct.detach().numpy()):
        lines.append(f"  this run:  a.grad = {this_grad!r}   <- correct")
    else:
        lines.append(f"  this run:  a.grad = {this_grad!r}   <- silently wrong: no error raised")
    return lines


def cut_stepper(route: str, lib: Any = None) -> Stepper:
    """A ready-made story: build `out = a.sigmoid()`, cut it one way, change it, backward.

    `route` is one of ROUTES: "detach", "detach_", "data", "numpy" (`.detach().numpy()` and a
    change through numpy), "clone_detach" or "no_grad". The last frame puts the gradient (or
    the error) beside the correct gradient. `lib` runs the same story on another library with
    minigrad's names (`lib=torch` shows what PyTorch does); default minigrad.
    """
    if route not in ROUTES:
        valid = ", ".join(repr(r) for r in ROUTES)
        raise ValueError(f"viz.cut_stepper: unknown route {route!r}; the routes are {valid}")
    if lib is None:
        # The two names a story needs, taken from their own layers (viz may not import the
        # package that imports viz).
        lib = types.SimpleNamespace(__name__="minigrad", tensor=tensor, no_grad=no_grad)
    mod = "mg" if lib.__name__ == "minigrad" else lib.__name__
    steps, plain = _story(route, lib, mod)
    frames, namespace = _run(_check_steps(steps), ("out",), None)
    last = frames[-1]
    verdict = _verdict(last, _correct_grad(plain), namespace["a"].grad)
    frames[-1] = dataclasses.replace(last, summary="\n".join([last.summary, *verdict]))
    return Stepper(frames, title=f"viz.cut_stepper({route!r})")


def _correct_grad(steps: list[Step]) -> Any:
    """Run the uncut program plainly (no pictures) and return a.grad."""
    namespace: dict[str, Any] = {}
    for number, step in enumerate(_check_steps(steps), start=1):
        arguments = {n: namespace[n] for n in (*step.needs, *step.may_use) if n in namespace}
        _store(step, number, step.action(**arguments), namespace)
    return namespace["a"].grad
