"""An immutable picture of an autograd graph, read from minigrad or from real PyTorch.

`snapshot(*roots, names=...)` walks the graph once and copies everything a drawing or a text
summary needs into frozen dataclasses. Copying matters: `detach_()` and in-place operations
change the graph and the version counters afterwards, and a before/after comparison needs the
"before" to stay as it was.

Naming rules (the same in every process, whatever PYTHONHASHSEED says):

- tensors: the names the user passed; the others `t0, t1, ...` in creation order (minigrad's
  `_serial`) or, for torch tensors, which carry no creation number, in discovery order;
- functions: traversal order from the roots (breadth first, `next_functions` in order);
- storages: `S0, S1, ...` in the order of the first tensor (or saved value) that uses them.

Reading torch graphs gives the same snapshot, except for what torch does not expose:

- which version counter a tensor uses (`counter` is None; `summary(counters=False)` leaves
  counters out, so minigrad's and torch's summaries of one program can be compared);
- the version a value had when it was saved: read from the error that reading a changed
  `_saved_*` attribute raises ("is at version 1; expected version 0"), and then the saved value
  is linked to a drawn tensor only for the `result` slot (the tensor the node made);
- a creation order: unnamed torch tensors are numbered in discovery order;
- object identity between two snapshots is `id()` of live objects, so compare() should be
  given snapshots of graphs that are still alive (which cut() guarantees).

Python's `id()` is used only as a temporary key while walking one graph (to notice that two
references are the same object); it never reaches a name, a DOT id or a printed line.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import graphviz

__all__ = [
    "Edge",
    "FunctionNode",
    "GraphSnapshot",
    "SavedNode",
    "StorageGroup",
    "TensorNode",
    "snapshot",
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

    def summary(self, counters: bool = True) -> str:
        """The text form: tensors, functions and their edges, in a stable order."""
        from .text import summary_text

        return summary_text(self, counters=counters)

    def draw(self, **options: Any) -> graphviz.Digraph:
        """Draw this snapshot (same options as `viz.draw`)."""
        from .render import draw_snapshot

        return draw_snapshot(self, **options)

    def __repr__(self) -> str:
        return (
            f"<minigrad.viz snapshot ({self.source}): {len(self.tensors)} tensors, "
            f"{len(self.functions)} functions, {len(self.saved)} saved>"
        )


# --------------------------------------------------------------------------------------------
# Reading a graph: the two backends differ only in how they read one tensor or one node
# --------------------------------------------------------------------------------------------


def is_torch_tensor(value: object) -> bool:
    """True for a torch.Tensor, decided without importing torch."""
    return any(cls.__module__.startswith("torch") for cls in type(value).__mro__)


class _MinigradReader:
    """How to read minigrad's objects (see engine_api: fields the engine guarantees)."""

    source = "minigrad"

    @staticmethod
    def order(tensor: Any) -> int:
        return tensor._serial

    @staticmethod
    def tensor_facts(tensor: Any) -> dict[str, Any]:
        return {
            "shape": tuple(tensor._array.shape),
            "dtype": tensor._array.dtype.name,
            "requires_grad": tensor.requires_grad,
            "is_leaf": tensor.grad_fn is None,
            "version": tensor._version_counter.value,
            "is_view": tensor._base is not None,
        }

    @staticmethod
    def grad_fn(tensor: Any) -> Any:
        return tensor.grad_fn

    @staticmethod
    def storage_key(tensor: Any) -> tuple[str, int]:
        return ("storage", tensor._storage.serial)

    @staticmethod
    def counter_key(tensor: Any) -> tuple[str, int] | None:
        return ("counter", id(tensor._version_counter))

    @staticmethod
    def node_name(node: Any) -> str:
        return node.name()

    @staticmethod
    def next_functions(node: Any) -> tuple[Any, ...]:
        return tuple(next_node for next_node, _ in node.next_functions)

    @staticmethod
    def variable(node: Any) -> Any:
        return getattr(node, "variable", None) if node.name() == "AccumulateGrad" else None

    @staticmethod
    def node_uid(node: Any) -> int:
        return node.serial

    @staticmethod
    def tensor_uid(tensor: Any) -> int:
        return tensor._serial

    @staticmethod
    def saved_values(node: Any, tensors: Mapping[int, Any]) -> list[dict[str, Any]]:
        """One dict per saved slot; `tensors` maps tensor uid -> tensor object."""
        values = []
        for slot, saved in node.saved.items():
            owner = tensors.get(saved.tensor_serial)
            values.append(
                {
                    "slot": slot,
                    "tensor": owner,
                    "is_output": saved.is_output,
                    "freed": saved.freed,
                    "saved_version": None if saved.freed else saved.saved_version,
                    "current_version": None if saved.freed else saved.current_version,
                    "storage": ("storage", saved.storage.serial),
                    "counter": ("counter", id(saved.version_counter)),
                }
            )
        return values


_VERSION_ERROR = re.compile(r"is at version (\d+); expected version (\d+)")


class _TorchReader:
    """How to read torch's objects: `next_functions`, `variable`, `_saved_*`, `_version`.

    torch does not expose which version counter a tensor uses (so `counter` is None), nor the
    version a value had when it was saved; reading a `_saved_*` attribute of a changed value
    raises the same error backward would, and that error states both versions.
    """

    source = "torch"

    @staticmethod
    def order(tensor: Any) -> int | None:
        return None  # torch keeps no creation order: discovery order is used

    @staticmethod
    def tensor_facts(tensor: Any) -> dict[str, Any]:
        return {
            "shape": tuple(tensor.shape),
            "dtype": str(tensor.dtype).removeprefix("torch."),
            "requires_grad": tensor.requires_grad,
            "is_leaf": tensor.is_leaf,
            "version": tensor._version,
            "is_view": tensor._base is not None,
        }

    @staticmethod
    def grad_fn(tensor: Any) -> Any:
        return tensor.grad_fn

    @staticmethod
    def storage_key(tensor: Any) -> tuple[str, int]:
        # only compared for equality inside one snapshot, never printed
        return ("storage", tensor.untyped_storage().data_ptr())

    @staticmethod
    def counter_key(tensor: Any) -> None:
        return None

    @staticmethod
    def node_name(node: Any) -> str:
        return node.name().rsplit("::", 1)[-1]  # 'torch::autograd::AccumulateGrad'

    @staticmethod
    def next_functions(node: Any) -> tuple[Any, ...]:
        return tuple(next_node for next_node, _ in node.next_functions)

    @staticmethod
    def variable(node: Any) -> Any:
        return getattr(node, "variable", None)

    @staticmethod
    def node_uid(node: Any) -> int:
        return id(node)  # matching between two snapshots of live graphs only; never shown

    @staticmethod
    def tensor_uid(tensor: Any) -> int:
        return id(tensor)

    @staticmethod
    def saved_values(node: Any, tensors: Mapping[int, Any]) -> list[dict[str, Any]]:
        values = []
        slots = sorted(
            name.removeprefix("_raw_saved_") for name in dir(node) if name.startswith("_raw_saved_")
        )
        for slot in slots:
            entry: dict[str, Any] = {
                "slot": slot,
                "tensor": None,
                "is_output": slot == "result",
                "freed": False,
                "saved_version": None,
                "current_version": None,
                "storage": None,
                "counter": None,
            }
            try:
                value = getattr(node, f"_saved_{slot}")
            except RuntimeError as error:
                text = str(error)
                match = _VERSION_ERROR.search(text)
                if match:
                    entry["current_version"] = int(match.group(1))
                    entry["saved_version"] = int(match.group(2))
                elif "second time" in text:
                    entry["freed"] = True
                values.append(entry)
                continue
            if value is None or not is_torch_tensor(value):
                continue  # an undefined optional tensor
            entry["saved_version"] = entry["current_version"] = value._version
            entry["storage"] = ("storage", value.untyped_storage().data_ptr())
            owner = tensors.get(id(value))  # torch hands back the saved input object itself
            entry["tensor"] = owner
            values.append(entry)
        return values


# --------------------------------------------------------------------------------------------
# The walk
# --------------------------------------------------------------------------------------------


def snapshot(*roots: Any, names: Mapping[str, Any] | None = None) -> GraphSnapshot:
    """Copy the graph behind `roots` (and the tensors in `names`) into a GraphSnapshot.

    `roots` and the values of `names` are all minigrad tensors or all torch tensors.
    """
    named = list((names or {}).items())
    everything = [*roots, *(tensor for _, tensor in named)]
    for value in everything:
        if not hasattr(value, "grad_fn"):
            raise TypeError(f"viz expects tensors, got {type(value).__name__}")
    kinds = {is_torch_tensor(value) for value in everything}
    if len(kinds) > 1:
        raise TypeError("viz cannot mix minigrad and torch tensors in one graph")
    reader: Any = _TorchReader if kinds == {True} else _MinigradReader
    return _Walker(reader).walk(list(roots), named)


class _Walker:
    """Builds one snapshot; keeps temporary identity maps that die with it."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.tensor_objects: dict[int, Any] = {}  # uid -> tensor, in discovery order
        self.user_names: dict[int, str] = {}
        self.root_uids: set[int] = set()
        self.outputs: dict[int, Any] | None = None  # grad_fn uid -> tensor, built when needed

    def _add_tensor(self, tensor: Any) -> int:
        uid = self.reader.tensor_uid(tensor)
        self.tensor_objects.setdefault(uid, tensor)
        return uid

    def walk(self, roots: list[Any], named: list[tuple[str, Any]]) -> GraphSnapshot:
        reader = self.reader
        for tensor in roots:
            self.root_uids.add(self._add_tensor(tensor))
        for name, tensor in named:
            uid = self._add_tensor(tensor)
            self.user_names.setdefault(uid, str(name))

        # breadth-first over functions, starting from the known tensors' grad_fns
        node_order: list[Any] = []
        node_uids: dict[int, int] = {}  # node uid -> index in node_order
        queue: deque[Any] = deque()

        def visit(node: Any) -> None:
            uid = reader.node_uid(node)
            if uid not in node_uids:
                node_uids[uid] = len(node_order)
                node_order.append(node)
                queue.append(node)

        for tensor in list(self.tensor_objects.values()):
            grad_fn = reader.grad_fn(tensor)
            if grad_fn is not None:
                visit(grad_fn)
        while queue:
            node = queue.popleft()
            variable = reader.variable(node)
            if variable is not None:
                self._add_tensor(variable)
            for next_node in reader.next_functions(node):
                if next_node is not None:
                    visit(next_node)

        tensor_keys = self._name_tensors()
        function_keys = {uid: f"F{index}" for uid, index in node_uids.items()}

        # saved values, read once per node
        saved_by_node: list[list[dict[str, Any]]] = []
        for node in node_order:
            entries = sorted(reader.saved_values(node, self.tensor_objects), key=_slot_order)
            for entry in entries:
                if entry["freed"]:  # the values are gone: no memory, nothing to point at
                    entry.update(tensor=None, storage=None, counter=None)
                    continue
                if entry["tensor"] is None and entry["is_output"]:
                    entry["tensor"] = self._output_of(node)
                owner = entry["tensor"]
                if owner is not None:
                    if entry["storage"] is None:
                        entry["storage"] = reader.storage_key(owner)
                    if entry["counter"] is None:
                        entry["counter"] = reader.counter_key(owner)
            saved_by_node.append(entries)

        # storage groups and version counters, numbered in order of first use
        storage_names: dict[Any, str] = {}
        counter_names: dict[Any, str] = {}

        def storage_name(raw: Any, fallback: str) -> str:
            if raw is None:
                raw = ("alone", fallback)
            return storage_names.setdefault(raw, f"S{len(storage_names)}")

        def counter_name(raw: Any) -> str | None:
            if raw is None:
                return None
            return counter_names.setdefault(raw, f"C{len(counter_names)}")

        tensor_nodes: list[TensorNode] = []
        for uid, (key, name) in tensor_keys.items():
            tensor = self.tensor_objects[uid]
            facts = reader.tensor_facts(tensor)
            grad_fn = reader.grad_fn(tensor)
            grad_fn_key = function_keys.get(reader.node_uid(grad_fn)) if grad_fn else None
            tensor_nodes.append(
                TensorNode(
                    key=key,
                    name=name,
                    grad_fn=grad_fn_key,
                    storage=storage_name(reader.storage_key(tensor), key),
                    counter=counter_name(reader.counter_key(tensor)),
                    is_root=uid in self.root_uids,
                    named=uid in self.user_names,
                    uid=uid,
                    **facts,
                )
            )
        uid_to_key = {uid: key for uid, (key, _) in tensor_keys.items()}
        key_to_name = dict(tensor_keys.values())

        functions: list[FunctionNode] = []
        saved_nodes: list[SavedNode] = []
        edges: list[Edge] = []
        label_counts: dict[str, int] = {}
        for index, node in enumerate(node_order):
            key = f"F{index}"
            name = reader.node_name(node)
            variable = reader.variable(node)
            variable_key = uid_to_key[reader.tensor_uid(variable)] if variable is not None else None
            if variable_key is not None:
                label = f"{name}({key_to_name[variable_key]})"
            else:
                label_counts[name] = label_counts.get(name, 0) + 1
                count = label_counts[name]
                label = name if count == 1 else f"{name}#{count}"
            inputs: list[str | None] = []
            for slot, next_node in enumerate(reader.next_functions(node)):
                if next_node is None:
                    inputs.append(None)
                    edges.append(Edge(f"{key}_none{slot}", key, "none", slot))
                else:
                    source_key = function_keys[reader.node_uid(next_node)]
                    inputs.append(source_key)
                    edges.append(Edge(source_key, key, "next", slot))
            if variable_key is not None:
                edges.append(Edge(variable_key, key, "leaf"))
            saved_keys = []
            for entry in saved_by_node[index]:
                saved_key = f"{key}_{entry['slot']}"
                owner = entry["tensor"]
                saved_nodes.append(
                    SavedNode(
                        key=saved_key,
                        function=key,
                        slot=entry["slot"],
                        tensor=uid_to_key[reader.tensor_uid(owner)] if owner is not None else None,
                        saved_version=entry["saved_version"],
                        current_version=entry["current_version"],
                        freed=entry["freed"],
                        is_output=entry["is_output"],
                        storage=storage_name(entry["storage"], saved_key),
                        counter=counter_name(entry["counter"]),
                    )
                )
                saved_keys.append(saved_key)
                edges.append(Edge(saved_key, key, "saved"))
            functions.append(
                FunctionNode(
                    key=key,
                    name=name,
                    label=label,
                    inputs=tuple(inputs),
                    saved=tuple(saved_keys),
                    variable=variable_key,
                    uid=reader.node_uid(node),
                )
            )
        for tensor_node in tensor_nodes:
            if tensor_node.grad_fn is not None:
                edges.append(Edge(tensor_node.grad_fn, tensor_node.key, "output"))

        storages = _group_storages(tensor_nodes, saved_nodes)
        return GraphSnapshot(
            tensors=tuple(tensor_nodes),
            functions=tuple(functions),
            saved=tuple(saved_nodes),
            storages=storages,
            edges=tuple(edges),
            source=reader.source,
        )

    def _output_of(self, node: Any) -> Any:
        """A drawn tensor whose grad_fn is `node` (the owner of a saved 'result')."""
        if self.outputs is None:
            self.outputs = {}
            for tensor in self.tensor_objects.values():
                grad_fn = self.reader.grad_fn(tensor)
                if grad_fn is not None:
                    self.outputs.setdefault(self.reader.node_uid(grad_fn), tensor)
        return self.outputs.get(self.reader.node_uid(node))

    def _name_tensors(self) -> dict[int, tuple[str, str]]:
        """uid -> (DOT key, display name), in listing order.

        Listing order: the user's names in the order given, then the other tensors in creation
        order (torch: discovery order). Unnamed tensors are called t0, t1, ... in that order,
        skipping any tN the user took.
        """
        discovery = {uid: index for index, uid in enumerate(self.tensor_objects)}

        def creation(uid: int) -> tuple[int, int]:
            order = self.reader.order(self.tensor_objects[uid])
            return (order if order is not None else discovery[uid], discovery[uid])

        unnamed = sorted((uid for uid in discovery if uid not in self.user_names), key=creation)
        names = dict(self.user_names)  # keeps the user's order
        taken = set(names.values())
        number = 0
        for uid in unnamed:
            while f"t{number}" in taken:
                number += 1
            names[uid] = f"t{number}"
            number += 1
        return {uid: (f"T{index}", name) for index, (uid, name) in enumerate(names.items())}


# torch lists saved slots alphabetically, minigrad in the order it saved them: use one order
_SLOT_ORDER = ("self", "other", "mat2", "vec", "tensor", "exponent", "result")


def _slot_order(entry: Mapping[str, Any]) -> tuple[int, str]:
    slot = entry["slot"]
    rank = _SLOT_ORDER.index(slot) if slot in _SLOT_ORDER else len(_SLOT_ORDER)
    return (rank, slot)


def _group_storages(
    tensors: Iterable[TensorNode], saved: Iterable[SavedNode]
) -> tuple[StorageGroup, ...]:
    """Collect members per storage (in the order storages were numbered) and their counters."""
    members: dict[str, list[tuple[str, str | None]]] = {}
    for tensor in tensors:
        members.setdefault(tensor.storage, []).append((tensor.key, tensor.counter))
    for value in saved:
        if value.storage is not None:
            members.setdefault(value.storage, []).append((value.key, value.counter))
    groups = []
    for storage in sorted(members, key=lambda key: int(key[1:])):
        counters: dict[str | None, list[str]] = {}
        for key, counter in members[storage]:
            counters.setdefault(counter, []).append(key)
        groups.append(
            StorageGroup(
                key=storage,
                members=tuple(key for key, _ in members[storage]),
                counters=tuple((counter, tuple(keys)) for counter, keys in counters.items()),
            )
        )
    return tuple(groups)
