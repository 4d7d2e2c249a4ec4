"""The graph an op records, node by node, as torch's: matmul's choice between mm, mv and bmm,
`linear`'s fused and unfused forms, `reshape` of a view, `where`'s edges; and the graph
`create_graph=True` records for each one's gradients (a product's gradient follows its input's
layout: `(grad.t() @ x).t()` for linear's `weight.t()`, as torch's mm_mat2_backward).

For each expression: every node reachable from the result (class name and the class names of
its `next_functions`, in order), the result's shape, `_version` and values, and the leaves'
gradients after `backward`. A learner who prints `next_functions` or draws the graph sees
torch's graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import minigrad

from .conftest import graph_nodes

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def leaf(lib: Any, shape: tuple[int, ...], requires_grad: bool = True, shift: float = 0) -> Any:
    values = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape) + shift
    return lib.tensor(values, requires_grad=requires_grad)


def expressions(lib: Any) -> dict[str, Callable[[], tuple[Any, list[Any]]]]:
    """name -> a function giving (result, leaves)."""
    functional = lib.nn.functional

    def matmul(a_shape: tuple, b_shape: tuple, a_grad: bool = True, b_grad: bool = True):
        def run() -> tuple[Any, list[Any]]:
            a, b = leaf(lib, a_shape, a_grad), leaf(lib, b_shape, b_grad, shift=0.5)
            return a @ b, [t for t in (a, b) if t.requires_grad]

        return run

    def linear(x_shape: tuple, bias_shape: tuple | None, view: Callable = lambda x: x):
        def run() -> tuple[Any, list[Any]]:
            x, w = leaf(lib, x_shape), leaf(lib, (5, 4), shift=0.25)
            bias = None if bias_shape is None else leaf(lib, bias_shape, shift=-0.5)
            out = functional.linear(view(x), w, bias)
            return out, [t for t in (x, w, bias) if t is not None]

        return run

    def reshaped(make: Callable[[Any], Any]):
        def run() -> tuple[Any, list[Any]]:
            a = leaf(lib, (4, 6))
            return make(a), [a]

        return run

    def product(left: Callable[[Any], Any], right: Callable[[Any], Any], shapes: tuple):
        def run() -> tuple[Any, list[Any]]:
            a, b = leaf(lib, shapes[0]), leaf(lib, shapes[1], shift=0.5)
            return left(a) @ right(b), [a, b]

        return run

    def where() -> tuple[Any, list[Any]]:
        a, b = leaf(lib, (2, 3)), leaf(lib, (3,), shift=1.0)
        return lib.where(a > 0, a * a, b), [a, b]

    return {
        "(2, 3, 4) @ (4, 5)": matmul((2, 3, 4), (4, 5)),
        "(2, 3, 4) @ (4, 5), right without grad": matmul((2, 3, 4), (4, 5), b_grad=False),
        "(2, 3, 4) @ (4,)": matmul((2, 3, 4), (4,)),
        "(3, 4) @ (2, 4, 5)": matmul((3, 4), (2, 4, 5)),
        "(3, 4) @ (2, 4, 5), left without grad": matmul((3, 4), (2, 4, 5), a_grad=False),
        "(4,) @ (2, 4, 5)": matmul((4,), (2, 4, 5)),
        "(2, 3, 4) @ (2, 4, 5)": matmul((2, 3, 4), (2, 4, 5)),
        "(2, 2, 3, 4) @ (4, 5)": matmul((2, 2, 3, 4), (4, 5)),
        "(0, 3, 4) @ (4, 5), right without grad": matmul((0, 3, 4), (4, 5), b_grad=False),
        "linear (4,) with bias": linear((4,), (5,)),
        "linear (4,) without bias": linear((4,), None),
        "linear (2, 3, 4) with bias": linear((2, 3, 4), (5,)),
        "linear (2, 3, 4) without bias": linear((2, 3, 4), None),
        "linear (2, 2, 3, 4) without bias": linear((2, 2, 3, 4), None),
        "linear of a transposed (2, 3, 4), with bias": linear(
            (3, 2, 4), (5,), lambda x: x.transpose(0, 1)
        ),
        "linear (2, 3, 4) with a 0-d bias": linear((2, 3, 4), ()),
        "a[:, :4].reshape(2, 2, 4)": reshaped(lambda a: a[:, :4].reshape(2, 2, 4)),
        "a[:, :1].flatten()": reshaped(lambda a: a[:, :1].flatten()),
        "a.reshape(24)": reshaped(lambda a: a.reshape(24)),
        "a.T.reshape(24)": reshaped(lambda a: a.T.reshape(24)),
        "where(a > 0, a * a, b)": where,
        "a @ b.T": product(lambda a: a, lambda b: b.T, ((3, 4), (5, 4))),
        "a.T @ b": product(lambda a: a.T, lambda b: b, ((4, 3), (4, 5))),
        "column-major a @ b": product(lambda a: a.T.contiguous().T, lambda b: b, ((3, 4), (4, 5))),
        "a.t() @ b.t()": product(lambda a: a.t(), lambda b: b.t(), ((4, 3), (5, 4))),
    }


@pytest.mark.parametrize("name", list(expressions(minigrad)))
def test_op_records_torchs_graph(parity: Callable[..., None], name: str) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        result, leaves = expressions(lib)[name]()
        note("nodes", graph_nodes(result))
        note("shape", list(result.shape))
        note("_version", result._version)
        note("values", result.detach().numpy().copy())
        result.sum().backward()
        for index, tensor in enumerate(leaves):
            note(f"grad {index}", tensor.grad.numpy().copy())

    parity(script)


@pytest.mark.parametrize("name", list(expressions(minigrad)))
def test_gradient_graph_is_torchs(parity: Callable[..., None], name: str) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        result, leaves = expressions(lib)[name]()
        grads = lib.autograd.grad((result * result).sum(), leaves, create_graph=True)
        for index, grad in enumerate(grads):
            note(f"grad {index} nodes", graph_nodes(grad))
            note(f"grad {index} contiguous", grad.is_contiguous())
            note(f"grad {index}", grad.detach().numpy().copy())

    parity(script)
