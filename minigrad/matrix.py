"""Matrix products: `a @ b` for 1-D and 2-D tensors, recorded with the node torch would use.

matrix @ matrix is MmBackward0, matrix @ vector MvBackward0, vector @ vector DotBackward0, and
vector @ matrix is done as torch does it: unsqueeze, MmBackward0, squeeze.
"""

from __future__ import annotations

import numpy as np

from . import views
from .autograd import Node
from .ops import run_op
from .tensor import Tensor


def _check_float_pair(a: Tensor, b: Tensor) -> None:
    if a._array.dtype != b._array.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{a.dtype.name_in_errors} != {b.dtype.name_in_errors}"
        )


class MmBackward0(Node):
    """Matrix product of two 2-D tensors: d/dA = G @ B.T, d/dB = A.T @ G."""

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        (n, k), (k2, m) = a._array.shape, b._array.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        _check_float_pair(a, b)
        if b.requires_grad:
            self.save("self", a)
        if a.requires_grad:
            self.save("mat2", b)
        return a._array @ b._array

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        grad_a = grad @ self.unpack("mat2").T if "mat2" in self.saved else None
        grad_b = self.unpack("self").T @ grad if "self" in self.saved else None
        return grad_a, grad_b


class MvBackward0(Node):
    """Matrix times vector: d/dA = outer(g, v), d/dv = A.T @ g."""

    def forward(self, a: Tensor, v: Tensor) -> np.ndarray:
        (n, k), (k2,) = a._array.shape, v._array.shape
        if k != k2:
            raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({k2})")
        _check_float_pair(a, v)
        self.save("self", a)
        self.save("vec", v)
        return a._array @ v._array

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.outer(grad, self.unpack("vec")), self.unpack("self").T @ grad


class DotBackward0(Node):
    """Dot product of two vectors: d/da = g * b, d/db = g * a."""

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        if a._array.shape != b._array.shape:
            n, m = a._array.size, b._array.size
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                f"number of elements, but got {n} and {m} elements respectively"
            )
        _check_float_pair(a, b)
        self.save("self", a)
        self.save("tensor", b)
        return np.asarray(a._array @ b._array)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return grad * self.unpack("tensor"), grad * self.unpack("self")


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """a @ b for 1-D and 2-D tensors, recorded with the node torch would use."""
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    if a.ndim > 2 or b.ndim > 2:
        raise NotImplementedError(
            f"minigrad's matmul handles 1-D and 2-D tensors; got {a.ndim}-D and {b.ndim}-D. "
            "Reshape to 2-D first (for example x.reshape(-1, x.shape[-1]))."
        )
    if a.ndim == 2 and b.ndim == 2:
        return run_op(MmBackward0(), a, b)
    if a.ndim == 2:
        return run_op(MvBackward0(), a, b)
    if b.ndim == 2:  # torch: unsqueeze the vector, multiply matrices, squeeze again
        result = views.squeeze(matmul(views.unsqueeze(a, 0), b), 0, node_name="SqueezeBackward4")
        # torch squeezes the product in place: the result is no view, and its _version is 1
        result._base = None
        result._version_counter.bump()
        return result
    return run_op(DotBackward0(), a, b)
