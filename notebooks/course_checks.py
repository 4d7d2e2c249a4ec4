"""Automatic checks for notebook 10 (exercises): friendly, specific feedback, never an exception.

Each `check_*` function takes the learner's answer (a prediction, or the function they repaired),
runs the scenario itself with minigrad and prints what it found and why: "Well done! ..." when
the exercise is solved, otherwise "Not yet: ..." with a hint. It returns None (so a check cell
shows only the printed feedback) and never raises, so the exercises notebook runs top to bottom
in any state.

How a check protects itself from the learner's code:

- it runs in a worker thread and the check waits at most `TIME_LIMIT` seconds, so an endless
  loop (or an endless iterable handed back) ends in a "Not yet" instead of a hung cell. Python
  cannot stop a thread from outside (signals only reach the main thread), so a timed-out answer
  may go on running in the background until the kernel is restarted; the message says so;
- anything raised inside, `SystemExit` from `exit()` included, becomes a message; only
  `KeyboardInterrupt` (the learner pressing stop) is passed on;
- learner objects are printed through `_show`, which survives a failing `__str__`/`__repr__`;
- the scenario runs with grad mode enabled, whatever the notebook's mode is, and the caller's
  mode is restored afterwards (a learner's `set_grad_enabled(False)` leaks in neither direction).

The checks seed minigrad's generator (`minigrad.manual_seed`) so their numbers are reproducible.
"""

from __future__ import annotations

import functools
import itertools
import textwrap
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim, viz

__all__ = [
    "TIME_LIMIT",
    "check_data_zero",
    "check_detach_inplace",
    "check_eval_loop",
    "check_gan_d_step",
    "check_loss_accumulation",
    "check_new_leaf",
    "check_numpy_error",
    "check_tbptt",
    "check_version",
    "check_weight_decay",
    "check_weight_log",
]

WIDTH = 96
TIME_LIMIT = 10.0  # seconds one check may take, the learner's code included
_SHOW_LIMIT = 200  # characters of a learner's value shown in a message

# Feedback is collected per worker thread and printed by the thread that called the check: a
# notebook shows output reliably only from the thread that runs the cell.
_feedback = threading.local()


def _say(text: str) -> None:
    """Print one feedback paragraph, wrapped for the notebook."""
    lines = [textwrap.fill(p, WIDTH) if p else "" for p in text.strip().split("\n")]
    collected = getattr(_feedback, "lines", None)
    if collected is None:
        print("\n".join(lines))
    else:
        collected.extend(lines)


def _show(value: Any) -> str:
    """repr(value) for a message, shortened; never raises, even if the object's repr does."""
    try:
        text = repr(value)
    except BaseException:  # noqa: BLE001 - a learner's __repr__ may fail in any way
        try:
            text = f"<{type(value).__name__} object whose repr() fails>"
        except BaseException:  # noqa: BLE001
            text = "<an object whose repr() fails>"
    if not isinstance(text, str):
        text = "<an object whose repr() is not a string>"
    return text if len(text) <= _SHOW_LIMIT else text[: _SHOW_LIMIT - 3] + "..."


def _describe_error(error: BaseException) -> str:
    """'TypeName: message' for an exception, even when its __str__ fails."""
    try:
        message = str(error)
    except BaseException:  # noqa: BLE001
        message = "(its message cannot be printed: str() of it fails)"
    if not isinstance(message, str):
        message = "(its message is not a string)"
    if len(message) > 2 * _SHOW_LIMIT:
        message = message[: 2 * _SHOW_LIMIT - 3] + "..."
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _message(error: BaseException) -> str:
    """str(error) for matching known errors; '' when it cannot be had."""
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001
        return ""
    return text if isinstance(text, str) else ""


def _solved(text: str) -> bool:
    # No automatic capitalisation: many messages start with code (`detach()`, `w.grad`).
    _say("Well done! " + text)
    return True


def _not_yet(text: str, hint: str | None = None) -> bool:
    _say("Not yet: " + text + (f"\nHint: {hint}" if hint else ""))
    return False


def _cancel_exit_request() -> bool:
    """Undo IPython's exit(): in a kernel it does not raise, it asks the kernel to stop."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or not getattr(shell, "exit_now", False):
        return False
    shell.exit_now = False
    payloads = getattr(getattr(shell, "payload_manager", None), "_payload", None)
    if isinstance(payloads, list):
        payloads[:] = [p for p in payloads if p.get("source") != "ask_exit"]
    return True


def _never_raises(check: Callable[..., bool]) -> Callable[..., None]:
    """Run a check time-boxed in a worker thread with grad mode on; print its feedback only."""

    @functools.wraps(check)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        caller_mode = mg.is_grad_enabled()
        lines: list[str] = []
        interrupted: list[BaseException] = []

        def work() -> None:
            _feedback.lines = lines
            try:
                mg.set_grad_enabled(True)  # the scenarios need recording, whatever the caller did
                check(*args, **kwargs)
            except KeyboardInterrupt as stop:
                interrupted.append(stop)
            except SystemExit:
                _not_yet(
                    "your code called exit() (or sys.exit()), which would stop the kernel.",
                    "remove that call, run the cell again, then re-run this check.",
                )
            except BaseException as error:  # noqa: BLE001 - report anything the code raises
                _not_yet(
                    f"running your code raised {_describe_error(error)}",
                    "read the message, fix the cell above, run it again, then re-run this check.",
                )

        worker = threading.Thread(target=work, name=f"course_checks.{check.__name__}")
        worker.daemon = True  # a runaway answer must not keep the kernel from shutting down
        worker.start()
        worker.join(TIME_LIMIT)
        finished = not worker.is_alive()
        mg.set_grad_enabled(caller_mode)
        exit_requested = _cancel_exit_request()
        for line in list(lines):
            print(line)
        if not finished:
            _say(
                f"Not yet: the check stopped waiting after {TIME_LIMIT:g} s; your code (or "
                "something it returned, such as an endless generator) did not finish. It may go "
                "on running in the background: restart the kernel if the notebook gets slow."
                "\nHint: look for a loop that never ends."
            )
        if exit_requested and not any("exit()" in line for line in lines):
            _say("Not yet: your code called exit(), which would stop the kernel. Remove it.")
        if interrupted:
            raise interrupted[0]

    return wrapper


def _first(iterable: Any, count: int) -> list[Any]:
    """At most `count` items of `iterable` (an endless generator cannot hang the check)."""
    return list(itertools.islice(iter(iterable), count))


def _floats(values: Any) -> list[float]:
    """A tensor, array, list or number as a flat list of Python floats."""
    if isinstance(values, mg.Tensor):
        values = values.detach().numpy()
    return [float(v) for v in np.asarray(values, dtype=float).ravel()]


def _letter(prediction: Any) -> str | None:
    if isinstance(prediction, str) and prediction.strip().upper() in ("A", "B", "C"):
        return prediction.strip().upper()
    return None


def _unanswered(prediction: Any, example: str) -> bool:
    if prediction is None or prediction is Ellipsis:
        _say(
            f"No answer yet: replace `None` in the cell above with your prediction ({example}), "
            "run that cell, then run this one."
        )
        return True
    return False


# --------------------------------------------------------------------------------------------
# Predict, then run
# --------------------------------------------------------------------------------------------


@_never_raises
def check_version(prediction: Any) -> bool:
    """Q1: `c = out.detach(); c.mul_(2)`: what is `out._version` afterwards?"""
    if _unanswered(prediction, "a whole number such as 0"):
        return False
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    c.mul_(2)
    actual = out._version
    _say(f"Ran it: out._version is {actual} (and c._version is {c._version}).")
    if isinstance(prediction, str):
        return _not_yet(
            f"your prediction {_show(prediction)} is text. Write the number without quotes.",
            "e.g. prediction_a1 = 0",
        )
    if isinstance(prediction, float) and prediction.is_integer():
        prediction = int(prediction)  # 1.0 means 1
    if isinstance(prediction, bool) or not isinstance(prediction, (int, np.integer)):
        return _not_yet(
            f"your prediction {_show(prediction)} is not a whole number.",
            "write e.g. prediction_a1 = 0",
        )
    if prediction == actual:
        return _solved(
            "detach() gives a new tensor that shares out's memory AND its version counter, so an "
            "in-place change through c is counted on out too. That is how backward notices it."
        )
    if prediction == 0:
        return _not_yet(
            "out._version is 1, not 0. c is a different object, but it shares out's version "
            "counter (only .data gets a fresh one), so c.mul_(2) bumps both.",
            "notebook 04, section 2.",
        )
    return _not_yet(
        f"out._version is {actual}, not {_show(prediction)}: one in-place operation adds "
        "exactly one, and c shares out's counter.",
        "count the in-place operations, and ask who shares the counter.",
    )


@_never_raises
def check_numpy_error(prediction: Any) -> bool:
    """Q2: `x` requires grad. Which raises: A x.detach().numpy(), B x.numpy(), C x.tolist()?"""
    if _unanswered(prediction, 'a letter: "A", "B" or "C"'):
        return False
    letter = _letter(prediction)
    if letter is None:
        return _not_yet(f"{_show(prediction)} is not one of the letters A, B, C.", 'e.g. "A"')
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    outcomes = {}
    for key, action in (
        ("A", lambda: x.detach().numpy()),
        ("B", lambda: x.numpy()),
        ("C", lambda: x.tolist()),
    ):
        try:
            action()
            outcomes[key] = "runs"
        except RuntimeError as error:
            outcomes[key] = f"raises {_describe_error(error)}"
    for key, label in (("A", "x.detach().numpy()"), ("B", "x.numpy()"), ("C", "x.tolist()")):
        _say(f"Ran it: {key} {label:20} {outcomes[key]}")
    if letter == "B":
        return _solved(
            "numpy() refuses a tensor that requires grad, because the array would let you change "
            "it with no record in the graph. detach() first makes the intent explicit; tolist() "
            "copies the numbers into Python floats, so it is allowed."
        )
    if letter == "C":
        return _not_yet(
            "tolist() works: it copies the values into plain Python numbers, which cannot change "
            "the tensor. The refusal is about handing out an array that shares memory.",
            "which of the three would give you memory you could write into?",
        )
    return _not_yet(
        "x.detach().numpy() is the recommended fix, and it runs. The error comes from calling "
        "numpy() directly on a tensor that requires grad.",
        "which of the three has no detach() in front of numpy()?",
    )


@_never_raises
def check_data_zero(prediction: Any) -> bool:
    """Q3: `out = a.sigmoid(); out.data.zero_(); out.sum().backward()`: what is a.grad?"""
    if _unanswered(prediction, 'a letter: "A", "B" or "C"'):
        return False
    letter = _letter(prediction)
    if letter is None:
        return _not_yet(f"{_show(prediction)} is not one of the letters A, B, C.", 'e.g. "A"')
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.data.zero_()
    out.sum().backward()
    _say(f"Ran it: no error, a.grad = {a.grad}  (the correct gradient is [0.1966, 0.1050, 0.0452])")
    if letter == "B":
        return _solved(
            "SigmoidBackward0 computes the gradient from the saved output, which .data.zero_() "
            "overwrote. .data has its own version counter, so out._version stayed 0 and backward "
            "could not tell: a silently wrong gradient. Through detach() it would have raised."
        )
    if letter == "A":
        return _not_yet(
            "no error is raised. The same change through out.detach() would raise, because the "
            "detached tensor shares out's version counter; out.data does not, so the check is "
            "blind.",
            "notebook 04, sections 4 and 5.",
        )
    return _not_yet(
        "the gradient is not the correct one: sigmoid's backward reads the saved output out, "
        "and you zeroed it in place.",
        "which value does SigmoidBackward0 multiply with?",
    )


@_never_raises
def check_new_leaf(prediction: Any) -> bool:
    """Q4: `c = out.detach().requires_grad_(True); (c * 3).sum().backward()`: who has a .grad?"""
    if _unanswered(prediction, 'a set of names such as {"a", "out"}'):
        return False
    if isinstance(prediction, str):
        prediction = [prediction]
    try:
        names = {str(name).strip() for name in _first(prediction, 10)}
    except TypeError:
        return _not_yet(f"{_show(prediction)} is not a set of names.", 'e.g. prediction_a4 = {"a"}')
    unknown = names - {"a", "out", "c"}
    if unknown:
        return _not_yet(f"unknown name(s) {sorted(unknown)}: choose among a, out, c.")
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach().requires_grad_(True)
    (c * 3).sum().backward()
    found = {"a": a._grad, "out": out._grad, "c": c._grad}
    _say("Ran it: " + ", ".join(f"{k}.grad = {v}" for k, v in found.items()))
    if names == {"c"}:
        return _solved(
            "c is a new leaf that requires grad, so it gets its own .grad. The graph built from c "
            "has no edge back to out or a, so they receive nothing (and out, a non-leaf, would "
            "not keep a .grad anyway without retain_grad())."
        )
    if "c" not in names:
        return _not_yet(
            "c does get a gradient: after requires_grad_(True) a detached tensor is a new leaf "
            "(the popular claim that it 'can never have a gradient' is wrong, notebook 09).",
        )
    return _not_yet(
        "a and out get nothing: the new graph starts at c, and detach() left no edge back to "
        "the old one.",
        "draw it: viz.draw((c * 3).sum(), names=dict(a=a, out=out, c=c)).",
    )


@_never_raises
def check_detach_inplace(prediction: Any) -> bool:
    """Q5: `b = a * 2; s = b.sum(); b.detach_(); s.backward()`: what happens to a.grad?"""
    if _unanswered(prediction, 'a letter: "A", "B" or "C"'):
        return False
    letter = _letter(prediction)
    if letter is None:
        return _not_yet(f"{_show(prediction)} is not one of the letters A, B, C.", 'e.g. "A"')
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    s = b.sum()
    b.detach_()
    s.backward()
    _say(f"Ran it: no error, a.grad = {a.grad}; b is now a leaf: b.grad_fn = {b.grad_fn}")
    if letter == "C":
        return _solved(
            "detach_() changed the tensor b (it is now a leaf that does not require grad), but "
            "SumBackward0 recorded its edge to MulBackward0 before that. Backward follows the "
            "recorded edges, so the gradient 2 still reaches a."
        )
    if letter == "A":
        return _not_yet(
            "there is no error. detach_() only refuses views; on b it works, and s was built "
            "before the call.",
            "notebook 03, section 'Edges recorded earlier survive'.",
        )
    return _not_yet(
        "a.grad is not None: detach_() cuts b off from what comes after, not the edges that "
        "s = b.sum() recorded before it.",
        "draw s before and after: viz.cut(lambda: b.detach_(), s).",
    )


# --------------------------------------------------------------------------------------------
# Broken training loops
# --------------------------------------------------------------------------------------------


def _regression_batches(count: int = 4) -> list[tuple[mg.Tensor, mg.Tensor]]:
    rng = np.random.default_rng(0)
    batches = []
    for _ in range(count):
        x = rng.normal(size=(8, 2)).astype(np.float32)
        y = (x @ np.array([[1.5], [-2.0]]) + 0.5).astype(np.float32)
        batches.append((mg.from_numpy(x), mg.from_numpy(y)))
    return batches


def _reference_epoch(model: nn.Module, opt: optim.Optimizer, batches: list) -> float:
    total = 0.0
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(batches)


def _fresh_regression() -> tuple[nn.Module, optim.Optimizer]:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    return model, optim.SGD(model.parameters(), lr=0.05)


@_never_raises
def check_loss_accumulation(train_epoch: Callable[..., Any]) -> bool:
    """Loop 1: `train_epoch(model, opt, batches)` returns the mean loss and keeps no graph."""
    batches = _regression_batches()
    model, opt = _fresh_regression()
    expected = _reference_epoch(model, opt, batches)
    model, opt = _fresh_regression()
    result = train_epoch(model, opt, batches)
    if isinstance(result, mg.Tensor) and result.grad_fn is not None:
        kept = sum(f.name == "MseLossBackward0" for f in viz.snapshot(result).functions)
        return _not_yet(
            f"train_epoch returned {_show(result)}. It has a grad_fn, so it still points at the "
            f"graph of every batch: {kept} MseLossBackward0 nodes (one per batch) stay alive as "
            "long as the result does. Over a real epoch that is the memory leak of notebook 06.",
            "accumulate plain numbers: total += loss.item() (or loss.detach()).",
        )
    try:
        value = _floats(result)
    except (TypeError, ValueError):
        return _not_yet(f"train_epoch returned {_show(result)}, not a number.")
    if len(value) != 1 or not np.isclose(value[0], expected, rtol=1e-4, atol=1e-6):
        return _not_yet(
            f"train_epoch returned {_show(result)}, but the mean loss over the epoch is "
            f"{expected:.4f}. Keep the training step as it was; change only what you add up.",
        )
    return _solved(
        f"The mean loss {value[0]:.4f} comes back as a plain number, so each batch's graph is "
        "freed as soon as the next batch starts."
    )


def _decay_problem() -> tuple[mg.Tensor, mg.Tensor, mg.Tensor]:
    x = mg.tensor([[1.0], [2.0], [-1.0], [0.5]])
    y = mg.tensor([[2.0], [3.5], [-2.5], [1.0]])
    w = mg.tensor([0.5], requires_grad=True)
    return w, x, y


@_never_raises
def check_weight_decay(train_step: Callable[..., Any]) -> bool:
    """Loop 2: `train_step(w, x, y)` must compute the gradient at the weights the forward used."""
    w, x, y = _decay_problem()
    w0 = _floats(w)[0]
    xs, ys = _floats(x), _floats(y)
    # d/dw [mean((x w - y)^2) + sum(w^2)] at the weights of the forward pass
    right = float(np.mean([2 * (xi * w0 - yi) * xi for xi, yi in zip(xs, ys, strict=True)]))
    right += 2 * w0
    lr = 0.1
    try:
        train_step(w, x, y)
    except RuntimeError as error:
        if "modified by an inplace operation" in _message(error):
            return _not_yet(
                "backward now raises 'modified by an inplace operation'. Good news: the version "
                "check caught the early change that .data used to hide. w**2 saved w for "
                "backward, and the shrink changed it before backward ran.",
                "move the shrink after loss.backward(), inside the `with mg.no_grad():` block.",
            )
        raise
    if w.grad is None:
        return _not_yet("after train_step, w.grad is None: backward never reached w.")
    grad = _floats(w.grad)[0]
    if not np.isclose(grad, right, atol=1e-4):
        return _not_yet(
            f"w.grad is {grad:.4f}, but the gradient of the loss at the weights the forward pass "
            f"used (w = {w0}) is {right:.4f}. The w.data.mul_(0.9) ran between forward and "
            "backward, so the backward of w**2 read the shrunken w. No error, because changes "
            "through .data are not counted on w's version counter.",
            "call loss.backward() first, then shrink and step under `with mg.no_grad():`.",
        )
    new = _floats(w)[0]
    shrink_then_step = w0 * 0.9 - lr * right
    step_then_shrink = (w0 - lr * right) * 0.9
    if np.isclose(new, w0 - lr * right, atol=1e-5):
        return _not_yet(
            f"the gradient is right ({grad:.4f}), but w became {new:.4f}: the 10 % shrink is "
            "gone. Keep the weight decay, just apply it after backward.",
        )
    if not (
        np.isclose(new, shrink_then_step, atol=1e-5) or np.isclose(new, step_then_shrink, atol=1e-5)
    ):
        return _not_yet(
            f"the gradient is right ({grad:.4f}), but w became {new:.4f}; expected "
            f"{step_then_shrink:.4f} (SGD step, then shrink by 10 %).",
        )
    return _solved(
        f"w.grad = {grad:.4f} is the gradient at the weights the forward pass used, and w "
        f"moved to {new:.4f}. Updating after backward under no_grad keeps the version check "
        "on your side."
    )


def _gan(seed: int = 0) -> tuple[nn.Module, nn.Module, optim.Optimizer, mg.Tensor, mg.Tensor]:
    mg.manual_seed(seed)
    G = nn.Linear(1, 1)
    D = nn.Sequential(nn.Linear(1, 4), nn.Tanh(), nn.Linear(4, 1))
    opt_D = optim.SGD(D.parameters(), lr=0.05)
    real, z = mg.randn(16, 1) * 0.5 + 3.0, mg.randn(16, 1)
    return G, D, opt_D, real, z


@_never_raises
def check_gan_d_step(d_step: Callable[..., Any]) -> bool:
    """Loop 3: `d_step(G, D, opt_D, real, z)` returns `fake`; G must get no gradient from it."""
    G, D, opt_D, real, z = _gan()
    fake = d_step(G, D, opt_D, real, z)
    if not isinstance(fake, mg.Tensor):
        return _not_yet(f"d_step should return fake (a tensor), not {_show(fake)}.")
    if G.weight.grad is not None or G.bias.grad is not None:
        return _not_yet(
            f"after the D step, G.weight.grad is {G.weight.grad}. The discriminator's loss "
            "travelled back through fake into the generator: a gradient that helps D, sitting "
            "in G's .grad. And that backward freed G's part of the graph.",
            "give D a detached copy in the D step: D(fake.detach()).",
        )
    if not all(p.grad is not None for p in D.parameters()):
        return _not_yet("some of D's parameters have no .grad: the D step must still train D.")
    if fake.grad_fn is None:
        return _not_yet(
            "G got no gradient, but the returned fake has no grad_fn either, so the G step "
            "cannot train G through it (was it made under no_grad, or detached itself?).",
            "keep fake = G(z) as it is and detach only the copy passed to D.",
        )
    bce = nn.BCEWithLogitsLoss()
    try:
        bce(D(fake), mg.ones(16, 1)).backward()  # the G step that follows
    except RuntimeError as error:
        return _not_yet(f"the G step after your D step fails: {_describe_error(error)}")
    return _solved(
        "G has no .grad after the D step, D's parameters do, and the G step can still go back "
        f"through fake to G (G.weight.grad is now {G.weight.grad})."
    )


@_never_raises
def check_weight_log(record_weights: Callable[..., Any]) -> bool:
    """Loop 4: `record_weights(w)` must return the value of w after each of 3 SGD steps."""
    reference = []
    w = mg.tensor([0.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    for _ in range(3):
        loss = ((w - 2.0) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        reference.append(w.item())
    w = mg.tensor([0.0], requires_grad=True)
    try:
        history = record_weights(w)
    except RuntimeError as error:
        if "numpy()" in _message(error):
            return _not_yet(
                f"record_weights raised: {_message(error)} numpy() would hand out an array that "
                "shares w's memory, and w requires grad.",
                "take the values out of the graph first: w.detach().numpy().",
            )
        raise
    try:
        logged = [_floats(entry)[0] for entry in _first(history, 4)]
    except (TypeError, ValueError, IndexError):
        return _not_yet(f"record_weights returned {_show(history)}, not a list of values.")
    _say(
        f"Your log: {[round(v, 4) for v in logged]}   expected: {[round(v, 4) for v in reference]}"
    )
    if len(logged) != 3:
        return _not_yet(f"expected 3 entries, one per step, got {len(logged)}.")
    if np.allclose(logged, reference[-1]) and not np.allclose(logged, reference):
        return _not_yet(
            "every entry shows the final value. w.detach().numpy() shares memory with w, and "
            "opt.step() changes w in place, so all the arrays in your list are views of the same "
            "numbers.",
            "store a copy: w.detach().numpy().copy() (or w.item() / w.tolist()).",
        )
    if not np.allclose(logged, reference, atol=1e-6):
        return _not_yet("the logged values differ from the weights after each step.")
    return _solved("Each entry is a snapshot of w after its step, safe from later updates.")


def _sequence() -> tuple[mg.Tensor, mg.Tensor]:
    t = np.arange(31, dtype=np.float32)
    wave = np.sin(t / 3.0).astype(np.float32).reshape(-1, 1)
    return mg.from_numpy(wave[:-1].copy()), mg.from_numpy(wave[1:].copy())


def _rnn() -> tuple[nn.Module, nn.Module, optim.Optimizer]:
    mg.manual_seed(0)
    cell, readout = nn.RNNCell(1, 4), nn.Linear(4, 1)
    opt = optim.SGD([*cell.parameters(), *readout.parameters()], lr=0.1)
    return cell, readout, opt


def _reference_tbptt(chunk: int = 5) -> list[float]:
    cell, readout, opt = _rnn()
    xs, ys = _sequence()
    h = mg.zeros(1, 4)
    losses = []
    for start in range(0, xs.shape[0], chunk):
        h = h.detach()
        loss = 0.0
        for t in range(start, start + chunk):
            h = cell(xs[t : t + 1], h)
            loss = loss + F.mse_loss(readout(h), ys[t : t + 1])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@_never_raises
def check_tbptt(train_rnn: Callable[..., Any]) -> bool:
    """Loop 5: `train_rnn(cell, readout, opt, xs, ys)` trains in chunks of 5, keeping h's value."""
    expected = _reference_tbptt()
    cell, readout, opt = _rnn()
    xs, ys = _sequence()
    try:
        losses = train_rnn(cell, readout, opt, xs, ys)
    except RuntimeError as error:
        if "second time" in _message(error):
            return _not_yet(
                "the second chunk's backward fails with 'Trying to backward through the graph a "
                "second time'. h still carries the first chunk's graph, which the first "
                "backward freed.",
                "at the start of each chunk, keep h's value but drop its history: h = h.detach().",
            )
        if "modified by an inplace operation" in _message(error):
            return _not_yet(
                "with retain_graph=True the old graph survives, but opt.step() changed weights "
                "it saved, so the version check refuses. Keeping the whole past is the wrong "
                "fix anyway: memory grows with every chunk.",
                "remove retain_graph=True and cut the history instead: h = h.detach().",
            )
        raise
    got = _floats(losses)
    if len(got) != len(expected):
        return _not_yet(f"expected {len(expected)} chunk losses, got {len(got)}.")
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-6):
        return _not_yet(
            f"your loop runs, but its chunk losses {[round(v, 4) for v in got[:3]]}... differ "
            f"from truncated BPTT's {[round(v, 4) for v in expected[:3]]}... Did you restart h "
            "from zeros? detach() keeps the value of h and drops only its history.",
        )
    return _solved(
        f"All {len(got)} chunks trained; each backward stops at the start of its chunk, while "
        "the hidden state carries on from one chunk to the next."
    )


def _fit_problem() -> tuple[nn.Module, optim.Optimizer, list, mg.Tensor, mg.Tensor]:
    batches = _regression_batches()
    model, opt = _fresh_regression()
    val_x, val_y = batches[0]
    return model, opt, batches[1:], val_x, val_y


def _reference_fit() -> list[float]:
    model, opt, batches, val_x, val_y = _fit_problem()
    losses = []
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with mg.no_grad():
            losses.append(F.mse_loss(model(val_x), val_y).item())
    return losses


@_never_raises
def check_eval_loop(fit: Callable[..., Any]) -> bool:
    """Loop 6: `fit(model, opt, batches, val_x, val_y)` trains and logs each validation loss."""
    expected = _reference_fit()
    model, opt, batches, val_x, val_y = _fit_problem()
    try:
        losses = fit(model, opt, batches, val_x, val_y)
    except RuntimeError as error:
        if "does not require grad" in _message(error):
            return _not_yet(
                "loss.backward() raises 'element 0 of tensors does not require grad and does not "
                "have a grad_fn': the training step runs inside `with mg.no_grad():`, so nothing "
                "was recorded and backward has no graph to walk.",
                "keep no_grad around the validation line only, or wrap the training step in "
                "`with mg.enable_grad():`.",
            )
        raise
    if not mg.is_grad_enabled():
        return _not_yet(
            "after fit() returned, grad mode was still off: a plain set_grad_enabled(False) "
            "stays in force until it is switched back, and silently stops every later "
            "training step from recording.",
            "use `with mg.no_grad():` (it restores the mode at the end of the block).",
        )
    got = _floats(_first(losses, len(expected) + 1))
    _say(
        f"Your validation losses: {[round(v, 4) for v in got]}   "
        f"expected: {[round(v, 4) for v in expected]}"
    )
    if len(got) != len(expected):
        return _not_yet(
            f"expected {len(expected)} validation losses, one per step, got {len(got)}."
        )
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-6):
        return _not_yet(
            "the validation losses differ from training on every batch and validating after each "
            "step. Keep the loop as it was; change only where recording is on or off.",
        )
    return _solved(
        "the training step records a graph and the validation loss does not: no_grad where no "
        "gradient is needed, enable_grad (or no no_grad at all) where backward must run."
    )
