"""A view made under no_grad of a tensor that requires grad, changed in place with grad mode on:
torch's RuntimeError (notebook 05 shows it), not an AttributeError from building its message.
Both a view of a leaf and a view of a result (test_hooks_and_functions.py has the latter with
the change inside no_grad); the messages match torch in tests/parity (engine3_cases "ng-view-*").
"""

from __future__ import annotations

import pytest

import minigrad

MESSAGE = "A view was created in no_grad mode and is being modified inplace with grad mode enabled"


@pytest.mark.parametrize("of_leaf", [True, False], ids=["view of a leaf", "view of a result"])
def test_in_place_change_of_a_no_grad_view_raises_torchs_error(of_leaf: bool) -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = x if of_leaf else x * 2
    with minigrad.no_grad():
        v = base[1:]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    with pytest.raises(RuntimeError, match=MESSAGE):
        v.mul_(2)


def test_the_same_change_inside_no_grad_is_allowed_and_counted() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with minigrad.no_grad():
        v = x[1:]
        v.mul_(2)
    assert x.tolist() == [1.0, 4.0, 6.0] and x._version == 1
