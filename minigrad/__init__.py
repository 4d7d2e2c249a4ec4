"""minigrad: a small numpy autograd engine that behaves like PyTorch where it shares a name.

Where to read, in the order a tensor meets them:

- `tensor.py`    the Tensor, and the three ways to cut the graph: detach, detach_, data
- `ops.py`       the elementwise operations, forward and backward side by side, and
                 `run_op`, which records an operation in the graph
- `reductions.py`, `matrix.py`  sum/mean/max, and matrix products, written the same way
- `versions.py`  version counters and storage (what views, detach() and .data share), and
                 SavedTensor, whose unpack() is the version check backward makes
- `views.py`     views: results that share memory and version counter with their input;
                 indexing, cat and stack
- `inplace.py`   what an in-place change does to memory, versions and the graph
- `autograd.py`  nodes (grad_fn), AccumulateGrad, and backward
- `grad_mode.py` no_grad, enable_grad, set_grad_enabled
- `creation.py`, `dtypes.py`, `gradcheck.py`, `_format.py`: making tensors, dtypes and type
  promotion, checking gradients numerically, printing like torch
"""

from . import autograd, data, nn, optim, random
from .creation import (
    arange,
    from_numpy,
    full,
    get_rng_state,
    initial_seed,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    randint,
    randn,
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
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_anomaly_enabled,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_detect_anomaly,
    set_grad_enabled,
)
from .random import Generator
from .tensor import Size, Tensor, cat, stack

__version__ = "0.1.0"

bool = bool_  # noqa: A001 - torch's name for the dtype is `bool`
float = float32  # noqa: A001 - torch.float is float32
double = float64
long = int64
default_generator = random.default_generator()  # torch.default_generator: what manual_seed seeds

__all__ = [
    "DType",
    "Generator",
    "Size",
    "Tensor",
    "arange",
    "autograd",
    "bool",
    "cat",
    "data",
    "default_generator",
    "double",
    "enable_grad",
    "float",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "get_rng_state",
    "initial_seed",
    "int8",
    "int16",
    "int32",
    "int64",
    "inference_mode",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "linspace",
    "long",
    "manual_seed",
    "nn",
    "no_grad",
    "ones",
    "ones_like",
    "optim",
    "rand",
    "randint",
    "randn",
    "random",
    "randperm",
    "seed",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_rng_state",
    "stack",
    "tensor",
    "uint8",
    "zeros",
    "zeros_like",
]
