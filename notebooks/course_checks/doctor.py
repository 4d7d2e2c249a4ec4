"""The exercises of notebook 13 (your own model): E1 makes weights that are leaves, E2 a gate
the gradient can pass. Each check runs the learner's code inside `viz.trace()`, asks the doctor
(`viz.explain`) and tests what the exercise states; what the doctor still finds is quoted in
the feedback, in the feedback's language.

The learner's code may make minigrad or torch tensors (on Colab, notebook 13 runs on torch):
the checks work with what they are given.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

import minigrad as mg
from minigrad import viz

from .answers import floats, untried
from .feedback import current_language, not_yet, solved, tr
from .sandbox import checked


def _library(tensor: Any) -> Any:
    """minigrad, or torch when the learner's tensors are torch's."""
    if type(tensor).__module__.startswith("torch"):
        return sys.modules["torch"]
    return mg


def _report(loss: Any, named: dict[str, Any]) -> Any:
    """The doctor's report, in the language of the feedback."""
    chosen = viz.current_language()
    viz.set_language(current_language())
    try:
        return viz.explain(loss, named)
    finally:
        viz.set_language(chosen)


# ---- E1: weights that are leaves -----------------------------------------------------------


@checked
def check_leaf_weights(make_weights: Any) -> bool:
    """E1: `make_weights()` returns (w, b), both leaves that require grad, w about 0.01 * randn."""
    if untried(make_weights, "make_weights"):
        return False
    with viz.trace():
        w, b = make_weights()
        x = _library(w).ones(4, 3)
        loss = (x @ w + b).pow(2).mean()
    report = _report(loss, {"w": w, "b": b})
    if not report.ok:
        return not_yet(
            tr("doctor-e1.report", "the doctor still finds:\n{report}", report=report),
            tr("doctor-e1.report-hint", "scale first, then call .requires_grad_() on it."),
        )
    scale = float(np.abs(floats(w.detach())).max())
    if not 0 < scale < 0.1:
        return not_yet(
            tr(
                "doctor-e1.scale",
                "w is a leaf now, but its largest value is {scale:.3f}: the exercise keeps it "
                "small, 0.01 times a standard normal sample.",
                scale=scale,
            ),
            tr("doctor-e1.scale-hint", "for example (mg.randn(3, 1) * 0.01).requires_grad_()"),
        )
    loss.backward()
    return solved(
        tr(
            "doctor-e1.solved",
            "w and b are leaves, and after backward() w.grad has shape {shape}. Scaling first "
            "and asking for gradients afterwards keeps the parameter itself the leaf.",
            shape=tuple(w.grad.shape),
        )
    )


# ---- E2: a soft gate -------------------------------------------------------------------------


@checked
def check_soft_gate(gate_values: Any) -> bool:
    """E2: `gate_values(scores)` is a gate in (0, 1), above 0.5 where a score is positive, and
    the layer making the scores gets a gradient through it."""
    if untried(gate_values, "gate_values"):
        return False
    mg.manual_seed(0)
    layer, head = mg.nn.Linear(3, 1), mg.nn.Linear(3, 1)
    x = mg.randn(8, 3)
    with viz.trace():
        scores = layer(x)
        gate = gate_values(scores)
        loss = (head(x) * gate).pow(2).mean()
    report = _report(loss, dict(layer.named_parameters()))
    if not report.ok:
        return not_yet(
            tr("doctor-e2.report", "the doctor still finds:\n{report}", report=report),
            tr("doctor-e2.report-hint", "scores.sigmoid() is a soft threshold."),
        )
    values = np.array(floats(gate.detach())).reshape(-1)
    positive = np.array(floats(scores.detach())).reshape(-1) > 0
    if values.min() < 0 or values.max() > 1 or not np.array_equal(values > 0.5, positive):
        return not_yet(
            tr(
                "doctor-e2.values",
                "a gradient now reaches the layer, but the gate's values {values} are not "
                "between 0 and 1 with those above 0.5 exactly where a score is positive.",
                values=np.round(values, 3).tolist(),
            ),
            tr("doctor-e2.values-hint", "scores.sigmoid() is 0.5 at 0."),
        )
    return solved(
        tr(
            "doctor-e2.solved",
            "the gate is soft, so the gradient reaches the layer that makes the scores; a "
            "comparison gives booleans, and booleans carry no gradient.",
        )
    )
