"""Shared memory and version counters: what a tensor, its views, `detach()` and `.data` share.

Three tensors can look at the same numbers in three different ways, and the difference between
them is the whole story of this course:

- a view (`b[1:]`, `b.view(3, 1)`) shares the memory *and* the version counter of its base;
- `b.detach()` shares the memory *and* the version counter, but is cut from the graph;
- `b.data` shares the memory but gets a **fresh** version counter, so in-place changes made
  through it are invisible to the check that backward makes.

That check is `SavedTensor.unpack`, at the bottom: a value saved for backward remembers the
version its memory had, and backward refuses to use it once the counter has moved on. It also
refuses an input that `detach_()` cut out of the graph after it was saved.

`saved_tensors_hooks` lets a user decide how saved values are kept (torch's pack / unpack hooks).

Nothing here imports a Tensor: a SavedTensor keeps the tensor it was given (or, for an op's own
output, that tensor's fields), so this module sits below the graph and the tensor.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from .dtypes import from_numpy_dtype
from .grad_mode import is_anomaly_enabled, no_grad

__all__ = [
    "SECOND_BACKWARD_MESSAGE",
    "SavedTensor",
    "Storage",
    "VersionCounter",
    "op_words",
    "saved_tensors_hooks",
]

_storage_serials = itertools.count()


def op_words(node_name: str) -> str:
    """A node as torch's messages name its op: MulBackward0 -> Mul, MaxBackward1 -> Max1,
    a custom Function's MyFnBackward -> MyFn."""
    return re.sub(r"Backward0?(?=[0-9]*$)", "", node_name)


class VersionCounter:
    """How many times a piece of memory was changed in place; shared by value-sharing tensors."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0

    def bump(self) -> None:
        """Record one more in-place change."""
        self.value += 1


class Storage:
    """Identity of one block of memory, so the renderer can group the tensors that share it.

    numpy keeps the actual bytes; this object only says "these tensors look at the same bytes".
    The serial number gives storages a stable order (never `id()`, which changes between runs).
    """

    __slots__ = ("serial",)

    def __init__(self) -> None:
        self.serial = next(_storage_serials)


# ---- pack / unpack hooks --------------------------------------------------------------------


class _HookStack(threading.local):
    """The (pack, unpack) pairs in force in this thread, innermost last."""

    def __init__(self) -> None:
        self.pairs: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []


_hook_stack = _HookStack()


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """Context manager: every tensor saved for backward inside is kept as `pack(tensor)`, and
    backward gets it back as `unpack(packed)` (torch.autograd.graph.saved_tensors_hooks).

    What pack returns is kept instead of the tensor, so the version check is the hooks' business:
    a pack that copies makes later in-place changes harmless. Pack runs with grad mode off. The
    tensor unpack gives back lends its values only: backward (and create_graph) joins them to
    the history of the tensor that was packed, as torch does.
    """

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> None:  # torch's gives nothing to `with ... as`
        _hook_stack.pairs.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc_info: object) -> None:
        if _hook_stack.pairs:  # (an extra __exit__, a misuse torch survives too, does nothing)
            _hook_stack.pairs.pop()


def current_saved_hooks() -> tuple[Callable[[Any], Any], Callable[[Any], Any]] | None:
    """The innermost (pack, unpack) pair in force, or None."""
    pairs = _hook_stack.pairs
    return pairs[-1] if pairs else None


# ---- saved tensors: the values a backward formula needs, and the version check ------------

SECOND_BACKWARD_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)
DETACHED_IN_PLACE_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
    "not supported, please use out-of-place `.detach()` instead"
)

PACK_IN_PLACE_MESSAGE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack hook."
)
VERSION_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with minigrad.autograd.set_detect_anomaly(True, check_nan=False)."
)
VERSION_HINT_IN_ANOMALY_MODE = (
    "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!"
)


class SavedTensor:
    """A value kept for backward, with the version its memory had when it was saved.

    An input is kept as the tensor object itself (`owner`), as torch keeps it: `x.data = ...`
    after the forward is then seen by backward, and its counter and storage are the owner's.
    An op's own output is kept as its array, counter and storage only (`of_output`; tensor.py
    rebuilds a tensor from them for `grad_fn._saved_result`): a node that kept its output
    tensor would form a reference cycle (output -> grad_fn -> output).
    """

    # An input keeps only `owner`, `saved_version` and `had_history`; everything else starts
    # with these class-level defaults (one SavedTensor per saved input: kept small and quick).
    owner: Any = None  # the input tensor (None for an output or a number)
    had_history = False  # the input was made by an op: backward refuses it after detach_()
    saved_version = 0
    _values: np.ndarray | None = None  # an output's (or a number's) array
    _counter: VersionCounter | None = None
    _storage: Storage | None = None
    _serial: int | None = None
    is_output = False
    output_of: str | None = None  # an output's node name, for the version error
    freed = False
    packed: Any = None  # what a pack hook made of the tensor (see pack_with)
    unpack_hook: Callable[[Any], Any] | None = None
    packed_edge: tuple[Any, int] | None = None  # where the packed input's gradient went

    def __init__(self, owner: Any, saved_version: int) -> None:
        self.owner = owner
        self.saved_version = saved_version
        if owner._grad_fn is not None:
            self.had_history = True

    @classmethod
    def of_output(
        cls, values: np.ndarray, counter: VersionCounter, storage: Storage, serial: int, node: str
    ) -> SavedTensor:
        """An op's own output (made by `node`), kept as its array, counter and storage."""
        saved = cls.__new__(cls)
        saved._values, saved._counter, saved._storage, saved._serial = (
            values,
            counter,
            storage,
            serial,
        )
        saved.saved_version, saved.is_output, saved.output_of = counter.value, True, node
        return saved

    @classmethod
    def of_number(cls, values: np.ndarray) -> SavedTensor:
        """A number written next to a tensor (the `2.0` of `y * 2.0`), kept as its array only.

        The tensor minigrad wrapped the number in is held by nothing else, so nothing can change
        it in place: it has no counter and no storage (a picture draws it on memory of its own).
        (A node keeps such a number as its bare array, and makes this only when asked:
        Node.raw_saved.)
        """
        saved = cls.__new__(cls)
        saved._values = values
        return saved

    def pack_with(
        self, hooks: tuple[Callable[[Any], Any], Callable[[Any], Any]], tensor: Any
    ) -> None:
        """Keep `pack(tensor)` instead of the tensor, and `unpack` to get it back.

        Pack runs with grad mode off and may not change the tensor in place (torch's rules). An
        input's edge (its grad_fn, or its AccumulateGrad) is kept, for the unpacked values.
        """
        pack, unpack = hooks
        before = tensor._version_counter.value
        with no_grad():
            packed = pack(tensor)
        if tensor._version_counter.value != before:
            raise RuntimeError(PACK_IN_PLACE_MESSAGE)
        if not self.is_output:
            edge = tensor._edge()
            self.packed_edge = None if edge is None else (edge, tensor._output_nr)
        self.packed, self.unpack_hook = packed, unpack

    @property
    def array(self) -> np.ndarray | None:
        """The values kept (an input's current array), or None once freed."""
        if self.freed:
            return None
        return self._values if self.owner is None else self.owner._array

    @property
    def version_counter(self) -> VersionCounter | None:
        """The counter of the saved memory (the owner's, for an input); None for a number and
        for a freed input."""
        return self._counter if self.owner is None else self.owner._version_counter

    @property
    def storage(self) -> Storage | None:
        """Which memory was saved (the owner's, for an input); None for a number and for a
        freed input."""
        return self._storage if self.owner is None else self.owner._storage

    @property
    def tensor_serial(self) -> int | None:
        """The creation number of the tensor that was saved (None for a number)."""
        return self._serial if self.owner is None else self.owner._serial

    @property
    def current_version(self) -> int:
        """The version of the memory now; backward fails if it differs from `saved_version`."""
        counter = self.version_counter
        return 0 if counter is None else counter.value

    def check(self, reading: bool = False) -> None:
        """Refuse a value that was freed, changed in place since saved, or (for backward, not
        for a look at `grad_fn._saved_*`: `reading`) detached in place."""
        if self.freed:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        if self.unpack_hook is not None:
            return  # the hooks keep their own copy: what happens to the tensor is theirs
        owner = self.owner
        if owner is not None and self.had_history and owner._grad_fn is None and not reading:
            raise RuntimeError(DETACHED_IN_PLACE_MESSAGE)
        counter = self._counter if owner is None else owner._counter  # None: never changed
        if counter is not None and counter.value != self.saved_version:
            raise self._version_error()

    def _version_error(self) -> RuntimeError:
        """torch's in-place error: the saved value's memory moved on since it was saved."""
        hint = VERSION_HINT_IN_ANOMALY_MODE if is_anomaly_enabled() else VERSION_HINT
        return RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {self._describe()} is at version {self.current_version}; "
            f"expected version {self.saved_version} instead. {hint}"
        )

    def unpack(self) -> np.ndarray:
        """Return the saved values, after `check()`."""
        owner = self.owner
        counter = self._counter if owner is None else owner._counter  # None: never changed
        if (
            self.freed
            or self.unpack_hook is not None
            or (counter is not None and counter.value != self.saved_version)
            or (owner is not None and self.had_history and owner._grad_fn is None)
        ):
            self.check()  # (raises, unless the hooks keep the value)
            return self.unpacked_tensor()._array
        return self._values if owner is None else owner._array

    def unpacked_tensor(self) -> Any:
        """What the unpack hook gives back for the packed value: it must be a tensor."""
        tensor = self.unpack_hook(self.packed)
        if not hasattr(tensor, "_array"):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(tensor).__name__}"
            )
        return tensor

    def _describe(self) -> str:
        """'[minigrad.FloatTensor [3]], which is output 0 of Sigmoid,', as torch words it."""
        array = self.array
        kind = from_numpy_dtype(array.dtype).tensor_type
        text = f"[minigrad.{kind} [{', '.join(str(n) for n in array.shape)}]]"
        made_by = self.output_of
        if self.owner is not None:  # an input: torch names the node that made it *now*
            node = self.owner.grad_fn
            made_by = "AsStrided" if self.owner._base is not None else node and node.name()
        if made_by is None:
            return text
        return f"{text}, which is output 0 of {op_words(made_by)},"

    def free(self) -> None:
        """Drop the values (what backward does without retain_graph=True): all that is left is
        the fact that they were freed (a picture draws a freed value on its own)."""
        self.freed = True
        self.owner = self._values = self.packed = None
