"""minigrad: a small numpy autograd engine that behaves like PyTorch where it shares a name."""

__version__ = "0.1.0"
