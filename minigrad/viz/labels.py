"""The labels and looks of the nodes of one snapshot's picture (HTML-like Graphviz labels).

A tensor: its name, shape and dtype, kind and version; a function: torch's class name (and,
with saved values "inside", one row per saved value); a saved value: its slot, the tensor it
was saved from, the version it was saved at and the version now (red when they differ:
backward will raise); a storage box: which version counters share that memory. Red notes and
borders come from the Marks of a before/after (changes.py); style.py has the colours.
"""

from __future__ import annotations

from dataclasses import dataclass

from .changes import Marks
from .model import FunctionNode, GraphSnapshot, SavedNode, StorageGroup, TensorNode
from .options import DrawSettings
from .style import (
    FREED_FILL,
    GREY,
    LEAF_FILL,
    NOGRAD_FILL,
    NONLEAF_FILL,
    OUTPUT_FILL,
    RED,
    SAVED_FILL,
    STALE_FILL,
    esc,
    html_label,
    red,
)
from .text import shape_text
from .words import listing, say

__all__ = ["Labels", "SavedCopies"]


@dataclass(frozen=True)
class SavedCopies:
    """Saved values drawn as one node: unchanged copies of the same tensor."""

    key: str  # node id: "<tensor key>_saved", e.g. "T1_saved"
    tensor: str  # key of the TensorNode they were saved from
    members: tuple[str, ...]  # keys of the SavedNodes it stands for, in snapshot order


class Labels:
    """Node attributes (label, fill, border) for one snapshot drawn with `settings`.

    `copies` and `merged` are the builder's: saved values drawn as one node (see
    builder.collapse_copies), by node key and by the key of each value they stand for.
    """

    def __init__(
        self,
        snap: GraphSnapshot,
        settings: DrawSettings,
        copies: dict[str, SavedCopies],
        merged: dict[str, str],
    ) -> None:
        self.snap = snap
        self.settings = settings
        self.theme = settings.theme
        self.copies = copies
        self.merged = merged

    def html(self, *lines: str) -> str:
        return html_label(*lines, small=self.theme.small)

    def mark(self, attrs: dict[str, str], key: str, marks: Marks) -> None:
        """A red border for what the call changed, a thick one for what it made."""
        if key in marks.changed:
            attrs.update(color=RED, penwidth=self.theme.marked_pen)
        elif key in marks.new:
            attrs.update(penwidth=self.theme.new_pen)

    def is_saved(self, key: str) -> bool:
        """True for the key of one saved value (not a tensor, not a group of copies)."""
        return key not in self.copies and isinstance(self.snap.by_key(key), SavedNode)

    # ---- nodes ---------------------------------------------------------------------------

    def tensor_attrs(self, tensor: TensorNode, marks: Marks) -> dict[str, str]:
        lines = [esc(tensor.name), esc(f"{shape_text(tensor.shape)} {tensor.dtype}")]
        if tensor.is_leaf:
            kind = say("leaf, requires_grad" if tensor.requires_grad else "leaf, no grad")
        else:  # an output says so in words too: its green fill alone is not enough (WCAG 1.4.1)
            kind = say("non-leaf, output" if tensor.is_root else "non-leaf")
        if tensor.is_view:
            kind += say(", view")
        if self.settings.show_versions:
            kind += say(", v{version}", version=tensor.version)
        lines.append(esc(kind))
        lines += [red(esc(note)) for note in marks.notes.get(tensor.key, [])]
        if not tensor.is_leaf:
            fill = OUTPUT_FILL if tensor.is_root else NONLEAF_FILL
        else:
            fill = LEAF_FILL if tensor.requires_grad else NOGRAD_FILL
        style = "filled" if tensor.requires_grad else "filled,dashed"
        attrs = {"label": self.html(*lines), "fillcolor": fill, "style": style}
        self.mark(attrs, tensor.key, marks)
        return attrs

    def function_attrs(self, function: FunctionNode, marks: Marks) -> dict[str, str]:
        lines = [esc(function.name)]
        lines += [red(esc(note)) for note in marks.notes.get(function.key, [])]
        if self.settings.inside and function.saved:
            return self.function_with_saved(function, lines, marks)
        attrs = {"label": self.html(*lines)}  # grey rounded boxes are the node default
        self.mark(attrs, function.key, marks)
        return attrs

    def function_with_saved(
        self, function: FunctionNode, lines: list[str], marks: Marks
    ) -> dict[str, str]:
        """A function node that lists its saved values in rows of its own (layout "inside")."""
        values = [self.snap.by_key(key) for key in function.saved]
        head = self.html(*lines)[1:-1]  # the plain label, without its outer < >
        rows = [f"<TR><TD>{head}</TD></TR>"] + [self.saved_row(value, marks) for value in values]
        table = '<TABLE BORDER="0" CELLSPACING="1" CELLPADDING="1">' + "".join(rows) + "</TABLE>"
        attrs = {"label": f"<{table}>", "margin": "0.08,0.04"}
        self.mark(attrs, function.key, marks)
        # a red border too when a value it saved is stale or was changed by the call
        troubled = any(value.stale or value.key in marks.changed for value in values)
        if troubled and function.key not in marks.changed:
            attrs.update(color=RED, penwidth=self.theme.new_pen)
        return attrs

    def saved_row(self, value: SavedNode, marks: Marks) -> str:
        """One table row: 'saved result = out, v0 / now v0' (red and pink when stale)."""
        text = self.saved_head(value)
        fill, cell = SAVED_FILL, ""
        if value.freed:
            text = say("{text}: freed by backward", text=text)
            fill, cell = FREED_FILL, ' BORDER="1" STYLE="dashed" COLOR="' + GREY + '"'
        elif value.saved_version is None:
            text = say("{text}, version unknown", text=text)
        elif self.settings.show_versions:
            saved, now = value.saved_version, value.current_version
            text = say("{text}, v{saved} / now v{now}", text=text, saved=saved, now=now)
        if value.stale:
            lines = [red(esc(text)), red(esc(say("backward will raise")))]
            fill = STALE_FILL
        else:
            lines = [esc(text)]
        lines += [red(esc(note)) for note in marks.notes.get(value.key, [])]
        body = "<BR/>".join(lines)
        return (
            f'<TR><TD BGCOLOR="{fill}"{cell}><FONT POINT-SIZE="{self.theme.small}">{body}'
            "</FONT></TD></TR>"
        )

    def saved_head(self, value: SavedNode) -> str:
        """'saved result = out' ('saved result' when the tensor it was saved from is not drawn)."""
        if value.tensor is None:
            return say("saved {slot}", slot=value.slot)
        owner = self.snap.by_key(value.tensor).name
        return say("saved {slot} = {owner}", slot=value.slot, owner=owner)

    def saved_attrs(self, value: SavedNode, marks: Marks) -> dict[str, str]:
        lines = [esc(self.saved_head(value))]
        fill = SAVED_FILL
        if value.freed:
            lines.append(esc(say("freed by backward")))
        elif value.saved_version is None:
            lines.append(esc(say("version unknown")))
        elif self.settings.show_versions:
            saved, now = value.saved_version, value.current_version
            versions = say("saved v{saved} / now v{now}", saved=saved, now=now)
            if value.stale:
                lines.append(red(esc(versions)))
                lines.append(red(esc(say("backward will raise"))))
                fill = STALE_FILL
            else:
                lines.append(esc(versions))
        lines += [red(esc(note)) for note in marks.notes.get(value.key, [])]
        attrs = {"label": self.html(*lines), "fillcolor": fill, "style": "filled"}
        pen = self.theme.new_pen
        if value.key in marks.changed:
            attrs.update(color=RED, penwidth=pen)
        if value.stale:
            attrs.update(color=RED, penwidth=pen)
        if value.freed:
            attrs["style"] = "filled,dashed"
        return attrs

    def copies_attrs(self, copies: SavedCopies) -> dict[str, str]:
        """One node for many unchanged saved copies of a tensor: 'saved by N functions'."""
        values = [self.snap.by_key(key) for key in copies.members]
        owner = self.snap.by_key(copies.tensor).name
        slots: dict[str, int] = {}
        for value in values:
            slots[value.slot] = slots.get(value.slot, 0) + 1
        as_slots = listing(f"{slot} ×{count}" for slot, count in slots.items())
        lines = [
            esc(say("saved = {owner}", owner=owner)),
            esc(say("by {count} functions", count=len(values))),
            esc(say("as {slots}", slots=as_slots)),
        ]
        if self.settings.show_versions:
            first = values[0]  # every copy has the same versions: that is what made it a copy
            saved, now = first.saved_version, first.current_version
            lines.append(esc(say("saved v{saved} / now v{now}", saved=saved, now=now)))
        users = listing(self.snap.by_key(value.function).label for value in values)
        return {
            "label": self.html(*lines),
            "fillcolor": SAVED_FILL,
            "style": "filled",
            "peripheries": "2",  # a stack of identical values
            "tooltip": say(
                "saved {owner} (the same memory, unchanged) for: {users}", owner=owner, users=users
            ),
        }

    # ---- the graph ----------------------------------------------------------------------

    # ---- storage boxes -------------------------------------------------------------------

    def storage_label(self, group: StorageGroup, visible: set[str], outside: int = 0) -> str:
        """An HTML label: 'shared memory S1', then its version counter(s) and who uses them.

        With saved values inside their functions, the values saved from this memory are named
        in the label (or counted, when there are many).
        """
        settings = self.settings
        lines = [f"<B>{esc(say('shared memory {storage}', storage=group.key))}</B>"]
        if outside:
            text = say("+ {count} saved values of it, drawn beside their functions", count=outside)
            lines.append(esc(text))
        if settings.show_versions:
            lines += self.counter_lines(group, visible, outside)
        if settings.inside and (len(group.counters) == 1 or not settings.show_versions):
            saved = [key for key in group.members if self.is_saved(key)]
            if saved:
                names = listing(self.saved_names(saved))
                lines.append(say("saved for backward: {names}", names=names))  # escaped
        return "<" + '<BR ALIGN="LEFT"/>'.join(lines) + '<BR ALIGN="LEFT"/>>'

    def counter_lines(self, group: StorageGroup, visible: set[str], outside: int) -> list[str]:
        """The version counter(s) of one memory: one line, or one per counter with its users."""
        known = [counter for counter, _ in group.counters if counter is not None]
        if not known:
            return [esc(say("torch does not expose version counters"))]
        if len(group.counters) == 1:
            (_, keys), *_ = group.counters
            version = self.counter_version(keys)
            return [esc(say("one version counter, at v{version}", version=version))]
        count = len(group.counters)
        lines = [red(esc(say("{count} version counters on one memory:", count=count)))]
        for number, (_, keys) in enumerate(group.counters, start=1):
            who = self.counter_users(keys, visible, outside)
            version = self.counter_version(keys)
            text = say("#{number} at v{version}: {who}", number=number, version=version, who=who)
            lines.append(text)  # `who` is escaped already
        return lines

    def counter_users(self, keys: tuple[str, ...], visible: set[str], outside: int) -> str:
        """Who uses one counter: the members drawn in the box, then those drawn elsewhere."""
        shown = dict.fromkeys(self.merged.get(key, key) for key in keys)
        names = [esc(self.member_name(key)) for key in shown if key in visible]
        if outside:
            hidden = sum(1 for key in shown if key not in visible and self.is_saved(key))
            names += [esc(say("+ {count} saved values", count=hidden))] if hidden else []
        if self.settings.inside:
            names += self.saved_names([key for key in shown if self.is_saved(key)])
        return listing(names)

    def saved_names(self, keys: list[str]) -> list[str]:
        """Escaped names of saved values drawn inside their functions; a count if many."""
        if len(keys) > 3:
            return [esc(say("{count} saved values", count=len(keys)))]
        return [esc(self.member_name(key)) for key in keys]

    def counter_version(self, keys: tuple[str, ...]) -> int | str:
        """The value of the counter that these members share."""
        for key in keys:
            node = self.snap.by_key(key)
            if isinstance(node, TensorNode):
                return node.version
            if node.current_version is not None:
                return node.current_version
        return "?"

    def member_name(self, key: str) -> str:
        if key in self.copies:
            return say("saved by {count} functions", count=len(self.copies[key].members))
        node = self.snap.by_key(key)
        if isinstance(node, TensorNode):
            return node.name
        function = self.snap.by_key(node.function)
        return say("saved {slot} of {function}", slot=node.slot, function=function.label)
