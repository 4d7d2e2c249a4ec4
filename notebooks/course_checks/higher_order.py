"""The exercises of notebook 10 (higher-order gradients): E1 and E4 predict, E2 repairs a gradient
penalty, E3 writes a MAML inner step.

A prediction check runs the exercise's code and compares what happened with the letter. A code
check calls the learner's function on its own tensors, works out the right numbers the right way
(`_penalty_reference`, `_meta_gradients`) and tests what the exercise states: the value, the
gradient that reaches w, that w itself is untouched, and that nothing calls backward() inside.
A `_..._problem` helper returns what is wrong as (text, hint), or None.
"""

from __future__ import annotations

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


# ---- E2: repair a gradient penalty --------------------------------------------------------------

W_VALUES = [0.5, -1.0]
X_VALUES = [[1.0, 2.0], [3.0, -1.0]]


def _penalty_reference() -> tuple[float, list[float]]:
    """The penalty's value and its gradient with respect to w, computed the right way."""
    w = mg.tensor(W_VALUES, requires_grad=True)
    inputs = mg.tensor(X_VALUES, requires_grad=True)
    (g,) = mg.autograd.grad((inputs @ w).tanh().sum(), inputs, create_graph=True)
    penalty = (g**2).sum()
    penalty.backward()
    return penalty.item(), rounded(floats(w.grad))


def _penalty_problem(penalty: Any, value: float, w: Any, inputs: Any) -> Problem | None:
    """Why `penalty`, what gradient_penalty(w, inputs) returned, is not the penalty (`value`)
    with a graph back to w; None when it is."""
    if w.grad is not None or inputs.grad is not None:
        return (
            tr(
                "higher-e2.backward-inside",
                "calling gradient_penalty already wrote into w.grad or inputs.grad: it calls "
                "backward() inside. Those gradients would be added to the ones of the training "
                "step, and backward(create_graph=True) also makes a reference cycle.",
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
    if got is None or abs(got - value) > 1e-4:
        return (
            tr(
                "higher-e2.value",
                "the penalty is {got:.4f}, expected {value:.4f}: the squared gradient with "
                "respect to inputs (not w), summed.",
                got=penalty.item(),
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
    penalty = gradient_penalty(w, inputs)
    problem = _penalty_problem(penalty, value, w, inputs)
    if problem is not None:
        return not_yet(*problem)
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


def _adapted_problem(w: Any, w_fast: Any, lr: float) -> Problem | None:
    """Why `w_fast`, what inner_step(w, ...) returned, is not one SGD step from w recorded on
    w's graph, or w was touched; None when all is well."""
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
    if w.grad is not None:
        return (
            tr(
                "higher-e3.backward-inside",
                "calling inner_step already wrote into w.grad: it calls backward() inside, and "
                "that gradient would be added to the outer one.",
            ),
            tr("higher-e3.backward-inside-hint", "take g from mg.autograd.grad."),
        )
    xs, ys = TASK["train"]
    slope = sum(2 * x * (x * W0 - y) for x, y in zip(xs, ys, strict=True)) / len(xs)
    expected = W0 - lr * slope  # one SGD step on the train loss
    got = one_number(w_fast) if isinstance(w_fast, mg.Tensor) else None
    if got is None or abs(got - expected) > 1e-5:
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
    if got is not None and abs(got - full) <= 1e-5:
        return None
    if got is not None and abs(got - first_order) <= 1e-5:
        return (
            tr(
                "higher-e3.first-order",
                "the outer gradient is {got:.4f}, first-order MAML's; full MAML gives "
                "{full:.4f}. The inner gradient g reaches w_fast as a constant, so the path "
                "w -> g -> w_fast is missing: g needs a graph (create_graph=True) and must not "
                "be detached.",
                got=got,
                full=full,
            ),
            tr(
                "higher-e3.first-order-hint",
                "two changes: record the inner backward pass, and drop the .detach().",
            ),
        )
    return (
        tr(
            "higher-e3.outer",
            "with lr = {lr} the outer gradient is {got}, full MAML gives {full:.4f}.",
            lr=lr,
            got=got,
            full=full,
        ),
        None,
    )


@checked
def check_inner_step(inner_step: Any) -> bool:
    """E3: the adapted weight is right, w is unchanged, no backward() inside, and the outer
    loss's gradient with respect to w is full MAML's (second order), for two learning rates."""
    if untried(inner_step, "inner_step"):
        return False
    for lr in (0.1, 0.05):
        w = mg.tensor([W0], requires_grad=True)
        w_fast = inner_step(w, lambda w: _task_loss(w, "train"), lr)
        problem = _adapted_problem(w, w_fast, lr)
        if problem is None:
            _task_loss(w_fast, "test").backward()
            problem = _outer_problem(None if w.grad is None else w.grad.item(), lr)
        if problem is not None:
            return not_yet(*problem)
    full, first_order = _meta_gradients(0.05)
    return solved(
        tr(
            "higher-e3.solved",
            "the outer loss now reaches w twice, directly and through the recorded inner "
            "gradient: w.grad = {full:.4f} (first-order MAML would give {first_order:.4f}).",
            full=full,
            first_order=first_order,
        )
    )


# ---- E4: predict, a pack hook that copies ------------------------------------------------------


@checked
def check_copying_pack_hook(prediction: Any) -> bool:
    """E4: a pack hook that clones, an in-place change, then backward."""
    letter = choice(prediction)
    if letter is None:
        return False
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = (x * x).sum()
    with mg.no_grad():
        x.add_(1)
    y.backward()
    say(tr("higher-e4.ran", "Ran it: no error, x.grad = {grad}", grad=x.grad))
    if letter == "B":
        return solved(
            tr(
                "higher-e4.solved",
                "the pack hook kept copies of x, which add_ cannot reach: backward multiplies "
                "with the values forward used, [1, 2], and there is nothing stale to catch. The "
                "gradient is the right one for the computation that ran.",
            )
        )
    if letter == "A":
        return not_yet(
            tr(
                "higher-e4.a",
                "there is no error. The version check compares a saved tensor's version with "
                "the version it had when saved, and the saved tensors here are clones that "
                "nothing changed.",
            ),
            tr("higher-e4.a-hint", "what did the pack hook hand to the graph?"),
        )
    return not_yet(
        tr(
            "higher-e4.c",
            "[4, 6] would be 2 * x with the changed x, but backward reads the copies the pack "
            "hook made during forward, when x was [1, 2].",
        ),
        tr("higher-e4.c-hint", "which tensors does unpack give back?"),
    )
