"""TensorBase: what every group of tensor methods shares.

A tensor's methods take numbers, numpy arrays and other tensors as their arguments; here those
are turned into tensors the ops can run on, with torch's rules for their dtypes and errors.
Every method group runs its op through the recording layer below it (`TensorCore._apply`, ...,
in recording.py); `Tensor` (_tensor.py), which inherits all of them, sits above.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes
from .._convert import warn_scalar_of_grad
from .._device import device
from .._shapes import Size, broadcast_shapes, check_sizes, shape_args, wrap_dim
from ..graph import Node
from ..recording import TensorCore
from ..watch import seen, watchers

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["NUMPY_OF_GRAD_MESSAGE", "TensorBase", "UntypedStorage"]

NUMPY_OF_GRAD_MESSAGE = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)


_CPU = device("cpu")


class UntypedStorage:
    """The block of memory behind a tensor and its views (`t.untyped_storage()`)."""

    def __init__(self, root: np.ndarray) -> None:
        self._root = root

    def data_ptr(self) -> int:
        """The address where the memory starts (the same for every view of it)."""
        return int(self._root.__array_interface__["data"][0])

    def nbytes(self) -> int:
        """The size of the memory in bytes."""
        return int(self._root.nbytes)

    def size(self) -> int:
        """The size of the memory in bytes (torch counts an untyped storage in bytes)."""
        return int(self._root.nbytes)

    def __len__(self) -> int:
        return self.size()


_NUMBERS: dict[tuple[type, object, np.dtype], Any] = {}  # see TensorBase._number


class TensorBase(TensorCore):
    """The root of Tensor's method groups (methods/*.py); see _tensor.py for the Tensor itself."""

    # numpy hands `array * tensor` back to the tensor instead of converting it (its deferral
    # rule for objects of higher priority); np.exp(t) converts through __array__, as in torch
    __array_priority__ = 1000

    def _wrap(self, value: object) -> Tensor | None:
        """Turn a number (or numpy array) used with this tensor into a tensor without grad.

        A Python number takes this tensor's dtype where it can (float32 stays float32; see
        dtypes.scalar_dtype). A numpy array is converted as torch converts it: refused beside a
        tensor that requires grad (torch calls numpy() on the tensor, which refuses). Anything
        else (a list, a string) gives None: the operator then returns NotImplemented and Python
        raises its TypeError, as with torch.
        """
        if isinstance(value, TensorCore):
            return value
        if type(value) is float and self._array.dtype.kind == "f":  # the common case
            return self._number(value, self._array.dtype)
        if isinstance(value, (bool, numbers.Number, np.number, np.bool_)):
            if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
                return None
            return self._number(value, dtypes.scalar_dtype(value, self._array.dtype))
        if isinstance(value, np.ndarray):
            if self._needs_grad():
                raise RuntimeError(NUMPY_OF_GRAD_MESSAGE)
            return self._sibling(np.array(value))
        return None

    def _number(self, value: object, dtype: np.dtype) -> Tensor:
        """A Python number as a 0-d tensor of `dtype`, marked so a node keeps it as a bare array.

        Made once per value and dtype (a loop multiplies by the same 0.9 again and again), on
        read-only memory, so no op can change it for the next user.
        """
        key = (type(value), value, dtype)
        wrapped = _NUMBERS.get(key)
        if wrapped is None:
            if len(_NUMBERS) >= 512:  # (new numbers keep coming, such as a learning-rate decay)
                _NUMBERS.clear()
            with np.errstate(over="ignore"):  # 1e5 in float16 is inf, silently as in torch
                array = (
                    np.array(value, dtype=dtype)
                    if dtype.kind == "f"
                    else np.asarray(value).astype(dtype)  # ints wrap, as torch
                )
            array.flags.writeable = False
            wrapped = _NUMBERS[key] = self._sibling(array)
            wrapped._wrapped_number, wrapped._inference = True, False
        return wrapped

    def _operand(
        self, value: object, method: str, position: int = 1, name: str = "other"
    ) -> Tensor:
        """`value` as a tensor for a named method (`t.add(x)`), with torch's TypeError."""
        if isinstance(value, TensorCore):
            return value
        wrapped = self._wrap(value)
        if wrapped is None:
            raise TypeError(
                f"{method}(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(value).__name__}"
            )
        return wrapped

    def _apply_with_numbers(self, node: Node, *inputs: Any) -> Tensor:
        """`_apply` where some inputs may be Python numbers (a formula's `where(mask, 0.0,
        grad)` under create_graph): each number becomes a tensor beside this one."""
        return self._apply(
            node,
            *[value if isinstance(value, TensorCore) else self._wrap(value) for value in inputs],
        )

    def _binary(self, node: Node, other: Tensor) -> Tensor:
        """An elementwise op of two tensors, after torch's broadcasting check."""
        shape, other_shape = self._array.shape, other._array.shape
        if shape != other_shape and shape and other_shape:  # a 0-d side (a number) always fits
            broadcast_shapes(shape, other_shape)
        return self._apply(node, self, other)

    # ---- shape and dtype ---------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        """The size of each dimension."""
        return tuple.__new__(Size, self._array.shape)  # numpy's sizes need no checking

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or the size of dimension `dim`."""
        if dim is None:
            return self.shape
        if self.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._array.shape[wrap_dim(dim, self.ndim)]

    @property
    def dtype(self) -> dtypes.DType:
        """The element type (float32 unless asked otherwise)."""
        return dtypes.from_numpy_dtype(self._array.dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._array.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._array.ndim

    def numel(self) -> int:
        """The number of elements."""
        return int(self._array.size)

    def is_floating_point(self) -> bool:
        """True for float dtypes."""
        return self._array.dtype.kind == "f"

    # ---- memory and device --------------------------------------------------------------------

    def tolist(self) -> Any:
        """The values as (nested) Python lists."""
        if watchers:
            seen("tolist", (self,), None)
        return self._array.tolist()

    def cpu(self) -> Tensor:
        """minigrad lives on the CPU: returns self, so `.detach().cpu().numpy()` works."""
        return self

    @property
    def device(self) -> device:
        """Always `device(type='cpu')`."""
        return _CPU

    def data_ptr(self) -> int:
        """The address of this tensor's first element (views point inside their base's memory)."""
        return int(self._array.__array_interface__["data"][0])

    def untyped_storage(self) -> UntypedStorage:
        """The memory this tensor looks at, shared by its views and aliases."""
        root = self._array
        while isinstance(root.base, np.ndarray):
            root = root.base
        return UntypedStorage(root)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))  # as torch: the rows come from one UnbindBackward0

    def __contains__(self, element: object) -> bool:
        """`value in t`: whether any element equals `value` (a number or a tensor)."""
        if not isinstance(element, (TensorCore, numbers.Number, np.number, np.bool_)):
            raise RuntimeError(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        return bool((self == element).any())

    # ---- Python's conversions (bool(t), float(t), f"{t:.3f}", len(t), iteration) ----------

    def item(self) -> float | int | bool:
        """The single value of a one-element tensor, as a Python number."""
        if self._array.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._array.size} elements cannot be converted to Scalar"
            )
        if watchers:
            seen("item", (self,), None)
        return self._array.reshape(()).item()

    def __format__(self, spec: str) -> str:
        if self.ndim == 0 and spec:
            return format(self.item(), spec)  # lets f"{loss:.3f}" work, as in torch
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __bool__(self) -> bool:
        if self._array.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._array.reshape(()))

    def __float__(self) -> float:
        if self._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._needs_grad():
            warn_scalar_of_grad(stacklevel=2)
        if watchers:
            seen("__float__", (self,), None)
        return float(self.item())

    def __int__(self) -> int:
        if self._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __index__(self) -> int:
        if self._array.dtype.kind not in "iu" or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    # ---- new tensors like this one (its dtype unless told otherwise) -------------------------

    def _new(self, fill: Any, size: tuple, dtype: Any, requires_grad: bool, method: str) -> Tensor:
        sizes = check_sizes(shape_args(size, method), method)
        numpy_dtype = self._array.dtype if dtype is None else dtypes.to_numpy_dtype(dtype, method)
        return self._new_leaf(np.full(sizes, fill, dtype=numpy_dtype), requires_grad)

    def _new_leaf(self, array: np.ndarray, requires_grad: bool) -> Tensor:
        """A new leaf on `array` (the new_* methods), requiring grad if asked (floats only)."""
        tensor = self._sibling(array)
        if requires_grad:
            if array.dtype.kind != "f":
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            tensor._requires_grad = True
        return tensor

    def new_zeros(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        """Zeros of `size`, with this tensor's dtype."""
        return self._new(0, size, dtype, requires_grad, "new_zeros")

    def new_ones(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        """Ones of `size`, with this tensor's dtype."""
        return self._new(1, size, dtype, requires_grad, "new_ones")

    def new_empty(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        """A tensor of `size` with this tensor's dtype, values not set (zeros here)."""
        return self._new(0, size, dtype, requires_grad, "new_empty")

    def new_full(
        self, size: Any, fill_value: float, dtype: Any = None, requires_grad: bool = False
    ) -> Tensor:
        """`fill_value` everywhere, of `size`, with this tensor's dtype."""
        return self._new(fill_value, (size,), dtype, requires_grad, "new_full")

    def new_tensor(self, data: object, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        """A new tensor holding a copy of `data`, with this tensor's dtype."""
        if isinstance(data, TensorCore):
            data = data._array
        numpy_dtype = self._array.dtype if dtype is None else dtypes.to_numpy_dtype(dtype)
        return self._new_leaf(np.array(data, dtype=numpy_dtype), requires_grad)
