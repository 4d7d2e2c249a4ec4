"""Walk a graph once, through a reader (readers.py), and copy it into a GraphSnapshot.

Naming rules (the same in every process, whatever PYTHONHASHSEED says):

- tensors: the names the user passed; the others `t0, t1, ...` in creation order (minigrad's
  `_serial`) or, for torch tensors, which carry no creation number, in discovery order;
- functions: traversal order from the roots (breadth first, `next_functions` in order);
- storages: `S0, S1, ...` in the order of the first tensor (or saved value) that uses them.

Python's `id()` is used only as a temporary key while walking one graph (to notice that two
references are the same object); it never reaches a name, a DOT id or a printed line.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from .model import Edge, FunctionNode, GraphSnapshot, SavedNode, StorageGroup, TensorNode
from .readers import MinigradReader, TorchReader, is_torch_tensor

__all__ = ["snapshot"]

# torch lists saved slots alphabetically, minigrad in the order it saved them: use one order
SLOT_ORDER = ("self", "other", "mat2", "vec", "tensor", "exponent", "result")


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
    reader: Any = TorchReader if kinds == {True} else MinigradReader
    return Walker(reader).walk(list(roots), named)


class Numbering:
    """Names storages `S0, S1, ...` and version counters `C0, C1, ...` in order of first use."""

    def __init__(self) -> None:
        self.storages: dict[Any, str] = {}
        self.counters: dict[Any, str] = {}

    def storage(self, raw: Any, fallback: str) -> str:
        """The name of the storage the reader calls `raw` (None: memory of its own)."""
        if raw is None:
            raw = ("alone", fallback)
        return self.storages.setdefault(raw, f"S{len(self.storages)}")

    def counter(self, raw: Any) -> str | None:
        """The name of a version counter; None when the reader does not know it (torch)."""
        if raw is None:
            return None
        return self.counters.setdefault(raw, f"C{len(self.counters)}")


class Walker:
    """Builds one snapshot; keeps temporary identity maps that die with it."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.tensor_objects: dict[int, Any] = {}  # uid -> tensor, in discovery order
        self.user_names: dict[int, str] = {}
        self.root_uids: set[int] = set()
        self.outputs: dict[int, Any] | None = None  # grad_fn uid -> tensor, built when needed
        self.function_keys: dict[int, str] = {}  # node uid -> "F0", ...
        self.tensor_keys: dict[int, tuple[str, str]] = {}  # tensor uid -> ("T0", name)
        self.label_counts: dict[str, int] = {}  # MulBackward0, MulBackward0#2, ...
        self.numbering = Numbering()

    def add_tensor(self, tensor: Any) -> int:
        uid = self.reader.tensor_uid(tensor)
        self.tensor_objects.setdefault(uid, tensor)
        return uid

    def walk(self, roots: list[Any], named: list[tuple[str, Any]]) -> GraphSnapshot:
        """The snapshot of everything reachable from `roots` and the named tensors."""
        for tensor in roots:
            self.root_uids.add(self.add_tensor(tensor))
        for name, tensor in named:
            uid = self.add_tensor(tensor)
            self.user_names.setdefault(uid, str(name))
        nodes = self.find_functions()
        self.tensor_keys = self.name_tensors()
        self.function_keys = {
            self.reader.node_uid(node): f"F{index}" for index, node in enumerate(nodes)
        }
        saved_by_node = [self.saved_entries(node) for node in nodes]  # read once per node
        tensors = [
            self.tensor_node(uid, key, name) for uid, (key, name) in self.tensor_keys.items()
        ]
        functions: list[FunctionNode] = []
        saved: list[SavedNode] = []
        edges: list[Edge] = []
        for index, node in enumerate(nodes):
            function, values, function_edges = self.function_node(index, node, saved_by_node[index])
            functions.append(function)
            saved += values
            edges += function_edges
        edges += [Edge(t.grad_fn, t.key, "output") for t in tensors if t.grad_fn is not None]
        return GraphSnapshot(
            tensors=tuple(tensors),
            functions=tuple(functions),
            saved=tuple(saved),
            storages=group_storages(tensors, saved),
            edges=tuple(edges),
            source=self.reader.source,
        )

    def find_functions(self) -> list[Any]:
        """Breadth first over functions, from the known tensors' grad_fns; leaves on the way."""
        reader = self.reader
        order: list[Any] = []
        seen: set[int] = set()
        queue: deque[Any] = deque()

        def visit(node: Any) -> None:
            uid = reader.node_uid(node)
            if uid not in seen:
                seen.add(uid)
                order.append(node)
                queue.append(node)

        for tensor in list(self.tensor_objects.values()):
            grad_fn = reader.grad_fn(tensor)
            if grad_fn is not None:
                visit(grad_fn)
        while queue:
            node = queue.popleft()
            variable = reader.variable(node)
            if variable is not None:
                self.add_tensor(variable)
            for next_node in reader.next_functions(node):
                if next_node is not None:
                    visit(next_node)
        return order

    def saved_entries(self, node: Any) -> list[dict[str, Any]]:
        """The reader's saved values of `node`, in one slot order, with owner and memory filled."""
        entries = sorted(self.reader.saved_values(node, self.tensor_objects), key=slot_order)
        for entry in entries:
            if entry["freed"]:  # the values are gone: no memory, nothing to point at
                entry.update(tensor=None, storage=None, counter=None)
                continue
            if entry["tensor"] is None and entry["is_output"]:
                entry["tensor"] = self.output_of(node)
            owner = entry["tensor"]
            if owner is not None:
                if entry["storage"] is None:
                    entry["storage"] = self.reader.storage_key(owner)
                if entry["counter"] is None:
                    entry["counter"] = self.reader.counter_key(owner)
        return entries

    def tensor_node(self, uid: int, key: str, name: str) -> TensorNode:
        reader = self.reader
        tensor = self.tensor_objects[uid]
        grad_fn = reader.grad_fn(tensor)
        return TensorNode(
            key=key,
            name=name,
            grad_fn=self.function_keys.get(reader.node_uid(grad_fn)) if grad_fn else None,
            storage=self.numbering.storage(reader.storage_key(tensor), key),
            counter=self.numbering.counter(reader.counter_key(tensor)),
            is_root=uid in self.root_uids,
            named=uid in self.user_names,
            uid=uid,
            **reader.tensor_facts(tensor),
        )

    def key_of(self, tensor: Any) -> str:
        """The DOT key ("T0") of a tensor the walk has named."""
        return self.tensor_keys[self.reader.tensor_uid(tensor)][0]

    def function_node(
        self, index: int, node: Any, entries: list[dict[str, Any]]
    ) -> tuple[FunctionNode, list[SavedNode], list[Edge]]:
        """One function, its saved values, and its edges: inputs by slot, leaf, then saved."""
        reader = self.reader
        key = f"F{index}"
        name = reader.node_name(node)
        variable = reader.variable(node)
        variable_key = self.key_of(variable) if variable is not None else None
        inputs: list[str | None] = []
        edges: list[Edge] = []
        for slot, next_node in enumerate(reader.next_functions(node)):
            if next_node is None:
                inputs.append(None)
                edges.append(Edge(f"{key}_none{slot}", key, "none", slot))
            else:
                source_key = self.function_keys[reader.node_uid(next_node)]
                inputs.append(source_key)
                edges.append(Edge(source_key, key, "next", slot))
        if variable_key is not None:
            edges.append(Edge(variable_key, key, "leaf"))
        values = [self.saved_node(key, entry) for entry in entries]
        edges += [Edge(value.key, key, "saved") for value in values]
        function = FunctionNode(
            key=key,
            name=name,
            label=self.function_label(name, variable_key),
            inputs=tuple(inputs),
            saved=tuple(value.key for value in values),
            variable=variable_key,
            uid=reader.node_uid(node),
        )
        return function, values, edges

    def function_label(self, name: str, variable_key: str | None) -> str:
        """'AccumulateGrad(a)' for a leaf's node; else the name, numbered from its second use."""
        if variable_key is not None:
            names = dict(self.tensor_keys.values())
            return f"{name}({names[variable_key]})"
        self.label_counts[name] = self.label_counts.get(name, 0) + 1
        count = self.label_counts[name]
        return name if count == 1 else f"{name}#{count}"

    def saved_node(self, function_key: str, entry: Mapping[str, Any]) -> SavedNode:
        saved_key = f"{function_key}_{entry['slot']}"
        owner = entry["tensor"]
        return SavedNode(
            key=saved_key,
            function=function_key,
            slot=entry["slot"],
            tensor=self.key_of(owner) if owner is not None else None,
            saved_version=entry["saved_version"],
            current_version=entry["current_version"],
            freed=entry["freed"],
            is_output=entry["is_output"],
            storage=self.numbering.storage(entry["storage"], saved_key),
            counter=self.numbering.counter(entry["counter"]),
        )

    def output_of(self, node: Any) -> Any:
        """A drawn tensor whose grad_fn is `node` (the owner of a saved 'result')."""
        if self.outputs is None:
            self.outputs = {}
            for tensor in self.tensor_objects.values():
                grad_fn = self.reader.grad_fn(tensor)
                if grad_fn is not None:
                    self.outputs.setdefault(self.reader.node_uid(grad_fn), tensor)
        return self.outputs.get(self.reader.node_uid(node))

    def name_tensors(self) -> dict[int, tuple[str, str]]:
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


def slot_order(entry: Mapping[str, Any]) -> tuple[int, str]:
    """Sort key of a saved value: torch's usual slots in SLOT_ORDER, then by name."""
    slot = entry["slot"]
    rank = SLOT_ORDER.index(slot) if slot in SLOT_ORDER else len(SLOT_ORDER)
    return (rank, slot)


def group_storages(
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
