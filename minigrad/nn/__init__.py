"""minigrad.nn: Parameter, Module, layers and losses, named and shaped like torch.nn."""

from . import functional, init
from .modules import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Embedding,
    Identity,
    Linear,
    Module,
    ModuleList,
    MSELoss,
    Parameter,
    ReLU,
    RNNCell,
    Sequential,
    Sigmoid,
    Tanh,
)

__all__ = [
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Embedding",
    "Identity",
    "Linear",
    "MSELoss",
    "Module",
    "ModuleList",
    "Parameter",
    "RNNCell",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Tanh",
    "functional",
    "init",
]
