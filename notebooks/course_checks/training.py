"""Part B of notebook 10, one training loop three ways: what it adds up (B1), when it updates
the weights (B2) and where it records (B6).

Each check runs the learner's function on a small regression problem and watches it at work
(forward hooks on the model, the batches it is handed), then compares what it saw with the
conditions the exercise states, not only with the numbers a right answer produces.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim

from . import given
from .answers import first, floats, one_number, rounded, same_weights, untried, weights
from .feedback import error_text, not_yet, say, show, solved, tr
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
    kept = watch.alive()
    if isinstance(result, mg.Tensor) and result.grad_fn is not None and not kept:
        return not_yet(
            tr(
                "b1.result-in-a-graph",
                "train_epoch returned {result}: it has a grad_fn, so it is part of a graph, "
                "not a plain number.",
                result=show(result),
            ),
            _b1_hint(),
        )
    if isinstance(result, mg.Tensor) and result.grad_fn is not None:
        return not_yet(
            tr(
                "b1.result-has-graph",
                "train_epoch returned {result}. It has a grad_fn, so it still points at the "
                "graphs of the batches it was added up from: the graphs of {count} of the "
                "{total} batches stay alive as long as the result does. Over a real epoch that "
                "is the memory leak of notebook 06.",
                result=show(result),
                count=len(kept),
                total=len(watch.graphs),
            ),
            _b1_hint(),
        )
    if watch.lingering is not None:
        batch, older = watch.lingering
        return not_yet(
            tr(
                "b1.lingering",
                "when batch {batch} began, the graph of batch {older} was still alive, although "
                "only the previous batch's loss may still point at a graph. So the graphs pile "
                "up while the epoch runs, and are freed only when it ends: something in the loop "
                "still points at them, as a total that adds up the loss tensors does. Detaching "
                "the result, or calling .item() on it, after the loop comes too late.",
                batch=batch,
                older=older[0],
            ),
            _b1_hint(),
        )
    if kept:
        return not_yet(
            tr(
                "b1.kept-outside",
                "after train_epoch returned, the graphs of {count} batches were still alive: "
                "something outside the result still points at them.",
                count=len(kept),
            ),
            tr("b1.kept-outside-hint", "keep only numbers from each batch, not its tensors."),
        )
    if not same_weights(weights(model), trained):
        return not_yet(
            tr(
                "b1.training-changed",
                "the model's weights after train_epoch are not those of one training step on "
                "each batch. Keep the training step as it was; change only what you add up.",
            )
        )
    value = one_number(result)
    if value is None:
        return not_yet(
            tr(
                "b1.not-a-number",
                "train_epoch returned {result}, not a number.",
                result=show(result),
            )
        )
    if not np.isclose(value, expected, rtol=1e-4, atol=1e-6):
        return not_yet(
            tr(
                "b1.wrong-value",
                "train_epoch returned {result}, but the mean loss over the epoch is "
                "{expected:.4f}. Keep the training step as it was; change only what you add up.",
                result=show(result),
                expected=expected,
            )
        )
    shown = f"{result:.4f}" if isinstance(result, float) else show(result)
    if isinstance(result, mg.Tensor):
        kind = tr("b1.kind-tensor", "a tensor that records no graph")
    elif isinstance(result, float):
        kind = tr("b1.kind-float", "a Python float")
    else:
        kind = tr("b1.kind-other", "a number")
    return solved(
        tr(
            "b1.solved",
            "train_epoch returned {result}, the epoch's mean loss, as {kind}; and while the "
            "epoch ran, no batch's graph outlived the batch after it: each was freed as soon as "
            "nothing pointed at it any more.",
            result=shown,
            kind=kind,
        )
    )


# ---- B2: weight decay between the forward pass and backward ----------------------------------


def _decay_problem() -> tuple[mg.Tensor, mg.Tensor, mg.Tensor]:
    x = mg.tensor([[1.0], [2.0], [-1.0], [0.5]])
    y = mg.tensor([[2.0], [3.5], [-2.5], [1.0]])
    w = mg.tensor([0.5], requires_grad=True)
    return w, x, y


def _decay_gradient(w: float, x: mg.Tensor, y: mg.Tensor) -> float:
    """d/dw [mean((x w - y)^2) + sum(w^2)] at `w`."""
    xs, ys = np.array(floats(x)), np.array(floats(y))
    return float(np.mean(2 * (xs * w - ys) * xs) + 2 * w)


@checked
def check_weight_decay(train_step: Callable[..., Any]) -> bool:
    """B2: `train_step(w, x, y)`: w.grad is the gradient at the weights the forward pass used,
    and w takes one SGD step and a 10 % shrink."""
    if untried(train_step, "train_step"):
        return False
    lr = 0.1
    w, x, y = _decay_problem()
    w0 = floats(w)[0]
    at_w0, at_shrunk = _decay_gradient(w0, x, y), _decay_gradient(0.9 * w0, x, y)
    given_w, _, _ = _decay_problem()
    given.function("train_step")(given_w, x, y)
    given_grad = floats(given_w.grad)[0]
    try:
        train_step(w, x, y)
    except RuntimeError as error:
        if "modified by an inplace operation" not in error_text(error):
            raise
        return not_yet(
            tr(
                "b2.version-error",
                "backward now raises 'modified by an inplace operation'. Good news: the version "
                "check caught a change of w between the forward pass and backward, the kind "
                "that .data hides. w**2 saved w for backward, and w changed in place before "
                "backward ran.",
            ),
            tr(
                "b2.version-error-hint",
                "move the shrink after loss.backward(), inside the `with mg.no_grad():` block.",
            ),
        )
    if w.grad is None:
        return not_yet(
            tr(
                "b2.no-grad",
                "after train_step, w.grad is None: backward never reached the w passed in.",
            )
        )
    grad, new = floats(w.grad)[0], floats(w)[0]
    shrunk_first = np.isclose(grad, at_shrunk, atol=1e-4)
    if np.isclose(grad, at_w0, atol=1e-4):
        used, right = w0, [w0 * 0.9 - lr * at_w0, (w0 - lr * at_w0) * 0.9]
    elif shrunk_first:
        used, right = 0.9 * w0, [0.9 * w0 - lr * at_shrunk]
    elif np.isclose(grad, given_grad, atol=1e-4):
        return not_yet(
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
    else:
        return not_yet(
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
            )
        )
    if not shrunk_first and np.isclose(new, w0 - lr * grad, atol=1e-5):
        return not_yet(
            tr(
                "b2.no-shrink",
                "the gradient is right ({grad:.4f}), but w became {new:.4f}: the w passed in "
                "took the SGD step and was not shrunk (w = w * 0.9 would make a new tensor and "
                "leave it as it is). Keep the weight decay on w itself, after backward.",
                grad=grad,
                new=new,
            )
        )
    if not any(np.isclose(new, r, atol=1e-5) for r in right):
        return not_yet(
            tr(
                "b2.wrong-update",
                "the gradient is right ({grad:.4f}), but w became {new:.4f}; one SGD step "
                "(lr = 0.1) and one 10 % shrink give {right}.",
                grad=grad,
                new=new,
                right=" / ".join(f"{r:.4f}" for r in right),
            )
        )
    praise = tr(
        "b2.solved",
        "w.grad = {grad:.4f} is the gradient at the weights the forward pass used "
        "(w = {used:g}), and w moved to {new:.4f}: nothing changed w between the forward "
        "pass and backward.",
        grad=grad,
        used=used,
        new=new,
    )
    if w._version < 2:
        praise += " " + tr(
            "b2.solved-uncounted",
            "(w._version is {version}, not 2: a change through .data is not counted. Where it "
            "is now that is harmless, but between the forward pass and backward it gives the "
            "silently wrong gradient you started from; under no_grad the version check would "
            "raise instead.)",
            version=w._version,
        )
    return solved(praise)


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
        if "does not require grad" not in error_text(error):
            raise
        if all(name is not None for validation, name in watch.passes if not validation):
            return not_yet(
                tr(
                    "b6.loss-cut",
                    "loss.backward() raises 'element 0 of tensors does not require grad and "
                    "does not have a grad_fn': the training forward pass recorded its graph, "
                    "but the loss backward was called on had been cut from it (by detach(), "
                    ".data or .item()).",
                ),
                tr("b6.loss-cut-hint", "call backward on the loss as F.mse_loss returns it."),
            )
        return not_yet(
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
    if not mg.is_grad_enabled():
        return not_yet(
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
    if recorded is not None:
        step, name = recorded
        return not_yet(
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
    got = floats(first(losses, len(expected) + 1))
    say(
        tr(
            "b6.losses",
            "Your validation losses: {mine}   expected: {right}",
            mine=rounded(got),
            right=rounded(expected),
        )
    )
    if len(got) != len(expected):
        return not_yet(
            tr(
                "b6.count",
                "expected {expected} validation losses, one after each step, got {got}.",
                expected=len(expected),
                got=len(got),
            )
        )
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-6):
        if np.allclose(got, _reference_fit(validate_first=True), rtol=1e-4, atol=1e-6):
            return not_yet(
                tr(
                    "b6.before-step",
                    "these are the validation losses before each step; the exercise logs "
                    "them after each step.",
                )
            )
        return not_yet(
            tr(
                "b6.wrong-values",
                "the validation losses differ from training on every batch and validating "
                "after each step. Keep the loop as it was; change only where recording is on "
                "or off.",
            )
        )
    return solved(
        tr(
            "b6.solved",
            "each training step recorded its graph and backward used it, and each validation "
            "pass ran without one: model(val_x) came back without a grad_fn. no_grad where no "
            "gradient is needed; recording on (outside no_grad, or inside enable_grad) where "
            "backward must run.",
        )
    )
