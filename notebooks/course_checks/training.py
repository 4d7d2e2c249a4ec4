"""Part B of notebook 12, one training loop two ways: what it adds up (B1) and where it records
(B6).

Each check runs the learner's function on a small regression problem and watches it at work
(forward hooks on the model, the batches it is handed), then compares what it saw with the
conditions the exercise states, not only with the numbers a right answer produces. A
`_..._problem` helper returns what is wrong as (text, hint), or None.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim

from .answers import first, floats, one_number, rounded, same_weights, untried, weights
from .feedback import Problem, error_text, not_yet, say, show, solved, tr
from .sandbox import checked


def _regression_batches(count: int = 4) -> list[tuple[mg.Tensor, mg.Tensor]]:
    rng = np.random.default_rng(0)
    batches = []
    for _ in range(count):
        x = rng.normal(size=(8, 2)).astype(np.float32)
        y = (x @ np.array([[1.5], [-2.0]]) + 0.5).astype(np.float32)
        batches.append((mg.from_numpy(x), mg.from_numpy(y)))
    return batches


def _fresh_regression() -> tuple[nn.Module, optim.Optimizer]:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    return model, optim.SGD(model.parameters(), lr=0.05)


# ---- B1: the epoch loss that keeps every graph alive ------------------------------------------


class _Batches(list):
    """The batches handed to train_epoch: a list that notes which batch a loop is on, whether
    it walks the list (`for x, y in batches`) or indexes it (`batches[i]`)."""

    def __init__(self, batches: list, on_batch: Callable[[int], None]) -> None:
        super().__init__(batches)
        self._on_batch = on_batch

    def __iter__(self) -> Iterator[Any]:
        for number, batch in enumerate(super().__iter__(), start=1):
            self._on_batch(number)
            yield batch

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int):
            self._on_batch(index % len(self) + 1)
        return super().__getitem__(index)


class _GraphWatch:
    """Which batches' graphs are still alive: a weak reference to the node each forward pass of
    the model recorded, by the number of the batch the loop was on."""

    def __init__(self, model: nn.Module) -> None:
        self.batch = 0
        self.graphs: list[tuple[int, weakref.ref]] = []
        self.lingering: tuple[int, list[int]] | None = None  # (batch, older batches alive)
        model.register_forward_hook(self._forward)

    def _forward(self, module: nn.Module, args: tuple, output: Any) -> None:
        node = getattr(output, "grad_fn", None)
        if node is not None:
            self.graphs.append((self.batch, weakref.ref(node)))

    def alive(self, before: int | None = None) -> list[int]:
        """The batches (before batch `before`, if given) whose graph is still alive."""
        found = {b for b, ref in self.graphs if ref() is not None}
        return sorted(b for b in found if before is None or b < before)

    def start(self, batch: int) -> None:
        """The loop starts `batch`: the graph of the batch before may still be held by `loss`,
        every older one should be gone. The first batch where one is not is remembered."""
        self.batch = batch
        older = self.alive(before=batch - 1)
        if older and self.lingering is None:
            self.lingering = (batch, older)


def _reference_epoch() -> tuple[float, list[np.ndarray]]:
    model, opt = _fresh_regression()
    batches = _regression_batches()
    total = 0.0
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(batches), weights(model)


def _b1_hint() -> str:
    return tr(
        "b1.hint",
        "turn each batch's loss into a number inside the loop: total += loss.item() "
        "(or loss.detach()).",
    )


def _graph_problem(result: Any, watch: _GraphWatch) -> Problem | None:
    """Which graphs lived too long, or None: held by the result, or alive while later batches
    ran (a total of loss tensors), or kept somewhere else."""
    kept = watch.alive()
    if isinstance(result, mg.Tensor) and result.grad_fn is not None:
        if not kept:
            text = tr(
                "b1.result-in-a-graph",
                "train_epoch returned {result}: it has a grad_fn, so it is part of a graph, "
                "not a plain number.",
                result=show(result),
            )
            return text, _b1_hint()
        text = tr(
            "b1.result-has-graph",
            "train_epoch returned {result}. It has a grad_fn, so it still points at the "
            "graphs of the batches it was added up from: the graphs of {count} of the "
            "{total} batches stay alive as long as the result does. Over a real epoch that "
            "is the memory leak of notebook 06.",
            result=show(result),
            count=len(kept),
            total=len(watch.graphs),
        )
        return text, _b1_hint()
    if watch.lingering is not None:
        batch, older = watch.lingering
        text = tr(
            "b1.lingering",
            "when batch {batch} began, the graph of batch {older} was still alive, although "
            "only the previous batch's loss may still point at a graph. So the graphs pile "
            "up while the epoch runs, and are freed only when it ends: something in the loop "
            "still points at them, as a total that adds up the loss tensors does. Detaching "
            "the result, or calling .item() on it, after the loop comes too late.",
            batch=batch,
            older=older[0],
        )
        return text, _b1_hint()
    if kept:
        text = tr(
            "b1.kept-outside",
            "after train_epoch returned, the graphs of {count} batches were still alive: "
            "something outside the result still points at them.",
            count=len(kept),
        )
        return text, tr(
            "b1.kept-outside-hint", "keep only numbers from each batch, not its tensors."
        )
    return None


def _shown(result: Any) -> str:
    """`result` for a message: a float to 4 decimals, anything else as its repr."""
    return f"{result:.4f}" if isinstance(result, float) else show(result)


def _value_problem(result: Any, expected: float) -> Problem | None:
    """Why `result` is not the epoch's mean loss as a number, or None."""
    value = one_number(result)
    if value is None:
        text = tr(
            "b1.not-a-number",
            "train_epoch returned {result}, not a number.",
            result=show(result),
        )
        return text, None
    if not np.isclose(value, expected, rtol=1e-4, atol=1e-6):
        text = tr(
            "b1.wrong-value",
            "train_epoch returned {result}, but the mean loss over the epoch is "
            "{expected:.4f}. Keep the training step as it was; change only what you add up.",
            result=_shown(result),
            expected=expected,
        )
        return text, None
    return None


def _kind(result: Any) -> str:
    """What kind of number `result` is, for the praise."""
    if isinstance(result, mg.Tensor):
        return tr("b1.kind-tensor", "a tensor that records no graph")
    if isinstance(result, float):
        return tr("b1.kind-float", "a Python float")
    return tr("b1.kind-other", "a number")


@checked
def check_loss_accumulation(train_epoch: Callable[..., Any]) -> bool:
    """B1: `train_epoch(model, opt, batches)` returns the epoch's mean loss, and no batch's
    graph outlives the batch after it."""
    if untried(train_epoch, "train_epoch"):
        return False
    expected, trained = _reference_epoch()
    model, opt = _fresh_regression()
    watch = _GraphWatch(model)
    result = train_epoch(model, opt, _Batches(_regression_batches(), watch.start))
    problem = _graph_problem(result, watch)
    if problem is None and not same_weights(weights(model), trained):
        text = tr(
            "b1.training-changed",
            "the model's weights after train_epoch are not those of one training step on "
            "each batch. Keep the training step as it was; change only what you add up.",
        )
        problem = text, None
    problem = problem or _value_problem(result, expected)
    if problem is not None:
        return not_yet(*problem)
    return solved(
        tr(
            "b1.solved",
            "train_epoch returned {result}, the epoch's mean loss, as {kind}; and while the "
            "epoch ran, no batch's graph outlived the batch after it: each was freed as soon as "
            "nothing pointed at it any more.",
            result=_shown(result),
            kind=_kind(result),
        )
    )


# ---- B6: validation inside no_grad -----------------------------------------------------------


class _PassWatch:
    """For each forward pass of the model: was it the validation input, did it record a graph?"""

    def __init__(self, model: nn.Module, val_x: mg.Tensor) -> None:
        self.val_x = val_x
        self.passes: list[tuple[bool, str | None]] = []  # (validation?, grad_fn name or None)
        model.register_forward_hook(self._forward)

    def _is_validation(self, value: Any) -> bool:
        if value is self.val_x:
            return True
        try:
            return np.array_equal(floats(value), floats(self.val_x))
        except (TypeError, ValueError):
            return False

    def _forward(self, module: nn.Module, args: tuple, output: Any) -> None:
        node = getattr(output, "grad_fn", None)
        name = None if node is None else type(node).__name__
        self.passes.append((bool(args) and self._is_validation(args[0]), name))

    def recorded_validation(self) -> tuple[int, str] | None:
        """(the step, the grad_fn name) of the first validation pass that recorded a graph."""
        step = 0
        for validation, name in self.passes:
            step += validation
            if validation and name is not None:
                return step, name
        return None


def _fit_problem() -> tuple[nn.Module, optim.Optimizer, list, mg.Tensor, mg.Tensor]:
    batches = _regression_batches()
    model, opt = _fresh_regression()
    val_x, val_y = batches[0]
    return model, opt, batches[1:], val_x, val_y


def _reference_fit(validate_first: bool = False) -> list[float]:
    model, opt, batches, val_x, val_y = _fit_problem()
    losses = []
    for x, y in batches:
        if validate_first:
            with mg.no_grad():
                losses.append(F.mse_loss(model(val_x), val_y).item())
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if not validate_first:
            with mg.no_grad():
                losses.append(F.mse_loss(model(val_x), val_y).item())
    return losses


def _not_recorded(error: RuntimeError, watch: _PassWatch) -> Problem:
    """What "does not require grad" means here (any other error is raised again)."""
    if "does not require grad" not in error_text(error):
        raise error
    if all(name is not None for validation, name in watch.passes if not validation):
        text = tr(
            "b6.loss-cut",
            "loss.backward() raises 'element 0 of tensors does not require grad and "
            "does not have a grad_fn': the training forward pass recorded its graph, "
            "but the loss backward was called on had been cut from it (by detach() or "
            ".data, for example).",
        )
        return text, tr("b6.loss-cut-hint", "call backward on the loss as F.mse_loss returns it.")
    return (
        tr(
            "b6.training-not-recorded",
            "loss.backward() raises 'element 0 of tensors does not require grad and does "
            "not have a grad_fn': the training step ran with recording off (inside "
            "no_grad, or after set_grad_enabled(False)), so no graph was built and backward "
            "has nothing to walk.",
        ),
        tr(
            "b6.training-not-recorded-hint",
            "keep no_grad around the validation line only, or wrap the training step in "
            "`with mg.enable_grad():`.",
        ),
    )


def _recording_problem(watch: _PassWatch) -> Problem | None:
    """Grad mode left off, or a validation pass that recorded a graph; None if neither."""
    if not mg.is_grad_enabled():
        return (
            tr(
                "b6.left-off",
                "after fit() returned, grad mode was still off: a plain "
                "set_grad_enabled(False) stays in force until it is switched back, and "
                "silently stops every later training step from recording.",
            ),
            tr(
                "b6.left-off-hint",
                "use `with mg.no_grad():` (it restores the mode at the end of the block).",
            ),
        )
    recorded = watch.recorded_validation()
    if recorded is None:
        return None
    step, name = recorded
    return (
        tr(
            "b6.validation-recorded",
            "the validation pass still records a graph: after step {step}, model(val_x) "
            "came back with grad_fn=<{name}>. Calling .item() or .detach() afterwards only "
            "drops a graph that was already built, in memory and time, for nothing.",
            step=step,
            name=name,
        ),
        tr(
            "b6.validation-recorded-hint",
            "compute the validation loss inside `with mg.no_grad():`.",
        ),
    )


def _losses_problem(got: list[float], expected: list[float]) -> Problem | None:
    """Why the logged losses are not one validation loss after each step, or None."""
    if len(got) != len(expected):
        text = tr(
            "b6.count",
            "expected {expected} validation losses, one after each step, got {got}.",
            expected=len(expected),
            got=len(got),
        )
        return text, None
    if np.allclose(got, expected, rtol=1e-4, atol=1e-6):
        return None
    if np.allclose(got, _reference_fit(validate_first=True), rtol=1e-4, atol=1e-6):
        text = tr(
            "b6.before-step",
            "these are the validation losses before each step; the exercise logs "
            "them after each step.",
        )
        return text, None
    text = tr(
        "b6.wrong-values",
        "the validation losses differ from training on every batch and validating "
        "after each step. Keep the loop as it was; change only where recording is on "
        "or off.",
    )
    return text, None


@checked
def check_eval_loop(fit: Callable[..., Any]) -> bool:
    """B6: `fit(model, opt, batches, val_x, val_y)`: every training step records its graph, no
    validation pass does, and a validation loss is logged after every step."""
    if untried(fit, "fit"):
        return False
    expected = _reference_fit()
    model, opt, batches, val_x, val_y = _fit_problem()
    watch = _PassWatch(model, val_x)
    try:
        losses = fit(model, opt, batches, val_x, val_y)
    except RuntimeError as error:
        return not_yet(*_not_recorded(error, watch))
    problem = _recording_problem(watch)
    if problem is not None:
        return not_yet(*problem)
    got = floats(first(losses, len(expected) + 1))
    say(
        tr(
            "b6.losses",
            "Your validation losses: {mine}   expected: {right}",
            mine=rounded(got),
            right=rounded(expected),
        )
    )
    problem = _losses_problem(got, expected)
    if problem is not None:
        return not_yet(*problem)
    return solved(
        tr(
            "b6.solved",
            "each training step recorded its graph and backward used it, and each validation "
            "pass ran without one: model(val_x) came back without a grad_fn. no_grad where no "
            "gradient is needed; recording on (outside no_grad, or inside enable_grad) where "
            "backward must run.",
        )
    )
