"""The graphs themselves: the same program drawn from torch and from minigrad has the same
structure, node for node.

Each program (the ones notebooks 09 and 10 draw, written once against `lib`) is read with
`minigrad.viz.snapshot`, which reads torch's graphs too (minigrad/viz/readers.py). Compared:
every function node's class name, its inputs (`next_functions`, with the `None` slots) and the
names of the values it saved, the tensors drawn, and the number of arrows. A graph recorded by
`create_graph=True` must be made of torch's nodes, not only give torch's values.
"""

from __future__ import annotations

from typing import Any

import pytest

import minigrad
from minigrad import viz

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def structure(snapshot: Any) -> dict[str, Any]:
    """What must match: the nodes by label, with their inputs and saved slots; the counts."""
    labels = {function.key: function.label for function in snapshot.functions}
    labels.update({tensor.key: tensor.name for tensor in snapshot.tensors})
    functions = {
        function.label: (
            [None if key is None else labels[key] for key in function.inputs],
            sorted(snapshot.by_key(key).slot for key in function.saved),
        )
        for function in snapshot.functions
    }
    return {
        "functions": functions,
        "tensors": sorted(tensor.name for tensor in snapshot.tensors),
        "nodes": len(snapshot.tensors) + len(snapshot.functions) + len(snapshot.saved),
        "edges": len(snapshot.edges),
    }


def hook_versus_detach(lib: Any) -> list[Any]:
    """Notebook 09: loss = (x * 3 + b).sum() with b = x * 2 stopped by a hook, or detached."""
    snapshots = []
    for tool in ("hook", "detach()"):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = x * 2
        if tool == "hook":
            b.register_hook(lambda grad: grad * 0)
        else:
            b = b.detach()
        loss = (x * 3 + b).sum()
        snapshots.append(viz.snapshot(loss, names=dict(x=x, b=b, loss=loss)))
    return snapshots


def gradient_of_a_gradient(lib: Any) -> list[Any]:
    """Notebook 10: g = d/dx sum(x ** 3), recorded with create_graph=True."""
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = lib.autograd.grad((x**3).sum(), x, create_graph=True)
    return [viz.snapshot(g, names=dict(x=x, g=g))]


def maml(lib: Any) -> list[Any]:
    """Notebook 10: one inner step of MAML, full (through g) and first-order (g detached)."""

    def task_loss(w: Any, x: float, y: float) -> Any:
        return (w * x - y) ** 2

    snapshots = []
    for first_order in (False, True):
        w = lib.tensor(0.5, requires_grad=True)
        (g,) = lib.autograd.grad(task_loss(w, 2.0, 4.0), w, create_graph=True)
        if first_order:
            g = g.detach()
        w_fast = w - 0.1 * g
        outer = task_loss(w_fast, 1.5, 3.0)
        snapshots.append(viz.snapshot(outer, names=dict(w=w, g=g, w_fast=w_fast, outer=outer)))
    return snapshots


def second_backward_through_accumulation(lib: Any) -> list[Any]:
    """backward(create_graph=True): a leaf's first .grad is a recorded copy (CopyBackwards)."""
    x = lib.tensor([0.5, -1.0], requires_grad=True)
    y = lib.tensor([2.0, 0.25], requires_grad=True)
    (x * y + x**2).sum().backward(create_graph=True)
    grad = x.grad
    x.grad = y.grad = None
    return [viz.snapshot(grad, names=dict(x=x, y=y, grad=grad))]


PROGRAMS = [hook_versus_detach, gradient_of_a_gradient, maml, second_backward_through_accumulation]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_graph_has_torchs_structure(program):
    expected = [structure(s) for s in program(torch)]
    actual = [structure(s) for s in program(minigrad)]
    assert actual == expected


def test_gradient_of_a_gradient_is_torchs_chain():
    """GUIDE §12: g's grad_fn is MulBackward0 with inputs [None, MulBackward1], then
    PowBackward0, then AccumulateGrad."""
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = minigrad.autograd.grad((x**3).sum(), x, create_graph=True)
    first = g.grad_fn
    assert type(first).__name__ == "MulBackward0"
    assert [n and type(n).__name__ for n, _ in first.next_functions] == [None, "MulBackward1"]
    second = first.next_functions[1][0]
    assert [type(n).__name__ for n, _ in second.next_functions] == ["PowBackward0"]
    third = second.next_functions[0][0]
    assert [type(n).__name__ for n, _ in third.next_functions] == ["AccumulateGrad"]


def graph_desc(fn: Any) -> str:
    """The graph below `fn` by the class names of its nodes (test_autograd.py's helper)."""
    if fn is None:
        return "None"
    return f"{type(fn).__name__}({', '.join(graph_desc(n) for n, _ in fn.next_functions)})"


# ops whose first gradients, recorded by create_graph=True, must be torch's graph
RECORDED_FORMULAS = {
    "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b,
    "sub": lambda L, a, b: a - b,
    "neg": lambda L, a, b: -a * a,
    "pow": lambda L, a, b: a**3,
    "exp": lambda L, a, b: a.exp(),
    "log": lambda L, a, b: (a * a).log(),
    "sqrt": lambda L, a, b: (a * a).sqrt(),
    "sigmoid": lambda L, a, b: a.sigmoid(),
    "tanh": lambda L, a, b: a.tanh(),
    "relu": lambda L, a, b: a.relu(),
    "mean": lambda L, a, b: (a * a).mean(),
    "sum-dim": lambda L, a, b: (a * a).sum(0),
    "mm": lambda L, a, b: a.reshape(1, 3) @ b.reshape(3, 1),
}


@pytest.mark.parametrize("name", RECORDED_FORMULAS)
def test_recorded_gradient_has_torchs_nodes(name):
    def graphs(lib: Any) -> list[str]:
        a = lib.tensor([0.5, 1.5, 2.0], requires_grad=True)
        b = lib.tensor([1.0, -0.5, 0.25], requires_grad=True)
        y = RECORDED_FORMULAS[name](lib, a, b).sum()
        grads = lib.autograd.grad(y, (a, b), create_graph=True, allow_unused=True)
        return ["unused" if g is None else graph_desc(g.grad_fn) for g in grads]

    assert graphs(minigrad) == graphs(torch)
