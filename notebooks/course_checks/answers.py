"""Reading a learner's answer without trusting it: a prediction still `None`, the letter of a
multiple-choice prediction, at most a few items of anything iterable, values as plain floats,
and "is this still the given function?"."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

import minigrad as mg

from .feedback import no_answer, not_yet, show, tr
from .given import unchanged


def untried(answer: Any, name: str) -> bool:
    """Say "No answer yet" (and return True) while `answer` is still the function `name` as the
    notebook gives it."""
    if not unchanged(answer, name):
        return False
    no_answer(
        tr(
            "untried",
            "{name} is still the function as given above. Repair it in its cell and run that cell "
            "(an edit counts once its cell has run), then run this check.",
            name=name,
        )
    )
    return True


LETTERS = ("A", "B", "C")


def unanswered(prediction: Any, example: str) -> bool:
    """Say "No answer yet" (and return True) while the prediction is still None."""
    if prediction is None or prediction is Ellipsis:
        no_answer(
            tr(
                "unanswered",
                "replace `None` in the cell above with your prediction ({example}), run that "
                "cell, then run this one.",
                example=example,
            )
        )
        return True
    return False


def choice(prediction: Any) -> str | None:
    """The letter of a multiple-choice prediction ("b " means "B"); None, after saying why,
    when there is none yet or it is not one of A, B, C."""
    if unanswered(prediction, tr("choice.example", 'a letter: "A", "B" or "C"')):
        return None
    if isinstance(prediction, str) and prediction.strip().upper() in LETTERS:
        return prediction.strip().upper()
    not_yet(
        tr(
            "choice.not-a-letter",
            "{prediction} is not one of the letters A, B, C.",
            prediction=show(prediction),
        ),
        tr("choice.not-a-letter-hint", 'e.g. "A"'),
    )
    return None


def first(iterable: Any, count: int) -> list[Any]:
    """At most `count` items of `iterable` (an endless generator cannot hang the check)."""
    return list(itertools.islice(iter(iterable), count))


def floats(values: Any) -> list[float]:
    """A tensor, array, list or number as a flat list of Python floats (TypeError or
    ValueError when it is none of those)."""
    if isinstance(values, mg.Tensor):
        values = values.detach().numpy()
    return [float(v) for v in np.asarray(values, dtype=float).ravel()]


def one_number(value: Any) -> float | None:
    """`value` as one float when it is a number or holds exactly one; None otherwise (text
    such as "2.4" is not a number, even though numpy would read it as one)."""
    if isinstance(value, (str, bytes)):
        return None
    try:
        found = floats(value)
    except (TypeError, ValueError):
        return None
    return found[0] if len(found) == 1 else None


def rounded(values: list[float], digits: int = 4) -> list[float]:
    """`values` rounded for a message."""
    return [round(float(v), digits) for v in values]


def weights(model: Any) -> list[np.ndarray]:
    """Copies of a model's parameter values, in order."""
    return [p.detach().numpy().copy() for p in model.parameters()]


def same_weights(mine: list[np.ndarray], right: list[np.ndarray]) -> bool:
    """Whether two lists of parameter values agree (to float32 rounding)."""
    if len(mine) != len(right):
        return False
    return all(np.allclose(a, b, rtol=1e-4, atol=1e-6) for a, b in zip(mine, right, strict=True))
