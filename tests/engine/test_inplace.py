"""In-place operations: the leaf rule, version counters, the check backward makes, and how an
in-place change is recorded (directly, or as CopySlices for a view)."""

import numpy as np
import pytest

import minigrad

VERSION_ERROR = "^one of the variables needed for gradient computation has been modified by an "


def leaf(values=(1.0, 2.0, 3.0)):
    return minigrad.tensor(list(values), requires_grad=True)


INPLACE = {
    "add_": (lambda t: t.add_(2), lambda x: x + 2, "AddBackward0"),
    "add_ alpha": (lambda t: t.add_(1, alpha=3), lambda x: x + 3, "AddBackward0"),
    "sub_": (lambda t: t.sub_(2), lambda x: x - 2, "SubBackward0"),
    "mul_": (lambda t: t.mul_(2), lambda x: x * 2, "MulBackward0"),
    "div_": (lambda t: t.div_(2), lambda x: x / 2, "DivBackward0"),
    "zero_": (lambda t: t.zero_(), np.zeros_like, "ZeroBackward0"),
    "fill_": (lambda t: t.fill_(7), lambda x: np.full_like(x, 7), "FillBackward2"),
    "clamp_": (lambda t: t.clamp_(1.5, 2.5), lambda x: np.clip(x, 1.5, 2.5), "ClampBackward1"),
    "copy_": (
        lambda t: t.copy_(minigrad.tensor(5.0)),
        lambda x: np.full_like(x, 5),
        "CopyBackwards",
    ),
    "+=": (lambda t: t.__iadd__(1), lambda x: x + 1, "AddBackward0"),
    "-=": (lambda t: t.__isub__(1), lambda x: x - 1, "SubBackward0"),
    "*=": (lambda t: t.__imul__(3), lambda x: x * 3, "MulBackward0"),
    "/=": (lambda t: t.__itruediv__(4), lambda x: x / 4, "DivBackward0"),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_changes_memory_bumps_version_and_records(name):
    change, expected, node_name = INPLACE[name]
    a = leaf()
    b = a * 1
    alias = b.detach()
    result = change(b)
    assert result is b
    np.testing.assert_allclose(b.detach().numpy(), expected(np.array([1.0, 2.0, 3.0])))
    assert b._version == alias._version == 1
    np.testing.assert_array_equal(alias.numpy(), b.detach().numpy())  # same memory
    assert b.grad_fn.name() == node_name
    assert b.grad_fn.next_functions[0][0].name() == "MulBackward0"


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_a_leaf_that_requires_grad_is_refused(name):
    change = INPLACE[name][0]
    a = leaf()
    with pytest.raises(
        RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"
    ):
        change(a)
    assert a._version == 0 and a.tolist() == [1.0, 2.0, 3.0]


def test_inplace_on_a_view_of_a_leaf_is_refused():
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        leaf()[1:].mul_(2)


def test_inplace_on_a_leaf_under_no_grad_is_allowed_and_counted():
    a = leaf()
    with minigrad.no_grad():
        a.add_(1)
        a -= 1
    assert a.tolist() == [1.0, 2.0, 3.0] and a._version == 2
    assert a.is_leaf and a.requires_grad and a.grad_fn is None


def test_no_grad_change_of_a_saved_leaf_makes_backward_fail():
    a = leaf()
    b = a * a
    with minigrad.no_grad():
        a.mul_(2)
    with pytest.raises(RuntimeError, match=VERSION_ERROR) as error:
        b.sum().backward()
    assert "[minigrad.FloatTensor [3]] is at version 1; expected version 0 instead." in str(
        error.value
    )


def test_change_of_a_saved_output_through_detach_makes_backward_fail():
    a = leaf()
    out = a.exp()
    out.detach()[0:1].zero_()
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        out.sum().backward()


def test_saved_tensor_reports_the_versions():
    a = leaf()
    out = a.sigmoid()
    saved = out.grad_fn.saved["result"]
    out.detach().add_(0)
    assert (saved.saved_version, saved.current_version) == (0, 1)


def test_inplace_on_a_non_leaf_keeps_gradients_right():
    a = leaf()
    b = a * 2
    b.mul_(3)
    b.exp().sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 6 * np.exp(6 * np.array([1.0, 2.0, 3.0])))


def test_inplace_op_that_saved_its_own_target_fails_like_torch():
    a = leaf()
    b = a * 2
    b.mul_(b)  # MulBackward0 saved b, which the same call then changed
    with pytest.raises(RuntimeError, match=VERSION_ERROR + r".*output 0 of Mul, is at version 1"):
        b.sum().backward()


def test_inplace_with_an_input_that_requires_grad_makes_a_tensor_require_grad():
    a = leaf()
    x = minigrad.zeros(3)
    x.add_(a)
    assert x.requires_grad and not x.is_leaf and x.grad_fn.name() == "AddBackward0"
    x.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0]


def test_inplace_without_grad_is_not_recorded():
    x = minigrad.zeros(3)
    x.add_(1)
    assert x.grad_fn is None and x.is_leaf and x._version == 1


# ---- through views: CopySlices ---------------------------------------------------------------


def test_inplace_through_a_view_rewrites_the_base_history():
    a = leaf()
    b = a * 1
    v = b[1:]
    v.mul_(10)
    assert b.tolist() == [1.0, 20.0, 30.0] and b._version == 1
    assert b.grad_fn.name() == "CopySlices" and v.grad_fn.name() == "AsStridedBackward0"
    assert v.grad_fn.next_functions[0][0] is b.grad_fn
    # torch's CopySlices edges: (old base history, the other inputs of the change: the 10)
    assert [n and n.name() for n, _ in b.grad_fn.next_functions] == ["MulBackward0", None]
    b.sum().backward()
    assert a.grad.tolist() == [1.0, 10.0, 10.0]


def test_other_views_see_the_new_history_of_their_base():
    a = leaf()
    b = a * 1
    first = b[:2]
    b.mul_(3)
    assert first.grad_fn.name() == "AsStridedBackward0"
    assert first.grad_fn.next_functions[0][0] is b.grad_fn
    (first * first).sum().backward()
    assert a.grad.tolist() == [18.0, 36.0, 0.0]


def test_setitem_with_basic_and_advanced_indices():
    a = leaf()
    k = minigrad.tensor([7.0, 8.0], requires_grad=True)
    c = a * 1
    c[0] = 10.0
    c[1:] = k
    assert c.tolist() == [10.0, 7.0, 8.0] and c.grad_fn.name() == "CopySlices"
    (c * minigrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert k.grad.tolist() == [2.0, 3.0] and a.grad.tolist() == [0.0, 0.0, 0.0]
    d = a * 1
    d[[0, 2]] = k
    assert d.tolist() == [7.0, 2.0, 8.0] and d.grad_fn.name() == "IndexPutBackward0"
    e = minigrad.zeros(3)
    e[minigrad.tensor([True, False, True])] = 1.0
    assert e.tolist() == [1.0, 0.0, 1.0] and e._version == 1


def test_inplace_shape_and_dtype_errors():
    with pytest.raises(RuntimeError, match=r"^output with shape \[3\] doesn't match the broadcast"):
        minigrad.ones(3).add_(minigrad.ones(2, 3))
    with pytest.raises(
        RuntimeError, match="^result type Float can't be cast to the desired output"
    ):
        minigrad.tensor([1, 2]).mul_(1.5)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        minigrad.ones(1).expand(3).add_(1)


def test_retained_grad_survives_an_inplace_change():
    a = leaf()
    b = a * 2
    b.retain_grad()
    b.add_(1)
    (b * 3).sum().backward()
    assert b.grad.tolist() == [3.0, 3.0, 3.0]
