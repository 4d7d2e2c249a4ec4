"""An immutable picture of an autograd graph: plain frozen dataclasses, nothing else.

`snapshot(*roots, names=...)` (walk.py) reads a minigrad or torch graph once and copies
everything a drawing or a text summary needs into these classes. Copying matters: `detach_()`
and in-place operations change the graph and the version counters afterwards, and a
before/after comparison needs the "before" to stay as it was.

Keys are the DOT ids of the picture: tensors `T0, T1, ...`, functions `F0, F1, ...`, saved
values `<function>_<slot>` (`F0_result`), empty input slots `<function>_none<slot>`, storages
`S0, S1, ...`, version counters `C0, C1, ...`. How they are numbered, and what torch does not
say, is in walk.py and readers.py. Nothing here reads a graph, writes text or draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .words import say

__all__ = [
    "Edge",
    "FunctionNode",
    "GraphSnapshot",
    "SavedNode",
    "StorageGroup",
    "TensorNode",
]


@dataclass(frozen=True)
class TensorNode:
    """A tensor the graph mentions: a root, a named tensor, or a leaf reached by AccumulateGrad."""

    key: str  # DOT id, e.g. "T0"
    name: str  # what the learner sees: their name, or t0, t1, ...
    shape: tuple[int, ...]
    dtype: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None  # key of its FunctionNode
    version: int
    storage: str  # key of its StorageGroup
    counter: str | None  # which version counter ("C0", ...); None when torch does not say
    is_view: bool
    is_root: bool
    named: bool  # the user gave this name
    uid: int = field(compare=False, repr=False)  # identity inside this process, for compare()


@dataclass(frozen=True)
class SavedNode:
    """A value a function kept for backward, and the version check backward will make."""

    key: str
    function: str  # key of the FunctionNode that saved it
    slot: str  # torch's slot name: self, other, result, mat2, ...
    tensor: str | None  # key of the TensorNode it was saved from, when that tensor is drawn
    saved_version: int | None  # None when freed (or not readable)
    current_version: int | None
    freed: bool
    is_output: bool
    storage: str | None
    counter: str | None

    @property
    def stale(self) -> bool:
        """True when the memory changed since it was saved: backward will raise."""
        return (
            not self.freed
            and self.saved_version is not None
            and self.current_version is not None
            and self.saved_version != self.current_version
        )


@dataclass(frozen=True)
class FunctionNode:
    """A recorded operation (a `grad_fn`), or the AccumulateGrad node of a leaf."""

    key: str  # DOT id, e.g. "F0"
    name: str  # torch's class name: MulBackward0, AccumulateGrad, ...
    label: str  # unique readable name: MulBackward0, MulBackward0#2, AccumulateGrad(a)
    inputs: tuple[str | None, ...]  # keys of next_functions; None for a (None, 0) slot
    saved: tuple[str, ...]  # keys of its SavedNodes
    variable: str | None  # for AccumulateGrad: key of the leaf tensor
    uid: int = field(compare=False, repr=False)


@dataclass(frozen=True)
class StorageGroup:
    """Tensors (and saved values) that look at the same memory, with their version counters."""

    key: str  # "S0", ...
    members: tuple[str, ...]  # tensor and saved keys, in drawing order
    counters: tuple[tuple[str | None, tuple[str, ...]], ...]  # counter -> members using it


@dataclass(frozen=True)
class Edge:
    """One arrow of the picture, pointing the way values flow forward (as torchviz does).

    kinds: "next" (input function -> the function that used it), "none" (an empty (None, 0)
    slot -> the function), "output" (function -> the tensor it made), "leaf" (a leaf tensor ->
    its AccumulateGrad), "saved" (a saved value -> the function that keeps it).
    """

    src: str
    dst: str
    kind: str
    slot: int = 0


@dataclass(frozen=True)
class GraphSnapshot:
    """The whole graph as plain immutable data: see the module docstring for naming rules."""

    tensors: tuple[TensorNode, ...]
    functions: tuple[FunctionNode, ...]
    saved: tuple[SavedNode, ...]
    storages: tuple[StorageGroup, ...]
    edges: tuple[Edge, ...]
    source: str  # "minigrad" or "torch"

    def tensor(self, name: str) -> TensorNode:
        """The tensor called `name` (KeyError if there is none)."""
        for tensor in self.tensors:
            if tensor.name == name:
                return tensor
        raise KeyError(name)

    def function(self, label: str) -> FunctionNode:
        """The function whose label is `label`, e.g. 'SigmoidBackward0' or 'AccumulateGrad(a)'."""
        for function in self.functions:
            if function.label == label:
                return function
        raise KeyError(label)

    def by_key(self, key: str) -> TensorNode | FunctionNode | SavedNode:
        """Any node of the snapshot by its DOT id."""
        return self._index()[key]

    def keys(self) -> set[str]:
        """The DOT ids of every tensor, function and saved value (not the empty slots)."""
        return set(self._index())

    def _index(self) -> dict[str, Any]:
        # built once: the snapshot never changes (object.__setattr__ gets past frozen=True)
        index = self.__dict__.get("_key_index")
        if index is None:
            index = {node.key: node for node in (*self.tensors, *self.functions, *self.saved)}
            object.__setattr__(self, "_key_index", index)
        return index

    @property
    def node_count(self) -> int:
        """Nodes a drawing has: tensors, functions, saved values and empty slots."""
        none_slots = sum(1 for edge in self.edges if edge.kind == "none")
        return len(self.tensors) + len(self.functions) + len(self.saved) + none_slots

    def __repr__(self) -> str:
        return say(
            "<minigrad.viz snapshot ({source}): {tensors} tensors, {functions} functions, "
            "{saved} saved>",
            source=self.source,
            tensors=len(self.tensors),
            functions=len(self.functions),
            saved=len(self.saved),
        )
