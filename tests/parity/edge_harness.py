"""Run one edge or misuse call with torch and with minigrad, and say how the two compare.

A case is a short piece of code written once against both libraries: `L` is the library
(`torch` or `minigrad`), `F` its `nn.functional`, `np` numpy. Statements may come first,
separated by `;` or newlines; the last line is an expression whose value is observed. What is
compared:

- an exception: its type and the first sentence of its message (`torch.` read as `minigrad.`);
- a tensor: its values (nan equal to nan, float tolerance), dtype, shape, `requires_grad` and
  the name of its `grad_fn`;
- anything else (numbers, bools, strings, tuples/lists of those): by value;
- warnings raised by the call: their category and first sentence.

`classify` names the outcome: "match", "silent" (torch raises, minigrad returns), "value"
(both return, differently), "error" (both raise, differently), or "spurious" (minigrad raises
where torch returns).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np


def first_sentence(message: str) -> str:
    """The message up to the first '. ' (or the end), with `torch.` read as `minigrad.`."""
    message = message.replace("torch::autograd::", "").replace("torch.", "minigrad.").strip()
    return message.split(". ")[0].split("\n")[0].rstrip(".")


def _describe(value: Any) -> Any:
    if hasattr(value, "grad_fn") and hasattr(value, "detach"):
        node = value.grad_fn
        return {
            "values": np.array(value.detach().numpy(), copy=True),
            "dtype": str(value.dtype).split(".")[-1],
            "shape": list(value.shape),
            "requires_grad": bool(value.requires_grad),
            "grad_fn": None if node is None else node.name().rsplit("::", 1)[-1],
        }
    if type(value).__name__ in ("Size",):
        return list(value)
    if type(value).__name__ in ("dtype", "DType"):
        return str(value).split(".")[-1]
    if isinstance(value, (list, tuple)):
        return [_describe(item) for item in value]
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    if isinstance(value, str):
        return value.replace("torch.", "minigrad.")
    return value


def observe(lib: Any, code: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run `code` with `lib` (and the names in `extra`); return what happened (error or value,
    plus warnings)."""
    namespace: dict[str, Any] = {"L": lib, "F": lib.nn.functional, "np": np, **(extra or {})}
    # Lines before the last run as one block (so `with ...:` and `def` work); the last line
    # holds `;`-separated statements and ends with the expression observed.
    *block, last = code.split("\n")
    statements = [part.strip() for part in last.split(";") if part.strip()]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec("\n".join([*block, *statements[:-1]]), namespace)  # noqa: S102 - our own cases
            value = eval(statements[-1], namespace)  # noqa: S307
            result: dict[str, Any] = {"value": _describe(value)}
        except Exception as error:  # noqa: BLE001 - any exception is an observation here
            result = {"error": (type(error).__name__, first_sentence(str(error)))}
    result["warnings"] = sorted(
        {(w.category.__name__, first_sentence(str(w.message))) for w in caught}
    )
    return result


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, np.ndarray):
        if not isinstance(actual, np.ndarray) or expected.shape != actual.shape:
            return False
        if expected.dtype.kind in "fc" or actual.dtype.kind in "fc":
            return bool(
                np.allclose(
                    actual.astype(np.float64),
                    expected.astype(np.float64),
                    rtol=1e-4,
                    atol=1e-6,
                    equal_nan=True,
                )
            )
        return bool(np.array_equal(expected, actual))
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(_same(expected[k], actual[k]) for k in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(_same(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        if np.isnan(expected):
            return bool(np.isnan(actual))
        return abs(expected - actual) <= 1e-5 * max(1.0, abs(expected))
    return expected == actual


def classify(expected: dict[str, Any], actual: dict[str, Any]) -> str:
    """'match', 'silent', 'value', 'error' or 'spurious' (see the module docstring)."""
    if "error" in expected:
        if "error" not in actual:
            return "silent"
        return "match" if expected["error"] == actual["error"] else "error"
    if "error" in actual:
        return "spurious"
    if not _same(expected["value"], actual["value"]):
        return "value"
    return "match" if expected["warnings"] == actual["warnings"] else "value"
