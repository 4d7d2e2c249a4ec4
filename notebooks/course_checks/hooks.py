"""The exercises of notebook 09 (hooks and custom Functions): E1 and E4 predict, E2 writes a hook
that clips, E3 a gradient reversal layer.

A prediction check runs the exercise's code and compares what happened with the letter. A code
check calls the learner's hook or Function on its own tensors and tests what the exercise
states: the values, the gradient that comes back, and what must stay untouched. A
`_..._problem` helper returns what is wrong as (text, hint), or None.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minigrad as mg

from .answers import choice, floats, rounded, untried
from .feedback import Problem, error_text, not_yet, say, show, solved, tr
from .sandbox import checked

# ---- E1: predict, two hooks on one branch ---------------------------------------------------


@checked
def check_reversing_hook(prediction: Any) -> bool:
    """E1: `b = x * 2`, two hooks on b (reverse, then times 10), `(x * 3 + b).sum().backward()`."""
    letter = choice(prediction)
    if letter is None:
        return False
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2
    b.register_hook(lambda grad: -grad)
    b.register_hook(lambda grad: grad * 10)
    (x * 3 + b).sum().backward()
    say(tr("hooks-e1.ran", "Ran it: x.grad = {grad}", grad=x.grad))
    if letter == "A":
        return solved(
            tr(
                "hooks-e1.solved",
                "the hooks run in the order they were registered, each on what the one before "
                "returned: b's gradient 1 becomes -1, then -10. b = x * 2 sends 2 * -10 = -20 to "
                "x, and the x * 3 branch adds 3: x.grad = -17.",
            )
        )
    if letter == "B":
        return not_yet(
            tr(
                "hooks-e1.b",
                "23 = 3 + 2 * 10 counts only the second hook. A later hook does not replace an "
                "earlier one: it receives what the earlier one returned.",
            ),
            tr("hooks-e1.b-hint", "what does the second hook receive: 1, or -1?"),
        )
    return not_yet(
        tr(
            "hooks-e1.c",
            "1 = 3 - 2 counts only the first hook. The second hook runs too, on the gradient "
            "the first one returned.",
        ),
        tr("hooks-e1.c-hint", "follow b's gradient through both hooks, in order."),
    )


# ---- E2: a hook that clips --------------------------------------------------------------------

LOW, HIGH = -1.0, 1.0  # the exercise's clipping range


def _clip_result_problem(result: Any, before: np.ndarray) -> Problem | None:
    """Why `result`, what clip_grad returned for the gradient `before`, is not that gradient
    clipped to [-1, 1]; None when it is."""
    if result is None:
        return (
            tr(
                "hooks-e2.none",
                "clip_grad returned None. A hook that returns None only looks: backward goes on "
                "with the gradient unchanged, so nothing is clipped.",
            ),
            tr("hooks-e2.none-hint", "return the clipped tensor."),
        )
    if not isinstance(result, mg.Tensor):
        return (
            tr(
                "hooks-e2.not-tensor",
                "clip_grad returned a {kind}, not a tensor; backward needs a tensor to go on "
                'with (torch: "expected Variable, but hook returned ...").',
                kind=type(result).__name__,
            ),
            tr("hooks-e2.not-tensor-hint", "stay with tensor operations on grad."),
        )
    if tuple(result.shape) != before.shape:
        return (
            tr(
                "hooks-e2.shape",
                "clip_grad returned shape {got} for a gradient of shape {want}; a hook must "
                "keep the gradient's shape.",
                got=tuple(result.shape),
                want=before.shape,
            ),
            tr("hooks-e2.shape-hint", "clip each value; do not sum or reshape."),
        )
    values = np.array(floats(result)).reshape(before.shape)
    expected = np.clip(before, LOW, HIGH)
    if np.allclose(values, expected, atol=1e-5):
        return None
    if np.allclose(values, before / np.abs(before).max(), atol=1e-5):
        problem = tr(
            "hooks-e2.rescales",
            "it rescales every value, also those already inside [-1, 1] (0.5 became 0.1667); "
            "clipping leaves those alone",
        )
    elif values.min() >= 0:
        problem = tr(
            "hooks-e2.no-negatives",
            "negative values came out as 0 or positive; the lower bound is -1",
        )
    else:
        problem = tr(
            "hooks-e2.values",
            "the values are {got}, clipping gives {want}",
            got=values.tolist(),
            want=expected.tolist(),
        )
    return (
        tr(
            "hooks-e2.wrong",
            "for the gradient {before}, {problem}.",
            before=before.tolist(),
            problem=problem,
        ),
        tr("hooks-e2.wrong-hint", "grad.clamp(low, high) clips each value."),
    )


@checked
def check_clip_hook(clip_grad: Any) -> bool:
    """E2: a tensor hook that returns the gradient clipped to [-1, 1], leaving its argument alone,
    and clips the gradient of the tensor it is registered on."""
    if untried(clip_grad, "clip_grad"):
        return False
    if not callable(clip_grad):
        return not_yet(
            tr(
                "hooks-e2.not-callable",
                "clip_grad is {value}, not a function.",
                value=show(clip_grad),
            ),
            tr("hooks-e2.not-callable-hint", "define it with def clip_grad(grad): ..."),
        )
    grad = mg.tensor([[-3.0, 0.5], [2.0, -0.25]])
    before = np.array(floats(grad)).reshape(2, 2)
    result = clip_grad(grad)
    if not np.array_equal(np.array(floats(grad)).reshape(2, 2), before):
        return not_yet(
            tr(
                "hooks-e2.in-place",
                "clip_grad changed the gradient it received in place (it is now {now}). A hook "
                "must not modify its argument: other hooks, retain_grad or your own logging may "
                "hold that same tensor and would see the clipped values too.",
                now=grad.tolist(),
            ),
            tr(
                "hooks-e2.in-place-hint",
                "use an out-of-place operation that returns a new tensor: clamp, not clamp_.",
            ),
        )
    problem = _clip_result_problem(result, before)
    if problem is not None:
        return not_yet(*problem)
    x = mg.tensor([0.5, -2.0, 3.0], requires_grad=True)
    h = x * 2
    h.register_hook(clip_grad)
    ((h * h).sum() / 2).backward()  # h's gradient is h = [1, -4, 6]
    if x.grad is None or rounded(floats(x.grad)) != [2.0, -2.0, 2.0]:
        return not_yet(
            tr(
                "hooks-e2.registered",
                "called on its own it clips, but registered on h it gave x.grad = {grad}, not "
                "[2, -2, 2].",
                grad=x.grad,
            )
        )
    return solved(
        tr(
            "hooks-e2.solved",
            "registered on h = x * 2, it turned h's gradient [1, -4, 6] into [1, -1, 1], so "
            "x.grad = {grad}; the gradient it received is unchanged.",
            grad=x.grad,
        )
    )


# ---- E3: a gradient reversal layer ------------------------------------------------------------

UPSTREAM = [1.0, 2.0, 3.0]  # d(loss)/dy for loss = (y * upstream).sum()


def _apply_problem(function: Any, lam: float) -> tuple[Problem | None, Any, Any]:
    """Run `function.apply(x, lam)` and backward: (what is wrong or None, x, y)."""
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    try:
        y = function.apply(x, lam)
    except TypeError as error:
        if "save_for_backward" not in error_text(error):
            raise
        problem = (
            tr(
                "hooks-e3.saved-number",
                "forward raised TypeError: {error}. save_for_backward is for tensors; a number "
                "such as lam is kept as an attribute of ctx.",
                error=error_text(error),
            ),
            tr("hooks-e3.saved-number-hint", "ctx.lam = lam"),
        )
        return problem, x, None
    if not isinstance(y, mg.Tensor):
        problem = (
            tr(
                "hooks-e3.not-tensor",
                "GradientReversal.apply(x, {lam}) returned {value}: forward must return a tensor "
                "with the values of x.",
                lam=lam,
                value=show(y),
            ),
            tr(
                "hooks-e3.not-tensor-hint",
                "x.view_as(x) or x.clone() returns x's values as a new tensor.",
            ),
        )
        return problem, x, y
    if rounded(floats(y)) != rounded(floats(x)):
        problem = (
            tr(
                "hooks-e3.values",
                "with lam = {lam}, forward gave {got} for x = {x}; the layer must not change the "
                "values (only the gradient is reversed).",
                lam=lam,
                got=y.tolist(),
                x=x.tolist(),
            ),
            tr("hooks-e3.values-hint", "forward returns x's values unchanged."),
        )
        return problem, x, y
    try:
        (y * mg.tensor(UPSTREAM)).sum().backward()
    except RuntimeError as error:
        text = error_text(error)
        if "incorrect number of gradients" not in text and "different than None" not in text:
            raise
        problem = (
            tr(
                "hooks-e3.gradients",
                "backward raised RuntimeError: {error}. backward returns one value per input of "
                "forward, x and lam: a gradient for x, and None for lam, which is a number.",
                error=text,
            ),
            tr("hooks-e3.gradients-hint", "return -ctx.lam * grad, None"),
        )
        return problem, x, y
    return None, x, y


def _reversal_problem(grad: Any, lam: float) -> Problem | None:
    """Why `grad`, x.grad after the layer with `lam`, is not -lam times UPSTREAM; or None."""
    wanted = [-lam * u for u in UPSTREAM]
    got = None if grad is None else rounded(floats(grad))
    if got == rounded(wanted):
        return None
    if got == rounded([-u for u in UPSTREAM]):
        problem = tr("hooks-e3.not-scaled", "the gradient is reversed but not scaled by lam")
    elif got == rounded([lam * u for u in UPSTREAM]):
        problem = tr("hooks-e3.not-reversed", "the gradient is scaled but not reversed")
    else:
        problem = tr("hooks-e3.grad-is", "x.grad is {grad}", grad=grad)
    return (
        tr(
            "hooks-e3.wrong-gradient",
            "with lam = {lam} and the gradient {upstream} arriving from above, x.grad should be "
            "{wanted}; {problem}.",
            lam=lam,
            upstream=UPSTREAM,
            wanted=wanted,
            problem=problem,
        ),
        tr("hooks-e3.wrong-gradient-hint", "backward returns -ctx.lam * grad for x."),
    )


@checked
def check_grad_reverse(function: Any) -> bool:
    """E3: `function.apply(x, lam)` has x's values, and the gradient reaching x is -lam times the
    one arriving from above (checked for two values of lam)."""
    if untried(function, "GradientReversal"):
        return False
    if not (isinstance(function, type) and issubclass(function, mg.autograd.Function)):
        return not_yet(
            tr(
                "hooks-e3.not-function",
                "{value} is not a subclass of mg.autograd.Function.",
                value=show(function),
            ),
            tr("hooks-e3.not-function-hint", "keep class GradientReversal(mg.autograd.Function)."),
        )
    for lam in (1.0, 0.5):
        problem, x, _ = _apply_problem(function, lam)
        if problem is None:
            problem = _reversal_problem(x.grad, lam)
        if problem is not None:
            return not_yet(*problem)
    return solved(
        tr(
            "hooks-e3.solved",
            "the values pass through unchanged, and the gradient comes back times -lam (checked "
            "with lam = 1 and 0.5), with None for the number lam.",
        )
    )


# ---- E4: predict, a tensor kept on ctx --------------------------------------------------------


class _Square(mg.autograd.Function):
    """E4's Function: the tensor kept as an attribute of ctx, not saved."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return 2 * ctx.x * grad


@checked
def check_ctx_attribute(prediction: Any) -> bool:
    """E4: `ctx.x = x` in forward, then `x.add_(1)` under no_grad, then backward."""
    letter = choice(prediction)
    if letter is None:
        return False
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = _Square.apply(x)
    with mg.no_grad():
        x.add_(1)
    y.sum().backward()
    say(tr("hooks-e4.ran", "Ran it: no error, x.grad = {grad}", grad=x.grad))
    if letter == "C":
        return solved(
            tr(
                "hooks-e4.solved",
                "ctx.x is the tensor x itself, with no version recorded, so backward reads the "
                "changed values [2, 3] and silently returns 2 * [2, 3]. "
                "ctx.save_for_backward(x) would have raised the version error instead. It is "
                "the .data mistake of notebook 04 in a new place (an attribute is fine for a "
                "number, such as lam).",
            )
        )
    if letter == "A":
        return not_yet(
            tr(
                "hooks-e4.a",
                "there is no error. Only tensors kept with ctx.save_for_backward are checked "
                "against in-place changes; an attribute of ctx is a plain Python reference.",
            ),
            tr("hooks-e4.a-hint", "which values does 2 * ctx.x read when backward runs?"),
        )
    return not_yet(
        tr(
            "hooks-e4.b",
            "[2, 4] would need the values of x as forward saw them, but nothing kept a copy: "
            "ctx.x is x itself, which add_ changed to [2, 3].",
        ),
        tr("hooks-e4.b-hint", "does ctx.x = x copy anything?"),
    )
