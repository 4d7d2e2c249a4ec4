"""Matching two snapshots: the 'after' graph renamed to the keys the same objects had 'before'.

The two snapshots are matched object by object (the same tensor, the same grad_fn node), so
keys in the "after" snapshot are renamed to the keys the same objects had "before". Tensors
that are different objects but carry the same user name are matched too, which lets two runs
of a program (with and without `no_grad`, say) be compared; their functions are then matched
by structure (see `match_functions`).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Mapping

from .model import GraphSnapshot

__all__ = ["align", "match_functions"]


def align(before: GraphSnapshot, after: GraphSnapshot) -> GraphSnapshot:
    """`after` with its keys (and automatic names) replaced by those of the same objects before."""
    rename, names = match_tensors(before, after)
    matched = match_functions(before, after, rename)
    rename.update(matched)
    labels = function_labels(before, after, matched)
    # everything new gets a key that cannot collide with a "before" key
    fresh = {"T": len(before.tensors), "F": len(before.functions)}
    for node in (*after.tensors, *after.functions):
        if node.key not in rename:
            prefix = node.key[0]
            rename[node.key] = f"{prefix}{fresh[prefix]}"
            fresh[prefix] += 1
    return renamed(after, rename, names, labels)


def match_tensors(
    before: GraphSnapshot, after: GraphSnapshot
) -> tuple[dict[str, str], dict[str, str]]:
    """(after key -> before key, after key -> the name to show) for the tensors found before.

    The same object first; else, for a tensor the user named, the tensor of that name.
    """
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
    return rename, names


def function_labels(
    before: GraphSnapshot, after: GraphSnapshot, matched: Mapping[str, str]
) -> dict[str, str]:
    """after function key -> label: a matched function keeps its label, new ones number on."""
    before_by_key = {f.key: f for f in before.functions}
    labels = {after_key: before_by_key[key].label for after_key, key in matched.items()}
    taken = {f.label for f in before.functions}
    for function in after.functions:
        if function.key in labels or function.variable is not None:
            continue
        label, count = function.name, 1
        while label in taken:
            count += 1
            label = f"{function.name}#{count}"
        taken.add(label)
        labels[function.key] = label
    return labels


def renamed(
    after: GraphSnapshot,
    rename: Mapping[str, str],
    names: Mapping[str, str],
    labels: Mapping[str, str],
) -> GraphSnapshot:
    """A copy of `after` with every key renamed, and the tensor names and labels given."""

    def key_of(key: str | None) -> str | None:
        if key is None:
            return None
        if key in rename:
            return rename[key]
        function, _, rest = key.partition("_")  # saved and None-slot keys: F3_result, F3_none0
        return f"{rename[function]}_{rest}"

    def keys_of(keys: tuple[str | None, ...]) -> tuple[str | None, ...]:
        return tuple(key_of(key) for key in keys)

    tensors = tuple(
        dataclasses.replace(
            t, key=key_of(t.key), name=names.get(t.key, t.name), grad_fn=key_of(t.grad_fn)
        )
        for t in after.tensors
    )
    functions = tuple(
        dataclasses.replace(
            f,
            key=key_of(f.key),
            label=labels.get(f.key, f.label),
            inputs=keys_of(f.inputs),
            saved=keys_of(f.saved),
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
            members=keys_of(g.members),
            counters=tuple((c, keys_of(keys)) for c, keys in g.counters),
        )
        for g in after.storages
    )
    edges = tuple(dataclasses.replace(e, src=key_of(e.src), dst=key_of(e.dst)) for e in after.edges)
    return GraphSnapshot(tensors, functions, saved, storages, edges, after.source)


def match_functions(
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
