"""Optimizers: SGD, Adam and AdamW, with torch's update formulas, param_groups and per-parameter
state.

`step()` changes each parameter **in place under `no_grad`**: that is allowed for a leaf that
requires grad only because nothing is recorded, and it bumps the parameter's version counter.
So a graph built before the step, which saved the old weights, refuses a later backward with
torch's "modified by an inplace operation" error, exactly as in torch. (Updating through
`.data` would hide that error and silently give wrong gradients.)
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ._tensor import Tensor
from .creation import tensor
from .grad_mode import enable_grad, no_grad

__all__ = ["SGD", "Adam", "AdamW", "Optimizer"]


class _Required:
    """Marker for a hyper-parameter without a default (SGD's lr in old torch versions)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class: holds `param_groups` (a list of dicts) and `state` (a dict per parameter).

    A learner can change a hyper-parameter between steps, e.g.
    `for group in opt.param_groups: group["lr"] = 0.01`.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], defaults: dict) -> None:
        self.defaults = defaults
        # keyed by the parameter (tensors hash by identity); {} for one not yet stepped, as torch
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got minigrad.{params.dtype.tensor_type}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyper-parameters (missing ones get defaults)."""
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for param in group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    f"{type(param).__name__}"
                )
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in group["params"]}) != len(group["params"]):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                UserWarning,
                stacklevel=3,
            )
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            group.setdefault(name, default)
        known = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in known for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter: None (default) or zeros."""
        for group in self.param_groups:
            for param in group["params"]:
                if param._grad is None:
                    continue
                if set_to_none:
                    param._grad = None
                else:
                    param._grad.zero_()

    def step(self, closure: Callable[[], Tensor] | None = None) -> Tensor | None:
        """Update every parameter that has a gradient (subclasses define the rule)."""
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """What `load_state_dict` needs to go on where this optimizer is: each parameter's state
        (momentum buffers, Adam's averages) and the hyper-parameters, parameters by position."""
        positions: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            packed["params"] = []
            for param in group["params"]:
                positions.setdefault(id(param), len(positions))
                packed["params"].append(positions[id(param)])
            groups.append(packed)
        state = {
            positions[id(param)]: dict(values)
            for param, values in self.state.items()
            if id(param) in positions
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take on a `state_dict()`'s state and hyper-parameters (same parameters, same order)."""
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        by_position = {
            saved: param
            for group, saved_group in zip(groups, saved_groups, strict=True)
            for saved, param in zip(saved_group["params"], group["params"], strict=True)
        }
        self.state = defaultdict(dict)
        for position, values in state_dict["state"].items():
            param = by_position[position]
            self.state[param] = {key: _copied(value, param) for key, value in values.items()}
        for group, saved_group in zip(groups, saved_groups, strict=True):
            group.update({key: value for key, value in saved_group.items() if key != "params"})

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for index, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {index}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _run_closure(closure: Callable[[], Tensor] | None) -> Tensor | None:
    if closure is None:
        return None

    with enable_grad():
        return closure()


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum and weight decay (torch's rule).

    Per parameter p with gradient g:
        g = g + weight_decay * p
        buf = g (first step)  or  buf = momentum * buf + (1 - dampening) * g
        g = g + momentum * buf (nesterov)  or  g = buf
        p = p - lr * g
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Tensor] | None = None) -> Tensor | None:
        """One update of every parameter whose `.grad` is not None."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            momentum, dampening = group["momentum"], group["dampening"]
            for param in group["params"]:
                if param._grad is None:
                    continue
                grad = param._grad if not group["maximize"] else -param._grad
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                if momentum != 0:
                    state = self.state[param]
                    buffer = state.get("momentum_buffer")
                    if buffer is None:
                        buffer = grad.detach().clone()
                        state["momentum_buffer"] = buffer
                    else:
                        buffer.mul_(momentum).add_(grad, alpha=1 - dampening)
                    grad = grad.add(buffer, alpha=momentum) if group["nesterov"] else buffer
                param.add_(grad, alpha=-group["lr"])
        return loss


class Adam(Optimizer):
    """Adam (Kingma & Ba), with torch's bias correction and eps placement.

    Per parameter p with gradient g, at step t:
        g = g + weight_decay * p   (or, with decoupled_weight_decay, p = p * (1 - lr * wd))
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for index, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Tensor] | None = None) -> Tensor | None:
        """One update of every parameter whose `.grad` is not None."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param._grad is None:
                    continue
                grad = param._grad if not group["maximize"] else -param._grad
                state = self.state[param]
                if not state:
                    # torch keeps the step count as a float32 tensor
                    state["step"] = tensor(0.0)
                    state["exp_avg"] = _zeros_like(param)
                    state["exp_avg_sq"] = _zeros_like(param)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = _zeros_like(param)
                state["step"].add_(1)
                step = state["step"].item()
                if group["weight_decay"] != 0:
                    if group["decoupled_weight_decay"]:  # AdamW: the parameter shrinks
                        param.mul_(1 - group["lr"] * group["weight_decay"])
                    else:
                        grad = grad.add(param, alpha=group["weight_decay"])
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                step_size = group["lr"] / (1 - beta1**step)
                correction2_sqrt = math.sqrt(1 - beta2**step)
                if group["amsgrad"]:
                    largest = state["max_exp_avg_sq"]
                    largest.copy_(Tensor._from_array(np.maximum(largest._array, exp_avg_sq._array)))
                    denom = (largest.sqrt() / correction2_sqrt).add_(group["eps"])
                else:
                    denom = (exp_avg_sq.sqrt() / correction2_sqrt).add_(group["eps"])
                param.add_(exp_avg / denom, alpha=-step_size)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): each step shrinks the parameter,
    p = p * (1 - lr * weight_decay), instead of adding weight_decay * p to its gradient. As in
    torch, this is Adam with `decoupled_weight_decay=True`, and weight_decay defaults to 0.01."""

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            maximize=maximize,
            decoupled_weight_decay=True,
        )


def _copied(value: Any, param: Tensor) -> Any:
    """A state value for `param`: a tensor is copied (in the parameter's dtype, except the step
    count), anything else kept as it is."""
    if not isinstance(value, Tensor):
        return value
    copy = value.detach().clone()
    if copy.is_floating_point() and copy.ndim:
        copy = copy.to(param.dtype)
    return copy


def _zeros_like(param: Tensor) -> Tensor:
    """Zeros shaped and typed like `param`, in new memory, outside the graph."""
    return Tensor._from_array(np.zeros_like(param._array))
