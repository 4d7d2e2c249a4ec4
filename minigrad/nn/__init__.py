"""minigrad.nn: Parameter, Module, layers and losses, named and shaped like torch.nn."""

from . import functional, init
from .modules import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Identity,
    LeakyReLU,
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
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Identity",
    "LeakyReLU",
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
