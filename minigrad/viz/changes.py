"""What a call changed: facts about tensors, functions, saved values and edges, as data.

`find_facts(before, after)` compares an aligned `after` (see matching.align) with `before`.
Each kind of node has its own small function that returns facts as frozen dataclasses. They
hold keys, names, labels and numbers, never a sentence: the sentences of `Comparison.summary()`
and the red notes of the picture (`Marks`) are both made from these facts by change_text.py,
so no text is ever read back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Edge, GraphSnapshot, SavedNode

__all__ = [
    "Changes",
    "EdgeFacts",
    "Fact",
    "Marks",
    "NewFunction",
    "NewTensor",
    "SavedChange",
    "TensorChange",
    "Unseen",
    "carry_unseen",
    "edge_name",
    "find_facts",
    "still_unseen",
]


# ---- the facts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewTensor:
    """A tensor that was not in the graph before (one the call returned, say)."""

    key: str
    name: str
    is_leaf: bool
    requires_grad: bool
    grad_fn: str | None  # label of its grad_fn


# what a TensorChange says happened
BECAME_LEAF = "became a leaf"  # old: the label of the grad_fn it had
NEW_GRAD_FN = "new grad_fn"  # new: the label of its grad_fn now
STOPPED_REQUIRING_GRAD = "stopped requiring grad"
STARTED_REQUIRING_GRAD = "started requiring grad"
VERSION = "version"  # old, new: the two versions


@dataclass(frozen=True)
class TensorChange:
    """One change of a tensor that was there before (one of the five kinds above)."""

    key: str
    name: str
    kind: str
    old: str | int | None = None
    new: str | int | None = None


@dataclass(frozen=True)
class NewFunction:
    """A grad_fn node that was not in the graph before."""

    key: str
    label: str


# what a SavedChange says happened
STALE = "stale"  # changed in place since it was saved: backward will raise
UNSEEN = "changed unseen"  # its memory changed through another version counter (.data)
FREED = "freed"  # backward freed it


@dataclass(frozen=True)
class SavedChange:
    """One change of a value a function saved for backward."""

    key: str
    function: str  # label of the function that saved it: "SigmoidBackward0"
    slot: str  # "result"
    owner: str | None  # name of the tensor it was saved from, when that tensor is drawn
    kind: str  # STALE, UNSEEN or FREED
    saved_version: int | None = None
    current_version: int | None = None
    movers: tuple[str, ...] = ()  # UNSEEN: the tensors whose version moved instead


@dataclass(frozen=True)
class EdgeFacts:
    """Edges of `before` that `after` no longer has, and the nodes gone with them."""

    removed: tuple[Edge, ...]  # every such edge (drawn red dashed in the 'after' half)
    cut: tuple[tuple[str, str], ...]  # (source, target) names of the edges the call cut
    gone: tuple[str, ...]  # keys of before-nodes with no counterpart after
    unreachable: tuple[str, ...]  # labels of the functions among them


Fact = NewTensor | TensorChange | NewFunction | SavedChange

# Saved values whose memory was changed through another version counter (UNSEEN), remembered
# across the steps of a stepper: (the saving function's uid, slot) -> the tensors it changed
# through. One snapshot cannot tell that a value is silently corrupted (its versions still
# agree), so the stepper carries what an earlier step found.
Unseen = dict[tuple[int, str], tuple[str, ...]]


@dataclass
class Marks:
    """What the 'after' half of a before/after picture highlights (keys are snapshot keys)."""

    notes: dict[str, list[str]] = field(default_factory=dict)  # extra red lines per node
    changed: set[str] = field(default_factory=set)  # nodes drawn with a red border
    new: set[str] = field(default_factory=set)  # nodes that did not exist before


@dataclass(frozen=True)
class Changes:
    """The differences between two aligned snapshots, as data and as sentences.

    compare.changes() makes it: the facts from here, the lines and marks from change_text.py.
    """

    removed_edges: tuple[Edge, ...]
    gone: tuple[str, ...]  # keys of before-nodes with no counterpart after
    marks: Marks
    lines: tuple[str, ...]
    facts: tuple[Fact, ...] = ()  # tensors, then functions, then saved values
    edges: EdgeFacts | None = None


# ---- finding them ----------------------------------------------------------------------------


def tensor_facts(before: GraphSnapshot, after: GraphSnapshot) -> list[NewTensor | TensorChange]:
    """New tensors and changed ones, in the after snapshot's order."""
    old_tensors = {t.key: t for t in before.tensors}
    facts: list[NewTensor | TensorChange] = []
    for tensor in after.tensors:
        old = old_tensors.get(tensor.key)
        if old is None:
            grad_fn = after.by_key(tensor.grad_fn).label if tensor.grad_fn else None
            facts.append(
                NewTensor(tensor.key, tensor.name, tensor.is_leaf, tensor.requires_grad, grad_fn)
            )
            continue
        key, name = tensor.key, tensor.name
        if not old.is_leaf and tensor.is_leaf:
            grad_fn = before.by_key(old.grad_fn).label if old.grad_fn else "?"
            facts.append(TensorChange(key, name, BECAME_LEAF, old=grad_fn))
        elif old.grad_fn != tensor.grad_fn and tensor.grad_fn is not None:
            grad_fn = after.by_key(tensor.grad_fn).label
            facts.append(TensorChange(key, name, NEW_GRAD_FN, new=grad_fn))
        if old.requires_grad and not tensor.requires_grad:
            facts.append(TensorChange(key, name, STOPPED_REQUIRING_GRAD))
        elif not old.requires_grad and tensor.requires_grad:
            facts.append(TensorChange(key, name, STARTED_REQUIRING_GRAD))
        if old.version != tensor.version:
            facts.append(TensorChange(key, name, VERSION, old=old.version, new=tensor.version))
    return facts


def function_facts(before: GraphSnapshot, after: GraphSnapshot) -> list[NewFunction]:
    """grad_fn nodes the call added."""
    known = {f.key for f in before.functions}
    return [NewFunction(f.key, f.label) for f in after.functions if f.key not in known]


def saved_change(
    snap: GraphSnapshot,
    value: SavedNode,
    kind: str,
    versions: bool = True,
    movers: tuple[str, ...] = (),
) -> SavedChange:
    """A SavedChange of `kind` for `value`, named as `snap` names its function and owner."""
    owner = snap.by_key(value.tensor).name if value.tensor is not None else None
    return SavedChange(
        value.key,
        snap.by_key(value.function).label,
        value.slot,
        owner,
        kind,
        value.saved_version if versions else None,
        value.current_version if versions else None,
        movers,
    )


def saved_facts(before: GraphSnapshot, after: GraphSnapshot) -> list[SavedChange]:
    """Saved values that became stale, changed behind their version check, or were freed."""
    old_saved = {s.key: s for s in before.saved}
    old_tensors = {t.key: t for t in before.tensors}
    facts = []
    for value in after.saved:
        old = old_saved.get(value.key)
        if value.stale and (old is None or not old.stale):
            facts.append(saved_change(after, value, STALE))
        elif not value.stale and value.storage is not None:
            # the memory changed through an alias with its own counter (.data): no check sees it
            movers = tuple(
                t.name
                for t in after.tensors
                if t.storage == value.storage
                and t.counter != value.counter
                and t.key in old_tensors
                and old_tensors[t.key].version != t.version
            )
            if movers:
                facts.append(saved_change(after, value, UNSEEN, movers=movers))
        if old is not None and value.freed and not old.freed:
            facts.append(saved_change(before, old, FREED, versions=False))
    return facts


def edge_name(snap: GraphSnapshot, key: str) -> str:
    """How a node is called in a sentence: its label, its name, or 'None' for an empty slot."""
    if "_none" in key:
        return "None"
    node = snap.by_key(key)
    return getattr(node, "label", None) or getattr(node, "name", None) or key


def edge_facts(before: GraphSnapshot, after: GraphSnapshot) -> EdgeFacts:
    """Edges the call removed; which of them it cut; the nodes no longer in the graph."""
    after_edges = {(e.src, e.dst, e.kind, e.slot) for e in after.edges}
    after_keys = after.keys() | {e.src for e in after.edges if e.kind == "none"}
    removed: list[Edge] = []
    cut: list[tuple[str, str]] = []
    gone: list[str] = []
    for edge in before.edges:
        if (edge.src, edge.dst, edge.kind, edge.slot) in after_edges or edge.kind == "saved":
            continue
        if edge.kind == "none" and edge.src not in after_keys:
            continue  # an empty slot that went away with its function: nothing to show
        removed.append(edge)
        if edge.dst in after_keys:  # the cut itself; edges further up merely became unreachable
            cut.append((edge_name(before, edge.src), edge_name(before, edge.dst)))
        for key in (edge.src, edge.dst):
            if key not in after_keys and key not in gone:
                gone.append(key)
    after_functions = {f.key for f in after.functions}
    for function in before.functions:
        if function.key not in after_functions and function.key not in gone:
            gone.append(function.key)
    unreachable = tuple(
        edge_name(before, key) for key in gone if key.startswith("F") and "_none" not in key
    )
    return EdgeFacts(tuple(removed), tuple(cut), tuple(gone), unreachable)


def find_facts(before: GraphSnapshot, after: GraphSnapshot) -> tuple[list[Fact], EdgeFacts]:
    """Everything that changed from `before` to an aligned `after`: tensors, then functions,
    then saved values; and the edges."""
    facts: list[Fact] = [
        *tensor_facts(before, after),
        *function_facts(before, after),
        *saved_facts(before, after),
    ]
    return facts, edge_facts(before, after)


def still_unseen(snap: GraphSnapshot, unseen: Unseen) -> dict[str, tuple[str, ...]]:
    """saved key -> movers, for the values of `unseen` that `snap` still holds.

    A value backward freed, or one now stale (backward will raise after all), is dropped.
    """
    found = {}
    for value in snap.saved:
        movers = unseen.get((snap.by_key(value.function).uid, value.slot))
        if movers and not value.freed and not value.stale:
            found[value.key] = movers
    return found


def carry_unseen(after: GraphSnapshot, facts: tuple[Fact, ...], unseen: Unseen) -> Unseen:
    """`unseen` as it stands after a step: what `after` still holds, and what `facts` found."""
    carried = {}
    for key, movers in still_unseen(after, unseen).items():
        value = after.by_key(key)
        carried[(after.by_key(value.function).uid, value.slot)] = movers
    for fact in facts:
        if isinstance(fact, SavedChange) and fact.kind == UNSEEN:
            value = after.by_key(fact.key)
            carried[(after.by_key(value.function).uid, value.slot)] = fact.movers
    return carried
