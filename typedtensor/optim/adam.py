"""``optim.Adam`` and ``optim.AdamW``: torch's single-tensor algorithm, op for op, so float32
trajectories agree with torch's to rounding (bias corrections are folded the way torch folds them)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typedtensor._runtime import _C
from typedtensor.optim._pointwise import (
    addcdiv_,
    addcdiv_by_,
    addcmul_,
    bump,
    lerp_,
    maximum_,
    persistent,
    step_counter,
    step_tensor,
    torch_flags,
    tracing,
)
from typedtensor.optim.optimizer import Optimizer, Tensor


def _check(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    _traced_first_step = True  # NOTE [ Compiled optimizer steps ]

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
            "maximize": maximize,
            **torch_flags(type(self).__name__, foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused),
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update(self, group: dict[str, Any], param: Tensor, grad: Tensor, state: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        if group["maximize"]:
            grad = -grad
        traced = tracing()  # NOTE [ Compiled optimizer steps ]: the step count is a tensor
        if not state:
            state["step"] = step_counter()
            state["exp_avg"] = _C.zeros_like(param)
            state["exp_avg_sq"] = _C.zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _C.zeros_like(param)
            if traced:
                for t in state.values():
                    persistent(t)
        step: Any = step_tensor(state["step"]) if traced else bump(state["step"])
        if wd != 0:
            if group.get("decoupled_weight_decay", False):
                param.mul_(1 - lr * wd)
            else:
                grad = grad.add(param, alpha=wd)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        lerp_(exp_avg, grad, 1 - beta1)
        addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        if traced:  # float64 0-d tensors: rounded to the parameter's type where eager rounds its scalars
            bias_correction2_sqrt = bias_correction2_sqrt.to(param.dtype)
        sq = maximum_(state["max_exp_avg_sq"], exp_avg_sq) if group["amsgrad"] else exp_avg_sq
        denom = (sq.sqrt() / bias_correction2_sqrt).add_(eps)
        (addcdiv_by_ if traced else addcdiv_)(param, exp_avg, denom, -step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (``param *= 1 - lr * weight_decay`` before the step)."""

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
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize, capturable=capturable,
            differentiable=differentiable, fused=fused, decoupled_weight_decay=True,
        )
