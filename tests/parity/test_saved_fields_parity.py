"""What a node shows as `_saved_<name>`: the same names as torch's node, and the same numbers.

A learner who types `y.grad_fn.` and presses Tab, or reads `dir(y.grad_fn)`, sees the values
the op kept for backward. For each op below, the `_saved_*` names of its grad_fn must be
torch's, and every one that is not a tensor (a dim, a size, alpha, a bound, the reduction)
must have torch's value and type: dims as given (a negative one unsigned: -1 reads
18446744073709551615), sizes as a tuple of ints.

Names torch shows that minigrad does not show yet are listed in NOT_YET with the reason; the
last test checks that each is really still missing, so the list cannot go stale.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import minigrad

from .conftest import is_tensor

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

# op -> the `_saved_*` names torch shows there that minigrad does not show yet: max's and an
# index's indices (tensors the node keeps as arrays), BCE's weight (None or a tensor), var's and
# std's correction and dim and norm's dim and ord (torch keeps them per overload: `var(1)` shows
# correction 1, `var()` None).
NOT_YET: dict[str, set[str]] = {
    "a.max(1)": {"indices"},
    "a.min(-1, keepdim=True)": {"indices"},
    "a.var(1)": {"correction", "dim"},
    "a.std()": {"correction", "dim"},
    "a.norm()": {"dim", "ord"},
    "a[[0, 1]]": {"indices"},
    "F.binary_cross_entropy": {"weight"},
}


def ops(lib: Any) -> dict[str, Callable[[], Any]]:
    """The ops whose nodes are compared, on a 2 x 3 tensor made by an op (so it has a graph)."""
    a = lib.ones(2, 3, requires_grad=True) * 1.5
    b = lib.ones(2, 3, requires_grad=True) * 0.5
    functional = lib.nn.functional
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
        "a.max(1)": lambda: a.max(1)[0],
        "a.min(-1, keepdim=True)": lambda: a.min(-1, keepdim=True)[0],
        "a.prod(1)": lambda: a.prod(1),
        "a.var(1)": lambda: a.var(1),
        "a.std()": lambda: a.std(),
        "a.norm()": lambda: a.norm(),
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
        "cat": lambda: lib.cat([a, b], dim=-1),
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
            if not is_tensor(value):
                note(name, (type(value).__name__, value))

    parity(script)


@pytest.mark.parametrize("op", sorted(NOT_YET))
def test_not_yet_is_still_missing(op: str) -> None:
    torch_names = set(saved_names(ops(torch)[op]().grad_fn))
    minigrad_names = set(saved_names(ops(minigrad)[op]().grad_fn))
    for name in NOT_YET[op]:
        assert f"_saved_{name}" in torch_names, f"{op}: torch has no _saved_{name}"
        assert f"_saved_{name}" not in minigrad_names, f"{op}: minigrad shows _saved_{name} now"
