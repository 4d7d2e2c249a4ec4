"""Part A of notebook 12, predict then run: each check runs the code of its question, shows
what really happened, and compares it with the learner's prediction."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

import minigrad as mg

from .answers import choice, unanswered
from .feedback import describe_error, not_yet, say, show, solved, tr
from .sandbox import checked


@checked
def check_version(prediction: Any) -> bool:
    """A1: `c = out.detach(); c.mul_(2)`: what is `out._version` afterwards?"""
    if unanswered(prediction, tr("a1.example", "a whole number such as 0")):
        return False
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    c.mul_(2)
    actual = out._version
    say(
        tr(
            "a1.ran",
            "Ran it: out._version is {actual} (and c._version is {c_version}).",
            actual=actual,
            c_version=c._version,
        )
    )
    if isinstance(prediction, str):
        return not_yet(
            tr(
                "a1.text",
                "your prediction {prediction} is text. Write the number without quotes.",
                prediction=show(prediction),
            ),
            tr("a1.text-hint", "e.g. prediction_a1 = 0"),
        )
    if isinstance(prediction, float) and prediction.is_integer():
        prediction = int(prediction)  # 1.0 means 1
    if isinstance(prediction, bool) or not isinstance(prediction, (int, np.integer)):
        return not_yet(
            tr(
                "a1.not-whole",
                "your prediction {prediction} is not a whole number.",
                prediction=show(prediction),
            ),
            tr("a1.not-whole-hint", "write e.g. prediction_a1 = 0"),
        )
    if prediction == actual:
        return solved(
            tr(
                "a1.solved",
                "detach() gives a new tensor that shares out's memory AND its version counter, "
                "so an in-place change through c is counted on out too. That is how backward "
                "notices it.",
            )
        )
    if prediction == 0:
        return not_yet(
            tr(
                "a1.zero",
                "out._version is 1, not 0. c is a different object, but it shares out's "
                "version counter (only .data gets a fresh one), so c.mul_(2) bumps both.",
            ),
            tr("a1.zero-hint", "notebook 04, section 2."),
        )
    return not_yet(
        tr(
            "a1.other",
            "out._version is {actual}, not {prediction}: one in-place operation adds exactly "
            "one, and c shares out's counter.",
            actual=actual,
            prediction=show(prediction),
        ),
        tr("a1.other-hint", "count the in-place operations, and ask who shares the counter."),
    )


@checked
def check_numpy_error(prediction: Any) -> bool:
    """A2: `x` requires grad. Which raises: A x.detach().numpy(), B x.numpy(), C x.tolist()?"""
    letter = choice(prediction)
    if letter is None:
        return False
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    lines = (("A", "x.detach().numpy()"), ("B", "x.numpy()"), ("C", "x.tolist()"))
    actions = (lambda: x.detach().numpy(), lambda: x.numpy(), lambda: x.tolist())
    for (key, line), action in zip(lines, actions, strict=True):
        try:
            action()
            outcome = tr("a2.runs", "runs")
        except RuntimeError as error:
            outcome = tr("a2.raises", "raises {error}", error=describe_error(error))
        say(tr("a2.ran", "Ran it: {key} {line:20} {outcome}", key=key, line=line, outcome=outcome))
    if letter == "B":
        return solved(
            tr(
                "a2.solved",
                "numpy() refuses a tensor that requires grad, because the array would let you "
                "change it with no record in the graph. detach() first makes the intent "
                "explicit; tolist() copies the numbers into Python floats, so it is allowed.",
            )
        )
    if letter == "C":
        return not_yet(
            tr(
                "a2.c",
                "tolist() works: it copies the values into plain Python numbers, which cannot "
                "change the tensor. The refusal is about handing out an array that shares "
                "memory.",
            ),
            tr("a2.c-hint", "which of the three would give you memory you could write into?"),
        )
    return not_yet(
        tr(
            "a2.a",
            "x.detach().numpy() is the recommended fix, and it runs. The error comes from "
            "calling numpy() directly on a tensor that requires grad.",
        ),
        tr("a2.a-hint", "which of the three has no detach() in front of numpy()?"),
    )


@checked
def check_data_zero(prediction: Any) -> bool:
    """A3: `out = a.sigmoid(); out.data.zero_(); out.sum().backward()`: what is a.grad?"""
    letter = choice(prediction)
    if letter is None:
        return False
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.data.zero_()
    out.sum().backward()
    say(
        tr(
            "a3.ran",
            "Ran it: no error, a.grad = {grad}  (the correct gradient is [0.1966, 0.1050, 0.0452])",
            grad=a.grad,
        )
    )
    if letter == "B":
        return solved(
            tr(
                "a3.solved",
                "SigmoidBackward0 computes the gradient from the saved output, which "
                ".data.zero_() overwrote. .data has its own version counter, so out._version "
                "stayed 0 and backward could not tell: a silently wrong gradient. Through "
                "detach() it would have raised.",
            )
        )
    if letter == "A":
        return not_yet(
            tr(
                "a3.a",
                "no error is raised. The same change through out.detach() would raise, because "
                "the detached tensor shares out's version counter; out.data does not, so the "
                "version check cannot see the change.",
            ),
            tr("a3.a-hint", "notebook 04, sections 4 and 5."),
        )
    return not_yet(
        tr(
            "a3.c",
            "the gradient is not the correct one: sigmoid's backward reads the saved output "
            "out, and out.data.zero_() zeroed it in place.",
        ),
        tr("a3.c-hint", "which value does SigmoidBackward0 multiply with?"),
    )


def _names(prediction: Any) -> set[str] | None:
    """A prediction of A4 as a set of names ("c" alone means {"c"}); None if it is not one."""
    if isinstance(prediction, str):
        prediction = [prediction]
    try:
        return {str(name).strip() for name in itertools.islice(iter(prediction), 10)}
    except TypeError:
        return None


@checked
def check_new_leaf(prediction: Any) -> bool:
    """A4: `c = out.detach().requires_grad_(True); (c * 3).sum().backward()`: who has a .grad?"""
    if unanswered(prediction, tr("a4.example", 'a set of names such as {{"a", "out"}}')):
        return False
    names = _names(prediction)
    if names is None:
        return not_yet(
            tr("a4.not-a-set", "{prediction} is not a set of names.", prediction=show(prediction)),
            tr("a4.not-a-set-hint", 'e.g. prediction_a4 = {{"a"}}'),
        )
    unknown = names - {"a", "out", "c"}
    if unknown:
        return not_yet(
            tr(
                "a4.unknown",
                "unknown name(s) {unknown}: choose among a, out, c.",
                unknown=show(sorted(unknown)),
            )
        )
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach().requires_grad_(True)
    (c * 3).sum().backward()
    found = ", ".join(
        f"{k}.grad = {v}" for k, v in (("a", a._grad), ("out", out._grad), ("c", c._grad))
    )
    say(tr("a4.ran", "Ran it: {found}", found=found))
    if names == {"c"}:
        return solved(
            tr(
                "a4.solved",
                "c is a new leaf that requires grad, so it gets its own .grad. The graph built "
                "from c has no edge back to out or a, so they receive nothing (and out, a "
                "non-leaf, would not keep a .grad anyway without retain_grad()).",
            )
        )
    if "c" not in names:
        return not_yet(
            tr(
                "a4.no-c",
                "c does get a gradient: after requires_grad_(True) a detached tensor is a new "
                "leaf (the popular claim that it 'can never have a gradient' is wrong, "
                "notebook 11).",
            )
        )
    return not_yet(
        tr(
            "a4.too-many",
            "a and out get nothing: the new graph starts at c, and detach() left no edge back "
            "to the old one.",
        ),
        tr(
            "a4.too-many-hint",
            "run the four lines in a new cell, then draw the graph: "
            "viz.draw((c * 3).sum(), names=dict(a=a, out=out, c=c)).",
        ),
    )


@checked
def check_detach_inplace(prediction: Any) -> bool:
    """A5: `b = a * 2; s = b.sum(); b.detach_(); s.backward()`: what happens to a.grad?"""
    letter = choice(prediction)
    if letter is None:
        return False
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    s = b.sum()
    b.detach_()
    s.backward()
    say(
        tr(
            "a5.ran",
            "Ran it: no error, a.grad = {grad}; b is now a leaf: b.grad_fn = {grad_fn}",
            grad=a.grad,
            grad_fn=b.grad_fn,
        )
    )
    if letter == "C":
        return solved(
            tr(
                "a5.solved",
                "detach_() changed the tensor b (it is now a leaf that does not require grad), "
                "but SumBackward0 recorded its edge to MulBackward0 before that. Backward "
                "follows the recorded edges, so the gradient 2 still reaches a.",
            )
        )
    if letter == "A":
        return not_yet(
            tr(
                "a5.a",
                "there is no error. detach_() only refuses views; on b it works, and s was "
                "built before the call.",
            ),
            tr("a5.a-hint", "notebook 03, section 'Edges recorded earlier survive'."),
        )
    return not_yet(
        tr(
            "a5.b",
            "a.grad is not None: detach_() cuts b off from what comes after, not the edges "
            "that s = b.sum() recorded before it.",
        ),
        tr(
            "a5.b-hint",
            "run the first three lines in a new cell, then draw the graph of s before and "
            "after b.detach_(): viz.cut(lambda: b.detach_(), s).",
        ),
    )
