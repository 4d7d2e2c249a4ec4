"""`minigrad.autograd`: backward() and grad() on tensors, custom Functions, gradcheck, the grad
and anomaly modes, and, for readers, the graph's classes (the walk itself is minigrad/engine.py).
"""

from __future__ import annotations

from ..engine import GradBuffers, run_backward, unbroadcast
from ..grad_mode import (
    detect_anomaly,
    enable_grad,
    inference_mode,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_detect_anomaly,
    set_grad_enabled,
)
from ..graph import AccumulateGrad, Node
from ..versions import SavedTensor
from . import functional, graph
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .gradients import backward, grad
from .variable import Variable

__all__ = [
    "AccumulateGrad",
    "Function",
    "FunctionCtx",
    "GradBuffers",
    "GradcheckError",
    "Node",
    "SavedTensor",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "once_differentiable",
    "run_backward",
    "set_detect_anomaly",
    "set_grad_enabled",
    "unbroadcast",
]
