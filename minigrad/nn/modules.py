"""`Parameter`, `Module` and the layers and losses built on them, shaped like torch.nn.

A `Module` notices what is assigned to it: a `Parameter` goes into `_parameters`, another
`Module` into `_modules`, in the order of assignment. `parameters()`, `state_dict()`, `repr()`
and the optimizers all walk these two dictionaries, so the order is torch's.
"""

from __future__ import annotations

import copy
import math
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor
from ..creation import zeros
from ..grad_mode import no_grad
from ..graph import RemovableHandle, add_hook
from . import functional as F
from . import init
from .hooks import call_with_hooks

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
]


def _typename(value: object) -> str:
    """torch.typename: a function or class by its qualified name, anything else by its type."""
    module = getattr(value, "__module__", None)
    prefix = f"{module}." if module not in (None, "builtins") else ""
    name = getattr(value, "__qualname__", None) or type(value).__name__
    return prefix + name


class Parameter(Tensor):
    """A tensor that a Module registers as one of its weights: a leaf that requires grad.

    Like torch, it shares memory (and version counter) with the tensor it is made from.
    """

    _result_class = Tensor  # what ops and detach() make from a parameter: plain tensors

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        source = data.detach() if data is not None else Tensor._from_array(np.empty(0, np.float32))
        if requires_grad and source._array.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        super().__init__(())
        self._array = source._array
        self._storage = source._storage
        self._version_counter = source._version_counter
        self._inference = source._inference  # (an inference tensor cannot be made to need grad)
        self.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        # A fresh leaf with copied values: copying the fields one by one would also copy the
        # weak link to this parameter's AccumulateGrad, and gradients would reach the original.
        if id(self) in memo:
            return memo[id(self)]
        clone = Parameter(Tensor._from_array(self._array.copy()), self.requires_grad)
        if self._grad is not None:
            clone._grad = Tensor._from_array(self._grad._array.copy())
        memo[id(self)] = clone
        return clone


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the names it could not match."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
            f"unexpected_keys={self.unexpected_keys})"
        )


_HOOK_REGISTRIES = (
    "_forward_pre_hooks",
    "_forward_hooks",
    "_backward_pre_hooks",
    "_backward_hooks",
)


class Module:
    """Base class of every layer and model: holds parameters and submodules, calls `forward`."""

    training: bool

    def __init__(self) -> None:
        # object.__setattr__ because our own __setattr__ needs these dictionaries to exist
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())  # left out of state_dict
        for registry in _HOOK_REGISTRIES:
            object.__setattr__(self, registry, OrderedDict())

    # ---- registration ------------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            params[name] = value
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            self._modules[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(minigrad.nn.Parameter or None expected)"
                )
            params[name] = None
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as child module '{name}' "
                    "(minigrad.nn.Module or None expected)"
                )
            self._modules[name] = None
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                    "(minigrad.Tensor or None expected)"
                )
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        """Remove `name` from every registry and the instance dict before re-registering it."""
        self.__dict__.pop(name, None)
        for registry in (self._parameters, self._buffers, self._modules):
            registry.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails: look in the registries
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                return
        object.__delattr__(self, name)

    def _check_new_name(self, kind: str, name: object, registry: dict) -> None:
        """torch's checks on the name of a new parameter, buffer or module: a string without
        dots, not empty, and not already an attribute of another kind."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            got = f", got: {name}" if kind == "module" else ""
            raise KeyError(f'{kind} name can\'t contain "."{got}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or a None placeholder, like Linear's bias when bias=False)."""
        self._check_new_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(minigrad.nn.Parameter or None required)"
            )
        self._forget(name)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is part of the state but is not trained (`persistent=False`: kept
        out of state_dict)."""
        self._check_new_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                "(minigrad Tensor or None required)"
            )
        self._forget(name)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a submodule under `name`."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_new_name("module", name, self._modules)
        self._forget(name)
        self._modules[name] = module

    # ---- walking the tree --------------------------------------------------------------------

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module and every submodule (depth first), with dotted names; each once."""
        seen: set[int] = set()
        stack: list[tuple[str, Module]] = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            children = [
                (f"{name}.{child_name}" if name else child_name, child)
                for child_name, child in module._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))  # reversed: the first child is visited first

    def modules(self) -> Iterator[Module]:
        """This module and every submodule."""
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct submodules, with their names."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct submodules."""
        for _, module in self.named_children():
            yield module

    def _named_members(
        self, registry: str, prefix: str, recurse: bool
    ) -> Iterator[tuple[str, Tensor]]:
        seen: set[int] = set()  # a parameter shared by two layers is listed once, as in torch
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_name, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                yield (f"{module_name}.{name}" if module_name else name), value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """('0.weight', param), ... in registration order, submodules after own parameters."""
        yield from self._named_members("_parameters", prefix, recurse)  # type: ignore[misc]

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter of this module and its submodules (what an optimizer is given)."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        """The registered buffers, with dotted names."""
        yield from self._named_members("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The registered buffers."""
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call `fn` on every submodule, then on this module; returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ---- modes and gradients -----------------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Set training mode on this module and its submodules; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: `train(False)`. It does NOT stop gradient recording (use no_grad)."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Switch requires_grad of every parameter (freezing a layer); returns self."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: set `.grad` to None (default) or fill it with zeros."""
        for param in self.parameters():
            if param._grad is None:
                continue
            if set_to_none:
                param._grad = None
            else:
                param._grad.zero_()

    # ---- state -------------------------------------------------------------------------------

    def state_dict(self, prefix: str = "", keep_vars: bool = False) -> OrderedDict[str, Tensor]:
        """Name -> tensor for every parameter and buffer.

        The tensors are `detach()`ed: they share memory with the parameters, so they are a view
        of the current values, not a copy. Clone them to keep a snapshot.
        """
        state: OrderedDict[str, Tensor] = OrderedDict()
        for module_name, module in self.named_modules(prefix.rstrip(".")):
            skipped = module._non_persistent_buffers
            for registry in (module._parameters, module._buffers):
                for name, value in registry.items():
                    if value is not None and not (registry is module._buffers and name in skipped):
                        key = f"{module_name}.{name}" if module_name else name
                        state[key] = value if keep_vars else value.detach()
        return state

    def load_state_dict(
        self, state_dict: Mapping[str, Tensor], strict: bool = True
    ) -> _IncompatibleKeys:
        """Copy the values of `state_dict` into this module's parameters and buffers.

        The values are copied (with `copy_` under no_grad), so the module does not share memory
        with the source afterwards: `target.load_state_dict(online.state_dict())` makes a real
        copy of `online`'s weights.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [key for key in own if key not in state_dict]
        unexpected = [key for key in state_dict if key not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            source = state_dict[key]
            if not isinstance(source, Tensor):  # torch reports it with the other problems
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(source)}"
                )
                continue
            if tuple(source.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {source.shape} from "
                    f"checkpoint, the shape in current model is {target.shape}."
                )
                continue
            with no_grad():
                target.copy_(source)
        if strict:
            if unexpected:
                errors.insert(
                    0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected)
                )
            if missing:
                errors.insert(
                    0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing)
                )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    def to(self, dtype: dtypes.DType) -> Module:
        """Convert every parameter and buffer to `dtype` in place (same Parameter objects)."""
        with no_grad():
            for param in self.parameters():
                param.data = param.detach().to(dtype)
                if param._grad is not None:
                    param._grad = param._grad.to(dtype)
            for module in self.modules():
                for name, buffer in module._buffers.items():
                    if buffer is not None and buffer.is_floating_point():
                        module._buffers[name] = buffer.to(dtype)
        return self

    def double(self) -> Module:
        """Parameters in float64 (what gradcheck needs)."""
        return self.to(dtypes.float64)

    def float(self) -> Module:
        """Parameters in float32."""
        return self.to(dtypes.float32)

    # ---- calling -----------------------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """What the module computes; every subclass defines it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        return call_with_hooks(self, self.forward, args, kwargs)

    # ---- hooks (see nn/hooks.py) --------------------------------------------------------------

    def register_forward_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """`hook(module, args)` before forward; what it returns (if not None) replaces args."""
        return add_hook(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """`hook(module, args, output)` after forward; what it returns replaces the output."""
        return add_hook(self._forward_hooks, hook)

    def register_full_backward_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """`hook(module, grad_output)` once the outputs' gradients are known; a tuple it
        returns replaces them."""
        return add_hook(self._backward_pre_hooks, hook)

    def register_full_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """`hook(module, grad_input, grad_output)` once the inputs' gradients are known; a
        tuple it returns replaces grad_input."""
        return add_hook(self._backward_hooks, hook)

    # ---- printing ----------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr (its settings)."""
        return ""

    def __repr__(self) -> str:
        settings = self.extra_repr().split("\n") if self.extra_repr() else []
        children = []
        for name, module in self._modules.items():
            child_text = repr(module).replace("\n", "\n  ")  # indent the child's own lines
            children.append(f"({name}): {child_text}")
        if not children and len(settings) <= 1:
            return f"{type(self).__name__}({''.join(settings)})"
        body = "\n  ".join(settings + children)
        return f"{type(self).__name__}(\n  {body}\n)"

    def __deepcopy__(self, memo: dict[int, Any]) -> Module:
        # copy.deepcopy(model) is a common way to build a target network; copy every field, with
        # parameters going through Parameter.__deepcopy__ (fresh leaves).
        clone = type(self).__new__(type(self))
        memo[id(self)] = clone
        for key, value in self.__dict__.items():
            object.__setattr__(clone, key, copy.deepcopy(value, memo))
        return clone


def _type_name(value: object) -> str:
    if isinstance(value, Tensor):
        return f"minigrad.{value.dtype.torch_kind}Tensor"
    return type(value).__name__


# --------------------------------------------------------------------------------------------
# Containers
# --------------------------------------------------------------------------------------------


class Sequential(Module):
    """Modules applied one after the other; named '0', '1', ... (or by an OrderedDict's keys)."""

    def __init__(self, *modules: Module | OrderedDict[str, Module]) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(modules):
                self.add_module(str(index), module)  # type: ignore[arg-type]

    def forward(self, input: Any) -> Any:  # noqa: A002
        """Feed `input` through every module in order."""
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, index: int | slice) -> Module:
        items = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(items[index]))
        if not -len(items) <= index < len(items):
            raise IndexError(f"index {index} is out of range")
        return items[index][1]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        """Add a module at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def __delitem__(self, index: int | slice) -> None:
        """Remove the module(s) at `index`; the rest are renumbered from '0' (as torch)."""
        names = list(self._modules)
        for name in names[index] if isinstance(index, slice) else [names[index]]:
            del self._modules[name]
        kept = list(self._modules.values())  # torch renumbers the rest: '0', '1', ...
        self._modules.clear()
        for number, module in enumerate(kept):
            self._modules[str(number)] = module


class ModuleList(Module):
    """A list of modules whose parameters are registered (a plain Python list would hide them)."""

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        for module in modules:
            self.append(module)

    def append(self, module: Module) -> ModuleList:
        """Add a module at the end; returns self."""
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Add several modules at the end; returns self."""
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Put `module` before position `index`; the modules are renumbered '0', '1', ..."""
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for number, each in enumerate(modules):
            self.add_module(str(number), each)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        """A new ModuleList with this one's modules, then `other`'s."""
        return ModuleList([*self, *other])

    def __getitem__(self, index: int | slice) -> Module | ModuleList:
        modules = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(modules[index])
        if not -len(modules) <= index < len(modules):
            raise IndexError(f"index {index} is out of range")
        return modules[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())


# --------------------------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------------------------


def _check_features(sizes: tuple[object, ...]) -> None:
    """torch's errors for a layer size that is not a whole number, or negative (its message
    names `empty`, the function that makes the weight)."""
    for position, size in enumerate(sizes, start=1):
        if isinstance(size, bool) or not hasattr(size, "__index__"):
            raise TypeError(
                f"empty(): argument 'size' failed to unpack the object at pos {position} with "
                f'error "type must be tuple of ints,but got {type(size).__name__}"'
            )
    if any(size < 0 for size in sizes):  # type: ignore[operator]
        negative = next(size for size in sizes if size < 0)  # type: ignore[operator]
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {negative}: {list(sizes)}"
        )


class Linear(Module):
    """y = x @ weight.T + bias, with weight of shape (out_features, in_features).

    Initialised like torch: weight and bias uniform in ±1/sqrt(in_features), drawn as torch
    draws them, so after `minigrad.manual_seed(s)` the weights are torch's after its seed.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        _check_features((out_features, in_features))
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(zeros(out_features, in_features))
        if bias:
            self.bias = Parameter(zeros(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw new weights: torch's kaiming_uniform_(a=sqrt(5)), which is U(±1/sqrt(fan_in))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """x @ W.T + b (recorded as AddmmBackward0, as torch does)."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Embedding(Module):
    """A table of `num_embeddings` vectors of size `embedding_dim`, indexed by integers."""

    def __init__(
        self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None
    ) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx >= num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < -num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self.padding_idx = padding_idx
        self.weight = Parameter(zeros(num_embeddings, embedding_dim))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Standard normal entries (torch's default), with the padding row set to zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """The rows for the integer indices in `input` (EmbeddingBackward0)."""
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text


class RNNCell(Module):
    """One step of an Elman RNN: h' = tanh(h @ W_hh.T + b_hh + x @ W_ih.T + b_ih).

    Without `hx` the hidden state starts at zeros. Every parameter is U(±1/sqrt(hidden_size)).
    """

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh"
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.nonlinearity = nonlinearity
        self.weight_ih = Parameter(zeros(hidden_size, input_size))
        self.weight_hh = Parameter(zeros(hidden_size, hidden_size))
        if bias:
            self.bias_ih = Parameter(zeros(hidden_size))
            self.bias_hh = Parameter(zeros(hidden_size))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter uniform in ±1/sqrt(hidden_size), in registration order (as torch)."""
        bound = 1 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for param in self.parameters():
            init.uniform_(param, -bound, bound)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        """The next hidden state, (batch, hidden_size) or (hidden_size,) for one sample."""
        if input.ndim not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        if hx is not None and hx.shape[-1] != self.hidden_size:
            raise RuntimeError(
                f"hidden0 has inconsistent hidden_size: got {hx.shape[-1]}, expected "
                f"{self.hidden_size}"
            )
        if self.nonlinearity not in ("tanh", "relu"):  # torch checks it here, not when made
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        # torch adds the hidden-state term first: the graph's first edge leads back in time
        pre = F.linear(hx, self.weight_hh, self.bias_hh) + F.linear(
            input, self.weight_ih, self.bias_ih
        )
        hidden = pre.tanh() if self.nonlinearity == "tanh" else pre.relu()
        return hidden if batched else hidden.squeeze(0)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias_ih is None:
            text += ", bias=False"
        if self.nonlinearity != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text


class Identity(Module):
    """Returns its input unchanged (a placeholder layer; any arguments are ignored)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """The input itself."""
        return input


# --------------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------------


class ReLU(Module):
    """max(x, 0), elementwise (`inplace=True`: written into the input, relu_)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """max(input, 0)."""
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """Hyperbolic tangent, elementwise."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """tanh(input)."""
        return input.tanh()


class LeakyReLU(Module):
    """x for x > 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """leaky_relu(input)."""
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class Dropout(Module):
    """Zeroes random elements while training (scaling the rest); does nothing after eval()."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """dropout(input, p, self.training)."""
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Sigmoid(Module):
    """1 / (1 + exp(-x)), elementwise."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """sigmoid(input)."""
        return input.sigmoid()


# --------------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------------


class _Loss(Module):
    """A loss: `reduction` is 'mean' (default), 'sum' or 'none'."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        F._check_reduction(reduction)
        self.reduction = reduction


class MSELoss(_Loss):
    """Mean squared error between input and target."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """mse_loss(input, target)."""
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """Softmax cross-entropy on raw scores (N, C) against int64 class indices (N,)."""

    def __init__(
        self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean"
    ) -> None:
        super().__init__(reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """cross_entropy(input, target)."""
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction)


class BCELoss(_Loss):
    """Binary cross-entropy on probabilities (put a Sigmoid before it)."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """binary_cross_entropy(input, target)."""
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on raw scores (sigmoid included, numerically stable)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """binary_cross_entropy_with_logits(input, target)."""
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, self.reduction, self.pos_weight
        )
