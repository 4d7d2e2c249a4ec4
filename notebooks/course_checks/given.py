"""The code exercises give to repair or complete, exactly as the learner finds it: part B's six
broken functions (notebook 12), and the hook, Function and functions of notebooks 09 and 10.

A check first compares the learner's function with the one given here (`unchanged`): the same
code means the exercise has not been tried yet, and the check says "No answer yet" instead of
giving its hints away before the learner has thought about the bug. `GIVEN_IN` names the
notebook of each; tests/course/test_course_checks.py checks that those notebooks' cells hold
exactly these sources.

The functions are kept as source text and compiled the way a notebook compiles a cell: how
Python compiles `F.mse_loss(...)` depends on whether the same file imports `F`, so a copy
written out in this module would not have the notebook's code.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim

SOURCES = {
    "train_epoch": """\
def train_epoch(model, opt, batches):
    total = 0.0
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total = total + loss
    return total / len(batches)
""",
    "train_step": """\
def train_step(w, x, y, lr=0.1):
    loss = ((x * w - y) ** 2).mean() + (w**2).sum()
    w.data.mul_(0.9)  # weight decay: shrink w by 10 %
    loss.backward()
    with mg.no_grad():
        w.sub_(lr * w.grad)
    return loss.item()
""",
    "d_step": """\
def d_step(G, D, opt_D, real, z):
    bce = nn.BCEWithLogitsLoss()
    fake = G(z)
    opt_D.zero_grad()
    loss = bce(D(real), mg.ones(16, 1)) + bce(D(fake), mg.zeros(16, 1))
    loss.backward()
    opt_D.step()
    return fake
""",
    "record_weights": """\
def record_weights(w):
    opt = optim.SGD([w], lr=0.1)
    history = []
    for _ in range(3):
        loss = ((w - 2.0) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(w.numpy())
    return history
""",
    "train_rnn": """\
def train_rnn(cell, readout, opt, xs, ys, chunk=5):
    h = mg.zeros(1, cell.hidden_size)
    losses = []
    for start in range(0, xs.shape[0], chunk):
        loss = 0.0
        for t in range(start, start + chunk):
            h = cell(xs[t : t + 1], h)
            loss = loss + F.mse_loss(readout(h), ys[t : t + 1])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
""",
    "fit": """\
def fit(model, opt, batches, val_x, val_y):
    val_losses = []
    with mg.no_grad():  # validation needs no graph ...
        for x, y in batches:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            val_losses.append(F.mse_loss(model(val_x), val_y).item())
    return val_losses
""",
    "clip_grad": """\
def clip_grad(grad):
    return grad  # replace this line
""",
    "GradientReversal": """\
class GradientReversal(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        pass  # your code: the values of x, unchanged

    @staticmethod
    def backward(ctx, grad):
        pass  # your code: -lam times grad for x; and for lam?
""",
    "gradient_penalty": """\
def gradient_penalty(w, inputs):
    out = (inputs @ w).tanh().sum()
    (g,) = mg.autograd.grad(out, inputs)
    return (g**2).sum()
""",
    "inner_step": """\
def inner_step(w, loss_fn, lr):
    (g,) = mg.autograd.grad(loss_fn(w), w)
    return w - lr * g.detach()
""",
    "make_weights": """\
def make_weights():
    w = mg.randn(3, 1, requires_grad=True) * 0.01
    b = mg.zeros(1, requires_grad=True)
    return w, b
""",
    "gate_values": """\
def gate_values(scores):
    return (scores > 0).float()
""",
}

# Where each one is given: the notebook (its stem) whose cell defines it.
GIVEN_IN = {
    "12_exercises": ("train_epoch", "train_step", "d_step", "record_weights", "train_rnn", "fit"),
    "09_hooks_and_custom_functions": ("clip_grad", "GradientReversal"),
    "10_higher_order_gradients": ("gradient_penalty", "inner_step"),
    "13_your_own_model": ("make_weights", "gate_values"),
}


@functools.cache
def function(name: str) -> Callable[..., Any]:
    """The given function (or class) `name`, compiled as its notebook cell is, with the
    notebook's names."""
    namespace = {"mg": mg, "F": F, "nn": nn, "optim": optim}
    exec(compile(SOURCES[name], f"<given {name}>", "exec"), namespace)
    return namespace[name]


def _same_code(mine: types.CodeType, given: types.CodeType) -> bool:
    """Whether two code objects do the same: same instructions, names and constants (nested
    functions and comprehensions compared the same way); file, lines and comments may differ."""
    fields = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount")
    if any(getattr(mine, f) != getattr(given, f) for f in fields):
        return False
    if len(mine.co_consts) != len(given.co_consts):
        return False
    for a, b in zip(mine.co_consts, given.co_consts, strict=True):
        if isinstance(a, types.CodeType) and isinstance(b, types.CodeType):
            if not _same_code(a, b):
                return False
        elif type(a) is not type(b) or a != b:
            return False
    return True


def _same_function(mine: Any, given: Any) -> bool:
    code = getattr(mine, "__code__", None)
    if not isinstance(code, types.CodeType):
        return False
    defaults = getattr(mine, "__defaults__", None)
    return _same_code(code, given.__code__) and defaults == given.__defaults__


def unchanged(answer: Any, name: str) -> bool:
    """Whether the learner's `answer` is still the given function `name` (a comment or a blank
    line may differ; anything that runs differently counts as a change). For a given class,
    an autograd.Function, its forward and backward are compared."""
    given = function(name)
    if not isinstance(given, type):
        return _same_function(answer, given)
    if not isinstance(answer, type):
        return False
    methods = ("forward", "backward")
    return all(_same_function(getattr(answer, m, None), getattr(given, m)) for m in methods)
