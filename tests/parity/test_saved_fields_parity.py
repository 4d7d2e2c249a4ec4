"""What a node shows as `_saved_<name>`: the same names as torch's node, and the same numbers.

A learner who types `y.grad_fn.` and presses Tab, or reads `dir(y.grad_fn)`, sees the values
the op kept for backward. For each op below, the `_saved_*` names of its grad_fn must be
torch's, and every one that is not a tensor (a dim, a size, alpha, a bound, the reduction)
must have torch's value and type: dims as given (a negative one unsigned: -1 reads
18446744073709551615), sizes as a tuple of ints.

Names torch shows that minigrad does not show yet are listed in NOT_YET with the reason; a
test checks that each is really still missing, so the list cannot go stale.

Some nodes keep an integer or boolean array of their arguments (gather's index, masked_fill's
mask, max's indices, a loss's target) or a loss's weights: torch saves those as tensors, so
backward frees them like any saved value: a second backward, or a look at `_saved_indices`
afterwards, gets torch's error (the last tests).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import minigrad

from .conftest import describe, error_of, is_tensor

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

# op -> the `_saved_*` names torch shows there that minigrad does not show yet, each with the
# reason (none left: the last were a matrix product's input strides).
NOT_YET: dict[str, set[str]] = {}

# Saved tensors compared in full (values, dtype, flags), not only by name: the ones a node keeps
# as arrays of its arguments, which minigrad turns into tensors when asked.
COMPARED_IN_FULL = (
    "_saved_index",
    "_saved_indices",
    "_saved_mask",
    "_saved_pos_weight",
    "_saved_target",
    "_saved_total_weight",
    "_saved_weight",
)


def ops(lib: Any) -> dict[str, Callable[[], Any]]:
    """The ops whose nodes are compared, on a 2 x 3 tensor made by an op (so it has a graph)."""
    a = lib.ones(2, 3, requires_grad=True) * 1.5
    b = lib.ones(2, 3, requires_grad=True) * 0.5
    functional = lib.nn.functional
    mask = lib.tensor([[True, False, True], [False, True, False]])
    target = lib.tensor([0, 2])
    return {
        "a + b": lambda: a + b,
        "add(a, b, alpha=2)": lambda: lib.add(a, b, alpha=2),
        "a.add(b, alpha=0.5)": lambda: a.add(b, alpha=0.5),
        "a - b": lambda: a - b,
        "a - 2": lambda: a - 2,
        "2 - a": lambda: 2 - a,
        "a * b": lambda: a * b,
        "a ** 2": lambda: a**2,
        "2 ** a": lambda: 2**a,
        "a ** b": lambda: a**b,
        "a.sum()": lambda: a.sum(),
        "a.sum(1)": lambda: a.sum(1),
        "a.sum(-1)": lambda: a.sum(-1),
        "a.sum((-1, 0), keepdim=True)": lambda: a.sum((-1, 0), keepdim=True),
        "a.mean()": lambda: a.mean(),
        "a.mean(-1, keepdim=True)": lambda: a.mean(-1, keepdim=True),
        "a.max()": lambda: a.max(),
        "a.min()": lambda: a.min(),
        "a.amax()": lambda: a.amax(),
        "a.amax(-1)": lambda: a.amax(-1),
        "a.amin((0, -1), keepdim=True)": lambda: a.amin((0, -1), keepdim=True),
        "a.max(1)": lambda: a.max(1)[0],
        "a.min(-1, keepdim=True)": lambda: a.min(-1, keepdim=True)[0],
        "a.prod(1)": lambda: a.prod(1),
        "a.var(1)": lambda: a.var(1),
        "a.var()": lambda: a.var(),
        "a.var(-1, unbiased=False)": lambda: a.var(-1, unbiased=False),
        "a.var(unbiased=True)": lambda: a.var(unbiased=True),
        "a.var(correction=2)": lambda: a.var(correction=2),
        "a.var((0, -1), keepdim=True)": lambda: a.var((0, -1), keepdim=True),
        "a.std()": lambda: a.std(),
        "a.std(0, correction=0.5)": lambda: a.std(0, correction=0.5),
        "a.norm()": lambda: a.norm(),
        "a.norm(1)": lambda: a.norm(1),
        "a.norm(2.0, -1)": lambda: a.norm(2.0, -1),
        "a.norm(p='fro', dim=(0, 1))": lambda: a.norm(p="fro", dim=(0, 1)),
        "a.norm(float('inf'), 1)": lambda: a.norm(float("inf"), 1),
        "a.view(3, 2)": lambda: a.view(3, 2),
        "a.t().reshape(6)": lambda: a.t().reshape(6),
        "a.flatten()": lambda: a.flatten(),
        "a[0].expand(2, -1)": lambda: a[0].expand(2, -1),
        "a.transpose(0, -1)": lambda: a.transpose(0, -1),
        "a.permute(1, 0)": lambda: a.permute(1, 0),
        "a.unsqueeze(-1)": lambda: a.unsqueeze(-1),
        "a[None].squeeze(0)": lambda: a[None].squeeze(0),
        "a[None].squeeze()": lambda: a[None].squeeze(),
        "a.select(1, -1)": lambda: a.select(1, -1),
        "a[:, 1:]": lambda: a[:, 1:],
        "a.diagonal(1)": lambda: a.diagonal(1),
        "a.diagonal(-1)": lambda: a.diagonal(-1),
        "a.repeat(1, 2, 1)": lambda: a.repeat(1, 2, 1),
        "a.split(1, 0)[0]": lambda: a.split(1, 0)[0],
        "a.unbind(0)[0]": lambda: a.unbind(0)[0],
        "a[[0, 1]]": lambda: a[[0, 1]],
        "a.clamp(0, 1)": lambda: a.clamp(0, 1),
        "a.clamp(max=1.5)": lambda: a.clamp(max=1.5),
        "a.softmax(-1)": lambda: a.softmax(-1),
        "F.log_softmax(a, 1)": lambda: functional.log_softmax(a, 1),
        "F.softmax(a, dim=0)": lambda: functional.softmax(a, dim=0),
        "a[-1]": lambda: a[-1],
        "a[0, -2]": lambda: a[0, -2],
        "a[:, -2:]": lambda: a[:, -2:],
        "a[:, :-1]": lambda: a[:, :-1],
        "a[::2]": lambda: a[::2],
        "a[None]": lambda: a[None],
        "a.narrow(-1, 1, 2)": lambda: a.narrow(-1, 1, 2),
        "a.split([1, 2], -1)[0]": lambda: a.split([1, 2], -1)[0],
        "a.chunk(2, 1)[0]": lambda: a.chunk(2, 1)[0],
        "a.unbind(-1)[0]": lambda: a.unbind(-1)[0],
        "a.diagonal(0, -1, 0)": lambda: a.diagonal(0, -1, 0),
        "a.permute(-1, 0)": lambda: a.permute(-1, 0),
        "a.T": lambda: a.T,
        "a.t()": lambda: a.t(),
        "a.prod(-1, keepdim=True)": lambda: a.prod(-1, keepdim=True),
        "F.leaky_relu(a, 0.2)": lambda: functional.leaky_relu(a, 0.2),
        "F.hardtanh(a)": lambda: functional.hardtanh(a),
        "F.hardtanh(a, -2, 2)": lambda: functional.hardtanh(a, -2, 2),
        "F.mse_loss": lambda: functional.mse_loss(a, b),
        "F.mse_loss(reduction='none')": lambda: functional.mse_loss(a, b, reduction="none"),
        "F.binary_cross_entropy": lambda: functional.binary_cross_entropy(
            a.sigmoid(), b.sigmoid(), reduction="sum"
        ),
        "F.binary_cross_entropy(weight=)": lambda: functional.binary_cross_entropy(
            a.sigmoid(), b.detach().sigmoid(), weight=lib.tensor([0.5, 1.0, 2.0])
        ),
        "F.binary_cross_entropy_with_logits": lambda: functional.binary_cross_entropy_with_logits(
            a, b.detach().sigmoid()
        ),
        "F.binary_cross_entropy_with_logits(weight=, pos_weight=)": lambda: (
            functional.binary_cross_entropy_with_logits(
                a,
                b.detach().sigmoid(),
                weight=lib.tensor([0.5, 1.0, 2.0]),
                pos_weight=lib.tensor([3.0, 1.0, 0.5]),
            )
        ),
        "cat": lambda: lib.cat([a, b], dim=-1),
        "a @ b.T": lambda: a @ b.T,
        "F.linear(a, b, bias)": lambda: functional.linear(a, b, b[:, 0]),
        # the strides each product notes: () for an input that needs no gradient
        "a.detach() @ b.T": lambda: a.detach() @ b.T,
        "a @ b.detach().T": lambda: a @ b.detach().T,
        "a.T @ b": lambda: a.T @ b,
        "a[:, ::2] @ b[:, :2].T": lambda: a[:, ::2] @ b[:, :2].T,
        "a[:1].expand(2, 3) @ b.T": lambda: a[:1].expand(2, 3) @ b.T,
        "F.linear(a.detach(), b.T.contiguous().T, b[:, 0])": lambda: functional.linear(
            a.detach(), b.T.contiguous().T, b[:, 0]
        ),
        "a[:, [0, 2]]": lambda: a[:, [0, 2]],
        "a[..., [1]]": lambda: a[..., [1]],
        "a[mask]": lambda: a[mask],
        "a[[[0], [1]], [1, 2]]": lambda: a[[[0], [1]], [1, 2]],
        "a[0, [1, 2]]": lambda: a[0, [1, 2]],
        "a.gather(-1, index)": lambda: a.gather(-1, lib.tensor([[0, 2], [1, 1]])),
        "a.masked_fill(mask, 0.0)": lambda: a.masked_fill(mask, 0.0),
        "a.masked_fill(mask, tensor)": lambda: a.masked_fill(mask, b[0, 0]),
        "F.nll_loss": lambda: functional.nll_loss(a, target),
        "F.nll_loss(weight=, ignore_index=1, 'sum')": lambda: functional.nll_loss(
            a, target, weight=lib.tensor([1.0, 2.0, 3.0]), ignore_index=1, reduction="sum"
        ),
        "F.cross_entropy": lambda: functional.cross_entropy(a, target),
        "F.embedding": lambda: functional.embedding(lib.tensor([1, 0, 1]), a),
        "F.embedding(padding_idx=-1)": lambda: functional.embedding(
            lib.tensor([1, 0, 1]), a, padding_idx=-1
        ),
    }


def saved_names(node: Any) -> list[str]:
    """The `_saved_<name>` attributes `dir()` lists for a node."""
    return sorted(name for name in dir(node) if name.startswith("_saved_"))


@pytest.mark.parametrize("op", list(ops(minigrad)))
def test_saved_fields_are_torchs(parity: Callable[..., None], op: str) -> None:
    left_out = {f"_saved_{name}" for name in NOT_YET.get(op, ())}

    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        node = ops(lib)[op]().grad_fn
        note("node", type(node).__name__)
        names = [name for name in saved_names(node) if name not in left_out]
        note("names", names)
        for name in names:
            value = getattr(node, name)
            if name in COMPARED_IN_FULL:
                note(name, (type(value).__name__, describe(value)))
            elif not is_tensor(value):
                note(name, (type(value).__name__, value))

    parity(script)


@pytest.mark.parametrize("op", sorted(NOT_YET))
def test_not_yet_is_still_missing(op: str) -> None:
    torch_names = set(saved_names(ops(torch)[op]().grad_fn))
    minigrad_names = set(saved_names(ops(minigrad)[op]().grad_fn))
    for name in NOT_YET[op]:
        assert f"_saved_{name}" in torch_names, f"{op}: torch has no _saved_{name}"
        assert f"_saved_{name}" not in minigrad_names, f"{op}: minigrad shows _saved_{name} now"


def kept_arrays(lib: Any) -> dict[str, Callable[[], Any]]:
    """Ops whose node keeps an array of its arguments, on leaves (nothing else is saved before
    them, so only what the node itself keeps can make a second backward fail)."""
    a = lib.tensor([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]], requires_grad=True)
    value = lib.tensor(7.0, requires_grad=True)
    mask = lib.tensor([[True, False, True], [False, True, False]])
    functional = lib.nn.functional
    return {
        "a.max(1)": lambda: a.max(1)[0],
        "a.min(-1, keepdim=True)": lambda: a.min(-1, keepdim=True)[0],
        "a.gather(1, index)": lambda: a.gather(1, lib.tensor([[0, 2], [1, 1]])),
        "a.masked_fill(mask, 0.0)": lambda: a.masked_fill(mask, 0.0),
        "a.masked_fill(mask, tensor)": lambda: a.masked_fill(mask, value),
        "a[[0, 1]]": lambda: a[[0, 1]],
        "F.nll_loss": lambda: functional.nll_loss(a, lib.tensor([0, 2])),
        "F.embedding": lambda: functional.embedding(lib.tensor([1, 0, 1]), a),
    }


@pytest.mark.parametrize("op", list(kept_arrays(minigrad)))
def test_a_second_backward_through_kept_arrays_fails(parity: Callable[..., None], op: str) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        out = kept_arrays(lib)[op]()
        note("node", type(out.grad_fn).__name__)
        out.sum().backward()
        note("second backward", error_of(lambda: out.sum().backward()))
        kept = out.grad_fn
        look = error_of(lambda: getattr(kept, "_saved_indices", None))
        note("_saved_indices afterwards", look)

    parity(script)


def test_saved_weight_after_backward(parity: Callable[..., None]) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        p = lib.tensor([0.2, 0.7, 0.9], requires_grad=True)
        loss = lib.nn.functional.binary_cross_entropy(
            p, lib.tensor([0.0, 1.0, 1.0]), weight=lib.tensor([1.0, 2.0, 3.0])
        )
        note("before", describe(loss.grad_fn._saved_weight))
        loss.backward()
        note("after", error_of(lambda: loss.grad_fn._saved_weight))

    parity(script)
