"""An input changed in place after an op used it, then backward: torch's outcome, op by op.

torch refuses (a version error) exactly where the op's backward reads the changed value: a
saved input or output. Where nothing was saved the gradient comes out as if nothing happened.
A view of the changed tensor gets a new grad_fn (AsStridedBackward0), except one of several
views (unbind, split) or a custom Function's, which torch refuses with its own message. Each
op runs on non-leaf inputs `a` and `b`; one of them is changed with `add_(1)` after the op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import minigrad

from .conftest import error_of, plain

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def ops(lib: Any, a: Any, b: Any) -> dict[str, Callable[[], Any]]:
    """name -> the op on `a` (and `b`)."""
    functional = lib.nn.functional
    mask = lib.tensor([[True, False, True], [False, True, False]])
    return {
        "a.gather(1, index)": lambda: a.gather(1, lib.tensor([[0, 2], [1, 0]])),
        "a.masked_fill(mask, 0.0)": lambda: a.masked_fill(mask, 0.0),
        "a[mask]": lambda: a[mask],
        "a[[1, 0]]": lambda: a[[1, 0]],
        "a[0, [1, 2]]": lambda: a[0, [1, 2]],
        "cross_entropy": lambda: functional.cross_entropy(a, lib.tensor([0, 2])),
        "nll_loss": lambda: functional.nll_loss(a, lib.tensor([0, 2])),
        "where(mask, a, b)": lambda: lib.where(mask, a, b),
        "a.clamp(b, b + 1)": lambda: a.clamp(b, b + 1),
        "maximum(a, b)": lambda: lib.maximum(a, b),
        "a.abs()": lambda: a.abs(),
        "relu": lambda: functional.relu(a),
        "linear(a, b)": lambda: functional.linear(a, b),
        "a @ b.T": lambda: a @ b.T,
        "a.max(1)": lambda: a.max(1)[0],
        "a.prod()": lambda: a.prod(),
        "a.std()": lambda: a.std(),
        "a.norm()": lambda: a.norm(),
        "a.exp()": lambda: a.exp(),
        "a.sigmoid()": lambda: a.sigmoid(),
        "a ** 2": lambda: a**2,
        "a ** b": lambda: a**b,
        "2 ** a": lambda: 2**a,
        "a / b": lambda: a / b,
        "a.softmax(1)": lambda: a.softmax(1),
        "mse_loss": lambda: functional.mse_loss(a, b),
        "embedding": lambda: functional.embedding(lib.tensor([1, 0]), a),
        "cat": lambda: lib.cat([a, b]),
        "a.view(6)": lambda: a.view(6),
        "a[:1].expand(2, 3)": lambda: a[:1].expand(2, 3),
        "a.unbind(0)[0]": lambda: a.unbind(0)[0],
        "a.split(1)[1]": lambda: a.split(1)[1],
        "a + b": lambda: a + b,
        "a * 2": lambda: a * 2,
    }


CASES = [(op, changed) for op in ops(minigrad, None, None) for changed in ("a", "b")]


@pytest.mark.parametrize(("op", "changed"), CASES)
def test_backward_after_an_input_changed_in_place(
    parity: Callable[..., None], op: str, changed: str
) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        a0 = lib.tensor([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]], requires_grad=True)
        b0 = lib.tensor([[0.25, 0.5, 0.75], [0.1, 0.2, 0.9]], requires_grad=True)
        a, b = a0 * 1, b0 * 1
        out = ops(lib, a, b)[op]()
        (a if changed == "a" else b).add_(1)
        weights = lib.arange(1.0, out.numel() + 1).reshape(out.shape)
        note("backward", error_of(lambda: (out * weights).sum().backward()))
        note("grads", [plain(a0.grad), plain(b0.grad)])

    parity(script)
