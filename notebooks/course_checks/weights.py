"""Part B of notebook 12, one weight `w`: updated at the wrong moment (B2, weight decay through
`.data`) and logged for a plot (B4).

Each check calls the learner's function on its own tensor `w` and reads what happened to it:
its gradient, its value, its version counter, and whether the logged values share its memory.
A `_..._problem` helper returns what is wrong as (text, hint), or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg
from minigrad import optim

from . import given
from .answers import first, floats, rounded, untried
from .feedback import Problem, error_text, not_yet, say, show, solved, tr
from .sandbox import checked

# ---- B2: weight decay between the forward pass and backward ----------------------------------

LR, SHRINK = 0.1, 0.9  # the exercise's learning rate and weight decay


def _decay_problem() -> tuple[mg.Tensor, mg.Tensor, mg.Tensor]:
    x = mg.tensor([[1.0], [2.0], [-1.0], [0.5]])
    y = mg.tensor([[2.0], [3.5], [-2.5], [1.0]])
    w = mg.tensor([0.5], requires_grad=True)
    return w, x, y


def _decay_gradient(w: float) -> float:
    """d/dw [mean((x w - y)^2) + sum(w^2)] at `w`, for the x and y of `_decay_problem`."""
    _, x, y = _decay_problem()
    xs, ys = np.array(floats(x)), np.array(floats(y))
    return float(np.mean(2 * (xs * w - ys) * xs) + 2 * w)


def _version_error(error: RuntimeError) -> Problem:
    """The version check's error (any other is raised again, for the sandbox to report)."""
    if "modified by an inplace operation" not in error_text(error):
        raise error
    return (
        tr(
            "b2.version-error",
            "backward now raises 'modified by an inplace operation'. Good news: the version "
            "check caught a change of w between the forward pass and backward, the kind that "
            ".data hides. w**2 saved w for backward, and w changed in place before backward ran.",
        ),
        tr(
            "b2.version-error-hint",
            "move the shrink after loss.backward(), inside the `with mg.no_grad():` block.",
        ),
    )


def _gradient_problem(grad: float, w0: float) -> Problem | None:
    """Why w.grad is not the gradient at the weights of a forward pass, or None if it is."""
    at_w0, at_shrunk = _decay_gradient(w0), _decay_gradient(SHRINK * w0)
    if np.isclose(grad, at_w0, atol=1e-4) or np.isclose(grad, at_shrunk, atol=1e-4):
        return None
    given_w, x, y = _decay_problem()
    given.function("train_step")(given_w, x, y)
    if np.isclose(grad, floats(given_w.grad)[0], atol=1e-4):
        return (
            tr(
                "b2.given-gradient",
                "w.grad is {grad:.4f}, the same wrong gradient as the code given: the correct "
                "one at the weights of the forward pass (w = {w0:g}) is {right:.4f}. The shrink "
                "still happens between the forward pass and backward, through something the "
                "version counter does not see (such as .data), so the backward of w**2 read "
                "the shrunken w.",
                grad=grad,
                w0=w0,
                right=at_w0,
            ),
            tr(
                "b2.given-gradient-hint",
                "call loss.backward() first, then shrink and step under `with mg.no_grad():`.",
            ),
        )
    return (
        tr(
            "b2.wrong-gradient",
            "w.grad is {grad:.4f}, which is not the gradient of this loss at the weights "
            "of a forward pass: {at_w0:.4f} at the w passed in ({w0:g}), {at_shrunk:.4f} at "
            "0.9 × w (if the shrink comes before the forward pass). Keep the loss as given, "
            "call backward once and leave w.grad as it wrote it.",
            grad=grad,
            at_w0=at_w0,
            w0=w0,
            at_shrunk=at_shrunk,
        ),
        None,
    )


def _update_problem(grad: float, new: float, w0: float, used: float) -> Problem | None:
    """Why w did not end at one SGD step and one shrink from w0, or None if it did."""
    if used == w0:  # the forward pass saw w0: step and shrink after backward, in either order
        right = [w0 * SHRINK - LR * grad, (w0 - LR * grad) * SHRINK]
    else:  # the shrink came first, then forward, backward and the step
        right = [used - LR * grad]
    if any(np.isclose(new, r, atol=1e-5) for r in right):
        return None
    if used == w0 and np.isclose(new, w0 - LR * grad, atol=1e-5):
        text = tr(
            "b2.no-shrink",
            "the gradient is right ({grad:.4f}), but w became {new:.4f}: the w passed in "
            "took the SGD step and was not shrunk (w = w * 0.9 would make a new tensor and "
            "leave it as it is). Keep the weight decay on w itself, after backward.",
            grad=grad,
            new=new,
        )
        return text, None
    text = tr(
        "b2.wrong-update",
        "the gradient is right ({grad:.4f}), but w became {new:.4f}; one SGD step "
        "(lr = 0.1) and one 10 % shrink give {right}.",
        grad=grad,
        new=new,
        right=" / ".join(f"{r:.4f}" for r in right),
    )
    return text, None


@checked
def check_weight_decay(train_step: Callable[..., Any]) -> bool:
    """B2: `train_step(w, x, y)`: w.grad is the gradient at the weights the forward pass used,
    and w takes one SGD step and a 10 % shrink."""
    if untried(train_step, "train_step"):
        return False
    w, x, y = _decay_problem()
    w0 = floats(w)[0]
    try:
        train_step(w, x, y)
    except RuntimeError as error:
        return not_yet(*_version_error(error))
    if w.grad is None:
        return not_yet(
            tr(
                "b2.no-grad",
                "after train_step, w.grad is None: backward never reached the w passed in.",
            )
        )
    grad, new = floats(w.grad)[0], floats(w)[0]
    used = w0 if np.isclose(grad, _decay_gradient(w0), atol=1e-4) else SHRINK * w0
    problem = _gradient_problem(grad, w0) or _update_problem(grad, new, w0, used)
    if problem is not None:
        return not_yet(*problem)
    praise = tr(
        "b2.solved",
        "w.grad = {grad:.4f} is the gradient at the weights the forward pass used "
        "(w = {used:g}), and w moved to {new:.4f}: nothing changed w between the forward "
        "pass and backward.",
        grad=grad,
        used=used,
        new=new,
    )
    if w._version < 2:  # the step and the shrink are two in-place changes
        praise += " " + tr(
            "b2.solved-uncounted",
            "(w._version is {version}, not 2: a change through .data is not counted. Where it "
            "is now that is harmless, but between the forward pass and backward it gives the "
            "silently wrong gradient you started from; under no_grad the version check would "
            "raise instead.)",
            version=w._version,
        )
    return solved(praise)


# ---- B4: a log of the weights ----------------------------------------------------------------


def _reference_log() -> tuple[list[float], list[float]]:
    """w's value before and after each of the three SGD steps."""
    w = mg.tensor([0.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    before, after = [], []
    for _ in range(3):
        before.append(w.item())
        loss = ((w - 2.0) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        after.append(w.item())
    return before, after


def _numpy_refused(error: RuntimeError) -> Problem:
    """numpy()'s refusal (any other error is raised again, for the sandbox to report)."""
    if "numpy()" not in error_text(error):
        raise error
    return (
        tr(
            "b4.numpy-refused",
            "record_weights raised: {message} (numpy() would hand out an array that shares "
            "w's memory, and w requires grad.)",
            message=error_text(error),
        ),
        tr("b4.numpy-refused-hint", "take the values out of the graph first: w.detach().numpy()."),
    )


def _entry_problem(entry: Any, w: mg.Tensor) -> str | None:
    """What is wrong with the kind of value logged (not its number), or None."""
    if entry is w:
        return tr(
            "b4.w-itself",
            "the entries of your log are w itself, the same tensor each time, so each one "
            "shows w's latest value; and the log should hold numpy arrays or numbers.",
        )
    if isinstance(entry, mg.Tensor) and entry.grad_fn is not None:
        return tr(
            "b4.tensor-with-graph",
            "the entries of your log are tensors that keep a graph ({entry}), not numpy "
            "arrays or numbers: each one holds on to the graph it came from.",
            entry=show(entry),
        )
    if isinstance(entry, mg.Tensor) and np.shares_memory(entry.numpy(), w.detach().numpy()):
        return tr(
            "b4.tensor-shares-memory",
            "the entries of your log are tensors on w's own memory ({entry}): w.detach() and "
            "w.data share it, and opt.step() changes w in place, so all the entries show "
            "w's final value. And the log should hold numpy arrays or numbers.",
            entry=show(entry),
        )
    if isinstance(entry, mg.Tensor):
        return tr(
            "b4.tensor",
            "the entries of your log are tensors ({entry}), not numpy arrays or numbers.",
            entry=show(entry),
        )
    if isinstance(entry, np.ndarray) and np.shares_memory(entry, w.detach().numpy()):
        return tr(
            "b4.shares-memory",
            "every array in your log is w's own memory: an array taken from a tensor "
            "(w.detach().numpy(), w.data.numpy(), np.asarray(w.detach()), ...) is a view of "
            "its memory, not a copy, and opt.step() changes w in place, so all the entries "
            "show w's final value.",
        )
    return None


def _log_problem(history: Any, entries: list[Any], w: mg.Tensor) -> Problem | None:
    """What is wrong with the log (`entries`: its first items) as three snapshots, or None."""
    if len(entries) != 3:
        text = tr(
            "b4.count",
            "record_weights returned {history}; expected a list of 3 values, one after each step.",
            history=show(history),
        )
        return text, None
    copy_hint = tr(
        "b4.copy-hint",
        "store a copy of the values: w.detach().numpy().copy() (or w.item() / w.tolist()).",
    )
    for entry in entries:
        problem = _entry_problem(entry, w)
        if problem is not None:
            return problem, copy_hint
    try:
        counts = [len(floats(entry)) for entry in entries]
    except (TypeError, ValueError):
        text = tr(
            "b4.not-values",
            "record_weights returned {history}, not a list of values.",
            history=show(history),
        )
        return text, None
    if counts != [1, 1, 1]:
        text = tr(
            "b4.not-one-value",
            "each entry should hold w's one value; got {history}.",
            history=show(history),
        )
        return text, None
    return None


@checked
def check_weight_log(record_weights: Callable[..., Any]) -> bool:
    """B4: `record_weights(w)` takes three SGD steps and returns w's value after each one, as
    numpy arrays or numbers that later steps leave alone."""
    if untried(record_weights, "record_weights"):
        return False
    before, after = _reference_log()
    w = mg.tensor([0.0], requires_grad=True)
    try:
        history = record_weights(w)
    except RuntimeError as error:
        return not_yet(*_numpy_refused(error))
    try:
        entries = first(history, 4)
    except TypeError:  # not iterable
        entries = []
    problem = _log_problem(history, entries, w)
    if problem is not None:
        return not_yet(*problem)
    mine = [floats(entry)[0] for entry in entries]
    say(
        tr(
            "b4.log",
            "Your log: {mine}   expected: {right}",
            mine=rounded(mine),
            right=rounded(after),
        )
    )
    if np.allclose(mine, before, atol=1e-6):
        return not_yet(
            tr(
                "b4.before-steps",
                "these are w's values before each step; the log should hold them after each "
                "opt.step().",
            )
        )
    if not np.allclose(mine, after, atol=1e-6) or not np.isclose(floats(w)[0], after[-1]):
        return not_yet(
            tr(
                "b4.wrong-values",
                "the logged values differ from w's value after each of the three steps. Keep "
                "the training loop as it was; change only what you append.",
            )
        )
    return solved(
        tr(
            "b4.solved",
            "each entry is a snapshot of w after its step, taken out of the graph and safe "
            "from later updates.",
        )
    )
