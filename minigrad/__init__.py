"""minigrad: a small numpy autograd engine that behaves like PyTorch where it shares a name.

Where to read, in the order a tensor meets them (README.md "Reading minigrad" says the same).
The imports run the other way: `_tensor.py`, read first, sits on top and imports the layers
beneath it; each module imports only from lower layers (tests/engine/test_layers.py).

- `_tensor.py`   the Tensor: its fields, its flags, hooks, the three ways to cut the graph
                 (detach, detach_, data), backward, conversion (`minigrad.tensor` is the
                 function that makes one, as `torch.tensor`)
- `versions.py`  version counters and storage (what views, detach() and .data share), and
                 SavedTensor, whose check() is the version check backward makes
- `graph.py`     nodes (grad_fn), AccumulateGrad, saved values, hooks on nodes
- `engine.py`    the backward walk
- `recording.py` the one place an op joins the graph (`TensorCore._apply` and its kin)
- `functions/`   one class per torch grad_fn, forward beside backward (formulas.py: what
                 backward formulas are written with, on arrays and, for create_graph, tensors)
- `methods/`     the Tensor's methods that compute something (+, exp, sum, view, t[1:], add_);
                 base.py: shape, dtype, memory (data_ptr, untyped_storage) and device
- `autograd/`    backward(), grad(), Function, gradcheck, saved_tensors_hooks
- `backward_call.py` (where backward starts), `_fast.py` (speed tricks), `dtypes.py`,
  `_shapes.py`, `_convert.py`, `_device.py`, `_format.py`, `grad_mode.py`, `random.py`,
  `creation.py`, `functional.py`, `nn/`, `optim.py`, `data.py`, `viz/`
"""

import math

from . import autograd, data, functional, nn, optim, random
from ._device import device
from ._format import set_printoptions
from ._tensor import Size, Tensor
from .creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    get_rng_state,
    initial_seed,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
    tensor,
    zeros,
    zeros_like,
)
from .dtypes import (
    DType,
    bool_,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from .functional import *  # noqa: F403 - torch's functions (`functional.__all__`), listed once
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_anomaly_enabled,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .random import Generator

__version__ = "0.1.0"

inf = math.inf  # torch.inf and torch.nan: the float constants, for convenience
nan = math.nan

bool = bool_  # noqa: A001 - torch's name for the dtype is `bool`
float = float32  # noqa: A001 - torch.float is float32
double = float64
half = float16
long = int64
int = int32  # noqa: A001 - torch.int is int32
short = int16
default_generator = random.default_generator()  # torch.default_generator: what manual_seed seeds

__all__ = [
    "inf",
    "nan",
    "as_tensor",
    "arange",
    "autograd",
    "bool",
    "bool_",
    "data",
    "default_generator",
    "device",
    "double",
    "DType",
    "empty",
    "empty_like",
    "enable_grad",
    "eye",
    "float",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "full_like",
    "Generator",
    "get_default_dtype",
    "get_rng_state",
    "half",
    "inference_mode",
    "initial_seed",
    "int",
    "int16",
    "int32",
    "int64",
    "int8",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "linspace",
    "long",
    "short",
    "manual_seed",
    "nn",
    "no_grad",
    "ones",
    "ones_like",
    "optim",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "random",
    "randperm",
    "seed",
    "set_default_dtype",
    "set_grad_enabled",
    "set_printoptions",
    "set_rng_state",
    "Size",
    "Tensor",
    "tensor",
    "uint8",
    "zeros",
    "zeros_like",
    *functional.__all__,  # abs, add, cat, exp, matmul, ... (see functional.py)
]
