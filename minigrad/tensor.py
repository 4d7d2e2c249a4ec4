"""`Tensor`: a numpy array plus the autograd bookkeeping torch keeps next to it.

The fields a learner should look at first:

- `_array`          the numbers (a numpy array; views and aliases share it)
- `_storage`        which block of memory this is (shared by views, `detach()` and `.data`)
- `_version_counter` how often that memory was changed in place (shared by views and
                    `detach()`, but **not** by `.data`)
- `grad_fn`         the node that made this tensor, or None for a leaf
- `_base`           for a view, the tensor whose memory it looks at

`detach()`, `detach_()` and the `data` property, the three ways of cutting the graph, are
together in the section "Cutting the graph" below.
"""

from __future__ import annotations

import itertools
import numbers
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes
from .autograd import AccumulateGrad, Node, backward
from .versions import Storage, VersionCounter

if TYPE_CHECKING:
    from .reductions import MaxResult

_tensor_serials = itertools.count()

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead."
)


class Size(tuple):
    """A tensor's shape: a tuple that prints like `minigrad.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"minigrad.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        return int(np.prod(self))


def _comparison(compare: np.ufunc) -> Callable[[Tensor, object], Tensor]:
    """A comparison method (`==`, `<`, ...): elementwise, a bool tensor, never recorded."""

    def method(self: Tensor, other: object) -> Tensor:
        return Tensor._from_array(compare(self._array, self._wrap(other)._array))

    method.__doc__ = f"Elementwise {compare.__name__}, as a bool tensor (not recorded)."
    return method


class Tensor:
    """An n-dimensional array that can record the operations made with it."""

    # numpy must hand `array * tensor` back to Tensor.__rmul__ instead of converting us
    __array_ufunc__ = None

    def __init__(
        self, data: object = (), requires_grad: bool = False, dtype: dtypes.DType | None = None
    ) -> None:
        self._set_fields(_to_array(data, dtype))
        if requires_grad:
            self.requires_grad_(True)

    def _set_fields(self, array: np.ndarray) -> None:
        self._array: np.ndarray = np.asarray(array)  # numpy scalars become 0-d arrays
        self._storage = Storage()
        self._version_counter = VersionCounter()
        self._serial = next(_tensor_serials)  # creation order, for stable names in pictures

    # The other fields start with these class-level defaults (a plain leaf that needs no
    # grad) and are set on the instance only when they differ: fewer writes per new tensor.
    _base: Tensor | None = None  # for a view: the root tensor whose memory it looks at
    _view_of: Callable[[np.ndarray], np.ndarray] | None = None  # for a view: base array -> ours
    _view_version = 0  # for a view: version of the memory when its grad_fn was made
    _grad_fn: Node | None = None  # see the grad_fn property
    _requires_grad = False  # the flag of a leaf (a non-leaf requires grad through its grad_fn)
    _grad: Tensor | None = None  # see the grad property
    _retains_grad = False  # retain_grad() was called
    _accumulator: weakref.ref[AccumulateGrad] | None = None  # this leaf's node, held weakly

    # ---- construction helpers used by the engine ------------------------------------------

    @classmethod
    def _from_array(cls, array: np.ndarray) -> Tensor:
        """Wrap an array that nobody else owns: new storage, new version counter."""
        tensor = cls.__new__(cls)
        tensor._set_fields(array)
        return tensor

    def _view(self, array: np.ndarray, view_fn: Callable[[np.ndarray], np.ndarray]) -> Tensor:
        """A view of self: same memory, same version counter, `_base` = the root tensor."""
        view = Tensor._from_array(array)
        view._storage = self._storage
        view._version_counter = self._version_counter
        view._base = self._base if self._base is not None else self
        view._view_version = self._version_counter.value
        if self._view_of is None:
            view._view_of = view_fn
        else:
            outer = self._view_of
            view._view_of = lambda base_array: view_fn(outer(base_array))
        return view

    def _grad_accumulator(self) -> AccumulateGrad:
        """The AccumulateGrad node of this leaf (one per leaf, held weakly, as in torch)."""
        node = self._accumulator() if self._accumulator is not None else None
        if node is None:
            node = AccumulateGrad(self)
            self._accumulator = weakref.ref(node)
        return node

    # ---- flags -------------------------------------------------------------------------------

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor (None for a leaf).

        A view whose memory was changed in place since its grad_fn was made (through its base
        or another view) gets a new one, as in torch: an `AsStridedBackward0` that reads its
        region out of the base's *current* history.
        """
        if self._base is not None and self._view_version != self._version_counter.value:
            self._view_version = self._version_counter.value
            if self._grad_fn is not None:
                self._grad_fn = inplace.view_window(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Node | None) -> None:
        self._grad_fn = node
        self._view_version = self._version_counter.value

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded (always True for a non-leaf)."""
        return self.grad_fn is not None or self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if not isinstance(flag, bool):
            raise RuntimeError("requires_grad must be a bool")
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad on a leaf, in place; returns self."""
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self._array.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not made by a recorded operation (grad_fn is None)."""
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's memory has seen (shared with its views)."""
        return self._version_counter.value

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward (leaves, and non-leaves after retain_grad())."""
        if self.grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None and tuple(value.shape) != tuple(self.shape):
            raise RuntimeError(
                f"assigned grad has data of a different size: {list(value.shape)} vs "
                f"{list(self.shape)}"
            )
        self._grad = value

    def retain_grad(self) -> None:
        """Ask backward to fill `.grad` of this non-leaf tensor too."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return  # leaves get their .grad anyway
        self._retains_grad = True
        self.grad_fn._retained_output = weakref.ref(self)

    # ---- cutting the graph -----------------------------------------------------------------

    def detach(self) -> Tensor:
        """A new tensor on the same memory and version counter, outside the graph.

        No copy is made: an in-place change to either one shows in both, and is counted on
        the shared version counter, so backward still notices it.
        """
        alias = Tensor._from_array(self._array)
        alias._storage = self._storage
        alias._version_counter = self._version_counter
        return alias

    def detach_(self) -> Tensor:
        """Cut *this* tensor out of the graph, in place: it becomes a leaf without grad.

        Operations that already used this tensor keep their edge to its old grad_fn; only what
        is computed from it afterwards is cut. Views cannot be detached in place.
        """
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. (This tensor is a view of "
                "another tensor; detaching it in place would leave the two disagreeing about "
                "the graph.)"
            )
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """An alias of the same memory, outside the graph, with a *fresh* version counter.

        Because the counter is new, in-place changes made through `.data` are invisible to the
        check backward makes: gradients can come out silently wrong. Prefer `detach()`.
        """
        alias = Tensor._from_array(self._array)
        alias._storage = self._storage
        return alias

    @data.setter
    def data(self, new: Tensor) -> None:
        if not isinstance(new, Tensor):
            raise TypeError(f"data must be set to a Tensor, not {type(new).__name__}")
        if self.requires_grad and new._array.dtype.kind != "f":
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                "dtype"
            )
        # same Python object, new contents: every reference to `self` sees the new values
        self._array = new._array
        self._storage = new._storage

    # ---- gradients ---------------------------------------------------------------------------

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
    ) -> None:
        """Accumulate d(self)/d(leaf) into `.grad` of every leaf that requires grad."""
        if create_graph:
            raise NotImplementedError(
                "minigrad computes gradients with numpy, so create_graph=True (gradients of "
                "gradients) is not supported"
            )
        backward(self, gradient, retain_graph)

    # ---- conversion --------------------------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """The numbers as a numpy array sharing this tensor's memory (no copy)."""
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._array

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        # what np.asarray(t) and matplotlib call; torch refuses for tensors that require grad
        array = self.numpy()
        return array.astype(dtype) if dtype is not None else array

    def item(self) -> float | int | bool:
        """The single value of a one-element tensor, as a Python number."""
        if self._array.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._array.size} elements cannot be converted to Scalar"
            )
        return self._array.reshape(()).item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists."""
        return self._array.tolist()

    def cpu(self) -> Tensor:
        """minigrad lives on the CPU: returns self, so `.detach().cpu().numpy()` works."""
        return self

    @property
    def device(self) -> str:
        """Always 'cpu'."""
        return "cpu"

    def to(self, dtype: dtypes.DType | str) -> Tensor:
        """A converted copy (recorded as ToCopyBackward0); self when the dtype already matches."""
        if isinstance(dtype, str) and dtype == "cpu":
            return self
        target = dtypes.to_numpy_dtype(dtype)
        if target == self._array.dtype:
            return self
        return ops.run_op(ops.ToCopyBackward0(target), self)

    def float(self) -> Tensor:
        """Convert to float32."""
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return self.to(dtypes.float64)

    def long(self) -> Tensor:
        """Convert to int64."""
        return self.to(dtypes.int64)

    def int(self) -> Tensor:
        """Convert to int32."""
        return self.to(dtypes.int32)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return self.to(dtypes.bool_)

    # ---- shape -------------------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        """The size of each dimension."""
        return Size(self._array.shape)

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or the size of dimension `dim`."""
        if dim is None:
            return self.shape
        (axis,) = ops.normalize_dims(dim, self.ndim)
        return self._array.shape[axis]

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

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._array.shape[0]))

    # ---- printing ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        suffixes = []
        dtype_note = dtype_suffix(self._array)
        if dtype_note:
            suffixes.append(dtype_note)
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        return format_tensor(self._array, suffixes)

    def __format__(self, spec: str) -> str:
        if self.ndim == 0 and spec:
            return format(self.item(), spec)  # lets f"{loss:.3f}" work, as in torch
        return format(repr(self), spec)

    def __bool__(self) -> bool:
        if self._array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._array.reshape(()))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._array.dtype.kind not in "iu" or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__  # == is elementwise, so hash by identity as torch does

    # ---- arithmetic (out of place) ------------------------------------------------------------

    def add(self, other: object, alpha: float = 1) -> Tensor:
        """self + alpha * other."""
        return ops.run_op(ops.AddBackward0(alpha), self, self._wrap(other))

    def sub(self, other: object, alpha: float = 1) -> Tensor:
        """self - alpha * other."""
        return ops.run_op(ops.SubBackward0(alpha), self, self._wrap(other))

    def mul(self, other: object) -> Tensor:
        """self * other."""
        return ops.run_op(ops.MulBackward0(), self, self._wrap(other))

    def div(self, other: object) -> Tensor:
        """self / other."""
        return ops.run_op(ops.DivBackward0(), self, self._wrap(other))

    def pow(self, exponent: object) -> Tensor:
        """self ** exponent (a number or a tensor)."""
        if isinstance(exponent, numbers.Number):
            return ops.run_op(ops.PowBackward0(exponent), self)
        return ops.run_op(ops.PowBackward1(), self, self._wrap(exponent))

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product (1-D and 2-D)."""
        return matrix.matmul(self, self._wrap(other))

    # `2 + t` records the same graph as `t + 2` in torch, so the reflected forms of the
    # symmetric operators are the same methods
    __add__ = __radd__ = add
    __mul__ = __rmul__ = mul
    __sub__, __truediv__, __pow__, __matmul__ = sub, div, pow, matmul

    def __rsub__(self, other: object) -> Tensor:
        if isinstance(other, numbers.Number):
            return ops.run_op(ops.RsubBackward1(other), self)
        return self._wrap(other).sub(self)

    def __rtruediv__(self, other: object) -> Tensor:
        if isinstance(other, numbers.Number):  # torch: number / t is reciprocal(t) * number
            return self.reciprocal().mul(other)
        return self._wrap(other).div(self)

    def __rpow__(self, base: object) -> Tensor:
        if isinstance(base, numbers.Number):
            return ops.run_op(ops.PowBackward2(base), self)
        return self._wrap(base).pow(self)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return matrix.matmul(self._wrap(other), self)

    def __neg__(self) -> Tensor:
        return ops.run_op(ops.NegBackward0(), self)

    def reciprocal(self) -> Tensor:
        """1 / self."""
        return ops.run_op(ops.ReciprocalBackward0(), self)

    def _wrap(self, value: object) -> Tensor:
        """Turn a number (or array) used with this tensor into a tensor that needs no grad.

        A Python number takes this tensor's dtype, as in torch (float32 stays float32), except
        that a float with an integer tensor gives float32.
        """
        if isinstance(value, Tensor):
            return value
        if isinstance(value, (bool, numbers.Number, np.number, np.bool_)):
            if self._array.dtype.kind == "f":
                dtype = self._array.dtype
            elif isinstance(value, (float, np.floating)):
                dtype = np.dtype(np.float32)
            elif isinstance(value, (bool, np.bool_)) and self._array.dtype.kind == "b":
                dtype = np.dtype(bool)
            else:
                dtype = np.dtype(np.int64) if self._array.dtype.kind == "b" else self._array.dtype
            return Tensor._from_array(np.asarray(value, dtype=dtype))
        if isinstance(value, (np.ndarray, list, tuple)):
            return Tensor(value)
        raise TypeError(f"unsupported operand: Tensor and {type(value).__name__}")

    # ---- comparisons (never recorded) -------------------------------------------------------

    __eq__ = eq = _comparison(np.equal)  # type: ignore[assignment]
    __ne__ = _comparison(np.not_equal)  # type: ignore[assignment]
    __lt__, __le__ = _comparison(np.less), _comparison(np.less_equal)
    __gt__, __ge__ = _comparison(np.greater), _comparison(np.greater_equal)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Index of the maximum (of all elements, or along `dim`); not differentiable."""
        if dim is None:
            return Tensor._from_array(np.asarray(np.argmax(self._array), dtype=np.int64))
        (axis,) = ops.normalize_dims(dim, self.ndim)
        return Tensor._from_array(np.argmax(self._array, axis=axis, keepdims=keepdim))

    def all(self) -> Tensor:
        """True when every element is nonzero."""
        return Tensor._from_array(np.asarray(self._array.all()))

    def any(self) -> Tensor:
        """True when some element is nonzero."""
        return Tensor._from_array(np.asarray(self._array.any()))

    def allclose(self, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
        """True when all values are close to `other`'s."""
        return bool(np.allclose(self._array, self._wrap(other)._array, rtol=rtol, atol=atol))

    # ---- elementwise functions --------------------------------------------------------------

    def exp(self) -> Tensor:
        """e ** self."""
        return ops.run_op(ops.ExpBackward0(), self)

    def log(self) -> Tensor:
        """Natural logarithm."""
        return ops.run_op(ops.LogBackward0(), self)

    def sigmoid(self) -> Tensor:
        """1 / (1 + exp(-self)); saves its output for backward."""
        return ops.run_op(ops.SigmoidBackward0(), self)

    def tanh(self) -> Tensor:
        """Hyperbolic tangent; saves its output for backward."""
        return ops.run_op(ops.TanhBackward0(), self)

    def relu(self) -> Tensor:
        """max(self, 0)."""
        return ops.run_op(ops.ReluBackward0(), self)

    def sqrt(self) -> Tensor:
        """Square root."""
        return ops.run_op(ops.SqrtBackward0(), self)

    def abs(self) -> Tensor:
        """Absolute value."""
        return ops.run_op(ops.AbsBackward0(), self)

    def round(self) -> Tensor:
        """Round to the nearest integer (half to even); its gradient is zero."""
        return ops.run_op(ops.RoundBackward0(), self)

    def clamp(self, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max]."""
        return ops.run_op(ops.ClampBackward1(min, max), self)

    def clone(self) -> Tensor:
        """A copy in new memory, still connected to the graph (CloneBackward0)."""
        return ops.run_op(ops.CloneBackward0(), self)

    def __deepcopy__(self, memo: dict) -> Tensor:
        # Python's default deepcopy would copy the weak link to this leaf's AccumulateGrad, so
        # gradients of the copy would land in the original's .grad. Copy only what a user made.
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment."
            )
        copy = Tensor._from_array(self._array.copy())
        copy._requires_grad = self._requires_grad
        if self._grad is not None:
            copy._grad = Tensor._from_array(self._grad._array.copy())
        memo[id(self)] = copy
        return copy

    # ---- reductions --------------------------------------------------------------------------

    def sum(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """Sum of all elements, or along `dim`."""
        if dim is None:
            return ops.run_op(reductions.SumBackward0(), self)
        return ops.run_op(reductions.SumBackward1(dim, keepdim), self)

    def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """Mean of all elements, or along `dim`."""
        if dim is None:
            return ops.run_op(reductions.MeanBackward0(), self)
        return ops.run_op(reductions.MeanBackward1(dim, keepdim), self)

    def max(self, dim: int | None = None, keepdim: bool = False) -> Tensor | MaxResult:
        """Maximum of all elements, or (values, indices) along `dim`."""
        if dim is None:
            return ops.run_op(reductions.MaxBackward1(), self)
        return reductions.max_along(self, dim, keepdim)

    # ---- views ---------------------------------------------------------------------------------

    def view(self, *shape: int | Sequence[int]) -> Tensor:
        """Same memory, another shape (an error when that is impossible without a copy)."""
        return views.view(self, _shape_args(shape))

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """Another shape: a view if possible, a copy otherwise."""
        return views.reshape(self, _shape_args(shape))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view)."""
        return views.transpose(self, dim0, dim1)

    def permute(self, *dims: int | Sequence[int]) -> Tensor:
        """Reorder dimensions (a view)."""
        return views.permute(self, _shape_args(dims))

    def t(self) -> Tensor:
        """Transpose of a 2-D tensor (a view)."""
        return views.t(self)

    @property
    def T(self) -> Tensor:  # noqa: N802 - torch's name
        """All dimensions reversed (a view); torch deprecates it for anything but 2-D."""
        if self.ndim != 2:
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Use `x.t()` for a "
                "matrix, or `x.permute(...)` to reverse the dimensions explicitly.",
                UserWarning,
                stacklevel=2,
            )
        return views.permute(self, tuple(reversed(range(self.ndim))))

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dimension of size 1 (a view)."""
        return views.unsqueeze(self, dim)

    def squeeze(self, dim: int | None = None) -> Tensor:
        """Remove dimensions of size 1 (a view)."""
        return views.squeeze(self, dim)

    def expand(self, *shape: int | Sequence[int]) -> Tensor:
        """Broadcast to a bigger shape without copying (a view)."""
        return views.expand(self, _shape_args(shape))

    def flatten(self) -> Tensor:
        """All elements in one dimension."""
        return self.reshape(-1)

    def __getitem__(self, key: object) -> Tensor:
        return views.getitem(self, key)

    # ---- in-place operations -----------------------------------------------------------------
    # Each one changes this tensor's memory, bumps the shared version counter, and, when the
    # change must be differentiated, records it (see inplace.py).

    def add_(self, other: object, alpha: float = 1) -> Tensor:
        """self += alpha * other, in place."""
        other = self._wrap(other)
        return inplace.apply(self, lambda before: before.add(other, alpha), other)

    def sub_(self, other: object, alpha: float = 1) -> Tensor:
        """self -= alpha * other, in place."""
        other = self._wrap(other)
        return inplace.apply(self, lambda before: before.sub(other, alpha), other)

    def mul_(self, other: object) -> Tensor:
        """self *= other, in place."""
        other = self._wrap(other)
        return inplace.apply(self, lambda before: before.mul(other), other)

    def div_(self, other: object) -> Tensor:
        """self /= other, in place."""
        other = self._wrap(other)
        return inplace.apply(self, lambda before: before.div(other), other)

    def clamp_(self, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max], in place."""
        return inplace.apply(self, lambda before: before.clamp(min, max))

    def zero_(self) -> Tensor:
        """Set every element to 0, in place."""
        return inplace.apply(self, lambda before: ops.run_op(inplace.ZeroBackward0(), before))

    def fill_(self, value: float) -> Tensor:
        """Set every element to `value`, in place."""
        return inplace.apply(self, lambda before: ops.run_op(inplace.FillBackward2(value), before))

    def copy_(self, source: object) -> Tensor:
        """Copy `source`'s values into this tensor's memory (broadcasting), in place."""
        source = self._wrap(source)
        return inplace.apply(
            self, lambda before: ops.run_op(inplace.CopyBackwards(), before, source), source
        )

    __iadd__, __isub__, __imul__, __itruediv__ = add_, sub_, mul_, div_

    def __setitem__(self, key: object, value: object) -> None:
        value = self._wrap(value)
        plain_key = views._plain_key(key)
        if views.is_basic_index(plain_key):
            self[key].copy_(value)  # a view of the region, then an in-place copy into it
            return
        inplace.apply(
            self,
            lambda before: ops.run_op(inplace.IndexPutBackward0(plain_key), before, value),
            value,
        )


def _shape_args(args: tuple) -> tuple[int, ...]:
    """Accept both t.view(2, 3) and t.view((2, 3))."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        return tuple(args[0])
    return tuple(args)


def _to_array(data: object, dtype: dtypes.DType | None) -> np.ndarray:
    """Make the array behind a new tensor, with torch's default dtypes."""
    if isinstance(data, Tensor):
        data = data._array
    if dtype is not None:
        return np.array(data, dtype=dtypes.to_numpy_dtype(dtype))
    if isinstance(data, np.ndarray):
        dtypes.from_numpy_dtype(data.dtype)  # refuses dtypes we do not support
        return np.array(data)  # numpy arrays keep their dtype, as with torch.tensor
    array = np.array(data)
    if array.dtype.kind == "f":
        return array.astype(np.float32)  # Python floats become float32, torch's default
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind == "b":
        return array
    raise TypeError(
        f"can't make a tensor from {type(data).__name__} data (numpy saw dtype {array.dtype}); "
        "pass numbers, nested lists of numbers or a numpy array"
    )


# These modules need the Tensor class defined above, and Tensor's methods need them: importing
# them last breaks the circle.
from . import inplace, matrix, ops, reductions, views  # noqa: E402
from ._format import dtype_suffix, format_tensor  # noqa: E402
