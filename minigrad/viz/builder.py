"""Add one snapshot's nodes and edges to a Graphviz graph (or to a cluster of one).

Arrows point the way values flow forward, as in torchviz: leaf -> AccumulateGrad -> ... ->
the function that made the output -> the output. Backward walks them in reverse. Tensors (and
saved values, drawn "beside") that share memory sit in one dashed storage box.

A tensor used by many functions (more than `collapse_above`) is drawn in a form that Graphviz
lays out fast: its unchanged saved copies as one double-bordered node, its edges along one
trunk line with a small point and a branch per function (see options.DrawSettings).
"""

from __future__ import annotations

from typing import Any

from .changes import Marks
from .dot_graph import Graph
from .labels import Labels, SavedCopies
from .layout import estimate_width, label_width
from .model import GraphSnapshot, SavedNode, TensorNode
from .options import DrawSettings
from .style import GREY, STORAGE_COLOR, edge_attrs

__all__ = ["Builder", "collapse_copies"]


class Builder:
    """Adds one snapshot's nodes and edges to a graph (or a cluster of it), with a key prefix.

    It also notes each node's estimated width and each rank-constraining edge, from which
    `width()` estimates how wide dot will draw this part (see layout.estimate_width).
    """

    def __init__(
        self, graph: Graph, snap: GraphSnapshot, settings: DrawSettings, prefix: str = ""
    ) -> None:
        self.graph = graph
        self.snap = snap
        self.settings = settings
        self.theme = settings.theme
        self.prefix = prefix
        self.copies: dict[str, SavedCopies] = {}  # node key -> collapsed saved values
        self.merged: dict[str, str] = {}  # saved key -> the key of the node that stands for it
        self.labels = Labels(snap, settings, self.copies, self.merged)
        self.function_order = {function.key: n for n, function in enumerate(snap.functions)}
        self.widths: dict[str, float] = {}  # node id -> estimated width, points
        self.links: list[tuple[str, str]] = []  # node ids of every edge, forward
        self.boxes: list[tuple[list[str], float]] = []  # each storage box: node ids, label width

    def node_id(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def add_node(self, target: Any, key: str, **attrs: str) -> None:
        self.add_point(target, key, **attrs)
        self.graph.node_total += 1

    def add_point(self, target: Any, key: str, **attrs: str) -> None:
        """A node that is not counted in node_total (a relay point of a trunk line)."""
        node_id = self.node_id(key)
        target.node(node_id, **attrs)
        if "width" in attrs and attrs.get("fixedsize") == "true" or attrs.get("shape") == "point":
            self.widths[node_id] = float(attrs.get("width", "0.05")) * 72
        else:
            font = float(attrs.get("fontsize", self.theme.font))
            self.widths[node_id] = label_width(attrs.get("label", key), font, self.theme.small)

    def add_edge(self, src: str, dst: str, count: bool = True, **attrs: str) -> None:
        self.graph.edge(self.node_id(src), self.node_id(dst), **attrs)
        self.links.append((self.node_id(src), self.node_id(dst)))
        if count:
            self.graph.edge_total += 1

    def width(self) -> float:
        """About how wide (points) dot will draw what this builder added."""
        nodesep = float(self.theme.nodesep) * 72
        return estimate_width(self.widths, self.links, nodesep, self.boxes)

    # ---- the graph ----------------------------------------------------------------------

    def build(self, target: Any, marks: Marks | None = None) -> None:
        """Add every node (inside storage boxes when asked) and every edge to `target`."""
        marks = marks or Marks()
        beside = self.settings.beside
        if beside:
            self.copies.update(collapse_copies(self.snap, self.settings, marks))
            for key, copies in self.copies.items():
                self.merged.update((member, key) for member in copies.members)
        placed: set[str] = set()
        if self.settings.show_storage:
            for group in self.snap.storages:
                placed |= self.add_storage_box(target, group, marks)
        for tensor in self.snap.tensors:
            if tensor.key not in placed:
                self.add_any(target, tensor.key, marks)
        for function in self.snap.functions:
            self.add_node(target, function.key, **self.labels.function_attrs(function, marks))
            if beside:
                for key in function.saved:
                    key = self.merged.get(key, key)
                    if key not in placed:
                        self.add_any(target, key, marks)
                        placed.add(key)
        self.add_none_slots(target)
        self.add_edges(target, beside)

    def add_storage_box(self, target: Any, group: Any, marks: Marks) -> set[str]:
        """One dashed box around the members of a shared memory; the keys it placed."""
        # members are tensor keys (T...) and saved-value keys (F<function>_<slot>)
        beside = self.settings.beside
        members = [key for key in group.members if beside or key.startswith("T")]
        members = list(dict.fromkeys(self.merged.get(key, key) for key in members))
        outside = self.crowd(members)
        members = [key for key in members if key not in outside]
        if len(members) < 2 and not outside:
            return set()
        box_label = self.labels.storage_label(group, set(members), len(outside))
        with target.subgraph(name=f"cluster_{self.prefix}{group.key}") as box:
            box.attr(label="", style="dashed,rounded", color=STORAGE_COLOR)
            # the label is a node of the box, not the box's own label: dot routes edges
            # around nodes, but straight through a cluster's label
            label_id = self.node_id(f"{group.key}_label")
            size = self.theme.storage_font
            box.node(
                label_id,
                label=box_label,
                shape="plaintext",
                fontsize=str(size),
                fontcolor=STORAGE_COLOR,
                style="",
                margin="0.04,0.02",
                height="0",
            )
            for key in members:
                self.add_any(box, key, marks)
                # invisible edges keep the label under what the box holds
                box.edge(self.node_id(key), label_id, style="invis", weight="1")
            label_size = label_width(box_label, size, size)
            self.boxes.append(([self.node_id(key) for key in members], label_size))
        return set(members)

    def add_none_slots(self, target: Any) -> None:
        """A small dashed circle for every empty `(None, 0)` input slot."""
        for edge in self.snap.edges:
            if edge.kind == "none":
                self.add_node(
                    target,
                    edge.src,
                    label="None",
                    shape="circle",
                    style="dashed",
                    fontsize=str(self.theme.none_font),
                    width=self.theme.none_width,
                    fixedsize="true",
                    color=GREY,
                    fontcolor="#595959",
                )

    def add_any(self, target: Any, key: str, marks: Marks) -> None:
        """Add the node for a tensor, a saved value or a group of saved copies."""
        if key in self.copies:
            self.add_node(target, key, **self.labels.copies_attrs(self.copies[key]))
            return
        node = self.snap.by_key(key)
        if isinstance(node, TensorNode):
            self.add_node(target, key, **self.labels.tensor_attrs(node, marks))
        elif isinstance(node, SavedNode):
            self.add_node(target, key, **self.labels.saved_attrs(node, marks))

    def crowd(self, members: list[str]) -> set[str]:
        """The saved values a storage box leaves out, to be drawn beside their functions.

        Only when more than `collapse_above` of them remain after collapsing copies (values
        changed since they were saved, say): a box stretched along a long chain is what
        makes dot slow. They keep their own node and their red "backward will raise".
        """
        limit = self.settings.collapse_above
        saved = [key for key in members if self.labels.is_saved(key)]
        return set(saved) if limit is not None and len(saved) > limit else set()

    # ---- edges --------------------------------------------------------------------------

    def add_edges(self, target: Any, show_saved: bool) -> None:
        """Every edge; a node used by many functions gets one trunk line (see add_fan)."""
        limit = self.settings.collapse_above
        edges = [
            (self.merged.get(edge.src, edge.src) if edge.kind == "saved" else edge.src, edge)
            for edge in self.snap.edges
            if edge.kind != "saved" or show_saved
        ]
        fans: dict[tuple[str, str], list[str]] = {}
        if limit is not None:
            for src, edge in edges:
                if edge.kind in ("next", "saved"):
                    fans.setdefault((src, edge.kind), []).append(edge.dst)
            fans = {fan: users for fan, users in fans.items() if len(users) > limit}
        for src, edge in edges:
            if (src, edge.kind) not in fans:
                self.add_edge(src, edge.dst, **edge_attrs(edge.kind))
        for (src, kind), users in fans.items():
            self.add_fan(target, src, kind, users)

    def add_fan(self, target: Any, src: str, kind: str, users: list[str]) -> None:
        """Edges from one node to many functions, drawn as one trunk line with a branch each.

        dot straightens every long edge through every rank it crosses; a hundred of them from
        one node (a weight used at every step) take it minutes. A chain of small relay points,
        one just above each user, keeps every edge short.
        """
        # a weight on each branch pulls its relay down next to its user (a saved edge alone
        # has none); the trunk's total length is fixed, its weight only keeps it straight
        attrs = {**edge_attrs(kind), "weight": "2"}
        trunk = {**attrs, "arrowhead": "none", "weight": "4"}
        # the functions are in breadth-first order from the roots: the last ones are drawn
        # highest, so the trunk runs from the top user down to the one nearest the roots
        users = sorted(users, key=self.function_order.__getitem__, reverse=True)
        previous = src
        for number, user in enumerate(users):
            relay = f"{src}_{kind}{number}"
            self.add_point(
                target,
                relay,
                label="",
                shape="point",
                width="0.05",
                style="filled",
                color=attrs.get("color", "black"),
            )
            self.add_edge(previous, relay, count=False, **trunk)
            self.add_edge(relay, user, **attrs)
            previous = relay


def collapse_copies(
    snap: GraphSnapshot, settings: DrawSettings, marks: Marks
) -> dict[str, SavedCopies]:
    """The saved values to draw as one node per tensor (see options.DrawSettings), by key."""
    limit = settings.collapse_above
    if limit is None:
        return {}
    tensors = {tensor.key: tensor for tensor in snap.tensors}
    candidates: dict[tuple[str, str | None, int | None], list[str]] = {}
    for value in snap.saved:
        owner = tensors.get(value.tensor) if value.tensor is not None else None
        plain = (
            owner is not None
            and not value.freed
            and not value.stale
            and value.saved_version is not None
            and value.storage == owner.storage
            and value.counter == owner.counter
            # compare() writes notes on changed values: those keep their own node
            and value.key not in marks.notes
            and value.key not in marks.changed
            and value.key not in marks.new
        )
        if plain:
            group_key = (owner.key, value.counter, value.saved_version)
            candidates.setdefault(group_key, []).append(value.key)
    copies: dict[str, SavedCopies] = {}
    for (tensor_key, _, _), members in candidates.items():
        if len(members) <= limit:
            continue
        key, number = f"{tensor_key}_saved", 1
        while key in copies:  # one tensor saved at two versions: two nodes
            number += 1
            key = f"{tensor_key}_saved{number}"
        copies[key] = SavedCopies(key, tensor_key, tuple(members))
    return copies
