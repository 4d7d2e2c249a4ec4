"""Text for ``repr(tensor)``, laid out character for character the way torch 2.x prints tensors.

The rules follow ``torch/_tensor_str.py`` (torch 2.13) with its default print options. In short:

* One formatter is chosen for the whole tensor, from the values that will actually be shown
  (only the edge items when the tensor is summarized). It fixes a single style and width.
* Floating point styles: *integer mode* when every nonzero finite value is a whole number
  (``1.``, ``-0.``), *fixed* with 4 decimals (``0.7311``), or *scientific* (``1.0000e-05``) when
  the nonzero finite magnitudes span more than a factor 1000, exceed 1e8, or go below 1e-4.
  ``nan``, ``inf`` and zeros never influence that choice.
* Every element is right-aligned to the common width; rows wrap at 80 columns, nested
  brackets are indented one column per level below the 7 columns of ``tensor(``.
* More than 1000 elements: only 3 items at each end of every dimension, with ``...`` between.
* Suffixes (``dtype=…``, ``grad_fn=<…>``) follow the data, on a new line if they would pass
  column 80.

Nothing here knows about minigrad's Tensor: it works on plain numpy arrays, so the printing can
be checked against torch on its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .dtypes import default_float


class _Options:
    """The print options in force: torch's defaults (``set_printoptions(profile="default")``)."""

    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode: bool | None = None  # None: chosen from the values, as torch does


_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change how tensors print (torch.set_printoptions): digits after the point, how many
    elements before summarizing with ..., line width; `profile` resets to a preset."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Unknown profile {profile!r}; use one of {sorted(_PROFILES)}")
        for name, value in _PROFILES[profile].items():
            setattr(_Options, name, value)
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(_Options, name, value)
    _Options.sci_mode = sci_mode


_PREFIX = "tensor("
_INDENT = len(_PREFIX)

# The dtypes minigrad can hold, by the name torch gives them.
_DTYPE_NAMES: dict[np.dtype, str] = {
    np.dtype(np.float16): "float16",
    np.dtype(np.float32): "float32",
    np.dtype(np.float64): "float64",
    np.dtype(np.int8): "int8",
    np.dtype(np.int16): "int16",
    np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64",
    np.dtype(np.uint8): "uint8",
    np.dtype(np.uint16): "uint16",
    np.dtype(np.uint32): "uint32",
    np.dtype(np.uint64): "uint64",
    np.dtype(np.bool_): "bool",
}

# Dtypes torch leaves unsaid in a non-empty tensor: the default float dtype, plus the dtypes
# that the printed values already reveal (ints print without a dot, bools as True/False).
_ALWAYS_IMPLIED = {np.dtype(np.int64), np.dtype(np.bool_)}


def dtype_name(dtype: np.dtype) -> str:
    """Return minigrad's public name for a numpy dtype, e.g. ``"minigrad.float64"``."""
    name = _DTYPE_NAMES.get(np.dtype(dtype))
    if name is None:
        raise TypeError(f"minigrad does not support dtype {np.dtype(dtype)}")
    return f"minigrad.{name}"


def dtype_suffix(array: np.ndarray) -> str | None:
    """Return the ``dtype=…`` suffix torch would print for this array, or None if it prints none.

    A non-empty tensor names its dtype unless it is float32, int64 or bool. An empty tensor has
    no values to hint at the dtype, so torch names every dtype except the default float32.
    """
    dtype = np.asarray(array).dtype
    name = dtype_name(dtype)
    if np.asarray(array).size == 0:
        shown = dtype != default_float()
    else:
        shown = dtype not in _ALWAYS_IMPLIED and dtype != default_float()
    return f"dtype={name}" if shown else None


def format_tensor(array: np.ndarray, suffixes: Sequence[str] = ()) -> str:
    """Return ``tensor(<data>, <suffixes>)`` exactly as torch's ``repr`` would print it.

    ``suffixes`` are complete strings such as ``"dtype=minigrad.float64"`` or
    ``"grad_fn=<MulBackward0>"``, in torch's order (dtype first). For an empty array that is not
    1-d, the ``size=(…)`` suffix torch adds is put in front of them here.
    """
    array = np.asarray(array)
    dtype_name(array.dtype)  # rejects dtypes torch could not hold
    all_suffixes = list(suffixes)
    if array.size == 0:
        body = "[]"
        # torch shows the shape only when "[]" alone would be ambiguous (anything but (0,)).
        if array.ndim != 1:
            all_suffixes.insert(0, f"size={tuple(array.shape)}")
    else:
        summarize = array.size > _Options.threshold
        shown = _edge_items(array) if summarize else array
        body = _nested_str(array, _INDENT, summarize, _ElementFormatter(shown))
    return _add_suffixes(_PREFIX + body, all_suffixes)


class _ElementFormatter:
    """One style and width for every element of a tensor, chosen from the values shown."""

    def __init__(self, shown: np.ndarray) -> None:
        self.floating = shown.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1

        flat = shown.reshape(-1)
        if not self.floating:
            self.width = max(self.width, max(len(str(v)) for v in flat.tolist()))
            return

        candidates = flat[np.isfinite(flat) & (flat != 0)]
        if candidates.size == 0:
            # Only zeros, nan and inf: integer mode with width 1, like torch.
            return
        magnitudes = np.abs(candidates).astype(np.float64)
        smallest = magnitudes.min()
        largest = magnitudes.max()
        self.int_mode = bool(np.all(candidates == np.ceil(candidates)))
        with np.errstate(over="ignore"):  # a huge/tiny ratio overflows to inf, as in torch
            spread = largest / smallest
        self.sci_mode = bool(spread > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        if _Options.sci_mode is not None:
            self.sci_mode = _Options.sci_mode

        # Width from the nonzero finite values only; nan/inf/zeros are padded to fit.
        values = candidates.tolist()
        if self.sci_mode:
            texts = [f"{v:.{_Options.precision}e}" for v in values]
        elif self.int_mode:
            # +1 for the trailing dot that marks a float tensor.
            texts = [f"{v:.0f}." for v in values]
        else:
            texts = [f"{v:.{_Options.precision}f}" for v in values]
        self.width = max(self.width, max(len(t) for t in texts))

    def format(self, value: float | int | bool) -> str:
        """Format one element (a Python scalar from ``tolist()``), right-aligned."""
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{_Options.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{_Options.precision}f}"
        return text.rjust(self.width)


def _edge_items(array: np.ndarray) -> np.ndarray:
    """Keep only the first and last `edgeitems` entries along every dimension longer than 2x that.

    These are the values a summarized print shows, so the formatter is built from them alone.
    """
    for axis, length in enumerate(array.shape):
        if length > 2 * _Options.edgeitems:
            keep = np.r_[0 : _Options.edgeitems, length - _Options.edgeitems : length]
            array = np.take(array, keep, axis=axis)
    return array


def _nested_str(array: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    """Bracketed text for ``array``, whose opening bracket sits at column ``indent``."""
    if array.ndim == 0:
        return fmt.format(array.item())
    if array.ndim == 1:
        return _vector_str(array, indent, summarize, fmt)

    if summarize and array.shape[0] > 2 * _Options.edgeitems:
        head = [_nested_str(sub, indent + 1, summarize, fmt) for sub in array[: _Options.edgeitems]]
        tail = [
            _nested_str(sub, indent + 1, summarize, fmt) for sub in array[-_Options.edgeitems :]
        ]
        parts = [*head, "...", *tail]
    else:
        parts = [_nested_str(sub, indent + 1, summarize, fmt) for sub in array]
    # Blocks of dimension d are separated by d - 1 blank lines' worth of newlines.
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _vector_str(array: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    """Bracketed text for a 1-d array, wrapped so lines stay within _Options.linewidth."""
    element_length = fmt.width + 2  # the element plus ", "
    per_line = max(1, (_Options.linewidth - indent) // element_length)

    if summarize and array.shape[0] > 2 * _Options.edgeitems:
        items = (
            [fmt.format(v) for v in array[: _Options.edgeitems].tolist()]
            + [" ..."]  # torch's marker is not padded to the element width
            + [fmt.format(v) for v in array[-_Options.edgeitems :].tolist()]
        )
    else:
        items = [fmt.format(v) for v in array.tolist()]

    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _add_suffixes(text: str, suffixes: Sequence[str]) -> str:
    """Append ``, suffix`` items and the closing parenthesis, breaking lines the way torch does."""
    pieces = [text]
    # torch's own measure of the last line (it counts two columns more than are there); kept
    # as is so line breaks fall at the same places.
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > _Options.linewidth:
            pieces.append(",\n" + " " * _INDENT + suffix)
            last_line_len = _INDENT + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_line_len += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)
