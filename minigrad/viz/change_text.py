"""What a call changed, in words: the sentences of `Comparison.summary()` and the picture's marks.

Both are made from the facts of changes.py: one line per new tensor, changed tensor (its
changes joined by ';'), new node and saved value, then the edges the call cut; and for the
picture, short red notes in the nodes that changed, a red border for them, a thick one for
what is new.
"""

from __future__ import annotations

from .changes import (
    BECAME_LEAF,
    NEW_GRAD_FN,
    STALE,
    STARTED_REQUIRING_GRAD,
    STOPPED_REQUIRING_GRAD,
    UNSEEN,
    VERSION,
    EdgeFacts,
    Fact,
    Marks,
    NewFunction,
    NewTensor,
    SavedChange,
    TensorChange,
    Unseen,
    still_unseen,
)
from .model import GraphSnapshot
from .text import sharing_note
from .words import listing, say

__all__ = ["change_lines", "change_marks", "saved_name", "unseen_marks", "with_unseen"]


def tensor_change_text(fact: TensorChange) -> str:
    """The sentence for one tensor change: 'became a leaf (grad_fn was MulBackward0)'."""
    if fact.kind == BECAME_LEAF:
        return say("became a leaf (grad_fn was {label})", label=fact.old)
    if fact.kind == VERSION:
        return say("version v{old} -> v{new}", old=fact.old, new=fact.new)
    return tensor_change_note(fact)


def tensor_change_note(fact: TensorChange) -> str:
    """The short red note the picture writes into the tensor's node."""
    if fact.kind == BECAME_LEAF:
        return say("became a leaf")
    if fact.kind == NEW_GRAD_FN:
        return say("grad_fn is now {label}", label=fact.new)
    if fact.kind == STOPPED_REQUIRING_GRAD:
        return say("no longer requires grad")
    if fact.kind == STARTED_REQUIRING_GRAD:
        return say("now requires grad")
    return say("was v{version}", version=fact.old)  # VERSION


def new_tensor_text(after: GraphSnapshot, fact: NewTensor) -> str:
    """'c: new tensor, leaf, no grad (shares memory + version counter with out)'."""
    if fact.is_leaf:
        kind = say("leaf, requires_grad" if fact.requires_grad else "leaf, no grad")
    else:
        kind = say("non-leaf, grad_fn={label}", label=fact.grad_fn)
    sharing = sharing_note(after, after.by_key(fact.key))
    return say("{name}: new tensor, {kind}{sharing}", name=fact.name, kind=kind, sharing=sharing)


def saved_name(fact: SavedChange) -> str:
    """'SigmoidBackward0 saved result=out' (without '=out' when the owner is not drawn)."""
    if fact.owner is None:
        return say("{function} saved {slot}", function=fact.function, slot=fact.slot)
    return say(
        "{function} saved {slot}={owner}", function=fact.function, slot=fact.slot, owner=fact.owner
    )


def saved_change_text(fact: SavedChange) -> str:
    name = saved_name(fact)
    saved, now = fact.saved_version, fact.current_version
    if fact.kind == STALE:
        return say(
            "{name}: saved v{saved}, now v{now} -> backward will raise",
            name=name,
            saved=saved,
            now=now,
        )
    if fact.kind == UNSEEN:
        return say(
            "{name}: memory changed through {names} (another version counter), still v{now}: "
            "backward will silently use the new values",
            name=name,
            names=listing(fact.movers),
            now=now,
        )
    return say("{name}: freed", name=name)


def change_lines(after: GraphSnapshot, facts: list[Fact], edges: EdgeFacts) -> list[str]:
    """One line per new tensor, changed tensor (its changes joined by ';'), node and value."""
    lines: list[str] = []
    last_tensor = None  # the changes of one tensor come one after another: one line for them
    for fact in facts:
        if isinstance(fact, TensorChange) and fact.key == last_tensor:
            lines[-1] += say("; ") + tensor_change_text(fact)
            continue
        last_tensor = fact.key if isinstance(fact, TensorChange) else None
        if isinstance(fact, TensorChange):
            lines.append(say("{name}: {change}", name=fact.name, change=tensor_change_text(fact)))
        elif isinstance(fact, NewTensor):
            lines.append(new_tensor_text(after, fact))
        elif isinstance(fact, NewFunction):
            lines.append(say("{label}: new node", label=fact.label))
        else:
            lines.append(saved_change_text(fact))
    lines += [say("edge removed: {src} -> {dst}", src=src, dst=dst) for src, dst in edges.cut]
    if edges.unreachable:
        lines.append(say("no longer reachable: {labels}", labels=listing(edges.unreachable)))
    return lines


def change_marks(facts: list[Fact]) -> Marks:
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
            for text in unseen_notes(fact.movers):
                note(fact.key, text)
    return marks


def unseen_notes(movers: tuple[str, ...]) -> list[str]:
    """The red notes of a saved value whose memory changed through another version counter."""
    return [
        say("memory changed via {names}", names=listing(movers)),
        say("backward will NOT notice"),
    ]


def unseen_marks(snap: GraphSnapshot, unseen: Unseen) -> Marks:
    """Red notes and borders for the saved values of `snap` an earlier step changed unseen."""
    marks = Marks()
    for key, movers in still_unseen(snap, unseen).items():
        marks.notes[key] = unseen_notes(movers)
        marks.changed.add(key)
    return marks


def with_unseen(marks: Marks, snap: GraphSnapshot, unseen: Unseen) -> Marks:
    """`marks` (of a call), plus those of `unseen` on the values the call did not note."""
    carried = unseen_marks(snap, unseen)
    notes = dict(marks.notes)
    notes.update((key, texts) for key, texts in carried.notes.items() if key not in notes)
    return Marks(notes=notes, changed=marks.changed | carried.changed, new=set(marks.new))
