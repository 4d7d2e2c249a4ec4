"""`viz.trace()`: watch a forward pass for the places where a value leaves the graph.

    with viz.trace():
        loss = step(batch)
    print(viz.explain(loss, model))

What is written down (an `Event` each), for minigrad through its hook point (minigrad/watch.py)
and for torch through `torch.overrides.TorchFunctionMode`, which sees every torch function and
Tensor method call:

- "cut": a call that took a tensor that requires grad and gave one that does not
  (`.detach()`, `.data`);
- "integer": the same, when the result holds integers or booleans (`argmax`, `>`, `.long()`);
- "left": the value left as a Python or numpy value (`.item()`, `.tolist()`, `.numpy()`,
  `float()`), and "back": a new tensor made from values (`tensor(...)`, `from_numpy`);
- "no_grad" / "inference_mode": a call on a tensor that requires grad while grad mode was off;
- "frozen": `requires_grad_(False)` (or `requires_grad = False`); "inplace": an in-place change
  with grad mode on (kept with the version it left, to say where a saved value was changed);
- "made": a tensor made from a plain leaf that requires grad (a "parameter" such as
  `torch.randn(3, requires_grad=True) * 0.01`, which is not a leaf).

Each event keeps the learner's own file and line: the first frame outside minigrad, torch and
Python's own library. Nothing else is kept, so a traced forward stays close to an untraced one.
torch is never imported here: it is traced when the learner has imported it.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .. import watch
from .._tensor import Tensor
from ..grad_mode import is_grad_enabled, is_inference_mode_enabled
from .words import say

__all__ = ["Event", "Trace", "Where", "last_trace", "trace"]

LEAVING = ("item", "tolist", "numpy", "__float__", "__int__", "__index__")
COMING_BACK = ("tensor", "as_tensor", "from_numpy")
INPLACE_DUNDERS = ("__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__")
_LIBRARY = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # minigrad
    sysconfig.get_paths()["stdlib"],
    sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"],
)


@dataclass(frozen=True)
class Where:
    """A place in the learner's code: a file's name and a line. A notebook cell has no file
    name worth showing: its place is the line in the cell, and the function it is in."""

    file: str | None
    line: int
    function: str = ""  # for a cell: the function the line is in ("" at the cell's top level)

    def __str__(self) -> str:
        if self.file is not None:
            return f"{self.file}:{self.line}"
        if self.function:  # (in viz's language: the Chinese doctor says 第 11 行)
            return say("{function}(), line {line}", function=self.function, line=self.line)
        return say("line {line}", line=self.line)


@dataclass(eq=False)
class Event:
    """One call worth remembering (see the module's docstring for the kinds)."""

    kind: str
    op: str
    where: Where
    inputs: tuple[Any, ...] = ()
    result: Any = None
    version: int | None = None  # for "inplace": the version the change left


@dataclass(eq=False)
class Trace:
    """The events of one `with viz.trace():` block, in the order they happened."""

    events: list[Event] = field(default_factory=list)

    def of_kind(self, *kinds: str) -> list[Event]:
        return [event for event in self.events if event.kind in kinds]


_last: list[Trace] = []


class _MINIGRAD:  # noqa: N801 - what a Recorder reads of a library, as torch's names
    Tensor = Tensor
    is_grad_enabled = staticmethod(is_grad_enabled)
    is_inference_mode_enabled = staticmethod(is_inference_mode_enabled)


def last_trace() -> Trace | None:
    """The trace of the most recent `with viz.trace():` block (None before the first)."""
    return _last[-1] if _last else None


def learner_place() -> Where | None:
    """The first frame outside the libraries: where the learner's own code made the call.

    None for a call an optimizer's `step()` made: updating parameters is not the forward.
    """
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARY):
        path = frame.f_code.co_filename
        if path.endswith(os.sep + "optim.py") or f"{os.sep}optim{os.sep}" in path:
            return None
        frame = frame.f_back
    if frame is None:
        return Where(None, 0)
    path, name = frame.f_code.co_filename, frame.f_code.co_name
    if path.startswith("<") or "ipykernel_" in path:  # a notebook cell
        return Where(None, frame.f_lineno, "" if name.startswith("<") else name)
    return Where(os.path.basename(path), frame.f_lineno)


def _with_line(where: Where | None, opening: str) -> Where | None:
    """The line above `where` that opens the block (torch does not report entering
    inference_mode): the nearest line before it, in the same file, that holds `opening`."""
    if where is None:
        return where
    frame = sys._getframe(1)
    while frame is not None and frame.f_lineno != where.line:
        frame = frame.f_back
    if frame is None:
        return where
    for line in range(where.line, frame.f_code.co_firstlineno - 1, -1):
        if opening in linecache.getline(frame.f_code.co_filename, line):
            return Where(where.file, line, where.function)
    return where


def classify(op: str, tensors: list[Any], result: Any, grad_on: bool, inference: bool) -> str:
    """The kind of event a call is ("" when it is not worth keeping); `tensors` are its
    arguments that require grad (there is at least one, or `op` makes a new tensor)."""
    if op in COMING_BACK:
        return "back"
    if op == "requires_grad_":
        return "frozen" if result is False else ""
    if op == "inplace" or op in INPLACE_DUNDERS or (op.endswith("_") and op[0] != "_"):
        return "inplace" if grad_on else ""
    if not grad_on:
        return "inference_mode" if inference else "no_grad"
    if op in LEAVING:
        return "left"
    if op in ("argmax", "argmin"):
        return "integer"
    if result is None or not hasattr(result, "requires_grad"):
        return ""
    if not result.requires_grad:
        return "cut" if result.dtype.is_floating_point else "integer"
    if any(t.grad_fn is None and type(t).__name__ != "Parameter" for t in tensors):
        return "made"
    return ""


class Recorder:
    """Turns the calls one library reports into events of a Trace."""

    def __init__(self, into: Trace, library: Any, tells_before: bool) -> None:
        self.into = into
        self.library = library  # its Tensor, is_grad_enabled, is_inference_mode_enabled
        self.tells_before = tells_before  # minigrad tells of an in-place change before it
        self.tensor_type = library.Tensor
        self.region: Where | None = None  # where the no_grad block we are in started

    def __call__(self, op: str, inputs: tuple[Any, ...], result: Any) -> None:
        if op == "_set_grad_enabled":
            self.region = None if result else learner_place()
            return
        tensors = [t for t in self.tensors_in(inputs) if t.requires_grad]
        if not tensors and op not in COMING_BACK:
            return  # the common case, kept cheap
        lib = self.library
        kind = classify(op, tensors, result, lib.is_grad_enabled(), lib.is_inference_mode_enabled())
        if not kind:
            return
        where = learner_place()
        if kind in ("no_grad", "inference_mode"):
            where = self.region or _with_line(where, "inference_mode(")
        if where is None:
            return
        version = None
        if kind == "inplace":  # the version the change leaves (minigrad tells before it)
            version = tensors[0]._version + self.tells_before
        self.into.events.append(Event(kind, op, where, tuple(tensors), result, version))

    def tensors_in(self, values: Any) -> Iterator[Any]:
        for value in values:
            if isinstance(value, self.tensor_type):
                yield value
            elif isinstance(value, (list, tuple)):
                yield from self.tensors_in(value)


@contextmanager
def trace() -> Iterator[Trace]:
    """Watch the code inside the block; `viz.explain` then says where a path was cut.

    minigrad is always watched; torch too when it has been imported.
    """
    found = Trace()
    recorder = Recorder(found, _MINIGRAD, tells_before=True)
    watch.watchers.append(recorder)
    torch = sys.modules.get("torch")
    mode = _torch_mode(torch, found) if torch is not None else None
    try:
        if mode is None:
            yield found
        else:
            with mode:
                yield found
    finally:
        watch.watchers.remove(recorder)
        _last[:] = [found]


def _torch_mode(torch: Any, found: Trace) -> Any:
    """A TorchFunctionMode that reports every torch call to a Recorder."""
    recorder = Recorder(found, torch, tells_before=False)

    class Watch(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
            kwargs = kwargs or {}
            op = _torch_op_name(func)
            if op == "requires_grad_":  # told before the flag changes, as minigrad does
                flag = args[1] if len(args) > 1 else kwargs.get("requires_grad", True)
                recorder(op, args[:1], flag)
                return func(*args, **kwargs)
            if op == "_set_grad_enabled":
                recorder(op, (), args[0])
            result = func(*args, **kwargs)
            if op:
                recorder(op, args, result)
            return result

    return Watch()


def _torch_op_name(func: Any) -> str:
    """torch's name of a call; `.data` and `.requires_grad = x` arrive as `__get__`/`__set__`."""
    name = getattr(func, "__name__", "")
    if name in ("__get__", "__set__"):
        attribute = getattr(getattr(func, "__self__", None), "__name__", "")
        if attribute == "data" and name == "__get__":
            return "data"
        if attribute == "requires_grad" and name == "__set__":
            return "requires_grad_"
        return ""
    return name
