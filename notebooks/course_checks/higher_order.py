"""The exercises of notebook 10 (higher-order gradients): E1 and E4 predict, E2 repairs a gradient
penalty, E3 writes a MAML inner step.

A prediction check runs the exercise's code and compares what happened with the letter. A code
check calls the learner's function on its own tensors, works out the right numbers the right way
(`_penalty_reference`, `_meta_gradients`) and tests what the exercise states: the value, the
gradient that reaches w, that w itself is untouched, and that nothing calls backward() inside.
To see a backward() inside even when the learner's code clears `.grad` afterwards, the check
first puts a gradient in `w.grad` (and `inputs.grad`), as an earlier backward() of a training
step would, and looks whether it is still there, unchanged. The check's numbers differ from the
notebook's, so that no output above an exercise shows its answer.
A `_..._problem` helper returns what is wrong as (text, hint), or None.
"""

from __future__ import annotations

import math
from typing import Any

import minigrad as mg

from .answers import choice, floats, one_number, rounded, untried
from .feedback import Problem, not_yet, say, show, solved, tr
from .sandbox import checked

# ---- E1: predict, what exp keeps ---------------------------------------------------------------


@checked
def check_exp_saves(prediction: Any) -> bool:
    """E1: which value does `x.exp()`'s node keep for backward?"""
    letter = choice(prediction)
    if letter is None:
        return False
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    saved = []

    def pack(tensor: Any) -> Any:
        saved.append(rounded(floats(tensor)))
        return tensor

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        y = x.exp()
    say(
        tr(
            "higher-e1.ran",
            "Ran it: ExpBackward0 saved {count} value, {values}: the values of y, its "
            "_saved_result = {result}",
            count=len(saved),
            values=saved[0],
            result=y.grad_fn._saved_result,
        )
    )
    if letter == "B":
        return solved(
            tr(
                "higher-e1.solved",
                "the derivative of exp is exp, which forward already computed: backward only "
                "needs grad * result, so keeping y saves recomputing it and x is not kept.",
            )
        )
    hint = tr("higher-e1.hint", "what is d/dx exp(x), and which tensor holds it?")
    if letter == "A":
        return not_yet(
            tr(
                "higher-e1.a",
                "exp keeps only its result. Its derivative is exp(x) = y, already computed "
                "forward, so backward needs grad * y and never x.",
            ),
            hint,
        )
    return not_yet(
        tr(
            "higher-e1.c",
            "one value is enough: the derivative exp(x) is y itself, so keeping x as well "
            "would only cost memory.",
        ),
        hint,
    )


def _close(got: float | None, want: float, tolerance: float) -> bool:
    """Whether `got` is a number within `tolerance` of `want` (NaN and None never are)."""
    return got is not None and not math.isnan(got) and abs(got - want) <= tolerance


EARLIER = [0.25, -0.75]  # a gradient the check leaves in w.grad, as an earlier backward() would


def _grads_touched(*left: tuple[str, Any, Any, list]) -> str | None:
    """What happened to the gradients the check left in .grad (`_leave_gradient`), or None
    when each is still there, the same tensor with the same values."""
    for name, tensor, kept, values in left:
        if tensor.grad is None:
            return tr("grads.cleared", "set {name}.grad to None", name=name)
        if tensor.grad is not kept or floats(tensor.grad) != values:
            return tr(
                "grads.changed",
                "changed {name}.grad to {now}",
                name=name,
                now=rounded(floats(tensor.grad)),
            )
    return None


def _leave_gradient(name: str, tensor: Any, values: list) -> tuple[str, Any, Any, list]:
    """Put `values` in `tensor.grad`; what `_grads_touched` compares with afterwards."""
    tensor.grad = mg.tensor(values)
    return name, tensor, tensor.grad, floats(tensor.grad)


# ---- E2: repair a gradient penalty --------------------------------------------------------------

W_VALUES = [1.0, 0.5]
X_VALUES = [[0.5, -1.0], [2.0, 1.0]]


def _penalty_reference() -> tuple[float, list[float]]:
    """The penalty's value and its gradient with respect to w, computed the right way."""
    w = mg.tensor(W_VALUES, requires_grad=True)
    inputs = mg.tensor(X_VALUES, requires_grad=True)
    (g,) = mg.autograd.grad((inputs @ w).tanh().sum(), inputs, create_graph=True)
    penalty = (g**2).sum()
    penalty.backward()
    return penalty.item(), rounded(floats(w.grad))


def _penalty_problem(penalty: Any, value: float, touched: str | None) -> Problem | None:
    """Why `penalty`, what gradient_penalty(w, inputs) returned, is not the penalty (`value`)
    with a graph back to w; `touched`: what happened to the gradients left in w.grad and
    inputs.grad. None when all is right."""
    if touched is not None:
        return (
            tr(
                "higher-e2.backward-inside",
                "the check left a gradient in w.grad and in inputs.grad, as an earlier "
                "backward() of a training step would, and calling gradient_penalty {what}: it "
                "calls backward() inside, or clears .grad. Either way the training step loses "
                "or mixes up its real gradients (and backward(create_graph=True) makes a "
                "reference cycle).",
                what=touched,
            ),
            tr(
                "higher-e2.backward-inside-hint",
                "mg.autograd.grad returns the gradient without touching any .grad.",
            ),
        )
    if not isinstance(penalty, mg.Tensor) or penalty.dim() != 0:
        return (
            tr(
                "higher-e2.not-scalar",
                "gradient_penalty returned {value}; it must return a 0-d tensor.",
                value=show(penalty),
            ),
            tr("higher-e2.not-scalar-hint", "return (g**2).sum()"),
        )
    got = one_number(penalty)
    if not _close(got, value, 1e-4):
        return (
            tr(
                "higher-e2.value",
                "the penalty is {got}, expected {value:.4f}: the squared gradient with "
                "respect to inputs (not w), summed.",
                got=show(got) if got is None or math.isnan(got) else f"{got:.4f}",
                value=value,
            ),
            tr("higher-e2.value-hint", "mg.autograd.grad(out, inputs, ...)"),
        )
    if not penalty.requires_grad:
        return (
            tr(
                "higher-e2.no-graph",
                "the value is right, but the penalty has no graph: the gradient g was returned "
                "as a constant, so backward() has nothing to walk back to w. "
                "(retain_graph=True keeps saved values but records nothing; .detach() would cut "
                "g off as well.)",
            ),
            tr(
                "higher-e2.no-graph-hint",
                "ask autograd.grad to record the backward pass it runs.",
            ),
        )
    return None


@checked
def check_gradient_penalty(gradient_penalty: Any) -> bool:
    """E2: the penalty's value is right, its backward() trains w, and it calls no backward()."""
    if untried(gradient_penalty, "gradient_penalty"):
        return False
    value, w_grad = _penalty_reference()
    w = mg.tensor(W_VALUES, requires_grad=True)
    inputs = mg.tensor(X_VALUES, requires_grad=True)
    left = [_leave_gradient("w", w, EARLIER), _leave_gradient("inputs", inputs, [[0.0] * 2] * 2)]
    penalty = gradient_penalty(w, inputs)
    problem = _penalty_problem(penalty, value, _grads_touched(*left))
    if problem is not None:
        return not_yet(*problem)
    w.grad = None  # the check's own gradient out of the way of the one it measures
    penalty.backward()
    if w.grad is None or rounded(floats(w.grad)) != w_grad:
        return not_yet(
            tr(
                "higher-e2.w-grad",
                "penalty.backward() gave w.grad = {grad}, expected {want}.",
                grad=w.grad,
                want=w_grad,
            ),
            tr("higher-e2.w-grad-hint", "is anything detached between w and the penalty?"),
        )
    return solved(
        tr(
            "higher-e2.solved",
            "with create_graph=True the gradient g has a graph, so the penalty ({value:.4f}) "
            "can be differentiated again: w.grad = {grad}.",
            value=value,
            grad=w.grad,
        )
    )


# ---- E3: a MAML inner step ----------------------------------------------------------------------

TASK = {"train": ([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]), "test": ([1.5, -1.0], [3.0, -2.0])}
W0 = 0.5  # where the inner step starts


def _task_loss(w: Any, split: str) -> Any:
    xs, ys = (mg.tensor(v) for v in TASK[split])
    return ((xs * w - ys) ** 2).mean()


def _meta_gradients(lr: float) -> tuple[float, float]:
    """(full MAML's, first-order MAML's) gradient of the outer loss at w = W0."""
    found = []
    for first_order in (False, True):
        w = mg.tensor([W0], requires_grad=True)
        (g,) = mg.autograd.grad(_task_loss(w, "train"), w, create_graph=True)
        g = g.detach() if first_order else g
        _task_loss(w - lr * g, "test").backward()
        found.append(w.grad.item())
    return found[0], found[1]


def _adapted_problem(w: Any, w_fast: Any, lr: float, touched: str | None) -> Problem | None:
    """Why `w_fast`, what inner_step(w, ...) returned, is not one SGD step from w recorded on
    w's graph, or w was touched (`touched`: what happened to the gradient left in w.grad);
    None when all is well."""
    if w._version != 0 or w.tolist() != [W0]:
        return (
            tr(
                "higher-e3.changed-w",
                "inner_step changed w itself (now {now}). MAML keeps w as the starting point "
                "and needs the adapted weight as a new tensor computed from it.",
                now=w.tolist(),
            ),
            tr("higher-e3.changed-w-hint", "return w - lr * g instead of updating w in place."),
        )
    if touched is not None:
        return (
            tr(
                "higher-e3.backward-inside",
                "the check left a gradient in w.grad, as an earlier backward() would, and "
                "calling inner_step {what}: it calls backward() inside, or clears w.grad. A "
                "meta-learning loop adds the outer gradients of several tasks in w.grad, and "
                "this would lose or mix them up.",
                what=touched,
            ),
            tr("higher-e3.backward-inside-hint", "take g from mg.autograd.grad."),
        )
    xs, ys = TASK["train"]
    slope = sum(2 * x * (x * W0 - y) for x, y in zip(xs, ys, strict=True)) / len(xs)
    expected = W0 - lr * slope  # one SGD step on the train loss
    got = one_number(w_fast) if isinstance(w_fast, mg.Tensor) else None
    if not _close(got, expected, 1e-5):
        return (
            tr(
                "higher-e3.step",
                "with lr = {lr}, inner_step returned {value}; one SGD step from w = 0.5 gives "
                "{expected:.4f}.",
                lr=lr,
                value=show(w_fast),
                expected=expected,
            ),
            tr("higher-e3.step-hint", "return w - lr * g"),
        )
    if w_fast.grad_fn is None:
        return (
            tr(
                "higher-e3.cut",
                "the adapted weight has no grad_fn: it is not connected to w at all (w.data, "
                ".detach() or no_grad cut it), so the outer loss cannot train w.",
            ),
            tr("higher-e3.cut-hint", "compute it from w itself: w - lr * g."),
        )
    return None


def _outer_problem(got: float | None, lr: float) -> Problem | None:
    """Why `got`, w.grad after the outer loss's backward, is not full MAML's; None if it is."""
    full, first_order = _meta_gradients(lr)
    if _close(got, full, 1e-5):
        return None
    if _close(got, first_order, 1e-5):
        return (
            tr(
                "higher-e3.first-order",
                "with lr = {lr} the outer gradient is {got:.4f}, first-order MAML's; full MAML "
                "gives {full:.4f}. The inner gradient g reaches w_fast as a constant, so the "
                "path w -> g -> w_fast is missing: g needs a graph (create_graph=True) and must "
                "not be detached.",
                lr=lr,
                got=got,
                full=full,
            ),
            tr(
                "higher-e3.first-order-hint",
                "two changes: record the inner backward pass, and drop the .detach().",
            ),
        )
    if _close(got, full - first_order, 1e-5):
        return (
            tr(
                "higher-e3.w-detached",
                "with lr = {lr} the outer gradient is {got:.4f}: only the path through g "
                "reaches w. The direct path w -> w_fast is cut, as when w is detached instead "
                "of g; full MAML, both paths, gives {full:.4f}.",
                lr=lr,
                got=got,
                full=full,
            ),
            tr(
                "higher-e3.w-detached-hint",
                "detach nothing: w_fast = w - lr * g, with g recorded (create_graph=True).",
            ),
        )
    return (
        tr(
            "higher-e3.outer",
            "with lr = {lr} the outer gradient is {got}, full MAML gives {full:.4f}.",
            lr=lr,
            got="None" if got is None else f"{got:.4f}",
            full=full,
        ),
        tr(
            "higher-e3.outer-hint",
            "one SGD step from w itself, w - lr * g, with g from autograd.grad(..., "
            "create_graph=True).",
        ),
    )


@checked
def check_inner_step(inner_step: Any) -> bool:
    """E3: the adapted weight is right, w is unchanged, no backward() inside, and the outer
    loss's gradient with respect to w is full MAML's (second order), for two learning rates."""
    if untried(inner_step, "inner_step"):
        return False
    for lr in (0.1, 0.05):
        w = mg.tensor([W0], requires_grad=True)
        left = _leave_gradient("w", w, EARLIER[:1])
        w_fast = inner_step(w, lambda w: _task_loss(w, "train"), lr)
        problem = _adapted_problem(w, w_fast, lr, _grads_touched(left))
        if problem is None:
            w.grad = None  # the check's own gradient out of the way of the one it measures
            _task_loss(w_fast, "test").backward()
            problem = _outer_problem(None if w.grad is None else w.grad.item(), lr)
        if problem is not None:
            return not_yet(*problem)
    full, first_order = _meta_gradients(0.05)
    return solved(
        tr(
            "higher-e3.solved",
            "the outer loss now reaches w twice, directly and through the recorded inner "
            "gradient: with lr = 0.05, w.grad = {full:.4f} (first-order MAML would give "
            "{first_order:.4f}); lr = 0.1 was checked too.",
            full=full,
            first_order=first_order,
        )
    )


# ---- E4: predict, a pack hook that only detaches ---------------------------------------------


@checked
def check_detaching_pack_hook(prediction: Any) -> bool:
    """E4: a pack hook that returns t.detach(), an in-place change, then backward."""
    letter = choice(prediction)
    if letter is None:
        return False
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        y = (x * x).sum()
    with mg.no_grad():
        x.add_(1)
    y.backward()
    say(tr("higher-e4.ran", "Ran it: no error, x.grad = {grad}", grad=x.grad))
    if letter == "C":
        return solved(
            tr(
                "higher-e4.solved",
                "whatever a pack hook packs is out of the version check, copy or not: torch "
                "checks versions only for values saved without hooks. Here the packed tensors "
                "share x's memory, so backward reads the changed x, [2, 3], and silently "
                "returns 2 * [2, 3]. (A pack hook that returned t itself would do the same, and "
                "torch's documentation forbids it.)",
            )
        )
    if letter == "A":
        return not_yet(
            tr(
                "higher-e4.a",
                "there is no error. Without hooks this code raises; but a value saved through a "
                "pack hook is not version-checked, even when the hook only detaches and the "
                "version counter is shared.",
            ),
            tr("higher-e4.a-hint", "which saved values does torch's engine check?"),
        )
    return not_yet(
        tr(
            "higher-e4.b",
            "[2, 4] would need the values of x as forward saw them, but nothing kept a copy: "
            "t.detach() shares x's memory, which add_ changed to [2, 3].",
        ),
        tr("higher-e4.b-hint", "does t.detach() copy anything?"),
    )
