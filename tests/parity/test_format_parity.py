"""Parity: format_tensor must print exactly what ``repr`` prints for a torch tensor.

Skipped when torch is not installed. Hypothesis draws arrays of the dtypes and shapes the course
uses, with whole numbers, ordinary decimals, huge and tiny magnitudes, nan, inf and -0.0, plus
arrays above the 1000-element summarization threshold.

Two comparisons are made for each tensor:

* exact: the suffixes are given torch's dtype name (``dtype=torch.float64``), so the output must
  be byte-identical to ``repr(t)``, line breaks included;
* renamed: with minigrad's names, the output must equal ``repr(t)`` with ``torch.`` replaced by
  ``minigrad.``, once the whitespace after commas is normalized. "minigrad." is three characters
  longer than "torch.", so a suffix can move to the next line where torch's would not; applying
  torch's line-breaking rule to the longer text is the correct behaviour, not a mismatch.
"""

import re
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minigrad._format import dtype_suffix, format_tensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.parity

# The dtypes drawn most; the others appear less often but still check dtype_suffix's naming.
MAIN_DTYPES = [np.float32, np.float64, np.int64, np.bool_]
OTHER_DTYPES = [np.float16, np.int32, np.int16, np.int8, np.uint8]


def grad_suffix(t: "torch.Tensor") -> list[str]:
    """The autograd suffix torch prints: grad_fn for a non-leaf, requires_grad for a leaf."""
    if t.grad_fn is not None:
        return [f"grad_fn=<{type(t.grad_fn).__name__}>"]
    if t.requires_grad:
        return ["requires_grad=True"]
    return []


def normalize(text: str) -> str:
    """Collapse the whitespace after every comma, so only line-break placement is ignored."""
    return re.sub(r",\s+", ", ", text)


def assert_same_repr(t: "torch.Tensor") -> None:
    """Compare format_tensor on t's values with repr(t), exactly and with minigrad's names."""
    array = t.detach().numpy()
    dtype = dtype_suffix(array)
    ours = [dtype] if dtype else []

    expected = repr(t)
    torch_named = [s.replace("minigrad.", "torch.") for s in ours] + grad_suffix(t)
    assert format_tensor(array, torch_named) == expected

    renamed = format_tensor(array, ours + grad_suffix(t))
    assert normalize(renamed) == normalize(expected.replace("torch.", "minigrad."))


# --- strategies -----------------------------------------------------------------------------

SPECIALS = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]
BOUNDARY_VALUES = [1.0, 0.1, 1e-3, 1e-4, 1e-5, 100.0, 1000.0, 1001.0, 1e5, 1e8, 1.5e8]


def as_width(width: int) -> Callable[[float], float]:
    """Round a Python float to the nearest value of a float dtype (overflow gives inf)."""
    kind = {16: np.float16, 32: np.float32, 64: np.float64}[width]

    def rounded(value: float) -> float:
        with np.errstate(over="ignore"):
            return float(kind(value))

    return rounded


def float_family(width: int) -> st.SearchStrategy[st.SearchStrategy[float]]:
    """Pick, once per array, what kind of numbers it holds (one style decision per tensor)."""
    signed = st.sampled_from([1.0, -1.0])
    families = [
        st.integers(-1000, 1000).map(float),  # integer mode
        st.floats(-10, 10),  # fixed notation
        st.floats(-1e4, 1e4),  # fixed or scientific, near the 1000x ratio
        st.builds(lambda m, s: m * s, st.floats(1e-9, 1e-3), signed),  # tiny: scientific
        st.builds(lambda m, s: m * s, st.floats(1e7, 1e12), signed),  # huge: sci or integer
        st.floats(allow_nan=False, allow_infinity=False, width=width),  # anything finite
        # exactly on the style thresholds (ratio 1000, 1e8, 1e-4) and next to them
        st.builds(lambda m, s: m * s, st.sampled_from(BOUNDARY_VALUES), signed),
    ]
    return st.sampled_from([family.map(as_width(width)) for family in families])


def float_elements(draw: st.DrawFn, width: int) -> st.SearchStrategy[float]:
    """Elements from one family, sometimes salted with nan, inf and signed zeros."""
    family = draw(float_family(width))
    if draw(st.booleans()):
        return st.one_of(family, family, family, st.sampled_from(SPECIALS))
    return family


def elements_for(dtype: np.dtype, draw: st.DrawFn) -> st.SearchStrategy:
    """An element strategy suited to dtype."""
    if dtype.kind == "f":
        return float_elements(draw, 8 * dtype.itemsize)
    if dtype.kind == "b":
        return st.booleans()
    info = np.iinfo(dtype)
    small = st.integers(max(info.min, -100), min(info.max, 100))
    return st.one_of(small, st.integers(int(info.min), int(info.max)))


@st.composite
def small_arrays(
    draw: st.DrawFn, dtypes: Sequence[type] = MAIN_DTYPES * 3 + OTHER_DTYPES
) -> np.ndarray:
    """Arrays of shape (), (n,), (n, m) or (a, b, c), under the summarization threshold."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=12))
    return draw(hnp.arrays(dtype, shape, elements=elements_for(dtype, draw)))


@st.composite
def large_arrays(draw: st.DrawFn) -> np.ndarray:
    """Arrays above 1000 elements, filled from a seeded generator at a drawn magnitude."""
    dtype = np.dtype(draw(st.sampled_from(MAIN_DTYPES)))
    shape = draw(
        st.one_of(
            st.tuples(st.integers(1001, 3000)),
            st.tuples(st.integers(1, 60), st.integers(1, 60)).filter(lambda s: s[0] * s[1] > 1000),
            st.tuples(st.integers(1, 14), st.integers(1, 14), st.integers(1, 14)).filter(
                lambda s: s[0] * s[1] * s[2] > 1000
            ),
        )
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "i":
        high = draw(st.sampled_from([10, 1000, 10**12]))
        return rng.integers(-high, high, size=shape, dtype=dtype)
    scale = 10.0 ** draw(st.integers(-12, 12))
    values = rng.standard_normal(shape) * scale
    if draw(st.booleans()):
        values = np.round(values)
    values = values.astype(dtype)
    # Special values at the corners, which are always among the shown edge items.
    flat = values.reshape(-1)
    for index in draw(st.lists(st.sampled_from([0, 1, -1, -2]), max_size=3)):
        flat[index] = draw(st.sampled_from(SPECIALS))
    return values


# --- tests ----------------------------------------------------------------------------------


@settings(max_examples=300)
@given(small_arrays())
def test_plain_tensors(array: np.ndarray) -> None:
    """Tensors without autograd suffixes, every dtype and small shape."""
    assert_same_repr(torch.from_numpy(array))


@settings(max_examples=60)
@given(large_arrays())
def test_summarized_tensors(array: np.ndarray) -> None:
    """Tensors above the threshold print three edge items per dimension with '...'."""
    assert_same_repr(torch.from_numpy(array))


@settings(max_examples=100)
@given(
    small_arrays(dtypes=[np.float32, np.float64]),
    st.sampled_from(["leaf", "mul", "sum", "sigmoid"]),
)
def test_autograd_suffixes(array: np.ndarray, how: str) -> None:
    """requires_grad=True on leaves, grad_fn=<…> on results, after any dtype suffix."""
    leaf = torch.from_numpy(array).requires_grad_(True)
    result = {
        "leaf": lambda: leaf,
        "mul": lambda: leaf * 1,
        "sum": lambda: leaf.sum(),
        "sigmoid": lambda: leaf.sigmoid(),
    }[how]()
    assert_same_repr(result)


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.tensor(6.0),
        lambda: torch.tensor([1.0, 2.0, 3.0], requires_grad=True),
        lambda: torch.tensor([0.0, 1.0, 2.0], requires_grad=True).sigmoid(),
        lambda: torch.tensor([1.0, 2.0, 3.0], requires_grad=True).sum(),
        lambda: torch.tensor([float("nan"), 1.5, float("inf")]),
        lambda: torch.tensor([1e-5, 1.5, float("-inf")]),
        lambda: torch.tensor([-0.0, 1.0]),
        lambda: torch.tensor([1000.0, 1.0]),
        lambda: torch.tensor([1001.0, 1.0]),
        lambda: torch.tensor([1e8, 1.0]),
        lambda: torch.tensor([1e8, 1e8]),
        lambda: torch.tensor([1e8, 1e6], dtype=torch.float64),
        lambda: torch.tensor([1e-4, 1e-3], dtype=torch.float64),
        lambda: torch.tensor([1e9, 1.0]),
        lambda: torch.tensor([1e-4, 1.0]),
        lambda: torch.zeros(0, 3),
        lambda: torch.zeros(2, 0, 3, dtype=torch.float64),
        lambda: torch.zeros(0, dtype=torch.int64),
        lambda: torch.zeros(0, 3, requires_grad=True),
        lambda: torch.arange(1001),
        lambda: torch.arange(1000),
        lambda: torch.arange(1001) % 2 == 0,
        lambda: torch.arange(2000.0).reshape(40, 50),
        lambda: torch.arange(7 * 7 * 7 * 3).reshape(7, 7, 7, 3),
        lambda: torch.ones(1, 1, 1, 1, 1, 2000),
        lambda: torch.arange(30.0) * 1.5,
        lambda: torch.arange(1e-5, 1.0, 0.1, dtype=torch.float64, requires_grad=True) * 1,
        lambda: torch.arange(6.0).reshape(2, 3).t(),
        lambda: torch.tensor([255, 0], dtype=torch.uint8),
        lambda: torch.tensor([1.0, 2.5], dtype=torch.float16) * 1000,
    ],
)
def test_known_cases(make: object) -> None:
    """Hand-picked tensors at the edges of each rule."""
    assert_same_repr(make())
