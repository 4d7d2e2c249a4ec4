"""The graph an op records, node by node, as torch's: matmul's choice between mm, mv and bmm,
`linear`'s fused and unfused forms, `reshape` of a view, `where`'s edges.

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

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def nodes(result: Any) -> list[tuple[str, list[str | None]]]:
    """Every node reachable from `result.grad_fn`, depth first, each once."""
    seen: set[int] = set()
    found = []

    def visit(node: Any) -> None:
        if node is None or id(node) in seen:
            return
        seen.add(id(node))
        found.append(
            (type(node).__name__, [m and type(m).__name__ for m, _ in node.next_functions])
        )
        for next_node, _ in node.next_functions:
            visit(next_node)

    visit(result.grad_fn)
    return found


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
    }


@pytest.mark.parametrize("name", list(expressions(minigrad)))
def test_op_records_torchs_graph(parity: Callable[..., None], name: str) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        result, leaves = expressions(lib)[name]()
        note("nodes", nodes(result))
        note("shape", list(result.shape))
        note("_version", result._version)
        note("values", result.detach().numpy().copy())
        result.sum().backward()
        for index, tensor in enumerate(leaves):
            note(f"grad {index}", tensor.grad.numpy().copy())

    parity(script)
