"""What a call changed: facts about tensors, functions, saved values and edges, then the text.

`changes(before, after)` compares an aligned `after` (see compare.align) with `before`. Each
kind of node has its own small function that returns facts as frozen dataclasses; the
sentences of `Comparison.summary()` and the red notes of the picture are both made from those
facts at the end, so no text is ever read back.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Edge, GraphSnapshot, SavedNode
from .render import Marks
from .text import sharing_note

__all__ = [
    "Changes",
    "EdgeFacts",
    "NewFunction",
    "NewTensor",
    "SavedChange",
    "TensorChange",
    "changes",
    "edge_name",
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
    sharing: str  # text.sharing_note: " (shares memory + version counter with out)" or ""


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
    name: str  # "SigmoidBackward0 saved result=out"
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


@dataclass(frozen=True)
class Changes:
    """The differences between two aligned snapshots, as data and as sentences."""

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
            sharing = sharing_note(after, tensor)
            facts.append(
                NewTensor(
                    tensor.key, tensor.name, tensor.is_leaf, tensor.requires_grad, grad_fn, sharing
                )
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


def saved_name(snap: GraphSnapshot, value: SavedNode) -> str:
    """'SigmoidBackward0 saved result=out' (without '=out' when the owner is not drawn)."""
    owner = f"={snap.by_key(value.tensor).name}" if value.tensor is not None else ""
    return f"{snap.by_key(value.function).label} saved {value.slot}{owner}"


def saved_facts(before: GraphSnapshot, after: GraphSnapshot) -> list[SavedChange]:
    """Saved values that became stale, changed behind their version check, or were freed."""
    old_saved = {s.key: s for s in before.saved}
    old_tensors = {t.key: t for t in before.tensors}
    facts = []
    for value in after.saved:
        old = old_saved.get(value.key)
        versions = {"saved_version": value.saved_version, "current_version": value.current_version}
        if value.stale and (old is None or not old.stale):
            facts.append(SavedChange(value.key, saved_name(after, value), STALE, **versions))
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
                name = saved_name(after, value)
                facts.append(SavedChange(value.key, name, UNSEEN, movers=movers, **versions))
        if old is not None and value.freed and not old.freed:
            facts.append(SavedChange(value.key, saved_name(before, old), FREED))
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
    after_keys = set(after._index()) | {e.src for e in after.edges if e.kind == "none"}
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


# ---- saying them -----------------------------------------------------------------------------


def tensor_change_text(fact: TensorChange) -> str:
    """The sentence for one tensor change: 'became a leaf (grad_fn was MulBackward0)'."""
    if fact.kind == BECAME_LEAF:
        return f"became a leaf (grad_fn was {fact.old})"
    if fact.kind == VERSION:
        return f"version v{fact.old} -> v{fact.new}"
    return tensor_change_note(fact)


def tensor_change_note(fact: TensorChange) -> str:
    """The short red note the picture writes into the tensor's node."""
    if fact.kind == BECAME_LEAF:
        return "became a leaf"
    if fact.kind == NEW_GRAD_FN:
        return f"grad_fn is now {fact.new}"
    if fact.kind == STOPPED_REQUIRING_GRAD:
        return "no longer requires grad"
    if fact.kind == STARTED_REQUIRING_GRAD:
        return "now requires grad"
    return f"was v{fact.old}"  # VERSION


def new_tensor_text(fact: NewTensor) -> str:
    if fact.is_leaf:
        kind = "leaf, requires_grad" if fact.requires_grad else "leaf, no grad"
    else:
        kind = f"non-leaf, grad_fn={fact.grad_fn}"
    return f"{fact.name}: new tensor, {kind}{fact.sharing}"


def saved_change_text(fact: SavedChange) -> str:
    if fact.kind == STALE:
        return (
            f"{fact.name}: saved v{fact.saved_version}, now v{fact.current_version} -> "
            "backward will raise"
        )
    if fact.kind == UNSEEN:
        return (
            f"{fact.name}: memory changed through {', '.join(fact.movers)} (another version "
            f"counter), still v{fact.current_version}: backward will silently use the new values"
        )
    return f"{fact.name}: freed"


def fact_lines(facts: list[Fact], edges: EdgeFacts) -> list[str]:
    """One line per new tensor, changed tensor (its changes joined by ';'), node and value."""
    lines: list[str] = []
    last_tensor = None  # the changes of one tensor come one after another: one line for them
    for fact in facts:
        if isinstance(fact, TensorChange) and fact.key == last_tensor:
            lines[-1] += f"; {tensor_change_text(fact)}"
            continue
        last_tensor = fact.key if isinstance(fact, TensorChange) else None
        if isinstance(fact, TensorChange):
            lines.append(f"{fact.name}: {tensor_change_text(fact)}")
        elif isinstance(fact, NewTensor):
            lines.append(new_tensor_text(fact))
        elif isinstance(fact, NewFunction):
            lines.append(f"{fact.label}: new node")
        else:
            lines.append(saved_change_text(fact))
    lines += [f"edge removed: {src} -> {dst}" for src, dst in edges.cut]
    if edges.unreachable:
        lines.append(f"no longer reachable: {', '.join(edges.unreachable)}")
    return lines


def fact_marks(facts: list[Fact]) -> Marks:
    """What the 'after' picture highlights: red notes and borders, thick borders for new."""
    marks = Marks()

    def note(key: str, text: str) -> None:
        marks.notes.setdefault(key, []).append(text)
        marks.changed.add(key)

    for fact in facts:
        if isinstance(fact, NewTensor | NewFunction):
            marks.new.add(fact.key)
        elif isinstance(fact, TensorChange):
            note(fact.key, tensor_change_note(fact))
        elif fact.kind == UNSEEN:
            note(fact.key, f"memory changed via {', '.join(fact.movers)}")
            note(fact.key, "backward will NOT notice")
    return marks


def changes(before: GraphSnapshot, after: GraphSnapshot) -> Changes:
    """Compare an aligned `after` with `before` (see `compare.align`)."""
    facts: list[Fact] = [
        *tensor_facts(before, after),
        *function_facts(before, after),
        *saved_facts(before, after),
    ]
    edges = edge_facts(before, after)
    return Changes(
        removed_edges=edges.removed,
        gone=edges.gone,
        marks=fact_marks(facts),
        lines=tuple(fact_lines(facts, edges)),
        facts=tuple(facts),
        edges=edges,
    )
