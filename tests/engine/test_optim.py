"""minigrad.optim: SGD, Adam and AdamW formulas, param_groups, state, and how step() changes
weights."""

import math

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.optim as optim


def leaf(values):
    return minigrad.tensor(values, requires_grad=True)


def with_grad(values, grad):
    p = leaf(values)
    p.grad = minigrad.tensor(grad)
    return p


def test_sgd_plain_step():
    p = with_grad([1.0, 2.0], [0.5, -1.0])
    optim.SGD([p], lr=0.1).step()
    assert p.tolist() == pytest.approx([0.95, 2.1])


def test_sgd_momentum_dampening_weight_decay_by_hand():
    p = with_grad([1.0], [1.0])
    opt = optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.1)
    value, buf = 1.0, None
    for _ in range(3):
        g = 1.0 + 0.1 * value
        buf = g if buf is None else 0.9 * buf + 0.5 * g  # the first step takes g undamped
        value -= 0.1 * buf
        opt.step()
        assert p.item() == pytest.approx(value, rel=1e-6)
    assert opt.state[p]["momentum_buffer"].item() == pytest.approx(buf, rel=1e-6)


def test_sgd_nesterov_by_hand():
    p = with_grad([0.0], [1.0])
    opt = optim.SGD([p], lr=0.5, momentum=0.5, nesterov=True)
    opt.step()  # buf = 1, step = g + 0.5 * buf = 1.5
    opt.step()  # buf = 0.5 + 1 = 1.5, step = 1 + 0.75 = 1.75
    assert p.item() == pytest.approx(-0.5 * (1.5 + 1.75))


def test_sgd_maximize_goes_uphill():
    p = with_grad([0.0], [1.0])
    optim.SGD([p], lr=1.0, maximize=True).step()
    assert p.item() == 1.0


def test_adam_by_hand():
    p = with_grad([1.0, -1.0], [0.1, -3.0])
    opt = optim.Adam([p], lr=0.01, betas=(0.8, 0.9), eps=1e-8)
    x = np.array([1.0, -1.0])
    g = np.array([0.1, -3.0])
    m = v = np.zeros(2)
    for t in range(1, 4):
        m = 0.8 * m + 0.2 * g
        v = 0.9 * v + 0.1 * g * g
        x = x - 0.01 / (1 - 0.8**t) * m / (np.sqrt(v) / math.sqrt(1 - 0.9**t) + 1e-8)
        opt.step()
        np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-6)
    state = opt.state[p]
    assert state["step"].item() == 3
    assert set(state) == {"step", "exp_avg", "exp_avg_sq"}


def test_adam_first_step_moves_each_weight_by_lr():
    p = with_grad([0.0, 0.0], [1e-3, -50.0])
    optim.Adam([p], lr=0.1).step()
    np.testing.assert_allclose(p.detach().numpy(), [-0.1, 0.1], rtol=1e-4)


def test_adam_amsgrad_keeps_max():
    p = with_grad([0.0], [2.0])
    opt = optim.Adam([p], lr=0.1, amsgrad=True)
    opt.step()
    p.grad = minigrad.tensor([0.0])  # v shrinks to 0.999 * 0.004; the max stays 0.004
    opt.step()
    assert opt.state[p]["max_exp_avg_sq"].item() == pytest.approx(0.001 * 4, rel=1e-5)


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=0.1), lambda ps: optim.Adam(ps)])
def test_step_skips_parameters_without_grad(make):
    with_g, without = with_grad([1.0], [1.0]), leaf([1.0])
    make([with_g, without]).step()
    assert with_g.item() != 1.0 and without.item() == 1.0


def test_step_changes_parameters_in_place_and_bumps_their_version():
    layer = nn.Linear(2, 1)
    weight, array = layer.weight, layer.weight._array
    layer(minigrad.ones(1, 2)).sum().backward()
    version = weight._version
    optim.SGD(layer.parameters(), lr=0.1).step()
    assert layer.weight is weight and weight._array is array  # same object, same memory
    # a change through .data would not be counted (fresh counter); no_grad + add_ is
    assert weight._version == version + 1
    assert not weight.grad_fn and weight.requires_grad and weight.is_leaf


def test_step_between_forward_and_backward_breaks_the_old_graph():
    """The weights saved by the forward pass were changed in place: backward refuses, as torch."""
    layer = nn.Linear(2, 1)
    opt = optim.SGD(layer.parameters(), lr=0.1)
    x = minigrad.ones(3, 2, requires_grad=True)
    first = layer(x).sum()
    layer(x).sum().backward()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        first.backward()


def test_param_groups_are_dicts_with_defaults_and_lr_can_change():
    a, b = with_grad([1.0], [1.0]), with_grad([1.0], [1.0])
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1, momentum=0.0)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 1.0]
    assert opt.param_groups[0]["params"] == [a]
    assert set(opt.param_groups[0]) == {
        "params",
        "lr",
        "momentum",
        "dampening",
        "weight_decay",
        "nesterov",
        "maximize",
    }
    opt.step()
    assert a.item() == pytest.approx(0.9) and b.item() == pytest.approx(0.0)
    for group in opt.param_groups:
        group["lr"] = 0.5
    opt.step()
    assert a.item() == pytest.approx(0.4)


def test_add_param_group_and_duplicates():
    a, b = leaf([1.0]), leaf([1.0])
    opt = optim.Adam([a], lr=0.01)
    opt.add_param_group({"params": b, "lr": 0.1})
    assert opt.param_groups[1]["betas"] == (0.9, 0.999) and opt.param_groups[1]["lr"] == 0.1
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    p = with_grad([1.0, 2.0], [3.0, 4.0])
    optim.SGD([p], lr=0.1).zero_grad(set_to_none=set_to_none)
    assert p.grad is None if set_to_none else p.grad.tolist() == [0.0, 0.0]


def test_invalid_arguments():
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.SGD([leaf([1.0])], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        optim.SGD([leaf([1.0])], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([leaf([1.0])], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([leaf([1.0]) * 2], lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        optim.SGD([1.0], lr=0.1)


def test_step_with_closure_returns_loss():
    p = leaf([2.0])
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with minigrad.no_grad():
        loss = opt.step(closure)  # the closure records even inside no_grad, as in torch
    assert loss.item() == 4.0 and p.item() == 1.0


def test_repr_lists_group_settings():
    text = repr(optim.SGD([leaf([1.0])], lr=0.1))
    assert text.startswith("SGD (\nParameter Group 0\n") and "    lr: 0.1\n" in text


def test_state_of_a_parameter_not_yet_stepped_is_empty():
    p = leaf([1.0])
    opt = optim.Adam([p])
    assert opt.state[p] == {}


def test_adamw_shrinks_the_weight_instead_of_adding_to_the_gradient():
    # a zero gradient moves nothing through the averages: what is left is the decay itself
    p = with_grad([2.0, -4.0], [0.0, 0.0])
    optim.AdamW([p], lr=0.1, weight_decay=0.5).step()
    assert p.tolist() == pytest.approx([2.0 * 0.95, -4.0 * 0.95])
    # Adam's coupled decay adds 0.5 * p to the gradient instead: the first step is lr * sign
    q = with_grad([2.0, -4.0], [0.0, 0.0])
    optim.Adam([q], lr=0.1, weight_decay=0.5).step()
    assert q.tolist() == pytest.approx([1.9, -3.9])


def test_adamw_is_adam_with_decoupled_weight_decay():
    p = leaf([1.0])
    group = optim.AdamW([p]).param_groups[0]
    assert group["decoupled_weight_decay"] is True
    assert group["weight_decay"] == 0.01  # (torch's default for AdamW; Adam's is 0)
    assert isinstance(optim.AdamW([p]), optim.Adam)
