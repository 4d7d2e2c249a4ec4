"""Unit tests for minigrad._format: each printing rule with an expected string.

Every expected string below is what torch 2.13 prints for the same values (checked by hand; the
parity tests in tests/parity/ compare with torch automatically when it is installed).
"""

import textwrap

import numpy as np
import pytest

from minigrad._format import dtype_name, dtype_suffix, format_tensor


def f32(values: object) -> np.ndarray:
    """A float32 array, the default dtype, as torch.tensor(values) would make."""
    return np.array(values, dtype=np.float32)


def block(text: str) -> str:
    """Dedent a triple-quoted expected repr and drop the surrounding newlines."""
    return textwrap.dedent(text).strip("\n")


# --- element styles -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (6.0, "tensor(6.)"),
        (0.5, "tensor(0.5000)"),
        (-0.0, "tensor(-0.)"),
        (float("nan"), "tensor(nan)"),
        ([1.0, 2.0, 3.0], "tensor([1., 2., 3.])"),
        ([0.0, 0.0], "tensor([0., 0.])"),
        ([0.7311, 0.8808, 0.9526], "tensor([0.7311, 0.8808, 0.9526])"),
        ([-1.5, 2.25], "tensor([-1.5000,  2.2500])"),
        ([1000.0, 1.0], "tensor([1000.,    1.])"),
        ([1e8, 1e8], "tensor([100000000., 100000000.])"),
    ],
)
def test_fixed_and_integer_styles(values: object, expected: str) -> None:
    """Whole numbers print with a trailing dot, others with 4 decimals, all right-aligned."""
    assert format_tensor(f32(values)) == expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # ratio of largest to smallest nonzero magnitude above 1000
        ([1001.0, 1.0], "tensor([1.0010e+03, 1.0000e+00])"),
        ([123456.0, 0.5], "tensor([1.2346e+05, 5.0000e-01])"),
        # largest magnitude above 1e8
        ([2e8, 2e8], "tensor([2.0000e+08, 2.0000e+08])"),
        # smallest magnitude below 1e-4 (float32 1e-4 is slightly less than 1e-4)
        ([1e-4, 1.0], "tensor([1.0000e-04, 1.0000e+00])"),
        # zeros do not count as the smallest magnitude, but still print in the chosen style
        ([1e-10, 0.0, 1.0], "tensor([1.0000e-10, 0.0000e+00, 1.0000e+00])"),
    ],
)
def test_scientific_style(values: object, expected: str) -> None:
    """Scientific notation is chosen from the nonzero finite magnitudes only."""
    assert format_tensor(f32(values)) == expected


def test_special_values_are_padded_to_the_common_width() -> None:
    """nan and inf never set the width; they are right-aligned like any element."""
    assert format_tensor(f32([np.nan, 1.5, np.inf])) == "tensor([   nan, 1.5000,    inf])"
    assert (
        format_tensor(f32([1e-5, 1.5, -np.inf])) == "tensor([1.0000e-05, 1.5000e+00,       -inf])"
    )
    assert format_tensor(f32([np.nan, np.inf, -np.inf])) == "tensor([nan, inf, -inf])"
    assert format_tensor(f32([[1.5, np.nan], [-np.inf, -2.0]])) == block(
        """
        tensor([[ 1.5000,     nan],
                [   -inf, -2.0000]])
        """
    )


def test_negative_zero_keeps_its_sign() -> None:
    """-0.0 prints as -0. in integer mode and -0.0000 in fixed mode, as in torch."""
    assert format_tensor(f32([-0.0, 1.0])) == "tensor([-0., 1.])"
    assert format_tensor(f32([-0.0, 1.5])) == "tensor([-0.0000, 1.5000])"


def test_integers_and_bools() -> None:
    """Integer and bool elements print as Python would, right-aligned to the widest."""
    assert format_tensor(np.array([1, -20, 3])) == "tensor([  1, -20,   3])"
    assert format_tensor(np.array([True, False])) == "tensor([ True, False])"
    assert format_tensor(np.array(7)) == "tensor(7)"
    assert format_tensor(np.array(True)) == "tensor(True)"


def test_float64_values_keep_their_own_precision() -> None:
    """A float64 value is formatted from its double value, not rounded through float32."""
    array = np.array([1e-4, 1.0])
    assert format_tensor(array, ["dtype=minigrad.float64"]) == (
        "tensor([1.0000e-04, 1.0000e+00], dtype=minigrad.float64)"
    )


# --- layout ---------------------------------------------------------------------------------


def test_two_and_three_dimensions() -> None:
    """Rows line up under the first bracket; each extra dimension adds a blank line."""
    assert format_tensor(np.arange(6, dtype=np.float32).reshape(2, 3)) == block(
        """
        tensor([[0., 1., 2.],
                [3., 4., 5.]])
        """
    )
    assert format_tensor(np.arange(8).reshape(2, 2, 2)) == block(
        """
        tensor([[[0, 1],
                 [2, 3]],

                [[4, 5],
                 [6, 7]]])
        """
    )


def test_four_dimensions() -> None:
    """Between 4-d blocks torch leaves two blank lines."""
    assert format_tensor(np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2)) == block(
        """
        tensor([[[[ 0.,  1.],
                  [ 2.,  3.]],

                 [[ 4.,  5.],
                  [ 6.,  7.]]],


                [[[ 8.,  9.],
                  [10., 11.]],

                 [[12., 13.],
                  [14., 15.]]]])
        """
    )


def test_long_rows_wrap_at_80_columns() -> None:
    """A long 1-d tensor wraps, and continuation lines start under the first element."""
    assert format_tensor(np.arange(30, dtype=np.float32) * 1.5) == block(
        """
        tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,
                12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,
                24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,
                36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])
        """
    )


def test_non_contiguous_input_prints_in_logical_order() -> None:
    """A transposed view prints its rows, not its memory order."""
    transposed = np.arange(6, dtype=np.float32).reshape(2, 3).T
    assert format_tensor(transposed) == block(
        """
        tensor([[0., 3.],
                [1., 4.],
                [2., 5.]])
        """
    )


# --- summarization --------------------------------------------------------------------------


def test_summarize_only_above_1000_elements() -> None:
    """1000 elements print in full, 1001 show three at each end."""
    assert "..." not in format_tensor(np.arange(1000))
    assert format_tensor(np.arange(1001)) == "tensor([   0,    1,    2,  ...,  998,  999, 1000])"


def test_summarized_width_comes_from_the_shown_values() -> None:
    """Hidden values do not widen the columns or change the style."""
    values = np.full(2000, 1.0, dtype=np.float32)
    values[1000] = 12345.5  # hidden in the middle: would force scientific notation if seen
    assert format_tensor(values) == "tensor([1., 1., 1.,  ..., 1., 1., 1.])"


def test_summarized_matrix() -> None:
    """Rows are elided with a '...' line; the rows shown are elided and wrapped too."""
    array = np.arange(2000, dtype=np.float32).reshape(40, 50)
    assert format_tensor(array) == block(
        """
        tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,
                 4.9000e+01],
                [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,
                 9.9000e+01],
                [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,
                 1.4900e+02],
                ...,
                [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,
                 1.8990e+03],
                [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,
                 1.9490e+03],
                [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,
                 1.9990e+03]])
        """
    )


def test_summarized_3d_separates_elided_blocks_with_blank_lines() -> None:
    """In 3-d, the '...' standing for hidden matrices sits between blank lines."""
    text = format_tensor(np.arange(7 * 7 * 30).reshape(7, 7, 30))
    assert "]],\n\n        ...,\n\n        [[" in text
    assert text.count("...,\n") == 1 + 6 * 1  # one for the matrices, one per matrix shown


def test_large_array_is_not_formatted_element_by_element() -> None:
    """Summarizing a million elements stays cheap (only the edge items are formatted)."""
    text = format_tensor(np.zeros((1000, 1000), dtype=np.float32))
    assert text.startswith("tensor([[0., 0., 0.,  ..., 0., 0., 0.],")
    assert len(text.splitlines()) == 7


# --- suffixes -------------------------------------------------------------------------------


def test_suffixes_follow_the_data() -> None:
    """requires_grad / grad_fn strings are appended after a comma."""
    data = f32([1.0, 2.0, 3.0])
    assert format_tensor(data, ["requires_grad=True"]) == "tensor([1., 2., 3.], requires_grad=True)"
    assert (
        format_tensor(f32(6.0), ["grad_fn=<SumBackward0>"]) == "tensor(6., grad_fn=<SumBackward0>)"
    )
    assert format_tensor(f32([0.7311, 0.8808, 0.9526]), ["grad_fn=<SigmoidBackward0>"]) == (
        "tensor([0.7311, 0.8808, 0.9526], grad_fn=<SigmoidBackward0>)"
    )


def test_suffix_that_would_pass_column_80_goes_on_a_new_line() -> None:
    """Each suffix moves to its own line, indented 7 columns, when it would not fit."""
    data = np.arange(1e-5, 1.0, 0.1)
    suffixes = ["dtype=torch.float64", "grad_fn=<MulBackward0>"]
    assert format_tensor(data, suffixes) == block(
        """
        tensor([1.0000e-05, 1.0001e-01, 2.0001e-01, 3.0001e-01, 4.0001e-01, 5.0001e-01,
                6.0001e-01, 7.0001e-01, 8.0001e-01, 9.0001e-01], dtype=torch.float64,
               grad_fn=<MulBackward0>)
        """
    )


# --- dtypes and empty tensors ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "suffix"),
    [
        (np.float32, None),
        (np.int64, None),
        (np.bool_, None),
        (np.float64, "dtype=minigrad.float64"),
        (np.float16, "dtype=minigrad.float16"),
        (np.int32, "dtype=minigrad.int32"),
        (np.int16, "dtype=minigrad.int16"),
        (np.int8, "dtype=minigrad.int8"),
        (np.uint8, "dtype=minigrad.uint8"),
    ],
)
def test_dtype_suffix_for_non_empty_tensors(dtype: type, suffix: str | None) -> None:
    """float32, int64 and bool go unnamed; every other dtype is named."""
    assert dtype_suffix(np.ones(3, dtype=dtype)) == suffix
    assert dtype_suffix(np.ones((), dtype=dtype)) == suffix


@pytest.mark.parametrize(
    ("dtype", "suffix"),
    [
        (np.float32, None),
        (np.int64, "dtype=minigrad.int64"),
        (np.bool_, "dtype=minigrad.bool"),
        (np.float64, "dtype=minigrad.float64"),
        (np.uint8, "dtype=minigrad.uint8"),
    ],
)
def test_dtype_suffix_for_empty_tensors(dtype: type, suffix: str | None) -> None:
    """An empty tensor has no values to show its dtype, so only float32 goes unnamed."""
    assert dtype_suffix(np.ones(0, dtype=dtype)) == suffix


def test_empty_tensors() -> None:
    """Empty tensors print [], with the shape unless it is (0,)."""
    assert format_tensor(np.zeros(0, dtype=np.float32)) == "tensor([])"
    assert format_tensor(np.zeros((0, 3), dtype=np.float32)) == "tensor([], size=(0, 3))"
    empty_bool = np.zeros((0, 3), dtype=np.bool_)
    assert format_tensor(empty_bool, [dtype_suffix(empty_bool)]) == (
        "tensor([], size=(0, 3), dtype=minigrad.bool)"
    )
    empty_int = np.zeros(0, dtype=np.int64)
    assert format_tensor(empty_int, [dtype_suffix(empty_int)]) == (
        "tensor([], dtype=minigrad.int64)"
    )
    assert format_tensor(np.zeros((0, 3), dtype=np.float32), ["requires_grad=True"]) == (
        "tensor([], size=(0, 3), requires_grad=True)"
    )


def test_dtype_names() -> None:
    """dtype_name gives minigrad's spelling of the torch name."""
    assert dtype_name(np.dtype(np.float32)) == "minigrad.float32"
    assert dtype_name(np.dtype(np.bool_)) == "minigrad.bool"


@pytest.mark.parametrize("dtype", [np.complex64, np.object_, np.str_, np.longdouble])
def test_unsupported_dtypes_are_rejected(dtype: type) -> None:
    """Arrays torch could not hold raise TypeError instead of printing something made up."""
    if np.dtype(dtype) == np.dtype(np.float64):
        pytest.skip("longdouble is float64 on this platform")
    array = np.zeros(2, dtype=dtype)
    with pytest.raises(TypeError):
        format_tensor(array)
    with pytest.raises(TypeError):
        dtype_suffix(array)


def test_input_is_left_unchanged() -> None:
    """Printing never writes into the array it is given."""
    array = np.array([[1.5, np.nan], [-0.0, 3.0]], dtype=np.float32)
    before = array.copy()
    format_tensor(array)
    np.testing.assert_array_equal(array, before)
