"""How any layer makes a tensor: `make_tensor(cls, array)`, with `cls` a class it already holds.

The graph and the engine must sometimes hand a tensor to someone (a hook sees tensors, a
formula recorded under create_graph works on tensors, `grad_fn._saved_result` is a tensor).
The `Tensor` class is defined above them, so they never name it: a node keeps the class of the
tensors it made (`Node.tensor_class`), and this function makes one of that class.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .grad_mode import _state

__all__ = ["make_tensor", "tensor_serials"]

tensor_serials = itertools.count()  # creation order of tensors, for stable names in pictures


def make_tensor(cls: type, array: np.ndarray) -> Any:
    """A tensor of class `cls` on an array nobody else owns: new storage, new version counter
    (both made when first asked for), a leaf that needs no grad."""
    tensor = object.__new__(cls)
    # numpy turns 0-d results into scalars (np.float32): keep an array
    tensor._array = array if type(array) is np.ndarray else np.asarray(array)
    tensor._serial = next(tensor_serials)
    if _state.inference:
        tensor._inference = True
    return tensor
