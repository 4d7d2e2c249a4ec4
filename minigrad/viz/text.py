"""The text form of a snapshot: what the picture shows, as stable lines a notebook can print.

nbval compares these lines exactly, so they hold no ids, no addresses and no set order, and
they do not depend on Graphviz's layout or version.
"""

from __future__ import annotations

import unicodedata

from .model import GraphSnapshot, SavedNode, TensorNode
from .words import listing, say


def shape_text(shape: tuple[int, ...]) -> str:
    """'(3,)', '(2, 3)', '()' — Python's tuple spelling, which learners already read."""
    return str(tuple(shape))


def saved_text(snap: GraphSnapshot, value: SavedNode) -> str:
    """'result=out (saved v0, now v1: changed in place, backward will raise)'."""
    owner = snap.by_key(value.tensor).name if value.tensor is not None else None
    head = f"{value.slot}={owner}" if owner else value.slot
    if value.freed:
        return say("{head} (freed by backward)", head=head)
    if value.saved_version is None:
        return say("{head} (version unknown)", head=head)
    saved, now = value.saved_version, value.current_version
    if value.stale:
        return say(
            "{head} (saved v{saved}, now v{now}: changed in place, backward will raise)",
            head=head,
            saved=saved,
            now=now,
        )
    return say("{head} (saved v{saved}, now v{now})", head=head, saved=saved, now=now)


def sharing_note(snap: GraphSnapshot, tensor: TensorNode, counters: bool = True) -> str:
    """' (shares memory + version counter with out)': what `tensor` shares with earlier ones."""
    earlier = []
    for other in snap.tensors:
        if other.key == tensor.key:
            break
        if other.storage == tensor.storage:
            earlier.append(other)
    if not earlier:
        return ""
    if not counters or tensor.counter is None:
        note = say("shares memory with {names}", names=listing(o.name for o in earlier))
        if counters:
            note += say("; torch does not expose version counters")
        return say(" ({note})", note=note)
    same = [o.name for o in earlier if o.counter == tensor.counter]
    other = [o.name for o in earlier if o.counter != tensor.counter]
    parts = []
    if same:
        parts.append(say("shares memory + version counter with {names}", names=listing(same)))
    if other:
        names = listing(other)
        parts.append(say("shares memory but not the version counter with {names}", names=names))
    return say(" ({note})", note=say("; ").join(parts))


def padded(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns; a Chinese character takes two."""
    columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * (width - columns)


def tensor_line(snap: GraphSnapshot, tensor: TensorNode, width: int, counters: bool) -> str:
    """One line per tensor: kind, flags, shape, version, storage."""
    if tensor.is_leaf:
        kind = say("leaf")
        flag = say("requires_grad" if tensor.requires_grad else "no grad")
    else:
        kind = say("non-leaf")
        grad_fn = snap.by_key(tensor.grad_fn).label if tensor.grad_fn else "?"
        flag = f"grad_fn={grad_fn}"
    view = f"  {say('view')}" if tensor.is_view else ""
    storage = say("storage {storage}", storage=tensor.storage)
    return (
        f"  {tensor.name:<{width}}  {padded(kind, 8)}  {flag}  {tensor.dtype} "
        f"{shape_text(tensor.shape)}"
        f"{view}  v{tensor.version}  {storage}{sharing_note(snap, tensor, counters)}"
    )


def function_line(snap: GraphSnapshot, function_key: str, width: int) -> str:
    """'SigmoidBackward0  <- [AccumulateGrad(a)]  saved: result=out (saved v0, now v0)'."""
    function = snap.by_key(function_key)
    inputs = ["None" if key is None else snap.by_key(key).label for key in function.inputs]
    line = f"  {function.label:<{width}}"
    if function.variable is not None:
        line += "  " + say("-> .grad of {name}", name=snap.by_key(function.variable).name)
    if inputs:
        line += f"  <- [{', '.join(inputs)}]"
    saved = [saved_text(snap, snap.by_key(key)) for key in function.saved]
    if saved:
        line += "  " + say("saved: {values}", values=listing(saved))
    return line.rstrip()


def summary_text(snap: GraphSnapshot, counters: bool = True) -> str:
    """The whole text form (see GraphSnapshot.summary)."""
    lines = [say("tensors:")]
    width = max((len(t.name) for t in snap.tensors), default=1)
    lines += [tensor_line(snap, tensor, width, counters) for tensor in snap.tensors]
    if not snap.tensors:
        lines.append("  " + say("(none)"))
    lines.append(say("functions:"))
    fwidth = max((len(f.label) for f in snap.functions), default=1)
    lines += [function_line(snap, function.key, fwidth) for function in snap.functions]
    if not snap.functions:
        lines.append("  " + say("(none: nothing was recorded)"))
    return "\n".join(lines)
