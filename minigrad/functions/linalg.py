"""Matrix products on 1-D and 2-D arrays, with the node torch records for each shape pair:
matrix @ matrix is MmBackward0, matrix @ vector MvBackward0, vector @ vector DotBackward0."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import from_numpy_dtype, kind_word
from ..graph import Node, Save
from .formulas import record, transposed


def strides_if_needed(node: Node, number: int) -> tuple[int, ...]:
    """Input `number`'s strides (in elements) as the product's node noted them, torch's
    `_saved_<input>_sym_strides`: the layout its gradient is given; `()` when that input needs
    no gradient, as torch leaves it."""
    if not node.needs_input_grad[number]:
        return ()
    strides, item_size = node.input_strides[number]
    return tuple(stride // item_size for stride in strides)


def _column_major(node: Node, number: int) -> bool:
    """Whether input `number` of a matrix product was a column-major matrix (a transposed one:
    `weight.t()` in `linear`), from the strides and sizes its node noted."""
    strides, item_size = node.input_strides[number]
    rows = node.input_shapes[number][0]
    return strides[0] == item_size and strides[1] == rows * item_size


def mat1_gradient(node: Node, number: int, grad: Any, mat2: Any) -> Any:
    """The gradient of `mat1 @ mat2` for mat1 (input `number` of `node`), as torch's
    mm_mat1_backward: grad @ mat2.T, computed as (mat2 @ grad.T).T when mat1 was column-major,
    so that the gradient has mat1's layout (the same graph as torch's under create_graph)."""
    if _column_major(node, number):
        return transposed(mat2 @ transposed(grad))
    return grad @ transposed(mat2)


def mat2_gradient(node: Node, number: int, grad: Any, mat1: Any) -> Any:
    """The gradient of `mat1 @ mat2` for mat2 (input `number` of `node`), as torch's
    mm_mat2_backward: mat1.T @ grad, computed as (grad.T @ mat1).T when mat2 was column-major
    (linear's `weight.t()`): the weight's gradient then arrives in the weight's own layout."""
    if _column_major(node, number):
        return transposed(transposed(grad) @ mat1)
    return transposed(mat1) @ grad


def _check_same_dtype(a: np.ndarray, b: np.ndarray) -> None:
    if a.dtype != b.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{from_numpy_dtype(a.dtype).name_in_errors} != "
            f"{from_numpy_dtype(b.dtype).name_in_errors}"
        )


class MmBackward0(Node):
    """mm(self, mat2) -- self: grad @ mat2.T; mat2: self.T @ grad."""

    saves = (Save("self", input=0, needed_for=1), Save("mat2", input=1, needed_for=0))
    saved_numbers = ("mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides")
    input_strides: tuple[tuple[tuple[int, ...], int], ...] = ()

    def saved_number(self, name: str) -> Any:
        """`_saved_mat2_sym_sizes`: the second input's sizes (the first's: Node's); the
        inputs' strides (`strides_if_needed`)."""
        if name == "mat2_sym_sizes":
            return tuple(self.input_shapes[1])
        if name.endswith("_sym_strides"):
            return strides_if_needed(self, 0 if name == "self_sym_strides" else 1)
        return super().saved_number(name)

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        (n, k), (k2, m) = a.shape, b.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        _check_same_dtype(a, b)
        self.input_strides = ((a.strides, a.itemsize), (b.strides, b.itemsize))
        return a @ b

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_a, need_b = self.needs_input_grad
        return (
            mat1_gradient(self, 0, grad, self.unpack("mat2")) if need_a else None,
            mat2_gradient(self, 1, grad, self.unpack("self")) if need_b else None,
        )


class MvBackward0(Node):
    """mv(self, vec) -- self: outer(grad, vec); vec: self.T @ grad."""

    saves = (Save("self", input=0, needed_for=1), Save("vec", input=1, needed_for=0))

    def forward(self, a: np.ndarray, v: np.ndarray) -> np.ndarray:
        (n, k), (k2,) = a.shape, v.shape
        if k != k2:
            raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({k2})")
        if a.dtype != v.dtype:  # torch's addmv names the output (the vector's dtype) first
            vec, mat = kind_word(v.dtype), kind_word(a.dtype)
            raise RuntimeError(
                f"addmv input tensors must have the same dtype, but got {vec}, {mat}, and {vec}"
            )
        return a @ v

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_a, need_v = self.needs_input_grad
        return (
            grad.reshape((-1, 1)) * self.unpack("vec") if need_a else None,  # (torch's ger)
            transposed(self.unpack("self")) @ grad if need_v else None,
        )


class DotBackward0(Node):
    """dot(self, tensor) -- self: grad * tensor; tensor: grad * self."""

    saves = (Save("self", input=0, needed_for=1), Save("tensor", input=1, needed_for=0))

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.shape != b.shape:
            n, m = a.size, b.size
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                f"number of elements, but got {n} and {m} elements respectively"
            )
        if a.dtype != b.dtype:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{kind_word(a.dtype)} and {kind_word(b.dtype)}"
            )
        return np.asarray(a @ b)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_a, need_b = self.needs_input_grad
        return (
            grad * self.unpack("tensor") if need_a else None,
            grad * self.unpack("self") if need_b else None,
        )


class BmmBackward0(Node):
    """bmm(self, mat2): a batch of matrix products -- self: grad @ mat2^T; mat2: self^T @ grad
    (^T swaps the last two dims)."""

    saves = (Save("self", input=0, needed_for=1), Save("mat2", input=1, needed_for=0))

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.dtype != b.dtype:
            raise RuntimeError(
                f"expected scalar type {from_numpy_dtype(a.dtype).torch_kind} but found "
                f"{from_numpy_dtype(b.dtype).torch_kind}"
            )
        return np.matmul(a, b)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_a, need_b = self.needs_input_grad
        # (bmm itself, not `@`: under create_graph `@` would record matmul's expand and reshape)
        return (
            record(BmmBackward0(), grad, self.unpack("mat2").swapaxes(1, 2)) if need_a else None,
            record(BmmBackward0(), self.unpack("self").swapaxes(1, 2), grad) if need_b else None,
        )
