"""The text form of a snapshot: what the picture shows, as stable lines a notebook can print.

nbval compares these lines exactly, so they hold no ids, no addresses and no set order, and
they do not depend on Graphviz's layout or version.
"""

from __future__ import annotations

from .model import GraphSnapshot, SavedNode, TensorNode


def shape_text(shape: tuple[int, ...]) -> str:
    """'(3,)', '(2, 3)', '()' — Python's tuple spelling, which learners already read."""
    return str(tuple(shape))


def saved_text(snap: GraphSnapshot, value: SavedNode) -> str:
    """'result=out (saved v0, now v1: changed in place, backward will raise)'."""
    owner = snap.by_key(value.tensor).name if value.tensor is not None else None
    head = f"{value.slot}={owner}" if owner else value.slot
    if value.freed:
        return f"{head} (freed by backward)"
    if value.saved_version is None:
        return f"{head} (version unknown)"
    if value.stale:
        return (
            f"{head} (saved v{value.saved_version}, now v{value.current_version}: "
            "changed in place, backward will raise)"
        )
    return f"{head} (saved v{value.saved_version}, now v{value.current_version})"


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
        note = f"shares memory with {', '.join(o.name for o in earlier)}"
        if counters:
            note += "; torch does not expose version counters"
        return f" ({note})"
    same = [o.name for o in earlier if o.counter == tensor.counter]
    other = [o.name for o in earlier if o.counter != tensor.counter]
    parts = []
    if same:
        parts.append(f"shares memory + version counter with {', '.join(same)}")
    if other:
        parts.append(f"shares memory but not the version counter with {', '.join(other)}")
    return f" ({'; '.join(parts)})"


def tensor_line(snap: GraphSnapshot, tensor: TensorNode, width: int, counters: bool) -> str:
    """One line per tensor: kind, flags, shape, version, storage."""
    if tensor.is_leaf:
        kind = "leaf"
        flag = "requires_grad" if tensor.requires_grad else "no grad"
    else:
        kind = "non-leaf"
        grad_fn = snap.by_key(tensor.grad_fn).label if tensor.grad_fn else "?"
        flag = f"grad_fn={grad_fn}"
    view = "  view" if tensor.is_view else ""
    return (
        f"  {tensor.name:<{width}}  {kind:<8}  {flag}  {tensor.dtype} {shape_text(tensor.shape)}"
        f"{view}  v{tensor.version}  storage {tensor.storage}"
        f"{sharing_note(snap, tensor, counters)}"
    )


def function_line(snap: GraphSnapshot, function_key: str, width: int) -> str:
    """'SigmoidBackward0  <- [AccumulateGrad(a)]  saved: result=out (saved v0, now v0)'."""
    function = snap.by_key(function_key)
    inputs = ["None" if key is None else snap.by_key(key).label for key in function.inputs]
    line = f"  {function.label:<{width}}"
    if function.variable is not None:
        line += f"  -> .grad of {snap.by_key(function.variable).name}"
    if inputs:
        line += f"  <- [{', '.join(inputs)}]"
    saved = [saved_text(snap, snap.by_key(key)) for key in function.saved]
    if saved:
        line += f"  saved: {', '.join(saved)}"
    return line.rstrip()


def summary_text(snap: GraphSnapshot, counters: bool = True) -> str:
    """The whole text form (see GraphSnapshot.summary)."""
    lines = ["tensors:"]
    width = max((len(t.name) for t in snap.tensors), default=1)
    lines += [tensor_line(snap, tensor, width, counters) for tensor in snap.tensors]
    if not snap.tensors:
        lines.append("  (none)")
    lines.append("functions:")
    fwidth = max((len(f.label) for f in snap.functions), default=1)
    lines += [function_line(snap, function.key, fwidth) for function in snap.functions]
    if not snap.functions:
        lines.append("  (none: nothing was recorded)")
    return "\n".join(lines)
