"""Before and after: draw two snapshots side by side and mark what changed.

The two snapshots are matched object by object (the same tensor, the same grad_fn node), so
keys in the "after" half are renamed to the keys the same objects had "before". Tensors that
are different objects but carry the same user name are matched too, which lets two runs of a
program (with and without `no_grad`, say) be compared.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from .model import Edge, GraphSnapshot, SavedNode, snapshot
from .render import (
    COLLAPSE_ABOVE,
    RED,
    Graph,
    Marks,
    Options,
    _Builder,
    _esc,
    _html,
    add_legend,
    check_size,
    new_graph,
)
from .text import sharing_note

__all__ = ["Comparison", "compare", "cut", "changes", "align"]


# --------------------------------------------------------------------------------------------
# Matching the two snapshots
# --------------------------------------------------------------------------------------------


def align(before: GraphSnapshot, after: GraphSnapshot) -> GraphSnapshot:
    """`after` with its keys (and automatic names) replaced by those of the same objects before."""
    rename: dict[str, str] = {}
    names: dict[str, str] = {}
    before_tensors = {t.uid: t for t in before.tensors}
    before_named = {t.name: t for t in before.tensors if t.named}
    used = set()
    for tensor in after.tensors:
        match = before_tensors.get(tensor.uid)
        if match is None and tensor.named:
            match = before_named.get(tensor.name)
        if match is not None and match.key not in used:
            used.add(match.key)
            rename[tensor.key] = match.key
            names[tensor.key] = match.name if not tensor.named else tensor.name
    matched = _match_functions(before, after, rename)
    before_by_key = {f.key: f for f in before.functions}
    labels: dict[str, str] = {}  # keep the labels of matched functions; number new ones on
    taken = {f.label for f in before.functions}
    for after_key, before_key in matched.items():
        rename[after_key] = before_key
        labels[after_key] = before_by_key[before_key].label
    for function in after.functions:
        if function.key in labels or function.variable is not None:
            continue
        label, count = function.name, 1
        while label in taken:
            count += 1
            label = f"{function.name}#{count}"
        taken.add(label)
        labels[function.key] = label
    # everything new gets a key that cannot collide with a "before" key
    fresh = {"T": len(before.tensors), "F": len(before.functions)}
    for node in (*after.tensors, *after.functions):
        if node.key not in rename:
            prefix = node.key[0]
            rename[node.key] = f"{prefix}{fresh[prefix]}"
            fresh[prefix] += 1

    def key_of(key: str | None) -> str | None:
        if key is None:
            return None
        if key in rename:
            return rename[key]
        function, _, rest = key.partition("_")  # saved and None-slot keys: F3_result, F3_none0
        return f"{rename[function]}_{rest}"

    tensors = tuple(
        dataclasses.replace(
            t,
            key=key_of(t.key),
            name=names.get(t.key, t.name),
            grad_fn=key_of(t.grad_fn),
        )
        for t in after.tensors
    )
    functions = tuple(
        dataclasses.replace(
            f,
            key=key_of(f.key),
            label=labels.get(f.key, f.label),
            inputs=tuple(key_of(k) for k in f.inputs),
            saved=tuple(key_of(k) for k in f.saved),
            variable=key_of(f.variable),
        )
        for f in after.functions
    )
    saved = tuple(
        dataclasses.replace(
            s, key=key_of(s.key), function=key_of(s.function), tensor=key_of(s.tensor)
        )
        for s in after.saved
    )
    storages = tuple(
        dataclasses.replace(
            g,
            members=tuple(key_of(k) for k in g.members),
            counters=tuple((c, tuple(key_of(k) for k in keys)) for c, keys in g.counters),
        )
        for g in after.storages
    )
    edges = tuple(dataclasses.replace(e, src=key_of(e.src), dst=key_of(e.dst)) for e in after.edges)
    return GraphSnapshot(tensors, functions, saved, storages, edges, after.source)


def _match_functions(
    before: GraphSnapshot, after: GraphSnapshot, tensor_rename: Mapping[str, str]
) -> dict[str, str]:
    """after function key -> before function key.

    First the same node objects. Then, for two runs of a program, structure: the grad_fns of
    matched tensors, and from there the inputs slot by slot, when the names agree.
    """
    by_uid = {f.uid: f.key for f in before.functions}
    matched = {f.key: by_uid[f.uid] for f in after.functions if f.uid in by_uid}
    used = set(matched.values())
    before_f = {f.key: f for f in before.functions}
    after_f = {f.key: f for f in after.functions}
    before_t = {t.key: t for t in before.tensors}

    def pair(after_key: str | None, before_key: str | None) -> bool:
        if after_key is None or before_key is None:
            return False
        if after_key in matched or before_key in used:
            return False
        if after_f[after_key].name != before_f[before_key].name:
            return False
        matched[after_key] = before_key
        used.add(before_key)
        return True

    queue = deque(matched.items())
    for tensor in after.tensors:
        old = before_t.get(tensor_rename.get(tensor.key, ""))
        if old is not None and pair(tensor.grad_fn, old.grad_fn):
            queue.append((tensor.grad_fn, old.grad_fn))
    while queue:
        after_key, before_key = queue.popleft()
        after_inputs, before_inputs = after_f[after_key].inputs, before_f[before_key].inputs
        for next_after, next_before in zip(after_inputs, before_inputs, strict=False):
            if pair(next_after, next_before):
                queue.append((next_after, next_before))
    return matched


# --------------------------------------------------------------------------------------------
# What changed
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Changes:
    """The differences between two aligned snapshots, as data and as sentences."""

    removed_edges: tuple[Edge, ...]
    gone: tuple[str, ...]  # keys of before-nodes with no counterpart after
    marks: Marks
    lines: tuple[str, ...]


def _edge_name(snap: GraphSnapshot, key: str) -> str:
    if "_none" in key:
        return "None"
    node = snap.by_key(key)
    return getattr(node, "label", None) or getattr(node, "name", None) or key


def _saved_name(snap: GraphSnapshot, value: SavedNode) -> str:
    """'SigmoidBackward0 saved result=out' (without '=out' when the owner is not drawn)."""
    owner = f"={snap.by_key(value.tensor).name}" if value.tensor is not None else ""
    return f"{snap.by_key(value.function).label} saved {value.slot}{owner}"


def changes(before: GraphSnapshot, after: GraphSnapshot) -> Changes:
    """Compare an aligned `after` with `before` (see `align`)."""
    marks = Marks()
    lines: list[str] = []

    def note(key: str, text: str) -> None:
        marks.notes.setdefault(key, []).append(text)
        marks.changed.add(key)

    before_tensors = {t.key: t for t in before.tensors}
    for tensor in after.tensors:
        old = before_tensors.get(tensor.key)
        if old is None:
            marks.new.add(tensor.key)
            if tensor.is_leaf:
                kind = "leaf, requires_grad" if tensor.requires_grad else "leaf, no grad"
            else:
                kind = f"non-leaf, grad_fn={after.by_key(tensor.grad_fn).label}"
            lines.append(f"{tensor.name}: new tensor, {kind}{sharing_note(after, tensor)}")
            continue
        facts = []
        if not old.is_leaf and tensor.is_leaf:
            grad_fn = before.by_key(old.grad_fn).label if old.grad_fn else "?"
            facts.append(f"became a leaf (grad_fn was {grad_fn})")
        elif old.grad_fn != tensor.grad_fn and tensor.grad_fn is not None:
            facts.append(f"grad_fn is now {after.by_key(tensor.grad_fn).label}")
        if old.requires_grad and not tensor.requires_grad:
            facts.append("no longer requires grad")
        elif not old.requires_grad and tensor.requires_grad:
            facts.append("now requires grad")
        if old.version != tensor.version:
            facts.append(f"version v{old.version} -> v{tensor.version}")
            note(tensor.key, f"was v{old.version}")
        if facts:
            lines.append(f"{tensor.name}: {'; '.join(facts)}")
            for fact in facts:
                if not fact.startswith("version"):
                    note(tensor.key, fact.split(" (")[0])
    before_functions = {f.key for f in before.functions}
    for function in after.functions:
        if function.key not in before_functions:
            marks.new.add(function.key)
            lines.append(f"{function.label}: new node")
    before_saved = {s.key: s for s in before.saved}
    for value in after.saved:
        old_saved = before_saved.get(value.key)
        if value.stale and (old_saved is None or not old_saved.stale):
            lines.append(
                f"{_saved_name(after, value)}: saved v{value.saved_version}, "
                f"now v{value.current_version} -> backward will raise"
            )
        elif not value.stale and value.storage is not None:
            # the memory changed through an alias with its own counter (.data): no check sees it
            movers = [
                t.name
                for t in after.tensors
                if t.storage == value.storage
                and t.counter != value.counter
                and t.key in before_tensors
                and before_tensors[t.key].version != t.version
            ]
            if movers:
                note(value.key, f"memory changed via {', '.join(movers)}")
                note(value.key, "backward will NOT notice")
                lines.append(
                    f"{_saved_name(after, value)}: memory changed through {', '.join(movers)} "
                    f"(another version counter), still v{value.current_version}: backward will "
                    "silently use the new values"
                )
        if old_saved is not None and value.freed and not old_saved.freed:
            lines.append(f"{_saved_name(before, old_saved)}: freed")

    after_edges = {(e.src, e.dst, e.kind, e.slot) for e in after.edges}
    after_keys = set(after._index()) | {e.src for e in after.edges if e.kind == "none"}
    removed = []
    gone: list[str] = []
    for edge in before.edges:
        if (edge.src, edge.dst, edge.kind, edge.slot) in after_edges or edge.kind == "saved":
            continue
        if edge.kind == "none" and edge.src not in after_keys:
            continue  # an empty slot that went away with its function: nothing to show
        removed.append(edge)
        if edge.dst in after_keys:  # the cut itself; edges further up merely became unreachable
            lines.append(
                f"edge removed: {_edge_name(before, edge.src)} -> {_edge_name(before, edge.dst)}"
            )
        for key in (edge.src, edge.dst):
            if key not in after_keys and key not in gone:
                gone.append(key)
    after_functions = {f.key for f in after.functions}
    for function in before.functions:
        if function.key not in after_functions and function.key not in gone:
            gone.append(function.key)
    unreachable = [
        _edge_name(before, key) for key in gone if key.startswith("F") and "_none" not in key
    ]
    if unreachable:
        lines.append(f"no longer reachable: {', '.join(unreachable)}")
    return Changes(tuple(removed), tuple(gone), marks, tuple(lines))


# --------------------------------------------------------------------------------------------
# Drawing both halves
# --------------------------------------------------------------------------------------------


def _draw_pair(
    before: GraphSnapshot,
    after: GraphSnapshot,
    label: str,
    found: Changes,
    options: Options,
    max_nodes: int,
    legend: bool,
) -> Graph:
    check_size(before.node_count + after.node_count + len(found.gone), max_nodes)
    graph = new_graph(f"minigrad.viz: before / after {label}")
    graph.attr(compound="true")
    left = _Builder(graph, before, options, prefix="before_")
    right = _Builder(graph, after, options, prefix="after_")
    with graph.subgraph(name="cluster_before") as box:
        box.attr(label="before", fontsize="14", style="rounded", color="#bbbbbb", labeljust="c")
        left.build(box)
    with graph.subgraph(name="cluster_after") as box:
        box.attr(
            label="after" if label == "after" else f"after {label}",
            fontsize="14",
            style="rounded",
            color="#bbbbbb",
            labeljust="c",
        )
        right.build(box, found.marks)
        for key in found.gone:  # drawn faintly where they used to be
            old = before.by_key(key) if "_none" not in key else None
            text = _edge_name(before, key)
            kind = "no longer in this graph" if old is not None and key.startswith("F") else "gone"
            right.add_node(
                box,
                key,
                label=_html(_esc(text), _esc(kind)),
                shape="box",
                style="dashed,rounded",
                color="#aaaaaa",
                fontcolor="#888888",
            )
    after_keys = set(after._index())
    for edge in found.removed_edges:
        # the label goes on the edges the call cut, not on every edge that became unreachable
        text = f" cut by {label} " if edge.dst in after_keys else ""
        right.add_edge(
            edge.src,
            edge.dst,
            style="dashed",
            color=RED,
            fontcolor=RED,
            penwidth="2",
            label=text,
            arrowhead="tee",
        )
    if legend:
        add_legend(graph, before_after=True)
    return graph


def compare(
    before: GraphSnapshot,
    after: GraphSnapshot,
    label: str = "after",
    show_saved: bool = True,
    show_versions: bool = True,
    show_storage: bool = True,
    max_nodes: int = 300,
    legend: bool = False,
    collapse_above: int | None = COLLAPSE_ABOVE,
) -> Graph:
    """Draw `before` and `after` side by side, marking what changed in the 'after' half.

    `collapse_above`: see `viz.draw`.
    """
    aligned = align(before, after)
    found = changes(before, aligned)
    options = Options(show_saved, show_versions, show_storage, collapse_above)
    return _draw_pair(before, aligned, label, found, options, max_nodes, legend)


class Comparison:
    """The result of `cut()`: shows as the before/after picture; `.summary()` says it in text."""

    def __init__(self, before: GraphSnapshot, after: GraphSnapshot, label: str, result: Any):
        self.before = before
        self.after = align(before, after)
        self.label = label
        self.result = result  # what the action returned
        self.changes = changes(before, self.after)
        self._graph: Graph | None = None

    def draw(self, **options: Any) -> Graph:
        """The picture (same options as `viz.compare`)."""
        return compare(self.before, self.after, self.label, **options)

    @property
    def graph(self) -> Graph:
        """The picture with default options (built once)."""
        if self._graph is None:
            self._graph = self.draw()
        return self._graph

    def summary(self) -> str:
        """What changed, one fact per line, in a stable order."""
        lines = [f"after {self.label}:"]
        lines += [f"  {line}" for line in self.changes.lines] or ["  nothing changed"]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = self.graph._repr_mimebundle_(include=include, exclude=exclude)
        bundle["text/plain"] = repr(self)
        return bundle

    def __repr__(self) -> str:
        count = len(self.changes.lines)
        noun = "change" if count == 1 else "changes"
        return f"<minigrad.viz comparison after {self.label}: {count} {noun}>"


def action_label(action: Callable[[], Any]) -> str:
    """The text of a lambda's body (`out.detach_()`), or `name()` for a def, else 'after'."""
    name = getattr(action, "__name__", "")
    if name and name != "<lambda>":
        return f"{name}()"
    try:
        source = textwrap.dedent(inspect.getsource(action)).strip()
    except (OSError, TypeError):
        return "after"
    tree = None
    for text in (source, f"({source})", source.rstrip(",)"), source.split("=", 1)[-1].strip()):
        try:
            tree = ast.parse(text)
            source = text
            break
        except SyntaxError:
            continue
    if tree is None:
        return "after"
    lambdas = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)]
    if len(lambdas) != 1:
        return "after"
    body = ast.get_source_segment(source, lambdas[0].body)
    return " ".join(body.split()) if body else "after"


def _returned_tensors(result: Any) -> list[Any]:
    values = result if isinstance(result, (tuple, list)) else [result]
    return [value for value in values if hasattr(value, "grad_fn") and hasattr(value, "shape")]


def cut(
    action: Callable[[], Any],
    *roots: Any,
    names: Mapping[str, Any] | None = None,
    label: str | None = None,
) -> Comparison:
    """Snapshot, run `action()`, snapshot again: the before/after of one call.

    Tensors the action returns are added to the 'after' graph (unless already there), named by
    the label (`out.detach()`), so `viz.cut(lambda: out.detach(), out)` shows the new alias.
    """
    before = snapshot(*roots, names=names)
    result = action()  # an exception propagates: nothing else has happened yet
    text = label if label is not None else action_label(action)
    extra_names = dict(names or {})
    known = list(roots) + list(extra_names.values())
    for index, value in enumerate(_returned_tensors(result)):
        if any(value is other for other in known):
            continue
        name = text if index == 0 else f"{text}[{index}]"
        extra_names.setdefault(name, value)
    after = snapshot(*roots, names=extra_names)
    return Comparison(before, after, text, result)
